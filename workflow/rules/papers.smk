# One target rule per paper of the config, from the paper registry (delayed_bandits/papers):
# `snakemake <paper>` makes that paper's figures, its claims and the outputs of its own rules
# (Paper.extra_targets, e.g. the arena's other views in arena.smk). What each paper
# reproduces is in its registration's docstring, its experiments in config/config.yaml under
# papers.<paper>.


for _paper in PAPERS:

    rule:
        name:
            _paper
        input:
            figures=paper_figures(_paper),
            claims=paper_claims(_paper),
            gathered=f"{OUT}results/{_paper}/claims.md",
            extra=[out(path) for path in dbpapers.get(_paper).extra_targets],
            reports=paper_reports(_paper),
