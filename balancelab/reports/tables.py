"""Reports' tables: the analysis frames as printed, every value as text and every header,
variant, seat and option in words."""

from __future__ import annotations

import math
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.reports import words as W
from balancelab.reports.formatting import interval, level_text, num, pct, points, pvalue
from balancelab.reports.sentences import (
    change_text,
    other_whose,
    seat_word,
    verdict_word,
)

#: column names of the analysis frames as a report's table headers
HEADERS = {"variant_label": "variant", "contender": "side / seat", "end_reason": "end reason",
           "fair_share": "fair share", "count": "games", "n": "games", "p95": "95th pct",
           "seat_name": "seat", "p_value": "p", "lo": "95% low", "hi": "95% high"}


def as_text(df: pl.DataFrame, game: str = "") -> pl.DataFrame:
    """Every value as text (:func:`num`), headers in words (:data:`HEADERS`; a column keeps
    its own name when its word is taken); variant labels, measures and seats in words."""
    labels = (df.get_column("variant_label").cast(pl.String).to_list()
              if "variant_label" in df.columns else [""] * df.height)
    out: dict[str, list[str]] = {}
    for c in df.columns:
        word = HEADERS.get(c, c)
        vals = df.get_column(c).to_list()
        if c == "variant_label":
            text = [W.variant(game, str(v)) for v in vals]
        elif c == "measure":
            text = [W.label(game, str(v)) for v in vals]
        elif c == "seat_name":
            text = [W.who(game, str(v), lab) for v, lab in zip(vals, labels, strict=True)]
        else:
            text = [num(v) for v in vals]
        out[word if word not in out and word not in df.columns else c] = text
    return pl.DataFrame(out)

def rates_table(rates: pl.DataFrame, game: str) -> pl.DataFrame:
    """The win-rate table as printed: counts, rate with Wilson interval, draws, losses, cap."""
    seat_game = bool((rates.get_column("seat") >= 0).any())
    return pl.DataFrame({
        "variant": [W.variant(game, v) for v in rates.get_column("variant_label").to_list()],
        "side / seat": [W.who(game, c, v) for c, v in
                        rates.select("contender", "variant_label").iter_rows()],
        "wins / games": [f"{w:,} / {n:,}" for w, n in rates.select("wins", "games").iter_rows()],
        "win rate [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                                  rates.select("rate", "lo", "hi").iter_rows()],
        "draws": [f"{x:,}" for x in rates.get_column("draws").to_list()],
        "losses": [f"{x:,}" for x in rates.get_column("losses").to_list()],
        "capped": [f"{x:,}" for x in rates.get_column("capped").to_list()],
        **({"fair share": [pct(x) for x in rates.get_column("fair_share").to_list()]}
           if seat_game else {}),
    })


def policy_table(pol: pl.DataFrame, game: str) -> pl.DataFrame:
    """Win rate by policy (``analysis.policy_rates``) as printed: counts, rate with its
    interval, and the fair share where seats compete."""
    fair = pol.get_column("fair_share").to_list()
    return pl.DataFrame({
        "variant": [W.variant(game, v) for v in pol.get_column("variant_label").to_list()],
        "side / seat": [W.who(game, c, v) for c, v in
                        pol.select("contender", "variant_label").iter_rows()],
        "policy": pol.get_column("policy").to_list(),
        "wins / games": [f"{w:,} / {n:,}" for w, n in pol.select("wins", "games").iter_rows()],
        "win rate [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                                  pol.select("rate", "lo", "hi").iter_rows()],
        **({"fair share": [pct(x) for x in fair]} if any(x is not None for x in fair)
           else {}),  # seat games only
    })


def end_reasons_table(er: pl.DataFrame, game: str) -> pl.DataFrame:
    """End reasons (``analysis.end_reasons``) as printed: games and share per reason."""
    return pl.DataFrame({
        "variant": [W.variant(game, v) for v in er.get_column("variant_label").to_list()],
        "winner": [W.who(game, w, v) if w else W.value(game, "winner", w) for w, v in
                   er.select("winner", "variant_label").iter_rows()],
        "end reason": [W.value(game, "end_reason", r)
                       for r in er.get_column("end_reason").to_list()],
        "games": [f"{c:,}" for c in er.get_column("count").to_list()],
        "share": [pct(x) for x in er.get_column("share").to_list()],
    })


def outcomes_table(out: pl.DataFrame, game: str) -> pl.DataFrame:
    return pl.DataFrame({
        "variant": [W.variant(game, v) for v in out.get_column("variant_label").to_list()],
        "outcome": [W.outcome(game, o, v)
                    for o, v in out.select("outcome", "variant_label").iter_rows()],
        "games": [f"{c:,} / {n:,}" for c, n in out.select("count", "games").iter_rows()],
        "share [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                               out.select("rate", "lo", "hi").iter_rows()],
    })

def _fixed(r: dict[str, Any], game: str = "") -> str:
    return "–" if r["option"] == "run" else (W.variant(game, r["context"]) if r["context"]
                                             else "–")


def adjacent_pairs(df: pl.DataFrame) -> pl.DataFrame:
    """The pairs of variants at neighbouring settings of one option (``analysis.variant_pairs``
    with ``adjacent_only``): columns ``option`` (str), ``variant_a``, ``variant_b`` (Int32)."""
    rows = [(o, a, b) for o, a, b, _ in analysis.variant_pairs(df, adjacent_only=True)]
    return pl.DataFrame(rows, schema={"option": pl.String, "variant_a": pl.Int32,
                                      "variant_b": pl.Int32}, orient="row")

def comparison_table(comp: pl.DataFrame, game: str) -> pl.DataFrame:
    """The win-rate changes as printed: the interval beside each verdict is the one it used
    (its level in the column), the games that would decide an inconclusive change, the other
    side's change (two-sided games) and what pairing saved."""
    rows = comp.to_dicts()
    whose = other_whose(game, [r.get("other") for r in rows])
    return pl.DataFrame({
        "change": [change_text(r, game) for r in rows],
        "held fixed": [_fixed(r, game) for r in rows],
        "side / seat": [W.who(game, r["contender"], r["label_a"]) for r in rows],
        "before": [pct(r["rate_a"]) for r in rows],
        "after": [pct(r["rate_b"]) for r in rows],
        "difference [interval]": [points(r["diff"], r["lo"], r["hi"]) for r in rows],
        "interval level": [level_text(r["level_used"]) for r in rows],
        "verdict": [verdict_word(r["verdict"], None, r["margin"]) for r in rows],
        "games to decide": [f"{r['games_to_decide']:,}" if r.get("games_to_decide") else "–"
                            for r in rows],
        "equivalent within": [
            f"±{100 * r['equivalent_within']:.1f} points" if r["verdict"] == "inconclusive"
            and r.get("equivalent_within") is not None
            and not math.isnan(r["equivalent_within"]) else "–" for r in rows],
        **({f"{whose} change": [
            f"{100 * r['other_diff']:+.1f} points" if r.get("other_diff") is not None
            and not math.isnan(r["other_diff"]) else "–" for r in rows]} if whose else {}),
        "paired (correlation, games saved)": [
            f"yes (r {r['correlation']:+.2f}, {100 * r['games_saved']:.0f}%)" if r["paired"]
            else "no" for r in rows],
    })


def measure_comparison_table(mc: pl.DataFrame, game: str = "") -> pl.DataFrame:
    """The measure changes as printed (the interval beside each verdict is the one it
    used), each measure in words with its unit."""
    rows = mc.to_dicts()
    return pl.DataFrame({
        "change": [change_text(r, game) for r in rows],
        "held fixed": [_fixed(r, game) for r in rows],
        "measure": [W.label(game, r["measure"]) for r in rows],
        "before (mean)": [num(r["mean_a"]) for r in rows],
        "after (mean)": [num(r["mean_b"]) for r in rows],
        "difference [interval]": [f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]"
                                  for r in rows],
        "interval level": [level_text(r["level_used"]) for r in rows],
        "verdict": [verdict_word(r["verdict"], None, r["margin"], "") for r in rows],
        "games to decide": [f"{r['games_to_decide']:,}" if r.get("games_to_decide") else "–"
                            for r in rows],
    })

def seat_table(sb: pl.DataFrame, game: str = "") -> pl.DataFrame:
    rows = sb.to_dicts()
    return pl.DataFrame({
        "variant": [W.variant(game, r["variant_label"]) for r in rows],
        "seat": [W.who(game, r["contender"], r["variant_label"]) for r in rows],
        "wins / games": [f"{r['wins']:,} / {r['games']:,}" for r in rows],
        "win rate": [pct(r["rate"]) for r in rows],
        "fair share": [pct(r["fair_share"]) if r["contender"] != "all seats" else "–"
                       for r in rows],
        "against its fair share [interval]": [
            "–" if r["lo"] is None else points(r["diff"], r["lo"], r["hi"]) for r in rows],
        "interval level": ["–" if r["lo"] is None else level_text(r["level_used"])
                           for r in rows],
        "p": [pvalue(r["p_value"]) for r in rows],
        "verdict": [r["verdict"] if r["contender"] == "all seats" else
                    seat_word(r["verdict"], r["margin"]) for r in rows],
    })

def _column_contender(game: str, name: str, labels: pl.DataFrame) -> str:
    """A side or seat as a column header over variants: with their number of seats when
    they share one (ISS solo: "the solo player (against FEDOR)", not "seat 1 (start
    player)"); over variants of different sizes, without the words one size alone gives."""
    counts = {W.seat_count(game, lb) for lb in labels.get_column("variant_label").to_list()}
    if len(counts) == 1:
        return W.contender(game, name, counts.pop())
    own = W.contender(game, name)
    return own.split(" (")[0] if W.contender(game, name, 1) != own else own


def rates_answer(rates: pl.DataFrame, outs: pl.DataFrame, game: str) -> pl.DataFrame:
    """Who wins at each variant: every side's or seat's win rate with its interval, the
    shared wins or draws, the capped games and the games played (one row per variant)."""
    conts = rates.get_column("contender").unique(maintain_order=True).to_list()
    labels = rates.select("variant", "variant_label").unique(maintain_order=True)
    cols: dict[str, list[str]] = {"variant": [W.variant(game, v) for v in
                                              labels.get_column("variant_label").to_list()]}
    for c in conts:
        sub = labels.join(rates.filter(pl.col("contender") == c), on=["variant",
                                                                      "variant_label"],
                          how="left")
        cols[f"{_column_contender(game, c, labels)} wins"] = [
            "–" if r is None else f"{pct(r)} {interval(lo, hi)}"
            for r, lo, hi in sub.select("rate", "lo", "hi").iter_rows()]
    for name, word in (("draw", "draws"), ("tie", "shared wins"),
                       ("capped", "stopped by the round cap")):
        sub = outs.filter(pl.col("outcome") == name)
        if sub.height and int(sub.get_column("count").sum()) > 0:
            got = dict(sub.select("variant", "rate").iter_rows())
            cols[word] = [pct(got.get(v, 0.0)) for v in labels.get_column("variant")]
    games = dict(rates.select("variant", "games").unique().iter_rows())
    cols["games"] = [f"{games[v]:,}" for v in labels.get_column("variant")]
    return pl.DataFrame(cols)

def worded(frame: pl.DataFrame, game: str) -> pl.DataFrame:
    """An analysis frame with its names in words (variant labels, contenders, options and
    their values, contexts), for plots that print these columns."""
    out = frame
    if "variant_label" in out.columns:
        labels = out.get_column("variant_label").cast(pl.String)
        if "contender" in out.columns:
            out = out.with_columns(pl.Series("contender", [
                W.who(game, c, v) for c, v in zip(out.get_column("contender").to_list(),
                                                  labels.to_list(), strict=True)]))
        out = out.with_columns(pl.Series("variant_label",
                                         [W.variant(game, v) for v in labels.to_list()]))
    if {"option", "value_a", "value_b", "context"} <= set(out.columns):
        rows = out.select("option", "value_a", "value_b", "context", "contender",
                          "label_a").to_dicts() if "label_a" in out.columns else []
        if rows:
            out = out.with_columns(
                pl.Series("contender", [W.who(game, r["contender"], r["label_a"])
                                        for r in rows]),
                pl.Series("value_a", [W.setting(game, r["option"], r["value_a"])
                                      if r["option"] != "run" else r["value_a"]
                                      for r in rows]),
                pl.Series("value_b", [W.setting(game, r["option"], r["value_b"])
                                      if r["option"] != "run" else r["value_b"]
                                      for r in rows]),
                pl.Series("context", [W.variant(game, r["context"]) if r["context"]
                                      and r["option"] != "run" else r["context"]
                                      for r in rows]),
                pl.Series("option", ["" if r["option"] != "run" else "run" for r in rows]),
            )
    return out
