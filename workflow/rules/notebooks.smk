# The analysis notebooks, rendered: each notebook of notebooks/ runs, unchanged, on the results it
# reads (a paper's notebook on that paper's tables and claims; one named after no paper on none)
# and is written with its outputs as reports/<notebook>.html, which the Snakemake report shows.
# A failing cell fails the job, and its log holds the cell and the error. Why an nbclient rule and
# not Snakemake's notebook directive: docs/decisions/engineering.md#notebook-rule.


rule notebook:
    input:
        unpack(notebook_inputs),
        notebook="notebooks/{notebook}.ipynb",
    output:
        html=report(
            out("reports/{notebook}.html"),
            caption="../report/notebook.rst",
            category="notebooks",
            labels={"notebook": "{notebook}"},
        ),
    log:
        out("logs/reports/{notebook}.log"),
    benchmark:
        out("benchmarks/reports/{notebook}.tsv")
    wildcard_constraints:
        notebook="|".join(NOTEBOOKS),
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    params:
        code=SOURCE_SHA256,
        results=out("results"),
    shell:
        "delayed-bandits render --notebook {input.notebook:q} --results {params.results:q}"
        " --out {output.html:q} > {log:q} 2>&1"
