# Shared helpers: the validated config, wildcard constraints, and the functions that list a
# figure's shards and the workflow's targets. The rules are in pipeline.smk and <paper>.smk.
import functools
import json
import os

import yaml

from delayed_bandits import config as dbconfig
from delayed_bandits import resources as dbresources

# The CLI reads the config file itself, so the file must be all there is: command-line
# --config overrides would silently not reach the jobs.
CONFIGFILE = (
    os.path.relpath(workflow.overwrite_configfiles[-1])
    if workflow.overwrite_configfiles
    else "config/config.yaml"
)
with open(CONFIGFILE) as handle:
    if yaml.safe_load(handle) != config:
        raise ValueError(
            f"the workflow config differs from {CONFIGFILE}: put changes in a config file "
            "(--configfile FILE) instead of --config KEY=VALUE; a --configfile must hold every key"
        )
# Cluster jobs re-parse the workflow (twice per job on SLURM); the submitting process has
# already validated this very file, and validation builds every setting of every paper.
if not (workflow.remote_exec or workflow.subprocess_exec):
    dbconfig.validate(config)

PAPERS = list(config["papers"])
ENV = "../../envs/delayed-bandits.yaml"


# setting and algorithm are one path component each, so that rule simulate's paths
# (<setting>/<algorithm>/rep...) and rule simulate_setting's (<setting>/rep...) never overlap.
wildcard_constraints:
    paper="|".join(PAPERS),
    # the configured figures only, so that figures/arena-curves.pdf (a second view of the arena's
    # figure regret, rule arena_curves) is never taken for a figure "curves" of the rule plot
    figure="|".join(sorted({fig for figures in config["papers"].values() for fig in figures})),
    setting=r"[^/]+",
    algorithm=r"[^/]+",
    first=r"\d+",
    last=r"\d+",


def figure_config(paper, figure):
    return dbconfig.figure(config, paper, figure)


@functools.cache
def figure_curves(paper, figure):
    """The figure's (setting, algorithm) pairs that have results (config.curves), worked out once:
    for a per_setting figure that builds every setting to ask which algorithms apply."""
    return dbconfig.curves(paper, figure, figure_config(paper, figure))


def shard_files(wildcards, suffix="parquet"):
    """A figure's shards: <setting>/<algorithm>/rep<a>-<b> per curve, or, in a per_setting figure,
    <setting>/rep<a>-<b> per setting that has a curve (one job runs all of them)."""
    paper, figure = wildcards.paper, wildcards.figure
    fig = figure_config(paper, figure)
    curves = figure_curves(paper, figure)
    if dbconfig.simulate_jobs(fig) == "per_setting":
        jobs = list(dict.fromkeys(setting for setting, _ in curves))
    else:
        jobs = [f"{setting}/{algorithm}" for setting, algorithm in curves]
    return [
        f"results/{paper}/{figure}/{job}/rep{a}-{b}.{suffix}"
        for job in jobs
        for a, b in dbconfig.shards(
            fig["replications"], dbconfig.shard_size(config, paper, fig)
        )
    ]


def event_files(wildcards):
    return shard_files(wildcards, "events.parquet")


def figure_algorithms(wildcards):
    """The --algorithm list of a per_setting job: every algorithm of the figure (the command
    skips those that do not apply to the setting)."""
    return " ".join(figure_config(wildcards.paper, wildcards.figure)["algorithms"])


def simulation_spec(wildcards):
    """Everything a shard's numbers depend on: a change reruns the shard (params trigger). A
    per_setting shard (no algorithm wildcard) depends on every curve of its setting."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    setting = dbconfig.settings(fig).get(wildcards.setting, {})
    spec = {
        "seed": config["seed"],
        "horizon": fig["horizon"],
        "checkpoints": fig["checkpoints"],
        "seed_setting": dbconfig.seed_name(fig, wildcards.setting),
    }
    if "algorithm" in wildcards.keys():
        spec["setting"] = dbconfig.resolve(fig, setting, wildcards.algorithm)
    else:
        spec["curves"] = {a: dbconfig.resolve(fig, setting, a) for a in fig["algorithms"]}
    return json.dumps(spec, sort_keys=True)


def simulation_request(wildcards):
    """Memory and run time of one shard, from its horizon, replication count and number of
    curves (a per_setting shard runs every algorithm that applies to its setting)."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    horizon = dbconfig.horizon(fig, dbconfig.settings(fig).get(wildcards.setting, {}))
    reps = int(wildcards.last) - int(wildcards.first) + 1
    if "algorithm" in wildcards.keys():
        curves = 1
    else:
        curves = sum(
            s == wildcards.setting for s, _ in figure_curves(wildcards.paper, wildcards.figure)
        )
    # max: a setting where nothing applies has no job; asked for by path, its command says why
    return dbresources.simulation(wildcards.paper, horizon, reps, max(curves, 1))


# Every kernel and every analysis is single-threaded (numba without parallel=True), so every rule
# declares one thread; the cluster profile turns these into --mem and --time requests.
ANALYSIS = dbresources.analysis()


def figure_caption(wildcards):
    return figure_config(wildcards.paper, wildcards.figure).get("caption", "")


def paper_figures(paper):
    return [
        f"figures/{paper}-{figure}.{ext}"
        for figure in config["papers"].get(paper, {})
        for ext in ("pdf", "png")
    ]


def all_figures():
    return [path for paper in PAPERS for path in paper_figures(paper)]


def all_claims():
    return [
        f"results/{paper}/{figure}/claims.json"
        for paper in PAPERS
        for figure in config["papers"][paper]
    ]


def figure_tables(wildcards):
    """The summary, and the ratios table for figures of kind 'ratio'."""
    tables = {"summary": f"results/{wildcards.paper}/{wildcards.figure}/summary.csv"}
    if figure_config(wildcards.paper, wildcards.figure).get("kind") == "ratio":
        tables["ratios"] = f"results/{wildcards.paper}/{wildcards.figure}/ratios.csv"
    return tables


def ratios_flag(wildcards, input):
    """The claims and plot commands' --ratios option, for figures that have a ratios table."""
    return f"--ratios {input.ratios}" if "ratios" in input.keys() else ""
