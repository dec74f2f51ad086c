"""Comparing rule variants and runs: differences in win rate, paired where games share seeds.

Two groups of games are *paired* when they hold exactly the same (seed, game_index) pairs: game
*i* of every variant of a run is played from the same seed (common random numbers), so the
difference is measured game by game and needs far fewer games. Otherwise the comparison is
unpaired. Every table of comparisons gets Holm's adjustment across all its rows, and a verdict
read from the 95% interval alone: ``raises`` (interval above 0), ``lowers`` (below 0) or
``no detectable change`` (interval contains 0).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab.analysis import stats
from balancelab.analysis.frames import (
    Source,
    games_frame,
    is_team_game,
    option_columns,
    sides,
    swept_options,
)
from balancelab.analysis.winrates import contender_rows

#: Columns of a comparison table (see :func:`compare_variants`).
COMPARISON_COLUMNS = [
    "option", "value_a", "value_b", "variant_a", "variant_b", "label_a", "label_b",
    "context", "contender", "n_a", "n_b", "rate_a", "rate_b", "diff", "lo", "hi", "p_value",
    "p_holm", "paired", "method", "verdict", "significant",
]


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _diff_one(a: pl.DataFrame, b: pl.DataFrame, level: float) -> stats.Difference:
    """Difference of win rates of one contender between two groups of rows."""
    ka = a.select("seed", "game_index").sort(["seed", "game_index"])
    kb = b.select("seed", "game_index").sort(["seed", "game_index"])
    if ka.height == kb.height and ka.height > 0 and ka.equals(kb):
        xa = a.sort(["seed", "game_index"]).get_column("win").to_numpy()
        xb = b.sort(["seed", "game_index"]).get_column("win").to_numpy()
        return stats.diff_paired(xa, xb, level)
    return stats.diff_unpaired(int(a.get_column("win").sum()), a.height,
                               int(b.get_column("win").sum()), b.height, level)


def _finish(rows: list[dict[str, Any]], level: float) -> pl.DataFrame:
    schema = {
        "option": pl.String, "value_a": pl.String, "value_b": pl.String,
        "variant_a": pl.Int32, "variant_b": pl.Int32, "label_a": pl.String,
        "label_b": pl.String, "context": pl.String, "contender": pl.String,
        "n_a": pl.Int64, "n_b": pl.Int64, "rate_a": pl.Float64, "rate_b": pl.Float64,
        "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "p_value": pl.Float64,
        "paired": pl.Boolean, "method": pl.String,
    }
    df = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    p_holm = stats.holm(df.get_column("p_value").to_numpy())
    verdicts = [stats.verdict(lo, hi) for lo, hi in zip(df["lo"], df["hi"], strict=True)]
    return df.with_columns(
        pl.Series("p_holm", p_holm, dtype=pl.Float64),
        pl.Series("verdict", verdicts, dtype=pl.String),
    ).with_columns(
        (pl.col("p_holm") < 1.0 - level).alias("significant"),
    ).select(COMPARISON_COLUMNS)


def variant_pairs(df: pl.DataFrame, adjacent_only: bool = False
                  ) -> list[tuple[str, int, int, str]]:
    """Pairs of variants that differ in exactly one option.

    Returns:
        (option, variant_a, variant_b, context) with ``variant_b`` holding the later value in
        the option's sorted order; ``context`` is the label of the options held fixed
        (``crew=3``). ``adjacent_only`` keeps consecutive values only (−1→0, 0→+1).
    """
    opts = swept_options(df)
    labels = df.select(["variant", *opts]).unique(subset=["variant"]).sort("variant")
    recs = labels.to_dicts()
    out = []
    for opt in opts:
        values = sorted(labels.get_column(opt).unique().to_list())
        rank = {v: i for i, v in enumerate(values)}
        for ra in recs:
            for rb in recs:
                if ra[opt] is None or rb[opt] is None or rank[ra[opt]] >= rank[rb[opt]]:
                    continue
                if adjacent_only and rank[rb[opt]] != rank[ra[opt]] + 1:
                    continue
                if any(ra[o] != rb[o] for o in opts if o != opt):
                    continue
                ctx = ",".join(f"{o}={_fmt(ra[o])}" for o in opts if o != opt)
                out.append((opt, int(ra["variant"]), int(rb["variant"]), ctx))
    return out


def compare_variants(source: Source, level: float = stats.LEVEL,
                     contenders: Sequence[str] | None = None,
                     adjacent_only: bool = False) -> pl.DataFrame:
    """For each pair of variants differing in one option, each contender's change in win rate.

    Args:
        source: a run folder or games frame with several variants (a sweep).
        level: confidence level of the intervals.
        contenders: restrict to these sides/seats (default: all).
        adjacent_only: compare consecutive option values only.

    Returns:
        Columns (see ``COMPARISON_COLUMNS``): ``option`` (the option that differs), ``value_a``,
        ``value_b`` (str), ``variant_a``, ``variant_b``, ``label_a``, ``label_b``, ``context``
        (options held fixed), ``contender``, ``n_a``, ``n_b``, ``rate_a``, ``rate_b``, ``diff``
        (``rate_b - rate_a``), ``lo``, ``hi`` (interval for ``diff``), ``p_value``, ``p_holm``
        (Holm across all rows), ``paired`` (bool), ``method``, ``verdict`` (raises / lowers /
        no detectable change, from the interval), ``significant`` (``p_holm < 1 - level``).
    """
    df = games_frame(source)
    rows_all = contender_rows(df)
    labels = dict(df.select("variant", "variant_label").unique().iter_rows())
    opts = option_columns(df)
    values = {r["variant"]: r for r in df.select(["variant", *opts]).unique("variant").to_dicts()}
    groups = rows_all.partition_by(["variant", "contender"], as_dict=True)
    names = rows_all.sort(["seat", "contender"]).get_column("contender") \
        .unique(maintain_order=True).to_list()
    if is_team_game(df):
        names = [s for s in sides(df) if s in names]
    if contenders is not None:
        names = [c for c in names if c in contenders]
    rows = []
    for opt, va, vb, ctx in variant_pairs(df, adjacent_only):
        for c in names:
            a, b = groups.get((va, c)), groups.get((vb, c))
            if a is None or b is None:
                continue
            d = _diff_one(a, b, level)
            rows.append({
                "option": opt, "value_a": _fmt(values[va][opt]), "value_b": _fmt(values[vb][opt]),
                "variant_a": va, "variant_b": vb, "label_a": labels[va], "label_b": labels[vb],
                "context": ctx, "contender": c, "n_a": d.n_a, "n_b": d.n_b, "rate_a": d.p_a,
                "rate_b": d.p_b, "diff": d.diff, "lo": d.lo, "hi": d.hi, "p_value": d.p_value,
                "paired": d.paired, "method": d.method,
            })
    return _finish(rows, level)


def describe_difference(a: pl.DataFrame, b: pl.DataFrame) -> str:
    """What differs between two games frames (one variant each): options, policies, version."""
    parts = []
    for col in option_columns(a):
        if col in b.columns:
            va, vb = a.get_column(col).unique().to_list(), b.get_column(col).unique().to_list()
            if va != vb:
                parts.append(f"{col} {'/'.join(map(_fmt, va))}→{'/'.join(map(_fmt, vb))}")
    pa = a.get_column("policies").unique().sort().to_list()
    pb = b.get_column("policies").unique().sort().to_list()
    if pa != pb:
        parts.append(f"policies {' | '.join(pa)}→{' | '.join(pb)}")
    if "game_version" in a.columns and "game_version" in b.columns:
        ga, gb = a["game_version"].unique().to_list(), b["game_version"].unique().to_list()
        if ga != gb:
            parts.append(f"game version {'/'.join(ga)}→{'/'.join(gb)}")
    return "; ".join(parts) or "nothing in options, policies or version"


def compare_runs(sources: Sequence[Source], names: Sequence[str] | None = None,
                 level: float = stats.LEVEL) -> pl.DataFrame:
    """Compare two or more runs against the first, variant by variant.

    Each variant of a later run is compared with the first run's variant of the same label,
    or with its only variant. Games are paired when both hold the same (seed, game_index)
    pairs, unpaired otherwise; Holm's adjustment runs across every row.

    Returns:
        The columns of :func:`compare_variants`, with ``option`` = ``run``, ``value_a`` /
        ``value_b`` the run names, ``context`` describing what differs between the two.

    Raises:
        ValueError: fewer than two runs, runs of different games, or a variant with no
            counterpart in the first run.
    """
    frames, names, matched = _matched_variants(sources, names)
    base = frames[0]
    base_rows = contender_rows(base)
    other_rows = {name: contender_rows(f) for name, f in zip(names[1:], frames[1:], strict=True)}
    rows = []
    for name, va, vb, fa, fb in matched:
        lab = fb["variant_label"][0]
        ctx = describe_difference(fa, fb)
        ra_all = base_rows.filter(pl.col("variant") == va)
        rb_all = other_rows[name].filter(pl.col("variant") == vb)
        for c in ra_all.get_column("contender").unique(maintain_order=True).to_list():
            a = ra_all.filter(pl.col("contender") == c)
            b = rb_all.filter(pl.col("contender") == c)
            if b.height == 0:
                continue
            d = _diff_one(a, b, level)
            rows.append({
                "option": "run", "value_a": names[0], "value_b": name,
                "variant_a": va, "variant_b": vb,
                "label_a": fa["variant_label"][0], "label_b": lab, "context": ctx,
                "contender": c, "n_a": d.n_a, "n_b": d.n_b, "rate_a": d.p_a,
                "rate_b": d.p_b, "diff": d.diff, "lo": d.lo, "hi": d.hi,
                "p_value": d.p_value, "paired": d.paired, "method": d.method,
            })
    return _finish(rows, level)


def rate_difference_within(source: Source, contender_a: str, contender_b: str,
                           level: float = stats.LEVEL) -> pl.DataFrame:
    """Per variant, ``rate(b) - rate(a)`` for two contenders of the same games (paired).

    Used to test claims such as "the ALIENS and the expedition have equal chances".

    Returns:
        Columns: ``variant``, ``variant_label``, ``rate_a``, ``rate_b``, ``diff``, ``lo``,
        ``hi``, ``p_value``, ``verdict``.
    """
    df = games_frame(source)
    out = []
    for (v,), g in df.partition_by("variant", as_dict=True).items():
        w = g.get_column("winner").to_numpy()
        d = stats.diff_paired(np.asarray(w == contender_a), np.asarray(w == contender_b), level)
        out.append({
            "variant": v, "variant_label": g["variant_label"][0], "rate_a": d.p_a,
            "rate_b": d.p_b, "diff": d.diff, "lo": d.lo, "hi": d.hi, "p_value": d.p_value,
            "verdict": stats.verdict(d.lo, d.hi),
        })
    return pl.DataFrame(out).sort("variant")


def compare_measures(source: Source, measures: Sequence[str] | None = None,
                     level: float = stats.LEVEL, adjacent_only: bool = False) -> pl.DataFrame:
    """For each pair of variants differing in one option, the change in each measure's mean.

    Paired (t interval on per-game differences) when both variants hold the same
    (seed, game_index) pairs, else Welch's unequal-variance t interval. Holm across all rows.

    Args:
        source: a run folder or games frame with several variants.
        measures: numeric columns (default: ``rounds`` and the game's measures).
        level: confidence level.
        adjacent_only: compare consecutive option values only.

    Returns:
        Columns: ``option``, ``value_a``, ``value_b``, ``label_a``, ``label_b``, ``context``,
        ``measure``, ``n_a``, ``n_b``, ``mean_a``, ``mean_b``, ``diff`` (``mean_b - mean_a``),
        ``lo``, ``hi``, ``p_value``, ``p_holm``, ``paired``, ``verdict`` (from the interval),
        ``significant`` (``p_holm < 1 - level``). A measure a variant does not record (null,
        e.g. FEDOR's score beside a multi-player ISS game) is not compared.
    """
    from balancelab.analysis.frames import measure_columns

    df = games_frame(source)
    cols = list(measures) if measures is not None else ["rounds", *measure_columns(df)]
    opts = option_columns(df)
    values = {r["variant"]: r for r in df.select(["variant", *opts]).unique("variant").to_dicts()}
    labels = dict(df.select("variant", "variant_label").unique().iter_rows())
    parts = df.partition_by("variant", as_dict=True)
    rows: list[dict[str, Any]] = []
    for opt, va, vb, ctx in variant_pairs(df, adjacent_only):
        rows += _measure_rows(parts[(va,)], parts[(vb,)], cols, level, {
            "option": opt, "value_a": _fmt(values[va][opt]), "value_b": _fmt(values[vb][opt]),
            "label_a": labels[va], "label_b": labels[vb], "context": ctx})
    return _finish_measures(rows, level)


def compare_run_measures(sources: Sequence[Source], names: Sequence[str] | None = None,
                         measures: Sequence[str] | None = None,
                         level: float = stats.LEVEL) -> pl.DataFrame:
    """Compare the measures of two or more runs against the first, variant by variant
    (variants matched as in :func:`compare_runs`; paired where the games share seeds).

    Returns:
        The columns of :func:`compare_measures`, with ``option`` = ``run`` and ``value_a`` /
        ``value_b`` the run names; ``context`` describes what differs between the two.

    Raises:
        ValueError: fewer than two runs, or a variant with no counterpart in the first run.
    """
    from balancelab.analysis.frames import measure_columns

    frames, names, matched = _matched_variants(sources, names)
    cols = list(measures) if measures is not None else ["rounds", *measure_columns(frames[0])]
    rows: list[dict[str, Any]] = []
    for name, _va, _vb, fa, fb in matched:
        rows += _measure_rows(fa, fb, [c for c in cols if c in fb.columns], level, {
            "option": "run", "value_a": names[0], "value_b": name,
            "label_a": fa["variant_label"][0], "label_b": fb["variant_label"][0],
            "context": describe_difference(fa, fb)})
    return _finish_measures(rows, level)


def _matched_variants(sources: Sequence[Source], names: Sequence[str] | None
                      ) -> tuple[list[pl.DataFrame], list[str],
                                 list[tuple[str, int, int, pl.DataFrame, pl.DataFrame]]]:
    """The runs' games frames and names, and each later run's variants matched with the first
    run's: by label, or with its only variant. Returns (frames, names, [(run name, variant
    a, variant b, games a, games b)]).

    Raises:
        ValueError: fewer than two runs, runs of different games, or a variant with no
            counterpart in the first run.
    """
    if len(sources) < 2:
        raise ValueError("compare needs at least two runs")
    frames = [games_frame(s) for s in sources]
    if names is None:
        names = [Path(s).name if isinstance(s, (str, Path)) else f"run{i}"
                 for i, s in enumerate(sources)]
    games = {f.get_column("game").unique().item() for f in frames if "game" in f.columns}
    if len(games) > 1:
        raise ValueError(f"cannot compare runs of different games: {', '.join(sorted(games))}")
    base = frames[0]
    base_by_label = {lab: int(v) for v, lab in
                     base.select("variant", "variant_label").unique().iter_rows()}
    matched = []
    for name, other in zip(names[1:], frames[1:], strict=True):
        for vb, lab in sorted(other.select("variant", "variant_label").unique().iter_rows()):
            if lab in base_by_label:
                va = base_by_label[lab]
            elif len(base_by_label) == 1:
                va = next(iter(base_by_label.values()))
            else:
                raise ValueError(
                    f"variant {lab!r} of run {name!r} has no counterpart in run {names[0]!r} "
                    f"(its variants: {', '.join(sorted(base_by_label))})"
                )
            matched.append((name, va, int(vb), base.filter(pl.col("variant") == va),
                            other.filter(pl.col("variant") == vb)))
    return frames, list(names), matched


def _measure_rows(a: pl.DataFrame, b: pl.DataFrame, cols: Sequence[str], level: float,
                  meta: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per measure: the difference of means of games ``b`` minus games ``a``, paired
    (t interval on per-game differences) when both hold the same (seed, game_index) pairs,
    else Welch. A measure with fewer than 2 games or not recorded (null) on a side is left
    out."""
    from scipy import stats as sst

    a = a.sort(["seed", "game_index"])
    b = b.sort(["seed", "game_index"])
    paired = a.height == b.height and a.select("seed", "game_index").equals(
        b.select("seed", "game_index"))
    rows = []
    for m in cols:
        xa = a.get_column(m).cast(pl.Float64).to_numpy()
        xb = b.get_column(m).cast(pl.Float64).to_numpy()
        if xa.size < 2 or xb.size < 2 or np.isnan(xa).any() or np.isnan(xb).any():
            continue  # too few games, or a measure this variant does not record
        if paired:
            dd = xb - xa
            if np.all(dd == dd[0]):
                lo = hi = float(dd[0])
                p = 1.0 if dd[0] == 0 else 0.0
            else:
                res = sst.ttest_rel(xb, xa)
                ci = res.confidence_interval(level)
                lo, hi, p = float(ci.low), float(ci.high), float(res.pvalue)
        else:
            if np.var(xa) == 0 and np.var(xb) == 0:
                d0 = float(xb.mean() - xa.mean())
                lo = hi = d0
                p = 1.0 if d0 == 0 else 0.0
            else:
                res = sst.ttest_ind(xb, xa, equal_var=False)
                ci = res.confidence_interval(level)
                lo, hi, p = float(ci.low), float(ci.high), float(res.pvalue)
        rows.append({**meta, "measure": m, "n_a": int(xa.size), "n_b": int(xb.size),
                     "mean_a": float(xa.mean()), "mean_b": float(xb.mean()),
                     "diff": float(xb.mean() - xa.mean()), "lo": lo, "hi": hi,
                     "p_value": p, "paired": paired})
    return rows


def _finish_measures(rows: list[dict[str, Any]], level: float) -> pl.DataFrame:
    """The measure comparisons as a frame, with Holm across all rows and the verdicts."""
    schema = {
        "option": pl.String, "value_a": pl.String, "value_b": pl.String, "label_a": pl.String,
        "label_b": pl.String, "context": pl.String, "measure": pl.String, "n_a": pl.Int64,
        "n_b": pl.Int64, "mean_a": pl.Float64, "mean_b": pl.Float64, "diff": pl.Float64,
        "lo": pl.Float64, "hi": pl.Float64, "p_value": pl.Float64, "paired": pl.Boolean,
    }
    out = pl.DataFrame(rows, schema=schema, orient="row") if rows else pl.DataFrame(schema=schema)
    return out.with_columns(
        pl.Series("p_holm", stats.holm(out.get_column("p_value").to_numpy()), dtype=pl.Float64),
        pl.Series("verdict", [stats.verdict(lo, hi) for lo, hi in zip(out["lo"], out["hi"],
                                                                         strict=True)],
                  dtype=pl.String),
    ).with_columns((pl.col("p_holm") < 1.0 - level).alias("significant")).select(
        *[c for c in schema if c != "paired"], "p_holm", "paired", "verdict", "significant")
