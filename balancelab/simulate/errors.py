"""Error types shared by the loaders, importable without pydantic (a worker never imports it)."""


class DataError(ValueError):
    """A data file or manifest that does not match its schema (one line: file, key, why)."""
