"""Racing: more runs where the tie rule has not decided, and only there.

The base runs (the figure's ``replications``, n0, every algorithm of every setting) make the
leaderboard. Where one of a comparison's contenders (``leaderboard.CONTENDER``) is inconclusive, in
the comparison or within its information model (``model_verdict``), that comparison's (or
model's) cells the base runs did not show worse are raced (``select``, ``plan``): the undecided
and every one that may still be the best, the family that a cell's excess needs
(``ties.excess``). They get ``race_runs`` fresh replications
(indices n0 to n0 + race_runs - 1; a replication's draws depend on its setting and index alone,
so the raced algorithms are paired among themselves), and the tie rule decides again on those
runs alone, among the raced algorithms (``combine``): a cell of a raced comparison (or model),
at the last horizon, keeps its base verdict where the base runs decided it and takes the second
stage's where they did not; every other cell keeps its base verdict, as the raced algorithms
need not hold its comparison's best.

Why the verdicts stay valid (docs/decisions/arena.md#racing): the second stage's runs are
independent of the first, so, given which algorithms were raced, its intervals are simultaneous
at their stated level; the setting's true best (in a comparison, or within a model) is among the
raced unless the base runs called it worse, which is an error of the first stage. A wrong
verdict anywhere therefore needs an error of one of the two stages, and each stage runs at the
confidence ``stage_confidence`` gives, 1 - (1 - confidence) / 2, so that the two together keep
the figure's ``confidence`` (Bonferroni over the stages). The cost of that split is a somewhat
wider interval at each stage; the gain is that the second stage's runs go only where they
decide something (``tests/arena/test_racing.py`` measures the error rate of the two stages)."""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np
import pandas as pd

from delayed_bandits.arena.ties import INCONCLUSIVE, WORSE

STAGE_COLUMNS = ("excess", "excess_lo", "excess_hi", "tied_best", "verdict")
"""The tie rule's columns of a comparison, which a raced cell takes from the second stage."""
MODEL_COLUMNS = ("model_tied_best", "model_verdict")
"""The tie rule's columns within an information model, taken the same way."""


COMPARISON = ["setting", "field"]
"""A comparison's cells: one setting, one field (``leaderboard.FIELDS``)."""
MODEL = ["setting", "field", "information"]
"""An information model's cells within a comparison."""


def races(stats: Mapping[str, Any]) -> bool:
    """Whether a figure's ``statistics`` ask for a second stage."""
    return int(stats.get("race_runs", 0)) > 0


def stage_confidence(stats: Mapping[str, Any]) -> float:
    """The confidence of each stage's intervals: the figure's ``confidence`` when it is not
    raced, else half its error rate at each of the two stages (Bonferroni)."""
    confidence = float(stats["confidence"])
    return 1 - (1 - confidence) / 2 if races(stats) else confidence


def select(verdict: np.ndarray, ratio: np.ndarray, contender: float) -> np.ndarray:
    """The raced cells of one comparison (or of one information model within it), from the base
    runs' ``verdict`` and ``ratio`` to the best: none when every cell within ``contender`` times
    the best is decided; else every cell not shown worse, the undecided and every one that may
    still be the best."""
    verdict = np.asarray(verdict)
    if not ((np.asarray(ratio) <= contender) & (verdict == INCONCLUSIVE)).any():
        return np.zeros(len(verdict), bool)
    return verdict != WORSE


def _selected(board: pd.DataFrame, contender: float):
    """(column, group key, the group's rows, ``select``'s mask) for every comparison and every
    information model on the base ``board`` at its last horizon (applicable cells only)."""
    last = board[(board.horizon == board.horizon.max()) & board.applicable.astype(bool)]
    for column, keys, ratio in (
        ("verdict", COMPARISON, "ratio"),
        ("model_verdict", MODEL, "model_ratio"),
    ):
        for key, rows in last.groupby(keys, sort=False):
            yield (
                column,
                key,
                rows,
                select(rows[column].to_numpy(), rows[ratio].to_numpy(), contender),
            )


def raced_groups(board: pd.DataFrame, contender: float) -> dict[str, set[tuple[Any, ...]]]:
    """The comparisons (keys ``COMPARISON``) and the information models (keys ``MODEL``) that
    race, on the base ``board`` at its last horizon: those where ``select`` races a cell. Only
    their verdicts, at that horizon, may be taken from the second stage (``combine``):
    elsewhere the raced algorithms need not hold the best."""
    out: dict[str, set[tuple[Any, ...]]] = {"verdict": set(), "model_verdict": set()}
    for column, key, _, mask in _selected(board, contender):
        if mask.any():
            out[column].add(key)
    return out


def plan(board: pd.DataFrame, contender: float) -> dict[str, list[str]]:
    """Per raced setting, its raced algorithms in board order: the cells that ``select`` races
    in any comparison or information model (``raced_groups``)."""
    chosen = [rows[mask] for _, _, rows, mask in _selected(board, contender) if mask.any()]
    if not chosen:
        return {}
    raced = pd.concat(chosen).sort_index()
    return {
        setting: list(dict.fromkeys(rows.algorithm))
        for setting, rows in raced.groupby("setting", sort=False)
    }


def combine(base: pd.DataFrame, second: pd.DataFrame, contender: float) -> pd.DataFrame:
    """The base board with the tie rule of each cell of a raced group (``raced_groups``: a
    comparison, or a model within it, at the last horizon) taken from the ``second`` stage's
    board (same columns, the raced algorithms of the raced settings) where the base runs left
    it inconclusive, in its comparison (``STAGE_COLUMNS``) and within its model
    (``MODEL_COLUMNS``) separately; ``stage`` says which stage decided the comparison's verdict
    (1 or 2) and ``race_runs`` how many runs the second stage had (0 where it was not raced).
    The means, intervals and quantiles stay the base runs', the same n for every cell."""
    keys = ["horizon", "field", "setting", "algorithm"]
    out = base.copy()
    out["stage"] = 1
    out["race_runs"] = 0
    if second.empty:
        return out
    found = second.set_index(keys)
    at = pd.MultiIndex.from_frame(out[keys])
    raced = at.isin(found.index)
    rows = found.reindex(at[raced])
    out.loc[raced, "race_runs"] = rows.n_runs.to_numpy()
    groups = raced_groups(base, contender)
    last = (out.horizon == out.horizon.max()).to_numpy()
    for columns, verdict, group in (
        (STAGE_COLUMNS, "verdict", COMPARISON),
        (MODEL_COLUMNS, "model_verdict", MODEL),
    ):
        chosen = out[group].apply(tuple, axis=1).isin(groups[verdict]).to_numpy() & last
        redo = raced & chosen & (out[verdict] == INCONCLUSIVE).to_numpy()
        take = rows[verdict].notna().to_numpy() & redo[raced]
        where = np.flatnonzero(raced)[take]
        for column in columns:
            out.loc[out.index[where], column] = rows[column].to_numpy()[take]
        if verdict == "verdict":
            out.loc[out.index[where], "stage"] = 2
    return out
