"""``delayed-bandits bench``: what each row reports (its speed is measured by the command, never
asserted by a test)."""

from __future__ import annotations

from delayed_bandits import bench, cli
from delayed_bandits.arena import experiment as arena


def test_every_arena_kernel_is_set_against_uniform_play_and_its_floor(capsys) -> None:
    rows = bench.run(50, 1, 1, ("arena",))
    entrants = {e.id: e for e in arena.ALGORITHMS}
    readings = 1 + len(arena.BENCH_READINGS)
    settings = {"": arena.BENCH, **arena.BENCH_READINGS}
    assert len(rows) == sum(  # each entrant where it applies (Algorithm.applies), only there
        not e.applies(st) and not e.precondition(st)
        for st in settings.values()
        for e in entrants.values()
    )
    for row in rows:
        entrant = entrants[str(row["algorithm"]).split(" (")[0]]
        assert float(row["vs_uniform"]) > 0
        floored = entrant.base in (arena.TS, arena.KLUCB)
        assert ("floor" in row) == floored, row
        if floored:
            assert row["floor"] == entrant.base.name and float(row["vs_floor"]) > 0
    uniform = [r for r in rows if str(r["algorithm"]).startswith(bench.UNIFORM)]
    assert [r["vs_uniform"] for r in uniform] == [1.0] * readings


def test_a_paper_without_uniform_play_has_no_ratio_to_it(capsys) -> None:
    rows = bench.run(50, 1, 1, ("thune2019",))
    assert rows and all("vs_uniform" not in r and "floor" not in r for r in rows)
    assert (
        cli.main(["bench", "--paper", "thune2019", "--horizon", "50", "--replications", "1"]) == 0
    )
    out = capsys.readouterr().out
    assert "x uniform" in out and "slower than its base learner's floor" in out
