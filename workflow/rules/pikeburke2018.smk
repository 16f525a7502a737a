# Pike-Burke et al. (ICML 2018), Figure 3 and Appendix E: `snakemake pikeburke2018` makes this
# paper only. Besides the common stages, Figure 3 needs the ratio of each algorithm's mean regret
# to QPM-D's over paired replications, and the claims read ODAAF's phase tables (events).
# The experiments are in config/config.yaml under papers.pikeburke2018.

ruleorder: pikeburke2018_claims > claims
ruleorder: pikeburke2018_plot > plot


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


rule pikeburke2018_claims:
    input:
        unpack(figure_tables),
        events=event_files,
    output:
        claims="results/{paper}/{figure}/claims.json",
    params:
        config=CONFIGFILE,
        ratios=lambda wildcards, input: (
            f"--ratios {input.ratios}" if "ratios" in input.keys() else ""
        ),
    log:
        "logs/{paper}/{figure}/claims.log",
    benchmark:
        "benchmarks/{paper}/{figure}/claims.tsv"
    wildcard_constraints:
        paper="pikeburke2018",
    conda:
        ENV
    shell:
        "delayed-bandits claims --config {params.config} --paper {wildcards.paper}"
        " --figure {wildcards.figure} --summary {input.summary} {params.ratios}"
        " --events {input.events} --out {output.claims} > {log} 2>&1"


rule pikeburke2018_plot:
    input:
        unpack(figure_tables),
    output:
        pdf="figures/{paper}-{figure}.pdf",
        png=report(
            "figures/{paper}-{figure}.png",
            caption="../report/figure.rst",
            category="{paper}",
        ),
    params:
        config=CONFIGFILE,
        caption=figure_caption,
        ratios=lambda wildcards, input: (
            f"--ratios {input.ratios}" if "ratios" in input.keys() else ""
        ),
    log:
        "logs/{paper}/{figure}/plot.log",
    benchmark:
        "benchmarks/{paper}/{figure}/plot.tsv"
    wildcard_constraints:
        paper="pikeburke2018",
    conda:
        ENV
    shell:
        "delayed-bandits plot --config {params.config} --paper {wildcards.paper}"
        " --figure {wildcards.figure} --summary {input.summary} {params.ratios}"
        " --out {output.pdf} {output.png} > {log} 2>&1"
