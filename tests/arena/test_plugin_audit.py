"""A plug-in's kernel is held to its policy where it runs: the two peeking plug-ins that
once passed, one that reads hidden outcomes after round 25,000 and one that does only when the
means are below 0.1, are refused by default: by the simulation job (replication 0 of each setting
at the setting's horizon, ``simulate.audit``) and by ``check-entrant``'s defaults (both base rates,
the full-scale horizon). Probes of docs/auditing.md's tally."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Iterator

import numpy as np
import pytest

from conftest import ROOT
from delayed_bandits import config as cfg
from delayed_bandits import grid, papers, simulate
from delayed_bandits.arena import check, experiment
from delayed_bandits.arena import cli as arena_cli
from delayed_bandits.arena.entrants import from_policy
from delayed_bandits.errors import ConfigError

LATE = 25_000  # the round after which the late peeker reads hidden outcomes
LOW = 0.1  # the mean below which the low peeker reads them
FULL = [ROOT / path for path in arena_cli.CHECKED_CONFIG]
HIGH_RATE, LOW_RATE = "geometric100-K10-small", "geometric100-K10-low_large"


class Greedy:
    """The highest (1 + conversions seen) / (2 + pulls), the lowest index on ties."""

    def __init__(self, problem, rng):
        self.pulls = np.zeros(problem.n_arms)
        self.seen = np.zeros(problem.n_arms)

    def choose(self, t):
        return int(np.argmax((1 + self.seen) / (2 + self.pulls)))

    def played(self, t, arm):
        self.pulls[arm] += 1

    def observe(self, s, arm, delay):
        self.seen[arm] += 1


def _twin(problem, mu, uniforms, delays, seed, peeks=lambda t, mu: False):
    """Greedy's kernel: its actions, but where ``peeks(t, mu)`` the arm the hidden draw says
    converts."""
    horizon, n_arms = uniforms.shape
    pulls, seen = np.zeros(n_arms), np.zeros(n_arms)
    arriving = np.zeros((horizon + 2, n_arms))
    actions = np.empty(horizon, dtype=np.int64)
    for t in range(1, horizon + 1):
        seen += arriving[t]
        arm = int(np.argmax((1 + seen) / (2 + pulls)))
        converts = uniforms[t - 1] < mu
        if peeks(t, mu) and not converts[arm] and converts.any():
            arm = int(np.argmax(converts))
        actions[t - 1] = arm
        pulls[arm] += 1
        arrival = t + int(delays[t - 1, arm]) + 1
        if converts[arm] and arrival <= horizon:
            arriving[arrival, arm] += 1
    return actions


def _late(problem, mu, uniforms, delays, seed):
    return _twin(problem, mu, uniforms, delays, seed, lambda t, mu: t > LATE)


def _low(problem, mu, uniforms, delays, seed):
    return _twin(problem, mu, uniforms, delays, seed, lambda t, mu: float(mu.min()) < LOW)


PLUG_INS = {
    "peek-late": _late,
    "peek-low": _low,
    "honest": _twin,
}


@pytest.fixture
def plugged(monkeypatch) -> Iterator[dict[str, object]]:
    """The three entrants as ``$DELAYED_BANDITS_PAPERS`` would bring them (``_plugged_in``)."""
    module = SimpleNamespace(
        ENTRANTS=[from_policy(n, n, "greedy (toy)", Greedy, k) for n, k in PLUG_INS.items()]
    )
    monkeypatch.setattr(papers, "plugins", lambda: [module])
    found = experiment._plugged_in()
    monkeypatch.setattr(experiment, "ALGORITHMS", [*experiment.BUILT_IN, *found])
    # the schema's algorithm enums are cached from the registry: an earlier test in this process
    # may have filled them without the plug-ins
    cfg.schemas.cache_clear()
    yield {e.id: e for e in found}
    cfg.schemas.cache_clear()


def _job(name: str, setting: str) -> None:
    """Replication 0 of ``name`` on ``setting`` of the full-scale arena, as its job runs it."""
    override = {"papers": {"arena": {"regret": {"algorithms": [name]}}}}
    config = cfg.load(FULL, "arena", override, "regret")
    simulate.run_job(config, "arena", "regret", [setting], [name], 0, 0)


def test_plug_ins_are_audited_and_built_in_entrants_are_not(plugged) -> None:
    assert all(e.audited for e in plugged.values())
    assert not any(e.audited for e in experiment.BUILT_IN)


@pytest.mark.probe("entrants")
@pytest.mark.parametrize(("name", "setting"), [("peek-late", HIGH_RATE), ("peek-low", LOW_RATE)])
def test_a_peeking_plug_in_is_refused_by_its_job(probe, plugged, name, setting) -> None:
    with probe.refused(ConfigError, f"entrant {name!r}: its kernel played arm"):
        _job(name, setting)


@pytest.mark.slow  # two runs of 100,000 rounds in plain Python: the end-to-end tier's
def test_a_faithful_plug_in_and_a_peeker_where_it_does_not_peek_pass(plugged) -> None:
    """The audit compares, it does not refuse plug-ins: the low peeker plays its policy at the
    base rate 0.4, so every setting is audited, not one."""
    _job("honest", LOW_RATE)
    _job("peek-low", HIGH_RATE)


def test_check_entrants_defaults_reach_both_peekers(plugged) -> None:
    """Its defaults: the full-scale config's horizon, past the late peeker's round, and settings
    at each base rate, among them one below the low peeker's mean."""
    config = cfg.load(FULL, "arena", None, "regret")
    fig = config["papers"]["arena"]["regret"]
    chosen = check.default_settings(fig, plugged["peek-low"])
    settings = grid.settings(fig)
    assert min(grid.horizon(fig, settings[s]) for s in chosen) > LATE
    rates = {float(settings[s]["base_mean"]) for s in chosen}
    assert rates == {float(c["base_mean"]) for c in settings.values()}
    assert min(rates) < LOW
    assert [Path(p) for p in arena_cli.CHECKED_CONFIG] == [
        Path("config/config.yaml"),
        Path("config/arena-full.yaml"),
    ]
