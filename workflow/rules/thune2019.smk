# Thune, Cesa-Bianchi, Seldin (NeurIPS 2019), Example 8 made a figure: `snakemake thune2019` makes
# this paper only. The experiment is in config/config.yaml under papers.thune2019; each setting is
# one horizon T of the grid. The bounds are evaluated in the claims and plot jobs, from the config.


rule thune2019:
    input:
        figures=paper_figures("thune2019"),
        claims=[
            f"results/thune2019/{figure}/claims.json"
            for figure in config["papers"].get("thune2019", {})
        ],
