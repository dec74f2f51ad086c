"""The skill ladder's report: rates per rung, the key verdict at the top two fair rungs, and
whether it holds (:func:`build_report`)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import polars as pl

from balancelab import analysis
from balancelab.questions.rungs import NAME, Ladder, Strongest, pct_text, points_text
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


def build_report(lad: Ladder, game: Game, rates: pl.DataFrame, runs: dict[str, Path], n: int,
                 nv: int, seconds: float, chosen: dict[str, Strongest]
                 ) -> tuple[page.Report, bool]:
    """The ladder's report, and whether the verdict is stable across the top two rungs
    (``chosen``: each side's fair rungs as measured, :func:`rank_fair`)."""
    g = lad.game
    vt = verdict_rows(lad, runs)
    changed = vt.filter(pl.col("agreement") == CHANGES)
    once = vt.filter(pl.col("agreement") == DECIDED_ONCE)
    stable = changed.height == 0
    names = list(runs)
    headline = [f"Skill ladder of {game.title}: each side at rising skill "
                f"({n} paired games per rung and opponent), and the key verdict — "
                f"{lad.verdict} — at the top two fair rungs ({nv} games per variant)."]
    for side in lad.rungs:
        sub = rates.filter((pl.col("side") == side)
                           & pl.col("opponent").str.starts_with("scripted default"))
        if sub.height == 0:
            continue
        best = sub.filter(pl.col("rung") == chosen[side].top.name).row(0, named=True)
        base = sub.filter(pl.col("rung") == "scripted").row(0, named=True)
        oracle = sub.filter(pl.col("cheat"))
        words = hooks.word(g, side)
        line = (f"{words[:1].upper()}{words[1:]}: scripted {pct_text(base['rate'])}; the "
                f"strongest fair rung as measured, {best['rung']}, {pct_text(best['rate'])} "
                f"[{pct_text(best['lo'])}, "
                f"{pct_text(best['hi'])}] against the other side's scripted default, "
                f"{points_text(best['gain'], best['gain_lo'], best['gain_hi'])} points over the "
                "scripted rung on the same seeds")
        if chosen[side].notes:
            line += " (" + "; ".join(chosen[side].notes) + ")"
        if oracle.height:
            o = oracle.row(0, named=True)
            line += (f"; the oracle (a cheat that sees every hand and the deck order) "
                     f"{pct_text(o['rate'])} [{pct_text(o['lo'])}, {pct_text(o['hi'])}]")
        headline.append(line + ".")
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
                     "its win rate is an upper bound, not a fair result.")
    table = rates.select(
        pl.col("side").map_elements(lambda s: hooks.word(g, s), return_dtype=pl.String)
        .alias("side"),
        "opponent", "rung", "policy", "games",
        pl.struct("rate", "lo", "hi").map_elements(
            lambda s: f"{pct_text(s['rate'])} [{pct_text(s['lo'])}, {pct_text(s['hi'])}]",
            return_dtype=pl.String).alias("win rate [95%]"),
        pl.struct("diff", "diff_lo", "diff_hi").map_elements(
            lambda s: points_text(s["diff"], s["diff_lo"], s["diff_hi"]), return_dtype=pl.String)
        .alias("vs rung below, points [95%]"),
        pl.col("seconds_per_game").map_elements(lambda x: f"{x:.2f}", return_dtype=pl.String)
        .alias("s/game (core)"),
    )
    vtab = vt.drop("agreement").with_columns(
        vt.get_column("agreement").replace_strict(
            {SAME: "yes", DECIDED_ONCE: "decided at one rung only", CHANGES: "NO"},
            return_dtype=pl.String).alias("same at both rungs"))
    sections = [
        page.Section("The strongest fair rung of each side", [
            "Each side's strongest fair (non-cheating) rung is the one with the highest "
            "measured win rate against the other side's scripted default (not the rung "
            "highest in the table: more search is not always stronger). It is the opponent "
            "of the 'strongest fair' runs, and it and the runner-up play the verdict runs.",
            *(f"{hooks.word(g, side)}: {c.why}" for side, c in chosen.items()),
        ]),
        page.Section("Win rate per rung", [
            "Each rung of each side against the other side's scripted default and against its "
            "strongest fair rung, on the same seeds; the win rate with its 95% Wilson interval "
            "and the paired difference from the rung below (Newcombe's paired score "
            "interval). The oracle rung CHEATS (it sees the true state): an upper bound. "
            "Seconds per game are core-seconds (wall time × workers / games).",
            page.Table("Win rate per rung", table),
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
    return page.Report(f"balancelab study: {NAME} {g}", headline, warns, sections), stable
