"""Win rates by side, seat and policy; outcomes, end reasons, game length and measures.

Every function takes a run folder or a games frame (see :mod:`balancelab.analysis.frames`) and
returns a polars DataFrame whose columns are documented in its docstring. Intervals are Wilson
score intervals at ``level`` (default 95%), exact at 0/n and n/n.

*Contenders* are what the ``winner`` column names: the sides in team games (``hal``/``crew``,
``expedition``/``aliens``) and the seats where wins go to seats (iss: ``seat0``…, solo ``fedor``).
Draws (``draw``/``tie``) and capped games (``winner == ""``) are kept apart, so for each
contender ``wins + draws + losses + capped == games``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab.analysis import stats
from balancelab.analysis.frames import (
    CAPPED,
    DRAW_VALUES,
    Source,
    first_rows,
    games_frame,
    is_team_game,
    measure_columns,
    option_columns,
    seat_policies,
    seats_frame,
    sides,
)
from balancelab.simulate import runs


def with_interval(df: pl.DataFrame, k: str = "wins", n: str = "games",
                  level: float = stats.LEVEL, prefix: str = "") -> pl.DataFrame:
    """Add ``<prefix>rate``, ``<prefix>lo``, ``<prefix>hi`` (Wilson) for counts ``k`` of ``n``."""
    kk = df.get_column(k).to_numpy()
    nn = df.get_column(n).to_numpy()
    lo, hi = stats.wilson(kk, nn, level)
    rate = np.where(nn > 0, kk / np.where(nn > 0, nn, 1), np.nan)
    return df.with_columns(
        pl.Series(f"{prefix}rate", rate, dtype=pl.Float64),
        pl.Series(f"{prefix}lo", lo, dtype=pl.Float64),
        pl.Series(f"{prefix}hi", hi, dtype=pl.Float64),
    )


def contender_rows(source: Source) -> pl.DataFrame:
    """One row per game and contender.

    Returns:
        Columns: ``variant`` (Int32), ``game_index``, ``seed``, ``contender`` (str),
        ``seat`` (Int32; -1 for a side), ``policy`` (str), ``win``, ``draw``, ``capped``
        (bool). Team games give one row per side; seat games one per seat.
    """
    df = games_frame(source)
    capped = (pl.col("winner") == CAPPED) | (pl.col("end_reason") == "cap")
    draw = pl.col("winner").is_in(list(DRAW_VALUES))
    seed = pl.col("seed") if "seed" in df.columns else pl.lit(0, dtype=pl.Int64)
    base = df.select("variant", "game_index", seed.alias("seed"), "winner",
                     capped.alias("capped"), draw.alias("draw"),
                     *[pl.col(f"policy_{s}") for s in sides(df)])
    if is_team_game(df):
        parts = [
            base.select(
                "variant", "game_index", "seed",
                pl.lit(s).alias("contender"),
                pl.lit(-1, dtype=pl.Int32).alias("seat"),
                pl.col(f"policy_{s}").alias("policy"),
                (pl.col("winner") == s).alias("win"), "draw", "capped",
            )
            for s in sides(df)
        ]
        return pl.concat(parts).sort(["variant", "game_index", "contender"])
    key = ["variant", "game_index", "seed"]  # games of several run seeds share indices
    sp = seat_policies(df).join(base, on=key, how="left")
    if "first_seats" in df.columns:
        # a shared win is a draw only for the seats that shared first place (1998 ISS
        # tie-break: the others lost)
        sp = sp.join(df.select("variant", "game_index", seed.alias("seed"), "first_seats"),
                     on=key, how="left").with_columns(
            (pl.col("draw") & pl.col("first_seats").list.contains(pl.col("seat"))
             .fill_null(True)).alias("draw"))
    return (
        sp.select(
            "variant", "game_index", "seed",
            pl.col("seat_name").alias("contender"), "seat", "policy",
            (pl.col("winner") == pl.col("seat_name")).alias("win"), "draw", "capped",
        )
        .sort(["variant", "game_index", "seat"])
    )


def _team_counts(df: pl.DataFrame) -> pl.DataFrame:
    """Per variant and side of a team game, what :func:`contender_rows` would count (games,
    wins, draws, capped), aggregated straight from the games: no row per game and side."""
    capped = (pl.col("winner") == CAPPED) | (pl.col("end_reason") == "cap")
    draw = pl.col("winner").is_in(list(DRAW_VALUES))
    parts = []
    for s in sides(df):
        win = pl.col("winner") == s
        parts.append(df.lazy().group_by("variant").agg(
            pl.lit(s).alias("contender"), pl.lit(-1, dtype=pl.Int32).alias("seat"),
            pl.len().cast(pl.Int64).alias("games"),
            win.sum().cast(pl.Int64).alias("wins"),
            (draw & ~win).sum().cast(pl.Int64).alias("draws"),
            capped.sum().cast(pl.Int64).alias("capped"),
        ))
    # the streaming engine counts a million games in a few MB (the in-memory group-by
    # takes about 100 MB of scratch space there)
    return pl.concat(pl.collect_all(parts, engine="streaming"))


def _labels(df: pl.DataFrame) -> pl.DataFrame:
    cols = ["variant", "variant_label", *option_columns(df)]
    return first_rows(df.select(cols))


def win_rates(source: Source, level: float = stats.LEVEL) -> pl.DataFrame:
    """Each contender's win rate per variant.

    Returns:
        Columns: ``variant``, ``variant_label``, the option columns, ``contender``, ``seat``
        (-1 for sides), ``games``, ``wins``, ``draws``, ``losses``, ``capped`` (Int64),
        ``rate``, ``lo``, ``hi`` (Float64, Wilson at ``level``), ``fair_share`` (Float64: 1 /
        the number of possible winners in the variant, see :func:`fair_shares`). Sorted by
        variant, then seat / side order.
    """
    df = games_frame(source)
    order = {s: i for i, s in enumerate(sides(df))}
    out = (
        _team_counts(df) if is_team_game(df) else
        contender_rows(df).group_by(["variant", "contender", "seat"])
        .agg(
            pl.len().cast(pl.Int64).alias("games"),
            pl.col("win").sum().cast(pl.Int64).alias("wins"),
            (pl.col("draw") & ~pl.col("win")).sum().cast(pl.Int64).alias("draws"),
            pl.col("capped").sum().cast(pl.Int64).alias("capped"),
        )
    ).with_columns(
            (pl.col("games") - pl.col("wins") - pl.col("draws") - pl.col("capped"))
            .alias("losses"),
            pl.col("contender").replace_strict(order, default=None, return_dtype=pl.Int64)
            .alias("_o"),
    ).join(fair_shares(df), on="variant", how="left") \
        .sort(["variant", "_o", "seat", "contender"], nulls_last=True).drop("_o")
    out = with_interval(out, level=level)
    out = _labels(df).join(out, on="variant", how="right")
    return out.select(
        "variant", "variant_label", *option_columns(df), "contender", "seat", "games", "wins",
        "draws", "losses", "capped", "rate", "lo", "hi", "fair_share",
    )


def policy_rates(source: Source, level: float = stats.LEVEL) -> pl.DataFrame:
    """Win rate by policy: per side and policy (team games) or per policy over all seats.

    In seat games with rotated policies every seat a policy played counts once, so the rate
    of a policy is its wins over the seats it played.

    Returns:
        Columns: ``variant``, ``variant_label``, ``contender`` (the side; ``any seat`` in seat
        games), ``policy``, ``games`` (seat-games), ``wins``, ``rate``, ``lo``, ``hi``,
        ``fair_share`` (Float64; null in team games, see :func:`fair_shares`).
    """
    df = games_frame(source)
    team = is_team_game(df)
    if team:  # per side and its policy column, straight from the games
        counts = pl.concat(pl.collect_all([
            df.lazy().group_by("variant", pl.col(f"policy_{s}").alias("policy")).agg(
                pl.lit(s).alias("contender"), pl.len().cast(pl.Int64).alias("games"),
                (pl.col("winner") == s).sum().cast(pl.Int64).alias("wins"),
            ).select("variant", "contender", "policy", "games", "wins")
            for s in sides(df)], engine="streaming"))
    else:
        counts = (contender_rows(df).with_columns(pl.lit("any seat").alias("contender"))
                  .group_by(["variant", "contender", "policy"])
                  .agg(pl.len().cast(pl.Int64).alias("games"),
                       pl.col("win").sum().cast(pl.Int64).alias("wins")))
    out = (
        counts
        .sort(["variant", "contender", "policy"])
        .join(fair_shares(df), on="variant", how="left")
    )
    if team:  # sides are not equals: no fair share
        out = out.with_columns(pl.lit(None, dtype=pl.Float64).alias("fair_share"))
    out = with_interval(out, level=level)
    return _labels(df).select("variant", "variant_label").join(out, on="variant", how="right") \
        .select("variant", "variant_label", "contender", "policy", "games", "wins", "rate", "lo",
                "hi", "fair_share")


def outcome_rates(source: Source, level: float = stats.LEVEL) -> pl.DataFrame:
    """How games ended, per variant: every ``winner`` value, with capped games apart.

    Returns:
        Columns: ``variant``, ``variant_label``, ``outcome`` (a side or seat, ``draw``/``tie``,
        or ``capped``), ``count``, ``games``, ``rate``, ``lo``, ``hi``. Every outcome the game
        declares (``Game.outcomes``, or the sides when the engine cannot be loaded) appears
        even at 0, and ``capped`` too for a game with a round cap (``Game.round_cap``, or
        when the engine cannot be loaded); the counts of a variant sum to its games.
    """
    outcome = (pl.when(pl.col("winner") == CAPPED).then(pl.lit("capped"))
               .otherwise(pl.col("winner")).alias("outcome"))
    if isinstance(source, (str, Path)):
        # a run folder is aggregated lazily: memory stays flat in the number of games (the
        # counts read two columns; one game per variant stands for its labels and options)
        lf = runs.scan_games(Path(source))
        observed = (lf.select("variant", outcome).group_by(["variant", "outcome"])
                    .agg(pl.len().cast(pl.Int64).alias("count")).collect())
        df = _first_games(lf)
    else:
        df = games_frame(source)
        observed = (df.lazy().select("variant", outcome).group_by(["variant", "outcome"])
                    .agg(pl.len().cast(pl.Int64).alias("count")).collect(engine="streaming"))
    names = [*_declared_outcomes(df), "capped"]
    names += sorted(set(observed.get_column("outcome").to_list()) - set(names))
    order = {o: i for i, o in enumerate(names)}
    possible = _possible_outcomes(df)
    capped = ["capped"] if _has_round_cap(df) else []
    grid = pl.DataFrame(
        [(v, o) for v, outs in possible.items() for o in [*outs, *capped]],
        schema={"variant": df.schema["variant"], "outcome": pl.String}, orient="row",
    )
    out = (
        grid.join(observed, on=["variant", "outcome"], how="full", coalesce=True)
        .with_columns(pl.col("count").fill_null(0))
        .with_columns(
            pl.col("count").sum().over("variant").alias("games"),
            pl.col("outcome").replace_strict(order, return_dtype=pl.Int64).alias("_o"),
        )
        .sort(["variant", "_o"]).drop("_o")
    )
    out = with_interval(out, k="count", level=level)
    return _labels(df).select("variant", "variant_label").join(out, on="variant", how="right") \
        .select("variant", "variant_label", "outcome", "count", "games", "rate", "lo", "hi")


def _first_games(lf: pl.LazyFrame) -> pl.DataFrame:
    """The first game of each variant (all columns), read without loading the others."""
    firsts = lf.group_by("variant").agg(pl.col("game_index").min()).collect()
    cond = pl.lit(False)
    for v, i in firsts.iter_rows():
        cond = cond | ((pl.col("variant") == v) & (pl.col("game_index") == i))
    return lf.filter(cond).collect().sort("variant")


def fair_shares(source: Source) -> pl.DataFrame:
    """Per variant, the win rate each contender would have if all were equally good, counting
    shared wins, draws and capped games the way win rates do (nobody's win): the share of
    games with a sole winner divided by the number of possible winners
    (``Game.possible_outcomes``, draws aside): 3 for three ISS players, 2 for two sides. With
    5.1% shared wins, four equal seats each win 23.7%, not 25%. Without the game's engine: the
    number of contenders (seats or sides). A seat game's variant where a bot can win (solo
    ISS against FEDOR) has none: a bot is not a seat's equal.

    Returns:
        Columns: ``variant``, ``fair_share`` (Float64; null where a bot can win).
    """
    df = games_frame(source)
    possible = _engine_outcomes(df)
    bots = _bot_variants(df)
    if possible is None:
        counts = contender_rows(df).group_by("variant").agg(
            pl.col("contender").n_unique().alias("n"))
        possible = {v: [""] * n for v, n in counts.iter_rows()}
    sole = dict(df.lazy().group_by("variant").agg(
        (~pl.col("winner").is_in([*DRAW_VALUES, CAPPED])).mean().alias("s"))
        .collect(engine="streaming").iter_rows())
    rows = [(v, None if v in bots else
             float(sole.get(v, 1.0)) / max(1, sum(o not in DRAW_VALUES for o in outs)))
            for v, outs in possible.items()]
    return pl.DataFrame(rows, schema={"variant": df.schema["variant"],
                                      "fair_share": pl.Float64}, orient="row")


def _bot_variants(df: pl.DataFrame) -> set[Any]:
    """The variants of a seat game where a possible winner is not a seat (a bot such as
    FEDOR in solo ISS); empty for team games or when the game's engine cannot be loaded."""
    found = None if is_team_game(df) else _engine_variants(df)
    if found is None:
        return set()
    game, options = found
    return {v for v, opts in options.items()
            if set(game.possible_outcomes(opts)) - {*game.seats(opts), *DRAW_VALUES, CAPPED}}


def seat_balance(source: Source, level: float = stats.LEVEL,
                 margin: float | None = None) -> pl.DataFrame:
    """A test of equal seats, per variant of a seat game with two or more seats.

    Each seat against the rest: the seat's win rate minus its fair share (:func:`fair_shares`:
    a shared win is nobody's win, for the rate and the share alike), tested through the
    seat's share of the games a seat won alone (Wilson interval, exact binomial in spirit)
    against ``1 / seats``, with the three verdicts (:mod:`balancelab.analysis.verdicts`):
    ``raises`` = wins more than its fair share, ``lowers`` = less, ``equivalent`` = within
    ±margin of it. The seats of every variant are one family (Holm and the equivalence
    tests across all of them); at two seats the second seat's row is the first's mirror
    (one test, counted once). All seats at once: the chi-square test of equal shares
    (Pearson), Holm-corrected across the variants, ``unequal`` when its adjusted p-value is
    below ``1 - level``, ``equivalent`` when every seat is, else ``inconclusive``.

    Returns:
        Columns: ``variant``, ``variant_label``, ``contender`` (a seat, or ``all seats``),
        ``games``, ``wins``, ``sole_wins`` (games a seat won alone), ``rate``,
        ``fair_share``, ``diff`` (rate − fair share), ``lo``, ``hi`` (the interval the
        verdict used), ``level_used``, ``p_value``, ``p_holm``, ``verdict``, ``margin``,
        ``games_to_decide``, ``family_size`` (the tests in the family: seats, or variants
        for the ``all seats`` rows). Empty for team games and solo games.
    """
    from dataclasses import replace
    from functools import partial

    from scipy import stats as sst

    from balancelab.analysis import verdicts

    df = games_frame(source)
    schema: dict[str, Any] = {
        "variant": pl.Int32, "variant_label": pl.String, "contender": pl.String,
        "games": pl.Int64, "wins": pl.Int64, "sole_wins": pl.Int64, "rate": pl.Float64,
        "fair_share": pl.Float64, "diff": pl.Float64, "lo": pl.Float64, "hi": pl.Float64,
        "level_used": pl.Float64, "p_value": pl.Float64, "p_holm": pl.Float64,
        "verdict": pl.String, "margin": pl.Float64, "games_to_decide": pl.Int64,
        "family_size": pl.Int64,
    }
    if is_team_game(df):
        return pl.DataFrame(schema=schema)
    game = str(df["game"][0]) if "game" in df.columns and df.height else None
    mg = margin if margin is not None else verdicts.margin_for(game)
    rates = win_rates(df, level)
    variants: list[tuple[Any, str, int, list[str], list[int], float]] = []
    ests: list[float] = []
    fns: list[verdicts.IntervalFn] = []
    ns: list[int] = []
    for (v,), sub in sorted(rates.partition_by("variant", as_dict=True).items()):
        seats = sub.filter(pl.col("seat") >= 0)
        k = seats.height
        n = int(seats["games"][0]) if k else 0
        wins = [int(w) for w in seats["wins"]]
        big_w = sum(wins)
        if k < 2 or big_w == 0 or seats["fair_share"][0] is None:
            continue  # no rival seat, or no sole winner: nothing to test

        def interval(lv: float, w: int = 0, total: int = big_w, games: int = n,
                     seats_n: int = k) -> tuple[float, float]:
            lo, hi = stats.wilson(w, total, lv)
            scale = total / games
            return scale * (float(lo) - 1 / seats_n), scale * (float(hi) - 1 / seats_n)

        tested = wins[:1] if k == 2 else wins  # two seats: one test
        ests += [w / n - big_w / n / k for w in tested]
        fns += [partial(interval, w=w) for w in tested]
        ns += [n] * len(tested)
        variants.append((v, str(seats["variant_label"][0]), n,
                         seats["contender"].to_list(), wins,
                         float(seats["fair_share"][0])))
    if not variants:
        return pl.DataFrame(schema=schema)
    dec = iter(verdicts.decide_family(ests, fns, ns, mg, level))
    p_all = [float(sst.chisquare(v[4]).pvalue) for v in variants]
    p_all_holm = stats.holm(p_all)
    mirror = {verdicts.RAISES: verdicts.LOWERS, verdicts.LOWERS: verdicts.RAISES}
    out: list[dict[str, Any]] = []
    for (v, label, n, names, wins, fair), p, ph in zip(variants, p_all, p_all_holm,
                                                       strict=True):
        ds = [next(dec) for _ in (wins[:1] if len(wins) == 2 else wins)]
        if len(wins) == 2:
            x = ds[0]
            ds.append(replace(x, verdict=mirror.get(x.verdict, x.verdict), lo=-x.hi, hi=-x.lo,
                              diff_lo=-x.diff_hi, diff_hi=-x.diff_lo, eq_lo=-x.eq_hi,
                              eq_hi=-x.eq_lo))
        big_w = sum(wins)
        all_verdict = ("unequal" if ph < 1 - level else
                       verdicts.EQUIVALENT if all(x.verdict == verdicts.EQUIVALENT
                                                  for x in ds) else verdicts.INCONCLUSIVE)
        out.append({"variant": v, "variant_label": label, "contender": "all seats",
                    "games": n, "wins": big_w, "sole_wins": big_w, "rate": big_w / n,
                    "fair_share": fair, "diff": 0.0, "lo": None, "hi": None,
                    "level_used": level, "p_value": p, "p_holm": float(ph),
                    "verdict": all_verdict, "margin": mg, "games_to_decide": None,
                    "family_size": len(variants)})
        for name, w, x in zip(names, wins, ds, strict=True):
            out.append({"variant": v, "variant_label": label, "contender": name, "games": n,
                        "wins": w, "sole_wins": big_w, "rate": w / n, "fair_share": fair,
                        "diff": w / n - fair, "lo": x.lo, "hi": x.hi,
                        "level_used": x.level, "p_value": x.p_value, "p_holm": x.p_holm,
                        "verdict": x.verdict, "margin": mg,
                        "games_to_decide": x.games_to_decide, "family_size": len(ests)})
    return pl.DataFrame(out, schema=schema, orient="row")


def _possible_outcomes(df: pl.DataFrame) -> dict[Any, list[str]]:
    """Per variant, the outcomes its options allow (``Game.possible_outcomes``).

    Falls back to the declared outcomes when the engine or the option columns are missing.
    """
    found = _engine_outcomes(df)
    if found is not None:
        return found
    declared = _declared_outcomes(df)
    return dict.fromkeys(df.get_column("variant").unique().sort().to_list(), declared)


def _engine_variants(df: pl.DataFrame) -> tuple[Any, dict[Any, Any]] | None:
    """The game's engine and each variant's rule options, or None when the engine or its
    option columns are missing."""
    try:
        from balancelab.games import get_game

        game = get_game(str(df["game"][0]))
        names = [n for n in game.options_type.names() if n in df.columns]
        firsts = first_rows(df.select("variant", *names))
        return game, {row["variant"]: game.options_type.from_strings(
            {n: row[n] for n in names}) for row in firsts.iter_rows(named=True)}
    except (ImportError, ValueError, AttributeError, KeyError, pl.exceptions.PolarsError):
        return None


def _engine_outcomes(df: pl.DataFrame) -> dict[Any, list[str]] | None:
    """Per variant, ``Game.possible_outcomes`` (capped aside), or None when the game's engine
    or its option columns are missing."""
    found = _engine_variants(df)
    if found is None:
        return None
    game, options = found
    return {v: [o for o in game.possible_outcomes(opts) if o != CAPPED]
            for v, opts in options.items()}


def _has_round_cap(df: pl.DataFrame) -> bool:
    """True when the game may stop a game at a round cap (``Game.round_cap``), or its engine
    cannot be loaded (then the capped share is shown, as it cannot be ruled out)."""
    if "game" in df.columns and df.height:
        try:
            from balancelab.games import get_game

            return bool(get_game(str(df["game"][0])).round_cap)
        except (ImportError, ValueError, AttributeError):
            pass
    return True


def _declared_outcomes(df: pl.DataFrame) -> list[str]:
    """The game's declared ``outcomes`` (when its engine can be loaded), else the sides."""
    if "game" in df.columns and df.height:
        try:
            from balancelab.games import get_game

            return [o for o in get_game(str(df["game"][0])).outcomes if o != CAPPED]
        except (ImportError, ValueError, AttributeError):
            pass
    return sides(df) if is_team_game(df) else []


def end_reasons(source: Source) -> pl.DataFrame:
    """Why games ended, per variant and winner.

    Returns:
        Columns: ``variant``, ``variant_label``, ``winner`` (``capped`` for the round cap),
        ``end_reason``, ``count``, ``share`` (of the variant's games).
    """
    # a run folder (or a scan of one) is aggregated lazily (four columns), memory flat in the
    # number of games
    src = _summary_source(source)
    lf = src.lazy()
    out = (
        lf.select("variant", "variant_label", "winner", "end_reason").with_columns(
            pl.when(pl.col("winner") == CAPPED).then(pl.lit("capped"))
            .otherwise(pl.col("winner")).alias("winner")
        )
        .group_by(["variant", "variant_label", "winner", "end_reason"])
        .agg(pl.len().cast(pl.Int64).alias("count"))
        .with_columns((pl.col("count") / pl.col("count").sum().over("variant")).alias("share"))
        .sort(["variant", "count", "winner", "end_reason"],
              descending=[False, True, False, False])
    )
    return out.collect()


def length_summary(source: Source) -> pl.DataFrame:
    """Game length per variant: ``rounds`` and ``decisions``.

    Returns:
        Columns of :func:`stats.summarize` with ``variant``, ``variant_label`` first:
        ``measure``, ``n``, ``mean``, ``sd``, ``median``, ``p95``, ``min``, ``max``.
    """
    df = _summary_source(source)
    cols = [c for c in ("rounds", "decisions") if c in df.collect_schema().names()]
    return pl.concat(
        stats.summarize_many(df, cols, by=["variant", "variant_label"])
    ).sort(["variant", "measure"], maintain_order=True)


def _summary_source(source: Source) -> pl.DataFrame | pl.LazyFrame:
    """A run folder as a lazy scan (each summary reads only its columns); a LazyFrame holding
    ``variant`` and ``variant_label`` as it is; else the games frame."""
    if isinstance(source, (str, Path)):
        return runs.scan_games(Path(source))
    if isinstance(source, pl.LazyFrame) and {"variant", "variant_label"} <= set(
            source.collect_schema().names()):
        return source
    return games_frame(source)


def measure_summary(source: Source, columns: Sequence[str] | None = None) -> pl.DataFrame:
    """The game's own measures (numeric columns after ``decisions``) per variant.

    Returns:
        Same columns as :func:`length_summary`; empty when the game has no measures.
    """
    df = _summary_source(source)
    cols = list(columns) if columns is not None else measure_columns(
        pl.DataFrame(schema=df.collect_schema()))
    if not cols:
        return pl.DataFrame(schema={"variant": pl.Int32, "variant_label": pl.String,
                                    "measure": pl.String})
    frames = stats.summarize_many(df, cols, by=["variant", "variant_label"])
    order = {c: i for i, c in enumerate(cols)}
    return (
        pl.concat(frames)
        .with_columns(pl.col("measure").replace_strict(order, return_dtype=pl.Int64).alias("_o"))
        .sort(["variant", "_o"]).drop("_o")
    )


def seat_score_summary(source: Source, seats: pl.DataFrame | None = None) -> pl.DataFrame:
    """Score distribution per variant and seat (games with a seats table holding ``score``).

    Returns:
        Columns: ``variant``, ``seat_name``, ``measure`` (``score``), ``n``, ``mean``, ``sd``,
        ``median``, ``p95``, ``min``, ``max``; empty when there is no score.
    """
    st = seats if seats is not None else seats_frame(source)
    if st is None or "score" not in st.columns:
        return pl.DataFrame()
    return stats.summarize(st, "score", by=["variant", "seat", "seat_name"]).drop("seat")


def winner_margin(source: Source, seats: pl.DataFrame | None = None) -> pl.DataFrame:
    """The winner's score margin over the runner-up, per game (seat games with scores).

    Returns:
        Columns: ``variant``, ``game_index``, ``winner_score``, ``margin`` (Float64; 0 for ties).
        Empty when there is no seats table with ``score``.
    """
    st = seats if seats is not None else seats_frame(source)
    if st is None or "score" not in st.columns:
        return pl.DataFrame()
    return (
        st.group_by(["variant", "game_index"])
        .agg(pl.col("score").cast(pl.Float64).sort(descending=True).alias("_s"))
        .filter(pl.col("_s").list.len() >= 2)
        .select(
            "variant", "game_index",
            pl.col("_s").list.get(0).alias("winner_score"),
            (pl.col("_s").list.get(0) - pl.col("_s").list.get(1)).alias("margin"),
        )
        .sort(["variant", "game_index"])
    )
