"""Reading a run's tables and the column conventions the analysis relies on.

The games table (see :func:`balancelab.simulate.runs.tables.games_schema`) is laid out as::

    run_id, game, game_version, variant_label, <option columns>, policy_<side>..., policies,
    game_index, seed, winner, end_reason, rounds, decisions, <game measures>  (+ variant: Int32)

so option columns, sides and measures can be read off the frame itself; no game module is
needed to analyse a run.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeAlias

import polars as pl

from balancelab.simulate import runs

#: ``winner`` values that are not a side's or seat's win.
DRAW_VALUES = ("draw", "tie")
#: ``winner`` of a game stopped by the round cap.
CAPPED = ""

Source: TypeAlias = str | Path | pl.DataFrame | pl.LazyFrame


def games_frame(source: Source) -> pl.DataFrame:
    """The games table from a run folder, a DataFrame or a LazyFrame.

    A frame without a ``variant`` column gets ``variant = 0``. Rows are sorted by (variant,
    game_index).

    From a run folder with a seats table holding ``rank`` (iss), a ``first_seats`` column
    (List[Int32]) lists the seats that shared first place, so that a shared win counts as a
    draw only for them.

    Raises:
        RunError: a path that is not a run folder, or a run with no games yet.
        ValueError: a frame without the columns ``winner``, ``game_index``, ``policies``.
    """
    if isinstance(source, (str, Path)):
        return _with_first_seats(runs.load_games(Path(source)), source)
    df = source.collect() if isinstance(source, pl.LazyFrame) else source
    missing = [c for c in ("winner", "game_index", "policies") if c not in df.columns]
    if missing:
        raise ValueError(f"not a games table: missing column(s) {', '.join(missing)}")
    if "variant" not in df.columns:
        df = df.with_columns(pl.lit(0, dtype=pl.Int32).alias("variant"))
    if "variant_label" not in df.columns:
        df = df.with_columns(pl.col("variant").cast(pl.String).alias("variant_label"))
    if "end_reason" not in df.columns:
        df = df.with_columns(
            pl.when(pl.col("winner") == CAPPED).then(pl.lit("cap")).otherwise(pl.lit(""))
            .alias("end_reason")
        )
    return df if _sorted(df) else df.sort(["variant", "game_index"])


def _sorted(df: pl.DataFrame) -> bool:
    """True when ``df`` is already sorted by (variant, game_index): no sorted copy needed."""
    if df.height < 2:
        return True
    if not df.get_column("variant").is_sorted():  # no copy when it is not
        return False
    # one Int64 key in order (variant in the high bits; a game index is < 2**32)
    key = (df.get_column("variant").cast(pl.Int64) * 2**32
           + df.get_column("game_index").cast(pl.Int64))
    return bool(key.is_sorted())


#: chunk files read at once by :func:`compact_games_frame`
_BATCH = 25
#: columns of the games table the run report does not read
_UNUSED = ("run_id", "game_version")


def compact_games_frame(source: str | Path, per_game_measures: bool = True) -> pl.DataFrame:
    """The games table of a run folder as :func:`games_frame` gives it, in less memory.

    Only the columns a run report reads are loaded (``run_id`` and ``game_version`` are left
    out; ``rounds``, ``decisions`` and the game's records after them only with
    ``per_game_measures``); text
    columns that repeat (the game, variant label, policies, end reason, text options) are read
    as Categorical and integer options in the smallest integer type that holds them. Values
    are unchanged (every analysis and table gives the same numbers), only their storage: a
    1,000,000-game odyssey run takes a fraction of :func:`games_frame`'s memory.

    Raises:
        RunError: a path that is not a run folder, or a run with no games yet.
    """
    path = Path(source)
    files = runs.table_files(path)
    lf = runs.scan_files(files)
    head = pl.DataFrame(schema=lf.collect_schema())
    opts = option_columns(head)
    drop = set(_UNUSED)
    if not per_game_measures:  # every per-game record after the winner and end reason
        cols = head.columns
        drop |= {c for c in cols[cols.index("rounds"):] if c != "variant"} \
            if "rounds" in cols else set()
    cat = {"game", "variant_label", "policies", "end_reason",
           *[c for c in head.columns if c.startswith("policy_")]}
    ints = [c for c in opts if head.schema[c].is_integer()]
    small = _smallest_ints(lf, ints)
    exprs: list[pl.Expr] = []
    for c, dt in head.schema.items():
        if c in drop:
            continue
        if dt == pl.String and (c in cat or c in opts):
            exprs.append(pl.col(c).cast(pl.Categorical))
        elif c in small:
            exprs.append(pl.col(c).cast(small[c]))
        else:
            exprs.append(pl.col(c))
    # read in batches of chunk files, each cast to its compact types before the next is read:
    # the full-width types of a whole run are never in memory at once
    df = pl.concat([runs.scan_files(files[i:i + _BATCH]).select(exprs).collect().rechunk()
                    for i in range(0, len(files), _BATCH)], rechunk=False)
    return _with_first_seats(_constants_as_scalars(df), path)


def _constants_as_scalars(df: pl.DataFrame) -> pl.DataFrame:
    """``df`` with each column that holds one value in every row (no nulls) stored as that
    one value (a scalar column of the same dtype): the same frame to every query, but the
    options a run holds fixed, its game and its policies cost nothing per game."""
    if df.height < 2:
        return df
    same = df.select(((pl.col(c).null_count() == 0) & (pl.col(c) == pl.col(c).first()).all())
                     .alias(c) for c in df.columns).row(0)
    return df.with_columns(pl.lit(df.get_column(c)[0], dtype=df.schema[c]).alias(c)
                           for c, one in zip(df.columns, same, strict=True) if one)


def _with_first_seats(df: pl.DataFrame, path: str | Path) -> pl.DataFrame:
    """``df`` with ``first_seats`` (the seats that shared first place, list[i32]) joined on
    (variant, game_index) when the run has a seats table with ranks, so a tie counts as a
    draw only for the tied seats; ``df`` unchanged otherwise."""
    seats = seats_frame(path)
    if seats is None or "rank" not in seats.columns:
        return df
    firsts = (seats.filter(pl.col("rank") == 1)
              .group_by(pl.col("variant").cast(pl.Int32), "game_index")
              .agg(pl.col("seat").cast(pl.Int32).alias("first_seats")))
    return df.join(firsts, on=["variant", "game_index"], how="left")


def first_rows(df: pl.DataFrame) -> pl.DataFrame:
    """The first game (row) of each variant, all columns, sorted by variant: found by a
    streaming group-by over the row numbers, so a million games take no scratch copy."""
    idx = (df.lazy().select("variant").with_row_index("_r").group_by("variant")
           .agg(pl.col("_r").min()).sort("variant").collect(engine="streaming"))
    return df[idx.get_column("_r")]


def _smallest_ints(lf: pl.LazyFrame, cols: list[str]) -> dict[str, pl.DataType]:
    """The smallest signed integer type holding each column's values (one lazy pass)."""
    if not cols:
        return {}
    ranges = lf.select(*[pl.col(c).min().alias(f"{c}\0lo") for c in cols],
                       *[pl.col(c).max().alias(f"{c}\0hi") for c in cols]).collect().row(0)
    out: dict[str, pl.DataType] = {}
    for i, c in enumerate(cols):
        lo, hi = ranges[i], ranges[len(cols) + i]
        for t, bits in ((pl.Int8(), 8), (pl.Int16(), 16), (pl.Int32(), 32)):
            if lo is not None and hi is not None and -(2 ** (bits - 1)) <= lo \
                    and hi < 2 ** (bits - 1):
                out[c] = t
                break
    return out


def seats_frame(source: Source) -> pl.DataFrame | None:
    """The seats table of a run folder (None when the game has none), or the frame given."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        if not (path / "seats").is_dir():
            return None
        try:
            return runs.load_seats(path)
        except runs.RunError:
            return None
    return source.collect() if isinstance(source, pl.LazyFrame) else source


def option_columns(df: pl.DataFrame) -> list[str]:
    """The rule-option columns: those between ``variant_label`` and the first ``policy_``."""
    cols = df.columns
    if "variant_label" not in cols:
        return []
    start = cols.index("variant_label") + 1
    out = []
    for c in cols[start:]:
        if c.startswith("policy_") or c == "policies":
            break
        out.append(c)
    return out


def varying_options(df: pl.DataFrame) -> list[str]:
    """Option columns that are constant within each variant and differ between variants.

    A column that varies within a variant (a per-game value written in an option column) is
    not a variant's option and is left out.
    """
    opts = option_columns(df)
    # counted by expressions, not on each column's Series: a fixed option stored once
    # (a scalar column) is not spelled out a million times to be counted
    counts = df.select(pl.col(c).n_unique() for c in opts).row(0) if opts else ()
    cols = [c for c, k in zip(opts, counts, strict=True) if k > 1]
    if not cols or "variant" not in df.columns:
        return cols
    per = df.group_by("variant").agg(pl.col(c).n_unique() for c in cols)
    return [c for c in cols if int(per.get_column(c).max()) == 1]  # type: ignore[arg-type]


def swept_options(df: pl.DataFrame) -> list[str]:
    """The varying options that are set independently (the sweep's grid).

    An option whose value follows from another varying option (odyssey's ``crew_members``
    from ``crew``) is left out, so that comparisons and plots speak of the grid's options.
    """
    vary = varying_options(df)
    out = []
    for o2 in vary:
        dependent = False
        for o1 in vary:
            if o1 == o2:
                continue
            n1 = df.select(o1).n_unique()
            if df.select(o1, o2).n_unique() == n1 and df.select(o2).n_unique() <= n1 and (
                    df.select(o2).n_unique() < n1 or _rank(df, o1) < _rank(df, o2)):
                dependent = True
                break
        if not dependent:
            out.append(o2)
    return out


def _rank(df: pl.DataFrame, col: str) -> tuple[int, int]:
    """Preference among options that determine each other: numbers and flags first."""
    dt = df.schema[col]
    return (0 if dt.is_numeric() or dt == pl.Boolean else 1, df.columns.index(col))


def sides(df: pl.DataFrame) -> list[str]:
    """The sides, from the ``policy_<side>`` columns (in column order)."""
    return [c[len("policy_"):] for c in df.columns if c.startswith("policy_")]


def measure_columns(df: pl.DataFrame) -> list[str]:
    """The game's own numeric measure columns (after ``decisions``)."""
    cols = df.columns
    if "decisions" not in cols:
        return []
    out = []
    for c in cols[cols.index("decisions") + 1:]:
        if c == "variant":
            continue
        if df.schema[c].is_numeric() or df.schema[c] == pl.Boolean:
            out.append(c)
    return out


def is_team_game(df: pl.DataFrame) -> bool:
    """True when wins go to sides (odyssey, obcy: two or more ``policy_<side>`` columns);
    False when they go to seats (iss: one side, ``player``, whose seats compete).

    Decided by the columns, not by who won, so a run where every game hit the round cap
    still reports its seats.
    """
    s = sides(df)
    if len(s) != 1:
        return bool(s)
    won = set(df.get_column("winner").unique().to_list()) - set(DRAW_VALUES) - {CAPPED}
    return bool(won) and won <= set(s)


def seat_policies(df: pl.DataFrame) -> pl.DataFrame:
    """One row per game and seat, parsed from the ``policies`` column.

    Returns:
        Columns: ``variant`` (Int32), ``game_index`` (Int64), ``seed`` (the run seed, 0
        when the frame has none: games of several runs are told apart by it), ``seat``
        (Int32, 0-based), ``seat_name`` (str), ``policy`` (str), ``n_seats`` (Int32).
    """
    # each distinct policies string is parsed once, then joined to its games
    parsed = (
        df.select(pl.col("policies").unique())
        .with_columns(pl.col("policies").cast(pl.String).str.split(";").alias("_p"))
        .with_columns(pl.col("_p").list.len().cast(pl.Int32).alias("n_seats"))
        .with_columns(pl.int_ranges(0, pl.col("n_seats"), dtype=pl.Int32).alias("seat"))
        .explode(["_p", "seat"])
        .with_columns(
            pl.col("_p").str.splitn("=", 2).struct.rename_fields(["seat_name", "policy"])
            .alias("_s")
        )
        .unnest("_s")
        .drop("_p")
    )
    seed = pl.col("seed") if "seed" in df.columns else pl.lit(0, dtype=pl.Int64)
    return (
        df.select("variant", "game_index", seed.alias("seed"), "policies").with_row_index("_r")
        .join(parsed, on="policies", how="inner")
        .sort(["_r", "seat"])
        .select("variant", "game_index", "seed", "seat", "seat_name", "policy", "n_seats")
    )
