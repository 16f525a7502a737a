"""Every claim of kind "reproduction" can fail: recomputed from perturbed runs of the smoke run,
each such claim's verdict or measurement moves under at least one perturbation. A claim that no
perturbation moves does not depend on the runs (it holds by construction, is arithmetic from the
config, or a property of an input): it is a check, and must say so (``claims.CHECK``). Checks
are exempt. (A claim that reads the runs but holds by the algorithm's construction, whatever the
draws, moves here: this test catches claims that do not read the runs, not every check.)

The perturbations (``PERTURBATIONS``) change the runs in ways a claim about them would see: every
curve of a setting made the same, the curves' labels exchanged, every recorded value tripled
(regrets and the side tables' values), flat curves, linear ones, and one run replaced by another
(with its side tables). The tables the claims read are made from the perturbed runs by the
project's own functions (those of the commands ``aggregate``, ``ratios`` and ``leaderboard``),
so that they agree with one another as the workflow's do. A perturbation a
checker cannot read (it raises, e.g. on a zero standard error) is no evidence either way: it is
skipped with a warning, which can only leave more claims unmoved."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping

import pandas as pd
import pytest

from conftest import smoke_config
from delayed_bandits import aggregate, claims, kinds, kindtype, provenance, seeds
from delayed_bandits import curves as cv
from delayed_bandits.tables import read_events

SMOKE = smoke_config()
FIGURES = [(paper, fig) for paper, figs in SMOKE["papers"].items() for fig in figs]

Runs = tuple[pd.DataFrame, pd.DataFrame]
"""A figure's runs (``tables.SHARD_COLUMNS``) and its event side tables."""


def _identical(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """Every curve of a setting made the mean of the setting's curves, run by run."""
    mean = runs.groupby(["setting", "replication", "t"]).regret.transform("mean")
    return runs.assign(regret=mean), events


def _permuted(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """The algorithms' labels cycled within each setting (each curve gets the next one's)."""
    out = []
    for _, rows in runs.groupby("setting", sort=False):
        names = sorted(set(rows.algorithm))
        cycle = dict(zip(names, names[1:] + names[:1]))
        out.append(rows.assign(algorithm=rows.algorithm.map(cycle)))
    return pd.concat(out, ignore_index=True), events


def _scaled(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """Every recorded value tripled: the regrets and the side tables' values (not their keys)."""
    values = [c for c in events.select_dtypes("number") if c not in ("replication", "t")]
    return runs.assign(regret=3.0 * runs.regret), events.assign(
        **{c: 3.0 * events[c] for c in values}
    )


def _flat(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """Each run's regret at T from the first round on: flat curves, the runs' spread kept."""
    at_t = runs.t == runs.groupby("setting").t.transform("max")
    final = runs[at_t].set_index(["setting", "algorithm", "replication"]).regret
    keys = pd.MultiIndex.from_frame(runs[["setting", "algorithm", "replication"]])
    return runs.assign(regret=final.reindex(keys).to_numpy()), events


def _linear(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """A linear regret, its slope 0.1 + 0.01 r in run r, the same for every curve."""
    return runs.assign(regret=runs.t * (0.1 + 0.01 * runs.replication)), events


def _replaced(runs: pd.DataFrame, events: pd.DataFrame) -> Runs:
    """The first run replaced by the second, in the runs and their side tables alike."""
    first, second = sorted(set(runs.replication))[:2]

    def swap(table: pd.DataFrame) -> pd.DataFrame:
        kept = table[table.replication != first]
        return pd.concat(
            [kept, table[table.replication == second].assign(replication=first)],
            ignore_index=True,
        )

    return swap(runs), swap(events) if not events.empty else events


PERTURBATIONS: dict[str, Callable[[pd.DataFrame, pd.DataFrame], Runs]] = {
    "identical curves": _identical,
    "labels permuted": _permuted,
    "values x 3": _scaled,
    "flat regret": _flat,
    "linear regret": _linear,
    "a run replaced": _replaced,
}


def _ratios(runs: pd.DataFrame, fig: Mapping[str, Any], paper: str, figure: str) -> pd.DataFrame:
    seed = seeds.analysis_seed(SMOKE["seed"], paper, figure, "bootstrap")
    return aggregate.ratio_of_means(runs, fig["baseline"], int(fig.get("bootstrap", 1000)), seed)


def _leaderboard(
    runs: pd.DataFrame, fig: Mapping[str, Any], paper: str, figure: str
) -> pd.DataFrame:
    from delayed_bandits.arena import claims, leaderboard

    # as the workflow's command makes it: the screen never stops an entrant a claim compares
    return leaderboard.build(runs, fig, SMOKE["seed"], figure, claims.KEPT)


MAKE: dict[str, Callable[[pd.DataFrame, Mapping[str, Any], str, str], pd.DataFrame]] = {
    "ratios": _ratios,
    "leaderboard": _leaderboard,
}
"""Each table a kind may read besides the summary, made from the runs as its command makes it."""


def test_every_table_a_kind_reads_is_made_here() -> None:
    assert set(MAKE) == set(kindtype.TABLES)


def _read_runs(results: Path, paper: str, figure: str) -> Runs:
    """A figure's runs and event side tables, as the workflow wrote them (the shards, and the
    arena's contest where the figure screens: every run pooled), read as the claims command
    reads them."""
    where = results / paper / figure
    found = [*where.rglob("rep*.parquet"), *where.rglob("contest*.parquet")]
    shards = sorted(p for p in found if ".events." not in p.name)
    curves = cv.curves(paper, figure, cv.figure(SMOKE, paper, figure))
    made_by = provenance.binding(SMOKE, paper, figure, curves)
    events = [read_events(p, made_by) for p in sorted(where.rglob("rep*.events.parquet"))]
    return aggregate.read_runs(shards, curves, made_by), (
        pd.concat(events, ignore_index=True) if events else pd.DataFrame()
    )


def _claims(
    runs: pd.DataFrame,
    events: pd.DataFrame,
    paper: str,
    figure: str,
    fig: Mapping[str, Any] | None = None,
) -> list[claims.Claim]:
    """The figure's claims from these runs (``fig``: the figure's config, by default the smoke
    run's)."""
    fig = cv.figure(SMOKE, paper, figure) if fig is None else fig
    tables = {"summary": aggregate.summarise(runs)}
    tables |= {name: MAKE[name](runs, fig, paper, figure) for name in kinds.tables(fig)}
    if kinds.reads_runs(fig):
        tables["runs"] = runs
    if not events.empty:
        tables["events"] = events
    return claims.check(paper, figure, tables, fig)


AS_RUN = "as run"


def outcomes(results: Path, paper: str, figure: str) -> dict[str, list[claims.Claim]]:
    """A figure's claims from the runs under ``results`` (``AS_RUN``) and from each perturbation
    of them its checker can read, by perturbation (only ``AS_RUN`` for a figure with no runs)."""
    fig = cv.figure(SMOKE, paper, figure)
    if not kinds.simulated(fig):
        return {AS_RUN: claims.check(paper, figure, {}, fig)}
    runs, events = _read_runs(results, paper, figure)
    found = {AS_RUN: _claims(runs, events, paper, figure)}
    # a perturbation reads the screen's runs as a run of one stage, where the figure screens
    # (the arena's screen, cv.first_stage): the runs every entrant has; the contest's are the
    # contenders' alone, which a perturbed run (its labels cycled, its curves made equal) would
    # not have screened the same way
    first = cv.first_stage(fig)
    screen = [t[t.replication < first] if not t.empty else t for t in (runs, events)]
    one = {**fig, "replications": first}
    for name, perturb in PERTURBATIONS.items():
        try:
            found[name] = _claims(*perturb(*screen), paper, figure, one)
        except Exception as exc:  # a checker that cannot read such runs: no evidence either way
            warnings.warn(f"{paper} {figure}, {name}: the claims raised {exc!r}", stacklevel=1)
    return found


def unmoved(found: Mapping[str, list[claims.Claim]]) -> list[str]:
    """The reproduction claims whose verdict and measurement are the same under every
    perturbation of ``found`` (``outcomes``) as in the runs."""

    def outcome(c: claims.Claim) -> tuple[bool | None, str]:
        return c.holds, c.measured

    still = {c.id: outcome(c) for c in found[AS_RUN] if c.kind == claims.REPRODUCTION}
    for name, perturbed in found.items():
        moved = {c.id: outcome(c) for c in perturbed}
        still = {i: o for i, o in still.items() if moved.get(i) == o}
    return sorted(still)


@pytest.mark.slow
@pytest.mark.parametrize("paper,figure", FIGURES, ids=[f"{p}-{f}" for p, f in FIGURES])
def test_every_reproduction_claim_can_fail(smoke_run: Path, paper: str, figure: str) -> None:
    results = smoke_run / "smoke/results"
    found = outcomes(results, paper, figure)
    # the perturbations start from the workflow's own verdicts
    written = json.loads((results / paper / figure / "claims.json").read_text())
    assert {c.id: c.holds for c in found[AS_RUN]} == {c["id"]: c["holds"] for c in written}
    flagged = unmoved(found)
    assert not flagged, (
        f"{paper} {figure}: reproduction claim(s) that no perturbation of the runs moves "
        f"(a check, or a test that does not read the runs): {', '.join(flagged)}"
    )
