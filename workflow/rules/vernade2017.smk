# Vernade, Cappé, Perchet (UAI 2017), Figures 1-3: `snakemake vernade2017` makes this paper only.
# The experiments are in config/config.yaml under papers.vernade2017.


rule vernade2017:
    input:
        figures=paper_figures("vernade2017"),
        claims=[
            f"results/vernade2017/{figure}/claims.json"
            for figure in config["papers"].get("vernade2017", {})
        ],
