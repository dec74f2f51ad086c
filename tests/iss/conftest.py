"""Fixtures for the 1998 ISS tests: built positions."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from balancelab.simulate.iss import GAME, IssOptions  # noqa: E402
from balancelab.simulate.iss.state import IssState  # noqa: E402


def make_state(players: int = 2, seed: int = 0, **opts: object) -> IssState:
    """A fresh game after setup (the first cargo check already made)."""
    o = IssOptions(players=players, **opts)  # type: ignore[arg-type]
    return GAME.new_initial_state(o, np.random.default_rng(seed))


def set_pads(s: IssState, ru: int, us: int, empty: bool = True) -> None:
    """Put shuttle cards ``ru`` and ``us`` on the pads at their start countdown."""
    for r, c in ((0, ru), (1, us)):
        old = s.pad[r]
        if old >= 0 and old != c:
            if c in s.sdeck[r]:
                s.sdeck[r].remove(c)
            elif c in s.removed[r]:
                s.removed[r].remove(c)
            s.sdeck[r].insert(0, old)
        s.pad[r] = c
        s.cd[r] = s.st.pad_start[s.st.sh_type[c]]
    if empty:
        n = s.st.np
        for k in range(2 * n):
            s.earth[k % n] += s.sha[k]
            s.sha[k] = 0
            s.shm[k] = 0


@pytest.fixture
def state2() -> IssState:
    return make_state(2)


def give_hand(s: IssState, p: int, cards: list[int]) -> None:
    """Replace player ``p``'s experiment hand, keeping every card somewhere."""
    lv = s.st.exp_level
    for e in s.hand[p]:
        s.edeck[lv[e] - 1].insert(0, e)
    s.hand[p] = []
    for e in cards:
        for h in s.hand:
            if e in h:
                h.remove(e)
        if e in s.edeck[lv[e] - 1]:
            s.edeck[lv[e] - 1].remove(e)
        s.hand[p].append(e)
