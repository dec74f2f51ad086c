"""Obcy's finite action encoding (:mod:`balancelab.simulate.encoding`).

An engine action is a tuple ``(opcode, ...)`` (:mod:`~balancelab.simulate.obcy.actions`); its
id is the opcode's block offset plus its arguments as digits:

=========================  =================================================================
opcode                     digits (radices; N = spaces of the map, I = item codes)
=========================  =================================================================
T_MOVE, MOVE, CHARGE,      space (N)
RETREAT, A_MOVE
ACT, HEAL, A_TARGET        character (6)
PICK, DROP                 item (I = ``CLIP0 + clip_charges + 1``: a clip is ``CLIP0 + k``)
GIVE                       item (I), character (6)
SHOOT                      the ALIEN's place in the view's ALIEN list (``a_id``; at most
                           ``alien_token_limit``, else the 72 tokens of the box: design/obcy.md
                           3(c)21), weapon (3), shots - 1 (``action_points``)
GRENADE                    middle space (N), each end as its place among the middle's
                           neighbours, or none (most neighbours + 1, twice)
REENTER                    airlock - 1 (5)
HATCH                      strength - 1 (``alien_max_strength``), hatching space (5)
A_PICK                     the ALIEN's place in the ALIEN list, as for SHOOT
the others                 (none)
=========================  =================================================================

ALIENS are numbered by the engine as they hatch (ids grow without bound), so SHOOT and A_PICK
name an ALIEN by its place in the public list ``view.a_id`` instead: the id of an action depends
on the state only through that list, which every seat sees.
"""

from __future__ import annotations

import functools
from typing import Any

from balancelab.simulate.encoding import (
    ActionEncodingError,
    OpSpace,
    check_index,
    digit,
)
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy.board import board_of
from balancelab.simulate.obcy.rules import CLIP0, WEAPONS, ObcyOptions
from balancelab.simulate.obcy.state import ObcyView

#: ALIEN tokens in the box (design/obcy.md 3(c)21), the bound when ``alien_token_limit`` is 0.
BOX_ALIEN_TOKENS = 72
_SPACE_OPS = (A.T_MOVE, A.MOVE, A.CHARGE, A.RETREAT, A.A_MOVE)
_CHAR_OPS = (A.ACT, A.HEAL, A.A_TARGET)
#: opcodes naming an ALIEN by its place in the view's list (ids that depend on the state)
_ALIEN_OPS = (A.SHOOT, A.A_PICK)
_BARE_OPS = (A.T_STAY, A.END_PHASE, A.READ, A.BOARD, A.END_ACT, A.QUEEN, A.NO_QUEEN,
             A.HATCH_END)


class ObcyActionSpace:
    """The id space of one Obcy variant: an :class:`OpSpace` and the map's neighbour lists."""

    def __init__(self, o: ObcyOptions) -> None:
        bd = board_of(o.map_file)
        self.nbr: tuple[tuple[int, ...], ...] = tuple(bd.NBR)
        self.ends = max(len(nb) for nb in self.nbr) + 1
        self.aliens = o.alien_token_limit or BOX_ALIEN_TOKENS
        self.items = CLIP0 + o.clip_charges + 1
        self.shots = o.action_points
        self.strength = o.alien_max_strength
        radices: dict[int, tuple[int, ...]] = {}
        for op in range(1, A.A_PICK + 1):
            if op in _SPACE_OPS:
                radices[op] = (bd.N,)
            elif op in _CHAR_OPS:
                radices[op] = (6,)
            elif op in (A.PICK, A.DROP):
                radices[op] = (self.items,)
            elif op == A.GIVE:
                radices[op] = (self.items, 6)
            elif op == A.SHOOT:
                radices[op] = (self.aliens, len(WEAPONS), self.shots)
            elif op == A.GRENADE:
                radices[op] = (bd.N, self.ends, self.ends)
            elif op == A.REENTER:
                radices[op] = (5,)
            elif op == A.HATCH:
                radices[op] = (self.strength, 5)
            elif op == A.A_PICK:
                radices[op] = (self.aliens,)
            else:
                assert op in _BARE_OPS, op
                radices[op] = ()
        self.ops = OpSpace(radices)
        self._memo: dict[Any, int] = {}

    def _end(self, middle: int, end: int) -> int:
        if end == -1:
            return self.ends - 1
        try:
            return self.nbr[middle].index(end)
        except ValueError:
            raise ActionEncodingError(
                f"grenade end {end} is not a neighbour of space {middle}") from None

    def _alien(self, view: ObcyView, aid: int) -> int:
        try:
            return list(view.a_id).index(aid)
        except ValueError:
            raise ActionEncodingError(f"no ALIEN with id {aid} on the board") from None

    def encode(self, view: ObcyView, action: Any) -> int:
        """The id of engine action ``action`` in the state ``view`` was taken from.

        Raises:
            ActionEncodingError: not an Obcy action, or an argument outside the variant.
        """
        if not isinstance(action, tuple) or not action or not isinstance(action[0], int):
            raise ActionEncodingError(f"an Obcy action is a tuple (opcode, ...), got {action!r}")
        op, a = action[0], action[1:]
        d: tuple[int, ...]
        try:
            if op == A.SHOOT:
                aid, w, n = a
                d = (self._alien(view, aid), WEAPONS.index(w),
                     digit(n, 1, self.shots, "shots"))
            elif op == A.A_PICK:
                d = (self._alien(view, a[0]),)
            elif op == A.GRENADE:
                t, e1, e2 = a
                d = (t, self._end(t, e1), self._end(t, e2))
            elif op == A.REENTER:
                d = (digit(a[0], 1, 5, "airlock"),)
            elif op == A.HATCH:
                d = (digit(a[0], 1, self.strength, "ALIEN strength"), a[1])
            else:
                d = tuple(a)
        except (TypeError, ValueError, IndexError) as e:
            if isinstance(e, ActionEncodingError):
                raise
            raise ActionEncodingError(f"malformed Obcy action {action!r}") from None
        return self.ops.encode(op, d)

    def encode_all(self, view: ObcyView, actions: Any) -> list[int]:
        """The ids of engine ``actions`` in the state ``view`` was taken from, in order
        (:meth:`encode` of each; those naming no ALIEN, whose ids do not depend on the state,
        remembered).

        Raises:
            ActionEncodingError: as :meth:`encode`.
        """
        memo = self._memo
        out: list[int] = []
        for a in actions:
            i = memo.get(a)
            if i is None:
                i = self.encode(view, a)
                if type(a) is tuple and a and a[0] not in _ALIEN_OPS:
                    memo[a] = i
            out.append(i)
        return out

    def decode(self, view: ObcyView, index: Any) -> tuple[int, ...]:
        """The engine action of id ``index`` in the state ``view`` was taken from.

        Raises:
            ActionEncodingError: ``index`` is not an id of this space, or names an ALIEN
                (a neighbour) that is not there.
        """
        op, d = self.ops.decode(check_index(index))
        if op in (A.SHOOT, A.A_PICK):
            if d[0] >= len(view.a_id):
                raise ActionEncodingError(
                    f"action id {index} names ALIEN #{d[0]}; {len(view.a_id)} on the board")
            aid = view.a_id[d[0]]
            if op == A.A_PICK:
                return (op, aid)
            return (op, aid, WEAPONS[d[1]], d[2] + 1)
        if op == A.GRENADE:
            t = d[0]
            ends = []
            for e in d[1:]:
                if e == self.ends - 1:
                    ends.append(-1)
                elif e < len(self.nbr[t]):
                    ends.append(self.nbr[t][e])
                else:
                    raise ActionEncodingError(f"action id {index} names no neighbour of {t}")
            return (op, t, ends[0], ends[1])
        if op == A.REENTER:
            return (op, d[0] + 1)
        if op == A.HATCH:
            return (op, d[0] + 1, d[1])
        return (op, *d)


@functools.lru_cache(maxsize=64)
def action_space(options: ObcyOptions) -> ObcyActionSpace:
    """The id space of ``options`` (cached per options value)."""
    return ObcyActionSpace(options)
