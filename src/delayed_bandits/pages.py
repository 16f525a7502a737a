"""A page per figure: docs/figures/<paper>-<figure>.md, written with the
papers' digest by ``delayed-bandits quote papers --run . --write`` from that run, so that a reader
on GitHub follows one figure from the README's verdict table to its image, the paper's words it is
tested against, its findings and claims with their verdicts and measured numbers, and how it was
made (its rules and their exact commands as ``snakemake --detailed-summary`` gives them, the
claims job included; its config section; seeds; inputs; code hashes) with its provenance as a
table (``provenance_rows``), without running anything.

The image is linked to ``figures/<name>.png``, which the run writes (figures are not committed).
The arena's views drawn from its figure ``regret`` (``figures/arena-curves.png``...: the arena's
``extra_targets``) get a page each, with the claims and provenance of ``regret``.
The choice of place and generator: docs/decisions/engineering.md#figure-pages."""

from __future__ import annotations

import csv
import io
import json
import shlex
import subprocess
from dataclasses import dataclass
from html import escape
from pathlib import Path, PurePosixPath
from typing import Any, Iterable, Mapping, Sequence

import yaml

from delayed_bandits import captions, claims, config, grid, papers
from delayed_bandits import curves as cv
from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import html_page

NOT_RUN = (
    "`make figures`, then `delayed-bandits quote papers --run . --write`, writes its image, "
    "claims, jobs and provenance here."
)
CONFIG = "config/config.yaml"  # the config of a checkout that has no run yet
PAGES = Path("docs/figures")
"""Where the pages are written, relative to the checkout (the run's figures are two levels up)."""
COMMANDS = (
    "simulate",
    "screen",
    "contest",
    "summarise",
    "ratios",
    "leaderboard",
    "claims",
    "plot",
)
"""The order in which a page lists a figure's jobs, the order a figure goes through its rules (by
the start of the rule's name: ``simulate_figure`` is a ``simulate``); any other rule comes last."""


@dataclass(frozen=True)
class Figure:
    """One page: ``name`` (``<paper>-<figure>``, or ``arena-<view>`` for a view of the arena's
    figure ``figure``), the paper and figure whose claims and provenance it shows."""

    name: str
    paper: str
    figure: str


def figures(run_config: Mapping[str, Any]) -> list[Figure]:
    """Every figure of the run's config, in its order, and the views of a paper's figure that its
    registration adds as ``extra_targets`` (``figures/<paper>-<view>.pdf``, drawn from its first
    figure): the arena's curves, early heatmap and rank diagrams."""
    found = []
    for paper, figs in run_config["papers"].items():
        found += [Figure(f"{paper}-{figure}", paper, figure) for figure in figs]
        views = [
            PurePosixPath(t).stem
            for t in papers.get(paper).extra_targets
            if t.startswith("figures/") and t.endswith(".pdf")
        ]
        found += [Figure(view, paper, next(iter(figs))) for view in views if figs]
    return found


@dataclass(frozen=True)
class Run:
    """Where a run is: ``workdir``, the checkout Snakemake ran in, and ``prefix``, the folder of
    the run's outputs as their paths start there (``""`` at the paper scale, ``smoke/``...)."""

    workdir: Path
    prefix: str

    @classmethod
    def of(cls, run: Path, scale: str) -> Run:
        """The run under ``run`` (``quote --run``) at the config's ``scale``: the paper scale
        writes at the top of the checkout, any other into a folder of it (docs/architecture.md)."""
        return cls(run, "") if scale == "paper" else cls(run.parent, f"{run.name}/")


def targets(run: Run, found: Iterable[Figure]) -> list[str]:
    """What a figure's page lists the jobs of: its claims (none for a view) and its drawing."""
    at = run.prefix
    out = []
    for f in found:
        if f.name == f"{f.paper}-{f.figure}":
            out.append(f"{at}results/{f.paper}/{f.figure}/claims.json")
        out.append(f"{at}figures/{f.name}.pdf")
    return out


def snakemake_args(record: Mapping[str, Any]) -> list[str]:
    """The options that give Snakemake the config a summary's provenance ``record`` was made with:
    the overlays after config/config.yaml (the Snakefile's own) and the overrides."""
    paths = list(record["config"]["paths"])
    overlays = paths[1:] if paths and paths[0] == "config/config.yaml" else paths
    overrides = [f"{k}={json.dumps(v)}" for k, v in record["config"]["overrides"].items()]
    return [
        *(["--configfile", *overlays] if overlays else []),
        *(["--config", *overrides] if overrides else []),
    ]


def dry_run(run: Run, figure: Figure, record: Mapping[str, Any] | None) -> str:
    """The dry run that prints every command of the figure's jobs, the claims job included
    (``snakemake -n -p -F figures/<fig>.pdf`` alone leaves it out: the drawing does not read the
    claims)."""
    extra = snakemake_args(record) if record is not None else []
    return shlex.join(["snakemake", "-n", "-p", "-F", *targets(run, [figure]), *extra])


def detailed_summary(run: Run, found: Sequence[Figure], record: Mapping[str, Any]) -> str:
    """``snakemake --detailed-summary`` of every page's targets (one call, a few seconds): the
    command each output file was made by, as the run's Snakemake recorded it; a failure is an
    error with Snakemake's own words."""
    command = ["snakemake", "--detailed-summary", *targets(run, found), *snakemake_args(record)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=run.workdir)
    if done.returncode:
        raise ConfigError(
            f"{shlex.join(command)} failed ({done.returncode}): {done.stderr.strip()[-800:]}"
        )
    return done.stdout


def jobs(summary: str) -> list[dict[str, str]]:
    """The rows of ``snakemake --detailed-summary`` (tab-separated, one per output file)."""
    return list(csv.DictReader(io.StringIO(summary), delimiter="\t"))


def _belongs(row: Mapping[str, str], run: Run, figure: Figure) -> bool:
    out, at = row["output_file"], run.prefix
    drawn = (f"{at}figures/{figure.name}.pdf", f"{at}figures/{figure.name}.png")
    return out.startswith(f"{at}results/{figure.paper}/{figure.figure}/") or out in drawn


def figure_jobs(rows: Iterable[Mapping[str, str]], run: Run, figure: Figure) -> list[dict]:
    """The figure's jobs in the summary ``rows``, one per distinct (rule, command), in the order
    of ``COMMANDS``: the rule, its command (None where Snakemake recorded none) and its output
    and input files."""
    by_job: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        if not _belongs(row, run, figure):
            continue
        command = row["shellcmd"] if row["shellcmd"] not in ("", "-") else None
        key = (row["rule"], command or row["output_file"])
        job = by_job.setdefault(
            key, {"rule": row["rule"], "command": command, "outputs": [], "inputs": []}
        )
        job["outputs"].append(row["output_file"])
        inputs = row["input-file(s)"]
        if inputs not in ("", "-"):
            job["inputs"] += [i for i in inputs.split(",") if i and i not in job["inputs"]]

    def stage(job: Mapping[str, Any]) -> int:  # simulate_figure is a simulate job, and so on
        return next((i for i, r in enumerate(COMMANDS) if job["rule"].startswith(r)), len(COMMANDS))

    return sorted(by_job.values(), key=stage)


# --- rendering ---------------------------------------------------------------------------------


class _Plain(yaml.SafeDumper):
    """YAML as a reader reads it: a value shared by several settings written out each time."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[str]:
    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(_cell(c) for c in row) + " |" for row in rows),
    ]


def provenance_rows(record: Any, path: str = "") -> list[tuple[str, str]]:
    """A summary's provenance ``record`` as (field, value) rows for a reader: nested fields by
    their dotted path (``seeds.settings.main.entropy``), a list of plain values on one row, a list
    of records item by item (``shard_environments[0].python``)."""
    if isinstance(record, Mapping):
        return [
            row
            for key, value in record.items()
            for row in provenance_rows(value, f"{path}.{key}" if path else str(key))
        ]
    if isinstance(record, list) and any(isinstance(v, (Mapping, list)) for v in record):
        return [
            row for i, value in enumerate(record) for row in provenance_rows(value, f"{path}[{i}]")
        ]
    if isinstance(record, list):
        return [(path, ", ".join(map(str, record)) if record else "none")]
    return [(path, "none" if record is None else str(record))]


def provenance_html(record: Mapping[str, Any], title: str) -> str:
    """The provenance ``record`` as an HTML page for the report to show inline: a table of its
    fields (``provenance_rows``), not its JSON."""
    body = "".join(
        f"<tr><th>{escape(field)}</th><td>{escape(value)}</td></tr>"
        for field, value in provenance_rows(record)
    )
    return html_page(title, f"<table>{body}</table>")


def _claim_id(item: Any) -> tuple[str, str]:
    """A finding's claim (an id, or a mapping with ``id`` and ``verdict``) as (id, verdict)."""
    if isinstance(item, Mapping):
        return str(item["id"]), str(item.get("verdict", ""))
    return str(item), ""


def _findings(figure: Figure, findings: Sequence[Mapping[str, Any]]) -> list[str]:
    mine = [f for f in findings if figure.name in f.get("figures", ())]
    if not mine:
        return ["No finding of the paper names this figure in the digest."]
    lines: list[str] = []
    for f in mine:
        lines += [
            f"### {f['id']}: {f['verdict']}",
            "",
            f"Of the statement at {f['location']} (quoted above). {f.get('sentence', '')}",
            "",
        ]
        for role in ("establishing", "qualifying"):
            named = [_claim_id(c) for c in f.get(role, ())]
            if named:
                said = ", ".join(f"`{i}`" + (f" ({v})" if v else "") for i, v in named)
                lines += [f"- {role}: {said}"]
        lines.append("")
    return lines


def _claims(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    if not rows:
        return ["This figure has no claims of its own (a view of the figure above)."]
    return [
        claims.count(rows),
        "",
        *_table(
            ["id", *(name for name, _ in claims.COLUMNS)],
            ([f"`{c['id']}`", *(show(c) for _, show in claims.COLUMNS)] for c in rows),
        ),
    ]


def _paper_words(rows: Sequence[Mapping[str, Any]], findings: list[Mapping[str, Any]]) -> list[str]:
    if findings:
        return [f"> {f['statement']}\n> — {f['location']}\n" for f in findings]
    if not rows:
        return ["The figure's claims state it, where the run has them (below)."]
    refs = sorted({c["paper_ref"] for c in rows})
    return [
        "The claims' statements below, each at its place in the paper: "
        + "; ".join(refs)
        + ". (The paper's own sentences stand with its findings, where the digest has them.)"
    ]


def _seeds(record: Mapping[str, Any]) -> list[str]:
    seeds = record["seeds"]
    return [
        f"Root seed {seeds['root']}; {seeds['derivation']}.",
        "",
        *_table(
            ["setting", "seed setting", "entropy"],
            (
                [s, e["seed_setting"], " ".join(map(str, e["entropy"]))]
                for s, e in seeds["settings"].items()
            ),
        ),
    ]


def _code(record: Mapping[str, Any]) -> list[str]:
    shards = record["shard_environments"]
    rows = [
        ["package version", record["version"]],
        ["git commit (summary)", f"{record['git_commit']} (dirty: {record['git_dirty']})"],
        ["git commits (shards)", ", ".join(record["shards"]["git_commits"])],
        ["package sources sha256 (summary)", record["environment"]["source_sha256"]],
        ["package sources sha256 (shards)", ", ".join(e["source_sha256"] for e in shards)],
        [
            "simulation sources sha256 (shards)",
            ", ".join(e.get("simulation_sha256", "not recorded") for e in shards),
        ],
        ["config sha256 (whole)", record["config"]["sha256"]],
        ["config sha256 (this figure's section)", record["config"]["figure_sha256"]],
    ]
    return _table(["what", "value"], rows)


def _made(
    figure: Figure,
    run: Run,
    record: Mapping[str, Any] | None,
    section: Mapping[str, Any],
    made_by: Sequence[Mapping[str, Any]],
) -> list[str]:
    lines = [
        "Every command of the figure's jobs, the claims job included, as a dry run:",
        "",
        "```sh",
        dry_run(run, figure, record),
        "```",
        "",
        "The jobs of the run, with their commands as `snakemake --detailed-summary` gives them "
        "(the commands Snakemake recorded when it made each file):",
        "",
    ]
    if not made_by:
        lines += ["No job of this figure was in the run's detailed summary.", ""]
    for job in made_by:
        files = ", ".join(f"`{o}`" for o in job["outputs"])
        lines += [f"- rule `{job['rule']}`, making {files}:", ""]
        lines += (
            ["  ```sh", f"  {job['command']}", "  ```", ""]
            if job["command"]
            else ["  (no command recorded: the file was not made by Snakemake in this run)", ""]
        )
        if job["inputs"] and job["rule"] in ("claims", "plot", "arena_view"):
            lines += ["  inputs: " + ", ".join(f"`{i}`" for i in job["inputs"]), ""]
    lines += [
        f"The config section (`papers.{figure.paper}.{figure.figure}` of the run's merged config):",
        "",
        "```yaml",
        yaml.dump(
            dict(section),
            Dumper=_Plain,
            sort_keys=False,
            allow_unicode=True,
            width=100,
            default_flow_style=None,  # a list of values on one line
        ).rstrip(),
        "```",
        "",
    ]
    if record is None:
        return lines + ["No summary provenance: this figure is drawn from the config alone."]
    return lines + [
        "Seeds:",
        "",
        *_seeds(record),
        "",
        "Code and config hashes:",
        "",
        *_code(record),
    ]


def config_blocks(cfg: Mapping[str, Any]) -> dict[str, str]:
    """The blocks the docs quote of the config (``quoted``), so that a run count or a horizon a
    page of prose states is the config's: ``<paper>-<figure>-runs`` (``1000 runs``) and
    ``<paper>-<figure>-horizon`` (``T = 10,000``) of every figure that sets them."""
    out = {}
    for paper, figs in cfg["papers"].items():
        for figure, fig in figs.items():
            if "replications" in fig:
                out[f"{paper}-{figure}-runs"] = f"{fig['replications']:,} runs"
            if "horizon" in fig:
                out[f"{paper}-{figure}-horizon"] = f"T = {fig['horizon']:,}"
    return out


def _images(figure: Figure, run: Run, pages: int) -> list[str]:
    """The figure's image, or each page's where its PDF has several (``plotting.page_png``)."""
    at = f"{run.prefix}figures/{figure.name}"
    if pages <= 1:
        return [
            f"![{figure.name}](../../{at}.png)",
            "",
            f"(The image is written by the run: `{at}.png`, and `.pdf` beside it.)",
        ]
    lines = [f"The PDF, `{at}.pdf`, has {pages} pages, each a PNG of its own here:", ""]
    for page in range(1, pages + 1):
        lines += [f"![{figure.name}, page {page}](../../{at}-pages/page{page}.png)", ""]
    return lines


def render(
    figure: Figure,
    run: Run,
    *,
    section: Mapping[str, Any],
    scale: str,
    rows: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any] | None,
    made_by: Sequence[Mapping[str, Any]],
    findings: Sequence[Mapping[str, Any]] = (),
    pages: int = 1,
    ran: bool = True,
) -> str:
    """The Markdown page of ``figure`` from the ``run``: its config ``section``, the
    run's ``scale`` (config key), its claims ``rows`` (claims.json), its summary's provenance
    ``record`` (None for a figure drawn from the config alone), its jobs (``figure_jobs``) and
    the digest's ``findings`` (all of them; the page keeps those naming it) and the number of
    ``pages`` of its PDF (each drawn as a PNG of its own where there are several). A figure
    the run does not hold (``ran`` false) has its page say so, with its config and commands."""
    title = captions.title(section, figure.name)
    own = [f for f in findings if figure.name in f.get("figures", ())]
    view = figure.name != f"{figure.paper}-{figure.figure}"
    lines = [
        "<!-- written from a run by `delayed-bandits quote papers --run <run> --write`; edits "
        "here are overwritten -->",
        f"# `{figure.name}`: {title}",
        "",
        f"Run at the **{scale}**"
        + (
            f"; a view of `{figure.paper}-{figure.figure}`, whose claims and provenance it shows"
            if view
            else ""
        )
        + ". Back to the [README's verdict table](../../README.md#figures-and-verdicts), "
        "[artifact evaluation](../artifact-evaluation.md), [auditing](../auditing.md).",
        "",
        *_images(figure, run, pages),
        "",
        "## What the paper says",
        "",
        *_paper_words(rows, own),
        "",
    ]
    if findings:  # the digest has findings: those naming this figure
        lines += ["## Findings", "", *_findings(figure, findings), ""]
    if not ran:
        lines = [
            *lines[:5],
            f"This figure is not in the run this page was written from: {NOT_RUN}",
            "",
            *lines[5:],
        ]
    lines += [
        "## Claims",
        "",
        *(_claims(rows) if ran else [f"Not in this run: {NOT_RUN}"]),
        "",
        "## How it was made",
        "",
        *_made(figure, run, record, section, made_by),
        "",
        "## Provenance",
        "",
    ]
    if not ran:
        lines.append(f"Not in this run: {NOT_RUN}")
    elif record is None:
        lines.append("None recorded (no simulation: the figure is drawn from the config).")
    else:
        lines += [
            f"`{run.prefix}results/{figure.paper}/{figure.figure}/summary.provenance.json`, "
            "field by field:",
            "",
            *_table(["field", "value"], provenance_rows(record)),
        ]
    return "\n".join(lines).rstrip() + "\n"


def build(run: Path, digest: Mapping[str, Any], summary: str | None = None) -> dict[Path, str]:
    """Every page of the run under ``run`` (the papers' figures and the arena's, with its views),
    by file name (under ``PAGES``), from its claims files and summaries' provenance, the papers'
    ``digest`` (its ``findings``, where it has them) and the run's ``snakemake
    --detailed-summary`` text (``summary``; None: run it, ``detailed_summary``). The run's
    config is the one its summaries recorded; a run with none yet (``run`` a fresh checkout)
    gives every figure of ``CONFIG`` its page, each saying that it waits for its run."""
    results = run / "results"
    sidecars = sorted(results.glob("*/*/summary.provenance.json"))
    first = json.loads(sidecars[0].read_text()) if sidecars else None
    run_config = (
        config.load(
            first["config"]["paths"], first["paper"], first["config"]["overrides"], first["figure"]
        )
        if first is not None
        else config.load([CONFIG])
    )
    found = figures(run_config)
    ran = {
        f.name
        for f in found
        if (results / f.paper / f.figure / "claims.json").is_file()
        or (run / "figures" / f"{f.name}.pdf").is_file()
    }
    where = Run.of(run, run_config["scale"])
    done = [f for f in found if f.name in ran]
    if summary is None:
        summary = detailed_summary(where, done, first) if first is not None and done else ""
    rows = jobs(summary)
    scale = grid.scale(run_config["scale"], prose=True)
    pages = {}
    for f in found:
        claims_file = results / f.paper / f.figure / "claims.json"
        sidecar = results / f.paper / f.figure / "summary.provenance.json"
        view = f.name != f"{f.paper}-{f.figure}"
        pages[Path(f"{f.name}.md")] = render(
            f,
            where,
            section=cv.figure(run_config, f.paper, f.figure),
            scale=scale,
            rows=[] if view or not claims_file.is_file() else claims.read(claims_file),
            record=json.loads(sidecar.read_text()) if sidecar.is_file() else None,
            made_by=figure_jobs(rows, where, f),
            findings=digest.get("findings", []),
            pages=len(list((run / "figures" / f"{f.name}-pages").glob("page*.png"))),
            ran=f.name in ran,
        )
    return pages
