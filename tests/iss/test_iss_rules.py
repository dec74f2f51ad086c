"""Scoring, goals, the end, FEDOR and options of 1998 ISS on built positions."""

from __future__ import annotations

import pytest
from conftest import give_hand, make_state, set_pads
from iss_helpers import check_conservation

from balancelab.simulate.iss import IssOptions
from balancelab.simulate.iss.fedor import fedor_turn
from balancelab.simulate.iss.rules import INSTALL, LOAD, LONG_STAY, OUTSIDE, TRAIN
from balancelab.simulate.iss.state import GOAL, P_ACTION, P_GOAL, P_OVER
from balancelab.simulate.options import OptionError


def test_scoring_of_a_built_end_position() -> None:
    s = make_state(2, seed=1)
    p = 0
    s.tok[p] = 3  # 6
    s.ext[p] = 4  # 4
    s.ls[p] = 3  # 5
    s.pgoals[p] = [2, 7]  # 10
    s.owned[p] = [0, 1, 3, 6, 8]  # Soyuz, Soyuz, Progress, Endeavour, Atlantis: 4 types -> 8
    s.done[p] = [0, 16, 33]  # E01 3 + E17 7 + E34 12 = 22
    s.hand[p] = [1, 20]  # -2
    parts = s.score_parts(p)
    assert parts == {"tokens": 6, "external": 4, "long_stay": 5, "goals": 10, "shuttles": 8,
                     "experiments": 22, "penalties": -2, "score": 53}


def test_tie_break_by_experiments_then_shared() -> None:
    s = make_state(2, seed=1)
    for p in (0, 1):
        s.hand[p] = []
        s.tok[p], s.ext[p] = 0, 0
    s.done[0], s.done[1] = [0], [1, 2]  # 3 vs 6 points
    s.tok[0] = 2  # 4 + 3 = 7 ; player 1: 6 + 1 ext
    s.ext[1] = 1
    s.phase, s.end_reason = P_OVER, "last_shuttle"
    rec = s.result()
    assert rec.winner == "seat1" and rec.measures["tie_break"]
    s.done[0] = [0, 3]
    s.tok[0] = 0
    s.ext[0] = 1
    rec = s.result()
    assert rec.winner == "tie" and rec.measures["shared_win"]


@pytest.mark.parametrize(("players", "exps", "astro", "tokens", "ls"),
                         [(2, 5, 4, 7, 5), (3, 4, 4, 6, 4), (4, 4, 3, 5, 3)])
def test_goal_values_per_player_count(players: int, exps: int, astro: int, tokens: int,
                                      ls: int) -> None:
    needs = IssOptions(players=players).goal_needs()
    assert needs[0] == exps and needs[2] == astro and needs[5] == tokens and needs[6] == ls
    assert needs[1] == (3 if players == 2 else 2)
    assert needs[3] == 7 and needs[4] == 6 and needs[7] == 6
    assert needs[8] == (3 if players == 4 else 4)


def test_a_goal_is_taken_once_at_the_end_of_the_turn() -> None:
    s = make_state(3, seed=2)
    s.offer = [5, 6, 7]
    p = s.turn_player
    s.tok[p] = 6
    s.ls[p] = 4
    s.phase = P_GOAL
    s._legal = None
    s._advance()
    assert set(s.legal_actions()) == {(GOAL, 5), (GOAL, 6)}
    s.apply((GOAL, 6))
    assert s.pgoals[p] == [6] and s.offer == [5, 7]
    assert s.turn_player == (p + 1) % 3


def test_install_takes_tokens_with_up_to_two_astronauts() -> None:
    s = make_state(2, seed=3)
    p = s.turn_player
    s.phase = P_ACTION
    s._legal = None
    legal = s.legal_actions()
    assert (INSTALL, (0,)) in legal and (INSTALL, (0, 0)) not in legal  # one astronaut only
    s.unity[p] += 1
    s.earth[p] -= 1
    s._legal = None
    s.apply((INSTALL, (0, 0)))
    assert s.tok[p] == 2 and s.ccover[2:4] == [0, 0] and s.unity[p] == 2
    check_conservation(s)


def test_long_stay_locks_an_astronaut_until_replacement() -> None:
    s = make_state(2, seed=3)
    set_pads(s, 0, 10)
    p = s.turn_player
    s.shm[1 * 2 + p] = 1
    s.phase = P_ACTION
    s._legal = None
    iss = s.iss[p]
    s.apply((LONG_STAY,))
    assert s.ls[p] == 1 and s.iss[p] == iss - 1 and s.cocc[0] == p and s.unity[p] == 0
    s._legal = None
    assert s._stat_astro(p) == 0
    # a Soyuz launch (replacement icon) sends the long-stay astronaut to Unity
    s.sha[0 * 2 + 1] = 1
    s.earth[1] -= 1
    s._launch(0, 1)
    assert s.cocc[0] == -1 and s.unity[p] == 1 and s.unity[1] == 1
    check_conservation(s)


def test_end_trigger_then_round_then_final_round_without_cubes_or_countdown() -> None:
    s = make_state(3, seed=4)
    set_pads(s, 3, 10)
    s.sdeck[0] = s.sdeck[0][:1]  # one Russian card left: the next Russian launch ends the game
    s.removed[0] += []
    n = 3
    s.shm[0 * n + 0] = 1
    s.cd[0] = 1
    s.turn_player = 1  # seat1 launches; seat2 then plays; then the final round
    s.cur_action = TRAIN
    s.phase = 5
    s._legal = None
    # put the dropped Russian cards in the box to keep the count
    kept = {s.pad[0], *s.sdeck[0]}
    s.removed[0] = [c for c in range(6) if c not in kept and c not in s.owned[0]]
    s._advance()
    if s.phase == 5:
        s.apply((12 + 2, 0))
    assert s.triggered and s.trigger_nation == 0
    assert not s.final
    turns = 0
    while not s.is_terminal():
        if s.turn_player == 0 and s.phase == P_ACTION and not s.final:
            pass
        if s.final and s.phase == P_ACTION:
            cd = list(s.cd)
            colc = list(s.colc)
            s.apply(s.legal_actions()[0])
            assert s.cd == cd
            assert sum(colc) == sum(s.colc) or s.xsp.count(-1) < 8
            turns += 1
            continue
        s.apply(s.legal_actions()[0])
    assert turns == 3
    rec = s.result()
    assert rec.end_reason == "last_shuttle"


def test_options_validate_lengths_and_ranges() -> None:
    with pytest.raises(OptionError):
        IssOptions(players=5)
    with pytest.raises(OptionError, match="countdowns"):
        IssOptions(countdowns=(1, 2))
    o = IssOptions.from_strings({"players": "3", "remove-shuttles": "true",
                                 "countdowns": "1,1,2,2,2,1,2,1"})
    assert o.players == 3 and o.remove_shuttles and "remove_shuttles=true" in o.label()


def test_remove_shuttles_leaves_five_per_nation() -> None:
    s = make_state(2, seed=5, remove_shuttles=True)
    for r in (0, 1):
        assert len(s.removed[r]) == 1
        assert len(s.sdeck[r]) == 4


# -- FEDOR ------------------------------------------------------------------------------------

def test_fedor_setup() -> None:
    s = make_state(1, seed=6)
    f = 1
    assert s.iss[f] == 6 and s.ext[f] == 2 and s.ls[f] == 0
    assert s.hand[f] == [] and s.offer == []
    on_shuttles = s.sha[f] + s.sha[2 + f]
    assert s.earth[f] + s.unity[f] + on_shuttles == 4
    for r in (0, 1):
        c = s.pad[r]
        if s.st.sh_type[c] == 0:
            assert s.sha[r * 2 + f] == 1
        else:
            assert s.shm[r * 2 + f] == 3
    check_conservation(s)


def _fedor_top(s, card):  # type: ignore[no-untyped-def]
    s.fdeck.remove(card)
    s.fdeck.append(card)


def test_fedor_outside_jobs_converts_up_to_three_and_counts_down_by_the_next_back() -> None:
    s = make_state(1, seed=7, solo_start="player")
    f = 1
    set_pads(s, 3, 10, empty=False)
    s.shm[0 * 2 + f] = 3
    s.shm[1 * 2 + f] = 3
    _fedor_top(s, 1)  # F2 (Install, back USA) flipped second
    _fedor_top(s, 2)  # F3 Outside Jobs on top
    s.turn_player = f
    cd = list(s.cd)
    fedor_turn(s)
    assert s.iss[f] == 3 and s.ext[f] == 5
    assert s.cd[1] == cd[1] - s.st.cd[OUTSIDE] and s.cd[0] == cd[0]  # back of F2: USA
    slot = s.rows[OUTSIDE]
    assert s.colc[slot * 2 + f] == 1
    check_conservation(s)


def test_fedor_failed_action_places_a_second_cube() -> None:
    s = make_state(1, seed=8, solo_start="player")
    f = 1
    s.iss[f] = 0  # Long Stay impossible
    _fedor_top(s, 5)  # F6 Long Stay
    s.turn_player = f
    fedor_turn(s)
    assert s.colc[s.rows[LONG_STAY] * 2 + f] == 2 and s.fedor_fails == 1
    check_conservation(s)


def test_fedor_install_human_choice() -> None:
    s = make_state(1, seed=9, solo_start="player", fedor_choice="human")
    f = 1
    s._dock(s.mdeck.pop())
    s.ccover[2] = s.ccover[3] = 0  # Destiny already installed
    s.tok[0] = 2
    m = s.docked[-1]
    s.unity[f] = 1
    s.earth[f] = 4 - 1 - s.sha[f] - s.sha[2 + f]
    _fedor_top(s, 0)  # F1 Install
    s.turn_player = f
    s.phase = 0
    s._advance()
    types = s.st.mod_comps[m]
    if types[0] != types[1]:
        assert s.current_seat == 0 and s.legal_actions() == [(17, len(s.ctype) - 2),
                                                             (17, len(s.ctype) - 1)]
        s.apply((17, len(s.ctype) - 1))
    assert s.tok[f] == 1
    check_conservation(s)


def test_fedor_game_records_fedor_score() -> None:
    s = make_state(1, seed=10)
    while not s.is_terminal():
        s.apply(s.legal_actions()[-1])
    rec = s.result()
    assert rec.winner in ("seat0", "fedor", "tie")
    assert rec.measures["fedor_score"] is not None and len(rec.seat_rows) == 1


def test_give_hand_helper_keeps_cards() -> None:
    s = make_state(2, seed=11)
    give_hand(s, 0, [33])
    check_conservation(s)


# -- issue 12: FEDOR's Install on an extra action, the recall option, the token text ---------

def _fedor_in_long_stay(**opts: object):  # type: ignore[no-untyped-def]
    """Solo position: FEDOR's 2 astronauts on the ISS both in Zvezda's long-stay compartments
    (none in Unity), Destiny's 2 compartments covered."""
    s = make_state(1, seed=9, solo_start="player", **opts)
    f = 1
    assert s.ctype[:4] == [2, 2, 0, 0] and s.ccover[2:4] == [1, 1]
    s.earth[f] += s.unity[f] + s.sha[f] + s.sha[2 + f] - 2
    s.sha[f] = s.sha[2 + f] = 0
    s.unity[f] = 0
    s.cocc[0] = s.cocc[1] = f
    s.ls[f] = 2
    check_conservation(s)
    return s


def test_fedor_extra_action_install_counts_astronauts_in_long_stay() -> None:
    """Solo Mode, FEDOR's Turn 2: "one installation token for each astronaut it has on the
    ISS". On an extra action (no recall) the 2 long-stay astronauts count: 2 tokens (was 0),
    and they stay in long stay."""
    from balancelab.simulate.iss.fedor import fedor_extra

    s = _fedor_in_long_stay()
    _fedor_top(s, 0)  # F1 Install
    fedor_extra(s)
    assert s.tok[1] == 2 and s.ccover[2:4] == [0, 0]
    assert s.cocc[:2] == [1, 1] and s.unity[1] == 0 and s.ls[1] == 2
    check_conservation(s)


def test_fedor_own_turn_install_takes_the_same_two_tokens() -> None:
    s = _fedor_in_long_stay()
    _fedor_top(s, 0)  # F1 Install
    s.turn_player = 1
    fedor_turn(s)  # the recall puts both in Unity first
    assert s.tok[1] == 2 and s.ccover[2:4] == [0, 0] and s.unity[1] == 2
    check_conservation(s)


@pytest.mark.parametrize(("recall", "moved"), [(False, 0), (True, 2)])
def test_fedor_extra_recall_option(recall: bool, moved: int) -> None:
    """Option ``fedor_extra_recall`` (Solo Mode, Launch 4, ambiguous "performs it normally"):
    an extra Long Stay with both astronauts in long stay moves none without the recall
    (default), both again with it (2 ISS materials to the long-stay track)."""
    from balancelab.simulate.iss.fedor import fedor_extra

    s = _fedor_in_long_stay(fedor_extra_recall=recall)
    s.iss[1] = 3
    _fedor_top(s, 5)  # F6 Long Stay
    fedor_extra(s)
    assert s.ls[1] == 2 + moved and s.iss[1] == 3 - moved
    assert s.cocc[:2] == [1, 1] and s.unity[1] == 0
    check_conservation(s)


def test_fedor_token_choice_names_the_module_and_its_number() -> None:
    """Trace: the token choice names the docked module and its printed number (Dextre is #8),
    not its docking position."""
    s = make_state(1, seed=9, solo_start="player", fedor_choice="human")
    dextre = next(m for m, card in enumerate(s.st.cards.modules) if card.name == "Dextre")
    s._dock(dextre)
    c = len(s.ctype) - 1
    assert s.ctype[c] == 1 and s.cmod[c] == 8
    assert s.action_text((17, c)) == \
        "FEDOR takes the token on the space walk compartment of Dextre (#8)"
    assert s.action_text((17, c - 1)) == \
        "FEDOR takes the token on the crane compartment of Dextre (#8)"


# -- issue 12: when a goal may be taken (option goal_timing) ----------------------------------

def _before_load(timing: str, materials: int, offer: list[int]):  # type: ignore[no-untyped-def]
    """2 players, the player to move in the action step: ``materials`` of theirs on the
    Progress (RU4, countdown 1), the Endeavour (US1) empty, ``offer`` the goals on offer."""
    s = make_state(2, seed=3, goal_timing=timing)
    p = s.turn_player
    set_pads(s, 3, 6)
    s.shm[0 * 2 + p] = materials
    s.cd[0] = 1
    s.offer = offer
    s.xsp = [-1] * 8
    s.res[p] = max(s.res[p], 1)
    s.phase = P_ACTION
    s._legal = None
    return s, p


def _load_meets_materials_goal(timing: str):  # type: ignore[no-untyped-def]
    """The player has 6 materials on the Progress and plays Load Material (+2 onto it): 8 >= 7
    meets "7 materials loaded on the shuttles"; the Load countdown (-1) then launches the
    Progress, which takes the materials off the shuttle."""
    s, p = _before_load(timing, 6, [3])
    s.apply((LOAD, 0, 0))
    return s, p


def _finish_turn(s, p):  # type: ignore[no-untyped-def]
    while s.turn_player == p and not s.is_terminal():
        s.apply(s.legal_actions()[0])


@pytest.mark.parametrize(("timing", "taken"), [("end_of_turn", []), ("before_countdown", [3])])
def test_goal_timing_decides_whether_a_launch_wipes_out_a_goal(timing: str,
                                                               taken: list[int]) -> None:
    """Rulebook: Goals ("once per turn", no step named). Default ``end_of_turn`` (design notes
    2(c)16): checked after the launch, the materials are gone, no goal. ``before_countdown``:
    taken after the action, before the countdown launches the Progress."""
    s, p = _load_meets_materials_goal(timing)
    _finish_turn(s, p)
    assert s.launches[0] == 1 and s.shm[p] == 0
    assert s.pgoals[p] == taken
    check_conservation(s)


def _own_three_shuttles(s, p):  # type: ignore[no-untyped-def]
    got = [0, 1, 7]  # 3 shuttle cards already won; a launch gives the 4th
    s.owned[p] = got
    s.sdeck = [[c for c in x if c not in got] for x in s.sdeck]
    s.removed = [[c for c in x if c not in got] for x in s.removed]
    check_conservation(s)


def test_goal_timing_either_offers_the_goal_or_waiting_once_per_turn() -> None:
    """``either``: after the action the player may take the materials goal or wait; taking it
    uses the turn's goal (the shuttles goal met by the launch is not taken too); waiting loses
    the materials goal to the launch and takes the shuttles goal at the end of the turn."""
    s, p = _before_load("either", 6, [3, 8])
    _own_three_shuttles(s, p)
    s.apply((LOAD, 0, 0))
    assert s.current_seat == p and s.legal_actions() == [(GOAL, 3), (GOAL, -1)]
    assert "wait" in s.action_text((GOAL, -1))
    w = s.copy()
    s.apply((GOAL, 3))
    _finish_turn(s, p)
    assert s.launches[0] == 1 and len(s.owned[p]) == 4
    assert s.pgoals[p] == [3] and s.offer == [8]
    w.apply((GOAL, -1))
    _finish_turn(w, p)
    assert w.launches[0] == 1 and w.pgoals[p] == [8] and w.offer == [3]


@pytest.mark.parametrize(("timing", "taken"), [("end_of_turn", [8]), ("before_countdown", [])])
def test_goal_timing_a_goal_met_by_the_launch_itself(timing: str, taken: list[int]) -> None:
    """A goal met by the launch (its shuttle card, the 4th): ``end_of_turn`` takes it at once,
    ``before_countdown`` leaves it for a later turn."""
    s, p = _before_load(timing, 1, [8])
    _own_three_shuttles(s, p)
    s.apply((LOAD, 0, 0))
    _finish_turn(s, p)
    assert s.launches[0] == 1 and len(s.owned[p]) == 4
    assert s.pgoals[p] == taken
