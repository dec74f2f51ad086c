"""The skill ladder's rungs (:data:`LADDERS`: one table of rungs per game and side) and how a
side's strongest fair rung is chosen from measured win rates (:func:`rank_fair`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from balancelab.analysis import stats
from balancelab.questions.inputs import StudyError

#: The study's name on the command line.
NAME = "skill-ladder"


@dataclass(frozen=True)
class Rung:
    """One rung of a side's ladder.

    Attributes:
        name: the rung's name in reports (``scripted``, ``ismcts small``…).
        spec: the policy spec, or None for an empty slot (skipped).
        cheat: True for a policy that sees the true state (``oracle``).
    """

    name: str
    spec: str | None
    cheat: bool = False


@dataclass(frozen=True)
class Ladder:
    """A game's ladder: its rungs per side, its setting, its key verdict and default sizes.

    Attributes:
        game: game name.
        rungs: side → rungs, weakest first (THE table: edit it here).
        study: the study (:data:`balancelab.questions.study.STUDIES`) whose verdict is recomputed.
        grid: the verdict's grid of options (the study's, or the part the ladder can afford).
        base: rule options of every ladder game (the game's default setting unless named).
        games: default games per rung and opponent.
        verdict_games: default games per variant of the verdict runs.
        seat_game: True where all seats are one side (1998 ISS): a rung plays one seat.
        verdict: the key verdict in words.
    """

    game: str
    rungs: dict[str, list[Rung]]
    study: str
    grid: dict[str, list[Any]]
    games: int
    verdict_games: int
    verdict: str
    base: dict[str, Any] = field(default_factory=dict)
    seat_game: bool = False


def _search_rungs(flat: str, small: str, large: str) -> list[Rung]:
    """The searching rungs: ``search`` (flat Monte Carlo on paired worlds, leaving the
    scripted choice only on significant evidence, ``z=1``), ``ismcts`` at two budgets, and the
    oracle at the large one."""
    return [Rung("search", f"search:{flat},rollout=default,z=1"),
            Rung("ismcts small", f"ismcts:{small}"), Rung("ismcts large", f"ismcts:{large}"),
            Rung("oracle (CHEAT)", f"oracle:{large}", cheat=True)]


# THE TABLE OF RUNGS, per game and side. Budgets are iterations or playouts per decision
# (never seconds); the small rung is sized for <= 2 s a game on one core (odyssey, iss) and
# <= 10 s (obcy) (measured compiled, loaded: odyssey 0.4 s, iss 0.3 s, obcy 1.0 s). The Obcy
# expedition's search rung has 16 playouts, not 32: it decides every step of every character,
# and at 32 it took 11-34 core-seconds a game, which made the Obcy ladder 13.1 minutes (it is
# played in the runs against the strongest rung and in the verdict runs too). Default sizes
# (measured compiled, rules odyssey 3, iss 1.1, obcy 6, load 1.5-2.5): odyssey 2.7, iss 3.9
# and obcy 8.5 minutes on 2 cores.
# The tuned rung: `balancelab tune` (issue 13, section 1) found sets that beat the hand-set
# numbers for HAL (`hal_turn_every=2`), the Obcy expedition and (rules version 6) the Obcy
# ALIENS, and these became the defaults
# (`preset=classic` keeps the hand-set ones), so the "scripted" rung of those sides is the
# tuned player; no tuned set beat the 2001 crew's or the ISS player's defaults at the default
# setting. A `Rung("tuned", None)` is skipped; put a preset's spec there when one beats its
# side's default (`balancelab.policies.presets.tuned_spec`).
LADDERS: dict[str, Ladder] = {
    "odyssey": Ladder(
        "odyssey",
        {
            "hal": [Rung("random", "random"), Rung("scripted", "hal-pressure"),
                    Rung("tuned", None),  # the default is the tuned set
                    *_search_rungs("rollouts=32,depth=12", "iterations=16,depth=12",
                                    "iterations=48,depth=12")],
            "crew": [Rung("random", "random"), Rung("scripted", "crew-team"),
                     Rung("tuned", None),  # no tuned set beats the default
                     *_search_rungs("rollouts=32,depth=12", "iterations=16,depth=12",
                                    "iterations=48,depth=12")],
        },
        study="hal-difficulty", grid={"crew": [2, 3, 4], "hal_extra_turns": [-1, 0, 1]},
        games=16, verdict_games=4,
        verdict="the effect of each HAL difficulty step (extra opening turns) at 2, 3 and 4 crew",
    ),
    "iss": Ladder(
        "iss",
        {
            "player": [Rung("random", "random"), Rung("scripted", "builder"),
                       Rung("tuned", None),  # no tuned set beats the default
                       *_search_rungs("rollouts=32,depth=10", "iterations=16,depth=10",
                                      "iterations=48,depth=10")],
        },
        study="iss-shuttle-removal", grid={"remove_shuttles": [False, True]},
        games=30, verdict_games=20, seat_game=True,
        verdict="the effect of returning two shuttles to the box (Setup 7) on game "
        "length and on the seats' win rates, at 2 players",
    ),
    "obcy": Ladder(
        "obcy",
        {
            "expedition": [Rung("random", "random"), Rung("scripted", "dash"),
                           Rung("tuned", None),  # the default is the tuned set
                           *_search_rungs("rollouts=16,depth=8", "iterations=6,depth=8",
                                          "iterations=16,depth=8")],
            "aliens": [Rung("random", "random"), Rung("scripted", "hunter"),
                       Rung("tuned", None),  # the default is the tuned set (version 6)
                       *_search_rungs("rollouts=32,depth=8", "iterations=6,depth=8",
                                          "iterations=16,depth=8")],
        },
        study="queen-variants", grid={"queen_variant": ["roll", "tasks"]},
        games=8, verdict_games=6,
        verdict="Variant 1 (the Queen's die roll) against Variant 2 (3 tasks)",
    ),
}


def check_game(game: str | None) -> Ladder:
    """The ladder of the game named ``game`` (the name as given on the command line).

    Raises:
        StudyError: no game named, or a game without a ladder (names the valid ones).
    """
    valid = ", ".join(sorted(LADDERS))
    if not game:
        raise StudyError(f"study {NAME} needs a game: balancelab study {NAME} GAME "
                         f"(one of {valid})")
    if game not in LADDERS:
        raise StudyError(f"no skill ladder for game {game!r}; valid: {valid}")
    return LADDERS[game]


def scaled(spec: str, factor: float) -> str:
    """``spec`` with its search budget (``iterations`` of ``ismcts`` and ``oracle``,
    ``rollouts`` of ``search``) multiplied by ``factor`` (at least 1); other specs unchanged.
    For quick trial runs (``--budget-scale``)."""
    from balancelab.policies.base import parse_spec

    name, params = parse_spec(spec)
    key = "rollouts" if name == "search" else "iterations"
    if key not in params or factor == 1.0:
        return spec
    params[key] = max(1, round(params[key] * factor))
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def rungs(lad: Ladder, side: str, budget_scale: float = 1.0) -> list[Rung]:
    """The filled rungs of a side (empty slots left out), budgets scaled."""
    return [Rung(r.name, scaled(r.spec, budget_scale), r.cheat)
            for r in lad.rungs[side] if r.spec is not None]


def fair_rungs(lad: Ladder, side: str, budget_scale: float = 1.0) -> list[Rung]:
    """The side's filled non-cheating rungs, in table order (weakest first)."""
    return [r for r in rungs(lad, side, budget_scale) if not r.cheat]


@dataclass(frozen=True)
class Strongest:
    """A side's fair rungs ranked by their measured win rate against the other side's
    scripted default (:func:`rank_fair`), and why the first is the strongest.

    Attributes:
        order: the fair rungs, strongest measured first (equal rates: the higher table
            position first).
        why: one sentence naming the chosen rung, its win rate, the rungs it is not clearly
            stronger than (paired interval including 0) and any tie.
        notes: the clauses of ``why`` after the first (ties, overlaps, the table's top fair
            rung when another was chosen); empty when the choice is clear.
    """

    order: list[Rung]
    why: str
    notes: tuple[str, ...] = ()

    @property
    def top(self) -> Rung:
        return self.order[0]

    @property
    def second(self) -> Rung:
        """The second-strongest fair rung (the strongest when the side has one)."""
        return self.order[min(1, len(self.order) - 1)]


def rank_fair(fair: list[Rung], won: dict[str, list[bool]], *, against: str = "the other "
              "side's scripted default") -> Strongest:
    """Rank fair rungs by their measured win rate (``won``: rung name → per-game outcomes on
    the same seeds), not by their place in the table.

    Args:
        fair: the rungs, in table order (weakest first); each must be in ``won``.
        won: rung name → whether the side won each game (paired: game *i* of every rung is
            dealt alike).
        against: the opponent, in words (for ``why``).

    Returns:
        The ranking, the strongest first; an exact tie goes to the higher table position
        (and ``why`` says so). ``why`` also names every rung whose paired difference from the
        chosen one has a 95% interval that reaches 0 (the measurement cannot tell them apart).

    Raises:
        ValueError: no rungs, or a rung without outcomes.
    """
    if not fair:
        raise ValueError("no fair rungs to rank")
    missing = [r.name for r in fair if not won.get(r.name)]
    if missing:
        raise ValueError(f"no measured games for rung(s) {', '.join(missing)}")
    rate = {r.name: sum(won[r.name]) / len(won[r.name]) for r in fair}
    pos = {r.name: i for i, r in enumerate(fair)}
    order = sorted(fair, key=lambda r: (-rate[r.name], -pos[r.name]))
    top = order[0]
    k, n = sum(won[top.name]), len(won[top.name])
    lo, hi = (float(x) for x in stats.wilson(k, n))
    why = (f"{top.name} ({top.spec}), the highest measured win rate of the fair rungs "
           f"against {against}: {pct_text(rate[top.name])} [{pct_text(lo)}, {pct_text(hi)}] "
           f"({k} of {n} games)")
    notes: list[str] = []
    ties = [r.name for r in order[1:] if rate[r.name] == rate[top.name]]
    if ties:
        notes.append(f"tied with {', '.join(ties)} (the tie goes to the rung higher in the "
                     "table)")
    close = []
    for r in order[1:]:
        if r.name in ties:
            continue
        d = stats.diff_paired(won[r.name], won[top.name])
        if d.lo <= 0.0:
            close.append(f"{r.name} (a lead of {points_text(d.diff, d.lo, d.hi)} points)")
    if close:
        notes.append("not clearly stronger than " + ", ".join(close)
                     + ": the paired 95% interval reaches 0")
    if top is not fair[-1]:
        notes.append(f"the table's top fair rung, {fair[-1].name}, measured "
                     f"{pct_text(rate[fair[-1].name])}")
    return Strongest(order, "; ".join([why, *notes]) + ".", tuple(notes))


def pct_text(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def points_text(d: float | None, lo: float | None, hi: float | None) -> str:
    if d is None or lo is None or hi is None:
        return "–"
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
