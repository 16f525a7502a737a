"""Every table is verified when it is read, and every result is bound to the config that made it:
a changed digit or a lost row of a CSV table is refused, naming the file and how to regenerate it; a shard or table made by another config (seed 8 over seed 7) is refused
by every reader; ``verify`` finds a missing file without a manifest, and refuses links, devices,
a manifest that is a directory and manifest lines that leave the run.

One tiny figure (Vernade et al. 2017, Figure 2: its two settings, the two arrival conventions of
config/smoke.yaml, horizon 300, 3 runs) is simulated in process, once per seed, for the module."""

from __future__ import annotations

import contextlib
import io
import shutil
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pytest
import yaml

from conftest import CONFIG, SMOKE
from delayed_bandits import tables
from delayed_bandits.aggregate import RATIO_COLUMNS
from delayed_bandits.arena.leaderboard import COLUMNS as LEADERBOARD_COLUMNS
from delayed_bandits.cli import main
from delayed_bandits.tables import Binding

PAPER, FIGURE = "vernade2017", "fig2"
FIG_DIR = Path("results") / PAPER / FIGURE
ALGORITHMS = ["d-ucb", "d-klucb", "discarding-ucb", "discarding-klucb"]  # config/config.yaml's
SETTINGS = ["thetaL", "thetaL-same-round"]  # config/smoke.yaml's: a summary's record binds both
TINY = {
    "shard_size": 3,
    "papers": {
        PAPER: {
            FIGURE: {
                "horizon": 300,
                "replications": 3,
                "checkpoints": 10,
            }
        }
    },
}


def _main(argv: list[str]) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(argv)
    return code, err.getvalue()


@dataclass(frozen=True)
class Run:
    """A tiny run of one seed: its folder and config files."""

    top: Path
    config: list[str]

    @property
    def figure(self) -> Path:
        return self.top / FIG_DIR

    def args(self) -> list[str]:
        return ["--config", *self.config, "--paper", PAPER, "--figure", FIGURE]


def _run(top: Path, seed: int) -> Run:
    overlay = top / "tiny.yaml"
    top.mkdir(parents=True)
    # its own scale: the run is in <scale>/ of the folder it was made in, as the workflow lays it
    overlay.write_text(yaml.safe_dump({**TINY, "seed": seed, "scale": top.name}))
    run = Run(top, [str(CONFIG), str(SMOKE), str(overlay)])
    shard, events = run.figure / "rep0-2.parquet", run.figure / "rep0-2.events.parquet"
    code, err = _main(
        ["simulate", *run.args(), "--setting", *SETTINGS, "--algorithm", *ALGORITHMS]
        + ["--reps", "0-2", "--out", str(shard), "--events", str(events)]
    )
    assert code == 0, err
    code, err = _main(
        ["aggregate", *run.args(), "--out", str(run.figure / "summary.csv"), str(shard)]
    )
    assert code == 0, err
    return run


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Run]:
    base = tmp_path_factory.mktemp("bound")
    return {seed: _run(base / f"seed{seed}", seed) for seed in (7, 8)}


@pytest.fixture
def run7(runs: dict[int, Run], tmp_path: Path) -> Run:
    """A fresh copy of the seed-7 run, for a test to damage."""
    shutil.copytree(runs[7].top, tmp_path / "seed7")
    config = [str(tmp_path / "seed7" / Path(c).name) if "tiny" in c else c for c in runs[7].config]
    return Run(tmp_path / "seed7", config)


def _claims_and_plot(run: Run, tmp_path: Path) -> list[tuple[int, str]]:
    """Claims (which read every run besides the summary: ``--shards``) and plot, on the run's
    summary."""
    tables_given = ["--summary", str(run.figure / "summary.csv")]
    runs_given = ["--shards", str(run.figure / "rep0-2.parquet")]
    return [
        _main(
            ["claims", *run.args(), *tables_given, *runs_given, "--out", str(tmp_path / "c.json")]
        ),
        _main(["plot", *run.args(), *tables_given, "--out", str(tmp_path / "f.png")]),
    ]


# 1. Every table verified on read ---------------------------------------------------------------


def test_each_table_records_its_sha256_and_binding(runs: dict[int, Run]) -> None:
    record = yaml.safe_load(tables.sidecar_path(runs[7].figure / "summary.csv").read_text())
    assert record["binding"]["seed"] == 7 and sorted(record["binding"]["curves"]) == sorted(
        f"{s}/{a}" for s in SETTINGS for a in ALGORITHMS
    )
    seven, eight = (
        yaml.safe_load(tables.sidecar_path(r.figure / "summary.csv").read_text())
        for r in runs.values()
    )
    assert seven["binding"]["curves"] != eight["binding"]["curves"]


@pytest.mark.probe("faults")
def test_a_flipped_bit_in_a_summary_is_refused(run7: Run, tmp_path: Path) -> None:
    """One bit turns a digit 1 into a 9 (17.41 into 97.41): the summary still parses, and was
    read before; now claims and plot refuse it, naming it and how to regenerate it."""
    summary = run7.figure / "summary.csv"
    assert all(code == 0 for code, _ in _claims_and_plot(run7, tmp_path))
    data = bytearray(summary.read_bytes())
    at = data.index(b"1", data.index(b"\n"))  # a digit of the first row's numbers
    data[at] ^= 0x08  # "1" (0x31) -> "9" (0x39)
    summary.write_bytes(bytes(data))
    for code, err in _claims_and_plot(run7, tmp_path):
        assert code == 2, err
        assert f"{summary} is corrupt or truncated (its sha256 is" in err
        assert "summary.provenance.json records" in err and "snakemake --cores 1 --force" in err


def _cut_at_a_line(path: Path) -> None:
    """The file loses its last whole line (a copy cut short at a line boundary: still CSV)."""
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) > 2
    path.write_bytes(b"".join(lines[:-1]))


@pytest.mark.probe("faults")
def test_a_table_cut_at_a_line_boundary_is_refused(run7: Run) -> None:
    summary = run7.figure / "summary.csv"
    binding = Binding.from_dict(
        yaml.safe_load(tables.sidecar_path(summary).read_text())["binding"], summary
    )
    assert (
        len(tables.read_table(summary, ["mean"], ["mean"], binding)) == 80
    )  # 8 curves (2 settings x 4 algorithms) x 10 checkpoints
    _cut_at_a_line(summary)
    with pytest.raises(tables.CorruptTableError, match=f"{summary} is corrupt or truncated"):
        tables.read_table(summary, ["mean"], ["mean"], binding)


@pytest.mark.parametrize("name", ["ratios", "leaderboard"])
@pytest.mark.probe("faults")
def test_ratios_and_leaderboards_cut_at_a_line_boundary_are_refused(
    tmp_path: Path, name: str
) -> None:
    """Written as their commands write them (``tables.write_table``), then cut: refused where the
    plain CSV, still whole lines, was taken (a leaderboard lost 300 of 699 such cuts unnoticed)."""
    columns = RATIO_COLUMNS if name == "ratios" else LEADERBOARD_COLUMNS
    frame = pd.DataFrame(
        {
            c: [f"{c}{i}" if c in ("setting", "algorithm", "field") else i for i in range(4)]
            for c in columns
        }
    )
    path = tmp_path / f"{name}.csv"
    binding = Binding(7, "0" * 64, {"s/a": "1" * 64})
    tables.write_table(frame, path, binding)
    assert len(tables.read_table(path, columns, [], binding)) == 4
    _cut_at_a_line(path)
    assert len(pd.read_csv(path)) == 3  # what a plain reader took
    with pytest.raises(tables.CorruptTableError, match=f"{path} is corrupt or truncated"):
        tables.read_table(path, columns, [], binding)


@pytest.mark.probe("faults")
def test_a_table_without_its_record_is_refused(run7: Run) -> None:
    summary = run7.figure / "summary.csv"
    tables.sidecar_path(summary).unlink()
    with pytest.raises(
        tables.CorruptTableError, match="its record summary.provenance.json is missing"
    ):
        tables.read_table(summary, [], [], None)


# 2. Results bound to their config -------------------------------------------------------------


@pytest.mark.probe("faults")
def test_a_shard_of_seed_8_over_seed_7s_is_refused_by_every_reader(
    run7: Run, runs: dict[int, Run], tmp_path: Path
) -> None:
    shard = run7.figure / "rep0-2.parquet"
    shutil.copy(runs[8].figure / shard.name, shard)  # its checksum is right: it is a good shard
    for command in ("aggregate", "ratios"):
        out = tmp_path / f"{command}.csv"
        code, err = _main([command, *run7.args(), "--out", str(out), str(shard)])
        assert code == 2, err
        assert (
            f"{shard} was made by a different config (seed 8, where this config has seed 7)" in err
        )
        assert "regenerate it" in err and not out.exists()
    events = run7.figure / "rep0-2.events.parquet"

    def claims(shards: Path) -> tuple[int, str]:
        """Claims on the seed-7 summary, the run's events and ``shards`` (every run)."""
        return _main(
            [
                "claims",
                *run7.args(),
                "--summary",
                str(run7.figure / "summary.csv"),
                "--events",
                str(events),
                "--shards",
                str(shards),
                "--out",
                str(tmp_path / "c.json"),
            ]
        )

    code, err = claims(shard)  # the claims read every run: the seed-8 shard too
    assert code == 2, err
    assert f"{shard} was made by a different config (seed 8, where this config has seed 7)" in err
    shutil.copy(runs[8].figure / events.name, events)
    code, err = claims(runs[7].figure / shard.name)  # seed 7's own shard: only the events foreign
    assert code == 2 and f"{events} was made by a different config (seed 8" in err, err
    assert not (tmp_path / "c.json").exists()


@pytest.mark.probe("faults")
def test_a_summary_of_seed_8_is_refused_by_claims_and_plot(
    run7: Run, runs: dict[int, Run], tmp_path: Path
) -> None:
    """The seed-8 summary copied with its record (both consistent): the binding refuses it."""
    for name in ("summary.csv", "summary.provenance.json"):
        shutil.copy(runs[8].figure / name, run7.figure / name)
    for code, err in _claims_and_plot(run7, tmp_path):
        assert code == 2, err
        assert f"{run7.figure / 'summary.csv'} was made by a different config (seed 8" in err
    assert not (tmp_path / "c.json").exists() and not (tmp_path / "f.png").exists()


@pytest.mark.probe("faults")
def test_a_shard_of_another_horizon_or_other_sources_is_refused(run7: Run) -> None:
    shard = run7.figure / "rep0-2.parquet"
    made = tables._parquet_binding(shard)
    # one curve of the 8 made by another horizon or checkpoints: the one named
    curves = {**made.curves, "thetaL/d-klucb": "f" * 64}
    with pytest.raises(
        tables.ForeignTableError, match="curve thetaL/d-klucb: its setting, algorithm"
    ):
        tables.read_shard(shard, Binding(7, made.simulation_sha256, curves))
    with pytest.raises(tables.ForeignTableError, match="simulating modules 0000"):
        tables.check_binding(shard, Binding(7, "0" * 64, made.curves), made)
    tables.read_shard(shard, made)  # its own binding: read


def test_a_record_of_an_earlier_version_is_named_as_such() -> None:
    """A table bound to the whole package's sources (before the simulating modules' hash) is
    foreign, and says so; a record missing its keys is corrupt."""
    old = {"seed": 7, "source_sha256": "a" * 64, "curves": {}}
    with pytest.raises(tables.ForeignTableError, match="x.parquet was made by an earlier version"):
        Binding.from_dict(old, "x.parquet")
    with pytest.raises(tables.CorruptTableError, match="unreadable: 'simulation_sha256'"):
        Binding.from_dict({"seed": 7, "curves": {}}, "x.parquet")
    assert Binding.from_dict({**old, "simulation_sha256": "b" * 64}, "x").seed == 7


@pytest.mark.probe("faults")
def test_a_shard_without_a_binding_is_refused(run7: Run) -> None:
    from delayed_bandits.outputs import write_parquet

    shard = run7.figure / "rep0-2.parquet"
    write_parquet(pd.read_parquet(shard), shard)  # checksum, no binding: not written by `simulate`
    made = Binding(7, "0" * 64, {})
    with pytest.raises(tables.CorruptTableError, match="carries no record of the config"):
        tables.read_shard(shard, made)


# 3. verify: complete, regular files, a sound manifest -------------------------------------------


def _verify(run: Run, *extra: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code, err = _main(["verify", str(run.top), "--config", *run.config, *extra])
    return code, out.getvalue() + err


@pytest.mark.probe("faults")
def test_verify_finds_a_deleted_shard_without_a_manifest(run7: Run) -> None:
    shard = FIG_DIR / "rep0-2.parquet"
    code, out = _verify(run7)
    assert f"{shard}: missing" not in out
    (run7.top / shard).unlink()
    code, out = _verify(run7)
    assert code == 1 and f"FAILED {shard}: missing (the run's config makes it)" in out, out
    assert "no checksums.sha256" in out


@pytest.mark.parametrize("target", ["dangling", "/dev/zero", "copy"])
@pytest.mark.probe("files and arguments")
def test_verify_refuses_links_and_devices(run7: Run, tmp_path: Path, target: str) -> None:
    shard = run7.figure / "rep0-2.parquet"
    if target == "copy":  # a link to a good copy: still not the file a job wrote
        shutil.copy(shard, tmp_path / "good.parquet")
        target = str(tmp_path / "good.parquet")
    shard.unlink()
    shard.symlink_to(tmp_path / "nothing" if target == "dangling" else target)
    code, out = _verify(run7)
    assert code == 1 and f"FAILED {FIG_DIR / shard.name}: a symbolic link; refused" in out, out
    with pytest.raises(tables.CorruptTableError, match="a symbolic link"):
        tables.read_shard(shard, None)


@pytest.mark.probe("files and arguments")
def test_a_device_is_no_table(tmp_path: Path) -> None:
    with pytest.raises(tables.CorruptTableError, match="not a regular file"):
        tables.read_table("/dev/zero", [], [], None)
    path = tmp_path / "summary.csv"
    path.mkdir()
    with pytest.raises(tables.CorruptTableError, match="not a regular file"):
        tables.read_summary(path, [], None)


@pytest.mark.probe("files and arguments")
def test_a_manifest_that_is_a_directory_is_refused(run7: Run) -> None:
    (run7.top / "checksums.sha256").mkdir()
    code, out = _verify(run7)
    assert code == 1 and "FAILED checksums.sha256: not a regular file; refused" in out, out
    code, out = _verify(run7, "--record")
    assert code == 2 and "checksums.sha256: not a regular file" in out, out


@pytest.mark.parametrize("name", ["/etc/passwd", "../outside.csv", "results/../../outside.csv"])
@pytest.mark.probe("files and arguments")
def test_manifest_lines_that_leave_the_run_are_refused(run7: Run, name: str) -> None:
    (run7.top.parent / "outside.csv").write_text("x\n")
    code, _ = _verify(run7, "--record")
    manifest = run7.top / "checksums.sha256"
    line = len(manifest.read_text().splitlines()) + 1  # the line appended: after every file's
    with manifest.open("a") as handle:
        handle.write(f"{'0' * 64}  {name}\n")
    code, out = _verify(run7)
    assert code == 1 and f"line {line}: {name!r} is absolute or leaves the run; refused" in out, out
