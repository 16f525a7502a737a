"""What the workflow writes of a config before any job runs, and what a job's values are: merged
configs named by their content and written once (``config.write_merged``), a variation's folder
claimed by its config (``config.claim_variation``), and the values of a figure that each stage
reads (``provenance.stage_values``)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import ROOT, smoke_config
from delayed_bandits import config as cfg
from delayed_bandits import provenance
from delayed_bandits.errors import ConfigError

SOURCES = {"paths": ["config/config.yaml"], "file_sha256": ["0" * 64], "overrides": {}}


@pytest.mark.probe("files and arguments")
def test_a_merged_config_is_named_by_its_content_and_never_rewritten(tmp_path: Path) -> None:
    config = smoke_config()
    first = cfg.write_merged(config, SOURCES, tmp_path)
    assert re.fullmatch(r"config-[0-9a-f]{16}\.json", first.name)
    assert cfg.read_merged(first) == (config, SOURCES)
    text = first.read_bytes()
    # a preview with an edited value (the same files: the same name before) writes apart
    edited = json.loads(json.dumps(config))
    edited["papers"]["vernade2020"]["fig1"]["roughly_band"] = 0.5
    second = cfg.write_merged(edited, SOURCES, tmp_path)
    assert second != first and first.read_bytes() == text
    assert cfg.write_merged(config, SOURCES, tmp_path) == first  # the same config: the same file
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([first.name, second.name])
    # a file of that name that holds something else is refused, not rewritten
    first.write_text(first.read_text().replace('"seed": 7', '"seed": 8'))
    with pytest.raises(ConfigError, match="does not hold what its name"):
        cfg.write_merged(config, SOURCES, tmp_path)
    assert '"seed": 8' in first.read_text()


@pytest.mark.probe("files and arguments")
def test_a_variation_folder_refuses_another_config(tmp_path: Path) -> None:
    base = cfg.merged([ROOT / "config" / "config.yaml"])
    config = cfg.merged([ROOT / "config" / "config.yaml"], {"seed": 3})
    scale = config["scale"]
    assert re.fullmatch(r"variation-[0-9a-f]{16}", scale)  # 64 bits
    cfg.claim_variation(base, tmp_path)  # the paper scale claims nothing
    assert not list(tmp_path.iterdir())
    cfg.claim_variation(config, tmp_path)
    cfg.claim_variation(config, tmp_path)  # the same config finds its folder again
    record = tmp_path / scale / cfg.VARIATION_RECORD
    other = cfg.merged([ROOT / "config" / "config.yaml"], {"seed": 4})
    with pytest.raises(ConfigError, match=f"scale {scale}: its folder records another config"):
        cfg.claim_variation({**other, "scale": scale}, tmp_path)  # a name shared by two
    assert json.loads(record.read_text())["computed_sha256"].startswith(scale[len(cfg.VARIATION) :])


def test_each_stage_reads_its_own_values() -> None:
    config = smoke_config()

    def values(edit: dict) -> dict[str, str]:
        changed = json.loads(json.dumps(config))
        changed["papers"]["vernade2020"]["fig1"].update(edit)
        return {
            stage: provenance.stage_values(changed, "vernade2020", "fig1", stage)
            for stage in provenance.STAGES
        }

    same = values({})
    changed = {
        name: {stage for stage, v in values(edit).items() if v != same[stage]}
        for name, edit in {
            "title": {"title": "another"},
            "threshold": {"roughly_band": 0.5},
            "checkpoints": {"checkpoints": 10},
            "shard_size": {"shard_size": 1},
        }.items()
    }
    assert changed == {
        "title": {"plot"},
        "threshold": {"claims"},
        "checkpoints": set(provenance.STAGES),
        "shard_size": set(),
    }


def test_a_key_one_stage_alone_reads_is_read_by_no_other() -> None:
    """``READ_ONLY_BY`` held to the code: the modules of the other stages never name the key
    (a plot's title is read by ``grid.title``, which only plots call)."""
    package = ROOT / "src" / "delayed_bandits"
    modules = {
        "claims": [*package.glob("papers/*/claims.py"), package / "arena" / "claims.py"],
        "plot": [
            *package.glob("papers/*/plots.py"),
            package / "plotting.py",
            *package.glob("arena/views/*.py"),
        ],
    }
    modules["table"] = [package / "aggregate.py", package / "arena" / "leaderboard.py"]
    for key, stage in provenance.READ_ONLY_BY.items():
        named = f'"{key}"' if stage == "claims" else "grid.title("
        for other, files in modules.items():
            if other != stage:
                found = [p.name for p in files if p.is_file() and named in p.read_text()]
                assert not found, f"{key} is read by {other} ({found}), not by {stage} alone"
