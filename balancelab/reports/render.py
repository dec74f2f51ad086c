"""Reports: Markdown and one self-contained HTML page from the analysis frames.

A report opens with the answer: its question in words, "In short" (two lines at most) and a
compact table (per setting held fixed: the measures before → after with their intervals, the
win rates' verdict), with the plot of the win-rate changes; then the warnings, and under
"Details" (collapsed in HTML) every answer in words, the tables (every rate with its interval,
named by level and method), the plots and the run's provenance. Columns, seats, variants and
values are printed in words (:mod:`balancelab.reports.words`), never by their names.
Same data → same bytes: nothing time-dependent is written (no dates, no wall times), tables
and figures are built in a fixed order, PNGs carry no ``Software`` metadata.

Layout written to ``<out>/`` (default ``<run>/report/``)::

    report.md      Markdown, images referenced as files next to it
    report.html    one page, images inline (base64), no network
    *.png          the figures
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import plots
from balancelab.reports import words as W
from balancelab.simulate import runs

#: Share of games above which a side is "at the ceiling".
CEILING = 0.95
#: Share of capped games above which the report warns.
CAPPED_WARN = 0.01
#: File written by studies into a run folder (precision rounds, study name).
STUDY_FILE = "study.json"
MAX_HEADLINE_VARIANTS = 12


# -- the document model ------------------------------------------------------------------------


@dataclass
class Table:
    title: str
    frame: pl.DataFrame  # already formatted: every column a string
    note: str = ""


@dataclass
class Image:
    name: str
    png: bytes = field(repr=False)
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[str | Table | Image] = field(default_factory=list)


@dataclass
class Report:
    """A report before rendering.

    A report with an ``answer`` opens with its ``question``, the ``short`` answer (at most
    two lines) and the answer's blocks (a compact table, a plot); its ``headline`` sentences,
    warnings aside, and every section follow under "Details" (collapsed in HTML).
    """

    title: str
    headline: list[str]
    warnings: list[str]
    sections: list[Section]
    question: str = ""
    short: str = ""
    answer: list[str | Table | Image] = field(default_factory=list)

    def images(self) -> list[Image]:
        return [b for b in self.answer if isinstance(b, Image)] + [
            b for s in self.sections for b in s.blocks if isinstance(b, Image)]

    def __repr__(self) -> str:
        """The title, the answers and the warnings in a few lines (no image bytes)."""
        lines = [f"<Report {self.title!r}: {len(self.sections)} sections, "
                 f"{len(self.images())} plots>"]
        lines += [f"  {h}" for h in self.headline]
        lines += [f"  Warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The report as HTML for Jupyter: the body of the page :func:`to_html` writes, in a
        ``<div class="balancelab-report">`` whose style applies to it alone (the page's
        style would restyle the whole notebook)."""
        body = to_html(self).split("<body>", 1)[1].rsplit("</body>", 1)[0]
        return f'<div class="{_SCOPE}"><style>{_scoped_css()}</style>{body}</div>'


@dataclass
class ReportPaths:
    """Where a report was written, and its headline (printed by the CLI)."""

    headline: str
    markdown: Path
    html: Path
    figures: list[Path]


# -- formatting --------------------------------------------------------------------------------


def percent(x: float) -> str:
    """A proportion in percent without the sign: one decimal, two below 0.1% (so the upper
    bound of 0/n does not print as 0.0): ``0.4123`` → ``41.2``, ``0.00019`` → ``0.02``."""
    v = 100 * x
    return f"{v:.2f}" if 0 < v < 0.1 else f"{v:.1f}"


def pct(x: float | None) -> str:
    """``0.4123`` → ``41.2%``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{percent(x)}%"


def interval(lo: float, hi: float) -> str:
    """``[40.2, 42.2]`` (percent); ``[0.0, 0.02]`` for 0 of 20,000."""
    return f"[{percent(lo)}, {percent(hi)}]"


def points(d: float, lo: float, hi: float) -> str:
    """``+13.8 points [12.9, 14.7]``."""
    return f"{100 * d:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def pvalue(p: float) -> str:
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


def num(x: Any, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    return str(x)


#: column names of the analysis frames as a report's table headers
HEADERS = {"variant_label": "variant", "contender": "side / seat", "end_reason": "end reason",
           "fair_share": "fair share", "count": "games", "n": "games", "p95": "95th pct",
           "seat_name": "seat", "p_value": "p", "lo": "95% low", "hi": "95% high"}


def _strings(df: pl.DataFrame, game: str = "") -> pl.DataFrame:
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


# -- tables ----------------------------------------------------------------------------------


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


def _change(r: dict[str, Any], game: str = "") -> str:
    """What a comparison changes, in words (``all shuttles → 2 shuttles removed``); for two
    runs, what differs between them."""
    if r["option"] == "run":
        return (f"{context_words(game, r['context'])} ({r['value_a']} → {r['value_b']})"
                if r["context"] else f"{r['value_a']} → {r['value_b']}")
    return change_words(game, r["option"], r["value_a"], r["value_b"])


def change_words(game: str, option: str, a: Any, b: Any) -> str:
    """``HAL −1 (easier) → HAL 0``; an option without words for its values:
    ``crew turns per HAL turn 1 → 2``."""
    sa, sb = W.setting(game, option, a), W.setting(game, option, b)
    name = W.words(game, option)
    if sa.startswith(name + " ") and sb.startswith(name + " "):
        return f"{name} {sa[len(name) + 1:]} → {sb[len(name) + 1:]}"
    return f"{sa} → {sb}"


def _fixed(r: dict[str, Any], game: str = "") -> str:
    return "–" if r["option"] == "run" else (W.variant(game, r["context"]) if r["context"]
                                             else "–")


def adjacent_pairs(df: pl.DataFrame) -> pl.DataFrame:
    """The pairs of variants at neighbouring settings of one option (``analysis.variant_pairs``
    with ``adjacent_only``): columns ``option`` (str), ``variant_a``, ``variant_b`` (Int32)."""
    rows = [(o, a, b) for o, a, b, _ in analysis.variant_pairs(df, adjacent_only=True)]
    return pl.DataFrame(rows, schema={"option": pl.String, "variant_a": pl.Int32,
                                      "variant_b": pl.Int32}, orient="row")


def verdict_verb(verdict: str, significant: bool | None = None) -> str:
    """The verdict itself (kept for callers of the earlier two-argument form; the verdict
    and its interval can no longer disagree, so ``significant`` is not needed)."""
    return verdict


def margin_text(margin: float, unit: str = "points") -> str:
    """``±2.0 points`` (win rates, in percentage points) or ``±0.45 turns`` (a measure)."""
    if unit == "points":
        return f"±{100 * margin:.1f} points"
    return f"±{margin:.2f} {unit}".rstrip()


def verdict_word(verdict: str, significant: bool | None = None, margin: float | None = None,
                 unit: str = "points") -> str:
    """A verdict as every table reports it: ``raises``, ``lowers``, ``equivalent within ±2.0
    points`` or ``inconclusive`` (:mod:`balancelab.analysis.verdicts`)."""
    if verdict == "equivalent" and margin is not None:
        return f"equivalent within {margin_text(margin, unit)}"
    return verdict


def level_text(level: float) -> str:
    """``95%``, ``98.3%``, ``99.92%``: enough digits to tell the level."""
    v = 100 * level
    if abs(v - round(v)) < 1e-9:
        return f"{v:.0f}%"
    return f"{v:.2f}%" if v >= 99.5 else f"{v:.1f}%"


def _decide_hint(r: dict[str, Any]) -> str:
    n = r.get("games_to_decide")
    return f"about {n:,} games per setting would decide it" if n else "more games are needed"


def comparison_table(comp: pl.DataFrame, game: str) -> pl.DataFrame:
    """The win-rate changes as printed: the interval beside each verdict is the one it used
    (its level in the column), the games that would decide an inconclusive change, the other
    side's change (two-sided games) and what pairing saved."""
    rows = comp.to_dicts()
    team = any(r.get("other") for r in rows)
    return pl.DataFrame({
        "change": [_change(r, game) for r in rows],
        "held fixed": [_fixed(r, game) for r in rows],
        "side / seat": [W.who(game, r["contender"], r["label_a"]) for r in rows],
        "before": [pct(r["rate_a"]) for r in rows],
        "after": [pct(r["rate_b"]) for r in rows],
        "difference [interval]": [points(r["diff"], r["lo"], r["hi"]) for r in rows],
        "interval level": [level_text(r["level_used"]) for r in rows],
        "verdict": [verdict_word(r["verdict"], None, r["margin"]) for r in rows],
        "games to decide": [f"{r['games_to_decide']:,}" if r.get("games_to_decide") else "–"
                            for r in rows],
        **({f"{possessive(W.contender(game, rows[0]['other']))} change": [
            f"{100 * r['other_diff']:+.1f} points" if r.get("other_diff") is not None
            and not math.isnan(r["other_diff"]) else "–" for r in rows]} if team else {}),
        "paired (correlation, games saved)": [
            f"yes (r {r['correlation']:+.2f}, {100 * r['games_saved']:.0f}%)" if r["paired"]
            else "no" for r in rows],
    })


def measure_comparison_table(mc: pl.DataFrame, game: str = "") -> pl.DataFrame:
    """The measure changes as printed (the interval beside each verdict is the one it
    used), each measure in words with its unit."""
    rows = mc.to_dicts()
    return pl.DataFrame({
        "change": [_change(r, game) for r in rows],
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


# -- sentences -------------------------------------------------------------------------------


def _wilson_text(rate: float, n: int) -> str:
    lo, hi = stats.wilson(round(rate * n), n)
    return interval(float(lo), float(hi))


def possessive(name: str) -> str:
    """``HAL's``, ``the ALIENS'``."""
    return name + ("'" if name.endswith(("s", "S")) else "'s")


def _verdict_clause(r: dict[str, Any], thing: str, before: str, after: str, diff: str,
                    unit: str = "points") -> str:
    """``raises HAL's win rate from 97.1% to 98.5% (+1.4 points [+0.5, +2.3], 98.3%)`` and
    the like for the other verdicts."""
    lv = level_text(r["level_used"])
    if r["verdict"] in ("raises", "lowers"):
        return f"{r['verdict']} {thing} from {before} to {after} ({diff}, {lv} interval)"
    if r["verdict"] == "equivalent":
        return (f"leaves {thing} equivalent within {margin_text(r['margin'], unit)} ("
                f"{before} → {after}: {diff}, {lv} equivalence interval)")
    return (f"is inconclusive for {thing} ({before} → {after}: {diff}, {lv} interval; "
            f"{_decide_hint(r)})")


def comparison_sentence(r: dict[str, Any], game: str) -> str:
    """"At crew=3, hal_extra_turns 0 → 1 raises HAL's win rate from … to … (…)"."""
    who = W.who(game, r["contender"], r.get("label_a") or "")
    at = (f"At {W.variant(game, r['context'])}, " if r.get("context") and r["option"] != "run"
          else "")
    if r["option"] == "run":
        change = (f"Run {r['value_b']} against {r['value_a']} "
                  f"({context_words(game, r['context'])})")
    else:
        change = change_words(game, r["option"], r["value_a"], r["value_b"])
    clause = _verdict_clause(r, f"{possessive(who)} win rate", pct(r["rate_a"]), pct(r["rate_b"]),
                             points(r["diff"], r["lo"], r["hi"]))
    pair = "paired" if r["paired"] else "unpaired"
    body = f"{change} {clause}; {pair}."
    if at:
        return at + body
    return f"Changing {body}" if r["option"] != "run" else body


def measure_sentence(r: dict[str, Any], game: str = "") -> str:
    """"At 3 players, all shuttles → 2 shuttles removed lowers mean turns from 45.70 to …"."""
    at = f"At {W.variant(game, r['context'])}, " if r.get("context") else ""
    change = change_words(game, r["option"], r["value_a"], r["value_b"])
    clause = _verdict_clause(r, f"mean {W.words(game, r['measure'])}", f"{r['mean_a']:.2f}",
                             f"{r['mean_b']:.2f}",
                             f"{r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}]", "")
    body = f"{change} {clause}."
    return at + body if at else f"Changing {body}"


def family_sentence(comp: pl.DataFrame, game: str, what: str = "win rate") -> list[str]:
    """One sentence per family: its question, its size, what it holds and what it does not,
    and the smallest change it detects at its games."""
    out = []
    for (fam,), sub in comp.partition_by("family", as_dict=True, maintain_order=True).items():
        n = int(sub["family_size"][0])
        who = sorted({W.who(game, c, lab) for c, lab in
                      sub.select("contender", "label_a").iter_rows()}) if "contender" in \
            sub.columns else []
        text = f"Family {family_words(game, fam)}: {n} change{'s' if n != 1 else ''}"
        if who:
            text += f" of {possessive(_and_words(who))} {what}"
        if "other" in sub.columns and sub["other"][0]:
            dc = float(sub["draws_capped"].max() or 0.0)  # type: ignore[arg-type]
            text += (f" ({possessive(W.contender(game, sub['other'][0]))} change mirrors it"
                     + (f", apart from draws and capped games, up to {pct(dc)} of games)"
                        if dc > 0 else " exactly: no draws or capped games)"))
        if "method" in sub.columns and sub["method"][0] == analysis.verdicts.SEQUENTIAL_METHOD:
            text += ", with Bonferroni's correction across them (anytime-valid intervals)"
        else:
            text += ", with Holm's correction and the equivalence tests across them"
        if "detectable" in sub.columns:
            det = [x for x in sub["detectable"].to_list() if x is not None
                   and not math.isnan(x)]
            if det:
                games = int(sub["n_a"].min())  # type: ignore[arg-type]
                text += (f". At {games:,} games per setting the smallest change it detects "
                         f"with 80% power is about {100 * max(det):.1f} points")
        out.append(text + ".")
    return out


def family_words(game: str, family: str) -> str:
    """``remove_shuttles measures (neighbouring settings)`` → ``shuttle removal (Setup 7)
    measures (neighbouring settings)``."""
    head, _, rest = family.partition(" ")
    return f"{W.words(game, head)} {rest}".strip()


def pairing_sentence(comp: pl.DataFrame) -> str:
    """What pairing did for these comparisons: the correlation and the games it saved."""
    paired = comp.filter(pl.col("paired"))
    if paired.height == 0:
        return ("No comparison was paired (the games share no seeds): each is between "
                "independent samples.")
    r = paired["correlation"].to_numpy()
    g = paired["games_saved"].to_numpy()
    left = int(paired["games_left_out"].max() or 0)  # type: ignore[arg-type]
    tail = (f" Pairing used the games both runs played; up to {left:,} games of the larger "
            "run were left out." if left else "")
    med = float(np.median(g))
    spread = (f" (from {100 * g.min():+.0f}% to {100 * g.max():+.0f}%)" if paired.height > 1
              else "")
    return (f"Pairing (the same seeds on both sides): the two outcomes correlate at r = "
            f"{float(np.median(r)):+.2f} (median; {r.min():+.2f} to {r.max():+.2f}), so "
            f"pairing needed {abs(100 * med):.0f}% {'fewer' if med >= 0 else 'more'} games "
            f"than independent samples for the same precision{spread}.{tail}")


def _and_words(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def seat_word(verdict: str, margin: float) -> str:
    """A seat's verdict against its fair share: ``above its fair share``, ``below …``,
    ``equal to it within ±2.5 points``, ``inconclusive``."""
    return {"raises": "above its fair share", "lowers": "below its fair share",
            "equivalent": f"equal to it within {margin_text(margin)}"}.get(verdict, verdict)


def seat_sentences(sb: pl.DataFrame, game: str = "") -> list[str]:
    """Per variant, the test of equal seats in words."""
    out = []
    for (_v,), sub in sorted(sb.partition_by("variant", as_dict=True).items()):
        rows = sub.to_dicts()
        head = rows[0]
        seats = rows[1:]
        word = {"unequal": "the seats are not equal",
                "equivalent": "the seats are equal within "
                              f"{margin_text(head['margin'])}",
                "inconclusive": "equal seats can be neither confirmed nor ruled out"}
        parts = []
        for r in seats:
            w = seat_word(r["verdict"], r["margin"])
            parts.append(f"{W.who(game, r['contender'], head['variant_label'])} "
                         f"{pct(r['rate'])} ({100 * r['diff']:+.1f} points "
                         f"[{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}], {w})")
        out.append(f"Seats at {W.variant(game, head['variant_label'])}: "
                   f"{word[head['verdict']]} (chi-square p "
                   f"{pvalue(head['p_value'])}); fair share {pct(seats[0]['fair_share'])} "
                   f"each (shared wins and capped games are nobody's win); "
                   + ", ".join(parts) + ".")
    return out


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


def variant_sentence(rates: pl.DataFrame, outcomes: pl.DataFrame, game: str) -> str:
    """One variant's result in words: every contender's rate with its interval."""
    label = rates.get_column("variant_label")[0]
    n = int(rates.get_column("games")[0])
    parts = []
    for r in rates.iter_rows(named=True):
        fair = f" (fair share {pct(r['fair_share'])})" if r["seat"] >= 0 else ""
        who = W.who(game, r["contender"], label)
        verb = "win" if who.endswith("ALIENS") else "wins"
        parts.append(f"{who} {verb} {pct(r['rate'])} "
                     f"{interval(r['lo'], r['hi'])}{fair}")
    extra = []
    for r in outcomes.iter_rows(named=True):
        if r["outcome"] in ("draw", "tie", "capped") and r["count"] > 0:
            what = ("stopped by the round cap" if r["outcome"] == "capped"
                    else W.value(game, "winner", r["outcome"]))
            extra.append(f"{what} {pct(r['rate'])}")
    tail = f"; {', '.join(extra)}" if extra else ""
    return f"At {W.variant(game, label)} ({n:,} games): {', '.join(parts)}{tail}."


# -- the answer: a compact table and a short sentence ------------------------------------------


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
    hint = f"; about {need:,} games per setting would decide" if need else ""
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


def context_words(game: str, ctx: str) -> str:
    """What differs between two runs (``analysis.describe_difference``) in words:
    ``remove_shuttles false→true; policies expedition=dash;aliens=hunter→expedition=dash;
    aliens=ismcts`` → ``all shuttles → 2 shuttles removed; player of the ALIENS: hunter
    → ismcts`` (only the seats whose player changed)."""
    out = []
    for part in ctx.split("; "):
        name, _, rest = part.partition(" ")
        a, arrow, b = rest.partition("→")
        if name == "policies":
            out.append(_players_changed(game, a, b) if arrow else "players " + rest)
        elif arrow and name != "game":
            out.append(change_words(game, name, a, b))
        else:
            out.append(part)
    return "; ".join(out)


def _players_changed(game: str, a: str, b: str) -> str:
    """``expedition=dash;aliens=hunter`` → ``expedition=dash;aliens=ismcts`` in words: the
    seats whose player changed, ``player of the ALIENS: hunter → ismcts``; several player sets
    (``x | y``) on a side are shown whole."""
    def seats(text: str) -> dict[str, str] | None:
        if " | " in text:
            return None
        pairs = [p.partition("=") for p in text.split(";") if p]
        return {k: v for k, eq, v in pairs if eq} if all(eq for _, eq, _ in pairs) else None

    sa, sb = seats(a), seats(b)
    if sa is None or sb is None or sa.keys() != sb.keys():
        def whole(text: str) -> str:
            return re.sub(r"(\w+)=", lambda m: f"{W.contender(game, m[1])}=", text)
        return f"players {whole(a)} → {whole(b)}"
    changed = [f"player of {W.contender(game, k)}: {sa[k]} → {sb[k]}" for k in sa
               if sa[k] != sb[k]]
    return "; ".join(changed) or "players unchanged"


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
        cols["change"] = [_change({"option": k[0], "value_a": k[1], "value_b": k[2],
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
        lead = _change({"option": k[0], "value_a": k[1], "value_b": k[2], "context": ""},
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
    head = [f"{verb} {_and_words(items)}{' ' + every if every else ''}"
            for verb, items in moved.items()]
    if crow:
        who = (f"{possessive(W.contender(game, crow[0]['contender']))} win rate" if team
               else "seat win rates")
        cv: list[str] = [r["verdict"] for r in crow]
        if len(set(cv)) == 1 and len(crow) > 1:
            win = f"{who}: {verdict_word(cv[0], None, crow[0]['margin'])} in all {len(cv)}"
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
        parts.insert(0, f"{_and_words(mixed)}: {_verdict_counts(mixed_verdicts)}")
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
        out.append(_img("differences.png", plots.differences(worded(comps, game)),
                        "Each change in win rate with the interval its verdict used."))
    return out


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


def varying_measures(games: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The game's measures that take more than one value in the run (a measure that never
    varies says nothing and is left out of the tables); read lazily from a scan."""
    lf = games.lazy()
    cols = analysis.frames.measure_columns(pl.DataFrame(schema=lf.collect_schema()))
    if not cols:
        return []
    n = lf.select(pl.col(c).drop_nulls().n_unique() for c in cols).collect().row(0)
    return [c for c, k in zip(cols, n, strict=True) if k > 1]


# -- building a run report -------------------------------------------------------------------


def _img(name: str, fig: Any, caption: str) -> Image:
    return Image(name, plots.png_bytes(fig), caption)


def _provenance(manifest: dict[str, Any], study: dict[str, Any] | None) -> Section:
    """Where the numbers come from, as readable tables: the run, the options that differ
    between its variants (with each variant's players), and every rule option once."""
    cfg = manifest.get("config", {})
    game = str(manifest.get("game", ""))
    variants = manifest.get("variants", [])
    asked = cfg.get("policies", {}) or {}
    rows = [
        ("run", str(manifest.get("run_id", ""))),
        ("game", f"{game} (rules version {manifest.get('game_version', '')})"),
        ("run seed", str(cfg.get("seed", ""))),
        ("games per variant", f"{cfg.get('games', 0):,}"),
        ("games written", f"{manifest.get('games_written', 0):,} of "
                          f"{manifest.get('games_total', 0):,}"
                          + ("" if manifest.get("complete") else " (incomplete run)")),
        ("players asked for", ", ".join(f"{W.contender(game, k)}: {v}" for k, v in
                                        sorted(asked.items())) or "the defaults"),
        ("seats rotated among equal players", "yes" if cfg.get("rotate") else "no"),
        ("games per chunk file", str(cfg.get("chunk_games", ""))),
        ("configuration id", str(manifest.get("identity", ""))),
        ("versions", ", ".join(f"{k} {v}" for k, v in sorted(manifest.get("versions",
                                                                            {}).items()))),
    ]
    if study:
        if study.get("study"):
            rows.append(("study", f"{study['study']}: {study.get('question', '')}"))
        if study.get("focus"):
            rows.append(("the question's option", W.words(game, str(study["focus"]))))
        if study.get("measures"):
            rows.append(("the question's measures",
                         ", ".join(W.words(game, m) for m in study["measures"])))
        if study.get("grid"):
            rows.append(("grid", "; ".join(
                f"{W.words(game, k)}: "
                + ", ".join(W.setting(game, k, v.lower() if v in ("True", "False") else v)
                            for v in vs) for k, vs in study["grid"].items())))
        for k in ("pairing", "pairs", "margin", "stop", "target"):
            if study.get(k) is not None:
                rows.append((k, str(study[k])))
    t = pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]},
                     schema={"item": pl.String, "value": pl.String})
    opts = [dict(v.get("options", {})) for v in variants]
    names = list(opts[0]) if opts else []
    differ = [k for k in names if len({W.fmt(o.get(k)) for o in opts}) > 1]
    vt = pl.DataFrame({
        **({} if differ else {"variant": [W.variant(game, v["label"]) for v in variants]}),
        **{W.label(game, k): [W.setting(game, k, o.get(k)) for o in opts] for k in differ},
        "players per seat": [
            ", ".join(f"{W.contender(game, s_, len(v['seats']))}: {p}"
                      for s_, p in zip(v["seats"], v["policies"], strict=False))
            for v in variants],
    })
    same = [k for k in names if k not in differ]
    ot = pl.DataFrame({
        "option": [f"--{k.replace('_', '-')}" for k in same],
        "value": [W.fmt(opts[0][k]) for k in same],
        "meaning": [W.meaning(game, k) for k in same],
    }, schema={"option": pl.String, "value": pl.String, "meaning": pl.String})
    return Section("Provenance", [
        "Every game can be replayed from the run seed and its game number "
        "(`balancelab trace RUN --index N`).",
        Table("Run", t), Table("Variants: the options that differ, and the players", vt),
        Table("Every other rule option (the same in every variant)", ot),
    ])


def read_study(path: Path) -> dict[str, Any] | None:
    f = Path(path) / STUDY_FILE
    if not f.is_file():
        return None
    data: dict[str, Any] = json.loads(f.read_text())
    return data


def warnings_for(rates: pl.DataFrame, outcomes: pl.DataFrame, game: str) -> list[str]:
    """Ceiling and capped-games warnings, in words."""
    out = []
    top = rates.filter(pl.col("rate") > CEILING)
    if top.height:
        if top.height > 3:  # the rates' range, not every variant
            whos = _and_words(sorted({W.contender(game, c) for c in top["contender"]}))
            where = (f"{whos} {pct(float(top['rate'].min()))}–"  # type: ignore[arg-type]
                     f"{pct(float(top['rate'].max()))} at {top.height} of "  # type: ignore[arg-type]
                     f"{rates.get_column('variant').n_unique()} variants")
        else:
            where = "; ".join(f"{W.who(game, r['contender'], r['variant_label'])} "
                              f"{pct(r['rate'])} at {W.variant(game, r['variant_label'])}"
                              for r in top.iter_rows(named=True))
        labels = list(top.get_column("variant_label"))
        # what-if options these variants do not set already (a label names non-defaults)
        opts = [o for o in hooks.what_if_options(game)
                if not any(f"{o}=" in label for label in labels)]
        named = ", ".join(f"{W.words(game, o)} (--{o.replace('_', '-')})" for o in opts)
        hint = (f" The what-if options {named} move the game off the ceiling; "
                "re-run with them to compare rules where the numbers have room to move."
                if opts else " Consider stronger policies for the losing side or a rule "
                "change that gives the numbers room to move.")
        out.append(f"Ceiling: one side wins more than {pct(CEILING)} ({where}). A comparison "
                   f"at the ceiling says little about the rules.{hint}")
    capped = capped_warning(outcomes, game)
    if capped:
        out.append(capped)
    return out


def capped_warning(outcomes: pl.DataFrame, game: str) -> str | None:
    """The warning when more than :data:`CAPPED_WARN` of a variant's games hit the round cap
    (None otherwise), from :func:`balancelab.analysis.outcome_rates`; ``game``: its name, for
    the variants' words."""
    capped = outcomes.filter((pl.col("outcome") == "capped") & (pl.col("rate") > CAPPED_WARN))
    if not capped.height:
        return None
    where = "; ".join(f"{pct(r['rate'])} at {W.variant(game, r['variant_label'])}"
                      for r in capped.iter_rows(named=True))
    return (f"Capped games: more than {pct(CAPPED_WARN)} of games hit the round cap "
            f"({where}). They count as neither win nor loss; a policy may be stalling.")


def stopping_sentence(study: dict[str, Any]) -> str:
    """What a run that grew in rounds guarantees: its stopping rule and target, the rounds,
    and whether the target was reached ("" for a fixed-size run)."""
    rounds = study.get("rounds") or []
    if not rounds:
        return ""
    last = rounds[-1]
    sizes = ", ".join(format(r["games"], ",") for r in rounds)
    rule = study.get("stop", "precision")
    target = study.get("target", study.get("precision"))
    reached = bool(last.get("reached", last["max_half_width"] <= (target or 0)))
    if rule == "decide":
        text = (f"Sequential decision (--decide): stopped at {last['games']:,} games per "
                f"variant, when every change of the question was decided (raises, lowers or "
                f"equivalent) by anytime-valid intervals, valid however often the run looked "
                f"({len(rounds)} rounds: {sizes} games).")
        return text + ("" if reached else " Some changes were still inconclusive at the "
                       "game limit.")
    if rule == "precision-diff":
        what = ("every change of the question had its interval (at the level Holm's "
                "correction could test it at) within")
    else:
        what = "every win rate's 95% Wilson interval was within"
    text = (f"Precision: stopped at {last['games']:,} games per variant, when {what} "
            f"±{pct(last['max_half_width'])} (target ±{pct(target)}; {len(rounds)} rounds: "
            f"{sizes} games). The rule looks only at the intervals' widths, which hardly "
            "depend on the results, so the printed intervals keep their level (simulated "
            "coverage 94–96% for 95% intervals).")
    return text + ("" if reached else " The target was NOT reached before the game limit.")


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
        cols[f"{W.contender(game, c)} wins"] = [
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


def build_run_report(path: Path, level: float = stats.LEVEL) -> Report:
    """Analyse one run folder into a :class:`Report`: the question, the answer (a compact
    table, a plot), then the details.

    Raises:
        RunError: not a run folder, or no games written.
    """
    path = Path(path)
    manifest = runs.read_manifest(path)
    study = read_study(path)
    # with who shared first place (one shared-win rule); in compact storage, the per-game
    # measures only where comparisons between variants need them (a sweep)
    multi = len(manifest.get("variants") or []) != 1
    df = analysis.frames.compact_games_frame(path, per_game_measures=multi)
    seats = analysis.seats_frame(path)
    game = str(manifest["game"])
    hook = hooks.hook_for(game)
    rates = analysis.sweep_table(df, level)
    outs = analysis.outcome_rates(df, level)
    vary = analysis.frames.swept_options(df)
    n_var = df.get_column("variant").n_unique()
    st = study or {}
    focus = st.get("focus") if st.get("focus") in vary else None
    margin = st.get("margin")
    team = analysis.frames.is_team_game(df)
    # summaries and the length histogram read the run folder lazily, column by column
    scan = runs.scan_games(path)
    varying = varying_measures(scan)
    comps = analysis.compare_variants(df, level, focus=focus, pairs=st.get("pairs"),
                                      margin=margin, sequential=bool(st.get("decide"))) \
        if n_var > 1 else None
    wanted = [m for m in st.get("measures", []) if m in df.columns] or None
    mcomps = analysis.compare_measures(df, wanted or varying, level, focus=focus,
                                       pairs=st.get("pairs")) if n_var > 1 else None
    sb = analysis.seat_balance(df, level, margin)
    extra = hooks.extra_sections(game, df, seats)
    prim = hook.primary or (rates.get_column("contender")[0] if team else None)

    headline: list[str] = []
    if n_var <= MAX_HEADLINE_VARIANTS:
        for (v,), sub in sorted(rates.partition_by("variant", as_dict=True).items()):
            headline.append(variant_sentence(sub, outs.filter(pl.col("variant") == v), game))
    if comps is not None and comps.height:
        for r in comps.head(24).iter_rows(named=True):
            headline.append(comparison_sentence(r, game))
        if focus and wanted and mcomps is not None:
            for r in mcomps.iter_rows(named=True):
                headline.append(measure_sentence(r, game))
        headline.extend(family_sentence(comps, game))
    if sb.height and n_var <= MAX_HEADLINE_VARIANTS:
        headline.extend(seat_sentences(sb, game))
    for s in extra:
        headline.extend(s.headline)
    stop = stopping_sentence(st)
    if stop:
        headline.append(stop)
    warns = warnings_for(rates, outs, game)
    if manifest.get("cheats"):
        warns.insert(0, f"CHEAT: {', '.join(manifest['cheats'])} sees the true state (every "
                     "hand, and the deck order unless it says sees=hands), not its seat's "
                     "view. Its win rate is an upper bound on what a player could do, not a "
                     "fair result.")

    # the answer: the question's changes (a sweep), else who wins at each variant
    title = _game_title(game)
    if comps is not None and comps.height:
        mine = comps.filter(pl.col("contender") == prim) if team and prim else comps
        shown = [m for m in (wanted or ["rounds"]) if m in varying or m == "rounds"]
        opts = _and_words([W.words(game, o) for o in ([focus] if focus else vary)])
        question = str(st.get("question") or f"{title}: what does changing {opts} do to who "
                       "wins and to the game's length?")
        short = short_answer(game, mine, mcomps, shown, team)
        answer = answer_blocks(game, mine, mcomps, shown, team)
    else:
        question = str(st.get("question") or f"{title}: who wins, and how often?")
        short = headline[0] if n_var == 1 and headline else ""
        answer = [Table("The answer", rates_answer(rates, outs, game), f"Win rates with "
                        f"{int(level * 100)}% Wilson intervals."),
                  _img("winrates.png", plots.winrates(worded(rates, game)),
                       "Win rate per variant with 95% intervals.")]

    for s in extra:  # a game's own part of the answer (Obcy: the rulebook's equal chances)
        if s.answer:
            answer[1:1] = [Table(t, _strings(f, game)) for t, f in s.tables]
    sections: list[Section] = [Section("Every answer in words", list(headline))]
    sec = Section("Win rates", [
        f"Win rate of each side or seat per variant, with {int(level * 100)}% Wilson score "
        "intervals. Draws and capped games are kept apart: wins + draws + losses + capped = "
        "games. A shared win (seats tied for first place on points and experiments) is a "
        "draw for the seats that shared it and a loss for the others: nobody's win. The fair "
        "share counts it the same way: the share of games with a sole winner over the "
        "possible winners.",
        Table("Win rates", rates_table(rates, game)),
        *([] if comps is None or not comps.height else [
            _img("winrates.png", plots.winrates(worded(rates, game)),
                 "Win rate per variant with 95% intervals.")]),
        Table("How games ended", outcomes_table(outs, game)),
        _img("outcomes.png", plots.outcomes(worded(outs, game)), "Share of games by outcome."),
    ])
    pol = analysis.policy_rates(df, level)
    if pol.get_column("policy").n_unique() > 1 or not team:
        sec.blocks.append(Table("Win rate by policy", policy_table(pol, game)))
    sections.append(sec)
    if sb.height:
        sections.append(Section("Are the seats equal?", [
            "Each seat against the rest: its win rate against its fair share, tested on "
            "its share of the games a seat won alone (Wilson interval), Holm and the "
            "equivalence tests across the variant's seats; all seats at once: Pearson's "
            "chi-square test of equal shares. " + analysis.verdicts.RULE,
            Table("Seats against their fair share", seat_table(sb, game)),
        ]))

    if comps is not None:
        method = ("anytime-valid sequential intervals (" + analysis.verdicts.SEQUENTIAL_METHOD
                  + ")") if st.get("decide") else (
            "Newcombe's paired score interval where games share seeds, else Newcombe's hybrid "
            "score")
        cs = Section("Comparisons between variants", [
            "Each change of an option between neighbouring settings (every pair with --pairs "
            "all), the others held fixed; the difference of the side's or seat's win rate "
            f"(after − before) by {method}. " + analysis.verdicts.RULE,
            *family_sentence(comps, game),
            pairing_sentence(comps) if comps.height else "",
            Table("Differences in win rate", comparison_table(comps, game)),
        ])
        prim_c = prim or rates.get_column("contender")[0]
        pw = W.contender(game, prim_c)
        lab = {o: W.label(game, o) for o in vary}
        wr = rates.with_columns(pl.col("contender").replace_strict(
            {c: W.contender(game, c) for c in rates.get_column("contender").unique()},
            return_dtype=pl.String)).rename(lab)
        for i, opt in enumerate(vary):
            others = [o for o in vary if o != opt]
            by = lab[others[0]] if len(others) == 1 else None
            if len(others) <= 1:
                cs.blocks.append(_img(f"vs-{opt.replace('_', '-')}.png",
                                      plots.winrate_vs_option(wr, lab[opt], pw, by),
                                      f"{possessive(W.contender(game, prim_c))} win rate "
                                      f"against {W.words(game, opt)}."))
            if i == 0 and len(vary) == 2:
                grid = analysis.heat_grid(rates, vary[1], vary[0], prim_c).rename(
                    {vary[0]: lab[vary[0]]})
                cs.blocks.append(_img("heatmap.png",
                                      plots.heatmap(grid, lab[vary[1]], lab[vary[0]], pw),
                                      f"{possessive(W.contender(game, prim_c))} win rate over "
                                      f"{W.words(game, vary[0])} × {W.words(game, vary[1])}."))
        mc = mcomps
        if mc is not None and mc.height:
            cs.blocks.append("Changes in game length and the game's measures (difference "
                             "of means, paired t interval where games share seeds, else "
                             "Welch), each question's measures one family; a measure is "
                             f"equivalent within ±{analysis.verdicts.MEASURE_MARGIN_SD} of its "
                             "standard deviation (in its units in the verdict). Measures "
                             "that never vary in the run are left out:")
            cs.blocks.extend(family_sentence(mc, game, "mean"))
            cs.blocks.append(Table("Differences in measures",
                                   measure_comparison_table(mc, game)))
        sections.append(cs)

    length = analysis.length_summary(scan)
    er = analysis.end_reasons(scan)
    sections.append(Section("Game length and end reasons", [
        "Rounds and decisions per game (mean, sd, median, 95th percentile).",
        Table("Game length", _strings(length.drop("variant"), game)),
        _img("rounds.png", plots.distribution(_worded_scan(scan, game), "rounds", "Game length",
                                              xlabel=W.label(game, "rounds")),
             "Distribution of game length."),
        Table("End reasons", end_reasons_table(er, game)),
    ]))
    meas = analysis.measure_summary(scan).filter(pl.col("measure").is_in(varying))
    if meas.height:
        ms = Section("The game's measures", [
            "Each measure the game records that varies in the run, per variant.",
            Table("Measures", _strings(meas.drop("variant"), game)),
        ])
        sections.append(ms)
    for s in extra:
        blocks: list[str | Table | Image] = list(s.paragraphs)
        blocks += [Table(t, _strings(f, game)) for t, f in s.tables]
        if s.title == "Scores" and seats is not None and "score" in seats.columns:
            blocks.append(_img("scores.png", plots.score_boxes(_worded_seats(seats, game)),
                               "Score by seat."))
            wm = analysis.winner_margin(df, seats)
            if wm.height:
                wm = wm.join(df.select("variant", "variant_label").unique(), on="variant")
                blocks.append(_img("margin.png",
                                   plots.distribution(worded(wm, game), "margin",
                                                      "Winner's margin",
                                                      xlabel="points ahead of the runner-up"),
                                   "Distribution of the winner's margin."))
        sections.append(Section(s.title, blocks))
    if study and study.get("rounds"):
        rt = pl.DataFrame(study["rounds"]).select(
            pl.col("games").map_elements(lambda x: f"{x:,}", return_dtype=pl.String),
            pl.col("max_half_width").map_elements(pct, return_dtype=pl.String)
            .alias("widest ± (the stopping rule's interval)"),
        )
        sections.append(Section("Stopping rounds", [stopping_sentence(study),
                                                    Table("Rounds", rt)]))
    sections.append(_provenance(manifest, study))
    return Report(f"{title}: report of run {manifest.get('run_id', path.name)}", headline,
                  warns, sections, question, short, answer)


def _game_title(game: str) -> str:
    try:
        from balancelab.games import get_game

        return str(get_game(game).title)
    except (ImportError, ValueError):
        return game


def _worded_scan(scan: pl.LazyFrame, game: str) -> pl.LazyFrame:
    """The games scan with its variant labels in words (for the length histogram)."""
    labels = scan.select(pl.col("variant_label").cast(pl.String).unique()).collect()
    mapping = {v: W.variant(game, v) for v in labels.get_column("variant_label").to_list()}
    return scan.with_columns(pl.col("variant_label").cast(pl.String)
                             .replace_strict(mapping, return_dtype=pl.String))


def _worded_seats(seats: pl.DataFrame, game: str) -> pl.DataFrame:
    """The seats table with its seat names and variant labels in words."""
    pairs = seats.select("seat_name", "variant_label").unique()
    mapping = {(a, b): W.who(game, a, b) for a, b in pairs.iter_rows()}
    return seats.with_columns(
        pl.struct("seat_name", "variant_label").map_elements(
            lambda r: mapping[(r["seat_name"], r["variant_label"])], return_dtype=pl.String)
        .alias("seat_name"),
        pl.col("variant_label").map_elements(lambda v: W.variant(game, v),
                                             return_dtype=pl.String))


# -- rendering -------------------------------------------------------------------------------


def _md_table(t: Table) -> str:
    cols = t.frame.columns
    esc = [c.replace("|", "\\|") for c in cols]
    lines = [f"**{t.title}**", "", "| " + " | ".join(esc) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    for row in t.frame.iter_rows():
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def _md_blocks(blocks: list[str | Table | Image]) -> list[str]:
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Table):
            out += [_md_table(b), ""]
        elif isinstance(b, Image):
            out += [f"![{b.caption}]({b.name})", ""]
        elif b:
            out += [b, ""]
    return out


def _in_short(text: str) -> str:
    return text if text.startswith("In short") else f"In short: {text}"


def to_markdown(report: Report) -> str:
    """The report as Markdown; figures referenced as ``<name>.png`` next to the file.

    A report with an answer opens with the question, "In short" and the answer's table and
    plot; the rest follows under "Details"."""
    out = [f"# {report.title}", ""]
    if report.answer:
        out += [f"**{report.question}**", ""]
        if report.short:
            out += [_in_short(report.short), ""]
        out += _md_blocks(report.answer)
        out += [f"> **Warning.** {w}\n" for w in report.warnings]
        out += ["## Details", ""]
        for s in report.sections:
            out += [f"### {s.title}", ""] + _md_blocks(s.blocks)
        return "\n".join(out).rstrip() + "\n"
    out += ["## Answers", ""]
    out += [f"- {h}" for h in report.headline] or ["- (no games)"]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- **Warning.** {w}" for w in report.warnings]
    for s in report.sections:
        out += ["", f"## {s.title}", ""] + _md_blocks(s.blocks)
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:1em auto;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.35em;margin:.3em 0} .question{font-size:1.1em;font-weight:600;margin:.4em 0}
.short{margin:.3em 0 .6em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.85em;display:block;max-width:100%;
overflow-x:auto}
th,td{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#f2f2f2} .answers li{margin:.3em 0} .warn{background:#fff4e5;border-left:4px solid
#f0a000;padding:.4em .8em;margin:.4em 0;font-size:.9em} figure{margin:.6em 0}
figcaption{font-size:.85em;color:#555} img{max-width:100%} .answer img{max-height:360px}
details{margin:.3em 0;border-top:1px solid #ddd;padding-top:.3em}
summary{cursor:pointer;font-weight:600;font-size:1.05em} code{background:#f4f4f4;padding:0 .2em}
""".strip()

_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline_html(text: str) -> str:
    """A paragraph's Markdown inline marks as HTML: ```code``` → ``<code>``, ``[text](x.md)``
    → a link (to the ``.html`` page beside a ``.md`` one); everything else escaped."""
    out, pos = [], 0
    for m in re.finditer(f"{_CODE.pattern}|{_LINK.pattern}", text):
        out.append(html.escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{html.escape(m.group(1))}</code>")
        else:
            href, label = m.group(3), m.group(2)
            if href.endswith(".md"):  # the page beside it, named as it is
                href = href[:-3] + ".html"
                label = label[:-3] + ".html" if label.endswith(".md") else label
            out.append(f'<a href="{html.escape(href)}">{html.escape(label)}</a>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _html_blocks(blocks: list[str | Table | Image]) -> list[str]:
    e = html.escape
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Table):
            out.append(f"<h3>{e(b.title)}</h3><table><thead><tr>"
                       + "".join(f"<th>{e(c)}</th>" for c in b.frame.columns)
                       + "</tr></thead><tbody>")
            for row in b.frame.iter_rows():
                out.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>")
            out.append("</tbody></table>")
            if b.note:
                out.append(f"<p>{inline_html(b.note)}</p>")
        elif isinstance(b, Image):
            data = base64.b64encode(b.png).decode("ascii")
            out.append(f'<figure><img alt="{e(b.caption)}" '
                       f'src="data:image/png;base64,{data}">'
                       f"<figcaption>{e(b.caption)}</figcaption></figure>")
        elif b:
            out.append(f"<p>{inline_html(b)}</p>")
    return out


#: The class of the element holding a report shown in Jupyter (:meth:`Report._repr_html_`).
_SCOPE = "balancelab-report"


def _scoped_css() -> str:
    """The page's style, each rule applied only inside the ``_SCOPE`` element."""
    import re

    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", _CSS):
        scoped = [f".{_SCOPE}" if sel.strip() == "body" else f".{_SCOPE} {sel.strip()}"
                  for sel in selectors.split(",")]
        rules.append(f"{','.join(scoped)}{{{body}}}")
    return "\n".join(rules)


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (images inline as base64, no network).

    A report with an answer opens with the question, "In short", the answer's table and
    plot, and the warnings; every other section is collapsed (``<details>``)."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{e(report.title)}</h1>"]
    warns = [f'<div class="warn"><strong>Warning.</strong> {inline_html(w)}</div>'
             for w in report.warnings]
    if report.answer:
        out.append(f'<p class="question">{inline_html(report.question)}</p>')
        if report.short:
            short = report.short.removeprefix("In short: ")
            out.append(f'<p class="short"><strong>In short:</strong> {inline_html(short)}</p>')
        out.append('<div class="answer">')
        out += _html_blocks(report.answer)
        out.append("</div>")
        out += warns
        out.append("<h2>Details</h2>")
        for s in report.sections:
            out.append(f"<details><summary>{e(s.title)}</summary>")
            out += _html_blocks(s.blocks)
            out.append("</details>")
    else:
        out += ["<h2>Answers</h2>", '<ul class="answers">']
        out += [f"<li>{inline_html(h)}</li>" for h in report.headline]
        out.append("</ul>")
        if warns:
            out += ["<h2>Warnings</h2>", *warns]
        for s in report.sections:
            out.append(f"<h2>{e(s.title)}</h2>")
            out += _html_blocks(s.blocks)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(report: Report, out: Path) -> ReportPaths:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out``.

    Raises:
        ValueError: ``out`` exists and is not a folder.
        OSError: the folder cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{str(out)!r} is a file; --out takes a folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    for img in report.images():
        p = out / img.name
        p.write_bytes(img.png)
        figs.append(p)
    md = out / "report.md"
    md.write_text(to_markdown(report), encoding="utf-8")
    page = out / "report.html"
    page.write_text(to_html(report), encoding="utf-8")
    first = ([report.question, _in_short(report.short)] if report.short else
             [report.question]) if report.answer else report.headline
    head = "\n".join(first + [f"Warning: {w}" for w in report.warnings])
    return ReportPaths(head, md, page, figs)


def write_report(run_dirs: list[Path] | Path, out: Path | None = None,
                 level: float = stats.LEVEL, margin: float | None = None) -> ReportPaths:
    """Report one run (or compare several) and write it.

    Args:
        run_dirs: one run folder (a report of that run) or several (a comparison report of
            each against the first, see :func:`build_compare_report`).
        out: output folder (default ``<first run>/report`` for one run,
            :func:`compare_folder` for several).
        level: confidence level.
        margin: equivalence margin of a comparison report (default: the game's).

    Raises:
        RunError: a folder that is not a run, or a run with no games.
    """
    dirs = [Path(run_dirs)] if isinstance(run_dirs, (str, Path)) else [Path(d) for d in run_dirs]
    if not dirs:
        raise ValueError("report needs at least one run folder")
    if len(dirs) == 1:
        rep = build_run_report(dirs[0], level)
        return write(rep, out or dirs[0] / "report")
    rep = build_compare_report(dirs, level, margin)
    return write(rep, out or compare_folder(dirs))


def compare_folder(dirs: list[Path]) -> Path:
    """A comparison's own folder, beside the first run: ``compare-<a>-vs-<b>`` (the runs'
    folder names; ``compare-<a>-vs-<n>-runs-<hash>`` when that name would be long), so that
    comparing other runs never overwrites it."""
    import hashlib
    import re

    names = [re.sub(r"[^A-Za-z0-9_.=-]+", "-", Path(d).resolve().name) for d in dirs]
    name = "compare-" + "-vs-".join(names)
    if len(name) > 120:
        digest = hashlib.sha1("\0".join(str(Path(d).resolve()) for d in dirs).encode())
        name = f"compare-{names[0]}-vs-{len(dirs) - 1}-runs-{digest.hexdigest()[:8]}"
    return Path(dirs[0]).parent / name


def run_differences(manifests: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Warnings for runs compared with the first that differ in more than one rule option,
    in their seats (a 3-player run against a solo one) or in their numbers of games."""
    out = []
    base = manifests[0]
    for name, m in zip(names[1:], manifests[1:], strict=True):
        for vb in m["variants"]:
            va = next((v for v in base["variants"] if v["label"] == vb["label"]),
                      base["variants"][0] if len(base["variants"]) == 1 else None)
            if va is None:
                continue
            opts = [f"{k} {W.fmt(va['options'].get(k))} → {W.fmt(v)}"
                    for k, v in vb["options"].items() if va["options"].get(k) != v]
            if va["seats"] != vb["seats"]:
                na, nb = len(va["seats"]), len(vb["seats"])
                out.append(f"{name} is a game of {nb} seat{'s' if nb != 1 else ''} and "
                           f"{names[0]} of {na}" + (" (other seats)" if na == nb else "")
                           + ": its win rates are those of another game, not the effect of "
                           "a rule change.")
            elif len(opts) > 1:
                out.append(f"{name} differs from {names[0]} in {len(opts)} rule options "
                           f"({'; '.join(opts)}): a change in win rate cannot be put down to "
                           "one of them.")
        ga, gb = base["config"]["games"], m["config"]["games"]
        if ga != gb:
            paired = (" only the games both played from the same seed are paired"
                      if base["config"]["seed"] == m["config"]["seed"]
                      else " they share no seed, so no game is paired")
            out.append(f"{name} holds {gb:,} games per setting and {names[0]} {ga:,}:{paired}.")
    return out


def build_compare_report(dirs: list[Path], level: float = stats.LEVEL,
                         margin: float | None = None) -> Report:
    """A report comparing runs against the first (paired where they share seeds).

    Raises:
        RunError: a folder that is not a run. ValueError: runs of different games.
    """
    manifests = [runs.read_manifest(d) for d in dirs]
    names = [str(m.get("run_id", d.name)) for m, d in zip(manifests, dirs, strict=True)]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    frames = [analysis.games_frame(d) for d in dirs]
    game = str(manifests[0]["game"])
    comp = analysis.compare_runs(frames, names, level, margin)
    mc = analysis.compare_run_measures(frames, names, level=level)
    headline = [comparison_sentence(r, game) for r in comp.iter_rows(named=True)]
    moved: dict[tuple[str, str], list[str]] = {}
    for r in mc.filter(pl.col("verdict").is_in(["raises", "lowers"])).iter_rows(named=True):
        moved.setdefault((r["value_b"], r["label_b"]), []).append(
            f"{r['verdict']} mean {W.words(game, r['measure'])} ({num(r['mean_a'])} → "
            f"{num(r['mean_b'])})")
    for (run_b, label), what in moved.items():
        at = (f" at {W.variant(game, label)}" if label != "default"
              and len(set(comp["label_b"])) > 1 else "")
        headline.append(f"Run {run_b} against {names[0]}{at}: {'; '.join(what)}.")
    if comp.height:
        headline.extend(family_sentence(comp, game))
        headline.append(pairing_sentence(comp))
    team = analysis.frames.is_team_game(frames[0])
    shown = ["rounds", *dict.fromkeys(
        r["measure"] for r in mc.filter(pl.col("verdict").is_in(["raises", "lowers"])
                                        & (pl.col("measure") != "rounds")).iter_rows(named=True)
    )][:3]
    question = (f"{_game_title(game)}: how do {_and_words(names[1:])} differ from "
                f"{names[0]} in who wins and in the game's length?")
    short = short_answer(game, comp, mc, shown, team)
    answer = answer_blocks(game, comp, mc, shown, team)
    warns = run_differences(manifests, names)
    blocks: list[str | Table | Image] = []
    for name, f in zip(names, frames, strict=True):
        rates = analysis.win_rates(f, level)
        outs = analysis.outcome_rates(f, level)
        warns += [f"{name}: {w}" for w in warnings_for(rates, outs, game)]
        blocks.append(Table(f"Win rates: {name}", rates_table(rates, game)))
    varying = set().union(*(varying_measures(f) for f in frames)) | {"rounds", "decisions"}
    mc_shown = mc.filter(pl.col("measure").is_in(sorted(varying)))
    measure_blocks: list[str | Table | Image] = [
        f"Game length and the game's measures, each run against {names[0]} (difference of "
        "means, paired t interval where the runs share games, else Welch), one family; "
        "measures that never vary are left out:",
        Table("Differences in measures", measure_comparison_table(mc_shown, game))]
    sections = [
        Section("Every answer in words", list[str | Table | Image](headline)),
        Section("Comparison", [
            f"Each run against {names[0]}: the difference of the side's or seat's win rate, "
            "paired on the games both runs played from the same seeds (same-seed runs of any "
            "sizes), else unpaired; the runs are one family. " + analysis.verdicts.RULE,
            *([pairing_sentence(comp)] if comp.height else []),
            Table("Differences in win rate", comparison_table(comp, game)),
            *(measure_blocks if mc.height else []),
        ]),
        Section("Win rates per run", blocks),
        *[Section(f"Provenance: {n}", _provenance(m, read_study(d)).blocks)
          for n, m, d in zip(names, manifests, dirs, strict=True)],
    ]
    return Report(f"balancelab comparison: {' vs '.join(names)}", headline, warns, sections,
                  question, short, answer)
