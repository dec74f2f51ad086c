"""What the 2001 policies share: Logic bitmasks and their best sequences, hand worths,
caches that outlive a game (per options), and the common set-up of every policy."""

from __future__ import annotations

from typing import Any, Final

from balancelab.policies.base import Policy, RngSource
from balancelab.simulate.core import Game
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.state import (
    Ctx,
    OdysseyView,
    ctx_for,
)
from balancelab.simulate.options import RuleOptions

L1: Final = C.C_LOGIC1
_POP: Final = tuple(bin(i).count("1") for i in range(256))


def _windows(v: OdysseyView, ctx: Ctx) -> tuple[int, ...]:
    """Lowest numbers of the Logic windows still possible (no member in the crew TRASH)."""
    gone = v.logic_trashed
    w = ctx.windows_cache.get(gone)
    if w is None:
        L = ctx.L
        w = ctx.windows_cache[gone] = tuple(
            low for low in range(1, 14 - L) if not any(gone >> (low + i) & 1 for i in range(L)))
    return w


def _logic_mask(hand: tuple[int, ...]) -> int:
    """Bit n set when Logic n is held (a crew hand: counts per kind)."""
    m = 0
    bit = 2
    for k in range(L1, L1 + 12):
        if hand[k]:
            m |= bit
        bit <<= 1
    return m


#: _logic_best's tables by (sequence length, Logic trashed, Logic held, gain) packed in an int
_BEST: Final[dict[int, tuple[int, ...]]] = {}


def _logic_best(ctx: Ctx, trashed: int, lm: int, gain: bool) -> tuple[int, ...]:
    """Per Logic number n (index 1..12): the most cards held (counting n itself when
    ``gain``) in a still-possible window through n; 0 when no window through n remains.
    ``trashed`` and ``lm`` are Logic masks (bit n = Logic n)."""
    key = ((ctx.L * 2 + gain) << 28) | (trashed << 14) | lm
    out = _BEST.get(key)
    if out is None:
        L = ctx.L
        full = (1 << L) - 1
        # the most Logic cards held in a still-possible window through n; -1: no such window
        res = [-1] * 13
        for low in range(1, 14 - L):
            if (trashed >> low) & full:
                continue
            held = _POP[(lm >> low) & full]
            for n in range(low, low + L):
                if held > res[n]:
                    res[n] = held
        for n in range(1, 13):
            if res[n] < 0:
                res[n] = 0
            elif gain and not lm >> n & 1:
                res[n] += 1  # n itself, gained (the same for every window through n)
        res[0] = 0
        if len(_BEST) > 20_000:
            _BEST.clear()
        out = _BEST[key] = tuple(res)
    return out


def _hand_total(base: list[float], logic: tuple[float, ...], hand: list[int],
                kinds: list[int], bonus: float) -> float:
    """A hand's worth, summed in increasing kind order, plus ``bonus``: ``c`` cards of kind
    ``k`` are worth ``base[k]`` each when they are not Logic cards; ``logic`` by Logic number
    - 1 for the first copy of a Logic card, and 0.5 for each further copy (it adds nothing to
    a sequence). ``kinds``: the kinds that may be held, in increasing order (the others
    count 0)."""
    total = 0.0
    for k in kinds:
        c = hand[k]
        if c:
            if k < L1:
                total += base[k] * c
            else:
                total += logic[k - L1] + 0.5 * (c - 1)
    if bonus:
        total += bonus
    return total


class _LogicPart:
    """The Logic cards' worths for one Logic mask held (see :meth:`CrewTeam._logic_part`):
    ``vals`` by Logic number - 1, ``bonus`` (a complete allowed sequence held), and ``whole``,
    the worth of one copy of each Logic card held plus ``bonus`` (summed from ``bonus`` in
    increasing number)."""

    def __init__(self, vals: tuple[float, ...], bonus: float, lm: int) -> None:
        self.vals = vals
        self.bonus = bonus
        whole = bonus
        for n in range(1, 13):
            if lm >> n & 1:
                whole += vals[n - 1]
        self.whole = whole


#: a cache that outlives one game (policies are built per game): per Ctx, the camp by the
#: closed doors (a function of the options and the board only)
_CAMP: Final[dict[Any, dict[int, int]]] = {}


#: per Ctx and the parameters a Logic card's worth depends on: :meth:`CrewTeam._logic_part`'s
#: results (a function of those and of the position's Logic facts only)
_LOGIC_PARTS: Final[dict[Any, dict[int, _LogicPart]]] = {}


#: per Ctx and the parameters the other cards' worths depend on: :meth:`CrewTeam._base_values`'
#: lists by the position's facts they read (never mutated)
_BASE_VALUES: Final[dict[Any, dict[int, list[float]]]] = {}


def _shared(table: dict[Any, Any], key: Any) -> Any:
    d = table.get(key)
    if d is None:
        d = table[key] = {}
    return d


class _OdysseyPolicy(Policy):
    """Shared set-up: the options' constants (board, limits), computed once."""

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        ctx = self.ctx = ctx_for(self.options)  # type: ignore[arg-type]
        self.pps = ctx.picturephones
        self.full = (1 << ctx.L) - 1
        #: distances with every door open (never change)
        self.free = ctx.dist_mask(0)
