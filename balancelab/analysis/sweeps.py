"""Sweeps: win rate against each option, two-option grids, and the precision stopping rule."""

from __future__ import annotations

import polars as pl

from balancelab.analysis import stats
from balancelab.analysis.frames import Source, games_frame, swept_options
from balancelab.analysis.winrates import contender_rows, win_rates


def sweep_table(source: Source, level: float = stats.LEVEL) -> pl.DataFrame:
    """Win rates per variant, one row per (variant, contender), with the swept options.

    Returns:
        The columns of :func:`balancelab.analysis.winrates.win_rates`, with the options that
        vary across the run first after ``variant``.
    """
    df = games_frame(source)
    rates = win_rates(df, level)
    vary = swept_options(df)
    rest = [c for c in rates.columns if c not in vary and c != "variant"]
    return rates.select("variant", *vary, *rest)


def heat_grid(rates: pl.DataFrame, x: str, y: str, contender: str) -> pl.DataFrame:
    """A two-option grid of one contender's win rate, for heat maps.

    Args:
        rates: a :func:`sweep_table` (or ``win_rates``) frame.
        x, y: option columns (x across, y down).
        contender: the side or seat.

    Returns:
        Columns: ``y`` values (named ``y``), then one Float64 column per ``x`` value (named by
        its string form), both in sorted order.

    Raises:
        ValueError: an option missing, or more than one row per grid cell (a third option
            varies).
    """
    for c in (x, y):
        if c not in rates.columns:
            raise ValueError(f"option {c!r} is not a column of the rates table")
    sub = rates.filter(pl.col("contender") == contender)
    if sub.select(x, y).is_duplicated().any():
        raise ValueError(f"more than one variant per ({x}, {y}) cell; a third option varies")
    sub = sub.sort([y, x]).with_columns(pl.col(x).cast(pl.String))
    return sub.pivot(on=x, index=y, values="rate", sort_columns=False)


def precision_status(source: Source, level: float = stats.LEVEL,
                     tune_n: int = stats.CS_TUNE_N) -> pl.DataFrame:
    """Each contender's anytime-valid interval per variant (for ``--precision``).

    Returns:
        Columns: ``variant``, ``contender``, ``games``, ``wins``, ``rate``, ``cs_lo``,
        ``cs_hi`` (the confidence sequence at ``level``, tuned for ``tune_n`` games),
        ``half_width``
        (``(cs_hi - cs_lo) / 2``).
    """
    rows = contender_rows(games_frame(source))
    agg = (
        rows.group_by(["variant", "contender"], maintain_order=True)
        .agg(pl.len().cast(pl.Int64).alias("games"),
             pl.col("win").sum().cast(pl.Int64).alias("wins"))
        .sort(["variant", "contender"])
    )
    out = []
    for v, c, n, k in agg.iter_rows():
        lo, hi = stats.confidence_sequence(int(k), int(n), level, tune_n)
        out.append({"variant": v, "contender": c, "games": n, "wins": k,
                    "rate": k / n if n else float("nan"), "cs_lo": lo, "cs_hi": hi,
                    "half_width": (hi - lo) / 2})
    return pl.DataFrame(out, schema={
        "variant": pl.Int32, "contender": pl.String, "games": pl.Int64, "wins": pl.Int64,
        "rate": pl.Float64, "cs_lo": pl.Float64, "cs_hi": pl.Float64, "half_width": pl.Float64,
    })
