# Pike-Burke et al. (ICML 2018), Figure 3 and Appendix E: `snakemake pikeburke2018` makes this
# paper only. Besides the common stages, Figure 3 needs the ratio of each algorithm's mean regret
# to QPM-D's over paired replications (the claims also read ODAAF's phase tables, the events).
# The experiments are in config/config.yaml under papers.pikeburke2018.

rule pikeburke2018:
    input:
        figures=paper_figures("pikeburke2018"),
        claims=[
            f"results/pikeburke2018/{figure}/claims.json"
            for figure in config["papers"].get("pikeburke2018", {})
        ],


rule pikeburke2018_ratios:
    input:
        shards=shard_files,
    output:
        ratios="results/{paper}/{figure}/ratios.csv",
    params:
        config=CONFIGFILE,
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    log:
        "logs/{paper}/{figure}/ratios.log",
    benchmark:
        "benchmarks/{paper}/{figure}/ratios.tsv"
    wildcard_constraints:
        paper="pikeburke2018",
    conda:
        ENV
    shell:
        "delayed-bandits ratios --config {params.config} --paper {wildcards.paper}"
        " --figure {wildcards.figure} --baseline qpm-d --out {output.ratios}"
        " {input.shards} > {log} 2>&1"
