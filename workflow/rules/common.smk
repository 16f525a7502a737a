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

from delayed_bandits import config as dbconfig
from delayed_bandits import curves as dbcurves
from delayed_bandits import delays as dbdelays
from delayed_bandits import grid as dbgrid
from delayed_bandits import kinds as dbkinds
from delayed_bandits import layout as dblayout
from delayed_bandits import papers as dbpapers
from delayed_bandits import provenance as dbprovenance
from delayed_bandits import resources as dbresources
from delayed_bandits import software as dbsoftware
from delayed_bandits import tables as dbtables

# The config, merged here once: the files Snakemake was given, in order (config/config.yaml, then
# each --configfile, an overlay of those before it, e.g. config/smoke.yaml), with the --config
# KEY=VALUE overrides on top. Snakemake merges mappings key by key; our merge
# (delayed_bandits.config.merge) also replaces a tagged mapping whose overlay names another kind
# (a geometric delay law made Pareto), so the workflow takes that one. It is validated before
# any job runs, and written to MERGED with the files and overrides it was made from (which a
# summary's provenance records); every job reads it there (delayed-bandits <command> --merged),
# so a job runs the config its DAG was built from, not the files as they are when it starts.
# MERGED is named by the files and overrides, not by their content: a rule's params (a rerun
# trigger) change with them alone, so an edit reruns only the jobs whose numbers it changes
# (their spec) or what they show (a plot's caption). Cluster jobs re-parse the workflow (twice
# per job on SLURM): they read MERGED, which the submitting process wrote and validated.
CONFIG_FILES = list(
    dict.fromkeys(["config/config.yaml", *map(os.path.relpath, workflow.overwrite_configfiles)])
)
CONFIG_OVERRIDES = dict(workflow.config_settings.config)
MERGED_NAME = dbtables.config_hash({"paths": CONFIG_FILES, "overrides": CONFIG_OVERRIDES})[:16]
MERGED = f".snakemake/delayed-bandits/config-{MERGED_NAME}.json"
if workflow.remote_exec or workflow.subprocess_exec:
    MERGED_CONFIG, _ = dbconfig.read_merged(Path(MERGED))
else:
    MERGED_CONFIG = dbconfig.merged(CONFIG_FILES, CONFIG_OVERRIDES)
    dbconfig.validate(MERGED_CONFIG)
    dbconfig.write_merged(
        Path(MERGED), MERGED_CONFIG, dbconfig.sources(CONFIG_FILES, CONFIG_OVERRIDES)
    )
config.clear()
config.update(MERGED_CONFIG)

# Where this run writes: results/, figures/, reports/, logs/ and benchmarks/ at the top at the
# paper scale, under <scale>/ at any other (config/smoke.yaml: smoke/), so that a smaller run
# never overwrites the paper-scale outputs.
SCALE = config.get("scale", "paper")
OUT = dbconfig.output_prefix(config)


# git ignores a named scale's outputs, whatever its name (<scale>/.gitignore), once jobs run (a dry
# run writes nothing)
onstart:
    dbconfig.ignore_outputs(config)


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
    # one line: a folded YAML caption ends in a newline, which the report shows as a literal \n
    return dbgrid.caption(figure_config(wildcards.paper, wildcards.figure))


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


# The arena's racing (arena.smk): the second stage that the base runs' leaderboard asks for.
@functools.cache
def _read_race_plan(path, modified, figure):
    from delayed_bandits.arena.cli import TABLES
    from delayed_bandits.arena.leaderboard import race_plan

    # Not checked against this config's binding: when the base table is out of date (an edit
    # of a kernel, another seed), Snakemake still reads it while it builds the DAG, and reads it
    # again once the checkpoint has rerun; the leaderboard's own command checks it.
    return race_plan(TABLES["leaderboard"](path, None), figure_config("arena", figure))


def raced(figure):
    """The second stage of the figure (delayed_bandits.arena.leaderboard.race_plan), read from
    the base runs' leaderboard once the checkpoint has made it (once per version of the file)."""
    path = checkpoints.leaderboard_base.get(figure=figure).output.leaderboard
    return _read_race_plan(path, os.path.getmtime(path), figure)


def tie_statistics(wildcards):
    """The figure's statistics with their defaults (arena.ties.statistics): a parameter of the
    leaderboards, as MERGED's name follows the config's paths and not its contents, and a second
    stage changes the base runs' confidence too (arena.racing.stage_confidence)."""
    from delayed_bandits.arena.ties import statistics

    return json.dumps(statistics(figure_config("arena", wildcards.figure)), sort_keys=True)


def race_shards(wildcards):
    """The second stage's shards, one per raced setting (none where nothing is raced)."""
    paths = dblayout.race_shard_paths("arena", wildcards.figure, raced(wildcards.figure))
    return [OUT + p for p in paths]


def race_delay_files(wildcards):
    """The files a raced setting's delay law reads; asking for the plan first makes the job
    wait for the checkpoint."""
    raced(wildcards.figure)
    return setting_delay_files("arena", wildcards.figure, wildcards.setting)


def race_curves(wildcards):
    """The curves of one raced setting's second-stage job: its raced algorithms."""
    algorithms = raced(wildcards.figure)["settings"][wildcards.setting]
    return [(wildcards.setting, a) for a in algorithms]


def race_request(wildcards):
    """Memory and run time of a second-stage job, as for a shard (simulation_request)."""
    fig = figure_config("arena", wildcards.figure)
    reps = int(wildcards.last) - int(wildcards.first) + 1
    return dblayout.simulation_request("arena", fig, race_curves(wildcards), reps)
