"""The page of one entrant (``arena.entrant_page``, ``delayed-bandits entrant-page``), on a small
synthetic run written as the workflow writes its tables: the page's numbers are the tables', the
best of each information model is the lowest mean among the cells it may be chosen from (a family's
complete rows; a setting's applicable cells of the matched comparison at the last horizon), an
inapplicable setting is listed with its reason, the claim is quoted, the errors name what to do,
and the figures are written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from delayed_bandits import tables
from delayed_bandits.arena import answer, entrant_page, leaderboard
from delayed_bandits.arena.cli import TABLES
from delayed_bandits.arena.entrants import CONVERSIONS, LABELLED, MATCHED, NONE, PUBLISHED
from delayed_bandits.cli import main
from delayed_bandits.errors import BadParameter

BINDING = tables.Binding(seed=7, simulation_sha256="0" * 64, curves={})
MODELS = {"mine": CONVERSIONS, "ts": CONVERSIONS, "d-ts": CONVERSIONS, "qpm-d": LABELLED}
MODELS["uniform"] = NONE
T = 1000
# regret at T in the matched comparison, per setting and entrant (None: not applicable)
REGRET = {
    "s1": {"mine": 50.0, "ts": 60.0, "d-ts": 40.0, "qpm-d": 30.0, "uniform": 400.0},
    "s2": {"mine": 20.0, "ts": 35.0, "d-ts": 25.0, "qpm-d": 45.0, "uniform": 300.0},
    "s3": {"mine": None, "ts": 70.0, "d-ts": 65.0, "qpm-d": 55.0, "uniform": 500.0},
}
REASON = "uncensored: no window to estimate the delays in"


def _row(horizon: int, field: str, setting: str, algorithm: str, regret: float | None) -> dict:
    row = {c: 0.0 for c in leaderboard.COLUMNS}
    applicable = regret is not None
    row.update(
        horizon=horizon,
        field=field,
        setting=setting,
        regime=setting,
        regime_label=setting,
        delay="geometric, mean 100",
        arm_dependent=False,
        censored=False,
        identifiable=True,
        algorithm=algorithm,
        label=algorithm.upper(),
        information=MODELS[algorithm],
        knows="nothing",
        horizon_tuned=algorithm == "qpm-d",
        exploration="",
        applicable=applicable,
        reason="" if applicable else REASON,
        regret=regret if applicable else np.nan,
        regret_lo=0.9 * regret if applicable else np.nan,
        regret_hi=1.1 * regret if applicable else np.nan,
        n_runs=8 if applicable else 0,
        precise=False,
        tied_best=False,
        model_tied_best=False,
        verdict="worse" if applicable else "",
        model_verdict="inconclusive" if applicable else "",
        paired_verdict="",
        stage=1,
        race_runs=0,
    )
    return row


PUBLISHED_ONLY = {"s1": 45.0, "s2": 30.0, "s3": 60.0}  # "pub": an index method at its constant
MODELS["pub"] = CONVERSIONS


def _board() -> pd.DataFrame:
    rows = [_row(T, PUBLISHED, s, "pub", r / 100) for s, r in PUBLISHED_ONLY.items()]
    for horizon in (T // 10, T):
        for field in (MATCHED, PUBLISHED):
            for setting, regrets in REGRET.items():
                for algorithm, regret in regrets.items():
                    if regret is not None and (horizon != T or field != MATCHED):
                        regret = regret / 100  # lower everywhere else: never the page's
                    rows.append(_row(horizon, field, setting, algorithm, regret))
    board = pd.DataFrame(rows, columns=leaderboard.COLUMNS).sort_values(
        ["horizon", "field"], kind="stable", ignore_index=True
    )
    at = (board.horizon == T) & (board.field == MATCHED) & board.applicable
    best = board[at].groupby("setting").regret.transform("min")
    board.loc[at, "ratio"] = board.regret[at] / best
    return board


FAMILIES = [  # family, algorithm, ratio, lo, hi, complete
    ("short delays, uncensored, μ = 0.4", "mine", 0.812, 0.70, 0.93, True),
    ("short delays, uncensored, μ = 0.4", "ts", 1.0, 1.0, 1.0, True),
    ("short delays, uncensored, μ = 0.4", "d-ts", 0.9, 0.85, 0.95, True),
    ("short delays, uncensored, μ = 0.4", "qpm-d", 0.77, 0.6, 0.94, True),
    ("short delays, uncensored, μ = 0.4", "uniform", 6.5, 6.0, 7.0, True),
    ("long delays, censored, μ = 0.4", "mine", 0.5, 0.4, 0.6, False),  # lowest, but partial
    ("long delays, censored, μ = 0.4", "ts", 1.0, 1.0, 1.0, True),
    ("long delays, censored, μ = 0.4", "d-ts", 0.95, 0.9, 1.01, True),
    ("long delays, censored, μ = 0.4", "qpm-d", 0.66, 0.6, 0.72, True),
    ("long delays, censored, μ = 0.4", "uniform", 5.0, 4.5, 5.5, True),
    ("heavy tail, uncensored, μ = 0.4", "ts", 1.0, 1.0, 1.0, True),  # mine applies nowhere
    ("heavy tail, uncensored, μ = 0.4", "qpm-d", 0.9, -0.2, 2.0, True),  # an interval below 0
]


def _families() -> pd.DataFrame:
    frame = pd.DataFrame(FAMILIES, columns=["family", "algorithm", "ratio", "lo", "hi", "complete"])
    return frame.assign(
        label=frame.algorithm.str.upper(),
        information=frame.algorithm.map(MODELS),
        se=(frame.hi - frame.lo) / 3.92,
        settings=np.where(frame.complete, 2, 1),
        n_runs=8,
    )[answer.COLUMNS]


def _read(root: Path) -> entrant_page.Run:
    """The run under ``root``, read by the arena's readers, as the command reads it."""
    return entrant_page.read_run(root, TABLES)


def _write_run(root: Path, families: bool = True, claims: bool = True) -> Path:
    folder = entrant_page.results(root)
    folder.mkdir(parents=True)
    tables.write_table(_board(), folder / "leaderboard.csv", BINDING)
    if families:
        tables.write_table(_families(), folder / "families.csv", BINDING)
    if claims:
        said = [
            {
                "id": f"better-than-uniform-{name}",
                "statement": f"{name}, where it applies, ends with less regret than uniform "
                "play (base rate 0.4)",
                "holds": holds,
                "measured": f"{name}: s1: 0.125 x uniform; s2: 0.0667 x uniform",
            }
            for name, holds in (
                ("mine-rate0.4", False),
                ("mine-est", True),
                ("mine-rate0.02", None),
            )
        ]
        tables.write_recorded(json.dumps(said).encode(), folder / "claims.json", BINDING)
    return root


def test_the_best_of_each_model_per_family_is_the_lowest_complete_ratio() -> None:
    rows = entrant_page.family_rows(_families(), "mine")
    short = rows[rows.family.str.startswith("short")]
    own = short[short.role == entrant_page.ENTRANT].iloc[0]
    assert (own.ratio, own.lo, own.hi) == (0.812, 0.70, 0.93)
    best = short[short.role == entrant_page.BEST].set_index("information")
    assert best.algorithm.to_dict() == {CONVERSIONS: "mine", LABELLED: "qpm-d", NONE: "uniform"}
    assert bool(best.loc[CONVERSIONS].is_entrant)
    long = rows[rows.family.str.startswith("long") & (rows.role == entrant_page.BEST)]
    # mine's 0.5 covers part of the family only: d-ts is the complete conversions' best
    assert long.set_index("information").algorithm[CONVERSIONS] == "d-ts"
    assert list(dict.fromkeys(rows.family)) == list(dict.fromkeys(_families().family))


def test_the_best_of_each_model_per_setting_reads_the_matched_comparison_at_t() -> None:
    rows = entrant_page.setting_rows(_board(), "mine")
    assert list(dict.fromkeys(rows.setting)) == ["s1", "s2"]  # not s3, where it does not apply
    for setting in ("s1", "s2"):
        here = rows[rows.setting == setting]
        best = here[here.role == entrant_page.BEST].set_index("information")
        for model in (CONVERSIONS, LABELLED, NONE):
            members = {a: r for a, r in REGRET[setting].items() if MODELS[a] == model}
            lowest = min(members, key=members.get)
            assert best.algorithm[model] == lowest
            assert best.regret[model] == members[lowest]
            assert best.regret_lo[model] == pytest.approx(0.9 * members[lowest])
        own = here[here.role == entrant_page.ENTRANT].iloc[0]
        assert own.regret == REGRET[setting]["mine"]
        assert own.ratio == pytest.approx(REGRET[setting]["mine"] / min(REGRET[setting].values()))


def test_the_page_quotes_the_tables(tmp_path: Path) -> None:
    run = _read(_write_run(tmp_path))
    text = entrant_page.page(run, "mine", {"families": "families.png"})
    assert "**conversions**: the conversions only" in text
    assert "Told the horizon T: no" in text
    assert (
        f"- It does not apply in 1 of the 3 settings (the leaderboard's reason):\n  - `s3`: {REASON}"
        in text
    )
    # one claim per base rate; another entrant's whose id starts with this one's is not its
    assert (
        "- Its automatic claim (one per base rate): mine-rate0.4, where it applies, ends with less "
        "regret than uniform play.\n"
    ) in text
    assert (
        "  - `better-than-uniform-mine-rate0.4`: **fails**; measured: mine-rate0.4: s1: 0.125 x "
        "uniform; s2: 0.0667 x uniform\n  - `better-than-uniform-mine-rate0.02`: **inconclusive**"
    ) in text
    assert "mine-est" not in text
    # the family lines: the entrant's own numbers, then each model's best
    assert (
        "| short delays, uncensored, μ = 0.4 | this entrant: `mine` | conversions | 0.812 | "
        "[0.7, 0.93] | 2 | yes | 8 |" in text
    )
    assert (
        "| best of its model: `qpm-d` | labelled outcomes (oracle) | 0.66 | [0.6, 0.72] |" in text
    )
    assert "| best of its model: `d-ts` | conversions | 0.95 | [0.9, 1.01] |" in text
    assert (
        "| heavy tail, uncensored, μ = 0.4 | this entrant: `mine`, which applies in none of its "
        "settings |" in text
    )
    assert "| heavy tail, uncensored, μ = 0.4 | best of its model: `ts` | conversions | 1 |" in text
    # the setting lines: regret, interval, ratio to the best, the verdicts, each model's best
    assert (
        "| `s1` | 50 [45, 55] | 1.67 | worse | inconclusive | `d-ts` 40 [36, 44] | "
        "`qpm-d` 30 [27, 33] | `uniform` 400 [360, 440] |" in text
    )
    assert "| `s2` | 20 [18, 22] | 1 | worse | inconclusive | this entrant 20 [18, 22] |" in text
    assert "`s3` |" not in text.split("## Per setting")[1]
    assert "![per family](families.png)" in text
    # no recorded config: the scale is not guessed ("standard" would claim a whole run)
    assert "standard" not in text and "3 settings (its config is not recorded here)" in text
    assert "T = 1,000, 8 paired runs per setting" in text


def test_a_horizon_tuned_entrant_and_a_run_without_claims(tmp_path: Path) -> None:
    run = _read(_write_run(tmp_path, claims=False))
    text = entrant_page.page(run, "qpm-d")
    assert "Told the horizon T: yes" in text
    assert "the run has no claims.json" in text
    assert "It applies in every one of the 3 settings" in text


def test_an_unknown_entrant_names_the_runs_entrants(tmp_path: Path, capsys) -> None:
    root = _write_run(tmp_path)
    with pytest.raises(
        BadParameter,
        match="'theirs' is not in this run's leaderboard; its "
        "entrants: mine, ts, d-ts, qpm-d, uniform",
    ):
        entrant_page.page(_read(root), "theirs")
    assert main(["entrant-page", "theirs", "--run", str(root)]) != 0
    assert "its entrants: mine, ts, d-ts, qpm-d, uniform" in capsys.readouterr().err
    assert not (root / "entrants").exists()


def test_a_run_without_families_names_the_rule(tmp_path: Path, capsys) -> None:
    root = _write_run(tmp_path / "smoke", families=False)
    with pytest.raises(FileNotFoundError, match="the rule `families`"):
        _read(root)
    assert main(["entrant-page", "mine", "--run", str(root)]) != 0
    err = capsys.readouterr().err
    assert f"snakemake --cores 2 {root.as_posix()}/results/arena/regret/families.csv" in err


def test_the_command_writes_the_page_and_its_figures(tmp_path: Path) -> None:
    root = _write_run(tmp_path / "run")
    out = tmp_path / "page"
    assert main(["entrant-page", "mine", "--run", str(root), "--out", str(out)]) == 0
    text = (out / "page.md").read_text(encoding="utf-8")
    assert "![per family](families.png)" in text and "![per setting](settings.png)" in text
    for name in ("families", "settings"):
        for suffix, least in ((".png", 20_000), (".pdf", 5_000)):
            path = out / f"{name}{suffix}"
            assert path.stat().st_size > least, (path, path.stat().st_size)
    assert (out / "families.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "settings.pdf").read_bytes()[:5] == b"%PDF-"
    # the default folder: beside the run's tables
    assert main(["entrant-page", "d-ts", "--run", str(root)]) == 0
    assert (root / "entrants" / "d-ts" / "page.md").is_file()
    assert not (root / "results" / "arena" / "regret" / "entrants").exists()


def test_a_run_of_many_settings_gets_a_page_of_figures_each(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(entrant_page, "SETTINGS_PER_PAGE", 1)  # mine applies in s1 and s2
    root = _write_run(tmp_path / "run")
    out = tmp_path / "page"
    assert main(["entrant-page", "mine", "--run", str(root), "--out", str(out)]) == 0
    text = (out / "page.md").read_text(encoding="utf-8")
    shown = [line for line in text.splitlines() if line.startswith("![per setting]")]
    assert shown == ["![per setting](settings/page1.png)", "![per setting](settings/page2.png)"]
    assert sorted(p.name for p in (out / "settings").iterdir()) == ["page1.png", "page2.png"]
    assert b"/Count 2" in (out / "settings.pdf").read_bytes()  # the PDF holds both pages


def test_the_scale_of_a_subset_run_says_it_is_one(tmp_path: Path, monkeypatch) -> None:
    """Where the run recorded its config, its scale is worded as its digest words it: a run
    whose `only` kept a subset of the settings says so, never a whole scale."""
    root = Path(__file__).resolve().parents[2]
    overrides = {"papers": {"arena": {"regret": {"only": ["uniform-K3-large"]}}}}
    paths = [str(root / "config" / "config.yaml"), str(root / "config" / "smoke.yaml")]
    monkeypatch.chdir(tmp_path)
    run = _write_run(Path("."))
    record = {"config": {"paths": paths, "overrides": overrides}}
    (entrant_page.results(run) / "summary.provenance.json").write_text(json.dumps(record))
    text = entrant_page.page(_read(run), "mine")
    title = text.splitlines()[0]
    assert title.startswith("# `mine` (MINE) in the arena: standard scale, a subset: 1 of "), title
    assert "(only: uniform-K3-large)" in title
    (entrant_page.results(run) / "summary.provenance.json").unlink()
    assert _read(run).scale == (
        "run in the current folder, 3 settings (its config is not recorded here)"
    )


def test_an_index_method_at_its_paper_s_constant_is_read_in_the_published_comparison() -> None:
    board = _board()
    assert entrant_page.comparison(board, "pub") == PUBLISHED
    assert entrant_page.comparison(board, "mine") == MATCHED
    rows = entrant_page.setting_rows(board, "pub")
    own = rows[rows.role == entrant_page.ENTRANT].set_index("setting").regret
    assert own.to_dict() == {s: r / 100 for s, r in PUBLISHED_ONLY.items()}
    best = rows[(rows.role == entrant_page.BEST) & (rows.information == CONVERSIONS)]
    # the published comparison's numbers (the matched ones x 100 would pick mine in s1)
    assert best.set_index("setting").algorithm.to_dict() == {
        "s1": "d-ts",
        "s2": "mine",
        "s3": "pub",
    }
    assert best.set_index("setting").regret["s1"] == 0.4


def test_uniform_play_has_no_claim_of_its_own(tmp_path: Path) -> None:
    run = _read(_write_run(tmp_path))
    text = entrant_page.page(run, "uniform")
    assert "- Claim: none of its own; it is the baseline of the claims" in text
