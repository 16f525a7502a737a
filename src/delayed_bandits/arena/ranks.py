"""Mean ranks of the arena's algorithms across settings, compared as Demšar (2006), "Statistical
comparisons of classifiers over multiple data sets", J. Mach. Learn. Res. 7:1-30, Section 3.2.2:
rank the algorithms within each setting (1 = lowest mean regret, ties sharing the average rank),
average the ranks over the settings, test that all are equivalent with the Friedman test, and
call two algorithms different when their mean ranks differ by at least the Nemenyi critical
difference CD = q_alpha sqrt(k (k + 1) / (6 N)) (k algorithms, N settings).

A family of settings is one base rate, censored or not (the grid's numbers of arms, gaps and
delay laws within it: 28 settings at paper scale), so that the ranks pool settings of one kind;
within a family, only the algorithms that apply in every setting of it are ranked (a rank over
fewer settings would compare unlike sets). The regrets are the leaderboard's at T, matched
exploration (``leaderboard.view``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from delayed_bandits.arena import leaderboard

ALPHA = 0.05
"""The level of the Friedman test and of the Nemenyi critical difference."""


@dataclass(frozen=True)
class Family:
    """The rank comparison of one family of settings."""

    base_mean: float
    censored: bool
    mean_ranks: pd.Series
    """Per ranked algorithm, its mean rank over the family's settings, lowest (best) first."""
    n_settings: int
    chi2: float
    """Friedman's statistic, chi-square with k - 1 degrees of freedom under equivalence."""
    f_stat: float
    """Iman and Davenport's F_F from ``chi2``, F with (k - 1, (k - 1)(N - 1)) degrees of freedom:
    the less conservative form Demšar recommends; its p-value is ``p_value``."""
    p_value: float
    cd: float
    cliques: list[tuple[str, ...]]
    """The maximal groups of algorithms, consecutive in mean rank, whose mean ranks differ by
    less than ``cd``: not told apart by the Nemenyi test."""
    left_out: list[str]
    """The family's algorithms not ranked: those that do not apply in every setting of it."""


def rank_table(regrets: pd.DataFrame) -> pd.DataFrame:
    """Settings (rows) x algorithms (columns) of mean regret to ranks within each setting: 1 the
    lowest, tied algorithms sharing the average of the ranks they span (Demšar 2006, Section
    3.2.2)."""
    return regrets.rank(axis=1, method="average")


def friedman(mean_ranks: np.ndarray, n: int) -> tuple[float, float, float]:
    """(chi2_F, F_F, p-value of F_F) of ``mean_ranks`` over ``n`` settings (Demšar 2006, Section
    3.2.2): chi2_F = 12 N / (k (k + 1)) (sum_j R_j^2 - k (k + 1)^2 / 4) and
    F_F = (N - 1) chi2_F / (N (k - 1) - chi2_F); F_F is infinite (p = 0) when every setting
    orders the algorithms alike."""
    k = len(mean_ranks)
    chi2 = 12 * n / (k * (k + 1)) * (float(np.sum(np.square(mean_ranks))) - k * (k + 1) ** 2 / 4)
    spare = n * (k - 1) - chi2
    if spare <= 1e-12 * n * k:
        return chi2, np.inf, 0.0
    f_stat = (n - 1) * chi2 / spare
    return chi2, f_stat, float(stats.f.sf(f_stat, k - 1, (k - 1) * (n - 1)))


def q_alpha(k: int, alpha: float = ALPHA) -> float:
    """The Nemenyi test's critical value for ``k`` algorithms: the studentized range quantile
    (k groups, infinite degrees of freedom) divided by sqrt(2) (Demšar 2006, Table 5a: 2.569 at
    k = 4, alpha = 0.05)."""
    return float(stats.studentized_range.ppf(1 - alpha, k, np.inf) / np.sqrt(2))


def critical_difference(k: int, n: int, alpha: float = ALPHA) -> float:
    """CD = q_alpha sqrt(k (k + 1) / (6 N)), k algorithms over N settings (Demšar 2006, Section
    3.2.2)."""
    return q_alpha(k, alpha) * float(np.sqrt(k * (k + 1) / (6 * n)))


def cliques(mean_ranks: pd.Series, cd: float) -> list[tuple[str, ...]]:
    """The maximal runs of two or more algorithms, consecutive in ``mean_ranks`` (sorted), whose
    mean ranks span less than ``cd``: the bars of a critical-difference diagram."""
    names, values = list(mean_ranks.index), mean_ranks.to_numpy(float)
    runs: list[tuple[str, ...]] = []
    last = -1
    for i in range(len(names)):
        j = i
        while j + 1 < len(names) and values[j + 1] - values[i] < cd:
            j += 1
        if j > i and j > last:  # a run ending where an earlier one ends is inside it
            runs.append(tuple(names[i : j + 1]))
            last = j
    return runs


def compare(
    regrets: pd.DataFrame, alpha: float = ALPHA
) -> tuple[pd.Series, float, float, float, float]:
    """(mean ranks, lowest first; chi2_F; F_F; its p-value; CD) of settings x algorithms
    ``regrets``."""
    mean_ranks = rank_table(regrets).mean().sort_values(kind="stable")
    n, k = regrets.shape
    chi2, f_stat, p_value = friedman(mean_ranks.to_numpy(), n)
    return mean_ranks, chi2, f_stat, p_value, critical_difference(k, n, alpha)


def families(board: pd.DataFrame, alpha: float = ALPHA) -> list[Family]:
    """The rank comparison of each family (base rate, censored or not), base rates in board
    order, the uncensored family of each first, from the leaderboard ``board`` at its last
    horizon, matched exploration. A family with fewer than two algorithms that apply everywhere,
    or fewer than two settings, is left out."""
    rows = leaderboard.view(board)
    rows = rows.assign(censored=rows.censored.astype(bool))
    out = []
    for base_mean in dict.fromkeys(rows.base_mean):
        for censored in (False, True):
            members = rows[(rows.base_mean == base_mean) & (rows.censored == censored)]
            family = _family(members, float(base_mean), censored, alpha)
            if family is not None:
                out.append(family)
    return out


def _family(members: pd.DataFrame, base_mean: float, censored: bool, alpha: float) -> Family | None:
    """The comparison of one family's rows; None with fewer than two algorithms that apply in
    every setting of it, or fewer than two settings."""
    applies = members.groupby("algorithm", sort=False).applicable.all()
    ranked = [a for a in applies.index if applies[a]]
    regrets = members.pivot(index="setting", columns="algorithm", values="regret")[ranked]
    if len(ranked) < 2 or len(regrets) < 2:
        return None
    mean_ranks, chi2, f_stat, p_value, cd = compare(regrets, alpha)
    return Family(
        base_mean=base_mean,
        censored=censored,
        mean_ranks=mean_ranks,
        n_settings=len(regrets),
        chi2=chi2,
        f_stat=f_stat,
        p_value=p_value,
        cd=cd,
        cliques=cliques(mean_ranks, cd),
        left_out=[a for a in applies.index if not applies[a]],
    )
