# delayed-bandits: every figure of the reproduced papers, from simulation to claims and plots.
# Paths: results/<paper>/<figure>/..., logs/ and benchmarks/ mirror them (see README).
configfile: "config/config.yaml"

report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/pipeline.smk"
include: "workflow/rules/vernade2017.smk"
include: "workflow/rules/pikeburke2018.smk"
include: "workflow/rules/thune2019.smk"
include: "workflow/rules/manegueu2020.smk"
include: "workflow/rules/vernade2020.smk"
include: "workflow/rules/arena.smk"


rule all:
    default_target: True
    input:
        figures=all_figures(),
        arena=rules.arena.input if "arena" in config["papers"] else [],
        claims="results/claims.md",
