"""The runner end to end on the 2001 game: parquet, determinism across workers, resume."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from balancelab.games import get_game
from balancelab.simulate.runs import (
    RunConfig,
    RunError,
    core_seconds_per_game,
    load_games,
    read_manifest,
    replay,
    run,
)


def _config(games: int = 60, **opts: object) -> RunConfig:
    g = get_game("odyssey")
    return RunConfig(game="odyssey", variants=[g.options_type.from_strings(opts)], seed=7,
                     games=games, chunk_games=25)


def _files(path: Path) -> dict[str, bytes]:
    return {str(p.relative_to(path)): p.read_bytes()
            for p in sorted((path / "games").rglob("*.parquet"))}


def test_jobs_1_and_2_write_identical_parquet(tmp_path: Path) -> None:
    a = run(_config(), tmp_path / "a", jobs=1, backend="sequential")
    b = run(_config(), tmp_path / "b", jobs=2)
    assert a.games_written == b.games_written == 60
    fa, fb = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert list(fa) == list(fb)
    assert list(fa) == ["games/variant=0/chunk-000000.parquet",
                        "games/variant=0/chunk-000001.parquet",
                        "games/variant=0/chunk-000002.parquet"]
    # run_id is the folder name; equal folder names give equal bytes
    ga = load_games(tmp_path / "a").drop("run_id")
    gb = load_games(tmp_path / "b").drop("run_id")
    assert ga.equals(gb)
    assert ga["game_index"].to_list() == list(range(60))


def test_identical_bytes_for_the_same_folder_name(tmp_path: Path) -> None:
    run(_config(), tmp_path / "x" / "r", jobs=1, backend="sequential")
    run(_config(), tmp_path / "y" / "r", jobs=2)
    assert _files(tmp_path / "x" / "r") == _files(tmp_path / "y" / "r")


def test_games_table_columns_and_manifest(tmp_path: Path) -> None:
    path = tmp_path / "r"
    run(_config(games=30, crew=2), path, jobs=1, backend="sequential")
    df = load_games(path)
    assert df.height == 30
    for col in ("run_id", "game", "variant_label", "crew", "hal_extra_turns", "policy_hal",
                "policy_crew", "game_index", "seed", "winner", "end_reason", "rounds",
                "variant"):
        assert col in df.columns
    assert set(df["variant_label"]) == {"crew=2,hal_extra_turns=0"}
    m = read_manifest(path)
    assert m["complete"] is True and m["games_written"] == 30
    assert m["chunks_done"] == ["0:0", "0:1"]
    assert m["versions"]["polars"] == pl.__version__
    # the workers' CPU time: positive, and on one in-process worker at most the wall time
    assert 0 < m["cpu_seconds"] <= m["wall_seconds"] + 0.05
    assert core_seconds_per_game(m) == pytest.approx(m["cpu_seconds"] / 30)
    assert core_seconds_per_game({**m, "cpu_seconds": 0.0}) is None  # a run from before


def test_resume_adds_the_cpu_seconds_of_each_session(tmp_path: Path) -> None:
    path = tmp_path / "r"
    run(_config(games=25), path, jobs=1, backend="sequential")
    first = read_manifest(path)["cpu_seconds"]
    run(_config(games=50), path, jobs=1, backend="sequential", resume=True)
    assert read_manifest(path)["cpu_seconds"] > first > 0


def test_resume_completes_to_the_same_parquet(tmp_path: Path) -> None:
    full = tmp_path / "full" / "r"
    run(_config(), full, jobs=1, backend="sequential")
    part = tmp_path / "part" / "r"
    run(_config(games=25), part, jobs=1, backend="sequential")  # as if stopped after chunk 0
    # an interrupted run's manifest plans more games than it holds
    m = json.loads((part / "run.json").read_text())
    assert m["games_written"] == 25
    with pytest.raises(RunError, match="--resume"):
        run(_config(), part, jobs=1, backend="sequential")
    run(_config(), part, jobs=2, resume=True)
    assert _files(part) == _files(full)


def test_other_run_in_folder_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "r"
    run(_config(games=5), path, jobs=1, backend="sequential")
    with pytest.raises(RunError, match="holds another run"):
        run(_config(games=5, crew=4), path, jobs=1, backend="sequential")


def test_not_a_run_folder(tmp_path: Path) -> None:
    with pytest.raises(RunError, match="no run folder"):
        read_manifest(tmp_path / "missing")
    with pytest.raises(RunError, match="is not a balancelab run"):
        read_manifest(tmp_path)
    (tmp_path / "run.json").write_text(json.dumps({"format_version": 99}))
    with pytest.raises(RunError, match="run format 99"):
        read_manifest(tmp_path)


def test_replay_reproduces_a_row(tmp_path: Path) -> None:
    path = tmp_path / "r"
    run(_config(games=30), path, jobs=1, backend="sequential")
    row = load_games(path).row(17, named=True)
    rec = replay(path, 0, 17).record
    assert (rec.winner, rec.end_reason, rec.rounds) == (row["winner"], row["end_reason"],
                                                         row["rounds"])


def test_sweep_variants_share_seeds(tmp_path: Path) -> None:
    g = get_game("odyssey")
    variants = [g.options_type(crew=3, hal_extra_turns=h) for h in (-1, 1)]
    config = RunConfig(game="odyssey", variants=variants, seed=3, games=20, chunk_games=10)
    run(config, tmp_path / "s", jobs=1, backend="sequential")
    df = load_games(tmp_path / "s")
    assert df.group_by("variant").len().sort("variant")["len"].to_list() == [20, 20]
    assert sorted(Path(tmp_path / "s" / "games").glob("variant=*")) == [
        tmp_path / "s" / "games" / "variant=0", tmp_path / "s" / "games" / "variant=1"]
