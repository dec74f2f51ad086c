"""The run folder on disk: its file names, the one-writer lock (:class:`RunLock`), atomic writes
(a file is written aside and moved in with ``os.replace``), clearing it (``--force``) and
setting strays aside (``resume``)."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import polars as pl

from balancelab.simulate.errors import RunError, os_reason

#: The manifest of a run folder.
MANIFEST = "run.json"
#: The lock file of a run folder (see :class:`RunLock`).
LOCK = ".lock"
#: Where ``resume`` moves files found in a run's tables that its manifest does not record.
SET_ASIDE = "set-aside"
TABLES = ("games", "seats")


def holds_games(path: Path) -> bool:
    """True when a folder holds a game file (a chunk of some run) anywhere below it."""
    return any(path.rglob("*.parquet"))


@contextlib.contextmanager
def left_as_found(path: Path) -> Iterator[None]:
    """Remove the folder ``path`` again when the block fails (an Exception; a Ctrl-C keeps
    what was written, to be resumed) if the folder (or the outermost of its parents the block
    made, such as ``runs/``) did not exist before and holds no game:
    a refused command leaves nothing behind (a study or balance folder made before a bad
    policy, option or backend was refused)."""
    top = Path(os.path.abspath(path))  # the outermost folder the block may make (runs/)
    while not top.parent.exists() and top.parent != top:
        top = top.parent
    existed = top.exists()
    try:
        yield
    except Exception:
        if not existed and top.is_dir() and not holds_games(top):
            import shutil

            shutil.rmtree(top, ignore_errors=True)
        raise


def chunk_file(table: str, key: str) -> str:
    """The run-relative file of chunk ``key`` (``"<variant>:<index>"``) of a table."""
    v, c = key.split(":")
    return f"{table}/variant={int(v)}/chunk-{int(c):06d}.parquet"


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, sort_keys=False) + "\n")
    os.replace(tmp, path)


def write_parquet_atomic(df: pl.DataFrame, staging: Path, dest: Path,
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
                           f"{os_reason(exc)}") from None
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


def clear_folder(path: Path) -> None:
    """Delete everything in a run folder but its lock (``--force``)."""
    import shutil

    for p in path.iterdir():
        if p.name == LOCK:
            continue
        if p.is_dir() and not p.is_symlink():
            shutil.rmtree(p)
        else:
            p.unlink()


def set_aside_files(path: Path, rels: Iterable[str]) -> list[str]:
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

