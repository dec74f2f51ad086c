"""The integrity of a run folder's files: every recorded chunk file checked against its size and
SHA-256, strays found (:func:`inspect_run`), a damaged folder refused in one line
(:func:`verify_run`), changed data files refused (:func:`check_data_files`)."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from balancelab.simulate.errors import RunError, os_reason
from balancelab.simulate.runs.folder import MANIFEST, TABLES, chunk_file
from balancelab.simulate.runs.manifest import read_manifest
from balancelab.simulate.runs.plan import ChunkPlan, RunConfig, data_hash, plan_chunks


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
            rel = chunk_file(table, key)
            recorded.add(rel)
            f = path / rel
            try:
                size = f.stat().st_size
            except FileNotFoundError:
                d.missing.append(rel)
                d.bad_chunks.add(key)
                continue
            except OSError as exc:
                raise RunError(f"cannot read {str(f)!r}: {os_reason(exc)}") from None
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
    return ch is not None and chunk_file(parts[0], ch.key) == rel


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

