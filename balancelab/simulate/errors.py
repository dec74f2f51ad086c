"""Error types shared by the loaders and the runs, importable without pydantic (a worker never
imports it), and an OSError in words for their messages."""

from __future__ import annotations

import errno


class DataError(ValueError):
    """A data file or manifest that does not match its schema (one line: file, key, why)."""


class RunError(RuntimeError):
    """A run folder is missing, is not a run, belongs to another format, or cannot be written."""


def os_reason(exc: OSError) -> str:
    """An OSError in words: ``No space left on device (ENOSPC)``."""
    name = errno.errorcode.get(exc.errno or 0, "")
    reason = exc.strerror or str(exc)
    return f"{reason} ({name})" if name else reason
