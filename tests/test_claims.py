"""The one rule every claim of the papers follows (``delayed_bandits.claims``): holds when the
measurement establishes the claim, fails when it establishes the opposite, inconclusive when it
cannot separate them; and a failing claim must say what may explain it."""

from __future__ import annotations

import pytest

from delayed_bandits import claims, papers
from delayed_bandits.claims import Claim, Point


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


def test_below_compares_two_curves_with_the_se_of_their_difference() -> None:
    low, high = Point(10.0, 3.0, 100), Point(20.0, 4.0, 100)  # difference 10 ± 5
    assert claims.below(low, high) is None  # exactly 2 SE
    assert claims.below(low, Point(20.1, 4.0, 100)) is True
    assert claims.below(Point(20.1, 4.0, 100), low) is False


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


def test_the_count_names_holds_fails_and_inconclusive() -> None:
    rows = [{"holds": True}, {"holds": False}, {"holds": None}, {"holds": True}]
    assert claims.count(rows) == (
        "2 of 4 reproductions hold, 1 fail, 1 inconclusive; 0 of 0 checks hold, 0 fail, "
        "0 inconclusive."
    )
    assert claims.count([{"holds": None, "kind": "check"}, *rows[:1]]) == (
        "1 of 1 reproductions hold, 0 fail, 0 inconclusive; 0 of 1 checks hold, 0 fail, "
        "1 inconclusive."
    )
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
