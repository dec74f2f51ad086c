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
                     tune_n: int | None = None) -> pl.DataFrame:
    """Each contender's interval per variant and its half-width (for ``--precision``).

    ``--precision`` stops on the Wilson intervals the reports print: the rule looks only at
    their widths, which depend on the results only through ``p(1 - p)``, so stopping on them
    keeps their coverage near nominal (simulated 94-96% for 95% intervals;
    ``tests/analysis/test_stopping_stat.py``) — unlike stopping when an interval excludes a
    value, which needs an anytime-valid interval. With ``tune_n`` the anytime-valid
    confidence sequence tuned for that many games is used instead (valid for any rule, about
    1.7 times as wide).

    Returns:
        Columns: ``variant``, ``contender``, ``games``, ``wins``, ``rate``, ``lo``, ``hi``
        (Wilson at ``level``, or the confidence sequence), ``half_width``
        (``(hi - lo) / 2``), ``method``.
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
        if tune_n is None:
            lo_a, hi_a = stats.wilson(int(k), int(n), level)
            lo, hi, method = float(lo_a), float(hi_a), stats.WILSON
        else:
            lo, hi = stats.confidence_sequence(int(k), int(n), level, tune_n)
            method = stats.CS_METHOD
        out.append({"variant": v, "contender": c, "games": n, "wins": k,
                    "rate": k / n if n else float("nan"), "lo": lo, "hi": hi,
                    "half_width": (hi - lo) / 2, "method": method})
    return pl.DataFrame(out, schema={
        "variant": pl.Int32, "contender": pl.String, "games": pl.Int64, "wins": pl.Int64,
        "rate": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "half_width": pl.Float64,
        "method": pl.String,
    })


def difference_status(source: Source, level: float = stats.LEVEL,
                      focus: str | None = None, pairs: str | None = None) -> pl.DataFrame:
    """Each change of the question and the half-width of its interval at the Bonferroni
    level ``1 - (1 - level) / m`` of its family of m changes (the widest level Holm's
    correction may print it at), for ``--precision-diff``.

    Returns:
        Columns: ``family``, ``context``, ``contender``, ``value_a``, ``value_b``,
        ``half_width``.
    """
    from balancelab.analysis.variants import compare_variants

    comp = compare_variants(source, level, focus=focus, pairs=pairs)
    df = games_frame(source)
    rows = contender_rows(df)
    out = []
    for r in comp.iter_rows(named=True):
        a = rows.filter((pl.col("variant") == r["variant_a"])
                        & (pl.col("contender") == r["contender"])).sort("game_index")
        b = rows.filter((pl.col("variant") == r["variant_b"])
                        & (pl.col("contender") == r["contender"])).sort("game_index")
        d = stats.diff_paired(a["win"].to_numpy(), b["win"].to_numpy(), level) \
            if a.height == b.height else stats.diff_unpaired(
                int(a["win"].sum()), a.height, int(b["win"].sum()), b.height, level)
        lo, hi = stats.interval_at(d, 1 - (1 - level) / r["family_size"])
        out.append({"family": r["family"], "context": r["context"],
                    "contender": r["contender"], "value_a": r["value_a"],
                    "value_b": r["value_b"], "half_width": (hi - lo) / 2})
    return pl.DataFrame(out, schema={"family": pl.String, "context": pl.String,
                                     "contender": pl.String, "value_a": pl.String,
                                     "value_b": pl.String, "half_width": pl.Float64})
