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


def _logic_worths(L: int, trashed: int, lm: int, gain: bool, a: float, b: float
                  ) -> tuple[float, ...]:
    """Per Logic number n (index n - 1): ``a + b * m``, where m is the most cards held (and n
    itself when ``gain``) in a still-possible window of ``L`` numbers through n; 0.0 when
    m is 0 or no such window remains. ``trashed`` and ``lm`` are Logic masks (bit n =
    Logic n; a window with a member trashed is no longer possible)."""
    full = (1 << L) - 1
    out: list[float] = []
    for n in range(1, 13):
        m = -1  # the most held in a possible window through n; -1: none
        low = n - L + 1 if n > L else 1
        last = n if n < 13 - L else 13 - L
        while low <= last:
            if not (trashed >> low) & full:
                held = _POP[(lm >> low) & full]
                if held > m:
                    m = held
            low += 1
        if m > 0 or (m == 0 and gain):
            if gain and not lm >> n & 1:
                m += 1  # n itself, gained (the same for every window through n)
            out.append(a + b * m)
        else:
            out.append(0.0)
    return tuple(out)


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
        #: :meth:`dists` by closed-door mask, once read from the Ctx (a list: no hashing)
        self._dists: list[tuple[tuple[int, ...], ...] | None] = [None] * 256

    def dists(self, mask: int) -> tuple[tuple[int, ...], ...]:
        """All-pairs distances with the doors of ``mask`` (bit d = door d) closed
        (:meth:`Ctx.dist_mask`)."""
        if mask >= 256:
            return self.ctx.dist_mask(mask)
        d = self._dists[mask]
        if d is None:
            d = self._dists[mask] = self.ctx.dist_mask(mask)
        return d
