# The stages every figure goes through, for every paper:
#   simulate (one job per shard of replications) -> summarise -> claims and plot -> gather_claims.
# Paths: results/<paper>/<figure>/rep<first>-<last>.parquet (regret at the checkpoints of every
# curve of the figure: each algorithm on each setting, on the same realisations) and
# .events.parquet beside it (the algorithms' side tables, e.g. ODAAF's phases), then
# results/<paper>/<figure>/{summary.csv,summary.provenance.json,claims.json},
# figures/<paper>-<figure>.{pdf,png}; logs/ and benchmarks/ mirror results/. Every CSV table has
# its record beside it (<table>.provenance.json: its sha256 and the binding of its numbers to the
# config, which its readers check).
# A figure's `simulate_jobs` may split its shards further (the same numbers, more jobs):
# per_setting, one simulate_setting job per (setting, shard), into
# results/<paper>/<figure>/<setting>/rep<first>-<last>.parquet; per_curve, one simulate job per
# (setting, algorithm, shard), into results/<paper>/<figure>/<setting>/<algorithm>/rep....
# The summary reads every run of the figure: the arena's screen and contest pooled
# (arena.smk), the shards alone elsewhere.
# Every rule is single-threaded; its mem_mb and runtime are what a cluster job asks for
# (workflow/profiles/slurm), computed from the config by delayed_bandits.resources.


rule simulate:
    input:
        delays=delay_files,
    output:
        raw=out("results/{paper}/{figure}/{setting}/{algorithm}/rep{first}-{last}.parquet"),
        events=out(
            "results/{paper}/{figure}/{setting}/{algorithm}/rep{first}-{last}.events.parquet"
        ),
    log:
        out("logs/{paper}/{figure}/{setting}/{algorithm}/rep{first}-{last}.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/{setting}/{algorithm}/rep{first}-{last}.tsv")
    # shards before analysis, so that the short analysis jobs fill both cores at the end
    # instead of a long shard running alone (the arena's go first: arena.smk)
    priority: 1
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: simulation_request(wc).mem_mb,
        runtime=lambda wc: simulation_request(wc).runtime,
    params:
        code=SIMULATION_SHA256,
        merged=MERGED_FILE,
        spec=hashed(simulation_spec),
        settings=job_settings,
        algorithms=job_algorithms,
    shell:
        "delayed-bandits simulate --merged {params.merged:q} --paper {wildcards.paper:q}"
        " --figure {wildcards.figure:q} --setting {params.settings:q}"
        " --algorithm {params.algorithms:q} --reps {wildcards.first:q}-{wildcards.last:q}"
        " --out {output.raw:q} --events {output.events:q} > {log:q} 2>&1"


# The same job on a whole setting's or figure's curves: only the paths change; the lists of
# settings and algorithms follow from the wildcards the paths have (job_settings, job_algorithms).
use rule simulate as simulate_setting with:
    output:
        raw=out("results/{paper}/{figure}/{setting}/rep{first}-{last}.parquet"),
        events=out("results/{paper}/{figure}/{setting}/rep{first}-{last}.events.parquet"),
    log:
        out("logs/{paper}/{figure}/{setting}/rep{first}-{last}.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/{setting}/rep{first}-{last}.tsv")


use rule simulate as simulate_figure with:
    output:
        raw=out("results/{paper}/{figure}/rep{first}-{last}.parquet"),
        events=out("results/{paper}/{figure}/rep{first}-{last}.events.parquet"),
    log:
        out("logs/{paper}/{figure}/rep{first}-{last}.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/rep{first}-{last}.tsv")


rule summarise:
    input:
        shards=pooled_shards,
    output:
        summary=out("results/{paper}/{figure}/summary.csv"),
        provenance=out("results/{paper}/{figure}/summary.provenance.json"),
        provenance_page=report(
            out("results/{paper}/{figure}/summary.provenance.html"),
            caption="../report/provenance.rst",
            category="{paper}",
            subcategory="{figure}",
            labels={"figure": "{figure}", "shows": "provenance"},
        ),
    log:
        out("logs/{paper}/{figure}/summary.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/summary.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: analysis_request(wc).mem_mb,
        runtime=lambda wc: analysis_request(wc).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("summary"),
    shell:
        "delayed-bandits aggregate --merged {params.merged:q} --paper {wildcards.paper:q}"
        " --figure {wildcards.figure:q} --out {output.summary:q}"
        " --provenance-html {output.provenance_page:q}"
        " {input.shards:q} > {log:q} 2>&1"


rule ratios:
    input:
        shards=shard_files,
    output:
        ratios=out("results/{paper}/{figure}/ratios.csv"),
        record=out("results/{paper}/{figure}/ratios.provenance.json"),
    log:
        out("logs/{paper}/{figure}/ratios.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/ratios.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: analysis_request(wc).mem_mb,
        runtime=lambda wc: analysis_request(wc).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("table"),
    shell:
        "delayed-bandits ratios --merged {params.merged:q} --paper {wildcards.paper:q}"
        " --figure {wildcards.figure:q} --out {output.ratios:q} {input.shards:q} > {log:q} 2>&1"


rule claims:
    input:
        unpack(figure_tables),
        events=event_files,
        shards=run_files,
    output:
        claims=out("results/{paper}/{figure}/claims.json"),
        record=out("results/{paper}/{figure}/claims.provenance.json"),
        page=report(
            out("results/{paper}/{figure}/claims.html"),
            caption="../report/claims.rst",
            category="{paper}",
            subcategory="{figure}",
            labels={"figure": "{figure}", "shows": "claims"},
        ),
    log:
        out("logs/{paper}/{figure}/claims.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/claims.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: analysis_request(wc).mem_mb,
        runtime=lambda wc: analysis_request(wc).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("claims"),
        tables=table_options,
    shell:
        "delayed-bandits claims --merged {params.merged:q} --paper {wildcards.paper:q}"
        " --figure {wildcards.figure:q} {params.tables:q} --out {output.claims:q}"
        " --html {output.page:q} > {log:q} 2>&1"


rule plot:
    input:
        unpack(figure_tables),
        events=event_files,
    output:
        pdf=out("figures/{paper}-{figure}.pdf"),
        png=report(
            out("figures/{paper}-{figure}.png"),
            caption="../report/figure.rst",
            category="{paper}",
            subcategory="{figure}",
            labels={"figure": "{figure}", "shows": "figure"},
        ),
    log:
        out("logs/{paper}/{figure}/plot.log"),
    benchmark:
        out("benchmarks/{paper}/{figure}/plot.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=lambda wc: analysis_request(wc).mem_mb,
        runtime=lambda wc: analysis_request(wc).runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        values=values("plot"),
        caption=figure_caption,
        shows=figure_shows,
        tables=table_options,
    shell:
        "delayed-bandits plot --merged {params.merged:q} --paper {wildcards.paper:q}"
        " --figure {wildcards.figure:q} {params.tables:q} --out {output.pdf:q} {output.png:q}"
        " > {log:q} 2>&1"


rule gather_claims:
    input:
        claims=all_claims(),
    output:
        report=report(out("results/claims.md"), category="claims"),
    log:
        out("logs/claims.log"),
    benchmark:
        out("benchmarks/claims.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        scale=SCALE,
        words=lambda wc, input: gathered_scale(input.claims),
    shell:
        "delayed-bandits gather-claims --scale {params.scale:q} --merged {params.merged:q}"
        " --out {output.report:q} {input.claims:q} > {log:q} 2>&1"


# One paper's claims in one page, made by `snakemake <paper>` (results/claims.md gathers every
# paper's, so a run of one paper cannot remake it).
rule gather_paper_claims:
    input:
        claims=lambda wc: paper_claims(wc.paper),
    output:
        report=out("results/{paper}/claims.md"),
    log:
        out("logs/{paper}/claims.log"),
    benchmark:
        out("benchmarks/{paper}/claims.tsv")
    conda:
        ENV
    threads: 1
    resources:
        mem_mb=ANALYSIS.mem_mb,
        runtime=ANALYSIS.runtime,
    params:
        code=SOURCE_SHA256,
        merged=MERGED_FILE,
        scale=SCALE,
        words=lambda wc, input: gathered_scale(input.claims),
    shell:
        "delayed-bandits gather-claims --scale {params.scale:q} --merged {params.merged:q}"
        " --out {output.report:q} {input.claims:q} > {log:q} 2>&1"
