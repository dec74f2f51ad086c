"""Every worked example of the 1998 ISS rulebook, on a built position."""

from __future__ import annotations

from conftest import give_hand, make_state, set_pads
from iss_helpers import check_conservation

from balancelab.simulate.iss.rules import (
    COMM,
    EXPERIMENT,
    LAB,
    LS,
    OUTSIDE,
    PLAN,
    SW,
    TRAIN,
)
from balancelab.simulate.iss.state import (
    COUNTDOWN,
    KEEP,
    P_ACTION,
    P_CARGO,
    P_COUNTDOWN,
    P_KEEP,
    P_XSPACE,
    XSPACE,
)

SOYUZ, PROGRESS, ENDEAVOUR, DISCOVERY = 0, 3, 6, 10
E17 = 16
JEM_EF = 9


def _comp(s, t, free=True):  # type: ignore[no-untyped-def]
    """First uncovered compartment of type t (free or not)."""
    for c in range(len(s.ctype)):
        if s.ctype[c] == t and not s.ccover[c] and (not free or s.cocc[c] == -1):
            return c
    raise AssertionError("no such compartment")


def _dock(s, module):  # type: ignore[no-untyped-def]
    """Dock a module from the column/deck, uncovered."""
    if module in s.col:
        i = s.col.index(module)
        s.col[i] = s.mdeck.pop()
    else:
        s.mdeck.remove(module)
    s._dock(module, covered=False)


def test_first_turn_cargo_check_goes_onto_the_discovery_not_the_soyuz() -> None:
    # Player Turn 1 example: both shuttles empty; the Soyuz cannot take materials.
    s = make_state(2, seed=3)
    set_pads(s, SOYUZ, DISCOVERY)
    s.phase = P_CARGO
    s.turn_player = 0
    s._advance()  # one legal place: applied without asking
    n = s.st.np
    assert s.shm[1 * n + 0] == 1
    assert s.shm[0 * n + 0] == 0
    assert s.phase == P_ACTION
    check_conservation(s)


def test_no_cargo_check_when_a_shuttle_holds_something() -> None:
    s = make_state(2, seed=3)
    set_pads(s, SOYUZ, DISCOVERY)
    s.sha[0 * 2 + 1] = 1
    s.earth[1] -= 1
    s.phase = P_CARGO
    s._advance()
    assert s.shm == [0, 0, 0, 0]


def test_plan_experiments_lowers_the_russian_countdown_by_2() -> None:
    s = make_state(2, seed=4)
    set_pads(s, SOYUZ, DISCOVERY)
    n = 2
    s.sha[0 * n + 0] = 1  # an astronaut on the Soyuz: its countdown may be lowered
    s.earth[0] -= 1
    s.shm[1 * n + 1] = 1
    s.phase = P_ACTION
    s.turn_player = 0
    s._legal = None
    start = s.cd[0]
    plan = next(a for a in s.legal_actions() if a[0] == PLAN)
    s.apply(plan)
    assert s.phase == P_KEEP and len(s.drawn) == 2
    s.apply((KEEP, 1))
    assert s.phase == P_COUNTDOWN
    assert set(s.legal_actions()) == {(COUNTDOWN, 0), (COUNTDOWN, 1)}
    s.apply((COUNTDOWN, 0))
    assert s.cd[0] == start - 2
    assert len(s.hand[0]) == 3
    check_conservation(s)


def test_countdown_only_on_a_loaded_shuttle() -> None:
    s = make_state(2, seed=4)
    set_pads(s, SOYUZ, DISCOVERY)
    s.shm[1 * 2 + 1] = 1
    s.phase = P_ACTION
    s.turn_player = 0
    s._legal = None
    s.apply((TRAIN, 0))  # the Soyuz gets an astronaut: both pads loaded now
    assert s.phase == P_COUNTDOWN
    s.apply((COUNTDOWN, 0))
    assert s.cd[0] == s.st.pad_start[0] - 1


def test_outside_jobs_converts_two_iss_materials() -> None:
    s = make_state(2, seed=5)
    s.turn_player = 1
    s.iss[1], s.ext[1] = 4, 1
    s.phase = P_ACTION
    s._legal = None
    legal = s.legal_actions()
    assert (OUTSIDE, 3, 1) in legal and (OUTSIDE, 4, 1) not in legal
    s.apply((OUTSIDE, 2, 1))
    assert (s.iss[1], s.ext[1]) == (2, 3)
    crane = [c for c in range(len(s.ctype)) if s.cocc[c] == 1]
    assert len(crane) == 1 and s.ctype[crane[0]] == 3
    assert s.unity[1] == 0
    check_conservation(s)


def test_experiment_example_three_short_term_tasks() -> None:
    # Orange: 1 external material; short-term tasks in space walk, communication and long stay
    # using the 3 astronauts on the ISS (one already in communication, one in a laboratory).
    s = make_state(2, seed=6)
    _dock(s, 3)  # Quest: SW, SW
    _dock(s, 5)  # Harmony: LS, COMM
    p = 0
    s.turn_player = p
    s.tok[1] += sum(s.ccover)  # the Destiny tokens were installed earlier by the other player
    s.ccover = [0] * len(s.ccover)
    lab, comm = _comp(s, LAB), _comp(s, COMM)
    s.earth[p] -= 2
    s.cocc[lab] = p
    s.cocc[comm] = p
    give_hand(s, p, [E17])
    s.ext[p] = 1
    s.phase = P_ACTION
    s._legal = None
    act = (EXPERIMENT, E17, tuple(sorted((SW * 2, COMM * 2 + 1, LS * 2))))
    assert act in s.legal_actions()
    s.apply(act)
    assert s.ext[p] == 0
    assert s.unity[p] == 3
    assert p not in s.cocc
    assert s.done[p] == [E17]
    assert s.hand[p] == []
    check_conservation(s)


def test_experiment_not_possible_without_free_compartment_or_material() -> None:
    s = make_state(2, seed=6)
    p = 0
    s.turn_player = p
    give_hand(s, p, [E17])
    s.ext[p] = 1
    assert s.exp_options(p, E17) == []  # no SW or COMM docked; one astronaut only


def test_endeavour_launch_caps_the_iss_track_at_8() -> None:
    s = make_state(2, seed=7)
    set_pads(s, SOYUZ, ENDEAVOUR)
    n = 2
    orange = 1
    s.iss[orange] = 6
    s.shm[1 * n + orange] = 3
    s.sha[0 * n + 0] = 1  # the Soyuz is loaded: no cargo check next turn
    s.earth[0] -= 1
    s.cd[0] = 9
    s.turn_player = 0
    s.cd[1] = 1
    s.cur_action = TRAIN
    s.phase = P_COUNTDOWN
    s._advance()
    s.apply((COUNTDOWN, 1))
    assert s.iss[orange] == 8
    assert s.shm[1 * n + orange] == 0
    assert s.owned[0] == [ENDEAVOUR]
    assert s.launches == [0, 1]
    check_conservation(s)


def test_soyuz_inspection_tie_gives_two_extra_actions() -> None:
    # Orange collects 3 cubes, Blue 2, White 3: Orange and White both win an extra action.
    s = make_state(3, seed=8)
    blue, orange, white = 0, 1, 2
    set_pads(s, SOYUZ, DISCOVERY)
    n = 3
    s.colc = [0] * (4 * n)
    s.res = [8, 8, 8]
    for slot in range(3):
        for q in (orange, white):
            s.colc[slot * n + q] = 2
            s.res[q] -= 2
    for slot in range(2):
        s.colc[slot * n + blue] = 1
        s.res[blue] -= 1
    s.sha[0 * n + blue] = 1
    s.earth[blue] -= 1
    s.cd[0] = 1
    s.turn_player = blue
    s.cur_action = TRAIN
    s.phase = P_COUNTDOWN
    s._legal = None
    s._advance()
    assert s.launches == [1, 0]
    # cubes collected: one per module each
    assert sum(s.colc[k * n + orange] for k in range(4)) == 3
    assert sum(s.colc[k * n + white] for k in range(4)) == 3
    assert sum(s.colc[k * n + blue] for k in range(4)) == 0
    assert s.phase == P_XSPACE and s.xq == [orange, white]  # clockwise from the launcher
    assert s.current_seat == orange
    s.apply((XSPACE, EXPERIMENT, -1))
    assert s.current_seat == white
    assert (XSPACE, EXPERIMENT, -1) not in s.legal_actions()  # one cube per space
    s.apply((XSPACE, TRAIN, -1))
    assert s.xsp[EXPERIMENT] == orange and s.xsp[TRAIN] == white
    check_conservation(s)


def test_progress_brings_the_module_with_most_cubes() -> None:
    # Extra Action example: JEM-EF has most cubes; Blue (launcher) and White tie on 3.
    s = make_state(3, seed=9)
    blue, orange, white = 0, 1, 2
    n = 3
    set_pads(s, PROGRESS, DISCOVERY)
    if JEM_EF not in s.col:
        s.mdeck.remove(JEM_EF)
        s.mdeck.append(s.col[2])
        s.col[2] = JEM_EF
    slot = s.col.index(JEM_EF)
    other = (slot + 1) % 4
    s.colc = [0] * (4 * n)
    s.res = [8, 8, 8]
    for q, k in ((blue, 3), (white, 3), (orange, 1)):
        s.colc[slot * n + q] = k
        s.res[q] -= k
    s.colc[other * n + orange] = 4  # fewer on another module than JEM-EF's 7
    s.res[orange] -= 4
    s.shm[0 * n + orange] = 2
    s.cd[0] = 1
    s.turn_player = blue
    s.cur_action = TRAIN
    s.phase = P_COUNTDOWN
    s._legal = None
    docked = len(s.docked)
    s._advance()
    assert s.docked[-1] == JEM_EF and len(s.docked) == docked + 1
    assert JEM_EF not in s.col and len(s.col) == 4
    assert s.ccover[-2:] == [1, 1]  # two installation tokens placed
    assert s.res[blue] == 8 and s.res[white] == 8  # cubes retrieved
    assert s.xq == [blue, white] and s.current_seat == blue
    s.apply((XSPACE, TRAIN, -1))
    s.apply((XSPACE, LONG_STAY_CARD, -1))
    assert s.xsp[TRAIN] == blue and s.xsp[LONG_STAY_CARD] == white
    check_conservation(s)


def test_module_tie_goes_to_the_higher_one() -> None:
    s = make_state(2, seed=10)
    set_pads(s, PROGRESS, DISCOVERY)
    n = 2
    s.colc = [0] * (4 * n)
    s.colc[1 * n + 0] = 2
    s.colc[3 * n + 1] = 2
    s.res = [6, 6]
    top = s.col[1]
    s.shm[0] = 1
    s.cd[0] = 1
    s.cur_action = TRAIN
    s.phase = P_COUNTDOWN
    s._advance()
    assert s.docked[-1] == top
    # both tied with 2 cubes on... only player 0 had cubes on the docked module
    assert s.xq == [] or s.xq[0] == 0


LONG_STAY_CARD = 4
