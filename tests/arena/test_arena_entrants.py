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

from conftest import BIN, FirstArm, arena_draw, copy_workflow, plugin
from delayed_bandits import config
from delayed_bandits.arena.entrants import (
    ANONYMOUS,
    LABELLED,
    SETTLED,
    Entrant,
    from_policy,
)

TOY = '''
    """A toy arena entrant: epsilon-greedy on the conversions seen so far (tests)."""
    import numpy as np

    from delayed_bandits.arena.entrants import LABELLED, from_policy
    from delayed_bandits.papers.pikeburke2018.policies import QPMD, UCBBase


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


    class Greedy:
        """Labelled outcomes: the mean of every outcome seen, 0s included."""

        def __init__(self, problem, rng):
            self.seen = np.zeros(problem.n_arms)
            self.total = np.zeros(problem.n_arms)

        def choose(self, t):
            unseen = np.flatnonzero(self.seen == 0)
            return int(unseen[0]) if len(unseen) else int(np.argmax(self.total / self.seen))

        def played(self, t, arm):
            pass

        def observe_outcome(self, s, arm, reward, delay):
            self.seen[arm] += 1
            self.total[arm] += reward


    class Greediest(UCBBase):
        """A base for QPM-D: each arm once, then the best mean."""

        def choose(self):
            if 0 in self.counts:
                return self.counts.index(0)
            return int(np.argmax(np.array(self.sums) / np.array(self.counts)))


    ENTRANTS = [
        from_policy("toy-greedy", "ε-greedy (toy)", "epsilon-greedy, epsilon = 0.1",
                    EpsilonGreedy),
        from_policy("toy-labelled", "greedy (toy)", "greedy on labelled outcomes", Greedy,
                    information=LABELLED),
        from_policy("toy-qpmd", "QPM-D over greedy (toy)", "QPM-D over a greedy base",
                    lambda problem, rng: QPMD(Greediest(problem.n_arms)), information=LABELLED),
    ]
'''
MINE = ["toy-greedy", "toy-labelled", "toy-qpmd"]
OVERLAY = {
    "papers": {
        "arena": {
            "regret": {"algorithms": ["ucb1-matched", "qpm-d-matched", "ts", *MINE, "uniform"]}
        }
    }
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
    mine = board[board.algorithm.isin(MINE)]
    # a row per setting, horizon and comparison (it has no exploration constant: both)
    assert len(mine) == board.setting.nunique() * 2 * 2 * len(MINE)
    assert (mine[mine.algorithm == "toy-greedy"].label == "ε-greedy (toy)").all()
    # every run where the screen let it contend, the screen's runs where it stopped it
    fig = config.load(["config/config.yaml", "config/smoke.yaml"], "arena")["papers"]["arena"]
    stages = {fig["regret"]["statistics"]["screen_runs"], fig["regret"]["replications"]}
    assert mine.applicable.all() and mine.n_runs.isin(stages).all() and (mine.regret > 0).all()
    assert (mine.knows == "nothing").all()
    models = mine.drop_duplicates("algorithm").set_index("algorithm").information
    assert models.to_dict() == {
        "toy-greedy": "conversions",
        "toy-labelled": "labelled outcomes (oracle)",
        "toy-qpmd": "labelled outcomes (oracle)",
    }
    # ranked within its model: the labelled ones against QPM-D, not against TS
    at_t = board[(board.horizon == board.horizon.max()) & (board.field == "matched")]
    labelled = at_t[at_t.information == "labelled outcomes (oracle)"]
    assert set(labelled.algorithm) == {"qpm-d-matched", "toy-labelled", "toy-qpmd"}
    # one of them is the model's best in every setting (ratio 1); a member the screen stopped
    # in its model on the screen's runs is judged against the model's contenders, so its ratio
    # may fall below 1 where its pooled runs end lower (docs/decisions/arena.md#screening)
    assert labelled.groupby("setting").model_ratio.apply(lambda r: (r == 1.0).any()).all()
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
        [sys.executable, "-c", "import delayed_bandits.arena.experiment"],
        env=toy,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode != 0
    assert "arena algorithm ids ['ts'] are declared twice" in run.stderr


def test_an_entrant_declares_information_and_fields_it_can_have() -> None:
    with pytest.raises(ValueError, match="information 'psychic' is not one of conversions"):
        Entrant("x", "X", "x", FirstArm, FirstArm, information="psychic")
    with pytest.raises(ValueError, match="a policy class observes one of conversions"):
        from_policy("x", "X", "x", FirstArm, information=ANONYMOUS)
    with pytest.raises(ValueError, match="fields .* must be some of matched, published"):
        from_policy("x", "X", "x", FirstArm, fields=("best",))
    entrant = from_policy("x", "X", "x", FirstArm)
    assert isinstance(entrant, Entrant) and entrant.kernel is entrant.reference


def test_a_policy_runs_on_the_replications_draw() -> None:
    st, draw = arena_draw(3, 100)
    entrant = from_policy("x", "X", "x", FirstArm)
    regret, actions, _ = entrant.reference(st, draw, np.array([50, 100]), 0)
    assert (actions == 0).all()
    gap = 0.0 if draw.setting.best == 0 else 0.2
    np.testing.assert_allclose(regret, [50 * gap, 100 * gap])


class _Recorder(FirstArm):
    """Plays arm 0 and records every outcome it is told (labelled or settled model)."""

    seen: list[tuple[int, int, float, int]]

    def __init__(self, problem, rng):
        self.seen, self.t = [], 0
        _Recorder.last = self

    def choose(self, t):
        self.t = t
        return 0

    def observe_outcome(self, s, arm, reward, delay):
        self.seen.append((self.t + 1, s, reward, delay))


@pytest.mark.parametrize("information", [LABELLED, SETTLED])
@pytest.mark.parametrize("censored", [False, True])
def test_an_outcome_policy_is_told_every_outcome_when_it_is_known(information, censored) -> None:
    """Labelled: every pull's 0 or 1 at s + D + 1, under censoring at s + min(D, m) + 1 with a
    conversion later than m a 0; settled: a conversion within m at s + D + 1, every other pull a
    0 at s + m + 1, with or without censoring (``arena.observe``). Each outcome is the
    realisation's, so 0s arrive too."""
    horizon = 300
    st, draw = arena_draw(5, horizon, n_arms=2, window=6, censored=censored)
    entrant = from_policy("x", "X", "x", _Recorder, information=information)
    entrant.reference(st, draw, np.array([horizon]), 0)
    seen = _Recorder.last.seen
    mu, u, d = draw.setting.mu[0], draw.realisation.uniforms[:, 0], draw.realisation.delays[:, 0]
    expected = []
    for s in range(1, horizon + 1):
        late = d[s - 1] > 6
        reward = float(u[s - 1] < mu and not (late and (censored or information == SETTLED)))
        if information == SETTLED:
            wait = int(d[s - 1]) if reward else 6
        else:
            wait = min(int(d[s - 1]), 6) if censored else int(d[s - 1])
        if s + wait + 1 <= horizon:
            expected.append((s + wait + 1, s, reward, wait))
    assert sorted(seen) == sorted(expected)
    assert {r for _, _, r, _ in seen} == {0.0, 1.0}
