"""The skill ladder's rungs (:data:`LADDERS`: one table of rungs per game and side, and the
optional outside rung :data:`OUTSIDE`) and how a side's strongest fair rung is decided by
measurement: a screen that drops the rungs decided below the leader (:func:`screen_look`,
:func:`plan_round`), then a confirmation of the top two on fresh deals (:func:`confirm`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
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
        games: default games per rung of the screen's first round (and the least a
            confirmation plays).
        verdict_games: default games per variant of the verdict runs.
        minutes: default time budget, wall minutes on the run's workers (the screen's first
            round and the least confirmation are played whatever it is).
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
    minutes: float = 10.0


def _search_rungs(flat: str, small: str, large: str, *more: Rung) -> list[Rung]:
    """The searching rungs: ``search`` (flat Monte Carlo on paired worlds, leaving the
    scripted choice only on significant evidence, ``z=1``), ``ismcts`` at two budgets, the
    rungs ``more``, and the oracle at the large budget."""
    return [Rung("search", f"search:{flat},rollout=default,z=1"),
            Rung("ismcts small", f"ismcts:{small}"), Rung("ismcts large", f"ismcts:{large}"),
            *more, Rung("oracle (CHEAT)", f"oracle:{large}", cheat=True)]


# THE TABLE OF RUNGS, per game and side. Budgets are iterations or playouts per decision
# (never seconds); the small rung is sized for <= 2 s a game on one core (odyssey, iss) and
# <= 10 s (obcy) (measured compiled, loaded: odyssey 0.4 s, iss 0.3 s, obcy 1.0 s). The Obcy
# expedition's search rung has 16 playouts, not 32: it decides every step of every character,
# and at 32 it took 11-34 core-seconds a game. A ladder's time is its budget (`minutes`, the
# screen and the confirmation sized by the rungs' measured cost) plus its verdict runs; the
# first round (`games` a rung) is played whatever the budget, so keep it affordable: Obcy's
# 13 rungs at 8 games (measured compiled, docs/questions/skill-ladder.md).
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
                     *_search_rungs(
                         "rollouts=32,depth=12", "iterations=16,depth=12",
                         "iterations=48,depth=12",
                         # HAL's hand re-dealt by a belief over its public plays (issue 25
                         # item 2)
                         Rung("ismcts belief",
                              "ismcts:iterations=48,depth=12,bias=1,belief=hal-model"))],
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
                       # 16 scripted playouts cut at depth 10, z=1 (issue 25 item 1)
                       Rung("search fast", "search:preset=fast"),
                       *_search_rungs("rollouts=32,depth=10", "iterations=16,depth=10",
                                      "iterations=48,depth=10")],
        },
        study="iss-shuttle-removal", grid={"remove_shuttles": [False, True]},
        games=16, verdict_games=20, seat_game=True,
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
                       # hunter with the paired-worlds search deciding the hatching only
                       Rung("hunter-search", "hunter-search"),
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
    ``rollouts`` of ``search``, ``simulations`` of ``openspiel-ismcts``) multiplied by
    ``factor`` (at least 1); other specs unchanged. For quick trial runs (``--budget-scale``)."""
    from balancelab.policies.base import parse_spec

    name, params = parse_spec(spec)
    key = {"search": "rollouts", "openspiel-ismcts": "simulations"}.get(name, "iterations")
    if key not in params or factor == 1.0:
        return spec
    params[key] = max(1, round(params[key] * factor))
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


#: The outside rung (``--openspiel``): OpenSpiel's own IS-MCTS bot, seated through the adapter
#: (:class:`balancelab.interop.openspiel.OpenSpielISMCTS`), its leaves scored by the game's
#: ``evaluate``; a fair player (it sees the seat's view and re-deals the rest).
OUTSIDE = Rung("openspiel ismcts", "openspiel-ismcts:simulations=16")


def check_openspiel() -> None:
    """Refuse the outside rung without OpenSpiel.

    Raises:
        StudyError: ``pyspiel`` cannot be imported (names the extra to install).
    """
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        raise StudyError("--openspiel needs OpenSpiel: pip install 'balancelab[openspiel]'"
                         ) from None


def rungs(lad: Ladder, side: str, budget_scale: float = 1.0, outside: bool = False
          ) -> list[Rung]:
    """The filled rungs of a side (empty slots left out), budgets scaled; with ``outside``
    the outside rung (:data:`OUTSIDE`) before the cheats."""
    out = [Rung(r.name, scaled(r.spec, budget_scale), r.cheat)
           for r in lad.rungs[side] if r.spec is not None]
    if outside:
        at = next((i for i, r in enumerate(out) if r.cheat), len(out))
        assert OUTSIDE.spec is not None
        out.insert(at, Rung(OUTSIDE.name, scaled(OUTSIDE.spec, budget_scale)))
    return out


def fair_rungs(lad: Ladder, side: str, budget_scale: float = 1.0) -> list[Rung]:
    """The side's filled non-cheating rungs, in table order (weakest first)."""
    return [r for r in rungs(lad, side, budget_scale) if not r.cheat]


# -- ranking by measurement ------------------------------------------------------------------
# A side's rungs are ranked in two stages (docs/questions/skill-ladder.md):
# 1. the screen: every rung plays the same deals (seed block 1) against the other side's
#    scripted default; after each round the leader (highest win rate) is compared with every
#    other rung on their common deals, and a rung decided below it is dropped; the survivors
#    play twice as many games in the next round, the cheapest first, as long as the budget
#    of core-seconds allows (:func:`screen_look`, :func:`plan_round`);
# 2. the confirmation: the leader and the runner-up (and the scripted default, for the edge
#    over it) play FRESH deals (seed block 2, never the screen's); the leader is named the
#    strongest fair rung only when its paired lead is decided there (:func:`confirm`).

#: The screen's rounds at most: games double each round (``--games``, 2×, 4×, 8×).
SCREEN_ROUNDS = 4
#: Equivalence margin (win-rate units): a rung whose difference from the leader lies within
#: ±5 points is settled as equivalent (it plays no more screen games).
MARGIN = 0.05
#: The confirmation's confidence level (one planned two-sided test on fresh deals).
LEVEL = 0.95
#: The most games a confirmation plays per rung.
CONFIRM_MAX = 400
#: The confirmation's planned power against the screen's lead.
POWER = 0.9

#: The name of a side's scripted default rung (kept on a tie, the base of the edges).
SCRIPTED = "scripted"
#: A rung's state at the screen's last look.
LEADER, DROPPED, SETTLED, OPEN, REFERENCE = ("leader", "dropped", "equivalent", "open",
                                             "reference")


def screen_level(rungs: int) -> float:
    """The level of each of the screen's intervals: 95% shared out (Bonferroni) over the
    comparisons with the leader (``rungs - 1``) and the looks (:data:`SCREEN_ROUNDS`), so that
    a rung is dropped wrongly in at most 5% of screens."""
    return 1.0 - (1.0 - LEVEL) / (max(1, rungs - 1) * SCREEN_ROUNDS)


@dataclass(frozen=True)
class Look:
    """One rung at a look of the screen.

    Attributes:
        rung: the rung.
        status: :data:`LEADER`, :data:`DROPPED` (decided below the leader), :data:`SETTLED`
            (within ±:data:`MARGIN` of the leader), :data:`OPEN` (not decided) or
            :data:`REFERENCE` (a cheat, played for reference only).
        won: whether the side won each screen game (game index order).
        cost: core-seconds a game (measured).
        vs_leader: the rung's paired difference from the leader on their common deals, at
            the screen's level (None for the leader and a reference).
    """

    rung: Rung
    status: str
    won: tuple[bool, ...]
    cost: float
    vs_leader: stats.Difference | None = None

    @property
    def rate(self) -> float:
        return sum(self.won) / len(self.won)


def screen_look(fair: list[Rung], won: dict[str, list[bool]], cost: dict[str, float],
                dropped: set[str], level: float) -> list[Look]:
    """One look of the screen: the leader of the rungs not yet dropped and every rung's
    status against it.

    Args:
        fair: the fair rungs, in table order.
        won: rung name → outcomes so far (paired: game *i* of every rung is dealt alike; the
            rungs may have played different numbers of games: each comparison uses the deals
            both played).
        cost: rung name → core-seconds a game.
        dropped: the rungs dropped at earlier looks (they stay dropped).
        level: the intervals' level (:func:`screen_level`).

    Returns:
        A :class:`Look` per fair rung, the leader first, then the rest by win rate. The
        leader has the highest win rate of the rungs not dropped; a tie goes to a rung not
        below the scripted default in the table (never to ``random`` over the script), then
        to the cheaper rung, then to the one higher in the table.

    Raises:
        ValueError: no rung left, or a rung without outcomes.
    """
    missing = [r.name for r in fair if not won.get(r.name)]
    if missing:
        raise ValueError(f"no measured games for rung(s) {', '.join(missing)}")
    alive = [r for r in fair if r.name not in dropped]
    if not alive:
        raise ValueError("no rung left to rank")
    pos = {r.name: i for i, r in enumerate(fair)}

    def rate(r: Rung) -> float:
        return sum(won[r.name]) / len(won[r.name])

    floor = pos.get(SCRIPTED, 0)

    def order(r: Rung) -> tuple[float, bool, float, int]:
        return (-rate(r), pos[r.name] < floor, cost.get(r.name, 0.0), -pos[r.name])

    lead = min(alive, key=order)
    out = [Look(lead, LEADER, tuple(won[lead.name]), cost.get(lead.name, 0.0))]
    for r in sorted((r for r in fair if r is not lead), key=order):
        d = paired(won[lead.name], won[r.name], level)
        if r.name in dropped or d.hi < 0:
            status = DROPPED
        elif -MARGIN <= d.lo and d.hi <= MARGIN:
            status = SETTLED
        else:
            status = OPEN
        out.append(Look(r, status, tuple(won[r.name]), cost.get(r.name, 0.0), d))
    return out


def paired(base: list[bool] | tuple[bool, ...], other: list[bool] | tuple[bool, ...],
           level: float = LEVEL) -> stats.Difference:
    """``other`` − ``base`` on the deals both played (the first ``min`` games), Newcombe's
    paired interval at ``level``."""
    m = min(len(base), len(other))
    d = stats.diff_paired(list(base[:m]), list(other[:m]))
    if level == d.level:
        return d
    lo, hi = stats.interval_at(d, level)
    return replace(d, lo=lo, hi=hi, level=level)


def plan_round(looks: list[Look], budget: float) -> dict[str, int]:
    """The next round of the screen: rung name → games to have played (twice the most any
    rung has played), for the leader and the open rungs, cheapest first, while their cost
    (core-seconds a game × games to add) fits in ``budget`` core-seconds. Empty when the screen
    is over: no open rung, or the leader's games do not fit, or none besides it does."""
    target = 2 * max(len(lk.won) for lk in looks)
    lead = looks[0]
    opened = sorted((lk for lk in looks if lk.status == OPEN), key=lambda lk: lk.cost)
    if not opened:
        return {}
    left = budget - lead.cost * (target - len(lead.won))
    plan: dict[str, int] = {}
    for lk in opened:
        add = lk.cost * (target - len(lk.won))
        if add <= left:
            plan[lk.rung.name] = target
            left -= add
    if not plan or left < 0:
        return {}
    return {lead.rung.name: target, **plan}


def runner_up(looks: list[Look]) -> Look:
    """The screen's runner-up: the best rung not dropped after the leader, else the best
    dropped one (the leader's only competitor left; its own side's sole rung if alone)."""
    rest = [lk for lk in looks[1:] if lk.status != REFERENCE]
    alive = [lk for lk in rest if lk.status != DROPPED]
    return (alive or rest or looks)[0]


def confirm_games(lead: Look, second: Look, least: int, affordable: int) -> int:
    """Games of the confirmation: enough for the screen's paired lead of ``lead`` over
    ``second`` to be decided with probability :data:`POWER` (normal approximation on the
    screen's discordant pairs), at least ``least``, at most ``affordable`` and
    :data:`CONFIRM_MAX`."""
    from scipy.stats import norm

    m = min(len(lead.won), len(second.won))
    a, b = lead.won[:m], second.won[:m]
    d = (sum(a) - sum(b)) / max(1, m)
    discordant = sum(x != y for x, y in zip(a, b, strict=True)) / max(1, m)
    var = max(discordant - d * d, 0.01)
    z = float(norm.ppf(1 - (1 - LEVEL) / 2) + norm.ppf(POWER))
    need = CONFIRM_MAX if d < MARGIN / 2 else math.ceil(1.2 * z * z * var / (d * d))
    return max(least, min(need, affordable, CONFIRM_MAX))


@dataclass(frozen=True)
class Confirmation:
    """The confirmation of a side's top two on fresh deals.

    Attributes:
        lead, second: the screen's leader and runner-up.
        won: rung name → outcomes on the fresh deals (the two, and the scripted default).
        diff: ``lead`` − ``second`` on the fresh deals, 95% (Newcombe paired).
        strongest: the rung whose lead is decided (the interval excludes 0), else None (a
            tie).
        equivalent: a tie with the difference within ±:data:`MARGIN`.
        kept: the rung the verdict runs use as the strongest: ``strongest``, or on a tie the
            scripted default if it is one of the two, else the cheaper (measured core-seconds
            a game).
        other: the other of the two (the verdict's second-strongest rung).
    """

    lead: Rung
    second: Rung
    won: dict[str, list[bool]]
    diff: stats.Difference
    strongest: Rung | None
    equivalent: bool
    kept: Rung
    other: Rung


def confirm(lead: Rung, second: Rung, won: dict[str, list[bool]], cost: dict[str, float],
            scripted: Rung | None = None) -> Confirmation:
    """Decide the lead of ``lead`` over ``second`` on fresh deals (``won``: rung name →
    outcomes, paired): the strongest is named only when the paired 95% interval of their
    difference excludes 0 (either way: a runner-up decided ahead is the strongest); else it is
    a tie and the scripted default, if it is one of the two, else the cheaper of the two
    (``cost``: core-seconds a game) is kept, but only if its lead over the scripted default
    (``scripted``, when its outcomes on the same fresh deals are in ``won``) is decided there:
    a tie of two rungs neither decided above the scripted default keeps the default.

    Raises:
        ValueError: a rung without outcomes.
    """
    for r in (lead, second):
        if not won.get(r.name):
            raise ValueError(f"no measured games for rung {r.name}")
    d = paired(won[second.name], won[lead.name])
    strongest = lead if d.lo > 0 else second if d.hi < 0 else None
    if lead is second:
        strongest = lead
    if strongest is not None:
        kept = strongest
    else:
        kept = min((lead, second), key=lambda r: (r.name != SCRIPTED, cost.get(r.name, 0.0)))
        base = won.get(SCRIPTED) if scripted is not None else None
        if (base and kept.name != SCRIPTED and len(base) == len(won[kept.name])
                and paired(base, won[kept.name]).lo <= 0):
            assert scripted is not None
            kept = scripted
    other = second if kept is lead else lead
    equivalent = strongest is None and -MARGIN <= d.lo and d.hi <= MARGIN
    return Confirmation(lead, second, won, d, strongest, equivalent, kept, other)


@dataclass
class SideRanking:
    """One side's ranking: the screen's last look, its rounds, the confirmation and the time.

    Attributes:
        side: the side (1998 ISS: ``player``, the laddered seat).
        looks: the screen's last look (:func:`~balancelab.questions.rungs.screen_look`), the
            leader first, then the cheats (status ``reference``).
        rounds: the most games any rung had played after each round of the screen.
        confirmation: the top two on fresh deals.
        confirm_games: games of the confirmation per rung.
        seeds: the run seeds of the screen and of the confirmation (independent blocks).
        core_seconds: core-seconds the side's screen and confirmation played.
        seconds: their wall time.
    """

    side: str
    looks: list[Look]
    rounds: list[int]
    confirmation: Confirmation
    confirm_games: int
    seeds: tuple[int, int]
    core_seconds: float = 0.0
    seconds: float = 0.0
    cost: dict[str, float] = field(default_factory=dict)



def decision_words(c: Confirmation, games: int) -> str:
    """The confirmation's outcome in words (one sentence, no full stop)."""
    diff = points_text(c.diff.diff, c.diff.lo, c.diff.hi)
    if c.lead is c.second:
        return f"{c.lead.name} is the side's only fair rung"
    if c.strongest is not None:
        loser = c.second if c.strongest is c.lead else c.lead
        lead = points_text(-c.diff.diff, -c.diff.hi, -c.diff.lo) if c.strongest is c.second \
            else diff
        return (f"the strongest fair rung is {c.strongest.name}: its lead over {loser.name} is "
                f"decided on {games} fresh deals, {lead} points")
    kind = ("equivalent (within ±5 points)" if c.equivalent
            else "not decided (the interval reaches 0)")
    if c.kept is not c.lead and c.kept is not c.second:
        keep = (f"neither is decided above the scripted default there, so the verdict runs "
                f"keep the scripted default, {c.kept.name}")
    else:
        keep = (f"the verdict runs keep "
                f"{'the scripted default' if c.kept.name == SCRIPTED else 'the cheaper'}, "
                f"{c.kept.name}")
    return (f"a tie: {c.lead.name} against {c.second.name} on {games} fresh deals, "
            f"{diff} points, {kind}; {keep}")


def pct_text(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def points_text(d: float | None, lo: float | None, hi: float | None) -> str:
    if d is None or lo is None or hi is None:
        return "–"
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"
