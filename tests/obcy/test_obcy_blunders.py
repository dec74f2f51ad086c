"""The scripted expedition's blunders found in traces (issue 13), on built positions."""

from __future__ import annotations

import numpy as np
from helpers import build

from balancelab.policies.base import build as build_policy
from balancelab.simulate.obcy import GAME
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy.state import MISSION_IDS


def _on_track(exit_no: int, mission: str | None) -> object:
    """Hicks (character 1) at the end of the passage track after leaving by airlock
    ``exit_no``; ``mission`` open."""
    s = build({0: (5, 5)}, active=1)
    s.c_state[1] = A.TRACK
    s.c_track[1] = s.passage_len - 1
    s.c_exit[1] = exit_no
    s.c_pos[1] = -1
    if mission is not None:
        s.open = [MISSION_IDS.index(mission)]
    s._legal = None
    return s


def _act(s: object, spec: str = "dash") -> object:
    pol = build_policy(GAME, s.opt, 0, spec, np.random.default_rng(0))  # type: ignore[attr-defined]
    return pol.act(s.view(0), s.legal_actions())  # type: ignore[attr-defined]


def test_reenters_through_the_airlock_the_open_mission_names() -> None:
    """4.3 Airlocks; M11 "leaves through airlock 2 and re-enters through airlock 4". The
    character on the track had no task (the plan skips characters off the board) and always
    re-entered through airlock 5 (54 of 54 cases): no airlock task was ever completed."""
    for spec in ("dash", "squad"):
        a = _act(_on_track(2, "M11"), spec)
        assert a == (A.REENTER, 4), spec
        a = _act(_on_track(5, "M12"), spec)
        assert a == (A.REENTER, 3), spec


def test_without_an_airlock_mission_reenters_near_the_others() -> None:
    s = _on_track(2, None)
    a = _act(s)
    assert a[0] == A.REENTER  # type: ignore[index]
