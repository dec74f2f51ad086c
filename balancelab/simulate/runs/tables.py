"""The parquet format of a run's tables: the polars schemas of the games and seats tables (from
the worker's column layout) and the key-value metadata of each chunk file.

Workers send plain Python columns (:func:`~balancelab.simulate.worker.play_chunk`); the driver
builds each chunk's frames here (:func:`chunk_frame`) and writes them.
"""

from __future__ import annotations

import json

import polars as pl

from balancelab.simulate.core import ColumnType, Game
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.worker import Columns, column_roles, games_columns, seats_columns

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
