"""Small per-game hooks for reports: which contender the headline speaks of, what-if options
that move a game off a ceiling, and game-specific sections.

The words of every column, side and seat are the game's own (``Game.words``, looked up with
:mod:`balancelab.reports.words`). Everything else in a report is driven by the data (the
columns present in the run).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from balancelab import analysis
from balancelab.reports import words as W


@dataclass(frozen=True)
class Section:
    """A game-specific report section: a title, paragraphs and tables (name, frame); with
    ``answer`` its tables answer part of the game's key question and open the report too."""

    title: str
    paragraphs: list[str] = field(default_factory=list)
    tables: list[tuple[str, pl.DataFrame]] = field(default_factory=list)
    headline: list[str] = field(default_factory=list)
    answer: bool = False


@dataclass(frozen=True)
class GameHook:
    """What a report needs to know about one game beyond its data.

    Attributes:
        primary: the contender the headline speaks of first (None: every contender).
        what_if: options that move the game off a ceiling (used when one side wins > 95%).
        sections: functions (games frame, seats frame or None) → extra sections.
    """

    primary: str | None = None
    what_if: tuple[str, ...] = ()
    sections: tuple[Callable[[pl.DataFrame, pl.DataFrame | None], list[Section]], ...] = ()


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _obcy_equal_chances(games: pl.DataFrame, seats: pl.DataFrame | None) -> list[Section]:
    """The rulebook's claim that "the ALIENS and the expedition have equal chances of winning"."""
    if not {"expedition", "aliens"} & set(games.get_column("winner").unique().to_list()):
        return []
    d = analysis.rate_difference_within(games, "aliens", "expedition")
    lines, head, said = [], [], []
    for r in d.iter_rows(named=True):
        band = f"±{100 * r['margin']:.1f} points"
        words = {"equivalent": f"equal chances within {band}",
                 "raises": "the expedition wins more often",
                 "lowers": "the ALIENS win more often",
                 "inconclusive": f"equal chances within {band} can be neither confirmed nor "
                                 "ruled out"}[r["verdict"]]
        lv = 100 * r["level_used"]
        txt = (f"At {W.variant('obcy', r['variant_label'])}: the expedition wins "
               f"{_pct(r['rate_b'])}, the ALIENS {_pct(r['rate_a'])}; expedition minus ALIENS is "
               f"{100 * r['diff']:+.1f} points [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}] "
               f"(paired on the same games, {lv:.1f}% interval, Holm across the variants) — "
               f"{words}.")
        lines.append(txt)
        head.append(f"Equal chances? {txt}")
        said.append(words)
    rows = d.to_dicts()
    table = pl.DataFrame({
        "variant": [W.variant("obcy", r["variant_label"]) for r in rows],
        "expedition": [_pct(r["rate_b"]) for r in rows],
        "ALIENS": [_pct(r["rate_a"]) for r in rows],
        "expedition − ALIENS [interval]": [
            f"{100 * r['diff']:+.1f} points [{100 * r['lo']:+.1f}, {100 * r['hi']:+.1f}]"
            for r in rows],
        "interval level": [f"{100 * r['level_used']:.1f}%" for r in rows],
        "p (Holm)": [f"{r['p_holm']:.3f}" if r["p_holm"] >= 0.001 else "< 0.001"
                     for r in rows],
        "verdict": said,
    })
    return [Section(
        "The rulebook's claim: equal chances",
        ["The rulebook says that \"the ALIENS and the expedition have equal chances of "
         "winning\". Tested per variant as the difference between the two sides' win rates "
         "on the same games (draws and capped games count for neither): equal chances "
         "within the margin supports the claim, one side winning more often refutes it."]
        + lines,
        [("Equal chances? The expedition against the ALIENS", table)],
        head,
        answer=True,
    )]


def _seat_scores(games: pl.DataFrame, seats: pl.DataFrame | None) -> list[Section]:
    """Score distributions per seat and the winner's margin (games with a seats table)."""
    if seats is None or "score" not in seats.columns:
        return []
    summ = analysis.seat_score_summary(games, seats)
    labels = games.select("variant", "variant_label").unique()
    summ = labels.join(summ, on="variant", how="right").sort(["variant", "seat_name"])
    margin = analysis.winner_margin(games, seats)
    out_tables = [("Score per seat", summ.drop("variant"))]
    paras = []
    if margin.height:
        ms = labels.join(analysis.summarize(margin, "margin", by=["variant"]), on="variant",
                         how="right").sort("variant")
        out_tables.append(("Winner's margin over the runner-up (points)", ms.drop("variant")))
        paras.append("The margin is the winner's score minus the runner-up's (0 for a tie).")
    parts = [c for c in seats.columns if c not in
             ("run_id", "game", "game_version", "variant_label", "game_index", "seat_name",
              "policy", "seat", "variant", "score") and seats.schema[c].is_numeric()]
    if parts:
        long = pl.concat([
            analysis.summarize(seats, c, by=["variant", "variant_label"]) for c in parts
        ]).sort(["variant"], maintain_order=True)
        out_tables.append(("Score parts per seat-game (all seats)", long.drop("variant")))
    return [Section("Scores", paras, out_tables)]


HOOKS: dict[str, GameHook] = {
    "odyssey": GameHook(
        primary="hal",
        what_if=("hal_turn_every", "crew_talk"),
    ),
    "obcy": GameHook(
        primary="expedition",
        what_if=(),
        sections=(_obcy_equal_chances,),
    ),
    "iss": GameHook(primary=None, sections=(_seat_scores,)),
}


def hook_for(game: str) -> GameHook:
    """The hook of a game (a neutral one for games without a hook)."""
    return HOOKS.get(game, GameHook(sections=(_seat_scores,)))


def what_if_options(game: str) -> list[str]:
    """Options marked ``what-if`` in the game's options dataclass, or the hook's list.

    Round and turn caps (``max_*``) are left out: they stop runaway games, they do not change
    the rules.
    """
    names: list[str] = list(hook_for(game).what_if)
    try:
        from balancelab.games import get_game
        from balancelab.simulate.options import describe

        for d in describe(get_game(game).options_type):
            if (str(d["source"]).startswith("what-if") and d["name"] not in names
                    and not str(d["name"]).startswith("max_")):
                names.append(d["name"])
    except (ImportError, ValueError, AttributeError):
        pass
    return names


def word(game: str, name: str) -> str:
    """A side or seat in words (``hal`` → ``HAL``): :func:`balancelab.reports.words.contender`."""
    return W.contender(game, name)


def extra_sections(game: str, games: pl.DataFrame, seats: pl.DataFrame | None
                   ) -> list[Section]:
    """The game's own sections for a report."""
    out: list[Section] = []
    for fn in hook_for(game).sections:
        out.extend(fn(games, seats))
    return out
