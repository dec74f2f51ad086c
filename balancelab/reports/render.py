"""Reports: Markdown and one self-contained HTML page from the analysis frames.

A report opens with its headline answers in plain words with numbers, then any warnings, then
tables (every rate with its interval, named by level and method) and plots, and ends with the
run's provenance. Same data → same bytes: nothing time-dependent is written (no dates, no wall
times), tables and figures are built in a fixed order, PNGs carry no ``Software`` metadata.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import plots
from balancelab.simulate import runner

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
    png: bytes
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[str | Table | Image] = field(default_factory=list)


@dataclass
class Report:
    """A report before rendering."""

    title: str
    headline: list[str]
    warnings: list[str]
    sections: list[Section]

    def images(self) -> list[Image]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Image)]


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


def _strings(df: pl.DataFrame) -> pl.DataFrame:
    """Every value as text (:func:`num`), headers in words (:data:`HEADERS`; a column keeps
    its own name when its word is taken)."""
    out: dict[str, list[str]] = {}
    for c in df.columns:
        word = HEADERS.get(c, c)
        out[word if word not in out and word not in df.columns else c] = [
            num(v) for v in df.get_column(c).to_list()]
    return pl.DataFrame(out)


# -- tables ----------------------------------------------------------------------------------


def rates_table(rates: pl.DataFrame, game: str) -> pl.DataFrame:
    """The win-rate table as printed: counts, rate with Wilson interval, draws, losses, cap."""
    seat_game = bool((rates.get_column("seat") >= 0).any())
    return pl.DataFrame({
        "variant": rates.get_column("variant_label").to_list(),
        "side / seat": [hooks.word(game, c) for c in rates.get_column("contender").to_list()],
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
        "variant": pol.get_column("variant_label").to_list(),
        "side / seat": [hooks.word(game, c) for c in pol.get_column("contender").to_list()],
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
        "variant": er.get_column("variant_label").to_list(),
        "winner": [hooks.word(game, w) for w in er.get_column("winner").to_list()],
        "end reason": [hooks.word(game, r).replace("_", " ")
                       for r in er.get_column("end_reason").to_list()],
        "games": [f"{c:,}" for c in er.get_column("count").to_list()],
        "share": [pct(x) for x in er.get_column("share").to_list()],
    })


def outcomes_table(out: pl.DataFrame, game: str) -> pl.DataFrame:
    return pl.DataFrame({
        "variant": out.get_column("variant_label").to_list(),
        "outcome": [hooks.word(game, o) for o in out.get_column("outcome").to_list()],
        "games": [f"{c:,} / {n:,}" for c, n in out.select("count", "games").iter_rows()],
        "share [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                               out.select("rate", "lo", "hi").iter_rows()],
    })


def _change(r: dict[str, Any]) -> str:
    """What a comparison changes; for two runs, what differs between them."""
    if r["option"] == "run":
        return f"{r['context']} ({r['value_a']} → {r['value_b']})" if r["context"] else (
            f"{r['value_a']} → {r['value_b']}")
    return f"{r['option']} {r['value_a']} → {r['value_b']}"


def _fixed(r: dict[str, Any]) -> str:
    return "–" if r["option"] == "run" else (r["context"] or "–")


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
        "change": [_change(r) for r in rows],
        "held fixed": [_fixed(r) for r in rows],
        "side / seat": [hooks.word(game, r["contender"]) for r in rows],
        "before": [pct(r["rate_a"]) for r in rows],
        "after": [pct(r["rate_b"]) for r in rows],
        "difference [interval]": [points(r["diff"], r["lo"], r["hi"]) for r in rows],
        "interval level": [level_text(r["level_used"]) for r in rows],
        "verdict": [verdict_word(r["verdict"], None, r["margin"]) for r in rows],
        "games to decide": [f"{r['games_to_decide']:,}" if r.get("games_to_decide") else "–"
                            for r in rows],
        **({f"{possessive(hooks.word(game, rows[0]['other']))} change": [
            f"{100 * r['other_diff']:+.1f} points" if r.get("other_diff") is not None
            and not math.isnan(r["other_diff"]) else "–" for r in rows]} if team else {}),
        "paired (correlation, games saved)": [
            f"yes (r {r['correlation']:+.2f}, {100 * r['games_saved']:.0f}%)" if r["paired"]
            else "no" for r in rows],
    })


def measure_comparison_table(mc: pl.DataFrame) -> pl.DataFrame:
    """The measure changes as printed (the interval beside each verdict is the one it
    used)."""
    rows = mc.to_dicts()
    return pl.DataFrame({
        "change": [_change(r) for r in rows],
        "held fixed": [_fixed(r) for r in rows],
        "measure": [r["measure"] for r in rows],
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
    who = hooks.word(game, r["contender"])
    at = f"At {r['context']}, " if r.get("context") and r["option"] != "run" else ""
    if r["option"] == "run":
        change = f"Run {r['value_b']} against {r['value_a']} ({r['context']})"
    else:
        change = f"{r['option']} {r['value_a']} → {r['value_b']}"
    clause = _verdict_clause(r, f"{possessive(who)} win rate", pct(r["rate_a"]), pct(r["rate_b"]),
                             points(r["diff"], r["lo"], r["hi"]))
    pair = "paired" if r["paired"] else "unpaired"
    body = f"{change} {clause}; {pair}."
    if at:
        return at + body
    return f"Changing {body}" if r["option"] != "run" else body


def measure_sentence(r: dict[str, Any]) -> str:
    """"At players=3, remove_shuttles false → true lowers mean turns from 45.70 to …"."""
    at = f"At {r['context']}, " if r.get("context") else ""
    change = f"{r['option']} {r['value_a']} → {r['value_b']}"
    clause = _verdict_clause(r, f"mean {r['measure']}", f"{r['mean_a']:.2f}",
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
        who = sorted({hooks.word(game, c) for c in sub["contender"]}) if "contender" in \
            sub.columns else []
        text = f"Family {fam}: {n} change{'s' if n != 1 else ''}"
        if who:
            text += f" of {possessive(_and_words(who))} {what}"
        if "other" in sub.columns and sub["other"][0]:
            dc = float(sub["draws_capped"].max() or 0.0)  # type: ignore[arg-type]
            text += (f" ({possessive(hooks.word(game, sub['other'][0]))} change mirrors it"
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


def seat_sentences(sb: pl.DataFrame) -> list[str]:
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
            parts.append(f"{r['contender']} {pct(r['rate'])} ({100 * r['diff']:+.1f} points "
                         f"[{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}], {w})")
        out.append(f"Seats at {head['variant_label']}: {word[head['verdict']]} (chi-square p "
                   f"{pvalue(head['p_value'])}); fair share {pct(seats[0]['fair_share'])} "
                   f"each (shared wins and capped games are nobody's win); "
                   + ", ".join(parts) + ".")
    return out


def seat_table(sb: pl.DataFrame) -> pl.DataFrame:
    rows = sb.to_dicts()
    return pl.DataFrame({
        "variant": [r["variant_label"] for r in rows],
        "seat": [r["contender"] for r in rows],
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
        who = hooks.word(game, r["contender"])
        verb = "win" if who.endswith("ALIENS") else "wins"
        parts.append(f"{who} {verb} {pct(r['rate'])} "
                     f"{interval(r['lo'], r['hi'])}{fair}")
    extra = []
    for r in outcomes.iter_rows(named=True):
        if r["outcome"] in ("draw", "tie", "capped") and r["count"] > 0:
            extra.append(f"{r['outcome']} {pct(r['rate'])}")
    tail = f"; {', '.join(extra)}" if extra else ""
    return f"At {label} ({n:,} games): {', '.join(parts)}{tail}."


# -- building a run report -------------------------------------------------------------------


def _img(name: str, fig: Any, caption: str) -> Image:
    return Image(name, plots.png_bytes(fig), caption)


def _provenance(manifest: dict[str, Any], study: dict[str, Any] | None) -> Section:
    cfg = manifest.get("config", {})
    rows = [
        ("run", manifest.get("run_id", "")),
        ("game", f"{manifest.get('game', '')} (version {manifest.get('game_version', '')})"),
        ("seed", str(cfg.get("seed", ""))),
        ("games per variant", f"{cfg.get('games', '')}"),
        ("games written", f"{manifest.get('games_written', '')} of "
                          f"{manifest.get('games_total', '')}"
                          + ("" if manifest.get("complete") else " (incomplete run)")),
        ("policies asked for", json.dumps(cfg.get("policies", {}), sort_keys=True) or "{}"),
        ("seat rotation", str(cfg.get("rotate", ""))),
        ("chunk size", str(cfg.get("chunk_games", ""))),
        ("configuration id", manifest.get("identity", "")),
        ("versions", ", ".join(f"{k} {v}" for k, v in sorted(manifest.get("versions",
                                                                            {}).items()))),
    ]
    if study:
        rows.append(("study", json.dumps({k: v for k, v in study.items() if k != "rounds"},
                                         sort_keys=True)))
    t = pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]})
    vt = pl.DataFrame({
        "variant": [str(v["variant"]) for v in manifest.get("variants", [])],
        "label": [v["label"] for v in manifest.get("variants", [])],
        "seats": [", ".join(f"{s}={p}" for s, p in zip(v["seats"], v["policies"], strict=False))
                  for v in manifest.get("variants", [])],
        "options": [", ".join(f"{k}={_optval(x)}" for k, x in v["options"].items())
                    for v in manifest.get("variants", [])],
    })
    return Section("Provenance", [
        "Every game can be replayed from the run seed and its game index "
        "(`balancelab trace <run> --index i`).",
        Table("Run", t), Table("Variants (options and policy per seat)", vt),
    ])


def _optval(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (list, tuple)):
        return "/".join(map(str, x))
    return str(x)


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
        where = "; ".join(f"{hooks.word(game, r['contender'])} {pct(r['rate'])} at "
                          f"{r['variant_label']}" for r in top.iter_rows(named=True))
        labels = list(top.get_column("variant_label"))
        # what-if options these variants do not set already (a label names non-defaults)
        opts = [o for o in hooks.what_if_options(game)
                if not any(f"{o}=" in label for label in labels)]
        hint = (f" The what-if options {', '.join(opts)} move the game off the ceiling; "
                "re-run with them to compare rules where the numbers have room to move."
                if opts else " Consider stronger policies for the losing side or a rule "
                "change that gives the numbers room to move.")
        out.append(f"Ceiling: one side wins more than {pct(CEILING)} ({where}). A comparison "
                   f"at the ceiling says little about the rules.{hint}")
    capped = outcomes.filter((pl.col("outcome") == "capped") & (pl.col("rate") > CAPPED_WARN))
    if capped.height:
        where = "; ".join(f"{pct(r['rate'])} at {r['variant_label']}"
                          for r in capped.iter_rows(named=True))
        out.append(f"Capped games: more than {pct(CAPPED_WARN)} of games hit the round cap "
                   f"({where}). They count as neither win nor loss; a policy may be stalling.")
    return out


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


def build_run_report(path: Path, level: float = stats.LEVEL) -> Report:
    """Analyse one run folder into a :class:`Report`.

    Raises:
        RunError: not a run folder, or no games written.
    """
    path = Path(path)
    manifest = runner.read_manifest(path)
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
    comps = analysis.compare_variants(df, level, focus=focus, pairs=st.get("pairs"),
                                      margin=margin, sequential=bool(st.get("decide"))) \
        if n_var > 1 else None
    wanted = [m for m in st.get("measures", []) if m in df.columns] or None
    mcomps = analysis.compare_measures(df, wanted, level, focus=focus,
                                       pairs=st.get("pairs")) if n_var > 1 else None
    sb = analysis.seat_balance(df, level, margin)
    extra = hooks.extra_sections(game, df, seats)

    headline: list[str] = []
    if n_var <= MAX_HEADLINE_VARIANTS:
        for (v,), sub in sorted(rates.partition_by("variant", as_dict=True).items()):
            headline.append(variant_sentence(sub, outs.filter(pl.col("variant") == v), game))
    if comps is not None and comps.height:
        for r in comps.head(24).iter_rows(named=True):
            headline.append(comparison_sentence(r, game))
        if focus and wanted and mcomps is not None:
            for r in mcomps.iter_rows(named=True):
                headline.append(measure_sentence(r))
        headline.extend(family_sentence(comps, game))
    if sb.height and n_var <= MAX_HEADLINE_VARIANTS:
        headline.extend(seat_sentences(sb))
    for s in extra:
        headline.extend(s.headline)
    stop = stopping_sentence(st)
    if stop:
        headline.append(stop)
    warns = warnings_for(rates, outs, game)
    if manifest.get("cheats"):
        warns.insert(0, f"CHEAT: {', '.join(manifest['cheats'])} sees the true state (every "
                     "hand, the deck order), not its seat's view. Its win rate is an upper "
                     "bound on what a player could do, not a fair result.")

    sections: list[Section] = []
    sec = Section("Win rates", [
        f"Win rate of each side or seat per variant, with {int(level * 100)}% Wilson score "
        "intervals. Draws and capped games are kept apart: wins + draws + losses + capped = "
        "games. A shared win (seats tied for first place on points and experiments) is a "
        "draw for the seats that shared it and a loss for the others: nobody's win. The fair "
        "share counts it the same way: the share of games with a sole winner over the "
        "possible winners.",
        Table("Win rates", rates_table(rates, game)),
        _img("winrates.png", plots.winrates(rates), "Win rate per variant with 95% intervals."),
        Table("How games ended", outcomes_table(outs, game)),
        _img("outcomes.png", plots.outcomes(outs), "Share of games by outcome."),
    ])
    pol = analysis.policy_rates(df, level)
    if pol.get_column("policy").n_unique() > 1 or not analysis.frames.is_team_game(df):
        sec.blocks.append(Table("Win rate by policy", policy_table(pol, game)))
    sections.append(sec)
    if sb.height:
        sections.append(Section("Are the seats equal?", [
            "Each seat against the rest: its win rate against its fair share, tested on "
            "its share of the games a seat won alone (Wilson interval), Holm and the "
            "equivalence tests across the variant's seats; all seats at once: Pearson's "
            "chi-square test of equal shares. " + analysis.verdicts.RULE,
            Table("Seats against their fair share", seat_table(sb)),
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
        if comps.height:
            cs.blocks.append(_img("differences.png", plots.differences(comps),
                                  "Differences in win rate with the intervals the verdicts "
                                  "used."))
        prim = hook.primary or rates.get_column("contender")[0]
        for i, opt in enumerate(vary):
            others = [o for o in vary if o != opt]
            by = others[0] if len(others) == 1 else None
            if len(others) <= 1:
                cs.blocks.append(_img(f"vs-{opt}.png",
                                      plots.winrate_vs_option(rates, opt, prim, by),
                                      f"{hooks.word(game, prim)} win rate against {opt}."))
            if i == 0 and len(vary) == 2:
                grid = analysis.heat_grid(rates, vary[1], vary[0], prim)
                cs.blocks.append(_img("heatmap.png",
                                      plots.heatmap(grid, vary[1], vary[0], prim),
                                      f"{hooks.word(game, prim)} win rate over {vary[0]} × "
                                      f"{vary[1]}."))
        mc = mcomps
        if mc is not None and mc.height:
            cs.blocks.append("Changes in game length and the game's measures (difference "
                             "of means, paired t interval where games share seeds, else "
                             "Welch), each question's measures one family; a measure is "
                             f"equivalent within ±{analysis.verdicts.MEASURE_MARGIN_SD} of its "
                             "standard deviation (in its units in the verdict):")
            cs.blocks.extend(family_sentence(mc, game, "mean"))
            cs.blocks.append(Table("Differences in measures", measure_comparison_table(mc)))
        sections.append(cs)

    # summaries and the length histogram read the run folder lazily, column by column
    scan = runner.scan_games(path)
    length = analysis.length_summary(scan)
    er = analysis.end_reasons(scan)
    sections.append(Section("Game length and end reasons", [
        "Rounds and decisions per game (mean, sd, median, 95th percentile).",
        Table("Game length", _strings(length.drop("variant"))),
        _img("rounds.png", plots.distribution(scan, "rounds", "Game length",
                                              xlabel=hooks.word(game, "rounds")),
             "Distribution of game length."),
        Table("End reasons", end_reasons_table(er, game)),
    ]))
    meas = analysis.measure_summary(scan)
    if meas.height:
        ms = Section("The game's measures", [
            "Each measure the game records, per variant.",
            Table("Measures", _strings(meas.drop("variant"))),
        ])
        sections.append(ms)
    for s in extra:
        blocks: list[str | Table | Image] = list(s.paragraphs)
        blocks += [Table(t, _strings(f)) for t, f in s.tables]
        if s.title == "Scores" and seats is not None and "score" in seats.columns:
            blocks.append(_img("scores.png", plots.score_boxes(seats), "Score by seat."))
            wm = analysis.winner_margin(df, seats)
            if wm.height:
                wm = wm.join(df.select("variant", "variant_label").unique(), on="variant")
                blocks.append(_img("margin.png",
                                   plots.distribution(wm, "margin", "Winner's margin",
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
    title = f"balancelab report: {manifest.get('run_id', path.name)}"
    return Report(title, headline, warns, sections)


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


def to_markdown(report: Report) -> str:
    """The report as Markdown; figures referenced as ``<name>.png`` next to the file."""
    out = [f"# {report.title}", "", "## Answers", ""]
    out += [f"- {h}" for h in report.headline] or ["- (no games)"]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- **Warning.** {w}" for w in report.warnings]
    for s in report.sections:
        out += ["", f"## {s.title}", ""]
        for b in s.blocks:
            if isinstance(b, Table):
                out += [_md_table(b), ""]
            elif isinstance(b, Image):
                out += [f"![{b.caption}]({b.name})", ""]
            else:
                out += [b, ""]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:.85em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2} .answers li{margin:.3em 0} .warn{background:#fff4e5;border-left:4px solid
#f0a000;padding:.5em 1em;margin:.5em 0} figure{margin:1em 0} figcaption{font-size:.85em;color:#555}
img{max-width:100%}
""".strip()


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (images inline as base64, no network)."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{e(report.title)}</h1>", "<h2>Answers</h2>", '<ul class="answers">']
    out += [f"<li>{e(h)}</li>" for h in report.headline]
    out.append("</ul>")
    if report.warnings:
        out.append("<h2>Warnings</h2>")
        out += [f'<div class="warn"><strong>Warning.</strong> {e(w)}</div>'
                for w in report.warnings]
    for s in report.sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        for b in s.blocks:
            if isinstance(b, Table):
                out.append(f"<h3>{e(b.title)}</h3><table><thead><tr>"
                           + "".join(f"<th>{e(c)}</th>" for c in b.frame.columns)
                           + "</tr></thead><tbody>")
                for row in b.frame.iter_rows():
                    out.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>")
                out.append("</tbody></table>")
                if b.note:
                    out.append(f"<p>{e(b.note)}</p>")
            elif isinstance(b, Image):
                data = base64.b64encode(b.png).decode("ascii")
                out.append(f'<figure><img alt="{e(b.caption)}" '
                           f'src="data:image/png;base64,{data}">'
                           f"<figcaption>{e(b.caption)}</figcaption></figure>")
            else:
                out.append(f"<p>{e(b)}</p>")
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
    head = "\n".join(report.headline + [f"Warning: {w}" for w in report.warnings])
    return ReportPaths(head, md, page, figs)


def write_report(run_dirs: list[Path] | Path, out: Path | None = None,
                 level: float = stats.LEVEL, margin: float | None = None) -> ReportPaths:
    """Report one run (or compare several) and write it.

    Args:
        run_dirs: one run folder (a report of that run) or several (a comparison report of
            each against the first, see :func:`build_compare_report`).
        out: output folder (default ``<first run>/report`` for one run,
            ``<first run>/compare`` for several).
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
    return write(rep, out or dirs[0] / "compare")


def build_compare_report(dirs: list[Path], level: float = stats.LEVEL,
                         margin: float | None = None) -> Report:
    """A report comparing runs against the first (paired where they share seeds).

    Raises:
        RunError: a folder that is not a run. ValueError: runs of different games.
    """
    manifests = [runner.read_manifest(d) for d in dirs]
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
            f"{r['verdict']} mean {r['measure']} ({num(r['mean_a'])} → {num(r['mean_b'])})")
    for (run_b, label), what in moved.items():
        at = f" at {label}" if label != "default" and len(set(comp["label_b"])) > 1 else ""
        headline.append(f"Run {run_b} against {names[0]}{at}: {'; '.join(what)}.")
    if comp.height:
        headline.extend(family_sentence(comp, game))
        headline.append(pairing_sentence(comp))
    warns: list[str] = []
    blocks: list[str | Table | Image] = []
    for name, f in zip(names, frames, strict=True):
        rates = analysis.win_rates(f, level)
        outs = analysis.outcome_rates(f, level)
        warns += [f"{name}: {w}" for w in warnings_for(rates, outs, game)]
        blocks.append(Table(f"Win rates: {name}", rates_table(rates, game)))
    measure_blocks: list[str | Table | Image] = [
        f"Game length and the game's measures, each run against {names[0]} (difference of "
        "means, paired t interval where the runs share games, else Welch), one family:",
        Table("Differences in measures", measure_comparison_table(mc))]
    sections = [
        Section("Comparison", [
            f"Each run against {names[0]}: the difference of the side's or seat's win rate, "
            "paired on the games both runs played from the same seeds (same-seed runs of any "
            "sizes), else unpaired; the runs are one family. " + analysis.verdicts.RULE,
            *([pairing_sentence(comp)] if comp.height else []),
            Table("Differences in win rate", comparison_table(comp, game)),
            *([_img("differences.png", plots.differences(comp),
                    "Differences in win rate with 95% intervals.")] if comp.height else []),
            *(measure_blocks if mc.height else []),
        ]),
        Section("Win rates per run", blocks),
        *[Section(f"Provenance: {n}", _provenance(m, read_study(d)).blocks)
          for n, m, d in zip(names, manifests, dirs, strict=True)],
    ]
    return Report(f"balancelab comparison: {' vs '.join(names)}", headline, warns, sections)
