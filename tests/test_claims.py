"""The one rule every claim of the papers follows (``delayed_bandits.claims``): holds when the
measurement establishes the claim, fails when it establishes the opposite, inconclusive when it
cannot separate them; and a failing claim must say what may explain it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from delayed_bandits import claims, papers
from delayed_bandits.claims import Claim


@pytest.mark.parametrize(
    "effect,se,expected",
    [
        (5.0, 2.0, True),  # 2.5 SE
        (4.0, 2.0, None),  # exactly 2 SE: not more
        (1.0, 2.0, None),
        (-4.0, 2.0, None),
        (-4.1, 2.0, False),
        (0.1, 0.0, True),  # an exact quantity
        (0.0, 0.0, None),
        (-0.1, 0.0, False),
    ],
)
def test_verdict_needs_two_standard_errors_either_way(effect, se, expected) -> None:
    assert claims.verdict(effect, se) is expected


@pytest.mark.parametrize(
    "value,se,expected",
    [(1.0, 0.1, True), (0.15, 0.1, None), (1.85, 0.1, None), (-0.3, 0.1, False), (2.3, 0.1, False)],
)
def test_within_an_interval_at_two_standard_errors(value, se, expected) -> None:
    assert claims.within(value, se, 0.0, 2.0) is expected


@pytest.mark.parametrize(
    "parts,expected",
    [([True, True], True), ([True, None], None), ([None, False], False), ([True, False], False)],
)
def test_every_fails_on_one_failure_and_holds_only_when_all_hold(parts, expected) -> None:
    assert claims.every(parts) is expected


def test_check_refuses_a_failing_claim_without_a_note(monkeypatch) -> None:
    paper = papers.get("vernade2017")
    silent = Claim("c", "s", "ref", "m", "e", False)
    monkeypatch.setattr(type(paper), "checks", lambda self: {"fig1": lambda t, f: [silent]})
    with pytest.raises(ValueError, match="failing claim.*c without a note"):
        claims.check("vernade2017", "fig1", {}, {})
    explained = Claim("c", "s", "ref", "m", "e", False, "what may explain it")
    inconclusive = Claim("d", "s", "ref", "m", "e", None)
    monkeypatch.setattr(
        type(paper), "checks", lambda self: {"fig1": lambda t, f: [explained, inconclusive]}
    )
    assert claims.check("vernade2017", "fig1", {}, {}) == [explained, inconclusive]


def test_the_count_gives_reproductions_and_checks_apart() -> None:
    rows = [
        {"holds": True, "kind": "reproduction"},
        {"holds": False, "kind": "reproduction"},
        {"holds": None, "kind": "reproduction"},
        {"holds": True},  # a file written before kinds: a reproduction
        {"holds": True, "kind": "check"},
    ]
    assert claims.count(rows) == (
        "2 of 4 reproductions hold, 1 fail, 1 inconclusive; "
        "1 of 1 checks hold, 0 fail, 0 inconclusive."
    )
    assert claims.count([]) == (
        "0 of 0 reproductions hold, 0 fail, 0 inconclusive; "
        "0 of 0 checks hold, 0 fail, 0 inconclusive."
    )


def test_a_claim_of_no_known_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="claim c: kind 'sanity' is not one of"):
        Claim("c", "s", "ref", "m", "e", True, kind="sanity")


def _report(tmp_path: Path) -> tuple[str, str]:
    """claims.md and the HTML page of one figure: a reproduction that holds, one inconclusive
    with the runs it needs, one that fails, and a check."""
    found = [
        Claim("a", "A ends below B", "Fig. 1", "3.0 ± 1.0", "> 0", True),
        Claim("b", "B ends below C", "Fig. 1", "1.0 ± 1.0", "> 0", None, runs_needed=1201),
        Claim("c", "C ends below D", "Fig. 1", "-3.0 ± 1.0", "> 0", False, "the delays"),
        Claim("d", "phase 2 is a round robin", "Alg. 1", "exact", "exact", True, kind="check"),
    ]
    path = tmp_path / "vernade2017" / "fig1" / "claims.json"
    path.parent.mkdir(parents=True)
    path.write_text(claims.to_json(found))
    return claims.to_markdown([path], "smoke"), claims.to_html(found, "Claims of fig1")


def test_claims_md_counts_and_lists_reproductions_and_checks_apart(tmp_path: Path) -> None:
    report, _ = _report(tmp_path)
    lines = report.splitlines()
    headline = (
        "1 of 3 reproductions hold, 1 fail, 1 inconclusive; "
        "1 of 1 checks hold, 0 fail, 0 inconclusive."
    )
    assert lines[2] == headline  # the headline, then the scale
    assert lines.count(headline) == 2  # and again over the figure's own table
    assert "| claim | kind | paper | measured | expected | holds | runs needed | note |" in lines
    assert "| A ends below B | reproduction | Fig. 1 | 3.0 ± 1.0 | > 0 | yes |  |  |" in lines
    assert (
        "| B ends below C | reproduction | Fig. 1 | 1.0 ± 1.0 | > 0 | inconclusive | 1,201 |  |"
        in (lines)
    )
    assert (
        "| C ends below D | reproduction | Fig. 1 | -3.0 ± 1.0 | > 0 | **NO** |  | the delays |"
        in (lines)
    )
    assert "| phase 2 is a round robin | check | Alg. 1 | exact | exact | yes |  |  |" in lines


def test_the_scale_line_names_a_subset_and_is_unchanged_for_a_complete_run(
    tmp_path: Path,
) -> None:
    _report(tmp_path)
    path = tmp_path / "vernade2017" / "fig1" / "claims.json"
    fig = {"settings": {"a": {}, "b": {}, "c": {}}}
    complete = claims.to_markdown([path], "paper", {"vernade2017 fig1": fig})
    assert complete == claims.to_markdown([path], "paper")
    assert "Scale: **paper** (the papers' horizons and replication counts)." in complete
    subset = claims.to_markdown([path], "paper", {"vernade2017 fig1": {**fig, "only": ["b"]}})
    assert (
        "Scale: **paper scale, a subset: 1 of 3 settings (only: b)** (the papers' horizons and "
        "replication counts)." in subset
    )
    smoke = claims.to_markdown([path], "smoke", {"vernade2017 fig1": {**fig, "only": ["a", "c"]}})
    assert "Scale: **smoke scale, a subset: 2 of 3 settings (only: a, c)** (not the paper" in smoke


def test_the_html_page_counts_apart_and_gives_kinds_and_runs_needed(tmp_path: Path) -> None:
    _, page = _report(tmp_path)
    assert "<p>1 of 3 reproductions hold, 1 fail, 1 inconclusive; 1 of 1 checks hold" in page
    assert "<th>kind</th>" in page and "<th>runs needed</th>" in page
    assert "<td>inconclusive</td><td>1,201</td>" in page
    assert "<td>check</td>" in page


def test_the_arenas_claims_are_its_own_counted_apart_with_no_paper(tmp_path: Path) -> None:
    _report(tmp_path)
    paper = tmp_path / "vernade2017" / "fig1" / "claims.json"
    arena = tmp_path / "arena" / "regret" / "claims.json"
    arena.parent.mkdir(parents=True)
    own = [Claim("w", "d-TS is tied-best", "ours", "2 of 5", "> half", False, "x")]
    arena.write_text(claims.to_json(own))
    lines = claims.to_markdown([paper, arena], "smoke").splitlines()
    # the papers' count alone heads the page, the arena's apart, in its own words
    assert lines[2] == (
        "1 of 3 reproductions hold, 1 fail, 1 inconclusive; "
        "1 of 1 checks hold, 0 fail, 0 inconclusive."
    )
    assert lines[4].startswith("Scale: **smoke**")  # then the arena's, apart
    assert lines[6] == (
        "The arena's own claims, counted apart (no paper makes them): "
        "0 of 1 own claims hold, 1 fail, 0 inconclusive."
    )
    at = lines.index("## arena regret (the arena's own claims: no paper makes them)")
    assert lines[at + 2] == "0 of 1 own claims hold, 1 fail, 0 inconclusive."
    assert lines[at + 4] == "| claim | measured | expected | holds | runs needed | note |"
    assert lines[at + 6] == "| d-TS is tied-best | 2 of 5 | > half | **NO** |  | x |"
    page = claims.to_html(own, "Claims of arena regret", own=True)
    assert "<p>0 of 1 own claims hold" in page and "reproduction" not in page
    assert "<th>paper</th>" not in page and "<th>kind</th>" not in page


def test_paired_takes_the_se_of_per_run_differences_on_correlated_runs() -> None:
    """Two curves of the same runs share their environment (sd 10), each adding its own noise
    (sd 1): the SE of the mean difference is that of the per-run differences, sqrt(2 / n), about
    ten times below the SE that treats the curves as independent."""
    n = 400
    rng = np.random.default_rng(39)
    shared = rng.normal(0.0, 10.0, n)
    runs = pd.Index(range(n), name="replication")
    x = pd.Series(shared + rng.normal(1.0, 1.0, n), index=runs)
    y = pd.Series(shared + rng.normal(0.0, 1.0, n), index=runs)
    found = claims.paired(x, y)
    assert found.n == n
    assert found.se == pytest.approx(np.std(x - y, ddof=1) / np.sqrt(n), rel=1e-12)
    # the true SE, within 3 SE of an SE (a sample SD's relative SE is 1 / sqrt(2 (n - 1)))
    true_se = np.sqrt(2 / n)
    assert abs(found.se - true_se) < 3 * true_se / np.sqrt(2 * (n - 1))
    assert abs(found.mean - 1.0) < 3 * true_se
    independent = float(np.hypot(x.sem(), y.sem()))  # the curves taken as independent
    assert found.se < independent / 5  # the true ratio is sqrt(202 / 2), about 10
    assert claims.verdict(found.mean, found.se) is True  # 1 at about 14 paired SE
    assert claims.verdict(x.mean() - y.mean(), independent) is None  # hidden when unpaired
    # a statistic of one curve, scaled, and runs that do not match
    assert claims.paired(x, scale=2.0).mean == pytest.approx(2 * x.mean())
    with pytest.raises(ValueError, match="the same replications"):
        claims.paired(x, y.iloc[1:])
    with pytest.raises(ValueError, match="at least 2 runs"):
        claims.paired(x.iloc[:1])


def test_per_run_takes_each_runs_regret_at_the_last_checkpoint_up_to_t() -> None:
    runs = pd.DataFrame(
        [("s", "a", r, t, 10.0 * r + t) for r in (1, 0) for t in (5, 10)],
        columns=["setting", "algorithm", "replication", "t", "regret"],
    )
    assert claims.per_run(runs, "s", "a").to_dict() == {0: 10.0, 1: 20.0}
    assert claims.per_run(runs, "s", "a", t=7).to_dict() == {0: 5.0, 1: 15.0}
    with pytest.raises(KeyError, match="no runs for s/b"):
        claims.per_run(runs, "s", "b")


@pytest.mark.parametrize(
    "effect,se,n,needed",
    [
        (1.0, 1.0, 100, 401),  # at 400 runs the effect would be exactly 2 SE: not more
        (-1.0, 1.0, 100, 401),  # either sign
        (0.5, 1.0, 100, 1601),
        (3.0, 1.0, 100, 100),  # already established: the runs there are
        (0.0, 1.0, 100, None),  # no run count resolves an effect of exactly 0
    ],
)
def test_runs_needed_are_the_fewest_that_establish_the_effect(effect, se, n, needed) -> None:
    assert claims.runs_needed(effect, se, n) == needed
    if needed is not None and needed > n:
        # the SE shrinks as 1 / sqrt(runs)
        assert claims.verdict(effect, se * np.sqrt(n / needed)) is (effect > 0)
        assert claims.verdict(effect, se * np.sqrt(n / (needed - 1))) is None


def test_tally_counts_verdicts_by_kind() -> None:
    assert claims.tally([("check", "fails"), ("reproduction", "holds")]) == {
        "reproduction": {"holds": 1, "fails": 0, "inconclusive": 0},
        "check": {"holds": 0, "fails": 1, "inconclusive": 0},
    }


@pytest.mark.parametrize(
    "value,above,expected",
    [(0.9, True, True), (0.8, True, True), (0.7, True, None), (0.6, True, False)]
    + [(0.3, False, True), (0.6, False, True), (0.79, False, None), (0.8, False, False)],
)
def test_a_claims_own_test_with_an_inconclusive_band(value, above, expected) -> None:
    assert claims.band(value, 0.6, 0.8, above) is expected


def test_log_mean_gives_a_ratio_of_paired_means_its_delta_method_se() -> None:
    """Two curves of the same runs, correlated through a shared run level: the per-run values of
    ln(mean x) - ln(mean y) average to the log of the ratio of means, and their SE matches the
    spread of that log ratio over 2000 repeated experiments, within 11%: 2 SE of the comparison,
    whose relative SE is about 5% for an SE from 200 runs and 1.6% for an SD from 2000 draws.
    Treating the curves as independent would overstate it about 6-fold (0.010 against 0.0016)."""
    import math

    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(39)

    def experiment(n: int = 200) -> tuple[pd.Series, pd.Series]:
        level = rng.normal(0.0, 10.0, n)
        return (
            pd.Series(100 + level + rng.normal(0.0, 1.0, n)),
            pd.Series(50 + 0.5 * level + rng.normal(0.0, 1.0, n)),
        )

    x, y = experiment()
    stat = claims.paired(claims.log_mean(x), claims.log_mean(y))
    assert stat.mean == pytest.approx(math.log(x.mean() / y.mean()), abs=1e-12)
    spread = np.std(
        [math.log(a.mean() / b.mean()) for a, b in map(lambda _: experiment(), range(2000))]
    )
    assert stat.se == pytest.approx(spread, rel=0.11)
    independent = math.hypot(x.sem() / x.mean(), y.sem() / y.mean())
    assert independent > 5 * stat.se
    with pytest.raises(ValueError, match="positive mean"):
        claims.log_mean(pd.Series([-1.0, 0.5]))


def test_ratio_of_the_same_runs_has_the_delta_method_se_of_paired_runs() -> None:
    """x = 2 y + small noise, run by run: the ratio's SE from the runs is the noise's alone, far
    below what treating the means as independent gives (fixed seed; the SE of the SE over 4000
    runs is about 1 %, so 5 % bounds it)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(3)
    n = 4000
    y = pd.Series(rng.normal(100.0, 20.0, n))
    noise = rng.normal(0.0, 1.0, n)
    x = 2.0 * y + noise
    found = claims.ratio(x, y)
    assert found.n == n
    assert found.mean == pytest.approx(x.mean() / y.mean())
    # (x - r y) / mean(y) is noise / 100 up to the mean's drift: SE 1 / (100 sqrt(n))
    assert found.se == pytest.approx(1.0 / (100.0 * n**0.5), rel=0.05)
    independent = found.mean * np.hypot(x.std() / x.mean(), y.std() / y.mean()) / n**0.5
    assert independent > 20 * found.se


@pytest.mark.parametrize(
    "holds,parts,expected",
    [
        (True, [(1.0, 1.0, 100)], None),  # decided: no runs needed
        (None, [(1.0, 1.0, 100)], 401),  # 2 SE < 1 needs the SE below half: over 4 times the runs
        (None, [(1.0, 1.0, 100), (3.0, 1.0, 100)], 401),  # the established part needs none
        (None, [(1.0, 1.0, 100), (0.5, 1.0, 100)], 1601),  # the weaker part decides
        (None, [(0.0, 1.0, 100)], None),  # an effect of exactly 0: no run count resolves it
    ],
)
def test_runs_needed_by_an_inconclusive_claim_of_paired_parts(holds, parts, expected) -> None:
    assert claims.needed(holds, [claims.Paired(*p) for p in parts]) == expected
