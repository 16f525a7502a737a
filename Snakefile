# delayed-bandits: every figure of the reproduced papers, from simulation to claims and plots.
# Paths: results/<paper>/<figure>/..., logs/ and benchmarks/ mirror them (see README).
configfile: "config/config.yaml"

report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/pipeline.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/arena.smk"


rule all:
    default_target: True
    input:
        figures=all_figures(),
        extra=[path for paper in PAPERS for path in dbpapers.get(paper).extra_targets],
        claims="results/claims.md",
