"""The answer a report opens with: a compact table (per setting held fixed: the measures
before → after with their intervals, the win rates' verdict), the plot of the win-rate changes,
and "In short" in two lines at most."""

from __future__ import annotations

import re
import textwrap
from typing import Any

import polars as pl

from balancelab.reports import plots
from balancelab.reports import words as W
from balancelab.reports.formatting import pct, points
from balancelab.reports.page import Image, Table, figure
from balancelab.reports.sentences import (
    and_words,
    change_text,
    context_words,
    possessive,
    verdict_word,
)
from balancelab.reports.tables import worded

#: "In short" takes at most two lines of this many characters (a terminal's width).
SHORT_WIDTH = 80


def fits_two_lines(text: str) -> bool:
    """True when ``In short: <text>`` wraps to at most two lines of :data:`SHORT_WIDTH`."""
    return len(textwrap.wrap(f"In short: {text}", SHORT_WIDTH)) <= 2


def _m(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def _digits(*xs: float) -> int:
    return 1 if max(abs(x) for x in xs) >= 10 else 2


def measure_cell(r: dict[str, Any], game: str) -> str:
    """``28.7 → 24.0 (-4.8 [-5.1, -4.4])``, the verdict added when it is not raises/lowers."""
    d = _digits(r["mean_a"], r["mean_b"])
    text = (f"{_m(r['mean_a'], d)} → {_m(r['mean_b'], d)} ({r['diff']:+.{d}f} "
            f"[{r['lo']:+.{d}f}, {r['hi']:+.{d}f}])")
    if r["verdict"] not in ("raises", "lowers"):
        text += f", {verdict_word(r['verdict'], None, r['margin'], W.unit(game, r['measure']))}"
    return text


def win_cell(rows: list[dict[str, Any]], game: str, name_who: bool) -> str:
    """The win-rate changes of one setting: one contender's ``raises: 19.2% → 28.2% (+9.0
    points [+5.7, +12.4])``; several with one verdict: ``inconclusive for every seat (changes
    within -4.2 to +4.4 points; about 6,000 games per setting would decide)``, the span of
    their intervals; else each contender's verdict."""
    if not rows:
        return "–"
    need = max((r.get("games_to_decide") or 0) for r in rows)
    hint = f"; about {need:,} games per setting would decide at 80% power" if need else ""
    if len(rows) == 1:
        r = rows[0]
        who = f"{W.who(game, r['contender'], r['label_a'])} " if name_who else ""
        word = verdict_word(r["verdict"], None, r["margin"])
        return (f"{word}: {who}{pct(r['rate_a'])} → {pct(r['rate_b'])} "
                f"({points(r['diff'], r['lo'], r['hi'])}"
                f"{hint if r['verdict'] == 'inconclusive' else ''})")
    verdicts = {r["verdict"] for r in rows}
    lo = min(100 * r["lo"] for r in rows)  # the intervals' span: what the data rule out
    hi = max(100 * r["hi"] for r in rows)
    if len(verdicts) == 1:
        word = verdict_word(rows[0]["verdict"], None, rows[0]["margin"])
        return (f"{word} for every seat (changes within {lo:+.1f} to {hi:+.1f} points"
                f"{hint if rows[0]['verdict'] == 'inconclusive' else ''})")
    return "; ".join(f"{W.who(game, r['contender'], r['label_a'])} "
                     f"{verdict_word(r['verdict'], None, r['margin'])} "
                     f"({100 * r['diff']:+.1f} points)" for r in rows)


def _key(r: dict[str, Any]) -> tuple[str, str, str, str, str]:
    return (str(r["option"]), str(r["value_a"]), str(r["value_b"]), str(r["context"] or ""),
            str(r.get("label_b") or ""))

def _held_header(game: str, contexts: list[str]) -> str:
    keys = {p.partition("=")[0] for c in contexts for p in W.split_label(c)}
    return W.words(game, next(iter(keys))) if len(keys) == 1 else "held fixed"


def answer_table(game: str, comps: pl.DataFrame, mcomps: pl.DataFrame | None,
                 measures: list[str], team: bool) -> pl.DataFrame:
    """The answer at a glance: one row per change and setting held fixed, the win rates
    before → after with the verdict, and each measure before → after with its interval.

    Args:
        comps: :func:`balancelab.analysis.compare_variants` (or ``compare_runs``) rows, the
            contenders the answer speaks of only.
        mcomps: :func:`balancelab.analysis.compare_measures` rows (None: no measures).
        measures: the measures to show, in order.
        team: True when wins go to sides (the column speaks of that side's win rate).
    """
    crow = comps.to_dicts()
    mrow = [] if mcomps is None else [r for r in mcomps.to_dicts() if r["measure"] in measures]
    keys = list(dict.fromkeys([_key(r) for r in crow] + [_key(r) for r in mrow]))
    changes = list(dict.fromkeys(k[:3] for k in keys))
    contexts = [k[3] for k in keys]
    cols: dict[str, list[str]] = {}
    runs = bool(keys) and all(k[0] == "run" for k in keys)
    if runs:  # a comparison of runs: which run, what differs, at which variant
        cols["run"] = [f"{k[2]} against {k[1]}" for k in keys]
        cols["what differs"] = [context_words(game, k[3]) for k in keys]
        if len({k[4] for k in keys}) > 1:
            cols["variant"] = [W.variant(game, k[4]) for k in keys]
    elif any(contexts):
        cols[_held_header(game, contexts)] = [W.variant(game, c) if c else "–" for c in contexts]
    if not runs and (len(changes) > 1 or not any(contexts)):
        cols["change"] = [change_text({"option": k[0], "value_a": k[1], "value_b": k[2],
                                   "context": k[3]}, game) for k in keys]
    for m in measures:
        by = {_key(r): r for r in mrow if r["measure"] == m}
        if by:
            cols[W.label(game, m)] = [measure_cell(by[k], game) if k in by else "–"
                                      for k in keys]
    whos = sorted({r["contender"] for r in crow})
    head = (f"{possessive(W.contender(game, whos[0]))} win rate" if team and len(whos) == 1
            else "win rates")
    if crow:
        cols[head] = [win_cell([r for r in crow if _key(r) == k], game, not team)
                      for k in keys]
    return pl.DataFrame(cols)


def _verdict_counts(verdicts: list[str]) -> str:
    counts: dict[str, int] = {}
    for v in verdicts:
        counts[v] = counts.get(v, 0) + 1
    return ", ".join(f"{n} {v}" for v, n in counts.items())


def short_answer(game: str, comps: pl.DataFrame, mcomps: pl.DataFrame | None,
                 measures: list[str], team: bool) -> str:
    """"In short" in two lines at most (:func:`fits_two_lines`; the ranges are dropped when
    they do not fit): what the question's change does to each measure and to the win rates,
    over every setting held fixed."""
    crow = comps.to_dicts()
    mrow = [] if mcomps is None else [r for r in mcomps.to_dicts() if r["measure"] in measures]
    keys = list(dict.fromkeys([_key(r)[:3] for r in crow] + [_key(r)[:3] for r in mrow]))
    if not keys:
        return ""
    if keys[0][0] == "run":
        lead = (f"run {keys[0][2]} against {keys[0][1]}" if len({k[2] for k in keys}) == 1
                else f"each run against {keys[0][1]}")
    elif len(keys) == 1:
        k = keys[0]
        lead = change_text({"option": k[0], "value_a": k[1], "value_b": k[2], "context": ""},
                       game)
    else:
        lead = f"each step of {W.words(game, keys[0][0])}" if len({k[0] for k in keys}) == 1 \
            else "each change"
    lead = lead[:1].upper() + lead[1:]
    every = ("at every setting" if any(r["context"] for r in crow + mrow)
             and keys[0][0] != "run" else "")
    moved: dict[str, list[str]] = {}
    parts: list[str] = []
    mixed: list[str] = []  # measures whose verdict differs between settings
    mixed_verdicts: list[str] = []
    for m in measures:
        rows = [r for r in mrow if r["measure"] == m]
        if not rows:
            continue
        vs = {r["verdict"] for r in rows}
        name = W.words(game, m)
        if len(vs) == 1 and vs <= {"raises", "lowers"}:
            d = _digits(*[r["mean_a"] for r in rows])
            lo, hi = sorted((min(r["diff"] for r in rows), max(r["diff"] for r in rows)),
                            key=abs)
            rng = f"{lo:+.{d}f}" if len(rows) == 1 else f"{lo:+.{d}f} to {hi:+.{d}f}"
            moved.setdefault(next(iter(vs)), []).append(f"{name} ({rng})")
        elif len(rows) == 1:
            r0 = rows[0]
            parts.append(f"{name} "
                         f"{verdict_word(r0['verdict'], None, r0['margin'], W.unit(game, m))}")
        else:
            parts.append(f"{name}: {_verdict_counts([r['verdict'] for r in rows])}")
            mixed.append(name)
            mixed_verdicts += [r["verdict"] for r in rows]
    head = [f"{verb} {and_words(items)}{' ' + every if every else ''}"
            for verb, items in moved.items()]
    if crow:
        who = (f"{possessive(W.contender(game, crow[0]['contender']))} win rate" if team
               else "seat win rates")
        cv: list[str] = [r["verdict"] for r in crow]
        if len(set(cv)) == 1 and len(crow) > 1:
            every = "both comparisons" if len(cv) == 2 else f"all {len(cv)} comparisons"
            win = f"{who}: {verdict_word(cv[0], None, crow[0]['margin'])} for {every}"
        elif len(crow) == 1:
            r = crow[0]
            win = (f"{who}: {verdict_word(r['verdict'], None, r['margin'])} "
                   f"({pct(r['rate_a'])} → {pct(r['rate_b'])})")
        else:
            win = f"{who}: {_verdict_counts(cv)}"
        parts.append(win)
    text = f"{lead}: " + "; ".join(head + parts) + "."
    if not fits_two_lines(text):  # the ranges are in the table: drop them
        text = re.sub(r" \([^()]*\)", "", text)
    if not fits_two_lines(text) and len(mixed) > 1:  # one count for the mixed measures
        parts = [p for p in parts if p.partition(":")[0] not in mixed]
        parts.insert(0, f"{and_words(mixed)}: {_verdict_counts(mixed_verdicts)}")
        text = re.sub(r" \([^()]*\)", "", f"{lead}: " + "; ".join(head + parts) + ".")
    if not fits_two_lines(text):  # last: what moved and the win rates; the rest in the table
        kept = head + parts[-1:] if crow else head
        text = re.sub(r" \([^()]*\)", "", f"{lead}: " + "; ".join(kept)
                      + "; the other measures in the table.")
    return text


def answer_blocks(game: str, comps: pl.DataFrame, mcomps: pl.DataFrame | None,
                  measures: list[str], team: bool, title: str = "The answer"
                  ) -> list[str | Table | Image]:
    """The compact answer table and the plot of the win-rate changes with their intervals."""
    out: list[str | Table | Image] = [
        Table(title, answer_table(game, comps, mcomps, measures, team),
              "Before → after (difference [interval at the level of its verdict]); verdicts "
              "as defined under Details.")]
    if comps.height:
        out.append(figure("differences.png", plots.differences(worded(comps, game)),
                        "Each change in win rate with the interval its verdict used."))
    return out
