# Manegueu et al. (ICML 2020), Figures 2-7: `snakemake manegueu2020` makes this paper only.
# The experiments are in config/config.yaml under papers.manegueu2020; sweeps and variants there
# expand into one setting or curve per value (delayed_bandits.config.settings and .resolve).


rule manegueu2020:
    input:
        figures=paper_figures("manegueu2020"),
        claims=[
            f"results/manegueu2020/{figure}/claims.json"
            for figure in config["papers"].get("manegueu2020", {})
        ],
