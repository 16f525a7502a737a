# Shared helpers: the merged, validated config, wildcard constraints, and the functions that list a
# figure's shards and the workflow's targets. The rules are in pipeline.smk (every figure's
# stages), papers.smk (one target per paper) and arena.smk (the arena's own outputs).
import functools
import hashlib
import json
import os
import sys
from pathlib import Path
from types import SimpleNamespace

from snakemake.exceptions import WorkflowError

# Without the environment (`snakemake` typed before `make setup`, or outside .venv), one line
# that says so, not a traceback ending here.
try:
    from delayed_bandits import config as dbconfig
    from delayed_bandits import curves as dbcurves
    from delayed_bandits import captions as dbcaptions
    from delayed_bandits import delays as dbdelays
    from delayed_bandits import grid as dbgrid
    from delayed_bandits import kinds as dbkinds
    from delayed_bandits import layout as dblayout
    from delayed_bandits import papers as dbpapers
    from delayed_bandits import provenance as dbprovenance
    from delayed_bandits import resources as dbresources
    from delayed_bandits import software as dbsoftware
except ModuleNotFoundError as missing:
    raise WorkflowError(
        "the package %s is not installed in this Python (%s): run `make setup`, then "
        "`source .venv/bin/activate` (README.md, The two commands)" % (missing.name, sys.executable)
    ) from None

# The config, merged here once: the files Snakemake was given, in order (config/config.yaml, then
# each --configfile, an overlay of those before it, e.g. config/smoke.yaml), with the --config
# KEY=VALUE overrides on top. Snakemake merges mappings key by key; our merge
# (delayed_bandits.config.merge) also replaces a tagged mapping whose overlay names another kind
# (a geometric delay law made Pareto), so the workflow takes that one. It is validated before
# any job runs, and written to MERGED with the files and overrides it was made from (which a
# summary's provenance records); every job reads it there (delayed-bandits <command> --merged),
# so a job runs the config its DAG was built from, not the files as they are when it starts.
# MERGED is named by its content and written once (config.write_merged): no other invocation
# (a `snakemake -n` with an edited overlay) can change the file a running workflow's jobs read.
# Its name is no rerun trigger (MERGED_FILE below): each rule's params hold the hash of the
# values its job reads (`values`, provenance.stage_values), so that an edit reruns exactly the
# jobs it decides.
# Jobs that re-parse the workflow (cluster jobs, twice per job on SLURM) find MERGED in the
# environment the submitting process set (MERGED_ENV): they read what it wrote and validated.
CONFIG_FILES = list(
    dict.fromkeys(["config/config.yaml", *map(os.path.relpath, workflow.overwrite_configfiles)])
)
CONFIG_OVERRIDES = dict(workflow.config_settings.config)
MERGED_ENV = "DELAYED_BANDITS_MERGED"
if workflow.remote_exec or workflow.subprocess_exec:
    MERGED = os.environ.get(MERGED_ENV, "")
    MERGED_CONFIG, _ = dbconfig.read_merged(Path(MERGED))
else:
    MERGED_CONFIG = dbconfig.merged(CONFIG_FILES, CONFIG_OVERRIDES)
    dbconfig.validate(MERGED_CONFIG)
    dbconfig.claim_variation(MERGED_CONFIG)
    MERGED = str(
        dbconfig.write_merged(MERGED_CONFIG, dbconfig.sources(CONFIG_FILES, CONFIG_OVERRIDES))
    )
    os.environ[MERGED_ENV] = MERGED
# What the rules pass as --merged: a Path, which Snakemake's params trigger leaves out (it
# compares only the values it can represent: strings, numbers, containers), as it must, since
# the name changes with every edit; what the job reads of it is in `values`.
MERGED_FILE = Path(MERGED)


envvars:
    MERGED_ENV,


config.clear()
config.update(MERGED_CONFIG)

# Where this run writes: results/, figures/, reports/, logs/ and benchmarks/ at the top at the
# paper scale, under <scale>/ at any other (config/smoke.yaml: smoke/), so that a smaller run
# never overwrites the paper-scale outputs.
SCALE = config.get("scale", "paper")
OUT = dbconfig.output_prefix(config)
# A variation that names no scale gets one from its content (config.variation_scale): say where
# its outputs go, so that a target named at the top (figures/...) is seen to be the paper scale's.
if SCALE.startswith(dbconfig.VARIATION) and not (workflow.remote_exec or workflow.subprocess_exec):
    print(
        f"scale {SCALE}: the overlays or --config values change what config/config.yaml "
        f"computes and name no scale, so this run's outputs are under {OUT} (name one with "
        "scale: in an overlay)",
        file=sys.stderr,
    )


def out(path):
    """``path`` (results/..., figures/..., reports/..., logs/... or benchmarks/...) where this
    run writes it."""
    return OUT + path


PAPERS = list(config["papers"])

# The package's sources, hashed (delayed_bandits.software): every rule that runs delayed-bandits
# and does not simulate takes it as its parameter `code`, so that an edit of src/delayed_bandits
# makes every job it could change out of date (Snakemake's params trigger, "Params have changed since last execution"),
# with no flag to remember (docs/auditing.md, "When results are redone").
SOURCE_SHA256 = dbsoftware.source_sha256()
# The simulating modules' alone (software.simulation_files: the shard loop, the experiments and
# every module they import): the parameter `code` of the rules that simulate, whose numbers
# depend on nothing else, so that an edit of a claim, a plot or the leaderboard redoes the tables
# and figures and leaves the runs.
SIMULATION_SHA256 = dbsoftware.simulation_sha256()
ENV = "../../envs/delayed-bandits.yaml"


# setting and algorithm are one path component each, so that the paths of rules simulate
# (<setting>/<algorithm>/rep...), simulate_setting (<setting>/rep...) and simulate_figure
# (rep...) never overlap.
wildcard_constraints:
    paper="|".join(PAPERS),
    # the configured figures only, so that figures/arena-curves.pdf (another view of the arena's
    # figure regret, rule arena_view) is never taken for a figure "curves" of the rule plot
    figure="|".join(sorted({fig for figures in config["papers"].values() for fig in figures})),
    setting=r"[^/]+",
    algorithm=r"[^/]+",
    first=r"\d+",
    last=r"\d+",


def figure_config(paper, figure):
    return dbcurves.figure(config, paper, figure)


@functools.cache
def figure_curves(paper, figure):
    """The figure's (setting, algorithm) pairs that have results (curves.curves), worked out once:
    unless the figure is per_curve, that builds every setting to ask which algorithms apply."""
    return dbcurves.curves(paper, figure, figure_config(paper, figure))


def job_curves(wildcards):
    """The curves one simulation job runs: every curve of the figure, those of the setting
    wildcard (simulate_setting), or the one of the setting and algorithm wildcards (simulate)."""
    curves = figure_curves(wildcards.paper, wildcards.figure)
    if "setting" in wildcards.keys():
        curves = [(s, a) for s, a in curves if s == wildcards.setting]
    if "algorithm" in wildcards.keys():
        curves = [(s, a) for s, a in curves if a == wildcards.algorithm]
    return curves


def shard_files(wildcards, suffix="parquet"):
    """A figure's shards (delayed_bandits.layout.shard_paths, what `verify` expects too)."""
    paper, figure = wildcards.paper, wildcards.figure
    curves = figure_curves(paper, figure) if dbkinds.simulated(figure_config(paper, figure)) else []
    paths = dblayout.shard_paths(config, paper, figure, suffix, curves)
    return [OUT + path for path in paths]


def event_files(wildcards):
    return shard_files(wildcards, "events.parquet")


def job_algorithms(wildcards):
    """The --algorithm list of a simulation job: the algorithm wildcard (simulate), else every
    algorithm of the figure (the command skips one where it does not apply)."""
    if "algorithm" in wildcards.keys():
        return [wildcards.algorithm]
    return list(figure_config(wildcards.paper, wildcards.figure)["algorithms"])


def job_settings(wildcards):
    """The --setting list of a simulation job: the setting wildcard (simulate, simulate_setting),
    else every setting where a curve applies."""
    if "setting" in wildcards.keys():
        return [wildcards.setting]
    curves = figure_curves(wildcards.paper, wildcards.figure)
    return list(dict.fromkeys(setting for setting, _ in curves))


def delay_files(wildcards):
    """The files the job's delay laws read (a `sample` law's path): inputs, so that a change of
    the sample reruns the shards that drew from it."""
    setting = wildcards.setting if "setting" in wildcards.keys() else None
    return setting_delay_files(wildcards.paper, wildcards.figure, setting)


def setting_delay_files(paper, figure, setting=None):
    """The files the delay laws of one setting of a figure read, or of all its settings."""
    fig = figure_config(paper, figure)
    all_settings = dbgrid.settings(fig)
    names = list(all_settings) if setting is None else [setting]
    specs = [all_settings[name].get("delay") for name in names if name in all_settings]
    found = [f for spec in specs if isinstance(spec, dict) for f in dbdelays.files(spec)]
    return list(dict.fromkeys(found))


def simulation_spec(wildcards):
    """Everything the numbers of the job's curves depend on (provenance.curve_specs, what a shard
    records the hash of): a change reruns the shard (params trigger)."""
    specs = dbprovenance.curve_specs(
        config, wildcards.paper, wildcards.figure, job_curves(wildcards)
    )
    return json.dumps(specs, sort_keys=True)


def hashed(param):
    """A params function ``param`` of the wildcards, as the sha256 of its value: Snakemake reruns
    a job whose params changed, as with the value itself, but prints the changed params as the
    rerun reason, and a figure's whole spec (megabytes for the arena) made `snakemake -n` print
    20 MB. The value itself is what the job's config gives (its params config); the hash only says
    that it changed."""

    def digest(wildcards):
        return f"sha256:{hashlib.sha256(str(param(wildcards)).encode()).hexdigest()}"

    return digest


def values(stage, paper=None, figure=None):
    """A params function: the hash of the config values that ``stage`` of the wildcards' figure
    (or of ``paper`` and ``figure``) reads (provenance.stage_values), a rerun trigger."""
    return hashed(
        lambda wc: dbprovenance.stage_values(config, paper or wc.paper, figure or wc.figure, stage)
    )


def gathered_scale(claims):
    """What gather-claims reads of the config for the ``claims`` files: the scale, worded over
    their figures (grid.scale: a figure whose ``only`` keeps a subset is named)."""
    figures = {}
    for path in claims:
        paper, figure = Path(path).parent.parent.name, Path(path).parent.name
        figures[f"{paper} {figure}"] = figure_config(paper, figure)
    return dbgrid.scale(SCALE, figures)


def simulation_request(wildcards):
    """Memory and run time of one shard, from its replication count and the horizons of the
    curves it runs, one after another (layout.job_steps counts them the same way), each at the
    rate of its algorithm (layout.simulation_request)."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    reps = int(wildcards.last) - int(wildcards.first) + 1
    return dblayout.simulation_request(wildcards.paper, fig, job_curves(wildcards), reps)


# Every kernel and every analysis is single-threaded (numba without parallel=True), so every rule
# declares one thread; the cluster profile turns these into --mem and --time requests.
ANALYSIS = dbresources.analysis()


def analysis_request(wildcards):
    """Memory and run time of a job that reads a figure's tables: every value its runs recorded
    (the arena's full run needs several times ANALYSIS)."""
    return figure_analysis(wildcards.paper, wildcards.figure)


def figure_analysis(paper, figure):
    return dbresources.analysis(dblayout.recorded_values(figure_config(paper, figure)))


def figure_caption(wildcards):
    # one line (a folded YAML caption ends in a newline, which the report shows as a literal \n),
    # its {horizon} and {replications} the figure's
    return dbcaptions.caption(figure_config(wildcards.paper, wildcards.figure))


def figure_shows(wildcards):
    """What the figure plots, by its kind (metric and band), for the report's caption."""
    return dbkinds.shows(dbkinds.of(figure_config(wildcards.paper, wildcards.figure)))


def paper_figures(paper):
    return [
        f"{OUT}figures/{paper}-{figure}.{ext}"
        for figure in config["papers"].get(paper, {})
        for ext in ("pdf", "png")
    ]


def all_figures():
    return [path for paper in PAPERS for path in paper_figures(paper)]


def paper_claims(paper):
    return [
        f"{OUT}results/{paper}/{figure}/claims.json" for figure in config["papers"].get(paper, {})
    ]


def all_claims():
    return [path for paper in PAPERS for path in paper_claims(paper)]


NOTEBOOKS = dblayout.notebooks(Path("."))


def notebook_inputs(wildcards):
    """What a notebook reads: a paper's notebook (named after the paper), that paper's figure
    tables, event side tables and claims; a notebook named after no paper of the config, nothing."""
    paper = wildcards.notebook
    if paper not in PAPERS:
        return {}
    figures = [SimpleNamespace(paper=paper, figure=figure) for figure in config["papers"][paper]]
    return {
        "tables": [path for fig in figures for path in figure_tables(fig).values()],
        "events": [path for fig in figures for path in event_files(fig)],
        "claims": paper_claims(paper),
    }


def paper_reports(paper):
    """The rendered notebook of a paper, if it has one."""
    return [f"{OUT}reports/{paper}.html"] if paper in NOTEBOOKS else []


def all_reports():
    return [f"{OUT}reports/{notebook}.html" for notebook in NOTEBOOKS]


def figure_tables(wildcards):
    """The summary, and the tables the figure's kind reads besides, each made by the rule of its
    name (delayed_bandits.layout.figure_tables); none for a figure drawn from the config alone."""
    tables = dblayout.figure_tables(config, wildcards.paper, wildcards.figure)
    return {name: OUT + path for name, path in tables.items()}


def run_files(wildcards):
    """The shards whose runs a figure's claims read (tables["runs"]): all of them, for every
    simulated figure but the arena's (kinds.reads_runs)."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    return shard_files(wildcards) if dbkinds.reads_runs(fig) else []


def table_options(wildcards, input):
    """The claims and plot commands' options for the tables the figure has
    (delayed_bandits.kinds.TABLE_OPTIONS) and (claims) --shards: a list of arguments, each quoted
    in the shell command. An input is one file or a list of them; an empty list is no option."""
    options = []
    for name in (*dbkinds.TABLE_OPTIONS, "shards"):
        if name in input.keys():
            files = [input[name]] if isinstance(input[name], str) else list(input[name])
            if files:
                options += [f"--{name}", *files]
    return options


# The arena's screen, then contest (arena.smk): the second stage that the screen's plan asks for.
def screens(paper, figure):
    """Whether the figure's runs come in two stages (the arena's screen: curves.first_stage)."""
    fig = figure_config(paper, figure)
    return dbkinds.simulated(fig) and dbcurves.first_stage(fig) < int(fig["replications"])


@functools.cache
def _read_plan(path, modified):
    from delayed_bandits.arena.cli import read_plan

    # Not checked against this config's binding: when the plan is out of date (an edit of a
    # kernel, another seed), Snakemake still reads it while it builds the DAG, and reads it
    # again once the checkpoint has rerun; the leaderboard's own command checks the runs.
    return read_plan(path, None)


def contest_plan(figure):
    """The contest of the figure (delayed_bandits.arena.leaderboard.screen_plan), read from the
    screen's plan once the checkpoint has made it (once per version of the file)."""
    path = checkpoints.screen.get(figure=figure).output.plan
    return _read_plan(path, os.path.getmtime(path))


def pooled_shards(wildcards):
    """Every run of a figure: its shards, and, where it screens, the contest's, one per setting
    with contenders (the summary reads them pooled; the arena's leaderboard rule has no paper
    wildcard)."""
    figure = SimpleNamespace(paper=getattr(wildcards, "paper", "arena"), figure=wildcards.figure)
    shards = shard_files(figure)
    if not screens(figure.paper, figure.figure):
        return shards
    plan = contest_plan(figure.figure)
    return shards + [OUT + p for p in dblayout.contest_paths("arena", figure.figure, plan)]


def contest_delay_files(wildcards):
    """The files a contest's delay law reads; asking for the plan first makes the job wait for
    the checkpoint."""
    contest_plan(wildcards.figure)
    return setting_delay_files("arena", wildcards.figure, wildcards.setting)


def contest_curves(wildcards):
    """The curves of one setting's contest job: its contenders."""
    algorithms = contest_plan(wildcards.figure)["settings"][wildcards.setting]
    return [(wildcards.setting, a) for a in algorithms]


def contest_request(wildcards):
    """Memory and run time of a contest job, as for a shard (simulation_request)."""
    fig = figure_config("arena", wildcards.figure)
    reps = int(wildcards.last) - int(wildcards.first) + 1
    return dblayout.simulation_request("arena", fig, contest_curves(wildcards), reps)
