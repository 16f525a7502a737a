"""Screen, then contend (``arena.screening``), the whole two-stage procedure in simulation: seeded
synthetic settings of one best entrant (mean 100), one cell under test and ten entrants 1.5 to
50 times the best, 80 paired runs of which the screen reads the first 10 (and 30, the citable
run's design, where a test says so). The rates: a cell exactly at the margin (110) called tied-best, its runs well behaved or
2-5 % of them stuck (each stuck run much larger, the same mean); the power to call a cell 5 %
above the best tied-best and one 15 % above worse. Tolerances are 3 binomial standard errors of
a rate over the tables (docs/decisions/arena.md#screening)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import ROOT
from delayed_bandits import config, curves
from delayed_bandits.arena import leaderboard, screening, ties

N, FIRST, TABLES, RESAMPLES = 80, 10, 300, 500
_FULL = curves.figure(
    config.load([ROOT / "config/config.yaml", ROOT / "config/arena-full.yaml"]), "arena", "regret"
)
CITABLE = int(_FULL["replications"])  # the citable run's runs, its screen on FIRST of them
assert curves.stages(_FULL["statistics"], CITABLE) == (FIRST, CITABLE)
CONFIDENCE, MARGIN = ties.STATISTICS["confidence"], ties.STATISTICS["tie_margin"]
NOMINAL = (1 - CONFIDENCE) / 2  # the one-sided error of a false tie, over both stages
LOSERS = np.geomspace(1.5, 50.0, 10)


def _tolerance(rate: float) -> float:
    return 3 * math.sqrt(max(rate, NOMINAL) * (1 - max(rate, NOMINAL)) / TABLES)


def _setting(rng: np.random.Generator, ratio: float, stuck: float, n: int = N) -> np.ndarray:
    """Runs (n x 12): the best, the cell under test at ``ratio`` times the best's mean, the
    losers; the cell's excess comes from a share ``stuck`` of runs far above the others (0:
    a well-behaved cell, paired with the best's environment)."""
    shared = rng.gamma(8.0, 12.5, n)  # mean 100
    best = shared + rng.normal(0.0, 10.0, n)
    if stuck:
        jump = (ratio - 1) * 100 / stuck  # a stuck run adds this, so the mean is ratio x 100
        cell = best + rng.normal(0.0, 10.0, n) + np.where(rng.random(n) < stuck, jump, 0.0)
    else:
        cell = ratio * shared + rng.normal(0.0, 10.0, n)
    losers = [c * shared + rng.normal(0.0, 10.0 * c, n) for c in LOSERS]
    return np.column_stack([best, cell, *losers])


def _rates(
    ratio: float, stuck: float, seed: int, everyone: bool = False, n: int = N
) -> dict[str, np.ndarray]:
    """Per procedure, the share of tables of ``n`` runs where the cell under test is called
    (tied-best, worse): ``two`` the two-stage procedure, ``one`` the one-stage tie rule on the
    same runs of the best and the cell alone (the family a perfect screen would leave), ``all``
    (with ``everyone``) the one-stage rule over every entrant, and ``contenders`` the mean
    contender count."""
    rng = np.random.default_rng(seed)
    two, one, every, contenders = np.zeros(2), np.zeros(2), np.zeros(2), 0.0
    for i in range(TABLES):
        runs = _setting(rng, ratio, stuck, n)
        w = leaderboard.resample_weights(n, RESAMPLES, np.random.SeedSequence([seed, i]))
        got = screening.two_stage(runs, FIRST, w, MARGIN, CONFIDENCE)
        two += [got["verdict"][1] == ties.TIED, got["verdict"][1] == ties.WORSE]
        _, lower, upper = ties.excess(runs[:, :2], w, MARGIN, CONFIDENCE)
        cell = ties.verdict(lower, upper)[1]
        one += [cell == ties.TIED, cell == ties.WORSE]
        contenders += got["contender"].sum()
        if everyone:
            _, lower, upper = ties.excess(runs, w, MARGIN, CONFIDENCE)
            cell = ties.verdict(lower, upper)[1]
            every += [cell == ties.TIED, cell == ties.WORSE]
    return {
        "two": two / TABLES,
        "one": one / TABLES,
        "all": every / TABLES,
        "contenders": contenders / TABLES,
    }


def test_the_boundary_spends_the_stated_error_over_two_looks() -> None:
    """Pocock-type spending at t = 10/80: alpha_1 = 0.025 ln(1 + (e - 1)/8) = 0.0049, and the
    two looks add up to the tie rule's one-sided 0.025; no screen, nothing spent early."""
    a1, a2 = screening.spend(CONFIDENCE, FIRST, N)
    assert math.isclose(a1 + a2, NOMINAL) and 0.0048 < a1 < 0.0050
    assert screening.spend(CONFIDENCE, N, N) == (0.0, NOMINAL)
    assert math.isclose(screening.final_confidence(CONFIDENCE, FIRST, N), 1 - 2 * a2)
    assert curves.stages({"screen_runs": 10}, 80) == (10, 80)
    assert curves.stages({"screen_runs": 10}, 8) == (8, 8)  # too few runs: one stage
    assert curves.stages({"screen_runs": 0}, 80) == (80, 80)


def test_the_screen_stops_the_losers_and_keeps_what_a_claim_needs() -> None:
    """On 10 runs the screen stops every entrant 3 times the best or more, keeps the best, and
    never stops an entrant in ``keep``; an entrant identical to another up to a constant
    (no spread in the paired difference) is decided by the sign."""
    rng = np.random.default_rng(1)
    runs = _setting(rng, 1.1, 0.0)[:FIRST]
    alpha_1, _ = screening.spend(CONFIDENCE, FIRST, N)
    go = screening.screen(runs, MARGIN, alpha_1)
    assert go[0] and not go[2:][LOSERS >= 3].any()
    kept = screening.screen(runs, MARGIN, alpha_1, keep=[11])
    assert kept[11] and (kept[:11] == go[:11]).all()
    twin = np.column_stack([runs[:, 0], runs[:, 0] + 100.0])
    assert list(screening.screen(twin, MARGIN, alpha_1)) == [True, False]
    assert screening.screen(runs, MARGIN, 0.0).all()


def test_a_cell_at_the_margin_is_rarely_called_tied_best() -> None:
    """Well-behaved runs: at most the stated 2.5 % over both stages (measured: 0 of 300)."""
    rates = _rates(1.1, 0.0, seed=21)
    assert rates["two"][0] <= NOMINAL + _tolerance(NOMINAL), rates


def test_a_cell_at_the_margin_with_5_percent_stuck_runs_is_rarely_called_tied_best() -> None:
    """5 % of its runs stuck (each adding twice the best's mean): pooling the screen's runs with
    the contest's keeps the one-stage rate, near the stated 2.5 % (racing's fresh-only second
    stage took it to 15 %, docs/decisions/arena.md#screening)."""
    rates = _rates(1.1, 0.05, seed=22)
    assert rates["two"][0] <= NOMINAL + _tolerance(NOMINAL), rates
    assert rates["two"][0] <= rates["one"][0] + _tolerance(rates["one"][0]), rates


def test_the_contest_reads_the_screens_runs() -> None:
    """Pooled, not fresh-only: a cell equal to the best but for two runs of the screen's ten,
    each adding five times the best's mean (so its mean over 80 runs is 1.125 times the best's),
    is not called tied-best; the contest on the later 70 runs alone, which never saw them (the
    way racing's second stage read its runs), calls it tied-best."""
    rng = np.random.default_rng(7)
    shared = rng.gamma(400.0, 0.25, N)  # mean 100, tight
    cell = shared.copy()
    cell[[2, 7]] += 500.0
    runs = np.column_stack([shared, cell, *[c * shared for c in LOSERS]])
    w = leaderboard.resample_weights(N, RESAMPLES, np.random.SeedSequence(0))
    got = screening.two_stage(runs, FIRST, w, MARGIN, CONFIDENCE)
    assert got["contender"][:2].all() and got["verdict"][1] != ties.TIED, got
    fresh = leaderboard.resample_weights(N - FIRST, RESAMPLES, np.random.SeedSequence(0))
    level = screening.final_confidence(CONFIDENCE, FIRST, N)
    alone = screening.contest(runs[FIRST:], got["contender"], fresh, MARGIN, level)
    assert alone["verdict"][1] == ties.TIED


@pytest.mark.parametrize(("n", "stuck", "seed"), [(N, 0.02, 23), (CITABLE, 0.05, 22)])
def test_stuck_runs_are_what_n_runs_cannot_see(n: int, stuck: float, seed: int) -> None:
    """A share ``stuck`` of the cell's runs stuck (the cell's mean still 1.1 times the best's):
    in a share (1 - stuck)^n of the tables none of its n runs is stuck and the cell looks tied.
    No rule on these runs sees it (the one-stage rule on the best and the cell alone errs as
    often); the two-stage procedure adds nothing to it. 2 % of 80 runs: a fifth of the
    tables; 5 % of the citable run's 30 (config/arena-full.yaml): a fifth too."""
    rates = _rates(1.1, stuck, seed=seed, n=n)
    none_stuck = (1 - stuck) ** n
    assert rates["two"][0] <= rates["one"][0] + _tolerance(rates["one"][0]), rates
    assert rates["one"][0] <= none_stuck + _tolerance(none_stuck), rates


def test_the_citable_design_keeps_the_stated_rate_for_well_behaved_runs() -> None:
    """The citable run's design (config/arena-full.yaml: 30 runs, the screen on 10): a cell at the margin with well
    behaved runs is called tied-best at most at the stated 2.5 % over both stages."""
    rates = _rates(1.1, 0.0, seed=21, n=CITABLE)
    assert rates["two"][0] <= NOMINAL + _tolerance(NOMINAL), rates


def test_the_power_at_5_and_15_percent_above_the_best() -> None:
    """A cell 5 % above the best (inside the margin) is called tied-best, one 15 % above
    (beyond it) worse, far more often than the one-stage rule over all twelve entrants manages
    (the issue measured 4 % with 10 entrants at 5 %), and as often as the rule on the two
    cells alone within the tolerance: the screen leaves about the family a perfect screen would."""
    near, far = _rates(1.05, 0.0, seed=24, everyone=True), _rates(1.15, 0.0, seed=25, everyone=True)
    assert near["two"][0] >= near["one"][0] - _tolerance(near["one"][0]), near
    assert far["two"][1] >= far["one"][1] - _tolerance(far["one"][1]), far
    assert near["two"][0] > near["all"][0] + _tolerance(near["all"][0]), near
    assert far["two"][1] > far["all"][1] + _tolerance(far["all"][1]), far
    assert near["contenders"] < 4 and far["contenders"] < 4, (near, far)
