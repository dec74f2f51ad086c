"""Reading a run: its tables as polars frames (only the recorded chunk files, each checked
against its size and checksum first), and any game of it played again (:func:`replay`)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import polars as pl

from balancelab.simulate.errors import RunError
from balancelab.simulate.play import PlayedGame
from balancelab.simulate.runs.folder import chunk_file
from balancelab.simulate.runs.integrity import check_data_files, verify_run
from balancelab.simulate.runs.manifest import read_manifest
from balancelab.simulate.runs.plan import RunConfig
from balancelab.simulate.worker import play_game, seat_assignment


def scan_games(path: Path) -> pl.LazyFrame:
    """Lazily read the games table of a run, with the ``variant`` partition as Int32.

    Only the chunk files the manifest records are read, after checking each against its
    size and checksum (:func:`verify_run`).

    Raises:
        RunError: not a run folder, an invalid or edited manifest, a damaged folder (the
            files named), or no games written yet.
    """
    return _scan(path, "games")


def scan_seats(path: Path) -> pl.LazyFrame:
    """Lazily read the seats table (games with per-seat scores); checked as :func:`scan_games`.

    Raises:
        RunError: not a run folder, a damaged folder, or the game has no seats table.
    """
    return _scan(path, "seats")


def table_files(path: Path, table: str = "games") -> list[Path]:
    """The chunk files of a run's ``games`` or ``seats`` table in (variant, chunk) order,
    after checking each against its size and checksum (:func:`verify_run`).

    Raises:
        RunError: as :func:`scan_games`.
    """
    path = Path(path)
    m = verify_run(path)
    key = "sha256" if table == "games" else "seats_sha256"
    files = [path / chunk_file(table, k) for k in sorted(m["chunks"], key=_chunk_sort_vc)
             if m["chunks"][k].get(key) is not None]
    if not files:
        raise RunError(f"{str(path)!r} has no {table} written yet")
    return files


def scan_files(files: list[Path]) -> pl.LazyFrame:
    """A lazy scan of chunk files (from :func:`table_files`), ``variant`` as Int32."""
    return pl.scan_parquet(files, hive_partitioning=True, hive_schema={"variant": pl.Int32})


def _scan(path: Path, table: str) -> pl.LazyFrame:
    return scan_files(table_files(path, table))


def _chunk_sort_vc(key: str) -> tuple[int, int]:
    v, c = key.split(":")
    return int(v), int(c)


def load_games(path: Path) -> pl.DataFrame:
    """The games table of a run, sorted by (variant, game_index). See :func:`games_schema`.

    The recorded chunk files are read in (variant, chunk) order, each holding consecutive
    games, so the frame arrives sorted: no sorted copy is made (it doubled the peak memory).
    """
    return scan_games(path).collect()


def load_seats(path: Path) -> pl.DataFrame:
    """The seats table of a run, sorted by (variant, game_index, seat)."""
    return scan_seats(path).collect().sort(["variant", "game_index", "seat"])


def replay(path: Path, variant: int, game_index: int,
           on_step: Callable[..., None] | None = None) -> PlayedGame:
    """Play game ``game_index`` of a run's variant again, exactly as the runner did.

    Returns:
        The :class:`~balancelab.simulate.play.PlayedGame`.

    Raises:
        RunError: an invalid or edited manifest, a changed data file, or an index out of range.
    """
    return play_one(replay_config(path, variant, game_index), variant, game_index, on_step)


def replay_config(path: Path, variant: int, game_index: int) -> RunConfig:
    """The configuration of a run, checked for replaying game ``game_index`` of ``variant``.

    Raises:
        RunError: an invalid or edited manifest, a changed data file, or an index out of range.
    """
    data = read_manifest(path)
    check_data_files(Path(path), data)
    config = RunConfig.from_json(data["config"])
    if not 0 <= variant < len(config.variants):
        raise RunError(f"variant must be in [0, {len(config.variants) - 1}]; got {variant}")
    if not 0 <= game_index < config.games:
        raise RunError(f"game index must be in [0, {config.games - 1}]; got {game_index}")
    return config


def play_one(config: RunConfig, variant: int, game_index: int,
             on_step: Callable[..., None] | None = None) -> PlayedGame:
    """Play one game of a configuration (the runner's game *i*, identically)."""
    game = config.game_obj
    options = config.variants[variant]
    sides = [game.side_of_seat(options, k) for k in range(len(game.seats(options)))]
    assigned = seat_assignment(config.seat_specs(options), sides, game_index, config.rotate)
    return play_game(game, options, assigned, config.seed, game_index, on_step)
