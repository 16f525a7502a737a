# The arena's own rules (issue 13): every algorithm of the five papers under every delay regime.
# `snakemake arena` (papers.smk) makes it alone. Figure `regret` goes through the common stages,
# each simulate job running every setting and algorithm for a shard of replications
# (simulate_jobs: per_figure, the default); its summary also gives the two outputs below, which
# the arena's registration lists as its extra targets. The experiment is in config/config.yaml
# under papers.arena.


rule arena_curves:
    input:
        summary="results/arena/regret/summary.csv",
    output:
        pdf="figures/arena-curves.pdf",
        png=report(
            "figures/arena-curves.png",
            caption="../report/arena-curves.rst",
            category="arena",
        ),
    params:
        config=CONFIG,
        shows=dbkinds.shows("arena_curves"),
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    log:
        "logs/arena/regret/curves.log",
    benchmark:
        "benchmarks/arena/regret/curves.tsv"
    conda:
        ENV
    shell:
        "delayed-bandits plot --config {params.config} --paper arena --figure regret"
        " --kind arena_curves --summary {input.summary} --out {output.pdf} {output.png}"
        " > {log} 2>&1"


rule arena_leaderboard:
    input:
        summary="results/arena/regret/summary.csv",
    output:
        leaderboard=report("results/arena/leaderboard.csv", category="arena"),
    params:
        config=CONFIG,
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    log:
        "logs/arena/leaderboard.log",
    benchmark:
        "benchmarks/arena/leaderboard.tsv"
    conda:
        ENV
    shell:
        "delayed-bandits leaderboard --config {params.config} --paper arena --figure regret"
        " --summary {input.summary} --out {output.leaderboard} > {log} 2>&1"
