# The arena's own rules: every algorithm of the five papers, and the baselines practitioners use,
# under every delay regime (src/delayed_bandits/arena). `snakemake arena` (papers.smk) makes it
# alone. Its figures go through the common stages of pipeline.smk; their kinds read the
# leaderboard table besides the summary, which the rule `leaderboard` below makes from the runs
# (the arena's own command, delayed-bandits leaderboard). The other views of figure `regret`
# read the same tables, and the arena's registration lists them as its extra targets. The
# experiment is in config/config.yaml under papers.arena. Where a figure screens
# (statistics.screen_runs; docs/decisions/arena.md#screening) its runs come in two stages: the
# shards hold the screen (replications 0 to screen_runs - 1 of every entrant); the checkpoint
# `screen` reads them and writes the plan (results/arena/<figure>/screen.json: per setting, its
# contenders); the rule `contest` runs the rest of the replications of a setting's contenders
# (results/arena/<figure>/<setting>/contest<first>-<last>.parquet); the leaderboard and the
# summary read the two stages pooled (pooled_shards). A figure of one stage has no screen and
# no contest.


# The arena's shards: the rule simulate_figure's job under a name of its own, so that the SLURM
# profile can leave them out of the figure's group job (workflow/profiles/slurm): the screen's
# checkpoint below may not be in a group, and a job outside a group may not sit between two of
# its jobs (here: the shards, then the screen, then the leaderboard and the claims).
# Its shards and screen go before the papers' shards (priority): they begin the longest chain
# of jobs (shards, the screen, the contest, the paired statistics, the views, the claims, the
# notebook).
use rule simulate_figure as simulate_arena with:
    wildcard_constraints:
        paper="arena",
    priority: 2


ruleorder: simulate_arena > simulate_figure


checkpoint screen:
    input:
        shards=lambda wc: shard_files(SimpleNamespace(paper="arena", figure=wc.figure)),
    output:
        plan=out("results/arena/{figure}/screen.json"),
        record=out("results/arena/{figure}/screen.provenance.json"),
    log:
        out("logs/arena/{figure}/screen.log"),
    benchmark:
        out("benchmarks/arena/{figure}/screen.tsv")
    priority: 2
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: figure_analysis("arena", wc.figure).mem_mb,
        runtime=lambda wc: figure_analysis("arena", wc.figure).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("table", "arena"),
    shell:
        "delayed-bandits screen --merged {params.merged:q} --paper arena"
        " --figure {wildcards.figure:q} --out {output.plan:q} {input.shards:q} > {log:q} 2>&1"


# A setting's contest: the replications after the screen's, its contenders alone, the same
# command as a shard's (pipeline.smk, rule simulate), the algorithms from the plan. A
# replication's draws depend on its setting and index alone, so these runs are those a run of
# one stage would have. Once the checkpoint has run, the plan is not an input: a rerun of the
# screen that leaves the plan as it was keeps these runs; a plan that changes changes the
# params.
rule contest:
    input:
        delays=contest_delay_files,
    output:
        raw=out("results/arena/{figure}/{setting}/contest{first}-{last}.parquet"),
        events=out("results/arena/{figure}/{setting}/contest{first}-{last}.events.parquet"),
    log:
        out("logs/arena/{figure}/{setting}/contest{first}-{last}.log"),
    benchmark:
        out("benchmarks/arena/{figure}/{setting}/contest{first}-{last}.tsv")
    priority: 2
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: contest_request(wc).mem_mb,
        runtime=lambda wc: contest_request(wc).runtime,
    params:
        code=SIMULATION_SHA256,
        merged=MERGED_FILE,
        spec=hashed(
            lambda wc: json.dumps(
                dbprovenance.curve_specs(config, "arena", wc.figure, contest_curves(wc)),
                sort_keys=True,
            )
        ),
        algorithms=lambda wc: [a for _, a in contest_curves(wc)],
    shell:
        "delayed-bandits simulate --merged {params.merged:q} --paper arena"
        " --figure {wildcards.figure:q} --setting {wildcards.setting:q}"
        " --algorithm {params.algorithms:q} --reps {wildcards.first:q}-{wildcards.last:q}"
        " --out {output.raw:q} --events {output.events:q} > {log:q} 2>&1"


rule leaderboard:
    input:
        shards=pooled_shards,
    output:
        leaderboard=out("results/arena/{figure}/leaderboard.csv"),
        record=out("results/arena/{figure}/leaderboard.provenance.json"),
    log:
        out("logs/arena/{figure}/leaderboard.log"),
    benchmark:
        out("benchmarks/arena/{figure}/leaderboard.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: figure_analysis("arena", wc.figure).mem_mb,
        runtime=lambda wc: figure_analysis("arena", wc.figure).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("table", "arena"),
    shell:
        "delayed-bandits leaderboard --merged {params.merged:q} --paper arena"
        " --figure {wildcards.figure:q} --out {output.leaderboard:q} {input.shards:q}"
        " > {log:q} 2>&1"


# The answer per regime family (delayed_bandits.arena.answer): every entrant's mean paired ratio
# of regret at T to Thompson sampling ignoring delays over each family's settings, read from the
# same runs as the leaderboard, pooled; the arena's digest (quote arena) states it first.
rule families:
    input:
        shards=lambda wc: pooled_shards(SimpleNamespace(figure="regret")),
    output:
        families=out("results/arena/regret/families.csv"),
        record=out("results/arena/regret/families.provenance.json"),
    log:
        out("logs/arena/regret/families.log"),
    benchmark:
        out("benchmarks/arena/regret/families.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: figure_analysis("arena", "regret").mem_mb,
        runtime=lambda wc: figure_analysis("arena", "regret").runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("table", "arena", "regret"),
    shell:
        "delayed-bandits families --merged {params.merged:q} --paper arena --figure regret"
        " --out {output.families:q} {input.shards:q} > {log:q} 2>&1"


rule arena_view:
    input:
        summary=out("results/arena/regret/summary.csv"),
        leaderboard=out("results/arena/regret/leaderboard.csv"),
    output:
        pdf=out("figures/arena-{view}.pdf"),
        png=report(
            out("figures/arena-{view}.png"),
            caption="../report/arena-view.rst",
            category="arena",
        ),
        # every page as a PNG of its own (the curves: a page per problem; the PNG above is the
        # first), so that each can be read as an image
        pages=directory(out("figures/arena-{view}-pages")),
    log:
        out("logs/arena/regret/{view}.log"),
    benchmark:
        out("benchmarks/arena/regret/{view}.tsv")
    wildcard_constraints:
        view="curves|early|ranks",
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: figure_analysis("arena", "regret").mem_mb,
        runtime=lambda wc: figure_analysis("arena", "regret").runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("plot", "arena", "regret"),
        shows=lambda wc: dbkinds.shows(f"arena_{wc.view}"),
    shell:
        "delayed-bandits plot --merged {params.merged:q} --paper arena --figure regret"
        " --kind arena_{wildcards.view:q} --summary {input.summary:q}"
        " --leaderboard {input.leaderboard:q} --out {output.pdf:q} {output.png:q}"
        " --png-pages {output.pages:q} > {log:q} 2>&1"
