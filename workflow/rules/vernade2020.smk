# Vernade et al. (ICML 2020), Figures 1-3: `snakemake vernade2020` makes this paper only.
# The experiments are in config/config.yaml under papers.vernade2020; the variants there run both
# readings of the confidence widths (paper text and authors' code) as curves of one figure.
# Figure 2 (the delay density, kind delay_density) is drawn from the delay law in the config: it
# has no simulate or summarise job, only claims and plot (kinds.DRAWN_FROM_CONFIG).


rule vernade2020:
    input:
        figures=paper_figures("vernade2020"),
        claims=[
            f"results/vernade2020/{figure}/claims.json"
            for figure in config["papers"].get("vernade2020", {})
        ],
