"""1998 ISS's finite action encoding (:mod:`balancelab.simulate.encoding`).

An engine action is a tuple whose first item is a tag (table in
:mod:`~balancelab.simulate.iss.state`); its id is the tag's block offset plus its arguments as
digits. Sorted tuples of arguments (the pads loaded, the module slots built on, the cube
sources, the decks planned, the compartment types installed, an experiment's compartment
classes) are one digit each: their rank among the multisets of that size range
(:class:`~balancelab.simulate.encoding.Multisets`).

===================  =========================================================================
tag                  digits (radices; K = ``construct_cubes`` …)
===================  =========================================================================
TRAIN, CARGO,        pad (2)
COUNTDOWN
LOAD                 the sorted pads (multisets of 1..``load_materials`` over 2 pads)
CONSTRUCT            slots (multisets of 0..K over 4), sources (multisets of 0..K+1 over 12:
                     slot 0-3, 4 + extra-action card): a seat without a cube in reserve takes
                     back one more than K
PLAN                 decks (sets of 0..``plan_draw`` of the 3 levels)
LONG_STAY, PASS      (none)
INSTALL              types (multisets of 1..``install_max`` over 5)
OUTSIDE              n - 1 (``outside_max``), new astronaut (2)
EXPERIMENT           card (experiment cards), classes (multisets of 0..most compartments on a
                     card, over 10 classes ``type*2 + mine``)
RETRIEVE             source (12)
KEEP                 mask (2 ** ``plan_draw``)
XSPACE               card (8), source + 1 (5)
GOAL                 goal + 1 (goal kinds + 1; 0 = wait for the end of the turn)
FPICK                compartment (every compartment the modules can bring)
===================  =========================================================================

The ids depend on the options and the card data only, never on the state.
"""

from __future__ import annotations

import functools
from typing import Any

from balancelab.simulate.encoding import (
    ActionEncodingError,
    Multisets,
    OpSpace,
    check_index,
    digit,
    memo_encode,
)
from balancelab.simulate.iss import rules as R
from balancelab.simulate.iss import state as E
from balancelab.simulate.iss.state import Static


class IssActionSpace:
    """The id space of one ISS variant: an :class:`OpSpace` and the multiset families."""

    def __init__(self, st: Static) -> None:
        o = st.opts
        self.load = Multisets(2, o.load_materials, min_size=1)
        self.tgts = Multisets(4, o.construct_cubes)
        self.srcs = Multisets(12, o.construct_cubes + 1)
        self.plan = Multisets(3, o.plan_draw, distinct=True)
        self.install = Multisets(5, o.install_max, min_size=1)
        self.n_exp = len(st.exp_cards)
        self.cls = Multisets(10, max(len(e.comps) for e in st.exp_cards))
        self.outside = o.outside_max
        self.n_comps = sum(len(c) for c in st.mod_comps)
        self._memo: dict[Any, int] = {}
        self.ops = OpSpace({
            R.TRAIN: (2,),
            R.LOAD: (len(self.load),),
            R.CONSTRUCT: (len(self.tgts), len(self.srcs)),
            R.PLAN: (len(self.plan),),
            R.LONG_STAY: (),
            R.INSTALL: (len(self.install),),
            R.OUTSIDE: (self.outside, 2),
            R.EXPERIMENT: (self.n_exp, len(self.cls)),
            E.CARGO: (2,),
            E.PASS: (),
            E.RETRIEVE: (12,),
            E.KEEP: (1 << o.plan_draw,),
            E.COUNTDOWN: (2,),
            E.XSPACE: (8, 5),
            E.GOAL: (len(R.GOAL_KINDS) + 1,),
            E.FPICK: (self.n_comps,),
        })

    def encode(self, action: Any) -> int:
        """The id of engine action ``action``.

        Raises:
            ActionEncodingError: not an ISS action tuple, or an argument outside the variant.
        """
        if not isinstance(action, tuple) or not action or not isinstance(action[0], int):
            raise ActionEncodingError(f"an ISS action is a tuple (tag, ...), got {action!r}")
        tag, args = action[0], action[1:]
        try:
            d = self._digits(tag, args)
        except (TypeError, ValueError) as e:
            if isinstance(e, ActionEncodingError):
                raise
            raise ActionEncodingError(f"malformed ISS action {action!r}") from None
        return self.ops.encode(tag, d)

    def encode_all(self, actions: Any) -> list[int]:
        """The ids of engine ``actions``, in order (:meth:`encode` of each, remembered: the
        ids do not depend on the state).

        Raises:
            ActionEncodingError: as :meth:`encode`.
        """
        return memo_encode(self._memo, actions, self.encode)

    def _digits(self, tag: int, a: tuple[Any, ...]) -> tuple[int, ...]:
        if tag == R.LOAD:
            return (self.load.rank(a),)
        if tag == R.CONSTRUCT:
            tgts, srcs = a
            return (self.tgts.rank(tgts), self.srcs.rank(srcs))
        if tag == R.PLAN:
            return (self.plan.rank(a),)
        if tag == R.INSTALL:
            (types,) = a
            return (self.install.rank(types),)
        if tag == R.OUTSIDE:
            n, new = a
            return (digit(n, 1, self.outside, "Outside Jobs count"), new)
        if tag == R.EXPERIMENT:
            e, cls = a
            return (e, self.cls.rank(cls))
        if tag == E.XSPACE:
            card, src = a
            return (card, src + 1)
        if tag == E.GOAL:
            (g,) = a
            return (g + 1,)
        return tuple(a)

    def decode(self, index: Any) -> tuple[Any, ...]:
        """The engine action of id ``index`` (inverse of :meth:`encode`).

        Raises:
            ActionEncodingError: ``index`` is not an id of this space.
        """
        tag, d = self.ops.decode(check_index(index))
        if tag == R.LOAD:
            return (tag, *self.load.unrank(d[0]))
        if tag == R.CONSTRUCT:
            return (tag, self.tgts.unrank(d[0]), self.srcs.unrank(d[1]))
        if tag == R.PLAN:
            return (tag, *self.plan.unrank(d[0]))
        if tag == R.INSTALL:
            return (tag, self.install.unrank(d[0]))
        if tag == R.OUTSIDE:
            return (tag, d[0] + 1, d[1])
        if tag == R.EXPERIMENT:
            return (tag, d[0], self.cls.unrank(d[1]))
        if tag == E.XSPACE:
            return (tag, d[0], d[1] - 1)
        if tag == E.GOAL:
            return (tag, d[0] - 1)
        return (tag, *d)


@functools.lru_cache(maxsize=64)
def action_space(st: Static) -> IssActionSpace:
    """The id space of a variant's tables (cached: one per variant)."""
    return IssActionSpace(st)
