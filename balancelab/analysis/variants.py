"""Comparing rule variants and runs: differences in win rate, paired where games share seeds.

Two groups of games are *paired* on the (seed, game_index) pairs they share: game *i* of every
variant of a run is played from the same seed (common random numbers), and so is game *i* of
two runs with the same seed, whatever their sizes (a 1,000-game and a 2,000-game run are paired
on their first 1,000 games; the rest of the larger is left out). Otherwise the comparison is
unpaired. Pairing helps as much as the two outcomes correlate: the games it saves against
independent samples are ``2 cov / (var_a + var_b)``, reported with each change
(``correlation``, ``games_saved``); measured on the built-in games it is 1.5–16%, not a
multiple.

Each question is one family of changes (see :mod:`balancelab.analysis.verdicts`): the focus
option's steps within each setting of the other options; Holm's correction and the
equivalence tests run within the family, and every change gets one of three verdicts:
``raises``, ``lowers``, ``equivalent`` (within ±margin) or ``inconclusive``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab.analysis import stats, verdicts
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
    "family", "family_size", "option", "value_a", "value_b", "variant_a", "variant_b",
    "label_a", "label_b", "context", "contender", "n_a", "n_b", "rate_a", "rate_b", "diff",
    "lo", "hi", "level_used", "verdict", "margin", "diff_lo", "diff_hi", "eq_lo", "eq_hi",
    "raw_lo", "raw_hi", "p_value", "p_holm", "p_equivalence", "games_to_decide",
    "detectable", "equivalent_within", "games_decided", "paired", "games_left_out",
    "correlation", "games_saved", "other", "other_diff", "draws_capped", "method",
    "significant",
]


def _fmt(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _common(a: pl.DataFrame, b: pl.DataFrame) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """The two groups restricted to the (seed, game_index) pairs both hold, in the same
    order; None when they share none."""
    key = ["seed", "game_index"]
    if not set(key) <= set(a.columns) or not set(key) <= set(b.columns):
        return None
    both = a.select(key).join(b.select(key), on=key, how="inner").unique().sort(key)
    if both.height == 0:
        return None
    return (a.join(both, on=key, how="semi").sort(key),
            b.join(both, on=key, how="semi").sort(key))


def _diff_one(a: pl.DataFrame, b: pl.DataFrame, level: float
              ) -> tuple[stats.Difference, int, tuple[np.ndarray, np.ndarray] | None]:
    """Difference of win rates of one contender between two groups of rows: paired on the
    games both hold, else unpaired. Returns it, the games left out by pairing and the paired
    outcomes in play order (None when unpaired)."""
    common = _common(a, b)
    if common is not None:
        ca, cb = common
        xa, xb = ca.get_column("win").to_numpy(), cb.get_column("win").to_numpy()
        d = stats.diff_paired(xa, xb, level)
        return d, a.height + b.height - 2 * ca.height, (xa, xb)
    return stats.diff_unpaired(int(a.get_column("win").sum()), a.height,
                               int(b.get_column("win").sum()), b.height, level), 0, None


def _other_change(a: pl.DataFrame, b: pl.DataFrame) -> tuple[float, float]:
    """The other side's change, and the share of games that were draws or capped (where a
    two-sided game's mirror is not exact), for one change of a team game: on the games both
    groups hold when they share any (as the change beside it), else on all of each."""
    common = _common(a, b)
    if common is not None:
        a, b = common

    def rate(g: pl.DataFrame) -> float:
        return float(g.get_column("win").mean()) if g.height else float("nan")  # type: ignore[arg-type]

    other = rate(b) - rate(a)
    neither = pl.concat([a, b]).select((pl.col("draw") | pl.col("capped")).mean()).item()
    return other, float(neither or 0.0)


def _finish(rows: list[dict[str, Any]], level: float, margin: float,
            sequential: bool = False) -> pl.DataFrame:
    """The comparisons as a frame: the verdicts of each family (Holm and TOST within it, or
    the anytime-valid sequential decision), and every column of ``COMPARISON_COLUMNS``."""
    schema: dict[str, Any] = {
        "family": pl.String, "family_size": pl.Int64, "option": pl.String,
        "value_a": pl.String, "value_b": pl.String, "variant_a": pl.Int32,
        "variant_b": pl.Int32, "label_a": pl.String, "label_b": pl.String,
        "context": pl.String, "contender": pl.String, "n_a": pl.Int64, "n_b": pl.Int64,
        "rate_a": pl.Float64, "rate_b": pl.Float64, "diff": pl.Float64, "lo": pl.Float64,
        "hi": pl.Float64, "level_used": pl.Float64, "verdict": pl.String,
        "margin": pl.Float64, "diff_lo": pl.Float64, "diff_hi": pl.Float64,
        "eq_lo": pl.Float64, "eq_hi": pl.Float64, "raw_lo": pl.Float64,
        "raw_hi": pl.Float64, "p_value": pl.Float64, "p_holm": pl.Float64,
        "p_equivalence": pl.Float64, "games_to_decide": pl.Int64, "detectable": pl.Float64,
        "equivalent_within": pl.Float64, "games_decided": pl.Int64, "paired": pl.Boolean,
        "games_left_out": pl.Int64, "correlation": pl.Float64,
        "games_saved": pl.Float64, "other": pl.String, "other_diff": pl.Float64,
        "draws_capped": pl.Float64, "method": pl.String,
    }
    families: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        families.setdefault(r["family"], []).append(r)
    out = []
    for fam in families.values():
        ds: list[stats.Difference] = [r.pop("_d") for r in fam]
        xs = [r.pop("_x") for r in fam]
        if sequential and all(x is not None for x in xs):
            dec = verdicts.sequential_paired(xs, margin, level)
            method = verdicts.SEQUENTIAL_METHOD
        else:
            dec = verdicts.decide_family(
                [d.diff for d in ds],
                [stats.interval_fn(d) for d in ds],
                [min(d.n_a, d.n_b) for d in ds], margin, level)
            method = ""
        for r, d, x in zip(fam, ds, dec, strict=True):
            out.append({
                **r, "family_size": len(fam), "n_a": d.n_a, "n_b": d.n_b, "rate_a": d.p_a,
                "rate_b": d.p_b, "diff": d.diff if np.isnan(x.estimate) else x.estimate,
                "lo": x.lo, "hi": x.hi,
                "level_used": x.level, "verdict": x.verdict, "margin": margin,
                "diff_lo": x.diff_lo, "diff_hi": x.diff_hi, "eq_lo": x.eq_lo,
                "eq_hi": x.eq_hi, "raw_lo": d.lo, "raw_hi": d.hi, "p_value": x.p_value,
                "p_holm": x.p_holm, "p_equivalence": x.p_equivalence,
                "games_to_decide": x.games_to_decide, "detectable": x.detectable,
                "equivalent_within": x.equivalent_within, "games_decided": x.games_decided,
                "paired": d.paired, "correlation": d.correlation,
                "games_saved": d.games_saved, "method": method or d.method,
            })
    df = pl.DataFrame(out, schema=schema, orient="row") if out else pl.DataFrame(schema=schema)
    return df.with_columns(
        pl.col("verdict").is_in([verdicts.RAISES, verdicts.LOWERS]).alias("significant"),
    ).select(COMPARISON_COLUMNS)


def _game(df: pl.DataFrame) -> str | None:
    return str(df["game"][0]) if "game" in df.columns and df.height else None


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
                     adjacent_only: bool | None = None, *,
                     focus: str | Sequence[str] | None = None, pairs: str | None = None,
                     margin: float | None = None, sequential: bool = False) -> pl.DataFrame:
    """Each question's changes in win rate, with their verdicts.

    A question is one option (``focus``; default every swept option, each its own
    question): its steps within each setting of the other options, which are held fixed and
    not compared with each other. Team games get one row per change, for the first side
    (HAL, the expedition), with the other side's change beside it (its mirror apart from
    draws and capped games); seat games one row per seat, except where the change is
    between two-seat settings (2 players, or solo against a bot): there the second seat's
    change is the first's mirror apart from shared wins and capped games, so it is one test
    of the family (Holm counts it once), the first seat's row with the second's change beside
    it, as for a team game.

    Args:
        source: a run folder or games frame with several variants (a sweep).
        level: family-wise confidence level.
        contenders: the sides/seats to compare (default: as above).
        adjacent_only: True for neighbouring settings, False for every pair (same as
            ``pairs``).
        focus: the option(s) whose steps are the question(s).
        pairs: ``"adjacent"`` (default: neighbouring settings) or ``"all"`` (every pair).
        margin: equivalence margin in win-rate units (default :func:`verdicts.margin_for`
            the game).
        sequential: the sequential tests' verdicts
            (:func:`balancelab.analysis.verdicts.sequential_paired`; runs stopped by
            ``--decide``).

    Returns:
        Columns (``COMPARISON_COLUMNS``): ``family`` (the question), ``family_size``,
        ``option``, ``value_a``, ``value_b`` (str), ``variant_a``, ``variant_b``,
        ``label_a``, ``label_b``, ``context`` (options held fixed), ``contender``, ``n_a``,
        ``n_b``, ``rate_a``, ``rate_b``, ``diff`` (``rate_b - rate_a``), ``lo``, ``hi``,
        ``level_used`` (the interval the verdict used, and its level), ``verdict`` (raises /
        lowers / equivalent / inconclusive), ``margin``, ``diff_lo``, ``diff_hi`` (Holm-level
        interval), ``eq_lo``, ``eq_hi`` (TOST interval), ``raw_lo``, ``raw_hi`` (unadjusted
        95%), ``p_value``, ``p_holm``, ``p_equivalence``, ``games_to_decide`` (inconclusive:
        games per setting that would decide at 80% power under the family's correction),
        ``detectable`` (smallest change detectable with 80% power at these games, under the
        family's correction), ``equivalent_within`` (the smallest margin at which the change
        would count as equivalent), ``games_decided`` (sequential: the games per setting at
        the look that decided; ``diff``, ``lo`` and ``hi`` are from that look), ``paired``,
        ``games_left_out``, ``correlation`` (phi of the paired outcomes), ``games_saved``
        (share of games pairing saved), ``other`` / ``other_diff`` (team games: the other
        side and its change), ``draws_capped`` (share of the two variants' games drawn or
        capped), ``method``, ``significant`` (raises or lowers).

    Raises:
        ValueError: a focus that is not a swept option, or ``pairs`` not adjacent/all.
    """
    df = games_frame(source)
    adjacent = _adjacent(adjacent_only, pairs)
    rows_all = contender_rows(df)
    labels = dict(df.select("variant", "variant_label").unique().iter_rows())
    opts = option_columns(df)
    swept = swept_options(df)
    wanted = _focus(focus, swept)
    values = {r["variant"]: r for r in df.select(["variant", *opts]).unique("variant").to_dicts()}
    groups = rows_all.partition_by(["variant", "contender"], as_dict=True)
    names = rows_all.sort(["seat", "contender"]).get_column("contender") \
        .unique(maintain_order=True).to_list()
    team = is_team_game(df)
    other: str | None = None
    if team:
        order = [s for s in sides(df) if s in names]
        names = order[:1] if contenders is None else order
        other = order[1] if len(order) == 2 and contenders is None else None
    if contenders is not None:
        names = [c for c in names if c in contenders]
    how = "neighbouring settings" if adjacent else "every pair of settings"
    rows = []
    for opt, va, vb, ctx in variant_pairs(df, adjacent):
        if opt not in wanted:
            continue
        here = [c for c in names if (va, c) in groups and (vb, c) in groups]
        twin = here[1] if not team and len(here) == 2 else None
        for c in here[:1] if twin else here:
            a, b = groups[(va, c)], groups[(vb, c)]
            d, left, paired = _diff_one(a, b, level)
            od, dc = (float("nan"), 0.0)
            beside = twin or other
            if beside is not None and (va, beside) in groups and (vb, beside) in groups:
                od, dc = _other_change(groups[(va, beside)], groups[(vb, beside)])
            rows.append({
                "_d": d, "_x": paired, "family": f"{opt} ({how})", "option": opt,
                "value_a": _fmt(values[va][opt]), "value_b": _fmt(values[vb][opt]),
                "variant_a": va, "variant_b": vb, "label_a": labels[va], "label_b": labels[vb],
                "context": ctx, "contender": c, "games_left_out": left,
                "other": twin or other,
                "other_diff": od, "draws_capped": dc,
            })
    return _finish(rows, level, margin if margin is not None else verdicts.margin_for(_game(df)),
                   sequential)


def _adjacent(adjacent_only: bool | None, pairs: str | None) -> bool:
    if pairs is not None and pairs not in ("adjacent", "all"):
        raise ValueError(f"--pairs must be adjacent or all; got {pairs!r}")
    if adjacent_only is not None:
        return adjacent_only
    return pairs != "all"


def _focus(focus: str | Sequence[str] | None, swept: Sequence[str]) -> list[str]:
    if focus is None:
        return list(swept)
    wanted = [focus] if isinstance(focus, str) else list(focus)
    bad = [f for f in wanted if f not in swept]
    if bad:
        raise ValueError(f"--focus {bad[0]!r} is not an option the run sweeps; swept: "
                         f"{', '.join(swept) or 'none'}")
    return wanted


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
                 level: float = stats.LEVEL, margin: float | None = None) -> pl.DataFrame:
    """Compare two or more runs against the first, variant by variant: one family.

    Each variant of a later run is compared with the first run's variant of the same label,
    or with its only variant. Games are paired on the (seed, game_index) pairs both runs hold
    (same-seed runs of any sizes), unpaired when they share none. Team games give one row per
    change (the first side, the other side's change beside it), seat games one per seat.

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
    team = is_team_game(base)
    side_order = [s for s in sides(base)] if team else []
    rows = []
    for name, va, vb, fa, fb in matched:
        lab = fb["variant_label"][0]
        ctx = describe_difference(fa, fb)
        ra_all = base_rows.filter(pl.col("variant") == va)
        rb_all = other_rows[name].filter(pl.col("variant") == vb)
        present = ra_all.get_column("contender").unique(maintain_order=True).to_list()
        cs = [s for s in side_order if s in present][:1] if team else present
        other = next((s for s in side_order[1:2] if s in present), None) if team else None
        for c in cs:
            a = ra_all.filter(pl.col("contender") == c)
            b = rb_all.filter(pl.col("contender") == c)
            if b.height == 0:
                continue
            d, left, paired = _diff_one(a, b, level)
            od, dc = float("nan"), 0.0
            if other is not None:
                od, dc = _other_change(ra_all.filter(pl.col("contender") == other),
                                       rb_all.filter(pl.col("contender") == other))
            rows.append({
                "_d": d, "_x": paired, "family": f"runs against {names[0]}", "option": "run",
                "value_a": names[0], "value_b": name, "variant_a": va, "variant_b": vb,
                "label_a": fa["variant_label"][0], "label_b": lab, "context": ctx,
                "contender": c, "games_left_out": left, "other": other, "other_diff": od,
                "draws_capped": dc,
            })
    return _finish(rows, level, margin if margin is not None else verdicts.margin_for(
        _game(base)))


def rate_difference_within(source: Source, contender_a: str, contender_b: str,
                           level: float = stats.LEVEL, margin: float | None = None
                           ) -> pl.DataFrame:
    """Per variant, ``rate(b) - rate(a)`` for two contenders of the same games (paired), with
    the three verdicts across the variants as one family.

    Used to test claims such as "the ALIENS and the expedition have equal chances":
    ``equivalent`` supports the claim within ±margin, ``raises``/``lowers`` refutes it.

    Returns:
        Columns: ``variant``, ``variant_label``, ``rate_a``, ``rate_b``, ``diff``, ``lo``,
        ``hi`` (the interval the verdict used), ``level_used``, ``p_value``, ``p_holm``,
        ``verdict``, ``margin``, ``games_to_decide``.
    """
    df = games_frame(source)
    mg = margin if margin is not None else verdicts.margin_for(_game(df))
    ds, meta = [], []
    for (v,), g in sorted(df.partition_by("variant", as_dict=True).items()):
        w = g.get_column("winner").to_numpy()
        ds.append(stats.diff_paired(np.asarray(w == contender_a), np.asarray(w == contender_b),
                                    level))
        meta.append((v, g["variant_label"][0]))
    dec = verdicts.decide_family([d.diff for d in ds],
                                 [stats.interval_fn(d) for d in ds],
                                 [d.n_a for d in ds], mg, level)
    out = [{"variant": v, "variant_label": lab, "rate_a": d.p_a, "rate_b": d.p_b,
            "diff": d.diff, "lo": x.lo, "hi": x.hi, "level_used": x.level,
            "p_value": x.p_value, "p_holm": x.p_holm, "verdict": x.verdict, "margin": mg,
            "games_to_decide": x.games_to_decide}
           for (v, lab), d, x in zip(meta, ds, dec, strict=True)]
    return pl.DataFrame(out).sort("variant")


def compare_measures(source: Source, measures: Sequence[str] | None = None,
                     level: float = stats.LEVEL, adjacent_only: bool | None = None, *,
                     focus: str | Sequence[str] | None = None, pairs: str | None = None
                     ) -> pl.DataFrame:
    """Each question's changes in the mean of each measure, with their verdicts.

    The family of a question is its option's steps (within each setting of the others) ×
    the measures; Holm and the equivalence tests run within it. Paired (t interval on
    per-game differences) when the variants share games, else Welch's unequal-variance t
    interval. The equivalence margin of a measure is :data:`verdicts.MEASURE_MARGIN_SD` times
    its standard deviation over the "before" games, in the measure's units.

    Args:
        source: a run folder or games frame with several variants.
        measures: numeric columns (default: ``rounds`` and the game's measures).
        level: family-wise confidence level.
        adjacent_only, pairs, focus: as for :func:`compare_variants`.

    Returns:
        Columns: ``family``, ``family_size``, ``option``, ``value_a``, ``value_b``,
        ``label_a``, ``label_b``, ``context``, ``measure``, ``n_a``, ``n_b``, ``mean_a``,
        ``mean_b``, ``diff`` (``mean_b - mean_a``), ``lo``, ``hi``, ``level_used`` (the
        interval the verdict used), ``margin`` (in the measure's units), ``p_value``,
        ``p_holm``, ``games_to_decide``, ``paired``, ``verdict``, ``significant``. A measure
        a variant does not record (null, e.g. FEDOR's score beside a multi-player ISS game)
        is not compared.
    """
    from balancelab.analysis.frames import measure_columns

    df = games_frame(source)
    adjacent = _adjacent(adjacent_only, pairs)
    wanted = _focus(focus, swept_options(df))
    cols = list(measures) if measures is not None else ["rounds", *measure_columns(df)]
    opts = option_columns(df)
    values = {r["variant"]: r for r in df.select(["variant", *opts]).unique("variant").to_dicts()}
    labels = dict(df.select("variant", "variant_label").unique().iter_rows())
    parts = df.partition_by("variant", as_dict=True)
    how = "neighbouring settings" if adjacent else "every pair of settings"
    rows: list[dict[str, Any]] = []
    for opt, va, vb, ctx in variant_pairs(df, adjacent):
        if opt not in wanted:
            continue
        rows += _measure_rows(parts[(va,)], parts[(vb,)], cols, level, {
            "family": f"{opt} measures ({how})", "option": opt,
            "value_a": _fmt(values[va][opt]), "value_b": _fmt(values[vb][opt]),
            "label_a": labels[va], "label_b": labels[vb], "context": ctx})
    return _finish_measures(rows, level)


def compare_run_measures(sources: Sequence[Source], names: Sequence[str] | None = None,
                         measures: Sequence[str] | None = None,
                         level: float = stats.LEVEL) -> pl.DataFrame:
    """Compare the measures of two or more runs against the first, variant by variant
    (variants matched as in :func:`compare_runs`; paired on the games both hold). One
    family.

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
            "family": f"measures, runs against {names[0]}", "option": "run",
            "value_a": names[0], "value_b": name,
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


def _t_interval(d: float, se: float, dof: float) -> verdicts.IntervalFn:
    """``d ± t(dof) se`` as a function of the level (a point when ``se`` is 0)."""
    from scipy import stats as sst

    def f(level: float) -> tuple[float, float]:
        if se == 0 or not np.isfinite(se):
            return d, d
        h = float(sst.t.ppf(0.5 + level / 2, dof)) * se
        return d - h, d + h

    return f


def _measure_rows(a: pl.DataFrame, b: pl.DataFrame, cols: Sequence[str], level: float,
                  meta: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per measure: the difference of means of games ``b`` minus games ``a``, paired
    (t interval on per-game differences) on the games both hold, else Welch. A measure with
    fewer than 2 games or not recorded (null) on a side is left out."""
    common = _common(a, b)
    paired = common is not None
    if common is not None:
        a, b = common
    rows = []
    for m in cols:
        xa = a.get_column(m).cast(pl.Float64).to_numpy()
        xb = b.get_column(m).cast(pl.Float64).to_numpy()
        if xa.size < 2 or xb.size < 2 or np.isnan(xa).any() or np.isnan(xb).any():
            continue  # too few games, or a measure this variant does not record
        d = float(xb.mean() - xa.mean())
        if paired:
            dd = xb - xa
            se = float(np.std(dd, ddof=1) / np.sqrt(dd.size))
            dof = float(dd.size - 1)
        else:
            va, vb = float(np.var(xa, ddof=1)) / xa.size, float(np.var(xb, ddof=1)) / xb.size
            se = float(np.sqrt(va + vb))
            dof = (va + vb) ** 2 / ((va**2 / (xa.size - 1) if va else 0.0)
                                    + (vb**2 / (xb.size - 1) if vb else 0.0) or 1.0)
        rows.append({**meta, "measure": m, "n_a": int(xa.size), "n_b": int(xb.size),
                     "mean_a": float(xa.mean()), "mean_b": float(xb.mean()), "diff": d,
                     "_f": _t_interval(d, se, dof),
                     "margin": verdicts.MEASURE_MARGIN_SD * float(np.std(xa, ddof=1)),
                     "paired": paired})
    return rows


def _finish_measures(rows: list[dict[str, Any]], level: float) -> pl.DataFrame:
    """The measure comparisons as a frame, with the verdicts of each family."""
    schema: dict[str, Any] = {
        "family": pl.String, "family_size": pl.Int64, "option": pl.String,
        "value_a": pl.String, "value_b": pl.String, "label_a": pl.String,
        "label_b": pl.String, "context": pl.String, "measure": pl.String, "n_a": pl.Int64,
        "n_b": pl.Int64, "mean_a": pl.Float64, "mean_b": pl.Float64, "diff": pl.Float64,
        "lo": pl.Float64, "hi": pl.Float64, "level_used": pl.Float64, "margin": pl.Float64,
        "p_value": pl.Float64, "p_holm": pl.Float64, "games_to_decide": pl.Int64,
        "paired": pl.Boolean, "verdict": pl.String,
    }
    families: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        families.setdefault(r["family"], []).append(r)
    out = []
    for fam in families.values():
        fs = [r.pop("_f") for r in fam]
        dec = verdicts.decide_family([r["diff"] for r in fam], fs,
                                     [min(r["n_a"], r["n_b"]) for r in fam],
                                     [max(r["margin"], 1e-12) for r in fam], level)
        for r, x in zip(fam, dec, strict=True):
            out.append({**r, "family_size": len(fam), "lo": x.lo, "hi": x.hi,
                        "level_used": x.level, "p_value": x.p_value, "p_holm": x.p_holm,
                        "games_to_decide": x.games_to_decide, "verdict": x.verdict})
    df = pl.DataFrame(out, schema=schema, orient="row") if out else pl.DataFrame(schema=schema)
    return df.with_columns(
        pl.col("verdict").is_in([verdicts.RAISES, verdicts.LOWERS]).alias("significant"))
