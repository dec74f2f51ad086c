"""The parallel runner: chunks of games on joblib workers, streamed to parquet by the driver.

A run is a folder::

    runs/<run>/run.json                                  manifest (config, versions, progress)
    runs/<run>/games/variant=<v>/chunk-<c>.parquet       one row per game
    runs/<run>/seats/variant=<v>/chunk-<c>.parquet       one row per game and seat (iss)

Reproducibility: game *i* of every variant is played from the rules' stream
``SeedSequence(seed, spawn_key=(i, 0))`` and, for seat k's policy, a Generator seeded by the
one-way key ``core.seat_key(seed, i, k)`` (from which neither the seed nor the rules' stream
can be read back), and chunk boundaries are fixed multiples of the run's chunk size, itself a
pure function of the configuration (:func:`auto_chunk_games`: the game's ``chunk_games`` and
the number of games, never the machine's speed or core count). The same seed therefore gives
identical parquet bytes for any ``jobs``, backend or machine, and game *i* of two variants
shares its dice and shuffles (common random numbers, paired comparisons).

Workers and driver: a worker runs :func:`~balancelab.simulate.worker.play_chunk` and returns
plain Python columns (the worker side imports neither polars nor pyarrow: ~30 MB a process);
the driver builds each chunk's polars frames (:func:`chunk_frame`, with :func:`games_schema`
and :func:`seats_schema`) and writes them.

Crash safety: each chunk is written to ``<run>/.staging/`` (outside the dataset folders) and
moved in with ``os.replace``; the manifest, rewritten atomically (after each chunk, at most
every :data:`MANIFEST_EVERY` seconds, and when the run stops), records each finished chunk's
games, rows, size and SHA-256. An interrupted run keeps them; ``resume`` plays only what is
missing. A chunk moved in but not yet recorded (a kill between the two) is played again and
replaced by identical bytes. A disk error (full, read-only) raises :class:`RunError` and keeps
what exists. Writes are atomic against a killed process, not against power loss (no fsync).

Integrity: ``run.json`` is validated against a schema (:class:`Manifest`, pydantic) and its
configuration against its own identity (an edited seed, option, policy or game count is
refused); every recorded chunk file is checked against its size and checksum, and any file in
the tables that the manifest does not record is a stray (:func:`inspect_run`). Loading a run
(:func:`scan_games`, reports) refuses a damaged folder naming the files in one line;
``resume`` plays the missing, truncated or foreign chunks again (the same bytes as an
uninterrupted run) and moves strays to ``<run>/set-aside/``. Data files (a board, card
tables) enter the identity by the SHA-256 of their content.

One writer: a run folder is written by one process at a time, holding ``<run>/.lock`` with
``fcntl.flock`` (released by the kernel when the process dies, so a kill -9 leaves no stuck
lock). Workers watch their driver and exit within a second when it dies
(:func:`~balancelab.simulate.worker.watch_driver`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import io
import itertools
import json
import logging
import os
import platform
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any, Literal, overload

import numpy as np
import polars as pl
from pydantic import ConfigDict, Field

from balancelab import plugins
from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import ColumnType, Game
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.play import PlayedGame
from balancelab.simulate.schema import DataError, Strict, validate
from balancelab.simulate.worker import (
    Columns,
    column_roles,
    games_columns,
    play_chunk,
    play_game,
    seat_assignment,
    seats_columns,
    worker_ready,
)

#: Resume decisions, worker and cluster start, skipped and repaired chunks (never per game).
log = logging.getLogger(__name__)

MANIFEST = "run.json"
#: Version of the run-folder layout; a manifest with another value is refused.
FORMAT_VERSION = 2
#: The largest run seed (the games table stores it as a signed 64-bit integer).
MAX_SEED = 2**63 - 1
#: The most games per variant a run may plan.
MAX_GAMES = 1_000_000_000
#: Seconds between two manifest rewrites while a run plays (it is always written at the end).
MANIFEST_EVERY = 0.5
#: The lock file of a run folder (see :class:`RunLock`).
LOCK = ".lock"
#: Where ``resume`` moves files found in a run's tables that its manifest does not record.
SET_ASIDE = "set-aside"
TABLES = ("games", "seats")
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
        self.seed = _checked_int("--seed", self.seed, 0, MAX_SEED)
        self.games = _checked_int("--games", self.games, 1, MAX_GAMES)
        if self.chunk_games is None:
            self.chunk_games = auto_chunk_games(g.chunk_games, self.games)
            self.chunk_auto = True
        self.chunk_games = _checked_int("--chunk-games", self.chunk_games, 1, MAX_GAMES)
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

    def data_files(self) -> list[dict[str, Any]]:
        """The data files the variants read (a board, card tables), with their content's hash.

        Returns:
            One ``{"variant", "option", "path", "sha256"}`` per variant and data option set.

        Raises:
            RunError: a data file or directory that does not exist or cannot be read.
        """
        out = []
        for i, v in enumerate(self.variants):
            for name, (kind, where) in v.data_paths().items():
                out.append({"variant": i, "option": name, "path": where,
                            "sha256": data_hash(name, kind, where)})
        return out

    def identity(self, game_version: str | None = None,
                 data: list[dict[str, Any]] | None = None) -> str:
        """A short hash of what determines the results (not the game count): the game's
        rules version, variants, policies, seed, seat rotation, chunk size, and the content
        hash of every data file (:meth:`data_files`; ``data`` gives recorded ones instead).
        """
        d = self.to_json()
        d.pop("games")
        d["game_version"] = self.game_obj.version if game_version is None else game_version
        files = self.data_files() if data is None else data
        if files:  # runs without data files keep the identity they always had
            d["data_files"] = sorted(
                (int(f["variant"]), str(f["option"]), str(f["sha256"])) for f in files)
        raw = json.dumps(d, sort_keys=True, default=str).encode()
        return hashlib.sha1(raw).hexdigest()[:8]

    def default_run_name(self) -> str:
        """``<game>-<label>-seed<seed>`` for one variant, ``<game>-sweep-<hash>`` for several."""
        if len(self.variants) == 1:
            label = self.variants[0].label().replace("=", "").replace(",", "-")
            pol = "" if not self.policies else "-" + self.identity()
            return f"{self.game}-{label}-seed{self.seed}{pol}"
        return f"{self.game}-sweep-{self.identity()}-seed{self.seed}"


def _checked_int(flag: str, value: Any, low: int, high: int) -> int:
    """``value`` as an int in ``[low, high]`` (numpy integers accepted, floats and bools not).

    Raises:
        RunError: naming the flag, the allowed range and the value given.
    """
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise RunError(f"{flag} takes a whole number in [{low:,}, {high:,}]; got {value!r}")
    v = int(value)
    if not low <= v <= high:
        raise RunError(f"{flag} must be in [{low:,}, {high:,}]; got {v:,}")
    return v


def data_hash(option: str, kind: str, where: str) -> str:
    """SHA-256 of a data file's bytes, or of a directory's files (names and bytes, sorted).

    Raises:
        RunError: the file or directory is missing or unreadable.
    """
    p = Path(where)
    h = hashlib.sha256()
    try:
        if kind == "dir":
            if not p.is_dir():
                raise RunError(f"{option}: no such directory {where!r}")
            for f in sorted(q for q in p.iterdir() if q.is_file()):
                h.update(f.name.encode() + b"\0" + hashlib.sha256(f.read_bytes()).digest())
        else:
            if not p.is_file():
                raise RunError(f"{option}: no such file {where!r}")
            h.update(p.read_bytes())
    except OSError as exc:
        raise RunError(f"{option}: cannot read {where!r}: {_os_reason(exc)}") from None
    return h.hexdigest()


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


class ChunkPlan(Sequence[Chunk]):
    """Every chunk of a run, interleaved across variants so a partial run covers all of them.

    Lazy: a chunk is computed from its position, so a plan of any size takes constant memory
    (``--games 1000000000`` plans a million chunks without holding them).
    """

    def __init__(self, n_variants: int, games: int, chunk_games: int) -> None:
        self.n_variants = n_variants
        self.games = games
        self.chunk_games = chunk_games
        self.n_chunks = -(-games // chunk_games)

    def __len__(self) -> int:
        return self.n_chunks * self.n_variants

    @overload
    def __getitem__(self, i: int) -> Chunk: ...

    @overload
    def __getitem__(self, i: slice) -> list[Chunk]: ...

    def __getitem__(self, i: int | slice) -> Chunk | list[Chunk]:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(i)
        c, v = divmod(i, self.n_variants)
        return self.chunk(v, c)

    def chunk(self, variant: int, index: int) -> Chunk:
        """Chunk ``index`` of ``variant``."""
        cg = self.chunk_games
        return Chunk(variant, index, index * cg, min(self.games, (index + 1) * cg))

    def get(self, key: str) -> Chunk | None:
        """The chunk of a key ``"<variant>:<index>"``, or None when the plan has none."""
        try:
            v, c = (int(x) for x in key.split(":"))
        except ValueError:
            return None
        if not (0 <= v < self.n_variants and 0 <= c < self.n_chunks):
            return None
        return self.chunk(v, c)


def plan_chunks(n_variants: int, games: int, chunk_games: int) -> ChunkPlan:
    """Every chunk of a run (a lazy :class:`ChunkPlan`), interleaved across variants."""
    return ChunkPlan(n_variants, games, chunk_games)


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


#: Keys of the parquet files' key-value metadata (:func:`parquet_metadata`).
META_ROLES = "balancelab.roles"
META_GAME = "balancelab.game"
META_RULES_VERSION = "balancelab.rules_version"
META_TABLE = "balancelab.table"


def parquet_metadata(game: Game, options: RuleOptions | None = None) -> dict[str, str]:
    """The key-value metadata of a chunk file of the games table (of ``options``' variant) or,
    when ``options`` is None, of the seats table.

    Returns:
        ``balancelab.table`` (``games`` or ``seats``), ``balancelab.game``,
        ``balancelab.rules_version`` (the game's rules version) and ``balancelab.roles``: a
        JSON object, column name → role (:data:`~balancelab.simulate.worker.ROLES`), in
        column order. The same for every chunk, so files stay identical across machines.
    """
    return {
        META_TABLE: "games" if options is not None else "seats",
        META_GAME: game.name,
        META_RULES_VERSION: game.version,
        META_ROLES: json.dumps(column_roles(game, options)),
    }


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
    #: chunk files found missing, truncated or foreign and played again (run-relative paths)
    repaired: list[str] = field(default_factory=list)
    #: stray files moved to ``<run>/set-aside/`` (run-relative paths, before the move)
    set_aside: list[str] = field(default_factory=list)


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


# -- the manifest: schema, consistency, integrity ---------------------------------------------


class ManifestConfig(Strict):
    """``run.json``'s ``config``: what :class:`RunConfig` holds."""

    game: str
    variants: list[dict[str, Any]]
    policies: dict[str, str]
    seed: int = Field(ge=0, le=MAX_SEED)
    games: int = Field(ge=1, le=MAX_GAMES)
    rotate: bool
    chunk_games: int = Field(ge=1, le=MAX_GAMES)


class ChunkRecord(Strict):
    """One finished chunk: its games, and each table file's rows, bytes and SHA-256."""

    start: int = Field(ge=0)
    stop: int = Field(ge=1)
    rows: int = Field(ge=0)
    bytes: int = Field(ge=0)
    sha256: str
    seats_rows: int | None = None
    seats_bytes: int | None = None
    seats_sha256: str | None = None


class DataFileRecord(Strict):
    """A data file a variant read, by its content's hash."""

    variant: int = Field(ge=0)
    option: str
    path: str
    sha256: str


class VariantRecord(Strict):
    variant: int = Field(ge=0)
    label: str
    options: dict[str, Any]
    seats: list[str]
    policies: list[str]


class Manifest(Strict):
    """The schema of ``run.json`` (format :data:`FORMAT_VERSION`)."""

    model_config = ConfigDict(strict=True, extra="allow", frozen=True)

    format_version: Literal[2]
    run_id: str
    game: str
    game_version: str
    label: str
    identity: str
    config: ManifestConfig
    variants: list[VariantRecord]
    versions: dict[str, str]
    created: str | None
    games_total: int = Field(ge=0)
    games_written: int = Field(ge=0)
    chunks_total: int = Field(ge=0)
    chunks_done: list[str]
    chunks: dict[str, ChunkRecord]
    data_files: list[DataFileRecord] = []
    decisions: int = Field(ge=0)
    wall_seconds: float = Field(ge=0)
    complete: bool


def read_manifest(path: Path, check: bool = True) -> dict[str, Any]:
    """The manifest of a run folder, validated.

    Args:
        path: the run folder.
        check: also check the configuration against the run's identity and the recorded
            chunks against the plan (:func:`check_manifest`); False checks the schema only.

    Raises:
        RunError: the folder or its ``run.json`` is missing or unreadable, of another format,
            does not match the schema (one line: key, expected type, value given), or was
            edited (its seed, options, policies or game count no longer match what it holds).
    """
    path = Path(path)
    if not path.is_dir():
        if path.exists():
            raise RunError(f"{str(path)!r} is a file, not a run folder")
        raise RunError(f"no run folder at {str(path)!r}")
    mf = path / MANIFEST
    if not mf.is_file():
        try:
            inner = sorted(p.name for p in path.iterdir() if (p / MANIFEST).is_file())
        except OSError as exc:
            raise RunError(f"cannot read {str(path)!r}: {_os_reason(exc)}") from None
        if inner:  # a study's folder: one run per policy pairing
            raise RunError(
                f"{str(path)!r} is not a run but holds runs ({', '.join(inner)}): a study's "
                "folder. Name one of them (e.g. "
                f"{str(path / inner[0])!r}), or continue an interrupted study with its own "
                "command and --resume")
        raise RunError(f"{str(path)!r} is not a balancelab run (no {MANIFEST})")
    try:
        data = json.loads(mf.read_text())
    except OSError as exc:
        raise RunError(f"cannot read {mf}: {_os_reason(exc)}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RunError(f"{mf} is not valid JSON ({exc}); restore it, or start over with "
                       "--force") from None
    if not isinstance(data, dict):
        raise RunError(f"{mf} must hold a JSON object (the run's manifest); it holds "
                       f"{type(data).__name__ if data is not None else 'null'}")
    if data.get("format_version") != FORMAT_VERSION:
        raise RunError(
            f"{mf} has run format {data.get('format_version')!r}; this balancelab reads "
            f"format {FORMAT_VERSION}. Re-run it with this version."
        )
    try:
        validate(Manifest, data, mf)
    except DataError as exc:
        raise RunError(f"{exc}; restore run.json, or start over with --force") from None
    if check:
        check_manifest(path, data)
    return data


def check_manifest(path: Path, m: dict[str, Any]) -> RunConfig:
    """The configuration of a (schema-valid) manifest, after checking that it is the one the
    run was written with: the identity recomputed from ``config`` (with the recorded data
    file hashes) equals the stored one, and every recorded chunk is one of the plan's.

    Raises:
        RunError: naming what no longer matches (an edited ``run.json``).
    """
    mf = Path(path) / MANIFEST
    edited = f"{mf} was edited"
    cfg = m["config"]
    if cfg["game"] != m["game"]:
        raise RunError(f"{edited}: config.game {cfg['game']!r} is not the run's game "
                       f"{m['game']!r}; restore it, or start over with --force")
    try:
        config = RunConfig.from_json(cfg)
    except (ValueError, RuntimeError) as exc:
        raise RunError(f"{edited} or is from another balancelab: {exc}") from None
    if config.identity(m["game_version"], m.get("data_files", [])) != m["identity"]:
        raise RunError(
            f"{edited}: its seed, options, policies, seat rotation or chunk size no longer "
            f"match the games it holds (identity {m['identity']}); restore it, or start over "
            "with --force")
    assert config.chunk_games is not None
    plan = plan_chunks(len(config.variants), config.games, config.chunk_games)
    rows = 0
    for key, rec in m["chunks"].items():
        c = plan.get(key)
        if c is None or (c.start, c.stop) != (rec["start"], rec["stop"]) or \
                rec["rows"] != c.stop - c.start:
            raise RunError(
                f"{edited}: it records chunk {key} (games {rec['start']}-{rec['stop']}) "
                f"outside its plan of {config.games:,} games per variant; restore it, or "
                "start over with --force")
        rows += rec["rows"]
    if sorted(m["chunks_done"], key=_chunk_sort) != sorted(m["chunks"], key=_chunk_sort):
        raise RunError(f"{edited}: chunks_done does not list the recorded chunks; restore it, "
                       "or start over with --force")
    total = config.games * len(config.variants)
    if (m["games_written"], m["games_total"], m["chunks_total"], m["complete"]) != (
            rows, total, len(plan), rows == total):
        raise RunError(
            f"{edited}: it says {m['games_written']:,} of {m['games_total']:,} games "
            f"(complete: {str(m['complete']).lower()}) but records {rows:,} of {total:,}; "
            "restore it, or start over with --force")
    return config


@dataclass
class Damage:
    """What :func:`inspect_run` found wrong with a run folder's files (run-relative paths)."""

    missing: list[str] = field(default_factory=list)
    truncated: list[str] = field(default_factory=list)
    foreign: list[str] = field(default_factory=list)
    strays: list[str] = field(default_factory=list)
    #: keys of the recorded chunks with a missing, truncated or foreign file
    bad_chunks: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.missing or self.truncated or self.foreign or self.strays)

    def describe(self) -> str:
        """One line: ``chunk-000003.parquet missing; ...; 1 stray file (...)``."""
        parts = []
        for what, files in (("missing", self.missing), ("truncated", self.truncated),
                            ("foreign (not the file this run wrote)", self.foreign),
                            ("stray (not recorded by the run)", self.strays)):
            if files:
                shown = ", ".join(files[:3]) + (f" and {len(files) - 3} more"
                                                if len(files) > 3 else "")
                parts.append(f"{what}: {shown}")
        return "; ".join(parts)


def _chunk_file(table: str, key: str) -> str:
    v, c = key.split(":")
    return f"{table}/variant={int(v)}/chunk-{int(c):06d}.parquet"


def inspect_run(path: Path, m: dict[str, Any]) -> Damage:
    """Check every recorded chunk file against its size and SHA-256, and find strays.

    A file in ``games/`` or ``seats/`` that the manifest does not record is a stray, except
    a planned chunk not yet recorded (an interrupted run's last chunk; ``resume`` plays it
    again).
    """
    path = Path(path)
    d = Damage()
    recorded: set[str] = set()
    for key, rec in m["chunks"].items():
        for table, _rows, bytes_key, sha_key in (
                ("games", "rows", "bytes", "sha256"),
                ("seats", "seats_rows", "seats_bytes", "seats_sha256")):
            if rec.get(sha_key) is None:
                continue
            rel = _chunk_file(table, key)
            recorded.add(rel)
            f = path / rel
            try:
                size = f.stat().st_size
            except FileNotFoundError:
                d.missing.append(rel)
                d.bad_chunks.add(key)
                continue
            except OSError as exc:
                raise RunError(f"cannot read {str(f)!r}: {_os_reason(exc)}") from None
            if size == rec[bytes_key] and _sha256(f) == rec[sha_key]:
                continue
            d.bad_chunks.add(key)
            # a whole parquet file of other bytes is foreign (another run's, an edit); a
            # shorter file that is not a whole parquet file was cut short
            if size < rec[bytes_key] and not _whole_parquet(f, size):
                d.truncated.append(rel)
            else:
                d.foreign.append(rel)
    cfg = m["config"]
    plan = plan_chunks(len(cfg["variants"]), cfg["games"], cfg["chunk_games"])
    for table in TABLES:
        root = path / table
        if not root.is_dir():
            continue
        for f in sorted(root.rglob("*")):
            if f.is_dir():
                continue
            rel = f.relative_to(path).as_posix()
            if rel in recorded or _planned(rel, plan):
                continue
            d.strays.append(rel)
    return d


def _planned(rel: str, plan: ChunkPlan) -> bool:
    """True when ``rel`` is the file name of one of the plan's chunks."""
    parts = rel.split("/")
    if len(parts) != 3 or parts[0] not in TABLES or not parts[1].startswith("variant="):
        return False
    name = parts[2]
    if not (name.startswith("chunk-") and name.endswith(".parquet")):
        return False
    v, c = parts[1][len("variant="):], name[len("chunk-"):-len(".parquet")]
    if not (v.isdigit() and c.isdigit() and len(c) == 6):
        return False
    ch = plan.get(f"{int(v)}:{int(c)}")
    return ch is not None and _chunk_file(parts[0], ch.key) == rel


def _whole_parquet(f: Path, size: int) -> bool:
    """True when ``f`` opens and ends with parquet's magic bytes (a complete file)."""
    if size < 12:
        return False
    with f.open("rb") as fh:
        head = fh.read(4)
        fh.seek(-4, os.SEEK_END)
        return head == b"PAR1" and fh.read(4) == b"PAR1"


def _sha256(f: Path) -> str:
    h = hashlib.sha256()
    with f.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def verify_run(path: Path) -> dict[str, Any]:
    """The manifest of a run folder whose files are all as recorded.

    Raises:
        RunError: the manifest is invalid or edited (:func:`read_manifest`), or a chunk file
            is missing, truncated or foreign, or a stray file lies in the tables: one line
            naming them and the repair (``balancelab resume``).
    """
    m = read_manifest(path)
    damage = inspect_run(path, m)
    if damage:
        raise RunError(f"run folder {str(path)!r} is damaged: {damage.describe()}; repair it "
                       f"with: balancelab resume {path}")
    return m


def check_data_files(path: Path, m: dict[str, Any]) -> None:
    """Refuse to play or replay games of a run whose data files changed or vanished.

    Raises:
        RunError: naming the option, the file and what changed.
    """
    for rec in m.get("data_files", []):
        where = rec["path"]
        kind = "dir" if Path(where).is_dir() else "file"
        try:
            now = data_hash(rec["option"], kind, where)
        except RunError as exc:
            raise RunError(f"{exc}: the run {str(path)!r} was played with it") from None
        if now != rec["sha256"]:
            raise RunError(
                f"{rec['option']} {where!r} changed since the run {str(path)!r} was played "
                f"with it (content hash {rec['sha256'][:12]} -> {now[:12]}): restore the file, "
                "or play the new one into another --out (or --force)")


def holds_finished(config: RunConfig, path: Path) -> bool:
    """True when ``path`` holds a finished, intact run of exactly this configuration (same
    identity: game version, variants, policies, seed, data files' content; same number of
    games). A folder that is not a run, an unreadable or edited manifest, or damaged files
    are not one (``run`` says why if asked to write there)."""
    if not (Path(path) / MANIFEST).exists():
        return False
    try:
        old = read_manifest(Path(path))
    except RunError:
        return False
    if not (old.get("complete") and old.get("identity") == config.identity()
            and int(old["config"]["games"]) == config.games):
        return False
    return not inspect_run(Path(path), old)


def _write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def _write_parquet_atomic(df: pl.DataFrame, staging: Path, dest: Path,
                          metadata: dict[str, str] | None = None) -> tuple[int, str]:
    """Write ``df`` to ``dest`` through ``staging`` (with the key-value ``metadata``, see
    :func:`parquet_metadata`); its (bytes, SHA-256)."""
    staging.mkdir(parents=True, exist_ok=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = staging / f"{dest.parent.parent.name}-{dest.parent.name}-{dest.name}"
    # encoded in memory (one chunk: tens of kB), written by Python: a full disk is then an
    # OSError with its errno (polars reports it as "Invalid thrift: transport error")
    buf = io.BytesIO()
    df.write_parquet(buf, compression="zstd", statistics=True, metadata=metadata)
    data = buf.getvalue()
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(tmp)
        raise
    os.replace(tmp, dest)
    return len(data), hashlib.sha256(data).hexdigest()


class RunLock:
    """The one-writer lock of a run folder: ``fcntl.flock`` on ``<run>/.lock``.

    The kernel drops the lock when its process dies however it dies (kill -9 included), so a
    lock file left behind by a dead process is simply taken over. The file holds the writer's
    pid for the message a second writer gets.

    Raises:
        RunError: another live process holds the lock (its pid named), or the lock file
            cannot be created.
    """

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._fh: Any = None

    def __enter__(self) -> RunLock:
        import fcntl

        f = self.path / LOCK
        try:
            fh = open(f, "a+")  # noqa: SIM115 - held for the run's life
        except OSError as exc:
            raise RunError(f"cannot write the run folder {str(self.path)!r}: "
                           f"{_os_reason(exc)}") from None
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            fh.seek(0)
            pid = fh.read().strip() or "?"
            fh.close()
            raise RunError(
                f"{str(self.path)!r} is being written by another balancelab (process {pid}); "
                "wait for it to finish, or stop it first (one writer per run folder)"
            ) from None
        with contextlib.suppress(OSError):
            fh.seek(0)
            fh.truncate()
            fh.write(f"{os.getpid()}\n")
            fh.flush()
        self._fh = fh
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.truncate(0)
            self._fh.close()  # closing the file releases the lock
            self._fh = None


def _clear_folder(path: Path) -> None:
    """Delete everything in a run folder but its lock (``--force``)."""
    import shutil

    for p in path.iterdir():
        if p.name == LOCK:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def _set_aside(path: Path, rels: Iterable[str]) -> list[str]:
    """Move stray files to ``<run>/set-aside/<same relative path>``; the paths moved."""
    moved = []
    for rel in rels:
        src = path / rel
        dest = path / SET_ASIDE / rel
        n = 1
        while dest.exists():
            dest = path / SET_ASIDE / f"{rel}.{n}"
            n += 1
        dest.parent.mkdir(parents=True, exist_ok=True)
        os.replace(src, dest)
        moved.append(rel)
    return moved


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
def _backend(backend: str, scheduler: str | None, jobs: int = -1,
             max_workers: int | None = None) -> Iterator[str]:
    """Enter the joblib backend; for dask, a client to ``scheduler`` or a local cluster.

    The local cluster has ``jobs`` single-threaded worker processes (all cores for -1), never
    more than ``max_workers`` (the chunks to play). Its workers start with SIGINT blocked
    (Ctrl-C is the driver's alone) and dask's own logging is silenced below errors, so an
    interrupted run prints no worker tracebacks. Workers only play chunks and send the frames
    back; the driver alone writes, so a remote cluster needs balancelab installed on its
    workers but no shared disk.

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

    quiet = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio", "bokeh")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.CRITICAL)
    cluster = None
    client = None
    try:
        try:
            with _ctrl_c_kept_from_new_processes():
                if scheduler:
                    log.info("connecting to the dask scheduler %s", scheduler)
                    client = Client(scheduler, timeout=10)
                else:
                    cores = os.cpu_count() or 1
                    n = min(jobs, cores) if jobs > 0 else cores  # a local cluster: <= cores
                    if max_workers is not None:
                        n = max(1, min(n, max_workers))  # ... and <= chunks
                    log.info("starting a local dask cluster of %d worker(s)", n)
                    cluster = LocalCluster(processes=True, n_workers=n, threads_per_worker=1,
                                           dashboard_address=None,
                                           silence_logs=logging.CRITICAL)
                    client = Client(cluster)
                    # Ctrl-C is the driver's: a local worker would print asyncio tracebacks
                    client.run(_ignore_sigint)
        except (OSError, TimeoutError) as exc:
            if cluster is not None:
                cluster.close()
            raise RunError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
        with joblib.parallel_config(backend="dask"):
            yield "dask"
    finally:
        _close_quietly(client, cluster)
        for lg, level in zip(quiet, levels, strict=True):
            lg.setLevel(level)


def _ignore_sigint() -> None:
    """Run on each local dask worker (in its main thread): ignore SIGINT, and quiet dask's
    logging there too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _close_quietly(client: Any, cluster: Any) -> None:
    """Close a dask client and cluster; a second Ctrl-C or a shutdown error is swallowed
    (the workers also exit by themselves when the driver is gone)."""
    for obj in (client, cluster):
        if obj is None:
            continue
        try:
            obj.close()
        except (KeyboardInterrupt, Exception):  # noqa: BLE001 - closing after the run
            pass


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
        jobs: joblib workers (-1: all cores); never more than the chunks left to play.
        backend: ``loky`` (default), ``threading``, ``sequential`` or ``dask``.
        scheduler: dask scheduler address (``tcp://host:8786``); None starts a local cluster.
        progress: called with (games written, games total) after each chunk.
        force: replace an existing run folder of another configuration.
        resume: continue an existing run of the same configuration (also used to extend
            ``config.games``); chunk files found missing, truncated or foreign are played
            again, stray files moved to ``<run>/set-aside/``.

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
    _check_before_writing(config, backend, scheduler)
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
        raise RunError(f"cannot write the run folder {str(path)!r}: {_os_reason(exc)}"
                       ) from None
    try:
        with RunLock(path):
            return _run_locked(config, path, game, data_files, jobs=jobs, backend=backend,
                               scheduler=scheduler, progress=progress, force=force,
                               resume=resume)
    except BaseException:
        if created_here and not (path / MANIFEST).exists():
            import shutil

            shutil.rmtree(path, ignore_errors=True)  # a rejected run leaves no folder
        raise


def _run_locked(config: RunConfig, path: Path, game: Game, data_files: list[dict[str, Any]],
                *, jobs: int, backend: str, scheduler: str | None,
                progress: Callable[[int, int], None] | None, force: bool,
                resume: bool) -> RunSummary:
    """:func:`run`, holding the folder's lock."""
    import joblib

    records: dict[str, dict[str, Any]] = {}
    repaired: list[str] = []
    set_aside: list[str] = []
    old: dict[str, Any] | None = None
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
            set_aside = _set_aside(path, damage.strays)
            if set_aside:
                log.warning("%s: set aside %d stray file(s): %s", path, len(set_aside),
                            ", ".join(set_aside))
        except OSError as exc:
            raise RunError(f"cannot set stray files aside in {str(path)!r}: "
                           f"{_os_reason(exc)}") from None
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
    else:
        if force:
            try:
                if (path / MANIFEST).exists():
                    log.info("%s: --force: deleting the run it held", path)
                _clear_folder(path)
            except OSError as exc:
                raise RunError(f"cannot replace {str(path)!r}: {_os_reason(exc)}") from None
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
        "versions": _versions(),
        # policies that see the true state instead of their seat's view (``oracle``)
        "cheats": cheating_specs(config),
        "created": created,
        "games_total": total,
        "games_written": written,
        "chunks_total": len(chunks),
        "chunks_done": sorted(records, key=_chunk_sort),
        "chunks": records,
        "data_files": data_files,
        "decisions": 0 if old is None else old["decisions"],
        "wall_seconds": 0.0 if old is None else old["wall_seconds"],
        "complete": n_todo == 0,
    }
    try:
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
        manifest["chunks_done"] = sorted(records, key=_chunk_sort)
        manifest["wall_seconds"] = round(base_wall + now - t0, 3)
        manifest["complete"] = written == total
        _write_json_atomic(path / MANIFEST, manifest)
        last_flush = now

    schemas = [games_schema(game, v) for v in config.variants]
    seat_schema = seats_schema(game)
    metas = [parquet_metadata(game, v) for v in config.variants]
    seat_meta = parquet_metadata(game)
    results: Iterator[tuple[Chunk, Any]] | None = None
    todo = (c for c in chunks if c.key not in records)
    try:
        with _backend(backend, scheduler, jobs, max(1, n_todo)) as be:
            n_jobs = 1 if be == "sequential" else jobs
            if be != "dask":  # never more workers than chunks, nor than cores
                n_jobs = max(1, min(joblib.effective_n_jobs(n_jobs), n_todo,
                                    os.cpu_count() or 1))
            parallel = joblib.Parallel(
                n_jobs=n_jobs,
                backend=None if be in ("dask",) else ("loky" if be == "sequential" else be),
                return_as="generator",
            )
            log.info("%s: playing %d chunk(s) of %d games on %d %s worker(s)", path, n_todo,
                     config.chunk_games, n_jobs, be)
            if be == "loky" and n_jobs > 1:
                _start_workers_deaf_to_ctrl_c(parallel, n_jobs, driver)
            window = WINDOW_PER_WORKER * max(1, joblib.effective_n_jobs(n_jobs))
            results = _windowed(parallel, task, todo, window)
            for c, (games_cols, seats_cols, decisions) in results:
                # the worker sent plain columns; the frames are built here, in the driver
                games_df = chunk_frame(games_cols, schemas[c.variant])
                seats_df = None if seats_cols is None else chunk_frame(seats_cols, seat_schema)
                try:
                    size, sha = _write_parquet_atomic(
                        games_df, staging, path / "games" / f"variant={c.variant}" / c.filename,
                        metas[c.variant])
                    done_rec: dict[str, Any] = {"start": c.start, "stop": c.stop,
                                                "rows": c.stop - c.start, "bytes": size,
                                                "sha256": sha}
                    if seats_df is not None:
                        s_size, s_sha = _write_parquet_atomic(
                            seats_df, staging,
                            path / "seats" / f"variant={c.variant}" / c.filename, seat_meta)
                        done_rec.update(seats_rows=seats_df.height, seats_bytes=s_size,
                                        seats_sha256=s_sha)
                    records[c.key] = done_rec
                    written += c.stop - c.start
                    manifest["decisions"] += int(decisions)
                    flush(final=written == total)
                except OSError as exc:
                    raise RunError(_disk_error(exc, c, path, written)) from None
                if progress:
                    progress(written, total)
    except KeyboardInterrupt:
        interrupted = True
        if results is not None:
            _quietly_close(results)
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
    return (f"cannot write chunk {c.key} of {str(path)!r} ({where}): {_os_reason(exc)}; the "
            f"{written:,} games already written are kept; {hint}, then: balancelab resume "
            f"{path}")


@contextlib.contextmanager
def _ctrl_c_kept_from_new_processes() -> Iterator[None]:
    """Block SIGINT in the driver while processes start: they inherit the blocked signal, so a
    Ctrl-C (sent by a terminal to the whole process group) does not interrupt one while it
    starts up and imports its libraries (it would print a traceback). The driver alone
    handles Ctrl-C; one pressed meanwhile reaches it when SIGINT is unblocked. Off the main
    thread (where signals are not delivered) it does nothing.

    The resource trackers are started first: starting multiprocessing's (on the first
    process's launch) unblocks SIGINT in the driver on Python 3.11 (it ends with
    ``SIG_UNBLOCK``, not the previous mask), so the processes launched after it would hear a
    Ctrl-C while they import their libraries."""
    import multiprocessing.resource_tracker

    from joblib.externals.loky.backend import resource_tracker as loky_tracker

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    multiprocessing.resource_tracker.ensure_running()
    loky_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _start_workers_deaf_to_ctrl_c(parallel: Any, n_jobs: int, driver: int) -> None:
    """Start the loky workers deaf to Ctrl-C (:func:`_ctrl_c_kept_from_new_processes`); each
    also starts watching the driver (it exits when the driver dies). Off the main thread the
    workers start with the first chunks, as joblib starts them."""
    import joblib

    if threading.current_thread() is not threading.main_thread():
        return
    with _ctrl_c_kept_from_new_processes():
        for _ in parallel(joblib.delayed(worker_ready)(driver) for _ in range(n_jobs)):
            pass


def _windowed(parallel: Any, task: Callable[[Chunk], Any], todo: Iterable[Chunk],
              window: int) -> Iterator[tuple[Chunk, Any]]:
    """(chunk, result) in order, dispatching at most ``window`` chunks per joblib call.

    joblib hands a worker its next task as soon as it finishes one, whether or not the driver
    has consumed the results; were the driver slower than the workers (tiny chunks, a large
    cluster), finished chunks would pile up in memory for the whole run. Windows bound that
    backlog by the number of workers, never by the number of games; the cost is a short tail
    at each window's end (~3% at 16 chunks per worker). ``todo`` is consumed lazily.
    """
    it = iter(todo)
    while True:
        part = list(itertools.islice(it, window))
        if not part:
            return
        outputs = parallel(task(c) for c in part)
        try:
            yield from zip(part, outputs, strict=True)
        finally:
            # joblib's generator would otherwise be closed by the garbage collector, which
            # prints a traceback when a Ctrl-C reaches its clean-up
            _quietly_close(outputs)


def _quietly_close(gen: Any) -> None:
    """Close a generator, swallowing a second Ctrl-C (or error) raised by its clean-up, and
    joblib's warning that the tasks in flight were cancelled (they were meant to be)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
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
        config.games = _checked_int("--games", games, 1, MAX_GAMES)
    return config


# -- reading ---------------------------------------------------------------------------------


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
    files = [path / _chunk_file(table, k) for k in sorted(m["chunks"], key=_chunk_sort_vc)
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
