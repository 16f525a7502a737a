"""`delayed-bandits check-entrant NAME`: an entrant's kernel held to its reference policy over
whole runs of the arena's replications. A plug-in whose kernel peeks at what its policy is not
told, only late in a run (where the kernel test's few hundred rounds never look), is caught, with
the setting, the replication and the first round that differs; its faithful twin passes."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, FirstArm, plugin
from delayed_bandits import config as cfg
from delayed_bandits import environment, grid, seeds
from delayed_bandits.arena import check, experiment
from delayed_bandits.arena.entrants import from_policy
from delayed_bandits.cli import main

PEEK = 3000  # the round after which the peeking kernel reads the realisation's future
HORIZON = 4000
SETTINGS = ["geometric100-K10-small", "geometric100_censored-K10-small"]
TOY = f'''
    """Two toy entrants (tests): a greedy policy on the conversions seen, with a faithful numpy
    twin as its kernel, and the same policy with a kernel that peeks after round {PEEK}."""
    import numpy as np

    from delayed_bandits.arena.entrants import from_policy


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


    def twin(problem, mu, uniforms, delays, seed, peek=None):
        horizon, n_arms = uniforms.shape
        pulls, seen = np.zeros(n_arms), np.zeros(n_arms)
        arriving = np.zeros((horizon + 2, n_arms))
        actions = np.empty(horizon, dtype=np.int64)
        for t in range(1, horizon + 1):
            seen += arriving[t]
            arm = int(np.argmax((1 + seen) / (2 + pulls)))
            converts = uniforms[t - 1] < mu
            if peek is not None and t > peek and not converts[arm] and converts.any():
                arm = int(np.argmax(converts))  # the hidden draw says this one converts
            actions[t - 1] = arm
            pulls[arm] += 1
            arrival = t + int(delays[t - 1, arm]) + 1
            if converts[arm] and arrival <= horizon:
                arriving[arrival, arm] += 1
        return actions


    def peeking(problem, mu, uniforms, delays, seed):
        return twin(problem, mu, uniforms, delays, seed, peek={PEEK})


    ENTRANTS = [
        from_policy("toy-honest", "greedy (toy)", "greedy, its kernel a faithful twin", Greedy,
                    twin),
        from_policy("toy-peek", "greedy, peeking (toy)", "greedy, its kernel peeks late",
                    Greedy, peeking),
    ]
'''


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    folder = tmp_path_factory.mktemp("plugins") / "toy_check"
    return folder, plugin(folder, {"__init__.py": TOY})


def _check(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """``delayed-bandits check-entrant ARGS`` in the checkout (its config/config.yaml, the
    default), with the toy package named in ``$DELAYED_BANDITS_PAPERS``."""
    code = f"from delayed_bandits.cli import main; raise SystemExit(main({['check-entrant', *args]!r}))"
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )


def _first_difference(folder: Path, name: str, setting: str, replication: int) -> int:
    """The first round (1-based) where the toy entrant ``name``'s kernel and reference differ on
    the replication, drawn here as ``simulate.run_job`` draws it; 0 when they agree."""
    sys.path.insert(0, str(folder.parent))
    try:
        module = importlib.import_module(folder.name)
    finally:
        sys.path.remove(str(folder.parent))
    entrant = next(e for e in module.ENTRANTS if e.id == name)
    config = cfg.load([ROOT / "config" / "config.yaml"], "arena", None, "regret")
    fig = config["papers"]["arena"]["regret"]
    st = experiment.Setting.from_config(grid.settings(fig)[setting], setting)
    env_seed, policy_seed = seeds.replication_seeds(
        config["seed"], "arena", "regret", setting, replication
    )
    draw = experiment.draw_environment(env_seed, HORIZON, st)
    cp = environment.checkpoint_grid(HORIZON, 10)
    seed = seeds.as_int(policy_seed)
    kernel, reference = (
        runner(st, draw, cp, seed)[1] for runner in (entrant.kernel, entrant.reference)
    )
    differ = np.flatnonzero(kernel != reference)
    return int(differ[0]) + 1 if differ.size else 0


def test_a_kernel_that_peeks_late_is_caught_at_its_first_different_round(toy) -> None:
    folder, env = toy
    done = _check(env, "toy-peek", "--settings", *SETTINGS, "--horizon", str(HORIZON))
    assert done.returncode == 1, done.stderr
    assert "toy-peek" in done.stderr and "played differently" in done.stderr
    found = re.search(
        rf"^({'|'.join(SETTINGS)}): DIFFERS: entrant 'toy-peek', \1, replication (\d+): the "
        r"kernel played arm \d at round (\d+), the reference arm \d",
        done.stdout,
        re.MULTILINE,
    )
    assert found, done.stdout
    setting, replication, round_ = found[1], int(found[2]), int(found[3])
    assert PEEK < round_ <= HORIZON
    assert round_ == _first_difference(folder, "toy-peek", setting, replication)


def test_a_faithful_kernel_passes(toy) -> None:
    _, env = toy
    done = _check(env, "toy-honest", "--settings", *SETTINGS, "--horizon", str(HORIZON))
    assert done.returncode == 0, done.stderr
    for setting in SETTINGS:
        assert f"{setting}: same actions over {HORIZON} rounds in 2 replications" in done.stdout
    assert "took the same actions on 2 settings" in done.stdout


def test_an_unknown_entrant_is_named_with_the_known_ones(capsys) -> None:
    assert main(["check-entrant", "nope"]) == 2
    err = capsys.readouterr().err
    assert "entrant 'nope' is not one of the arena's: d-ucb" in err and ", ts," in err
    assert "$DELAYED_BANDITS_PAPERS" in err


def test_an_entrant_without_a_kernel_has_nothing_to_compare(monkeypatch, capsys) -> None:
    slow = from_policy("first-arm", "First arm", "the first arm", FirstArm)
    monkeypatch.setattr(experiment, "ALGORITHMS", [*experiment.ALGORITHMS, slow])
    assert not check.compared(slow) and slow.interpreted
    setting = "geometric100-K10-small"
    assert main(["check-entrant", "first-arm", "--settings", setting, "--horizon", "300"]) == 0
    out = capsys.readouterr().out
    assert "first-arm: its kernel is its reference, so there is nothing to compare" in out
    assert f"{setting}: same actions over 300 rounds in 1 replication" in out
    assert "plain Python" in out and "REFERENCE_STEPS_PER_SECOND" in out


def test_the_default_settings_cover_each_law_with_and_without_censoring_where_it_has_both() -> None:
    config = cfg.load([ROOT / "config" / "config.yaml"], "arena", None, "regret")
    fig = config["papers"]["arena"]["regret"]
    ts = next(e for e in experiment.ALGORITHMS if e.id == "ts")
    chosen = check.default_settings(fig, ts)
    settings = grid.settings(fig)

    def path(c: dict) -> tuple[str, bool, bool, float]:
        return c["delay"]["kind"], c["censored"], "zero_delay" in c, c["base_mean"]

    laws = {path(settings[s]) for s in chosen}
    # every (law, censoring, 0s' own law) the figure has: packet loss is censored only, the
    # reward-dependent regime geometric and uncensored
    assert laws == {path(c) for c in settings.values()}
    assert not any(law[:3] == ("packet_loss", False, False) for law in laws)
    assert ("geometric", False, True, 0.4) in laws and ("geometric", False, True, 0.02) in laws
    assert len(chosen) == len(laws) and all("-K10-" in s for s in chosen)
    # an entrant whose model excludes arm-dependent delays is checked where it applies
    dew = next(e for e in experiment.ALGORITHMS if e.id == "dew")
    assert not any(s.startswith("pareto_arm") for s in check.default_settings(fig, dew))
    with pytest.raises(ValueError, match="--settings: no setting of the figure is named 'nowhere'"):
        check.named_settings(fig, ["nowhere"], "--settings")
