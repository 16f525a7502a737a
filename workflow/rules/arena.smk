# The arena's own rules: every algorithm of the five papers, and the baselines practitioners use,
# under every delay regime. `snakemake arena` (papers.smk) makes it alone. Figure `regret` goes
# through the common stages (its kind, arena, reads the leaderboard table, made from the shards by
# the common `leaderboard` rule); its other views below read the same tables, and the arena's
# registration lists them as its extra targets. The experiment is in config/config.yaml under
# papers.arena.


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
