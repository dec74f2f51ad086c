"""Playing a run into its folder (:func:`run`): refusing what would fail before the folder is
touched, resuming and repairing a run, streaming each chunk's frames to parquet and the
manifest as chunks finish, and keeping what was written on Ctrl-C or a disk error."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import logging
import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balancelab import plugins
from balancelab.policies import base as policies
from balancelab.simulate import executors
from balancelab.simulate.core import Game
from balancelab.simulate.errors import RunError, os_reason
from balancelab.simulate.runs.folder import (
    LOCK,
    MANIFEST,
    RunLock,
    clear_folder,
    holds_games,
    set_aside_files,
    write_json_atomic,
    write_parquet_atomic,
)
from balancelab.simulate.runs.integrity import check_data_files, inspect_run
from balancelab.simulate.runs.manifest import (
    FORMAT_VERSION,
    check_manifest,
    chunk_sort,
    package_versions,
    read_manifest,
)
from balancelab.simulate.runs.plan import (
    MAX_GAMES,
    Chunk,
    RunConfig,
    cheating_specs,
    checked_int,
    plan_chunks,
)
from balancelab.simulate.runs.tables import (
    chunk_frame,
    games_schema,
    parquet_metadata,
    seats_schema,
)
from balancelab.simulate.worker import play_chunk

#: Resume decisions and skipped and repaired chunks (never per game).
log = logging.getLogger(__name__)

#: Seconds between two manifest rewrites while a run plays (it is always written at the end).
MANIFEST_EVERY = 0.5


@dataclass
class RunSummary:
    """What :func:`run` did."""

    path: Path
    games_written: int
    games_total: int
    wall_seconds: float
    interrupted: bool = False
    #: games played by this call (``games_written`` counts earlier sessions' too)
    games_played: int = 0
    #: chunk files found missing, truncated or foreign and played again (run-relative paths)
    repaired: list[str] = field(default_factory=list)
    #: stray files moved to ``<run>/set-aside/`` (run-relative paths, before the move)
    set_aside: list[str] = field(default_factory=list)


def check_before_writing(config: RunConfig, backend: str, scheduler: str | None) -> None:
    """Refuse a run that would fail once started, before its folder is touched: an unknown
    backend, dask missing, or a policy parameter its policy rejects (each seat's policy is
    built once, as a worker would).

    Raises:
        RunError: the backend cannot run.
        PolicyError: a policy or policy parameter is invalid.
    """
    executors.check_backend(backend, scheduler)
    game = config.game_obj
    for options in config.variants:
        for seat, spec in enumerate(config.seat_specs(options)):
            policies.build(game, options, seat, spec, np.random.default_rng(0))


def run(
    config: RunConfig,
    path: Path,
    *,
    jobs: int = -1,
    backend: str = "loky",
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
    resume: bool = False,
    planned: bool = False,
) -> RunSummary:
    """Play a run (or the part of it not yet written) and stream it to ``path``.

    Args:
        config: the run's configuration.
        path: the run folder.
        jobs: joblib workers (-1: all cores); never more than the chunks left to play.
        backend: ``loky`` (default), ``threading``, ``sequential`` or ``dask``.
        scheduler: dask scheduler address (``tcp://host:8786``); None starts a local cluster.
        progress: called with (games written, games total) after each chunk.
        force: replace an existing run folder of another configuration.
        resume: continue an existing run of the same configuration (also used to extend
            ``config.games``); chunk files found missing, truncated or foreign are played
            again, stray files moved to ``<run>/set-aside/``.
        planned: an extension of a finished run that its design planned (a stopping rule's
            next round). Any extension of a finished run is recorded in the manifest's
            ``extensions`` (``from`` and ``to`` games per variant, ``planned``): one that was
            not planned is a second look at games already read, and the report says so.

    Returns:
        A :class:`RunSummary`. On Ctrl-C the finished chunks are kept and ``interrupted`` is
        True.

    Raises:
        RunError: the folder holds another run (without ``force``), or a complete or partial
            run of this configuration exists and neither ``resume`` nor ``force`` is set, or
            another process is writing the folder, or its manifest is invalid or edited, or a
            data file changed, or the disk refuses a write (finished chunks are kept).
    """
    game = config.game_obj
    path = Path(path)
    check_before_writing(config, backend, scheduler)
    data_files = config.data_files()
    if path.exists() and not (path / MANIFEST).exists() and (
        not path.is_dir() or any(p.name != LOCK for p in path.iterdir())
    ):
        # never write into (or, with --force, delete) something that is not a run
        raise RunError(
            f"{str(path)!r} exists and is not a balancelab run folder; choose another --out"
        )
    created_here = not path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise RunError(f"cannot write the run folder {str(path)!r}: {os_reason(exc)}"
                       ) from None
    try:
        with RunLock(path):
            return _run_locked(config, path, game, data_files, jobs=jobs, backend=backend,
                               scheduler=scheduler, progress=progress, force=force,
                               resume=resume, planned=planned)
    except BaseException as exc:
        # a rejected run leaves no folder: one this call made and that holds no game yet
        # (a dask scheduler that cannot be reached fails after the manifest is written); a
        # Ctrl-C keeps a written manifest, so the run can be resumed as the message says
        if created_here and (not (path / MANIFEST).exists() or (
                isinstance(exc, Exception) and not holds_games(path))):
            import shutil

            shutil.rmtree(path, ignore_errors=True)
        raise


def _run_locked(config: RunConfig, path: Path, game: Game, data_files: list[dict[str, Any]],
                *, jobs: int, backend: str, scheduler: str | None,
                progress: Callable[[int, int], None] | None, force: bool,
                resume: bool, planned: bool = False) -> RunSummary:
    """:func:`run`, holding the folder's lock."""
    import joblib

    records: dict[str, dict[str, Any]] = {}
    repaired: list[str] = []
    set_aside: list[str] = []
    old: dict[str, Any] | None = None
    extensions: list[dict[str, Any]] = []
    if (path / MANIFEST).exists() and not force:
        try:
            old = read_manifest(path, check=False)
        except RunError as exc:
            raise RunError(f"{exc} (or pass --force to replace the folder)") from None
        if old["game"] != game.name:
            raise RunError(
                f"{str(path)!r} holds a run of {old['game']!r}, not {game.name!r}; choose "
                "another --out, or pass --force to replace it")
        if old["game_version"] != game.version:
            raise RunError(
                f"{str(path)!r} was written by {game.name} rules version "
                f"{old['game_version']!r}; this balancelab plays version {game.version!r}. "
                "Resuming would mix rule versions: choose another --out or pass --force"
            )
        check_manifest(path, old)
        old_cfg = RunConfig.from_json(old["config"])
        if config.identity(data=old["data_files"]) == old["identity"] or (
                config.chunk_auto and dataclasses.replace(
                    config, chunk_games=old_cfg.chunk_games).identity(
                        data=old["data_files"]) == old["identity"]):
            # the same run, unless a data file changed
            check_data_files(path, old)
        if old["identity"] != config.identity() and config.chunk_auto:
            # an automatic chunk size follows the run's own, so that --games can extend it
            adopted = dataclasses.replace(config, chunk_games=old_cfg.chunk_games)
            if adopted.identity() == old["identity"]:
                log.info("%s: keeping the run's chunk size of %d games", path,
                         old_cfg.chunk_games)
                config = adopted
        if old["identity"] != config.identity():
            raise RunError(
                f"{str(path)!r} holds another run ({old['label']}); choose another --out "
                "or pass --force to replace it"
            )
        if config.games < old_cfg.games:
            raise RunError(
                f"{str(path)!r} plans {old_cfg.games:,} games per variant; --games "
                f"{config.games:,} would shrink it (--resume can only complete or extend a run; "
                "--force starts over)"
            )
        if not resume:
            raise RunError(
                f"{str(path)!r} already holds this run "
                f"({old['games_written']:,}/{old['games_total']:,} games); "
                "pass --resume to complete or extend it, or --force to start over"
            )
        damage = inspect_run(path, old)
        repaired = sorted(set(damage.missing + damage.truncated + damage.foreign))
        try:
            set_aside = set_aside_files(path, damage.strays)
            if set_aside:
                log.warning("%s: set aside %d stray file(s): %s", path, len(set_aside),
                            ", ".join(set_aside))
        except OSError as exc:
            raise RunError(f"cannot set stray files aside in {str(path)!r}: "
                           f"{os_reason(exc)}") from None
        # a chunk counts as done only if it covers the same games as when it was written
        # (extending a run with --games lengthens its last, partial chunk) and is intact
        assert config.chunk_games is not None
        new_plan = plan_chunks(len(config.variants), config.games, config.chunk_games)
        for key, rec in old["chunks"].items():
            c = new_plan.get(key)
            if key not in damage.bad_chunks and c is not None and (c.start, c.stop) == (
                    rec["start"], rec["stop"]):
                records[key] = dict(rec)
        created = old.get("created")
        extensions = list(old.get("extensions") or [])
        if old["complete"] and config.games > old_cfg.games:
            extensions.append({"from": old_cfg.games, "to": config.games, "planned": planned})
    else:
        if force:
            try:
                if (path / MANIFEST).exists():
                    log.info("%s: --force: deleting the run it held", path)
                clear_folder(path)
            except OSError as exc:
                raise RunError(f"cannot replace {str(path)!r}: {os_reason(exc)}") from None
        created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    staging = path / ".staging"

    assert config.chunk_games is not None
    chunks = plan_chunks(len(config.variants), config.games, config.chunk_games)
    n_todo = len(chunks) - len(records)
    if old is not None:
        log.info("%s: resuming: skipping %d chunk(s) already written, playing %d", path,
                 len(records), n_todo)
        if repaired:
            log.warning("%s: playing again %d missing, truncated or foreign file(s): %s", path,
                        len(repaired), ", ".join(repaired))
    total = config.games * len(config.variants)
    written = sum(int(r["rows"]) for r in records.values())
    written_before = written
    run_id = path.name
    specs = [config.seat_specs(v) for v in config.variants]

    manifest: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "run_id": run_id,
        "game": game.name,
        "game_version": game.version,
        "label": " | ".join(v.label() for v in config.variants),
        "identity": config.identity(data=data_files),
        "config": config.to_json(),
        "variants": [
            {
                "variant": i,
                "label": v.label(),
                "options": v.as_dict(),
                "seats": list(game.seats(v)),
                "policies": specs[i],
            }
            for i, v in enumerate(config.variants)
        ],
        "versions": package_versions(),
        # policies that see the true state instead of their seat's view (``oracle``)
        "cheats": cheating_specs(config),
        "created": created,
        "games_total": total,
        "games_written": written,
        "chunks_total": len(chunks),
        "chunks_done": sorted(records, key=chunk_sort),
        "chunks": records,
        "data_files": data_files,
        "decisions": 0 if old is None else old["decisions"],
        "wall_seconds": 0.0 if old is None else old["wall_seconds"],
        # CPU seconds the workers spent playing (time.process_time; absent in older runs)
        "cpu_seconds": 0.0 if old is None else float(old.get("cpu_seconds", 0.0)),
        "complete": n_todo == 0,
        **({"extensions": extensions} if extensions else {}),
    }
    try:
        write_json_atomic(path / MANIFEST, manifest)
    except OSError as exc:
        raise RunError(f"cannot write the run folder {str(path)!r}: {os_reason(exc)}") from None

    t0 = time.perf_counter()
    base_wall = manifest["wall_seconds"]
    interrupted = False
    if progress:
        progress(written, total)

    def labels_for(v: int) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "game": game.name,
            "game_version": game.version,
            "variant_label": config.variants[v].label(),
        }

    driver = os.getpid()
    registrations = plugins.shipment()

    def task(c: Chunk) -> Any:
        return joblib.delayed(play_chunk)(
            game.name,
            config.variants[c.variant].as_dict(),
            specs[c.variant],
            config.rotate,
            config.seed,
            c.start,
            c.stop,
            labels_for(c.variant),
            driver_pid=driver,
            registrations=registrations,
        )

    last_flush = time.perf_counter()

    def flush(final: bool = False) -> None:
        nonlocal last_flush
        now = time.perf_counter()
        if not final and now - last_flush < MANIFEST_EVERY:
            return
        manifest["games_written"] = written
        manifest["chunks_done"] = sorted(records, key=chunk_sort)
        manifest["wall_seconds"] = round(base_wall + now - t0, 3)
        manifest["complete"] = written == total
        write_json_atomic(path / MANIFEST, manifest)
        last_flush = now

    schemas = [games_schema(game, v) for v in config.variants]
    seat_schema = seats_schema(game)
    metas = [parquet_metadata(game, v) for v in config.variants]
    seat_meta = parquet_metadata(game)
    results: Iterator[tuple[Chunk, Any]] | None = None
    todo = (c for c in chunks if c.key not in records)
    try:
        with executors.use_backend(backend, scheduler, jobs, max(1, n_todo)) as be:
            parallel, n_jobs = executors.joblib_parallel(be, jobs, n_todo)
            log.info("%s: playing %d chunk(s) of %d games on %d %s worker(s)", path, n_todo,
                     config.chunk_games, n_jobs, be)
            results = executors.results(parallel, be, n_jobs, task, todo, driver)
            for c, (games_cols, seats_cols, decisions, cpu) in results:
                # the worker sent plain columns; the frames are built here, in the driver
                games_df = chunk_frame(games_cols, schemas[c.variant])
                seats_df = None if seats_cols is None else chunk_frame(seats_cols, seat_schema)
                try:
                    size, sha = write_parquet_atomic(
                        games_df, staging, path / "games" / f"variant={c.variant}" / c.filename,
                        metas[c.variant])
                    done_rec: dict[str, Any] = {"start": c.start, "stop": c.stop,
                                                "rows": c.stop - c.start, "bytes": size,
                                                "sha256": sha}
                    if seats_df is not None:
                        s_size, s_sha = write_parquet_atomic(
                            seats_df, staging,
                            path / "seats" / f"variant={c.variant}" / c.filename, seat_meta)
                        done_rec.update(seats_rows=seats_df.height, seats_bytes=s_size,
                                        seats_sha256=s_sha)
                    records[c.key] = done_rec
                    written += c.stop - c.start
                    manifest["decisions"] += int(decisions)
                    manifest["cpu_seconds"] = round(manifest["cpu_seconds"] + cpu, 3)
                    flush(final=written == total)
                except OSError as exc:
                    raise RunError(_disk_error(exc, c, path, written)) from None
                if progress:
                    progress(written, total)
    except KeyboardInterrupt:
        interrupted = True
        if results is not None:
            executors.quietly_close(results)
    finally:
        with contextlib.suppress(OSError):
            flush(final=True)  # what finished is recorded (a full disk: replayed on resume)
        with contextlib.suppress(OSError):
            for stray in staging.iterdir():
                stray.unlink(missing_ok=True)
            staging.rmdir()
    return RunSummary(path, written, total, time.perf_counter() - t0, interrupted,
                      written - written_before, repaired, set_aside)


def _disk_error(exc: OSError, c: Chunk, path: Path, written: int) -> str:
    """One line for a failed chunk write: the file, the reason, what is kept, what to do."""
    where = exc.filename or str(path)
    hint = {errno.ENOSPC: "free some space", errno.EDQUOT: "free some space",
            errno.EROFS: "make the disk writable", errno.EACCES: "fix the permissions",
            errno.EPERM: "fix the permissions"}.get(exc.errno or 0, "fix the disk")
    return (f"cannot write chunk {c.key} of {str(path)!r} ({where}): {os_reason(exc)}; the "
            f"{written:,} games already written are kept; {hint}, then: balancelab resume "
            f"{path}")


def resume_config(path: Path, games: int | None = None) -> RunConfig:
    """The configuration stored in a run folder, optionally extended to ``games`` per variant.

    Raises:
        RunError: not a run folder, an invalid or edited manifest, or ``games`` fewer than
            the run already holds.
    """
    data = read_manifest(path)
    config = RunConfig.from_json(data["config"])
    if games is not None:
        if games < config.games:
            raise RunError(
                f"the run already plans {config.games:,} games per variant; --games can only "
                "extend it"
            )
        config.games = checked_int("--games", games, 1, MAX_GAMES)
    return config

