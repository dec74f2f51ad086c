"""The parallel runner: chunks of games on joblib workers, streamed to parquet by the driver.

A run is a folder::

    runs/<run>/run.json                                  manifest (config, versions, progress)
    runs/<run>/games/variant=<v>/chunk-<c>.parquet       one row per game
    runs/<run>/seats/variant=<v>/chunk-<c>.parquet       one row per game and seat (iss)

Reproducibility: game *i* of every variant is played from
``SeedSequence(seed, spawn_key=(i, stream))`` (stream 0 the rules, 1+k seat k's policy), and
chunk boundaries are fixed multiples of the run's chunk size, itself a pure function of the
configuration (:func:`auto_chunk_games`: the game's ``chunk_games`` and the number of games,
never the machine's speed or core count). The same seed therefore gives identical parquet bytes
for any ``jobs``, backend or machine, and game *i* of two variants shares its dice and shuffles
(common random numbers, paired comparisons).

Workers and driver: a worker runs :func:`~balancelab.simulate.worker.play_chunk` and returns
plain Python columns (the worker side imports neither polars nor pyarrow: ~30 MB a process);
the driver builds each chunk's polars frames (:func:`chunk_frame`, with :func:`games_schema`
and :func:`seats_schema`) and writes them.

Crash safety: each chunk is written to ``<run>/.staging/`` (outside the dataset folders) and
moved in with ``os.replace``; the manifest, rewritten atomically after each chunk, lists the
finished chunks. An interrupted run keeps them; ``resume`` plays only what is missing. A
chunk moved in but not yet in the manifest (a kill between the two) is played again and
replaced by identical bytes. A disk error (full, read-only) raises :class:`RunError` and keeps
what exists. Writes are atomic against a killed process, not against power loss (no fsync).
"""

from __future__ import annotations

import bisect
import contextlib
import dataclasses
import errno
import hashlib
import json
import os
import platform
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import ColumnType, Game, PlayedGame
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.worker import (
    Columns,
    games_columns,
    play_chunk,
    play_game,
    seat_assignment,
    seats_columns,
    worker_ready,
)

MANIFEST = "run.json"
#: Version of the run-folder layout; a manifest with another value is refused.
FORMAT_VERSION = 1
BACKENDS = ("loky", "threading", "sequential", "dask")
#: Auto-sized runs are cut into at least this many chunks where the game's chunk size allows.
MIN_CHUNKS = 32
#: ... but an auto-sized chunk is never smaller than the game's ``chunk_games / MAX_SPLIT``.
MAX_SPLIT = 8
#: Chunks dispatched per worker in one window (bounds the driver's backlog; see _windowed).
WINDOW_PER_WORKER = 16


class RunError(RuntimeError):
    """A run folder is missing, is not a run, belongs to another format, or cannot be written."""


# -- configuration ---------------------------------------------------------------------------


@dataclass
class RunConfig:
    """Everything that determines a run's results.

    Attributes:
        game: game name.
        variants: one options object per variant (a sweep has several).
        policies: side or seat name → policy spec (``{"crew": "search:rollouts=200"}``); sides
            not named play their game's default.
        seed: the run seed (non-negative int).
        games: games per variant.
        rotate: rotate differing policies through the seats of a side, every permutation
            equally often (game *i* takes permutation ``i % n!``).
        chunk_games: games per chunk (default: :func:`auto_chunk_games` of the game's
            ``chunk_games`` and ``games``).
        chunk_auto: True when ``chunk_games`` was chosen automatically (then resuming a run
            keeps the run's original chunk size, so ``--games`` can extend it).
    """

    game: str
    variants: list[RuleOptions]
    policies: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    games: int = 1000
    rotate: bool = True
    chunk_games: int | None = None
    chunk_auto: bool = field(default=False, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        g = get_game(self.game)
        if self.seed < 0:
            raise RunError(f"--seed must be a non-negative integer; got {self.seed}")
        if self.games < 1:
            raise RunError(f"--games must be at least 1; got {self.games}")
        if self.chunk_games is None:
            self.chunk_games = auto_chunk_games(g.chunk_games, self.games)
            self.chunk_auto = True
        if self.chunk_games < 1:
            raise RunError(f"chunk size must be at least 1; got {self.chunk_games}")
        if not self.variants:
            self.variants = [g.options_type()]
        # validate policy names against every variant's seats
        for v in self.variants:
            self.seat_specs(v)

    @property
    def game_obj(self) -> Game:
        return get_game(self.game)

    def seat_specs(self, options: RuleOptions) -> list[str]:
        """The resolved policy spec of each seat for one variant (before rotation).

        Raises:
            PolicyError: an unknown side/seat name, policy or policy parameter.
        """
        g = self.game_obj
        seats = g.seats(options)
        names = set(g.sides) | set(seats)
        for key in self.policies:
            if key not in names and key not in g.sides:
                raise policies.PolicyError(
                    f"unknown side or seat {key!r} for {g.name!r} with "
                    f"{options.label()}; valid: {', '.join(dict.fromkeys([*g.sides, *seats]))}"
                )
        out = []
        for i, seat in enumerate(seats):
            side = g.side_of_seat(options, i)
            spec = self.policies.get(seat, self.policies.get(side, "default"))
            out.append(policies.resolve(g, side, spec))
        return out

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "variants": [v.as_dict() for v in self.variants],
            "policies": dict(sorted(self.policies.items())),
            "seed": self.seed,
            "games": self.games,
            "rotate": self.rotate,
            "chunk_games": self.chunk_games,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunConfig:
        g = get_game(d["game"])
        variants = [g.options_type.from_strings(_untuple(v)) for v in d["variants"]]
        return cls(
            game=d["game"],
            variants=variants,
            policies=dict(d["policies"]),
            seed=int(d["seed"]),
            games=int(d["games"]),
            rotate=bool(d["rotate"]),
            chunk_games=int(d["chunk_games"]),
        )

    def identity(self) -> str:
        """A short hash of what determines the results (not the game count)."""
        d = self.to_json()
        d.pop("games")
        d["game_version"] = self.game_obj.version
        raw = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha1(raw).hexdigest()[:8]

    def default_run_name(self) -> str:
        """``<game>-<label>-seed<seed>`` for one variant, ``<game>-sweep-<hash>`` for several."""
        if len(self.variants) == 1:
            label = self.variants[0].label().replace("=", "").replace(",", "-")
            pol = "" if not self.policies else "-" + self.identity()
            return f"{self.game}-{label}-seed{self.seed}{pol}"
        return f"{self.game}-sweep-{self.identity()}-seed{self.seed}"


def _untuple(d: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in d.items()}


# -- chunks ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Chunk:
    """Games ``[start, stop)`` of one variant."""

    variant: int
    index: int
    start: int
    stop: int

    @property
    def key(self) -> str:
        return f"{self.variant}:{self.index}"

    @property
    def filename(self) -> str:
        return f"chunk-{self.index:06d}.parquet"


def auto_chunk_games(chunk_games: int, games: int) -> int:
    """The chunk size of a run: a pure function of the game's chunk size and the games per variant.

    A game's ``chunk_games`` is sized so that one chunk takes ~0.2–2 s on one core: long enough
    that the per-chunk cost (dispatch, pickling the columns back, building the frame, one
    parquet file, one manifest rewrite: a few ms) stays small, short enough that progress,
    Ctrl-C and resume are fine-grained and a worker holds little. A small run would then be
    only a few chunks and leave workers idle, so the size is halved (``c, c/2, c/4, ...``)
    until the run has at least :data:`MIN_CHUNKS` chunks, but never below
    ``chunk_games / MAX_SPLIT`` (~25–250 ms of work, where the per-chunk cost would start to
    show). It never depends on the core count or on measured speed: the same configuration
    gives the same chunks, hence the same parquet bytes, on any machine.

    Examples:
        >>> auto_chunk_games(1000, 100_000), auto_chunk_games(1000, 10_000)
        (1000, 250)
        >>> auto_chunk_games(1000, 1000), auto_chunk_games(1000, 40)
        (125, 125)
    """
    size = max(1, chunk_games)
    floor = max(1, chunk_games // MAX_SPLIT)
    while -(-games // size) < MIN_CHUNKS and size // 2 >= floor:
        size //= 2
    return size


def plan_chunks(n_variants: int, games: int, chunk_games: int) -> list[Chunk]:
    """Every chunk of a run, interleaved across variants so a partial run covers all of them."""
    n_chunks = -(-games // chunk_games)
    return [
        Chunk(v, c, c * chunk_games, min(games, (c + 1) * chunk_games))
        for c in range(n_chunks)
        for v in range(n_variants)
    ]


#: The one mapping from a schema's column types to polars (and so parquet) dtypes.
POLARS_TYPES: dict[ColumnType, type[pl.DataType]] = {
    "bool": pl.Boolean,
    "i8": pl.Int8,
    "i16": pl.Int16,
    "i32": pl.Int32,
    "i64": pl.Int64,
    "f64": pl.Float64,
    "str": pl.String,
}


def polars_schema(columns: dict[str, ColumnType]) -> dict[str, type[pl.DataType]]:
    """A table layout (column name → :data:`~balancelab.simulate.core.ColumnType`) as polars.

    Raises:
        ValueError: a column type that is not a ``ColumnType``.
    """
    out = {}
    for name, t in columns.items():
        if t not in POLARS_TYPES:
            raise ValueError(f"column {name!r} has type {t!r}; valid: {', '.join(POLARS_TYPES)}")
        out[name] = POLARS_TYPES[t]
    return out


def games_schema(game: Game, options: RuleOptions) -> dict[str, type[pl.DataType]]:
    """The explicit polars schema of the games table (column order included).

    The layout is :func:`~balancelab.simulate.worker.games_columns`.
    """
    return polars_schema(games_columns(game, options))


def seats_schema(game: Game) -> dict[str, type[pl.DataType]]:
    """The explicit polars schema of the seats table (:func:`~.worker.seats_columns`)."""
    return polars_schema(seats_columns(game))


def chunk_frame(columns: Columns, schema: dict[str, type[pl.DataType]]) -> pl.DataFrame:
    """The polars frame of one table of a chunk, from :func:`play_chunk`'s columns.

    Args:
        columns: column name → values, as a worker returns them.
        schema: that table's :func:`games_schema` or :func:`seats_schema`.

    Raises:
        ValueError: the columns are not the schema's, in its order.
    """
    if list(columns) != list(schema):
        raise ValueError(f"chunk columns {list(columns)} do not match the schema {list(schema)}")
    return pl.DataFrame([pl.Series(name, columns[name], dtype=dtype)
                         for name, dtype in schema.items()])


# -- the run ---------------------------------------------------------------------------------


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


def cheating_specs(config: RunConfig) -> list[str]:
    """The run's policy specs that CHEAT (``Policy.sees_state``: they are handed the true
    state, every hand and the deck order, not their seat's view), sorted; empty for a fair
    run. Manifests record them and reports warn about them."""
    g = config.game_obj
    out = set()
    for v in config.variants:
        for seat, spec in enumerate(config.seat_specs(v)):
            side = g.side_of_seat(v, seat)
            factory, _ = policies._factory_and_params(g.name, side, spec)
            if getattr(factory, "sees_state", False):
                out.add(spec)
    return sorted(out)


def _versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for pkg in ("balancelab", "numpy", "polars", "pyarrow", "joblib"):
        with contextlib.suppress(metadata.PackageNotFoundError):
            out[pkg] = metadata.version(pkg)
    return out


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest of a run folder.

    Raises:
        RunError: the folder or its ``run.json`` is missing, unreadable, or of another format.
    """
    path = Path(path)
    if not path.is_dir():
        raise RunError(f"no run folder at {str(path)!r}")
    mf = path / MANIFEST
    if not mf.is_file():
        inner = sorted(p.name for p in path.iterdir() if (p / MANIFEST).is_file())
        if inner:  # a study's folder: one run per policy pairing
            raise RunError(
                f"{str(path)!r} is not a run but holds runs ({', '.join(inner)}): a study's "
                "folder. Name one of them (e.g. "
                f"{str(path / inner[0])!r}), or continue an interrupted study with its own "
                "command and --resume")
        raise RunError(f"{str(path)!r} is not a balancelab run (no {MANIFEST})")
    try:
        data = json.loads(mf.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise RunError(f"cannot read {mf}: {exc}") from None
    if data.get("format_version") != FORMAT_VERSION:
        raise RunError(
            f"{mf} has run format {data.get('format_version')!r}; this balancelab reads "
            f"format {FORMAT_VERSION}. Re-run it with this version."
        )
    return data


def holds_finished(config: RunConfig, path: Path) -> bool:
    """True when ``path`` holds a finished run of exactly this configuration (same identity:
    game version, variants, policies, seed; same number of games). A folder that is not a
    run, or an unreadable manifest, is not one (``run`` says why if asked to write there)."""
    if not (Path(path) / MANIFEST).exists():
        return False
    try:
        old = read_manifest(Path(path))
    except RunError:
        return False
    return bool(old.get("complete")) and old.get("identity") == config.identity() and int(
        old["config"]["games"]) == config.games


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def _write_parquet_atomic(df: pl.DataFrame, staging: Path, dest: Path) -> None:
    staging.mkdir(parents=True, exist_ok=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging / f"{dest.parent.parent.name}-{dest.parent.name}-{dest.name}"
    df.write_parquet(tmp, compression="zstd", statistics=True)
    os.replace(tmp, dest)


def _check_before_writing(config: RunConfig, backend: str, scheduler: str | None) -> None:
    """Refuse a run that would fail once started, before its folder is touched: an unknown
    backend, dask missing, or a policy parameter its policy rejects (each seat's policy is
    built once, as a worker would).

    Raises:
        RunError: the backend cannot run.
        PolicyError: a policy or policy parameter is invalid.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise RunError("--scheduler needs --backend dask")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise RunError(
                "--backend dask needs dask.distributed: pip install 'balancelab[dask]'"
            ) from None
    game = config.game_obj
    for options in config.variants:
        for seat, spec in enumerate(config.seat_specs(options)):
            policies.build(game, options, seat, spec, np.random.default_rng(0))


@contextlib.contextmanager
def _backend(backend: str, scheduler: str | None, jobs: int = -1) -> Iterator[str]:
    """Enter the joblib backend; for dask, a client to ``scheduler`` or a local cluster.

    The local cluster has ``jobs`` single-threaded worker processes (all cores for -1). Workers
    only play chunks and send the frames back; the driver alone writes, so a remote cluster
    needs balancelab installed on its workers but no shared disk.

    Raises:
        RunError: an unknown backend, dask not installed, or the scheduler cannot be reached.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise RunError("--scheduler needs --backend dask")
    if backend != "dask":
        yield backend
        return
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise RunError(
            "--backend dask needs dask.distributed: pip install 'balancelab[dask]'"
        ) from None
    import joblib

    cluster = None
    try:
        if scheduler:
            client = Client(scheduler)
        else:
            n = jobs if jobs > 0 else (os.cpu_count() or 1)
            cluster = LocalCluster(processes=True, n_workers=n, threads_per_worker=1,
                                   dashboard_address=None)
            client = Client(cluster)
    except (OSError, TimeoutError) as exc:
        if cluster is not None:
            cluster.close()
        raise RunError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
    try:
        with joblib.parallel_config(backend="dask"):
            yield "dask"
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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
) -> RunSummary:
    """Play a run (or the part of it not yet written) and stream it to ``path``.

    Args:
        config: the run's configuration.
        path: the run folder.
        jobs: joblib workers (-1: all cores).
        backend: ``loky`` (default), ``threading``, ``sequential`` or ``dask``.
        scheduler: dask scheduler address (``tcp://host:8786``); None starts a local cluster.
        progress: called with (games written, games total) after each chunk.
        force: replace an existing run folder of another configuration.
        resume: continue an existing run of the same configuration (also used to extend
            ``config.games``).

    Returns:
        A :class:`RunSummary`. On Ctrl-C the finished chunks are kept and ``interrupted`` is
        True.

    Raises:
        RunError: the folder holds another run (without ``force``), or a complete or partial
            run of this configuration exists and neither ``resume`` nor ``force`` is set, or
            the disk refuses a write (finished chunks are kept).
    """
    import joblib

    game = config.game_obj
    path = Path(path)
    _check_before_writing(config, backend, scheduler)
    done: set[str] = set()
    if path.exists() and not (path / MANIFEST).exists() and (
        not path.is_dir() or any(path.iterdir())
    ):
        # never write into (or, with --force, delete) something that is not a run
        raise RunError(
            f"{str(path)!r} exists and is not a balancelab run folder; choose another --out"
        )
    if (path / MANIFEST).exists() and not force:
        old = read_manifest(path)
        if old.get("game_version") != game.version:
            raise RunError(
                f"{str(path)!r} was written by {game.name} rules version "
                f"{old.get('game_version')!r}; this balancelab plays version {game.version!r}. "
                "Resuming would mix rule versions: choose another --out or pass --force"
            )
        if old["identity"] != config.identity() and config.chunk_auto:
            # an automatic chunk size follows the run's own, so that --games can extend it
            adopted = dataclasses.replace(config, chunk_games=int(old["config"]["chunk_games"]))
            if adopted.identity() == old["identity"]:
                config = adopted
        if old["identity"] != config.identity():
            raise RunError(
                f"{str(path)!r} holds another run ({old['label']}); choose another --out "
                "or pass --force to replace it"
            )
        if config.games < int(old["config"]["games"]):
            raise RunError(
                f"{str(path)!r} plans {old['config']['games']} games per variant; --games "
                f"{config.games} would shrink it (--resume can only complete or extend a run; "
                "--force starts over)"
            )
        if not resume:
            raise RunError(
                f"{str(path)!r} already holds this run "
                f"({old['games_written']}/{old['games_total']} games); "
                "pass --resume to complete or extend it, or --force to start over"
            )
        done = set(old["chunks_done"])
        # a chunk counts as done only if it covers the same games as when it was written
        # (extending a run with --games lengthens its last, partial chunk)
        old_plan = {c.key: c for c in plan_chunks(
            len(config.variants), int(old["config"]["games"]), int(old["config"]["chunk_games"]))}
        created = old.get("created")
    else:
        old_plan = {}
        if force and path.exists():
            import shutil

            try:
                shutil.rmtree(path)
            except OSError as exc:
                raise RunError(f"cannot replace {str(path)!r}: {exc}") from None
        created = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    staging = path / ".staging"

    assert config.chunk_games is not None
    chunks = plan_chunks(len(config.variants), config.games, config.chunk_games)
    done = {c.key for c in chunks if c.key in done and old_plan.get(c.key) == c}
    todo = [c for c in chunks if c.key not in done]
    done_sorted = sorted(done, key=_chunk_sort)  # kept sorted by insertion (no re-sorts)
    total = config.games * len(config.variants)
    written = sum(c.stop - c.start for c in chunks if c.key in done)
    written_before = written
    run_id = path.name
    specs = [config.seat_specs(v) for v in config.variants]

    manifest: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "run_id": run_id,
        "game": game.name,
        "game_version": game.version,
        "label": " | ".join(v.label() for v in config.variants),
        "identity": config.identity(),
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
        "versions": _versions(),
        # policies that see the true state instead of their seat's view (``oracle``)
        "cheats": cheating_specs(config),
        "created": created,
        "games_total": total,
        "games_written": written,
        "chunks_total": len(chunks),
        "chunks_done": done_sorted,
        "decisions": 0,
        "wall_seconds": 0.0,
        "complete": not todo,
    }
    if (path / MANIFEST).exists():
        old = read_manifest(path)
        manifest["decisions"] = old.get("decisions", 0)
        manifest["wall_seconds"] = old.get("wall_seconds", 0.0)
    try:
        path.mkdir(parents=True, exist_ok=True)
        _write_json_atomic(path / MANIFEST, manifest)
    except OSError as exc:
        raise RunError(f"cannot write the run folder {str(path)!r}: {_os_reason(exc)}") from None

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
        )
    schemas = [games_schema(game, v) for v in config.variants]
    seat_schema = seats_schema(game)
    results: Iterator[tuple[Chunk, Any]] | None = None
    try:
        with _backend(backend, scheduler, jobs) as be:
            n_jobs = 1 if be == "sequential" else jobs
            if be != "dask":  # never more workers than chunks (or than cores, for -1)
                n_jobs = max(1, min(joblib.effective_n_jobs(n_jobs), len(todo)))
            parallel = joblib.Parallel(
                n_jobs=n_jobs,
                backend=None if be in ("dask",) else ("loky" if be == "sequential" else be),
                return_as="generator",
            )
            if be == "loky" and n_jobs > 1:
                _start_workers_deaf_to_ctrl_c(parallel, n_jobs)
            window = WINDOW_PER_WORKER * max(1, joblib.effective_n_jobs(n_jobs))
            results = _windowed(parallel, task, todo, window)
            for c, (games_cols, seats_cols, decisions) in results:
                # the worker sent plain columns; the frames are built here, in the driver
                games_df = chunk_frame(games_cols, schemas[c.variant])
                seats_df = None if seats_cols is None else chunk_frame(seats_cols, seat_schema)
                try:
                    _write_parquet_atomic(
                        games_df, staging, path / "games" / f"variant={c.variant}" / c.filename
                    )
                    if seats_df is not None:
                        _write_parquet_atomic(
                            seats_df, staging,
                            path / "seats" / f"variant={c.variant}" / c.filename,
                        )
                    done.add(c.key)
                    bisect.insort(done_sorted, c.key, key=_chunk_sort)
                    manifest["games_written"] = written + c.stop - c.start
                    manifest["decisions"] += int(decisions)
                    manifest["wall_seconds"] = round(base_wall + time.perf_counter() - t0, 3)
                    manifest["complete"] = manifest["games_written"] == total
                    _write_json_atomic(path / MANIFEST, manifest)
                except OSError as exc:
                    raise RunError(
                        f"cannot write chunk {c.key} to {str(path)!r}: {_os_reason(exc)}; the "
                        f"{written} games already written are kept; free space, then: "
                        f"balancelab resume {path}"
                    ) from None
                written += c.stop - c.start
                if progress:
                    progress(written, total)
    except KeyboardInterrupt:
        interrupted = True
        if results is not None:
            _quietly_close(results)
    finally:
        with contextlib.suppress(OSError):
            for stray in staging.iterdir():
                stray.unlink(missing_ok=True)
            staging.rmdir()
    return RunSummary(path, written, total, time.perf_counter() - t0, interrupted,
                      written - written_before)


def _start_workers_deaf_to_ctrl_c(parallel: Any, n_jobs: int) -> None:
    """Start the loky workers while the driver blocks SIGINT: they inherit the blocked signal,
    so a Ctrl-C (sent by a terminal to the whole process group) does not interrupt a worker
    while it starts up and imports its libraries (it would print a traceback). The driver
    alone handles Ctrl-C; one pressed meanwhile reaches it when SIGINT is unblocked. (A worker
    loky starts later, to replace one, can still print an import traceback if Ctrl-C lands
    during its first second: rare, and harmless.)
    """
    import joblib

    if threading.current_thread() is not threading.main_thread():
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        for _ in parallel(joblib.delayed(worker_ready)() for _ in range(n_jobs)):
            pass
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _windowed(parallel: Any, task: Callable[[Chunk], Any], todo: list[Chunk],
              window: int) -> Iterator[tuple[Chunk, Any]]:
    """(chunk, result) in order, dispatching at most ``window`` chunks per joblib call.

    joblib hands a worker its next task as soon as it finishes one, whether or not the driver
    has consumed the results; were the driver slower than the workers (tiny chunks, a large
    cluster), finished chunks would pile up in memory for the whole run. Windows bound that
    backlog by the number of workers, never by the number of games; the cost is a short tail
    at each window's end (~3% at 16 chunks per worker).
    """
    for lo in range(0, len(todo), window):
        part = todo[lo:lo + window]
        outputs = parallel(task(c) for c in part)
        try:
            yield from zip(part, outputs, strict=True)
        finally:
            # joblib's generator would otherwise be closed by the garbage collector, which
            # prints a traceback when a Ctrl-C reaches its clean-up
            _quietly_close(outputs)


def _quietly_close(gen: Any) -> None:
    """Close a generator, swallowing a second Ctrl-C (or error) raised by its clean-up."""
    try:
        gen.close()
    except (KeyboardInterrupt, Exception):  # noqa: BLE001 - interruption already handled
        pass


def _os_reason(exc: OSError) -> str:
    """An OSError in words: ``No space left on device (ENOSPC)``."""
    name = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc)
    return f"{reason} ({name})" if name else reason


def _chunk_sort(key: str) -> tuple[int, int]:
    v, c = key.split(":")
    return int(c), int(v)


def resume_config(path: Path, games: int | None = None) -> RunConfig:
    """The configuration stored in a run folder, optionally extended to ``games`` per variant.

    Raises:
        RunError: not a run folder, or ``games`` fewer than the run already holds.
    """
    data = read_manifest(path)
    config = RunConfig.from_json(data["config"])
    if games is not None:
        if games < config.games:
            raise RunError(
                f"the run already plans {config.games} games per variant; --games can only "
                "extend it"
            )
        config.games = games
    return config


# -- reading ---------------------------------------------------------------------------------


def scan_games(path: Path) -> pl.LazyFrame:
    """Lazily read the games table of a run, with the ``variant`` partition as Int32.

    Raises:
        RunError: not a run folder, or no games written yet.
    """
    return _scan(path, "games")


def scan_seats(path: Path) -> pl.LazyFrame:
    """Lazily read the seats table (games with per-seat scores).

    Raises:
        RunError: not a run folder, or the game has no seats table.
    """
    return _scan(path, "seats")


def _scan(path: Path, table: str) -> pl.LazyFrame:
    path = Path(path)
    read_manifest(path)
    files = sorted((path / table).glob("variant=*/chunk-*.parquet"))
    if not files:
        raise RunError(f"{str(path)!r} has no {table} written yet")
    return pl.scan_parquet(
        path / table / "variant=*" / "chunk-*.parquet",
        hive_partitioning=True,
        hive_schema={"variant": pl.Int32},
    )


def load_games(path: Path) -> pl.DataFrame:
    """The games table of a run, sorted by (variant, game_index). See :func:`games_schema`."""
    return scan_games(path).collect().sort(["variant", "game_index"])


def load_seats(path: Path) -> pl.DataFrame:
    """The seats table of a run, sorted by (variant, game_index, seat)."""
    return scan_seats(path).collect().sort(["variant", "game_index", "seat"])


def replay(path: Path, variant: int, game_index: int,
           on_step: Callable[..., None] | None = None) -> PlayedGame:
    """Play game ``game_index`` of a run's variant again, exactly as the runner did.

    Returns:
        The :class:`~balancelab.simulate.core.PlayedGame`.
    """
    data = read_manifest(path)
    config = RunConfig.from_json(data["config"])
    if not 0 <= variant < len(config.variants):
        raise RunError(f"variant must be in [0, {len(config.variants) - 1}]; got {variant}")
    if not 0 <= game_index < config.games:
        raise RunError(f"game index must be in [0, {config.games - 1}]; got {game_index}")
    return play_one(config, variant, game_index, on_step)


def play_one(config: RunConfig, variant: int, game_index: int,
             on_step: Callable[..., None] | None = None) -> PlayedGame:
    """Play one game of a configuration (the runner's game *i*, identically)."""
    game = config.game_obj
    options = config.variants[variant]
    sides = [game.side_of_seat(options, k) for k in range(len(game.seats(options)))]
    assigned = seat_assignment(config.seat_specs(options), sides, game_index, config.rotate)
    return play_game(game, options, assigned, config.seed, game_index, on_step)
