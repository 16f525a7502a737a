"""Paper claims, checked against the summaries: each claim records the paper's statement, where
the paper makes it, what was measured, what was expected, and whether it holds.

One rule gives every claim of the papers its verdict (``verdict``):

- **holds**: the measurement establishes the claim: at ``Z`` = 2 standard errors where it is a
  statistic (a difference of two curves, a slope, a mean against a stated value), or by the
  claim's own test where the claim states one (a threshold with an inconclusive band between
  what would confirm and what would refute, an exact quantity computed from the config);
- **fails**: the measurement establishes the opposite, by the same standard;
- **inconclusive** (``holds`` None): the evidence cannot separate the two.

A failing claim carries a note saying what may explain it (``check`` refuses one without).

Every claim is of one of two kinds (``KINDS``): a **reproduction** is a statement of the paper
that the runs could refute; a **check** is one whose outcome does not depend on the runs (it holds
by construction, is closed-form arithmetic, a property of an input, or a sanity bound kept loose
on purpose). Counts give them apart, and the headline counts reproductions only.

Claims that compare statistics of the same runs (two rounds of one curve, two curves, two
settings on common random numbers) take per-run differences through ``paired``: treating such
statistics as independent gets their standard error wrong in either direction."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from html import escape
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

import pandas as pd

from delayed_bandits import grid, papers
from delayed_bandits.errors import ConfigError
from delayed_bandits.outputs import html_page
from delayed_bandits.tables import Binding, read_recorded, regenerate_hint


@dataclass(frozen=True)
class Claim:
    id: str
    statement: str
    paper_ref: str
    measured: str
    expected: str
    # None: inconclusive, the measurement lies between what would confirm and what would refute
    holds: bool | None
    note: str = ""  # what may explain a claim that does not hold, or a caveat
    kind: str = "reproduction"  # or "check": one of KINDS (the module's docstring)
    # an inconclusive comparative claim: the runs at which its effect, at the per-run variance
    # measured, would lie Z standard errors from 0 (``runs_needed``); None otherwise
    runs_needed: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"claim {self.id}: kind {self.kind!r} is not one of {KINDS}")


REPRODUCTION, CHECK = "reproduction", "check"
KINDS = (REPRODUCTION, CHECK)


@dataclass(frozen=True)
class Point:
    """Mean regret of one curve at one round, with its standard error."""

    mean: float
    se: float
    t: int

    def __str__(self) -> str:
        return f"{self.mean:.1f} ± {self.se:.1f} (t={self.t})"


def at(summary: pd.DataFrame, setting: str, algorithm: str, t: int | None = None) -> Point:
    """The curve's value at the last checkpoint <= t (at T when t is None)."""
    rows = summary[(summary.setting == setting) & (summary.algorithm == algorithm)]
    if rows.empty:
        raise KeyError(f"no summary rows for {setting}/{algorithm}")
    if t is not None:
        rows = rows[rows.t <= t]
    row = rows.loc[rows.t.idxmax()]
    return Point(float(row["mean"]), float(row.se), int(row.t))


def per_run(runs: pd.DataFrame, setting: str, algorithm: str, t: int | None = None) -> pd.Series:
    """Every run's regret of one curve at its last checkpoint <= t (at T when t is None), indexed
    by replication. ``runs`` is a figure's shards read as one table (``tables["runs"]``)."""
    rows = runs[(runs.setting == setting) & (runs.algorithm == algorithm)]
    if rows.empty:
        raise KeyError(f"no runs for {setting}/{algorithm}")
    if t is not None:
        rows = rows[rows.t <= t]
    rows = rows[rows.t == rows.t.max()]
    return rows.set_index("replication").regret.sort_index()


@dataclass(frozen=True)
class Paired:
    """Mean of a per-run statistic over n runs, with its standard error."""

    mean: float
    se: float
    n: int

    def __str__(self) -> str:
        return f"{self.mean:.2f} ± {self.se:.2f} ({self.n} paired runs)"


def paired(x: pd.Series, y: pd.Series | None = None, scale: float = 1.0) -> Paired:
    """The mean of ``scale * (x - y)`` over runs (``x`` alone when ``y`` is None), with the SE
    of that mean from the per-run values: the one way to compare two statistics of the same runs.
    ``x`` and ``y`` are indexed by replication and must hold the same runs."""
    if y is not None:
        if not x.index.equals(y.index):
            raise ValueError("paired statistics must cover the same replications")
        x = x - y
    values = scale * x.to_numpy(dtype=float)
    if len(values) < 2:
        raise ValueError("a paired statistic needs at least 2 runs")
    return Paired(float(values.mean()), float(values.std(ddof=1) / len(values) ** 0.5), len(values))


def log_mean(x: pd.Series) -> pd.Series:
    """Per-run values ln(mean x) + (x_i - mean x) / mean x: their mean is ln of the runs' mean and
    their spread its delta-method SE. Sums and differences of them put a ratio of means of the
    same runs (a curve over another, a ratio at two rounds) through ``paired``."""
    mean = float(x.mean())
    if mean <= 0:
        raise ValueError("the log of a mean needs a positive mean")
    return math.log(mean) + (x - mean) / mean


def ratio(x: pd.Series, y: pd.Series) -> Paired:
    """mean(x) / mean(y) over the same runs, with its delta-method SE: that of the per-run values
    (x - r y) / mean(y), r the ratio, taken through ``paired`` (a ratio of two curves at T, or of
    one curve at T and at T/2)."""
    r = float(x.mean() / y.mean())
    return Paired(r, paired(x, r * y, scale=1.0 / float(y.mean())).se, len(x))


Z = 2.0
"""Standard errors that establish a statistic's sign (the module's rule, ``verdict_rule``)."""


def verdict_rule(z: float = Z) -> str:
    """The verdict rule in words, at ``z`` standard errors: what ``verdict`` decides, and what the
    docs and the papers' notebooks quote or print rather than restate."""
    return (
        "a claim holds when the runs establish it, fails when they establish the opposite, at "
        f"{z:g} standard errors where the claim is a statistic (a difference of two curves, a "
        "slope, a value against a stated one) or by the claim's own test where it states one, "
        "and is inconclusive when the runs cannot separate the two"
    )


def zse(what: str = "SE", z: float = Z) -> str:
    """The SE multiple as claim texts write it, "2 SE" at ``Z`` = 2 (``what``: "paired SE",
    ...): every claim text takes it from here, so that the texts follow ``Z``
    (tests/test_claims_se.py fails on a claim module that types it)."""
    return f"{z:g} {what}"


VERDICT_RULE = verdict_rule()
"""The verdict rule at ``Z``."""


def rule_blocks() -> dict[str, str]:
    """The verdict rule as the docs quote it (``quoted``), one sentence."""
    return {"claims-verdict-rule": VERDICT_RULE[0].upper() + VERDICT_RULE[1:] + "."}


def verdict(effect: float, se: float) -> bool | None:
    """The rule, for a statistic ``effect`` that is positive when the claim is true (e.g. the
    regret of the curve claimed worse minus that of the curve claimed better): holds when
    effect > Z se, fails when effect < -Z se, inconclusive (None) in between. With se = 0 (an
    exact quantity) only effect = 0 is inconclusive."""
    if effect > Z * se:
        return True
    if effect < -Z * se:
        return False
    return None


def runs_needed(effect: float, se: float, n: int) -> int | None:
    """The fewest runs at which a statistic measured as ``effect`` ± ``se`` over ``n`` runs would
    be established (|effect| > Z SE, as ``verdict`` asks, the SE shrinking as 1/sqrt(runs)), at
    least ``n``; None when the effect is exactly 0 (no run count resolves it). The power of an
    inconclusive claim, stated."""
    if effect == 0:
        return None
    return max(n, math.floor(n * (Z * se / abs(effect)) ** 2) + 1)


def needed(holds: bool | None, parts: Iterable[Paired]) -> int | None:
    """``runs_needed`` of an inconclusive claim made of paired statistics (``every`` of their
    verdicts): the most runs any of its inconclusive parts needs; None when the claim is decided
    or a part's effect is exactly 0."""
    if holds is not None:
        return None
    found = [runs_needed(p.mean, p.se, p.n) for p in parts if verdict(p.mean, p.se) is None]
    if not found or None in found:
        return None
    return max(n for n in found if n is not None)


def within(value: float, se: float, low: float, high: float) -> bool | None:
    """The rule for "value lies in [low, high]": holds when value ± Z se lies inside, fails when
    it lies wholly outside, inconclusive when it straddles an end."""
    if low <= value - Z * se and value + Z * se <= high:
        return True
    if value + Z * se < low or value - Z * se > high:
        return False
    return None


def band(value: float, low: float, high: float, above: bool) -> bool | None:
    """A claim's own test with an inconclusive band, for "value is high" (``above``) or "value is
    low": holds at or past its own threshold (>= high, or <= low), fails at or past the other,
    inconclusive strictly between (e.g. a growth over [T/2, T]: linear >= 0.8, sublinear <= 0.6)."""
    if low < value < high:
        return None
    return (value >= high) == above


def every(verdicts: Iterable[bool | None]) -> bool | None:
    """The rule for "all of these": fails when one fails, holds when all hold, else
    inconclusive."""
    found = list(verdicts)
    if any(v is False for v in found):
        return False
    return True if all(v is True for v in found) else None


def word(holds: bool | None) -> str:
    """How a measured column names a verdict."""
    return {True: "holds", False: "fails", None: "inconclusive"}[holds]


# (tables, figure config) -> claims; tables hold "summary" and "runs" (every run: per_run) for
# every simulated figure but the arena's (kinds.reads_runs), and "ratios", "leaderboard"
# or "events" where the figure's kind reads them.
Checker = Callable[[Mapping[str, pd.DataFrame], Mapping[str, Any]], list[Claim]]


def check(
    paper: str, figure: str, tables: Mapping[str, pd.DataFrame], fig_cfg: Mapping[str, Any]
) -> list[Claim]:
    """Claims of one figure, from ``papers/<paper>/claims.py`` (``CHECKS``); a figure without
    registered claims yields none."""
    checker = papers.get(paper).checks().get(figure)
    found = checker(tables, fig_cfg) if checker else []
    silent = [c.id for c in found if c.holds is False and not c.note.strip()]
    if silent:
        raise ValueError(
            f"{paper} {figure}: failing claim(s) {', '.join(silent)} without a note saying what "
            "may explain the failure"
        )
    return found


def to_json(claims: Iterable[Claim]) -> str:
    return json.dumps([asdict(c) for c in claims], indent=2) + "\n"


def to_html(claims: Iterable[Claim], title: str, own: bool = False) -> str:
    """One figure's claims as an HTML page (the report shows it beside the figure), under their
    count (``count``), with the columns of ``COLUMNS`` (``OWN_COLUMNS`` for ``own`` claims, which
    no paper makes)."""
    rows = [asdict(c) for c in claims]
    columns = OWN_COLUMNS if own else COLUMNS
    head = "".join(f"<th>{escape(name)}</th>" for name, _ in columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(cell(c))}</td>" for _, cell in columns) + "</tr>"
        for c in rows
    )
    return html_page(title, f"<p>{count(rows, own)}</p><table><tr>{head}</tr>{body}</table>")


def tally(verdicts: Iterable[tuple[str, str]]) -> dict[str, dict[str, int]]:
    """Verdicts as (kind, verdict word) pairs, counted per kind: {kind: {"holds": n, "fails": n,
    "inconclusive": n}} for every kind of ``KINDS``."""
    out = {kind: {word(v): 0 for v in (True, False, None)} for kind in KINDS}
    for kind, verdict_word in verdicts:
        out[kind][verdict_word] += 1
    return out


def phrase(tallied: Mapping[str, Mapping[str, int]], own: bool = False) -> str:
    """A ``tally`` as one sentence: 'X of N reproductions hold, Y fail, Z inconclusive; A of B
    checks hold, ...'; with ``own`` (claims no paper makes: the arena's, ``Paper.reproduces``)
    'X of N own claims hold, ...', with the checks only where there are some."""
    parts = []
    labels = ((REPRODUCTION, "own claims" if own else "reproductions"), (CHECK, "checks"))
    for kind, label in labels:
        n = tallied[kind]
        if own and kind == CHECK and not sum(n.values()):
            continue
        parts.append(
            f"{n['holds']} of {sum(n.values())} {label} hold, {n['fails']} fail, "
            f"{n['inconclusive']} inconclusive"
        )
    return "; ".join(parts) + "."


def count(rows: Iterable[Mapping[str, Any]], own: bool = False) -> str:
    """The verdicts of claims (as dicts, ``holds`` and ``kind``, a reproduction when absent)
    counted, reproductions and checks apart (``phrase``; ``own``: claims no paper makes)."""
    return phrase(tally((c.get("kind", REPRODUCTION), word(c["holds"])) for c in rows), own)


def id_table(rows: Iterable[Mapping[str, Any]], own: bool = False) -> str:
    """Claims (as dicts) as the Markdown table of their ids that docs/artifact-evaluation.md
    quotes: id (marked when the claim is a check), statement (cut at 150 characters), reference
    (for ``own`` claims, which no paper makes, what motivates them)."""
    reference = "motivated by (no paper makes the claim)" if own else "reference"
    lines = [f"| claim id | statement | {reference} |", "|---|---|---|"]
    for c in rows:
        statement = c["statement"] if len(c["statement"]) <= 150 else c["statement"][:149] + "…"
        check = " (check)" if c.get("kind", REPRODUCTION) == CHECK else ""
        lines.append(f"| `{c['id']}`{check} | {statement} | {c['paper_ref']} |")
    return "\n".join(lines)


def _mark(holds: bool | None) -> str:
    return {True: "yes", False: "NO", None: "inconclusive"}[holds]


def _runs_needed(c: Mapping[str, Any]) -> str:
    """An inconclusive claim's runs needed to resolve it (``runs_needed``), where it states them."""
    needed = c.get("runs_needed")
    return f"{needed:,}" if c["holds"] is None and needed is not None else ""


COLUMNS: tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...] = (
    ("claim", lambda c: c["statement"]),
    ("kind", lambda c: c.get("kind", REPRODUCTION)),
    ("paper", lambda c: c["paper_ref"]),
    ("measured", lambda c: c["measured"]),
    ("expected", lambda c: c["expected"]),
    ("holds", lambda c: _mark(c["holds"])),
    ("runs needed", _runs_needed),
    ("note", lambda c: c.get("note", "")),
)
"""The columns of a table of claims (as dicts), in markdown and HTML: each a header and its cell."""

OWN_COLUMNS = tuple(c for c in COLUMNS if c[0] not in ("kind", "paper"))
"""The columns of a table of claims no paper makes (the arena's, ``Paper.reproduces``): no
paper reference, no kind (they are not reproductions)."""


def read(
    path: Path, binding: Binding | None = None, recorded: bool = False
) -> list[dict[str, Any]]:
    """The claims of a claims file (``to_json``'s); ``ConfigError`` naming the file and how to
    regenerate it when it is not UTF-8 JSON, or not a list of claims. ``recorded``: checked
    first against its record (``tables.read_recorded``: its sha256, and ``binding`` when given),
    as a command that passes its verdicts on must (``quote``)."""
    names = [f.name for f in fields(Claim)]
    data = read_recorded(path, binding) if recorded else path.read_bytes()
    try:
        claims = json.loads(data.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError alike
        raise ConfigError(
            f"{path} is not a claims file ({type(exc).__name__}: {exc}); {regenerate_hint(path)}"
        ) from None
    if not isinstance(claims, list) or not all(
        isinstance(c, dict) and set(names) <= set(c) for c in claims
    ):
        raise ConfigError(
            f"{path} is not a claims file: a claims file is a JSON list of claims, each with "
            f"{', '.join(names)}; {regenerate_hint(path)}"
        )
    return claims


def _own(paper: str) -> bool:
    """Whether ``paper``'s claims are its own (no paper makes them: ``Paper.reproduces``); a
    directory of no registered paper holds a paper's claims."""
    return paper in papers.registered() and not papers.get(paper).reproduces


def to_markdown(
    files: Iterable[str | Path],
    scale: str | None = None,
    figures: Mapping[str, Mapping[str, Any]] | None = None,
) -> str:
    """Every claims file as one table per figure (``COLUMNS``; ``OWN_COLUMNS`` for the arena's),
    each under its count, the whole under the count of the papers' claims (``count``:
    reproductions and checks apart) and, apart, that of the arena's own claims, which no paper
    makes; and, when given, the scale of the run (config key ``scale``), worded by ``grid.scale``
    over ``figures`` (their configs, by ``<paper> <figure>``): a figure whose ``only`` keeps a
    subset is named."""
    lines: list[str] = []
    counted: dict[bool, list[dict[str, Any]]] = {False: [], True: []}
    for path in sorted(map(Path, files)):
        claims = read(path)
        paper, figure = path.parent.parent.name, path.parent.name
        own = _own(paper)
        columns = OWN_COLUMNS if own else COLUMNS
        lines += [
            f"## {paper} {figure}"
            + (" (the arena's own claims: no paper makes them)" if own else ""),
            "",
            count(claims, own),
            "",
            "| " + " | ".join(name for name, _ in columns) + " |",
            "|" + "---|" * len(columns),
        ]
        for c in claims:
            # a failure stands out
            cells = ["**NO**" if n == "holds" and c["holds"] is False else f(c) for n, f in columns]
            lines.append("| " + " | ".join(cells) + " |")
        counted[own] += claims
        lines.append("")
    head = [
        "# Claims: what the papers say, and what our runs measure",
        "",
        count(counted[False]),
        "",
    ]
    if scale is not None:
        head += [
            f"Scale: **{grid.scale(scale, figures)}**"
            + (
                " (the papers' horizons and replication counts)."
                if scale == "paper"
                else " (not the paper scale: these numbers do not test the papers' claims)."
            ),
            "",
        ]
    if counted[True]:
        head += [
            "The arena's own claims, counted apart (no paper makes them): "
            + count(counted[True], own=True),
            "",
        ]
    return "\n".join(head + lines) + "\n"
