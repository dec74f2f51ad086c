"""The rulebook's words for odyssey actions and rule events (for ``trace`` and errors).

The words read a state through :class:`Seen` (its public fields), so this module imports no
state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey import rules as R
from balancelab.simulate.odyssey.board import Board
from balancelab.simulate.odyssey.words import WORDS


class Tables(Protocol):
    """The per-options constants the words read (``state.Ctx``)."""

    @property
    def board(self) -> Board: ...
    @property
    def n(self) -> int: ...
    @property
    def L(self) -> int: ...  # noqa: N802 - the Ctx field's name
    @property
    def limits(self) -> Sequence[int]: ...


class Seen(Protocol):
    """The public fields the words read (an ``OdysseyState``)."""

    @property
    def ctx(self) -> Tables: ...
    @property
    def current_seat(self) -> int: ...
    @property
    def roles(self) -> Sequence[int]: ...
    @property
    def pos(self) -> Sequence[int]: ...
    @property
    def mal(self) -> Sequence[int]: ...
    @property
    def actor(self) -> int: ...
    @property
    def sequences(self) -> int: ...

    def terminated(self, k: int) -> bool: ...


#: the rulebook's names of the Discovery Board's spaces (a board file's own names otherwise)
_SPACES = {"POD_BAY": "the POD BAY", "POD": "the POD", "HAL_CORE": "THE HAL-9000 CORE",
           "GRV": "the GRV system", "MEM": "the MEM system", "COM": "the COM system",
           "LIF": "the LIF system"}


def space_name(name: str) -> str:
    """A board space in the rulebook's words: ``PICTUREPHONE_2`` → ``Picturephone 2``,
    ``HAL_CORE`` → ``THE HAL-9000 CORE``, ``POD_BAY`` → ``the POD BAY``; a board file's own
    name with its underscores as spaces."""
    if name in _SPACES:
        return _SPACES[name]
    head, _, tail = name.rpartition("_")
    if head == "PICTUREPHONE":
        return f"Picturephone {tail}"
    return name.replace("_", " ")


def seat_name(roles: Sequence[int], seat: int) -> str:
    """``HAL`` for seat 0, else the crewmember's name (``Bowman``)."""
    if seat == 0:
        return "HAL"
    return R.CREWMEMBERS[roles[seat]].capitalize()

def action_text(s: Seen, action: Any) -> str:
    """The action in the rulebook's words (``"Bowman moves to Picturephone 1"``)."""
    try:
        op, arg = divmod(int(action), 1000)
    except (TypeError, ValueError):
        return repr(action)
    names = s.ctx.board.names
    who = seat_name(s.roles, s.current_seat) if s.current_seat >= 0 else "?"
    if op == R.OP_END:
        return f"{who} ends the turn and draws {arg}"
    if op == R.OP_GIVE:
        t, k = divmod(arg, 32)
        return f"{who} gives {C.crew_card_name(k)} to {seat_name(s.roles, t)}"
    if op == R.OP_REPAIR:
        sysk, k = divmod(arg, 32)
        return f"{who} plays {C.crew_card_name(k)} at {C.SYSTEMS[sysk]}"
    if op == R.OP_OPEN:
        return f"{who} plays Manual Override: opens Door {arg}"
    if op == R.OP_CANCEL:
        return f"{who} plays Cancel on HAL's revealed {C.hal_card_name(arg)}"
    if op == R.OP_RECOVER:
        return f"{who} plays Recover"
    if op == R.OP_DISCONNECT:
        seq = "-".join(str(arg + i) for i in range(s.ctx.L))
        return f"{who} disconnects with Logic {seq}"
    if op == R.OP_ASK:
        return f"{who} asks {seat_name(s.roles, arg)} for a card"
    if op == R.OP_MOVE:
        if s.current_seat > 0 and s.pos[s.current_seat] == arg:
            return f"{who} stays on {space_name(names[arg])}"
        return f"{who} moves to {space_name(names[arg])}"
    if op == R.OP_HAL_PLAY:
        k = arg % R.REV
        where = " (revealed)" if arg >= R.REV else ""
        extra = ""
        if k <= C.H_LIF:
            after = s.mal[k] + 1
            lim = s.ctx.limits[k]
            nth = {1: "1st", 2: "2nd", 3: "3rd"}.get(after, f"{after}th")
            extra = f" ({nth}" + (f": {C.SYSTEMS[k]} terminated)" if after == lim else ")")
        return f"HAL plays {C.hal_card_name(k)}{where}{extra}"
    if op == R.OP_TARGET:
        t, k = divmod(arg, 32)
        return f"HAL targets {seat_name(s.roles, t)}, naming {C.crew_card_name(k)}"
    if op == R.OP_SCAN:
        return f"HAL scans {seat_name(s.roles, arg)}"
    if op == R.OP_REVEAL:
        return f"HAL reveals {C.hal_card_name(arg)}"
    if op == R.OP_HAL_DISCARD:
        where = " (revealed)" if arg >= R.REV else ""
        return f"HAL discards {C.hal_card_name(arg % R.REV)}{where} after the Disconnect"
    if op == R.OP_LIMIT:
        if arg >= R.PAIR:
            k1, k2 = divmod(arg - R.PAIR, 32)
            return (f"{who} discards {C.crew_card_name(k1)} and {C.crew_card_name(k2)} "
                    "(hand limit)")
        return f"{who} discards {C.crew_card_name(arg)} (hand limit)"
    if op == R.OP_SCAN_DISCARD:
        return f"{who} reveals and discards {C.crew_card_name(arg)} (Scan)"
    if op == R.OP_ASK_GIVE:
        return f"{who} gives {C.crew_card_name(arg)} to {seat_name(s.roles, s.actor)}"
    if op == R.OP_RECOVER_TAKE:
        return f"{who} takes {C.crew_card_name(arg)} from the Discard"
    return repr(action)

def event_text(s: Seen, e: tuple[Any, ...]) -> str:
    """One rule event (a tuple ``(E_code, *args)`` of ``State.log``) in words."""
    code = e[0]

    def name(seat: int) -> str:
        return seat_name(s.roles, seat)

    if code == R.E_SETUP:
        crew = ", ".join(name(t) for t in range(1, s.ctx.n + 1))
        return (f"setup: HAL draws {e[1]} cards; crewmembers {crew} each draw {e[2]}; "
                "all standees on POD BAY")
    if code == R.E_FIRST:
        return f"setup: {name(e[1])} takes the Monolith and will go first"
    if code == R.E_TURN:
        turn = f"-- {name(e[1])}'s turn"
        done, n = e[2], s.ctx.n
        if done % n:
            return turn
        rnd = f"== round {done // n + 1} (crew turns {done + 1}-{done + n})"
        return f"{rnd}\n{turn}"
    if code == R.E_HAL_TURN:
        return "-- HAL's opening turn" if e[1] == 0 else "-- HAL's turn"
    if code == R.E_NO_CARD:
        return f"{name(e[1])} has no card"
    if code == R.E_NOTHING_TO_RECOVER:
        return "nothing to recover"
    if code == R.E_HAL_NO_CARD:
        return "HAL has no card to play"
    if code == R.E_OVER:
        down = ", ".join(C.SYSTEMS[k] for k in range(4) if s.terminated(k)) or "none"
        winner, how = WORDS["winner"].values, WORDS["end_reason"].values
        won = f"{winner[e[1]]} wins" if e[1] else "nobody wins"
        return (f"== game over: {won} ({how.get(e[2], e[2])}); systems terminated: {down}; "
                f"Logic sequences disconnected: {s.sequences}")
    if code == R.E_HAL_RESHUFFLE:
        return "HAL Discard reshuffled into a new Draw pile"
    if code == R.E_CREW_RESHUFFLE:
        return "crew Discard reshuffled into a new Draw pile"
    if code == R.E_TARGET_HIT:
        return f"hit: {name(e[1])} reveals and discards {C.crew_card_name(e[2])}"
    if code == R.E_TARGET_MISS:
        return f"miss: {name(e[1])} has no {C.crew_card_name(e[2])}"
    if code == R.E_REPAIRED:
        return f"{C.SYSTEMS[e[1]]} malfunctions {e[2]} -> {e[3]}"
    if code == R.E_MARKER:
        return f"HAL Marker -> {e[1]}"
    if code == R.E_TERMINATED:
        return f"{C.SYSTEMS[e[1]]} terminated"
    if code == R.E_RESTORED:
        return (f"{C.SYSTEMS[e[1]]} is functioning again: its System Tile is flipped "
                "back to its white side")
    if code == R.E_HAL_DRAWS:
        return "HAL draws 1 card"
    return repr(e)
