"""The scripted expedition's blunders found in traces (issue 13), on built positions."""

from __future__ import annotations

import numpy as np
from helpers import build

from balancelab.policies.base import build as build_policy
from balancelab.policies.obcy import _stores_of, policy_tables
from balancelab.simulate.obcy import GAME
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy.rules import CLIP0, DISK, FLAMER, FUEL, HICKS, RIPLEY, VASQUEZ
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


def _play_turn(s: object, spec: str = "dash") -> list[object]:
    """The expedition's actions from the start of its phase to the end of its first
    character's actions (one policy, so it remembers its plan as in a game)."""
    pol = build_policy(GAME, s.opt, 0, spec, np.random.default_rng(0))  # type: ignore[attr-defined]
    done: list[object] = []
    while s.current_seat == 0:  # type: ignore[attr-defined]
        a = pol.act(s.view(0), s.legal_actions())  # type: ignore[attr-defined]
        done.append(a)
        s._apply(a)  # type: ignore[attr-defined]
        if a[0] in (A.END_ACT, A.END_PHASE):  # type: ignore[index]
            break
    return done


def test_a_last_survivor_walks_to_its_task_before_it_shoots() -> None:
    """3. Action Points ("after a character has fired ... it may no longer move"), 7., 11.:
    Vasquez, the last survivor, stood on ammunition store 1 shooting every ALIEN that came
    from hatching space 1, reloading there each phase, until the round cap (5.8% of the
    default expedition's games ended so, 58 of 1000). She must walk toward her task (a disk
    from a component store, to read a mission) and shoot from where the walk leaves her."""
    s = build({VASQUEZ: (11, 15)}, aliens=[((12, 13), 2)])
    s.c_pk[VASQUEZ] = [FLAMER, CLIP0 + 4, CLIP0 + 4]
    s._legal = None
    start = s.c_pos[VASQUEZ]
    acts = _play_turn(s)
    assert acts[0] == (A.ACT, VASQUEZ)
    assert acts[1][0] == A.MOVE, acts  # type: ignore[index]
    t = policy_tables("")
    stores = _stores_of(t, DISK)
    assert (min(t.dist[st][s.c_pos[VASQUEZ]] for st in stores)
            < min(t.dist[st][start] for st in stores))


def test_a_survivor_next_to_an_alien_still_shoots_first() -> None:
    """10. Attack by the ALIENS: an adjacent ALIEN strikes wherever she stops; she fires."""
    s = build({VASQUEZ: (11, 15)}, aliens=[((11, 14), 2)])
    s.c_pk[VASQUEZ] = [FLAMER, CLIP0 + 4, CLIP0 + 4]
    s._legal = None
    acts = _play_turn(s)
    assert acts[1][0] == A.SHOOT, acts  # type: ignore[index]


def test_the_fuel_carrier_boards_the_transporter_it_fuelled() -> None:
    """4.1, 4.2 and M08 ("the fuelled transporter ends an Expedition phase on (13,10)"):
    Ripley delivered the fuel on the landing pad, then walked off to fetch another can (her
    plan still named the fuel), and the transporter stood fuelled on the pad for the rest
    of the game: no character may enter the pad while the Queen lives unless it starts the
    transporter. She must board it."""
    s = build({RIPLEY: (1, 17), HICKS: (5, 5)})
    s.c_pk[RIPLEY] = [FUEL, -1, -1]
    s.open = [MISSION_IDS.index("M08")]
    s._legal = None
    pol = build_policy(GAME, s.opt, 0, "dash", np.random.default_rng(0))
    acts = []
    while s.current_seat == 0 and len(acts) < 8:
        a = pol.act(s.view(0), s.legal_actions())
        acts.append(a)
        s._apply(a)
        if a == (A.ACT, HICKS):
            break
    assert (A.DROP, FUEL) in acts and s.tr_fuel > 0
    assert s.c_state[RIPLEY] == A.ABOARD, acts


def test_to_reach_a_fuelled_transporter_on_the_pad_a_character_brings_fuel() -> None:
    """4.1: while the Queen lives only a character starting the transporter (carrying a
    fuel can) may enter the landing pad, so the one sent to board it fetches a can first."""
    s = build({RIPLEY: (7, 15)})
    s.tr_fuel = 2
    s.deck = []  # no mission left to read: M08 is the only task
    s.open = [MISSION_IDS.index("M08")]
    s._legal = None
    pol = build_policy(GAME, s.opt, 0, "dash", np.random.default_rng(0))
    pol.act(s.view(0), s.legal_actions())
    assert pol.tasks[RIPLEY][:2] == ("transport", FUEL)  # type: ignore[attr-defined]
