# Shared helpers: the validated config, wildcard constraints, and the functions that list a
# figure's shards and the workflow's targets. The rules are in pipeline.smk and <paper>.smk.
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


wildcard_constraints:
    paper="|".join(PAPERS),
    figure=r"[A-Za-z0-9]+",
    first=r"\d+",
    last=r"\d+",


def figure_config(paper, figure):
    return dbconfig.figure(config, paper, figure)


def shard_files(wildcards, suffix="parquet"):
    fig = figure_config(wildcards.paper, wildcards.figure)
    return [
        f"results/{wildcards.paper}/{wildcards.figure}/{setting}/{algorithm}/rep{a}-{b}.{suffix}"
        for setting in dbconfig.settings(fig)
        for algorithm in fig["algorithms"]
        for a, b in dbconfig.shards(
            fig["replications"], dbconfig.shard_size(config, wildcards.paper, fig)
        )
    ]


def event_files(wildcards):
    return shard_files(wildcards, "events.parquet")


def simulation_spec(wildcards):
    """Everything a shard's numbers depend on: a change reruns the shard (params trigger)."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    setting = dbconfig.settings(fig).get(wildcards.setting, {})
    return json.dumps(
        {
            "seed": config["seed"],
            "horizon": fig["horizon"],
            "checkpoints": fig["checkpoints"],
            "setting": dbconfig.resolve(fig, setting, wildcards.algorithm),
            "seed_setting": dbconfig.seed_name(fig, wildcards.setting),
        },
        sort_keys=True,
    )


def simulation_request(wildcards):
    """Memory and run time of one shard, from its horizon and replication count."""
    fig = figure_config(wildcards.paper, wildcards.figure)
    horizon = dbconfig.horizon(fig, dbconfig.settings(fig).get(wildcards.setting, {}))
    reps = int(wildcards.last) - int(wildcards.first) + 1
    return dbresources.simulation(wildcards.paper, horizon, reps)


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
