"""What the 2001 policies share: Logic bitmasks and their best sequences, hand worths,
caches that outlive a game (per options), and the common set-up of every policy."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from balancelab.policies.base import Policy, RngSource
from balancelab.simulate.core import Game
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.state import (
    PAIR,
    Ctx,
    OdysseyView,
    ctx_for,
)
from balancelab.simulate.options import RuleOptions

L1: Final = C.C_LOGIC1
_POP: Final = tuple(bin(i).count("1") for i in range(256))
#: (k1, k2) of a two-card hand-limit discard argument ``PAIR + k1 * 32 + k2``
_PAIR_KINDS: Final = tuple(divmod(arg - PAIR, 32) if arg >= PAIR else (arg, arg)
                    for arg in range(PAIR + 32 * 32))


def _windows(v: OdysseyView, ctx: Ctx) -> tuple[int, ...]:
    """Lowest numbers of the Logic windows still possible (no member in the crew TRASH)."""
    gone = v.logic_trashed
    w = ctx.windows_cache.get(gone)
    if w is None:
        L = ctx.L
        w = ctx.windows_cache[gone] = tuple(
            low for low in range(1, 14 - L) if not any(gone >> (low + i) & 1 for i in range(L)))
    return w


def _logic_mask(hand: Sequence[int]) -> int:
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


def _worth(base: list[float], logic: tuple[float, ...], k: int, c: int) -> float:
    """The worth of ``c`` cards of kind ``k`` in a hand: ``base[k]`` each for a card that is
    not a Logic card; ``logic`` by Logic number - 1 for the first copy of a Logic card, and
    0.5 for each further copy (it adds nothing to a sequence)."""
    if not c:
        return 0.0
    if k < L1:
        return base[k] * c
    return logic[k - L1] + 0.5 * (c - 1)


def _hand_total(base: list[float], logic: tuple[float, ...], hand: Sequence[int],
                kinds: Sequence[int], bonus: float) -> float:
    """A hand's worth: the :func:`_worth` of each kind held, summed in increasing kind order,
    plus ``bonus``. ``kinds``: the kinds that may be held, in increasing order (the others
    count 0)."""
    total = 0.0
    for k in kinds:
        c = hand[k]
        if c:
            total += _worth(base, logic, k, c)
    if bonus:
        total += bonus
    return total


#: every crew card kind, in order (:func:`_hand_total` of any hand)
_ALL_KINDS: Final = tuple(range(C.N_CREW_KINDS))
def _take(hand: list[int], arg: int, pairs: bool, lm: int) -> tuple[int, int, int]:
    """Take a discard's cards out of ``hand`` (counts per kind): ``arg`` is one kind, or
    with ``pairs`` ``PAIR + k1 * 32 + k2``. Returns (k1, k2, the Logic mask ``lm`` of what
    is left); ``k1 == k2`` for one card."""
    if pairs:
        k1, k2 = _PAIR_KINDS[arg]
        hand[k1] -= 1
        hand[k2] -= 1
    else:
        k1 = k2 = arg
        hand[k1] -= 1
    if k1 >= L1 and not hand[k1]:
        lm &= ~(2 << (k1 - L1))
    if k2 >= L1 and not hand[k2]:
        lm &= ~(2 << (k2 - L1))
    return k1, k2, lm


def _put_back(hand: list[int], k1: int, k2: int, pairs: bool) -> None:
    """Undo :func:`_take`."""
    hand[k1] += 1
    if pairs:
        hand[k2] += 1


#: a cache that outlives one game (policies are built per game): per Ctx, the camp by the
#: closed doors (a function of the options and the board only)
_CAMP: Final[dict[Any, dict[int, int]]] = {}


#: per Ctx and the parameters a Logic card's worth depends on: :meth:`CrewTeam._logic_part`'s
#: results (a function of those and of the position's Logic facts only)
_LOGIC_PARTS: Final[dict[Any, dict[int, tuple[tuple[float, ...], float]]]] = {}


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
