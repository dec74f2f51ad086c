"""Built positions for Obcy rule tests."""

from __future__ import annotations

import numpy as np

from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.actions import DEAD, ON_BOARD
from balancelab.simulate.obcy.rules import ObcyOptions
from balancelab.simulate.obcy.state import ST_CHAR, ObcyState


class FixedDice:
    """A stand-in Generator whose die rolls are scripted."""

    def __init__(self, rolls: list[int]) -> None:
        self.rolls = list(rolls)

    def integers(self, low: int, high: int) -> int:
        return self.rolls.pop(0)


def build(
    chars: dict[int, tuple[int, int]],
    aliens: list[tuple[tuple[int, int], int]] = (),  # type: ignore[assignment]
    active: int = -1,
    **opts: object,
) -> ObcyState:
    """A state with only the given characters (index -> (x, y)) and ALIENS ((x, y), strength)."""
    s = ObcyState(ObcyOptions(**opts), np.random.default_rng(0))  # type: ignore[arg-type]
    for c in range(6):
        if s.c_state[c] == ON_BOARD:
            s._char_out(s.c_pos[c])
        if c in chars:
            s.c_state[c] = ON_BOARD
            s.c_pos[c] = B.idx(*chars[c])
            s._char_in(s.c_pos[c])
        else:
            s.c_state[c] = DEAD
    for xy, st in aliens:
        p = B.idx(*xy)
        s.a_id.append(s.next_aid)
        s.next_aid += 1
        s.a_pos.append(p)
        s.a_str.append(st)
        s._alien_in(p)
    if active >= 0:
        s.active = active
        s.stage = ST_CHAR
    s._legal = None
    return s
