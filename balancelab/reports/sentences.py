"""Reports' sentences: changes, verdicts, comparisons, families, pairing, seats, a variant's
result, and the warnings, in words (never a column name; :mod:`balancelab.reports.words`)."""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np
import polars as pl

from balancelab import analysis
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.reports.formatting import interval, level_text, margin_text, pct, points, pvalue

#: Share of games above which a side is "at the ceiling".
CEILING = 0.95
#: Share of capped games above which the report warns.
CAPPED_WARN = 0.01


def change_text(r: dict[str, Any], game: str = "") -> str:
    """What a comparison changes, in words (``all shuttles → 2 shuttles removed``); for two
    runs, what differs between them."""
    if r["option"] == "run":
        return (f"{context_words(game, r['context'])} ({r['value_a']} → {r['value_b']})"
                if r["context"] else f"{r['value_a']} → {r['value_b']}")
    return change_words(game, r["option"], r["value_a"], r["value_b"])


def change_words(game: str, option: str, a: Any, b: Any) -> str:
    """``HAL's extra opening turns: −1 (easier) → 0``; an option without words for its values:
    ``crew turns per HAL turn: 1 → 2``."""
    sa, sb = W.setting(game, option, a), W.setting(game, option, b)
    name = W.words(game, option) + ":"
    if sa.startswith(name + " ") and sb.startswith(name + " "):
        return f"{name} {sa[len(name) + 1:]} → {sb[len(name) + 1:]}"
    return f"{sa} → {sb}"

def verdict_verb(verdict: str, significant: bool | None = None) -> str:
    """The verdict itself (kept for callers of the earlier two-argument form; the verdict
    and its interval can no longer disagree, so ``significant`` is not needed)."""
    return verdict

def verdict_word(verdict: str, significant: bool | None = None, margin: float | None = None,
                 unit: str = "points") -> str:
    """A verdict as every table reports it: ``raises``, ``lowers``, ``equivalent within ±2.0
    points`` or ``inconclusive`` (:mod:`balancelab.analysis.verdicts`)."""
    if verdict == "equivalent" and margin is not None:
        return f"equivalent within {margin_text(margin, unit)}"
    return verdict

def _decide_hint(r: dict[str, Any]) -> str:
    """``about 16,000 games per setting would decide it at 80% power; it would count as
    equivalent within ±2.6 points``: an inconclusive change's plan and the smallest margin
    that would make it equivalent."""
    n = r.get("games_to_decide")
    text = (f"about {n:,} games per setting would decide it at 80% power" if n
            else "more games are needed")
    eq = r.get("equivalent_within")
    if eq is not None and not math.isnan(eq) and eq > 0:
        text += f"; it would count as equivalent within ±{100 * eq:.1f} points"
    return text

def other_whose(game: str, others: list[str | None]) -> str | None:
    """Whose change is printed beside each row's (the ``other`` column of the comparisons):
    ``HAL's`` when every row names the same side or seat, ``the other seat's`` when only
    some rows have one (seat games: the changes between two-seat settings), None when no
    row has one."""
    named = {o for o in others if o}
    if not named:
        return None
    if len(named) == 1 and all(others):
        return possessive(W.contender(game, next(iter(named))))
    return "the other seat's"


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


#: How a change read on seed blocks becomes a finding (run, study and comparison reports).
REPLICATION_RULE = (
    "Each change pooled over the blocks, each block's estimate and verdict, and Cochran's Q "
    "for their agreement; a change is a finding when the pooled games decide it and no "
    "block decides the opposite.")


def not_replicated_sentence(rows: list[dict[str, Any]], game: str, blocks: int) -> str:
    """What the report says instead of a headline a seed block contradicts: ``Does not
    replicate: HAL 0 → HAL +1 (harder) raises HAL's win rate pooled over 2 seed blocks, but
    seed 7 decides the opposite; no headline is stated (see Replication on independent seed
    blocks).``"""
    parts = []
    for r in rows:
        against = analysis.replication.OPPOSITE.get(r["verdict"], set())
        seeds = [block_label(k, s) for k, (s, v) in enumerate(
            zip(r["block_seeds"], r["block_verdicts"], strict=True), 1) if v in against]
        who = W.who(game, r["contender"], r.get("label_a") or "")
        at = f" at {W.variant(game, r['context'])}" if r.get("context") else ""
        parts.append(f"{change_words(game, r['option'], r['value_a'], r['value_b'])}{at} "
                     f"{r['verdict']} {possessive(who)} win rate pooled, but "
                     f"{and_words(seeds)} decides the opposite")
    return (f"Does not replicate on {blocks} seed blocks: " + "; ".join(parts)
            + "; no headline is stated (see Replication on independent seed blocks).")


def block_label(k: int, seed: int) -> str:
    """A seed block in words: ``seed 3`` for a seed a person chose (below a million), else
    ``block 2`` (the k-th block, 1-based), since a derived block seed is a 19-digit number
    that says nothing to a reader (its run folder records it)."""
    return f"seed {seed}" if 0 <= seed < 1_000_000 else f"block {k}"


def second_look_sentence(extensions: list[dict[str, Any]]) -> str:
    """The warning of a run extended after it had finished: ``A second look: the run was
    extended after it had finished (300 → 510 games per variant): …``."""
    steps = ", ".join(f"{e['from']:,} → {e['to']:,}" for e in extensions)
    return (f"A second look: the run was extended after it had finished ({steps} games per "
            "variant). Its intervals and verdicts are read at the second look, so their "
            "stated error rates hold only if the decision to play more did not depend on what "
            "the first look showed; a design that plans its looks is a stopping rule "
            "(--precision, --precision-diff, --decide).")


def replication_sentence(r: dict[str, Any], game: str) -> str:
    """One change read on independent seed blocks (:func:`balancelab.analysis.replicate`):
    ``Changing HAL 0 → HAL +1 (harder) raises HAL's win rate pooled over 2 seed blocks (+4.1
    points [+2.0, +6.2], 97.5% interval); seed 1: +4.5 points (raises), seed 2: +3.7 points
    (raises); the blocks agree (Cochran's Q 0.21, p 0.65): it holds.``"""
    who = W.who(game, r["contender"], r.get("label_a") or "")
    at = f"At {W.variant(game, r['context'])}, " if r.get("context") else ""
    change = change_words(game, r["option"], r["value_a"], r["value_b"])
    word = verdict_word(r["verdict"], None, r["margin"])
    each = ", ".join(f"{block_label(k, s)}: {100 * d:+.1f} points "
                     f"({verdict_word(v, None, r['margin'])})"
                     for k, (s, d, v) in enumerate(zip(r["block_seeds"], r["block_diffs"],
                                                       r["block_verdicts"], strict=True), 1))
    agree = ("the blocks agree" if r["q_p"] >= 0.05 else "the blocks disagree")
    if r["holds"]:
        tail = "it holds"
    elif r["verdict"] == "inconclusive":
        tail = "not a finding: the pooled games do not decide it"
    else:
        tail = "not a finding: a seed block decides the opposite"
    thing = f"{possessive(who)} win rate"
    verb = {"raises": f"raises {thing}", "lowers": f"lowers {thing}",
            "equivalent": f"leaves {thing} {word}"}.get(r["verdict"], f"is {word} for {thing}")
    body = (f"{verb} pooled over {r['blocks']} seed blocks "
            f"({points(r['diff'], r['lo'], r['hi'])}, {level_text(r['level_used'])} interval); "
            f"{each}; {agree} (Cochran's Q {r['q']:.2f}, p {pvalue(r['q_p'])}): {tail}.")
    return f"{at}{change} {body}" if at else f"Changing {change} {body}"


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
            text += f" of {possessive(and_words(who))} {what}"
        whose = other_whose(game, sub["other"].to_list()) if "other" in sub.columns else None
        if whose:
            dc = float(sub["draws_capped"].max() or 0.0)  # type: ignore[arg-type]
            two = "" if sub["other"].null_count() == 0 else " at two seats"
            text += (f" ({whose} change mirrors it{two}"
                     + (f", apart from draws and capped games, up to {pct(dc)} of games)"
                        if dc > 0 else " exactly: no draws or capped games)"))
        sequential = ("method" in sub.columns
                      and sub["method"][0] == analysis.verdicts.SEQUENTIAL_METHOD)
        if sequential:
            text += (", with Bonferroni's correction across them (sequential probability "
                     "ratio tests)")
        else:
            text += ", with Holm's correction and the equivalence tests across them"
        if "detectable" in sub.columns:
            det = [x for x in sub["detectable"].to_list() if x is not None
                   and not math.isnan(x)]
            if det:
                games = int(sub["n_a"].min())  # type: ignore[arg-type]
                text += (f". At {games:,} games per setting the smallest change it detects "
                         f"with 80% power is about {100 * max(det):.1f} points")
        out.append(text + ". " + analysis.verdicts.family_error_text(n, sequential=sequential))
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


def and_words(items: list[str]) -> str:
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

def warnings_for(rates: pl.DataFrame, outcomes: pl.DataFrame, game: str) -> list[str]:
    """Ceiling and capped-games warnings, in words."""
    out = []
    top = rates.filter(pl.col("rate") > CEILING)
    if top.height:
        if top.height > 3:  # the rates' range, not every variant
            whos = and_words(sorted({W.contender(game, c) for c in top["contender"]}))
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


def rounds_words(rounds: list[Any]) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{len(rounds)} round{'' if len(rounds) == 1 else 's'}"


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
                f"equivalent) by sequential probability ratio tests on the paired games, "
                f"looked at every {analysis.verdicts.DECIDE_LOOK} games "
                f"({rounds_words(rounds)}: {sizes} games). Sequential: the verdicts of the "
                "question's changes, "
                "each read at the look that decided it, with the interval at that look. "
                "Fixed-sample: every other number in this report (win rates, measures, "
                "seats, outcomes), read as if the run had been planned at its final size; "
                "their intervals are not adjusted for the stop.")
        return text + ("" if reached else " Some changes were still inconclusive at the "
                       "game limit.")
    if rule == "precision-diff":
        what = ("every change of the question had its interval (at the level Holm's "
                "correction could test it at) within")
    else:
        what = "every win rate's 95% Wilson interval was within"
    text = (f"Precision: stopped at {last['games']:,} games per variant, when {what} "
            f"±{pct(last['max_half_width'])} (target ±{pct(target)}; {rounds_words(rounds)}: "
            f"{sizes} games). The rule looks only at the intervals' widths, which hardly "
            "depend on the results, so the printed intervals keep their level (simulated "
            "coverage 94–96% for 95% intervals).")
    return text + ("" if reached else " The target was NOT reached before the game limit.")
