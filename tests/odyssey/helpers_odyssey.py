"""Built positions for the odyssey tests."""

from __future__ import annotations

import numpy as np

from balancelab.simulate.odyssey import OdysseyOptions, OdysseyState
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.state import T_CREW_TURN, T_HAL_PLAY


def fresh(roster: str = "bowman,poole,hunter", seed: int = 0, **kw: object) -> OdysseyState:
    """A game after setup with a fixed roster and nothing in any hand or on the board."""
    names = roster.split(",")
    o = OdysseyOptions(crew=len(names), crew_members=roster, **kw)  # type: ignore[arg-type]
    s = OdysseyState.new(o, np.random.default_rng(seed))
    # return every card to its draw pile: an empty, quiet board
    for seat in range(1, len(names) + 1):
        for k, c in enumerate(s.hands[seat]):
            s.crew_draw.extend([k] * c)
            s.hands[seat][k] = 0
        s.hand_n[seat] = 0
    s.crew_draw += s.crew_disc + s.crew_trash
    s.crew_disc, s.crew_trash = [], []
    hal = s.hal_draw + s.hal_disc + s.hal_trash + s.hal_rev
    for k, c in enumerate(s.hal_hidden):
        hal += [k] * c
    for k in range(4):
        hal += [k] * s.mal[k]
    s.hal_draw, s.hal_disc, s.hal_trash, s.hal_rev = hal, [], [], []
    s.hal_hidden = [0] * C.N_HAL_KINDS
    s.hand_n[0] = 0  # HAL's hand
    s.mal = [0, 0, 0, 0]
    s.doors = [0] * 8
    s.closed_mask = 0
    s.pos = [-1] + [s.ctx.start] * len(names)
    return s


def give_hand(s: OdysseyState, seat: int, kinds: list[int]) -> None:
    """Move these crew cards from the draw pile into the seat's hand."""
    for k in kinds:
        s.crew_draw.remove(k)
        s.hands[seat][k] += 1
        s.hand_n[seat] += 1


def give_hal(s: OdysseyState, hidden: list[int], revealed: list[int]) -> None:
    for k in hidden:
        s.hal_draw.remove(k)
        s.hal_hidden[k] += 1
    for k in revealed:
        s.hal_draw.remove(k)
        s.hal_rev.append(k)
    s.hal_rev.sort()  # the state keeps the revealed row sorted
    s.hand_n[0] += len(hidden) + len(revealed)


def put_malfunctions(s: OdysseyState, system: int, n: int) -> None:
    for _ in range(n):
        s.hal_draw.remove(system)
        s.mal[system] += 1


def close_door(s: OdysseyState, d: int) -> None:
    s.hal_draw.remove(C.hal_door(d))
    s.hal_trash.append(C.hal_door(d))
    s.doors[d] = 1
    s.closed_mask |= 1 << d


def start_crew_turn(s: OdysseyState, seat: int) -> None:
    """Make it the start of ``seat``'s turn (its MOVE decision)."""
    s.terminal = False
    s.stack = [(T_CREW_TURN, seat)]
    s._run()


def start_hal_turn(s: OdysseyState) -> None:
    s.stack = [(T_CREW_TURN, 1), (T_HAL_PLAY, 0)]
    s._run()


def census_ok(s: OdysseyState) -> bool:
    crew, hal = s.card_census()
    return sorted(crew) == sorted(C_counts(s.ctx.crew_deck, C.N_CREW_KINDS)) and \
        crew == C_counts(s.ctx.crew_deck, C.N_CREW_KINDS) and \
        hal == C_counts(s.ctx.hal_deck, C.N_HAL_KINDS)


def C_counts(kinds: list[int], n: int) -> list[int]:
    out = [0] * n
    for k in kinds:
        out[k] += 1
    return out
