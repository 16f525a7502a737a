"""The arena's figures on a made-up leaderboard (with the columns the leaderboard agrees to give:
base_mean, verdict, regret_lo, regret_hi): the heatmap's and the curves' panels, n/a cells and
marks, the window figure, the rank diagram, their registration as plot kinds, and the ``plot``
command's ``--kind`` option."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

from conftest import CONFIG, SMOKE
from delayed_bandits import plotting
from delayed_bandits.arena import identifiability, leaderboard
from delayed_bandits.arena.views import common, families
from delayed_bandits.arena.views import curves as curves_view
from delayed_bandits.arena.views import heatmap as heatmap_view
from delayed_bandits.arena.views import ranks as ranks_view
from delayed_bandits.arena.views import window as window_view
from delayed_bandits.cli import main
from delayed_bandits.errors import ConfigError
from delayed_bandits.style import reader

FIG_CFG = {"title": "Arena (made up)", "horizon": 1000}
# the censored regime comes first here, to check that the figures move it after the others
REGIMES = [
    ("geometric10-censored", "Geometric(10), m = 50", True),
    ("geometric10", "Geometric(10)", False),
    ("pareto0.5", "Pareto(0.5)", False),
]
ALGORITHMS = [
    ("ucb", "UCB", "conversions"),
    ("odaaf", "ODAAF", "anonymous aggregate"),
    ("dew", "DEW", "per-round losses"),
    ("patient", "Patient", "conversions"),
    ("ucb1", "UCB1", "conversions"),
]  # the last at its paper's constant only
NOT_APPLICABLE = ("odaaf", "pareto0.5")  # ODAAF needs a finite mean delay


PROBLEMS = [reader("K = 2, μ = 0.4, gap 0.05"), reader("K = 2, μ = 0.02, gap 0.005")]
PROBLEMS += [p.replace("K = 2", "K = 10") for p in PROBLEMS]


def _verdict(alg: str, r: int) -> str:
    """UCB tied-best everywhere, ODAAF in the first regime; Patient inconclusive; others worse."""
    if alg == "ucb" or (alg == "odaaf" and r == 0):
        return "tied-best"
    return "inconclusive" if alg == "patient" else "worse"


def _board() -> pd.DataFrame:
    """2 x 2 problems x 3 regimes x 5 algorithms, in config order, as ``leaderboard.display``
    gives them: the matched comparison's rows (UCB the best everywhere, ODAAF tied with it in the
    first regime, Patient inconclusive), then UCB1's at its paper's constant, unranked."""
    rows = []
    for n_arms in (2, 10):
        for base_mean, gap in ((0.4, 0.05), (0.02, 0.005)):
            for r, (regime, regime_label, censored) in enumerate(REGIMES):
                regrets = {
                    alg: np.nan
                    if (alg, regime) == NOT_APPLICABLE
                    else 10.0 * n_arms * (1 + a) * (1 + r)
                    for a, (alg, _, _) in enumerate(ALGORITHMS)
                }
                best = np.nanmin(list(regrets.values()))
                ranks = pd.Series(regrets).rank(method="min")
                for alg, label, information in ALGORITHMS:
                    applicable = not np.isnan(regrets[alg])
                    rows.append(
                        {
                            "setting": f"{regime}-K{n_arms}-{gap}",
                            "field": "published" if alg == "ucb1" else "matched",
                            "base_mean": base_mean,
                            "regime": regime,
                            "regime_label": regime_label,
                            "delay": regime.split("-")[0],
                            "censored": censored,
                            # marked in one panel column only: the low base rate's
                            "identifiable": not (censored and base_mean == 0.02),
                            "window": 50 if censored else None,
                            "n_arms": n_arms,
                            "gap": gap,
                            "algorithm": alg,
                            "label": label,
                            "information": information,
                            "knows": "E[τ]",
                            "applicable": applicable,
                            "reason": "" if applicable else "needs a finite mean delay",
                            "regret": regrets[alg],
                            "se": regrets[alg] / 10,
                            "regret_lo": regrets[alg] * 0.8,
                            "regret_hi": regrets[alg] * 1.2,
                            "n_runs": 20 if applicable else np.nan,
                            "rank": ranks[alg],
                            "ratio": regrets[alg] / best,
                            "horizon": FIG_CFG["horizon"],
                            "tied_best": _verdict(alg, r) == "tied-best",
                            "verdict": _verdict(alg, r),
                            "section": "published" if alg == "ucb1" else "matched",
                        }
                    )
    return pd.DataFrame(rows)


def _summary(board: pd.DataFrame) -> pd.DataFrame:
    """Curves rising to each applicable algorithm's regret at T, 5 checkpoints, with an SE so
    wide that mean - 2 SE is negative, and percentiles 0.5 and 1.5 times the mean."""
    t = np.linspace(200, FIG_CFG["horizon"], 5).astype(int)
    return pd.concat(
        [
            pd.DataFrame(
                {
                    "setting": row.setting,
                    "algorithm": row.algorithm,
                    "t": t,
                    "mean": row.regret * t / t[-1],
                    "se": row.regret * t / t[-1],
                    "q05": 0.5 * row.regret * t / t[-1],
                    "q95": 1.5 * row.regret * t / t[-1],
                    "n_runs": 20,
                }
            )
            for row in board[board.applicable].itertuples()
        ],
        ignore_index=True,
    )


@pytest.fixture(scope="module")
def board() -> pd.DataFrame:
    return _board()


def _texts(fig, text: str) -> list:
    return [t for ax in fig.axes for t in ax.texts if t.get_text().startswith(text)]


def test_heatmap_panels_cells_and_marks(board: pd.DataFrame) -> None:
    fig = heatmap_view.heatmap(board, FIG_CFG, FIG_CFG["horizon"])
    panels = [ax for ax in fig.axes if ax.get_title().startswith("K = ")]
    assert [ax.get_title() for ax in panels] == PROBLEMS
    assert len(_texts(fig, "n/a")) == 4  # one per problem
    assert len(_texts(fig, "1.0")) == 4 * len(REGIMES)  # UCB, the best everywhere
    bold = [t.get_text() for t in panels[0].texts if t.get_fontweight() == "bold"]
    assert len(bold) == len(REGIMES) + 1  # the best, and ODAAF tied with it once
    numbers = [t for t in panels[0].texts if t.get_text()[0].isdigit()]
    faded = [t for t in numbers if t.get_alpha() == heatmap_view.WORSE_ALPHA]
    plain = [t for t in numbers if t.get_alpha() in (None, 1.0) and t.get_fontweight() != "bold"]
    # worse: ODAAF once (tied once, n/a once), DEW everywhere; plain: Patient (inconclusive) and
    # UCB1 (unranked)
    assert len(faded) == 1 + len(REGIMES)
    assert len(plain) == 2 * len(REGIMES)
    italic = [t for t in panels[0].texts if t.get_style() == "italic" and t.get_text()[0].isdigit()]
    assert len(italic) == len(REGIMES)  # UCB1's row, below the rule
    rules = [list(line.get_ydata()) for line in panels[0].lines]
    assert [4, 4] in rules  # the rule above it (the other is between uncensored and censored)
    # dashed rules between the information models: conversions (UCB, Patient), anonymous, losses
    assert [2, 2] in rules and [3, 3] in rules and [1, 1] not in rules
    assert not any(t.get_text() for t in panels[0].get_xticklabels())  # the bottom row's only
    assert [t.get_text() for t in panels[2].get_xticklabels()] == [
        "Geometric(10)",
        "Pareto(0.5)",
        "Geometric(10), m = 50",
    ]  # the censored regime last
    # the regime marked where its setting is unidentifiable, in that panel column alone
    assert [t.get_text() for t in panels[3].get_xticklabels()][-1] == (
        f"Geometric(10), m = 50 {identifiability.MARK}"
    )
    notes = [t.get_text().replace("\n", " ") for t in _texts(fig, "Cell")]
    assert any(f"{identifiability.MARK} after a regime" in t for t in notes)
    assert [t.get_text() for t in panels[0].get_yticklabels()] == [
        "UCB",
        "Patient",
        f"ODAAF {common.MARK}",
        "DEW",
        "UCB1",
    ]  # grouped by information model, board order within one
    assert heatmap_view.BAR_LABEL in [ax.get_ylabel() for ax in fig.axes]
    assert "T = 1,000" in fig.get_suptitle() and "20 runs" in fig.get_suptitle()
    assert any("anonymous aggregate" in t.get_text() for t in _texts(fig, "Cell"))


def test_heatmap_before_t_marks_the_learners_tuned_to_t(board: pd.DataFrame) -> None:
    """At a round before T the rows of the learners told T are marked, with the reason in the
    note; at T they are not."""
    told = board.assign(horizon_tuned=board.algorithm.isin(["odaaf", "dew"]))
    tuned = heatmap_view.TUNED
    for horizon, marks in ((FIG_CFG["horizon"] // 10, True), (FIG_CFG["horizon"], False)):
        fig = heatmap_view.heatmap(told, FIG_CFG, horizon)
        panel = next(ax for ax in fig.axes if ax.get_title().startswith("K = "))
        labels = [t.get_text() for t in panel.get_yticklabels()]
        want = [f"ODAAF {common.MARK}", "DEW"]
        assert labels[2:4] == ([f"{w} {tuned}" for w in want] if marks else want)
        assert [lab for lab in labels if lab not in labels[2:4]] == ["UCB", "Patient", "UCB1"]
        notes = " ".join(t.get_text().replace("\n", " ") for t in _texts(fig, "Cell"))
        assert (f"{tuned} tuned to the horizon T = 1,000" in notes) is marks
        plt.close(fig)  # not clf: a cleared figure stays open


def test_heatmap_of_switching_means_says_what_the_regret_is_against(board: pd.DataFrame) -> None:
    for settings, says in (({"s": {"switch": {"at": 0.5}}}, True), ({"s": {}}, False)):
        fig = heatmap_view.heatmap(board, {**FIG_CFG, "settings": settings}, FIG_CFG["horizon"])
        notes = " ".join(t.get_text().replace("\n", " ") for t in _texts(fig, "Cell"))
        assert ("against each round's best arm" in notes) is says
        plt.close(fig)  # not clf: a cleared figure stays open


def test_heatmap_a_setting_whose_best_has_zero_regret(board: pd.DataFrame) -> None:
    # the setting's best at 0: every ratio undefined, shown as a dash, not as an empty cell
    first = board.setting == board.setting.iloc[0]
    zero = board.assign(
        regret=board.regret.where(~(first & (board.algorithm == "ucb")), 0.0),
        ratio=board.ratio.where(~first, np.nan),
    )
    fig = heatmap_view.heatmap(zero, FIG_CFG, FIG_CFG["horizon"])
    dashes = _texts(fig, heatmap_view.ZERO_BEST)
    assert len(dashes) == len(ALGORITHMS)  # all five apply in the first regime
    assert any(f"{heatmap_view.ZERO_BEST}: no ratio" in t.get_text() for t in _texts(fig, "Cell"))
    fig.clf()


def test_curves_a_page_per_problem_with_a_legend_by_family(board: pd.DataFrame) -> None:
    pages = curves_view.curves(_summary(board), board, FIG_CFG)
    assert len(pages) == 4  # one per (K, base rate, gap)
    for i, (page, problem) in enumerate(zip(pages, PROBLEMS), 1):
        assert list(page.get_size_inches()) == list(common.PAGE)
        assert f"{problem} (page {i} of 4" in page.get_suptitle()
        panels = [ax for ax in page.axes if ax.lines]
        # a row per delay law: geometric10 uncensored and censored, pareto0.5 uncensored only
        assert [ax.get_title() for ax in panels] == [
            "Geometric(10)",
            "Geometric(10), m = 50",
            "Pareto(0.5)",
        ]
        assert panels[1].get_facecolor()[:3] == pytest.approx((0.94,) * 3)  # censored: grey
        assert all(ax.get_yscale() == "log" for ax in panels)
        assert sum(len(ax.lines) for ax in panels) == len(board[board.applicable]) // 4
        assert panels[0].get_shared_y_axes().joined(panels[0], panels[1])
        legend = next(ax.get_legend() for ax in page.axes if ax.get_legend())
        texts = [t.get_text() for t in legend.get_texts() if t.get_text()]
        assert texts == [
            "Pike-Burke et al. 2018:",
            "Manegueu et al. 2020:",
            "Thune et al. 2019:",
            "at their papers' constants:",
            "other entrants:",
            f"ODAAF {common.MARK}",
            "Patient",
            "DEW",
            "UCB1",
            "UCB",
        ]
        note = next(t.get_text() for ax in page.axes for t in ax.texts)
        assert f"ODAAF {common.MARK} under Pareto(0.5)" in note
        page.canvas.draw()
        box = legend.get_window_extent()
        assert not [ax for ax in panels if box.overlaps(ax.get_window_extent())]
    styles = families.curve_styles(board)
    assert len({styles[a][0] for a in ("ucb", "odaaf", "dew", "patient", "ucb1")}) == 5
    for page in pages:
        page.clf()


def test_curves_band_is_the_runs_percentiles_never_below_zero(board: pd.DataFrame) -> None:
    summary = _summary(board)
    assert (summary["mean"] - 2 * summary.se).min() < 0  # the SE band would go below zero
    page = curves_view.curves(summary, board, FIG_CFG)[0]
    bands = [c for ax in page.axes for c in ax.collections]
    assert bands
    for band in bands:
        y = np.concatenate([path.vertices[:, 1] for path in band.get_paths()])
        assert y.min() >= 0
    lows = {
        round(float(v), 9)
        for band in bands
        for path in band.get_paths()
        for v in path.vertices[:, 1]
    }
    first = board[board.applicable & (board.n_arms == 2) & (board.base_mean == 0.4)]
    q05 = 0.5 * first.regret.iloc[0] * 200 / FIG_CFG["horizon"]  # the first checkpoint's q05
    assert round(q05, 9) in lows
    assert "5-95 % of 20 runs" in page.get_suptitle()
    page.clf()


def _window_board() -> pd.DataFrame:
    """The window study made up: 3 laws x 2 problems x 3 windows x 3 entrants, every delay
    censored; OTFLinUCB does not apply under Pareto."""
    rows = []
    for law, law_label in (("geometric", "Geometric"), ("pareto", "Pareto"), ("criteo", "Criteo")):
        for n_arms, base_mean, gap in ((10, 0.4, 0.05), (2, 0.02, 0.005)):
            for m in (50, 200, 800):
                for a, (alg, label) in enumerate(
                    (("d-ucb", "d-UCB"), ("discarding-ts", "Discarding TS"), ("otflinucb", "OTF"))
                ):
                    applicable = not (alg == "otflinucb" and law == "pareto")
                    regret = 100.0 * (1 + a) * (1 + 200 / m) if applicable else np.nan
                    rows.append(
                        {
                            "setting": f"{law}-{n_arms}-{base_mean}-m{m}",
                            "regime": law,
                            "regime_label": law_label,
                            "censored": True,
                            "window": m,
                            "n_arms": n_arms,
                            "base_mean": base_mean,
                            "gap": gap,
                            "algorithm": alg,
                            "label": label,
                            "information": "conversions",
                            "section": "matched",
                            "applicable": applicable,
                            "regret": regret,
                            "regret_lo": 0.9 * regret,
                            "regret_hi": 1.1 * regret,
                            "n_runs": 60 if applicable else 0,
                        }
                    )
    return pd.DataFrame(rows)


def test_window_figure_a_panel_per_law_and_problem() -> None:
    board = _window_board()
    fig = window_view.window(board, FIG_CFG)
    panels = [ax for ax in fig.axes if ax.lines]
    assert len(panels) == 3 * 2
    assert [ax.get_title().split("\n") for ax in panels[:2]] == [
        ["Geometric", PROBLEMS[2]],
        ["Geometric", PROBLEMS[1]],
    ]
    assert all(ax.get_xscale() == "log" for ax in panels)
    assert [len(ax.containers) for ax in panels] == [3, 3, 2, 2, 3, 3]  # no OTF under Pareto
    bars = panels[0].containers[0]  # d-UCB's, the first of three: dodged to the left
    line = bars.lines[0]
    left = window_view.DODGE**-1
    assert list(line.get_xdata()) == pytest.approx([50 * left, 200 * left, 800 * left])
    assert list(line.get_ydata()) == pytest.approx([500.0, 200.0, 125.0])
    ends = np.array([segment[:, 1] for segment in bars.lines[2][0].get_segments()])
    assert ends == pytest.approx(np.array([[0.9 * r, 1.1 * r] for r in (500.0, 200.0, 125.0)]))
    styles = families.curve_styles(board)
    assert line.get_color() == styles["d-ucb"][0]  # the family's colour, as in the curves
    assert "60 runs" in fig.get_suptitle()
    fig.clf()


def test_rank_diagram_a_panel_per_family(board: pd.DataFrame) -> None:
    fig = ranks_view.ranks_figure({"leaderboard": board}, "arena", "regret", FIG_CFG)
    titles = [ax.get_title() for ax in fig.axes]
    # families: base rates in board order, uncensored first (the board has the censored first)
    assert [t.split(":")[0] for t in titles] == [
        "$\\mu$ = 0.4, uncensored",
        "$\\mu$ = 0.4, censored",
        "$\\mu$ = 0.02, uncensored",
        "$\\mu$ = 0.02, censored",
    ]
    # uncensored: ODAAF does not apply under Pareto(0.5): 3 matched algorithms over 4 settings
    assert "3 algorithms over 4 settings" in titles[0]
    assert "4 algorithms over 2 settings" in titles[1]
    left_out = [t.get_text() for t in fig.axes[0].texts if t.get_text().startswith("Not ranked")]
    assert left_out and "ODAAF" in left_out[0]
    names = [t.get_text() for t in fig.axes[0].texts if "(" in t.get_text()]
    assert any(t.startswith("(1.00) UCB") for t in names)  # UCB best in every setting
    fig.clf()


def test_curve_styles_colour_a_family_and_dash_its_members() -> None:
    rows = [
        {"algorithm": a, "label": a.upper(), "information": "conversions", "section": "matched"}
        for a in ("d-ucb", "d-klucb", "ud-ucb", "ts")
    ]
    styles = families.curve_styles(pd.DataFrame(rows))
    assert styles["d-ucb"][0] == styles["d-klucb"][0] == styles["ud-ucb"][0]
    assert len({styles[a][1] for a in ("d-ucb", "d-klucb", "ud-ucb")}) == 3
    assert styles["ts"][0] != styles["d-ucb"][0]


@pytest.mark.parametrize(
    "ratio, text", [(1.0, "1.0"), (3.24, "3.2"), (9.96, "10"), (41.3, "41"), (12_345.0, "12k")]
)
def test_ratio_text(ratio: float, text: str) -> None:
    assert heatmap_view.ratio_text(ratio) == text


def test_ratio_ticks() -> None:
    assert heatmap_view.ratio_ticks(1.0, 60.0) == [1, 2, 5, 10, 20, 50]
    assert heatmap_view.ratio_ticks(0.4, 3.0) == [0.5, 1, 2]


def test_plot_kinds_draw_the_leaderboard_and_save(
    board: pd.DataFrame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the made-up board stands in for what the leaderboard table shows
    monkeypatch.setattr(leaderboard, "display", lambda table, horizon=None: board)
    assert set(plotting.views("arena")) == {
        plotting.GENERIC,
        "arena",
        "arena_early",
        "arena_curves",
        "arena_window",
        "arena_ranks",
    }
    tables = {"summary": _summary(board), "leaderboard": board}
    for kind in ("arena", "arena_early", "arena_curves", "arena_ranks"):
        out = tmp_path / f"{kind}.png"
        plotting.plot_figure(
            tables, "arena", "regret", FIG_CFG, [out, out.with_suffix(".pdf")], kind=kind
        )
        assert out.read_bytes()[:4] == b"\x89PNG" and out.stat().st_size > 5000
        pages = len(re.findall(rb"/Type /Page\b", out.with_suffix(".pdf").read_bytes()))
        assert pages == (4 if kind == "arena_curves" else 1)  # the curves: a page per problem


def test_unknown_kind_names_the_available_ones() -> None:
    with pytest.raises(
        ConfigError, match="'bogus'.*regret, arena, arena_early, arena_curves, arena_window"
    ):
        plotting.view("arena", "bogus")


def test_cli_plot_rejects_an_unknown_kind_before_reading(tmp_path: Path, capsys) -> None:
    out = tmp_path / "x.png"
    code = main(
        [
            "plot",
            "--config",
            str(CONFIG),
            str(SMOKE),
            "--paper",
            "manegueu2020",
            "--figure",
            "fig2",
            "--summary",
            str(tmp_path / "absent.csv"),
            "--kind",
            "heatmap",
            "--out",
            str(out),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "'heatmap'" in err and "regret, alpha_sweep, gap_sweep, alpha_trace" in err
    assert "absent.csv" not in err  # the kind is checked before the tables are read
    assert not out.exists()
