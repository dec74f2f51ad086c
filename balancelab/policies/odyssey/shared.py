"""What the 2001 policies share: Logic bitmasks and their windows, caches that outlive a
game (per options), and the common set-up of every policy (crew-team's card and hand
worths: :mod:`balancelab.policies.odyssey.discards`)."""

from __future__ import annotations

from typing import Any, Final

from mypy_extensions import i64

from balancelab.policies.base import Policy, RngSource
from balancelab.simulate.core import Game
from balancelab.simulate.odyssey.cards import C_LOGIC1 as L1  # (a literal: inlined compiled)
from balancelab.simulate.odyssey.state import (
    Ctx,
    OdysseyView,
    ctx_for,
)
from balancelab.simulate.options import RuleOptions


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
    m: i64 = 0  # (machine integers compiled: no tagged-int checks at each shift)
    bit: i64 = 2
    for k in range(L1, L1 + 12):
        if hand[k]:
            m |= bit
        bit <<= 1
    return m


def _occupied(pos: tuple[int, ...], space: int) -> bool:
    """Whether a seat stands on ``space`` (``pos``: space per seat; ``space in pos`` without
    boxing ``space`` for a generic containment test)."""
    for p in pos:
        if p == space:
            return True
    return False


#: a cache that outlives one game (policies are built per game): per Ctx, the camp by
#: closed-door mask below 256, -1 until computed (a function of the options and the board
#: only; a list: no hashing)
_CAMP: Final[dict[Any, list[int]]] = {}


#: per Ctx: :meth:`_OdysseyPolicy.dists` by closed-door mask below 256 (None: not read yet)
_DISTS: Final[dict[Any, list[tuple[tuple[int, ...], ...] | None]]] = {}


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
        #: :meth:`dists` by closed-door mask, once read from the Ctx (a list: no hashing);
        #: shared by the policies of these options (an ISMCTS iteration makes four)
        dists = _DISTS.get(ctx)
        if dists is None:
            dists = _DISTS[ctx] = [None] * 256
        self._dists = dists

    def dists(self, mask: int) -> tuple[tuple[int, ...], ...]:
        """All-pairs distances with the doors of ``mask`` (bit d = door d) closed
        (:meth:`Ctx.dist_mask`)."""
        if mask >= 256:
            return self.ctx.dist_mask(mask)
        d = self._dists[mask]
        if d is None:
            d = self._dists[mask] = self.ctx.dist_mask(mask)
        return d
