# The arena's own rules: every algorithm of the five papers, and the baselines practitioners use,
# under every delay regime (src/delayed_bandits/arena). `snakemake arena` (papers.smk) makes it
# alone. Its figures go through the common stages of pipeline.smk; their kinds read the
# leaderboard table besides the summary, which the rule `leaderboard` below makes from the shards
# (the arena's own command, delayed-bandits leaderboard). The other views of figure `regret`
# read the same tables, and the arena's registration lists them as its extra targets. The
# experiment is in config/config.yaml under papers.arena.


checkpoint leaderboard_base:
    input:
        shards=lambda wc: shard_files(SimpleNamespace(paper="arena", figure=wc.figure)),
    output:
        leaderboard=out("results/arena/{figure}/leaderboard-base.csv"),
        record=out("results/arena/{figure}/leaderboard-base.provenance.json"),
    log:
        out("logs/arena/{figure}/leaderboard-base.log"),
    benchmark:
        out("benchmarks/arena/{figure}/leaderboard-base.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: figure_analysis("arena", wc.figure).mem_mb,
        runtime=lambda wc: figure_analysis("arena", wc.figure).runtime,
    params:
        code=SOURCE_SHA256,
        config=MERGED,
    shell:
        "delayed-bandits leaderboard --merged {params.config:q} --paper arena"
        " --figure {wildcards.figure:q} --out {output.leaderboard:q} {input.shards:q} > {log:q} 2>&1"


def race_shards(wildcards):
    """The second stage's shards that the base runs' leaderboard asks for (racing:
    delayed_bandits.arena.leaderboard.race_plan), known once the checkpoint has run; the
    base leaderboard is verified as it is read."""
    from delayed_bandits.arena.cli import TABLES
    from delayed_bandits.arena.leaderboard import race_plan

    base = checkpoints.leaderboard_base.get(figure=wildcards.figure).output.leaderboard
    made_by = dbprovenance.binding(config, "arena", wildcards.figure)
    board = TABLES["leaderboard"](base, made_by)
    plan = race_plan(board, figure_config("arena", wildcards.figure))
    return [OUT + p for p in dblayout.race_shard_paths(config, "arena", wildcards.figure, plan)]


rule leaderboard:
    input:
        base=out("results/arena/{figure}/leaderboard-base.csv"),
        shards=race_shards,
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
        config=MERGED,
    shell:
        "delayed-bandits leaderboard --merged {params.config:q} --paper arena"
        " --figure {wildcards.figure:q} --base {input.base:q} --out {output.leaderboard:q}"
        " {input.shards:q} > {log:q} 2>&1"


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
        config=MERGED,
        shows=lambda wc: dbkinds.shows(f"arena_{wc.view}"),
    shell:
        "delayed-bandits plot --merged {params.config:q} --paper arena --figure regret"
        " --kind arena_{wildcards.view:q} --summary {input.summary:q}"
        " --leaderboard {input.leaderboard:q} --out {output.pdf:q} {output.png:q} > {log:q} 2>&1"
