"""What validation refuses before any job runs: a name too long to be a path
component (``config.MAX_NAME``, the schemas' ``maxLength``), YAML nested deeper than
``yamlio.MAX_DEPTH`` (read without recursion, refused at the first level too deep, not a
RecursionError seconds later), and a window whose tables exceed the machine's memory
(``resources.simulation``'s window). Probes of docs/auditing.md's tally."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from conftest import CONFIG, SMOKE
from delayed_bandits import config as cfg
from delayed_bandits import yamlio
from delayed_bandits.cli import main


def _refused(probe, capsys, tmp_path: Path, overlay: object | str, *said: str) -> str:
    """``validate`` of the smoke config with ``overlay`` (a mapping, or YAML text) refused,
    saying each of ``said``."""
    path = tmp_path / "overlay.yaml"
    path.write_text(overlay if isinstance(overlay, str) else yaml.safe_dump(overlay))
    code = main(["validate", "--config", str(CONFIG), str(SMOKE), str(path)])
    err = capsys.readouterr().err
    assert probe.cli(code, err) == "refused with a named error", err
    for text in said:
        assert text in err, err
    return err


@pytest.mark.probe("config values")
def test_a_scale_too_long_for_a_folder_name(probe, capsys, tmp_path) -> None:
    _refused(
        probe, capsys, tmp_path, {"scale": "a" * 300}, "config key 'scale'", "has 300 characters"
    )


@pytest.mark.probe("config values")
def test_a_setting_id_too_long_for_a_folder_name(probe, capsys, tmp_path) -> None:
    setting = {"theta": [0.5, 0.4], "delay": {"kind": "geometric", "mean": 10}, "window": 100}
    overlay = {"papers": {"vernade2017": {"fig2": {"settings": {"x" * 150: setting}}}}}
    _refused(
        probe,
        capsys,
        tmp_path,
        overlay,
        "config key 'papers.vernade2017.fig2.settings'",
        f"allowed: at most {cfg.MAX_NAME}",
    )


@pytest.mark.probe("config values")
def test_a_grid_whose_joined_ids_are_too_long(probe, capsys, tmp_path) -> None:
    """Each name within the limit, the setting ids a grid joins from them beyond it."""
    grid = [
        {"key": "n_arms", "values": [10], "names": ["K" * 60]},
        {"key": ["base_mean", "gap"], "values": [[0.4, 0.05]], "names": ["b" * 60]},
    ]
    overlay = {"papers": {"arena": {"regret": {"grid": grid}}}}
    _refused(
        probe,
        capsys,
        tmp_path,
        overlay,
        "config key 'papers.arena.regret.settings': setting id",
        "shorten its names",
    )


@pytest.mark.probe("config values")
@pytest.mark.parametrize("depth", [yamlio.MAX_DEPTH + 1, 100_000])
def test_yaml_nested_too_deep(probe, capsys, tmp_path, depth) -> None:
    err = _refused(
        probe,
        capsys,
        tmp_path,
        "seed: " + "[" * depth + "]" * depth + "\n",
        "nested more than",
        "yamlio.MAX_DEPTH",
    )
    assert "RecursionError" not in err


def test_nesting_within_the_limit_is_read() -> None:
    depth = yamlio.MAX_DEPTH
    assert yamlio.read_yaml("[" * depth + "]" * depth) is not None


@pytest.mark.probe("config values")
@pytest.mark.parametrize(
    ("paper", "figure", "setting"),
    [("vernade2017", "fig2", "thetaL"), ("arena", "regret", "uniform_censored")],
)
def test_a_window_too_large_for_memory(probe, capsys, tmp_path, paper, figure, setting) -> None:
    """A window of 10^12 is refused by validate (the workflow validates when it builds the DAG),
    naming its key, not inside the job."""
    overlay = {"papers": {paper: {figure: {"settings": {setting: {"window": 10**12}}}}}}
    _refused(
        probe,
        capsys,
        tmp_path,
        overlay,
        f"config key 'papers.{paper}.{figure}.settings.{setting}",
        ".window'",
        "with a window m = 1000000000000",
        "use a smaller window",
    )
