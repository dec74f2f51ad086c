"""Actions in the rulebook's words (for ``trace`` and error messages).

The words read a state through :class:`Seen` (its public fields), so this module imports no
state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy.board import Board
from balancelab.simulate.obcy.rules import CHARACTER_NAMES, item_name
from balancelab.simulate.obcy.words import WORDS


class Seen(Protocol):
    """The public fields the words read (an ``ObcyState``)."""

    @property
    def bd(self) -> Board: ...
    @property
    def active(self) -> int: ...
    @property
    def a_id(self) -> Sequence[int]: ...
    @property
    def a_str(self) -> Sequence[int]: ...
    @property
    def a_pos(self) -> Sequence[int]: ...
    @property
    def a_cur(self) -> int: ...
    @property
    def rq(self) -> Sequence[tuple[int, int, int, int]]: ...


def action_text(state: Seen, action: Any) -> str:
    """One action in words, e.g. ``HICKS fires 2 shots (carbine) at the ALIEN of strength 4``."""
    op = action[0]
    who = CHARACTER_NAMES[state.active].upper() if state.active >= 0 else ""
    if op == A.T_MOVE:
        return f"the transporter drives to {state.bd.name(action[1])}"
    if op == A.T_STAY:
        return "the transporter stays"
    if op == A.ACT:
        return f"{CHARACTER_NAMES[action[1]].upper()} takes its actions"
    if op == A.END_PHASE:
        return "the expedition ends its phase"
    if op == A.MOVE:
        return f"{who} moves to {state.bd.name(action[1])}"
    if op == A.PICK:
        return f"{who} picks up {_a(item_name(action[1]))}"
    if op == A.DROP:
        return f"{who} drops {_a(item_name(action[1]))}"
    if op == A.GIVE:
        return f"{who} passes {_a(item_name(action[1]))} to {CHARACTER_NAMES[action[2]].upper()}"
    if op == A.HEAL:
        return f"BISHOP uses a medical pack on {CHARACTER_NAMES[action[1]].upper()}"
    if op == A.READ:
        return f"{who} reads a mission from a disk in the computer"
    if op == A.CHARGE:
        return f"{who} uses an explosive charge on {state.bd.name(action[1])}"
    if op == A.SHOOT:
        _, aid, w, n = action
        s = "?"
        if aid in state.a_id:
            i = state.a_id.index(aid)
            s = f"{state.a_str[i]} at {state.bd.name(state.a_pos[i])}"
        return f"{who} fires {n} shot(s) ({item_name(w)}) at the ALIEN of strength {s}"
    if op == A.GRENADE:
        area = ", ".join(state.bd.name(s) for s in action[1:] if s >= 0)
        return f"{who} throws a grenade at {area}"
    if op == A.BOARD:
        return f"{who} climbs into the transporter"
    if op == A.END_ACT:
        return f"{who} ends its actions"
    if op == A.REENTER:
        return f"{who} enters the base through airlock {action[1]}"
    if op == A.QUEEN:
        return "the expedition declares a fight with the ALIEN QUEEN"
    if op == A.NO_QUEEN:
        return "the expedition does not fight the ALIEN QUEEN now"
    if op == A.RETREAT:  # the retreat due first (``ObcyState.rq``: 1 an ALIEN, 0 a character)
        kind, ident = state.rq[0][:2] if state.rq else (-1, -1)
        to = state.bd.name(action[1])
        if kind == 1 and ident in state.a_id:
            i = state.a_id.index(ident)
            return (f"the ALIEN of strength {state.a_str[i]} retreats from "
                    f"{state.bd.name(state.a_pos[i])} to {to}")
        if kind == 0:
            return f"{CHARACTER_NAMES[ident].upper()} retreats to {to}"
        return f"retreat to {to}"
    if op == A.HATCH:
        return f"an ALIEN of strength {action[1]} hatches on hatching space {action[2] + 1}"
    if op == A.HATCH_END:
        return "no more ALIENS hatch this phase"
    if op == A.A_MOVE:
        if state.a_cur in state.a_id:
            i = state.a_id.index(state.a_cur)
            return (f"the ALIEN of strength {state.a_str[i]} at {state.bd.name(state.a_pos[i])} "
                    f"moves to {state.bd.name(action[1])}")
        return f"the ALIEN moves to {state.bd.name(action[1])}"
    if op == A.A_PICK:
        aid = action[1]
        if aid in state.a_id:
            i = state.a_id.index(aid)
            return (f"the ALIEN of strength {state.a_str[i]} at {state.bd.name(state.a_pos[i])} "
                    "moves next")
        return "an ALIEN moves next"
    if op == A.A_TARGET:
        return f"the ALIEN attacks {CHARACTER_NAMES[action[1]].upper()}"
    return repr(action)


def ending(reason: str) -> str:
    """How a game ended, as the reports say it (``expedition_wiped_out`` → ``the expedition
    was wiped out``; 11. End of the Game)."""
    return WORDS["end_reason"].values.get(reason, reason.replace("_", " "))


def _a(name: str) -> str:
    """``a`` or ``an`` before an item's name."""
    return ("an " if name[:1] in "aeiou" else "a ") + name
