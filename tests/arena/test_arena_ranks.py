"""The arena's mean-rank comparison (Demšar 2006) on hand-made tables: ranks with ties, the
Friedman statistic of a known case and of Demšar's worked example, the Nemenyi critical
difference for tabulated critical values, the cliques, and the families of a leaderboard."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from delayed_bandits.arena import ranks


def test_ranks_within_a_setting_share_the_average_on_ties() -> None:
    regrets = pd.DataFrame({"a": [1.0, 5.0], "b": [2.0, 5.0], "c": [3.0, 1.0]})
    table = ranks.rank_table(regrets)
    assert table.iloc[0].tolist() == [1.0, 2.0, 3.0]
    assert table.iloc[1].tolist() == [2.5, 2.5, 1.0]


def test_friedman_of_a_consistent_order_is_its_maximum() -> None:
    # 4 settings, each ranking a < b < c: chi2_F = 12 * 4 / 12 * (1 + 4 + 9 - 12) = 8 = N (k - 1)
    regrets = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": [2.0, 3, 4, 5], "c": [3.0, 4, 5, 6]})
    mean_ranks, chi2, f_stat, p_value, _ = ranks.compare(regrets)
    assert mean_ranks.tolist() == [1.0, 2.0, 3.0]
    assert chi2 == pytest.approx(8.0)
    assert f_stat == np.inf and p_value == 0.0


def test_friedman_of_demsar_worked_example() -> None:
    # Demšar 2006, Section 3.2.2: four classifiers over 14 data sets, mean ranks 3.143, 2.000,
    # 2.893, 1.964, give chi2_F = 9.28 and F_F = 3.69 (the ranks rounded to 3 decimals: 0.01)
    chi2, f_stat, p_value = ranks.friedman(np.array([3.143, 2.000, 2.893, 1.964]), 14)
    assert chi2 == pytest.approx(9.28, abs=0.01)
    assert f_stat == pytest.approx(3.69, abs=0.01)
    assert 0.01 < p_value < 0.05  # F(3, 39) at 0.05 is 2.85: equivalence rejected


def test_friedman_agrees_with_scipy_without_ties() -> None:
    from scipy import stats

    rng = np.random.default_rng(3)
    regrets = pd.DataFrame(rng.random((12, 5)), columns=list("abcde"))
    _, chi2, _, _, _ = ranks.compare(regrets)
    assert chi2 == pytest.approx(stats.friedmanchisquare(*regrets.to_numpy().T).statistic)


@pytest.mark.parametrize(
    "k, q", [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850), (10, 3.164)]
)
def test_q_alpha_matches_demsar_table(k: int, q: float) -> None:
    # Demšar 2006, Table 5a (alpha = 0.05), rounded to 3 decimals from a q itself rounded
    assert ranks.q_alpha(k) == pytest.approx(q, abs=1e-3)


def test_critical_difference_of_demsar_example() -> None:
    # Demšar 2006, Section 3.2.2: k = 4, N = 14, q_0.05 = 2.569: CD = 2.569 sqrt(20 / 84) = 1.25
    assert ranks.critical_difference(4, 14) == pytest.approx(2.569 * np.sqrt(20 / 84), abs=1e-3)
    assert ranks.critical_difference(4, 14) == pytest.approx(1.25, abs=0.005)


def test_cliques_are_maximal_runs_closer_than_cd() -> None:
    mean_ranks = pd.Series([1.0, 1.5, 2.6, 3.0, 4.0], index=list("abcde"))
    assert ranks.cliques(mean_ranks, 1.2) == [("a", "b"), ("b", "c"), ("c", "d"), ("d", "e")]
    inside = pd.Series([1.0, 1.2, 1.4, 3.0], index=list("abcd"))
    assert ranks.cliques(inside, 0.5) == [("a", "b", "c")]  # (b, c) is inside (a, b, c)
    assert ranks.cliques(inside, 0.1) == []
    assert ranks.cliques(inside, 0.4) == [("a", "b", "c")]  # 1.4 - 1.0 = 0.4 is not less
    assert ranks.cliques(inside, 0.3999) == [("a", "b"), ("b", "c")]


def test_families_rank_what_applies_everywhere() -> None:
    rows = []
    for base_mean in (0.4, 0.02):
        for censored in (False, True):
            for s in range(3):
                for a, alg in enumerate(("x", "y", "z")):
                    applicable = not (alg == "z" and not censored and s == 0)
                    rows.append(
                        {
                            "horizon": 100,
                            "field": "matched",
                            "setting": f"{base_mean}-{censored}-{s}",
                            "base_mean": base_mean,
                            "censored": censored,
                            "algorithm": alg,
                            "applicable": applicable,
                            # y best except in setting 2, where x is
                            "regret": np.nan if not applicable else [2, 1, 3][a] + (s == 2) * 2 * a,
                        }
                    )
    board = pd.DataFrame(rows)
    board = pd.concat([board, board.assign(horizon=10, regret=1.0)])  # T/10: not read
    families = ranks.families(board)
    assert [(f.base_mean, f.censored) for f in families] == [
        (0.4, False),
        (0.4, True),
        (0.02, False),
        (0.02, True),
    ]
    plain, censored = families[0], families[1]
    assert plain.left_out == ["z"] and list(plain.mean_ranks.index) == ["y", "x"]
    assert plain.mean_ranks.tolist() == pytest.approx([4 / 3, 5 / 3])
    assert plain.n_settings == 3 and censored.left_out == []
    assert censored.mean_ranks.to_dict() == pytest.approx({"y": 4 / 3, "x": 5 / 3, "z": 3.0})
    assert censored.cd == pytest.approx(ranks.critical_difference(3, 3))
