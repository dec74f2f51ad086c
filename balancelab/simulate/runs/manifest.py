"""The manifest ``run.json``: its schema (:class:`Manifest`, pydantic), reading it, and checking
its configuration against the run's own identity (an edited seed, option, policy or game count
is refused)."""

from __future__ import annotations

import contextlib
import json
import platform
from importlib import metadata
from pathlib import Path
from typing import Any, Literal

from pydantic import ConfigDict, Field

from balancelab.simulate.errors import RunError, os_reason
from balancelab.simulate.runs.folder import MANIFEST
from balancelab.simulate.runs.plan import MAX_GAMES, MAX_SEED, RunConfig, plan_chunks
from balancelab.simulate.schema import DataError, Strict, validate

#: Version of the run-folder layout; a manifest with another value is refused.
FORMAT_VERSION = 2


def package_versions() -> dict[str, str]:
    """The versions of Python and the packages a run's results depend on (for ``run.json``)."""
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


def core_seconds_per_game(manifest: dict[str, Any]) -> float | None:
    """CPU seconds the workers spent per game written (``cpu_seconds / games_written`` of a
    manifest, as :func:`read_manifest` returns it): what a game costs on one core, whatever
    the machine's load or number of workers. None for a run written before runs recorded CPU
    time (``cpu_seconds`` absent or 0) or with no games."""
    cpu = float(manifest.get("cpu_seconds", 0.0) or 0.0)
    games = int(manifest.get("games_written", 0) or 0)
    return cpu / games if cpu > 0 and games > 0 else None


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
            raise RunError(f"cannot read {str(path)!r}: {os_reason(exc)}") from None
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
        raise RunError(f"cannot read {mf}: {os_reason(exc)}") from None
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
    if sorted(m["chunks_done"], key=chunk_sort) != sorted(m["chunks"], key=chunk_sort):
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


def chunk_sort(key: str) -> tuple[int, int]:
    """The order of ``chunks_done``: by chunk index, then variant."""
    v, c = key.split(":")
    return int(c), int(v)

