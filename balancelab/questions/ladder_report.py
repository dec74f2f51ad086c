"""The skill ladder's report: each side's ranking (the screen, the confirmation on fresh
deals, the strongest fair rung or a tie), the key verdict at the top two fair rungs, and
whether it holds (:func:`build_report`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.questions.rungs import (
    DROPPED,
    LEADER,
    NAME,
    OPEN,
    REFERENCE,
    SCREEN_ROUNDS,
    SCRIPTED,
    SETTLED,
    Ladder,
    SideRanking,
    decision_words,
    paired,
    pct_text,
    points_text,
    screen_level,
)
from balancelab.questions.study import STUDIES
from balancelab.reports import formatting, page, sentences, tables
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.simulate.core import Game


def _change_words(game: str) -> pl.Expr:
    """The comparison's change in words (``HAL's extra opening turns: −1 (easier) → 0``), as
    column ``change``."""
    return pl.struct("option", "value_a", "value_b").map_elements(
        lambda r: sentences.change_words(game, r["option"], r["value_a"], r["value_b"]),
        return_dtype=pl.String).alias("change")


def _held_fixed_words(game: str) -> pl.Expr:
    """The settings held fixed in words (``3 crew``; ``all settings`` when none), as column
    ``held fixed``."""
    return pl.col("context").map_elements(
        lambda c: W.variant(game, c) if c else "all settings",
        return_dtype=pl.String).alias("held fixed")


def verdict_rows(lad: Ladder, runs: dict[str, Path]) -> pl.DataFrame:
    """The key verdict's comparisons (win rates of every side or seat, and the study's
    measures) per verdict run, side by side, with ``agreement`` (:func:`agreement`).

    Returns:
        Columns ``change``, ``held fixed``, ``what``, then per run its verdict and
        difference, and ``agreement`` (str).
    """
    st = STUDIES[lad.study]
    focus = st.focus
    parts: list[pl.DataFrame] = []
    for name, path in runs.items():
        df = analysis.games_frame(path)
        comp = analysis.compare_variants(df).join(
            tables.adjacent_pairs(df), on=["option", "variant_a", "variant_b"], how="semi")
        if focus:
            comp = comp.filter(pl.col("option") == focus)
        win = comp.select(
            _change_words(lad.game), _held_fixed_words(lad.game),
            pl.col("contender").map_elements(lambda c: f"{hooks.word(lad.game, c)}'s win rate",
                                             return_dtype=pl.String).alias("what"),
            pl.struct("verdict", "significant").map_elements(
                lambda s: sentences.verdict_word(s["verdict"], s["significant"]),
                return_dtype=pl.String).alias(name),
            pl.struct("diff", "lo", "hi").map_elements(
                lambda s: formatting.points(s["diff"], s["lo"], s["hi"]),
                return_dtype=pl.String).alias(f"{name}: difference [95%]"),
        )
        keep = [m for m in st.measures if m in df.columns]
        if keep:
            mc = analysis.compare_measures(path, adjacent_only=True)
            mc = mc.filter(pl.col("measure").is_in(keep)
                           & (pl.col("option") == focus if focus else pl.lit(True)))
            meas = mc.select(
                _change_words(lad.game), _held_fixed_words(lad.game),
                pl.col("measure").map_elements(lambda m: f"mean {W.words(lad.game, m)}",
                                               return_dtype=pl.String).alias("what"),
                pl.struct("verdict", "significant").map_elements(
                    lambda s: sentences.verdict_word(s["verdict"], s["significant"]),
                    return_dtype=pl.String).alias(name),
                pl.struct("diff", "lo", "hi").map_elements(
                    lambda s: f"{s['diff']:+.2f} [{s['lo']:+.2f}, {s['hi']:+.2f}]",
                    return_dtype=pl.String).alias(f"{name}: difference [95%]"),
            )
            win = pl.concat([win, meas])
        parts.append(win)
    key = ["change", "held fixed", "what"]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.join(p, on=key, how="full", coalesce=True, maintain_order="left")
    names = list(runs)
    return merged.with_columns(
        pl.concat_list([pl.col(c) for c in names]).map_elements(
            agreement, return_dtype=pl.String).alias("agreement"))


#: How a comparison's verdicts at the top two rungs agree (:func:`agreement`).
SAME, DECIDED_ONCE, CHANGES = "same", "decided at one rung only", "changes"


def agreement(verdicts: Sequence[str | None]) -> str:
    """Whether one comparison's verdicts at the rungs agree: :data:`SAME` (all alike),
    :data:`DECIDED_ONCE` (inconclusive at some rungs, one decided verdict at the others:
    nothing contradicts it, more games would tell) or :data:`CHANGES` (two different decided
    verdicts, e.g. raises at one rung and lowers or equivalent at the other; a comparison
    missing at a rung also counts as a change)."""
    if any(v is None for v in verdicts):
        return CHANGES
    kinds = set(verdicts)
    if len(kinds) == 1:
        return SAME
    decided = {v for v in kinds if v != "inconclusive"}
    return DECIDED_ONCE if len(decided) == 1 else CHANGES


def _side_rows(g: str, r: SideRanking) -> list[dict[str, Any]]:
    """The rate table's rows of one side: every rung at the screen's last look, then the
    confirmation's rungs on fresh deals."""
    rows: list[dict[str, Any]] = []
    words = hooks.word(g, r.side)
    for lk in r.looks:
        k, n = sum(lk.won), len(lk.won)
        lo, hi = (float(x) for x in stats.wilson(k, n))
        d = lk.vs_leader
        rows.append({"side": words, "stage": "screen", "rung": lk.rung.name,
                     "policy": lk.rung.spec, "games": n, "wins": k, "rate": k / n, "lo": lo,
                     "hi": hi, "status": STATUS_WORDS[lk.status],
                     "diff": None if d is None else d.diff, "diff_lo": None if d is None
                     else d.lo, "diff_hi": None if d is None else d.hi,
                     "seconds_per_game": lk.cost, "cheat": lk.rung.cheat})
    c = r.confirmation
    for name, won in c.won.items():
        k, n = sum(won), len(won)
        lo, hi = (float(x) for x in stats.wilson(k, n))
        edge = paired(c.won[SCRIPTED], won) if SCRIPTED in c.won else None
        role = ("strongest" if c.strongest is not None and name == c.strongest.name
                else "kept (a tie)" if c.strongest is None and name == c.kept.name
                else "leader of the screen" if name == c.lead.name
                else "runner-up of the screen" if name == c.second.name else "scripted default")
        rows.append({"side": words, "stage": "confirmation", "rung": name,
                     "policy": next((lk.rung.spec for lk in r.looks if lk.rung.name == name),
                                    None),
                     "games": n, "wins": k, "rate": k / n, "lo": lo, "hi": hi, "status": role,
                     "diff": None if edge is None else edge.diff,
                     "diff_lo": None if edge is None else edge.lo,
                     "diff_hi": None if edge is None else edge.hi,
                     "seconds_per_game": r.cost.get(name, 0.0), "cheat": False})
    return rows


#: A screen status in words.
STATUS_WORDS = {LEADER: "leader", DROPPED: "dropped: decided below the leader",
                SETTLED: "within ±5 points of the leader", OPEN: "not decided",
                REFERENCE: "CHEAT: reference only, not ranked"}


def side_line(g: str, r: SideRanking, costs: bool = False) -> str:
    """A side's answer in one sentence: the strongest fair rung (or the tie), its edge over
    the scripted default on fresh deals, what the screen dropped, and with ``costs`` its
    core-seconds a game and the side's core-minutes (measured: the headline leaves them to
    the report's sections)."""
    c = r.confirmation
    words = hooks.word(g, r.side)
    named = c.strongest or c.kept
    won = c.won[named.name]
    k, n = sum(won), len(won)
    lo, hi = (float(x) for x in stats.wilson(k, n))
    line = f"{words[:1].upper()}{words[1:]}: {decision_words(c, r.confirm_games)}"
    line += (f"; {named.name} wins {pct_text(k / n)} [{pct_text(lo)}, {pct_text(hi)}] of them "
             "against the other side's scripted default")
    if SCRIPTED in c.won and named.name != SCRIPTED:
        e = paired(c.won[SCRIPTED], won)
        line += f", {points_text(e.diff, e.lo, e.hi)} points over the scripted rung"
    if costs:
        line += f", at {r.cost.get(named.name, 0.0):.2f} core-seconds a game"
    dropped = [lk.rung.name for lk in r.looks if lk.status == DROPPED]
    screen = f"the screen played up to {r.rounds[-1]} games a rung"
    if dropped:
        screen += f" and dropped {', '.join(dropped)}"
    if costs:
        screen += f"; {r.core_seconds / 60:.1f} core-minutes in all"
    return line + f" ({screen})."


def build_report(lad: Ladder, game: Game, ranked: dict[str, SideRanking],
                 runs: dict[str, Path], n: int, nv: int, seconds: float
                 ) -> tuple[page.Report, bool, pl.DataFrame]:
    """The ladder's report, whether the verdict is stable across the top two rungs, and the
    rate table (``ranked``: each side's ranking, :class:`SideRanking`)."""
    g = lad.game
    vt = verdict_rows(lad, runs)
    changed = vt.filter(pl.col("agreement") == CHANGES)
    once = vt.filter(pl.col("agreement") == DECIDED_ONCE)
    stable = changed.height == 0
    names = list(runs)
    rates = pl.DataFrame([row for r in ranked.values() for row in _side_rows(g, r)])
    headline = [f"Skill ladder of {game.title}: each side's rungs ranked by measurement "
                f"(a screen from {n} paired games a rung, then the top two on fresh deals), "
                f"and the key verdict — {lad.verdict} — at the top two fair rungs "
                f"({nv} game{'' if nv == 1 else 's'} per variant)."]
    headline += [side_line(g, r) for r in ranked.values()]

    def listed(rows: pl.DataFrame) -> str:
        return "; ".join(
            f"{r['change']} at {r['held fixed']}, {r['what']}: "
            + ", ".join(f"{nm.split(' (')[0]} {r[nm] or '–'}" for nm in names)
            for r in rows.iter_rows(named=True))

    if stable and once.height == 0:
        headline.append("The verdict is stable across the top two rungs: every comparison of "
                        f"{lad.verdict} reads the same with every side at its strongest and at "
                        "its second-strongest fair rung.")
    elif stable:
        headline.append(
            "The verdict is stable across the top two rungs: no comparison reads differently "
            f"where both rungs decide it; {once.height} of {vt.height} are decided at one "
            f"rung and inconclusive at the other (more games would tell): {listed(once)}.")
    else:
        headline.append(f"It changes: {listed(changed)}.")
    warns = []
    if not stable:
        warns.append(f"The verdict changes between the top two rungs in {changed.height} of "
                     f"{vt.height} comparisons: it says more about the players than the rules.")
    if rates.height and bool(rates.get_column("cheat").any()):
        warns.append("CHEAT: the oracle rung sees the true state (every hand, the deck order); "
                     "it is played for reference, never ranked.")
    def pts(s: dict[str, Any]) -> str:
        return points_text(s["diff"], s["diff_lo"], s["diff_hi"])

    def table(stage: str) -> pl.DataFrame:
        return rates.filter(pl.col("stage") == stage).select(
            "side", "rung", "policy", "games",
            pl.struct("rate", "lo", "hi").map_elements(
                lambda s: f"{pct_text(s['rate'])} [{pct_text(s['lo'])}, {pct_text(s['hi'])}]",
                return_dtype=pl.String).alias("win rate [95%]"),
            pl.struct("diff", "diff_lo", "diff_hi").map_elements(pts, return_dtype=pl.String)
            .alias("vs the leader, points" if stage == "screen"
                   else "over the scripted rung, points [95%]"),
            pl.col("status").alias("decided" if stage == "screen" else "role"),
            pl.col("seconds_per_game").map_elements(lambda x: f"{x:.2f}", return_dtype=pl.String)
            .alias("core-s a game"),
        )

    first = next(iter(ranked.values()))
    level = screen_level(sum(1 for lk in first.looks if lk.status != REFERENCE))
    vtab = vt.drop("agreement").with_columns(
        vt.get_column("agreement").replace_strict(
            {SAME: "yes", DECIDED_ONCE: "decided at one rung only", CHANGES: "NO"},
            return_dtype=pl.String).alias("same at both rungs"))
    sections = [
        page.Section("The strongest fair rung of each side", [
            "Ranked by measurement in two stages. The screen: every rung plays the same deals "
            "against the other side's scripted default; after each round the leader (the "
            "highest win rate) is compared with every rung on the deals both played, and a "
            "rung decided below it is dropped (Newcombe's paired interval at "
            f"{100 * level:.2f}%, 95% shared over the comparisons and the "
            f"{SCREEN_ROUNDS} looks); a rung within ±5 points of the leader is settled; the "
            "others play twice as many games in the next round, the cheapest first, while "
            "the side's budget of core-seconds allows. The confirmation: the leader, the "
            "runner-up and the scripted default play fresh deals (seed block 2, run seed "
            f"{first.seeds[1]}; the screen's: {first.seeds[0]}); the leader is named the "
            "strongest only when its paired lead is decided there (95%), otherwise it is a "
            "tie and the verdict runs keep the scripted default if it is one of the two, else "
            "the cheaper rung.",
            *(side_line(g, r, costs=True) for r in ranked.values()),
        ]),
        page.Section("The screen", [
            "Each rung's win rate (95% Wilson interval) on the screen's deals at its last "
            "look, its paired difference from the leader at the screen's level, and its "
            "measured core-seconds a game (the CPU time of its games: what a game costs on one "
            "core). The oracle CHEATS (it sees the true state): played in the first round for "
            "reference, never ranked. "
            + " ".join(f"{hooks.word(g, s)[:1].upper()}{hooks.word(g, s)[1:]}: rounds of "
                       f"{', '.join(map(str, r.rounds))} games, "
                       f"{r.core_seconds / 60:.1f} core-minutes, "
                       f"{r.seconds / 60:.1f} minutes of play." for s, r in ranked.items()),
            page.Table("The screen", table("screen")),
        ]),
        page.Section("The confirmation on fresh deals", [
            "The top two of the screen and the scripted default on an independent seed block: "
            "the win rate (95% Wilson) and the paired difference over the scripted rung "
            "(Newcombe, 95%).",
            page.Table("The confirmation", table("confirmation")),
        ]),
        page.Section("The key verdict at the top two fair rungs", [
            f"{lad.verdict[:1].upper()}{lad.verdict[1:]}, with every side at its "
            "second-strongest and at its strongest "
            "fair rung (verdict words as in the study reports: raises or lowers only when "
            "the change survives Holm's correction). Full reports: "
            + ", ".join(f"{p.name}/report/report.md" for p in runs.values()) + ".",
            page.Table("Verdicts", vtab),
        ]),
    ]
    headline.append(f"Played in {seconds / 60:.1f} minutes (wall time of its runs).")
    return (page.Report(f"balancelab study: {NAME} {g}", headline, warns, sections), stable,
            rates)
