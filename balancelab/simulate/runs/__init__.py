"""Runs: chunks of games played on workers (:mod:`~balancelab.simulate.executors`) and streamed
to parquet by the driver into a run folder.

A run is a folder::

    runs/<run>/run.json                                  manifest (config, versions, progress)
    runs/<run>/games/variant=<v>/chunk-<c>.parquet       one row per game
    runs/<run>/seats/variant=<v>/chunk-<c>.parquet       one row per game and seat (iss)

Reproducibility: game *i* of every variant is played from the rules' stream ``SeedSequence(seed,
spawn_key=(i, 0))`` and, for seat k's policy, a Generator seeded by the one-way key
``core.seat_key(seed, i, k)`` (from which neither the seed nor the rules' stream can be read
back), and chunk boundaries are fixed multiples of the run's chunk size, itself a pure function
of the configuration (:func:`~.plan.auto_chunk_games`: the game's ``chunk_games`` and the number
of games, never the machine's speed or core count). The same seed therefore gives identical
parquet bytes for any ``jobs``, backend or machine, and game *i* of two variants shares its dice
and shuffles (common random numbers, paired comparisons).

Workers and driver: a worker runs :func:`~balancelab.simulate.worker.play_chunk` and returns
plain Python columns (the worker side imports neither polars nor pyarrow: ~30 MB a process);
the driver builds each chunk's polars frames (:func:`~.tables.chunk_frame`, with
:func:`~.tables.games_schema` and :func:`~.tables.seats_schema`) and writes them.

Crash safety: each chunk is written to ``<run>/.staging/`` (outside the dataset folders) and
moved in with ``os.replace``; the manifest, rewritten atomically (after each chunk, at most
every :data:`~.write.MANIFEST_EVERY` seconds, and when the run stops), records each finished
chunk's games, rows, size and SHA-256. An interrupted run keeps them; ``resume`` plays only what
is missing. A chunk moved in but not yet recorded (a kill between the two) is played again and
replaced by identical bytes. A disk error (full, read-only) raises :class:`RunError` and keeps
what exists. Writes are atomic against a killed process, not against power loss (no fsync).

Integrity: ``run.json`` is validated against a schema (:class:`~.manifest.Manifest`, pydantic)
and its configuration against its own identity (an edited seed, option, policy or game count is
refused); every recorded chunk file is checked against its size and checksum, and any file in
the tables that the manifest does not record is a stray (:func:`~.integrity.inspect_run`).
Loading a run (:func:`scan_games`, reports) refuses a damaged folder naming the files in one
line; ``resume`` plays the missing, truncated or foreign chunks again (the same bytes as an
uninterrupted run) and moves strays to ``<run>/set-aside/``. Data files (a board, card tables)
enter the identity by the SHA-256 of their content.

One writer: a run folder is written by one process at a time, holding ``<run>/.lock`` with
``fcntl.flock`` (released by the kernel when the process dies, so a kill -9 leaves no stuck
lock). Workers watch their driver and exit within a second when it dies
(:func:`~balancelab.simulate.worker.watch_driver`).

The modules: :mod:`.plan` (the configuration and its chunks), :mod:`.tables` (the parquet
schemas and metadata), :mod:`.folder` (file names, the lock, atomic writes), :mod:`.manifest`
(``run.json``: schema and identity), :mod:`.integrity` (checksums, strays, data files),
:mod:`.write` (:func:`run`) and :mod:`.read` (scans and replay). This package re-exports what
a caller of runs needs; the rest is imported from its module.
"""

from balancelab.simulate.errors import RunError
from balancelab.simulate.runs.folder import MANIFEST
from balancelab.simulate.runs.integrity import holds_finished, verify_run
from balancelab.simulate.runs.manifest import core_seconds_per_game, read_manifest
from balancelab.simulate.runs.plan import RunConfig, plan_chunks
from balancelab.simulate.runs.read import (
    load_games,
    load_seats,
    play_one,
    replay,
    replay_config,
    scan_files,
    scan_games,
    scan_seats,
    table_files,
)
from balancelab.simulate.runs.write import RunSummary, resume_config, run

__all__ = [
    "MANIFEST",
    "RunConfig",
    "RunError",
    "RunSummary",
    "core_seconds_per_game",
    "holds_finished",
    "load_games",
    "load_seats",
    "plan_chunks",
    "play_one",
    "read_manifest",
    "replay",
    "replay_config",
    "resume_config",
    "run",
    "scan_files",
    "scan_games",
    "scan_seats",
    "table_files",
    "verify_run",
]
