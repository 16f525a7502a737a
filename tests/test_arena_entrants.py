"""Your own algorithm in the arena: a policy class from a package outside this one, named in
``$DELAYED_BANDITS_PAPERS`` and in a config overlay, runs on the arena's realisations and lands as
a row of the leaderboard and the heatmap; what an entrant declares is checked."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from conftest import BIN, copy_workflow, plugin
from delayed_bandits.papers.arena.entrants import Entrant, from_policy

TOY = '''
    """A toy arena entrant: epsilon-greedy on the conversions seen so far (tests)."""
    import numpy as np

    from delayed_bandits.papers.arena.entrants import from_policy


    class EpsilonGreedy:
        def __init__(self, problem, rng):
            self.rng = rng
            self.pulls = np.zeros(problem.n_arms)
            self.seen = np.zeros(problem.n_arms)

        def choose(self, t):
            if t <= len(self.pulls) or self.rng.random() < 0.1:
                return int(self.rng.integers(len(self.pulls)))
            return int(np.argmax(self.seen / self.pulls))

        def played(self, t, arm):
            self.pulls[arm] += 1

        def observe(self, s, arm, delay):
            self.seen[arm] += 1


    ENTRANTS = [from_policy("toy-greedy", "ε-greedy (toy)", "epsilon-greedy, epsilon = 0.1",
                            EpsilonGreedy)]
'''
OVERLAY = {
    "papers": {"arena": {"regret": {"algorithms": ["ucb1-matched", "ts", "toy-greedy", "uniform"]}}}
}


@pytest.fixture
def toy(tmp_path: Path) -> dict[str, str]:
    return plugin(tmp_path / "plugins" / "toy_entrant", {"__init__.py": TOY})


@pytest.mark.slow
def test_a_policy_from_outside_the_package_joins_the_arena(tmp_path: Path, toy: dict[str, str]):
    (tmp_path / "work").mkdir()
    work = copy_workflow(tmp_path / "work")
    (work / "mine.yaml").write_text(yaml.safe_dump(OVERLAY, allow_unicode=True))
    run = subprocess.run(
        [
            f"{BIN}/snakemake",
            "--cores",
            "2",
            "arena",
            "--configfile",
            "config/smoke.yaml",
            "mine.yaml",
        ],
        cwd=work,
        env=toy,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    board = pd.read_csv(work / "smoke/results/arena/regret/leaderboard.csv")
    mine = board[board.algorithm == "toy-greedy"]
    # a row per setting, horizon and comparison (it has no exploration constant: both)
    assert len(mine) == board.setting.nunique() * 2 * 2
    assert (mine.label == "ε-greedy (toy)").all() and mine.applicable.all()
    assert (mine.n_runs == 2).all() and (mine.regret > 0).all()
    assert (mine.knows == "nothing").all() and (mine.feedback == "arm-labelled").all()
    assert (work / "smoke/figures/arena-regret.png").stat().st_size > 20_000
    # it ran on the same replications as the others: same paired rows in the shards
    raw = pd.concat(
        pd.read_parquet(p)
        for p in (work / "smoke/results/arena/regret").glob("rep*-*[0-9].parquet")
    )
    last = raw[raw.t == raw.t.max()]
    reps = last.groupby("algorithm").replication.apply(lambda r: tuple(sorted(r)))
    assert reps.nunique() == 1


def test_an_entrant_taking_a_built_in_id_is_refused(tmp_path: Path, toy: dict[str, str]):
    folder = tmp_path / "plugins" / "toy_entrant"
    (folder / "__init__.py").write_text(
        textwrap.dedent(TOY).lstrip().replace('"toy-greedy"', '"ts"')
    )
    run = subprocess.run(
        [sys.executable, "-c", "import delayed_bandits.papers.arena.experiment"],
        env=toy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "arena algorithm ids ['ts'] are declared twice" in run.stderr


class _First:
    def __init__(self, problem, rng):
        pass

    def choose(self, t):
        return 0

    def played(self, t, arm):
        pass

    def observe(self, s, arm, delay):
        pass


def test_an_entrant_declares_feedback_and_fields_it_can_have() -> None:
    with pytest.raises(ValueError, match="feedback 'psychic' is not one of arm-labelled"):
        from_policy("x", "X", "x", _First, feedback="psychic")
    with pytest.raises(ValueError, match="fields .* must be some of matched, published"):
        from_policy("x", "X", "x", _First, fields=("best",))
    entrant = from_policy("x", "X", "x", _First)
    assert isinstance(entrant, Entrant) and entrant.kernel is entrant.reference


def test_a_policy_runs_on_the_replications_draw() -> None:
    from delayed_bandits.papers.arena import experiment as arena

    raw = {
        "n_arms": 4,
        "gap": 0.2,
        "base_mean": 0.4,
        "window": 20,
        "censored": False,
        "alpha_tilde": 0.5,
        "delay": {"kind": "geometric", "mean": 5},
    }
    st = arena.Setting.from_config(raw, "x")
    draw = arena.draw_environment(np.random.SeedSequence(3), 100, st)
    entrant = from_policy("x", "X", "x", _First)
    regret, actions, _ = entrant.reference(st, draw, np.array([50, 100]), 0)
    assert (actions == 0).all()
    gap = 0.0 if draw.setting.best == 0 else 0.2
    np.testing.assert_allclose(regret, [50 * gap, 100 * gap])
