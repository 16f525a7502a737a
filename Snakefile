# delayed-bandits: every figure of the reproduced papers, from simulation to claims and plots.
# Paths: results/<paper>/<figure>/... and reports/<notebook>.html; logs/ and benchmarks/ mirror
# them (docs/architecture.md).
configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/pipeline.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/arena.smk"
include: "workflow/rules/notebooks.smk"


rule all:
    default_target: True
    input:
        figures=all_figures(),
        extra=[out(path) for paper in PAPERS for path in dbpapers.get(paper).extra_targets],
        claims=out("results/claims.md"),
        paper_claims=[f"{OUT}results/{paper}/claims.md" for paper in PAPERS],
        reports=all_reports(),
