"""Rulebook constants, worked examples and abilities on built positions (odyssey-2001.txt)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from helpers_odyssey import (
    census_ok,
    close_door,
    fresh,
    give_hal,
    give_hand,
    put_malfunctions,
    start_crew_turn,
    start_hal_turn,
)

from balancelab.simulate.core import IllegalActionError
from balancelab.simulate.odyssey import GAME, OdysseyOptions, OdysseyState
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.board import default_board
from balancelab.simulate.odyssey.state import (
    T_ACT,
    T_HAL_DISCARD,
    T_HAL_PLAY,
    T_HAL_REVEAL,
    T_LIMIT,
    T_MOVE,
    ctx_for,
)
from balancelab.simulate.options import OptionError

B = default_board()
SP = {n: i for i, n in enumerate(B.names)}


def act(op: int, arg: int = 0) -> int:
    return op * 1000 + arg


def move(space: str) -> int:
    return act(8, SP[space])


# -- constants ------------------------------------------------------------------------------


def test_rulebook_constants() -> None:
    o = OdysseyOptions()
    assert (o.limit_grv, o.limit_mem, o.limit_com, o.limit_lif) == (4, 4, 4, 7)
    assert (o.hand_size, o.hand_size_mem_terminated) == (6, 4)
    assert (o.poole_hand_size, o.poole_hand_size_mem_terminated) == (7, 5)
    assert o.hal_marker_start == 6 and o.hal_revealed == 3 and o.crew_start_hand == 2
    assert (o.opening_turns_2, o.opening_turns_3, o.opening_turns_4) == (4, 3, 2)
    assert (o.move, o.move_grv_terminated) == (2, 1)
    assert (o.draw_picturephone, o.draw_picturephone_com_terminated) == (2, 1)
    assert o.kaminski_draw == 1 and o.specialist_repair == 2 and o.sequence_length == 3
    assert o.systems_to_win == 3 and o.sequences_to_win == 3
    assert o.hal_turn_every == 1 and o.crew_talk == "none"
    # assumed readings (design notes 1(c))
    assert o.draw_at_system == 1 and o.pod_strict and not o.whitehead_remote_repair


def test_decks() -> None:
    s = fresh()
    hal = s.ctx.hal_deck
    crew = s.ctx.crew_deck
    assert len(hal) == 36 and len(crew) == 36
    assert [hal.count(k) for k in (C.H_GRV, C.H_MEM, C.H_COM, C.H_LIF)] == [5, 5, 5, 8]
    assert [hal.count(C.hal_door(d)) for d in range(1, 8)] == [1] * 7
    assert (hal.count(C.H_TARGET), hal.count(C.H_SCAN), hal.count(C.H_LIPREAD)) == (2, 3, 1)
    assert crew.count(C.C_WILD) == 4 and crew.count(C.C_OVERRIDE) == 6
    assert crew.count(C.C_CANCEL) == 4 and crew.count(C.C_RECOVER) == 2
    for k in (C.C_REPAIR_GRV, C.C_REPAIR_MEM, C.C_REPAIR_COM, C.C_REPAIR_LIF):
        assert crew.count(k) == 2
    assert sorted(k for k in crew if k >= C.C_LOGIC1) == list(C.LOGIC_KINDS)


@pytest.mark.parametrize(("crew", "extra", "turns"),
                         [(2, 0, 4), (3, 0, 3), (4, 0, 2), (2, 1, 5), (3, -1, 2), (4, 1, 3)])
def test_setup_and_opening_turns(crew: int, extra: int, turns: int) -> None:
    o = OdysseyOptions(crew=crew, hal_extra_turns=extra)
    s = OdysseyState.new(o, np.random.default_rng(3))
    assert o.opening_turns() == turns
    assert s.phase == T_HAL_REVEAL and s.current_seat == 0
    assert sum(s.hal_hidden) == 6 and s.marker == 6
    assert all(s.hand_n[t] == 2 for t in range(1, crew + 1))
    assert all(s.pos[t] == SP["POD_BAY"] for t in range(1, crew + 1))
    assert s.roles[1] == 0  # Bowman always in play
    for _ in range(3):
        s.apply(s.legal_actions()[0])
    assert len(s.hal_rev) == 3 and sum(s.hal_hidden) == 3
    hal_turns = 0
    while s.current_seat == 0:
        if s.phase == T_HAL_PLAY:
            hal_turns += 1
        s.apply(s.legal_actions()[0])
        if s.terminal:
            break
    assert hal_turns == turns
    assert s.phase == T_MOVE and s.current_seat == s.monolith


def test_options_validation() -> None:
    with pytest.raises(OptionError, match="2, 3, 4"):
        OdysseyOptions(crew=5)
    with pytest.raises(OptionError):
        OdysseyOptions(crew=2, crew_members="poole,bowman")
    with pytest.raises(OptionError):
        OdysseyOptions(crew_talk="whisper")
    assert OdysseyOptions(crew=3, hal_extra_turns=1).label().startswith("crew=3,hal_extra_turns=1")
    for f in dataclasses.fields(OdysseyOptions):
        assert f.metadata["source"].split(":")[0] in ("rulebook", "assumed", "what-if")


def test_board_data_marked() -> None:
    import tomllib
    from importlib import resources

    data = tomllib.loads((resources.files("balancelab") / "data" / "odyssey_board.toml")
                         .read_text())
    for item in data["spaces"] + data["edges"]:
        assert item["source"].split(":")[0] in ("rulebook", "assumed", "derived")
    assert B.names[B.start] == "POD_BAY" and B.names[B.core] == "HAL_CORE"


# -- worked examples ----------------------------------------------------------------------


def test_example_movement_door3() -> None:
    """Dave on PICTUREPHONE_1, Door 3 closed: Picturephone, Podbay or POD, not GRV."""
    s = fresh()
    close_door(s, 3)
    s.pos[1] = SP["PICTUREPHONE_1"]
    start_crew_turn(s, 1)
    dests = {B.names[a % 1000] for a in s.legal_actions()}
    assert {"PICTUREPHONE_2", "POD_BAY", "POD"} <= dests
    assert "GRV" not in dests
    assert dests == {"PICTUREPHONE_1", "PICTUREPHONE_2", "POD_BAY", "POD"}
    with pytest.raises(IllegalActionError):
        s.apply(move("GRV"))


def test_example_fourth_com_malfunction() -> None:
    s = fresh()
    put_malfunctions(s, C.COM, 3)
    give_hal(s, [C.H_COM], [C.H_TARGET, C.H_SCAN, C.H_LIPREAD])
    s.pos[1] = SP["PICTUREPHONE_2"]
    start_hal_turn(s)
    s.apply(act(9, C.H_COM))
    assert s.mal[C.COM] == 4 and s.terminated(C.COM)
    assert s.draw_count(1) == 1  # Picturephones draw 1 until a COM malfunction is repaired
    assert not s.terminal


def test_example_com_repair() -> None:
    s = fresh()
    put_malfunctions(s, C.COM, 4)
    give_hand(s, 1, [C.C_REPAIR_COM])
    s.pos[1] = SP["COM"]
    start_crew_turn(s, 1)
    s.apply(move("COM"))
    s.apply(act(2, C.COM * 32 + C.C_REPAIR_COM))
    assert s.mal[C.COM] == 3 and not s.terminated(C.COM)
    assert s.hal_disc == [C.H_COM] and s.crew_disc == [C.C_REPAIR_COM]
    s.pos[2] = SP["PICTUREPHONE_1"]
    assert s.draw_count(2) == 2


def test_example_disconnect_9_10_11() -> None:
    s = fresh()
    give_hand(s, 1, [C.logic(9), C.logic(10), C.logic(11)])
    give_hal(s, [C.H_LIF, C.H_GRV, C.H_MEM], [C.H_TARGET, C.H_SCAN, C.H_COM])
    s.pos[1] = SP["HAL_CORE"]
    start_crew_turn(s, 1)
    s.apply(move("HAL_CORE"))
    s.apply(act(6, 9))
    assert s.marker == 5 and s.sequences == 1
    assert sorted(s.crew_trash) == [C.logic(9), C.logic(10), C.logic(11)]
    assert s.phase == T_HAL_DISCARD and s.current_seat == 0
    s.apply(act(13, 50 + C.H_SCAN))  # a revealed card: replaced from the hand, no draw
    assert s.phase == T_HAL_REVEAL
    s.apply(act(12, C.H_LIF))
    assert len(s.hal_rev) == 3 and s.hal_hand_n() == 5
    assert s.phase == T_ACT and s.current_seat == 1
    assert census_ok(s)


def test_second_sequence_rule() -> None:
    """{3-4-5, 8-9-10} is the only pair that leaves no third sequence."""
    s = fresh()
    give_hand(s, 1, [C.logic(n) for n in (3, 4, 5, 8, 9, 10)])
    give_hal(s, [C.H_LIF, C.H_GRV, C.H_MEM], [C.H_TARGET, C.H_SCAN, C.H_COM])
    s.pos[1] = SP["HAL_CORE"]
    start_crew_turn(s, 1)
    s.apply(move("HAL_CORE"))
    assert {a for a in s.legal_actions() if a // 1000 == 6} == {6003, 6008}
    s.apply(6003)
    s.apply(s.legal_actions()[0])  # HAL discards
    start_crew_turn(s, 1)
    s.apply(move("HAL_CORE"))
    assert not [a for a in s.legal_actions() if a // 1000 == 6]
    # every other disjoint pair leaves a third
    from balancelab.simulate.odyssey.state import _has_run

    bad = []
    for a in range(1, 11):
        for b in range(a + 3, 11):
            mask = sum(1 << n for n in (a, a + 1, a + 2, b, b + 1, b + 2))
            if not _has_run(mask, 3):
                bad.append((a, b))
    assert bad == [(3, 8)]


def test_third_sequence_wins() -> None:
    s = fresh()
    give_hand(s, 1, [C.logic(n) for n in (10, 11, 12)])
    s.sequences = 2
    s.marker = 4
    s.logic_trashed = sum(1 << n for n in range(1, 7))
    s.pos[1] = SP["HAL_CORE"]
    start_crew_turn(s, 1)
    s.apply(move("HAL_CORE"))
    s.apply(6010)
    assert s.terminal and s.result().winner == "crew"
    assert s.result().end_reason == "third_sequence"


def test_hal_wins_lif_and_three_systems() -> None:
    s = fresh()
    put_malfunctions(s, C.LIF, 6)
    give_hal(s, [C.H_LIF], [C.H_TARGET, C.H_SCAN, C.H_COM])
    start_hal_turn(s)
    s.apply(9000 + C.H_LIF)
    assert s.terminal and s.result().winner == "hal"
    assert s.result().end_reason == "lif_terminated"
    s = fresh()
    put_malfunctions(s, C.GRV, 4)
    put_malfunctions(s, C.MEM, 4)
    put_malfunctions(s, C.COM, 3)
    give_hal(s, [C.H_LIF], [C.H_TARGET, C.H_SCAN, C.H_COM])
    start_hal_turn(s)
    s.apply(9000 + 50 + C.H_COM)
    assert s.terminal and s.result().end_reason == "three_systems_terminated"


def test_hal_draw_and_reshuffle_trash_never() -> None:
    s = fresh()
    give_hal(s, [C.H_LIF, C.H_GRV, C.hal_door(3)], [C.H_TARGET, C.H_SCAN, C.H_COM])
    rest = list(s.hal_draw)
    n = len(rest)
    s.hal_draw = []
    s.hal_disc = rest
    start_hal_turn(s)
    s.apply(9000 + C.hal_door(3))
    assert s.hal_trash == [C.hal_door(3)] and s.doors[3] == 1
    assert s.m[s.M_HAL_RESHUFFLES] == 1 and len(s.hal_draw) == n - 1
    assert sum(s.hal_hidden) == 3 and census_ok(s)


def test_cancel_and_lipread() -> None:
    s = fresh()
    give_hand(s, 1, [C.C_CANCEL, C.logic(1)])
    give_hal(s, [C.H_LIF, C.H_GRV, C.H_MEM], [C.H_LIPREAD, C.H_SCAN, C.H_COM])
    s.pos[2] = SP["POD_BAY"]
    start_crew_turn(s, 1)
    s.apply(move("POD_BAY"))
    legal = s.legal_actions()
    assert not [a for a in legal if a // 1000 in (1, 7)]  # no GIVE, no ask under Lipread
    assert s.view(2).talk == (None,) * 4
    s.apply(act(4, C.H_LIPREAD))
    assert s.phase == T_HAL_REVEAL  # HAL drew, then refills the row
    assert s.hal_hand_n() == 6
    s.apply(s.legal_actions()[0])
    assert C.H_LIPREAD not in s.hal_rev
    assert [a for a in s.legal_actions() if a // 1000 == 1]  # GIVE possible again
    assert not [a for a in s.legal_actions() if a // 1000 == 4]  # Cancel once per turn


def test_each_action_once_and_repair_many() -> None:
    s = fresh()
    put_malfunctions(s, C.GRV, 3)
    give_hand(s, 1, [C.C_WILD, C.C_REPAIR_GRV, C.C_WILD])
    s.pos[1] = SP["GRV"]
    start_crew_turn(s, 1)
    s.apply(move("GRV"))
    s.apply(act(2, C.GRV * 32 + C.C_WILD))
    s.apply(act(2, C.GRV * 32 + C.C_REPAIR_GRV))
    assert s.mal[C.GRV] == 1
    s.apply(0)  # end, draw 0
    assert s.phase != T_ACT or s.current_seat != 1


def test_repair_closed_after_other_action() -> None:
    s = fresh()
    put_malfunctions(s, C.GRV, 3)
    close_door(s, 3)
    give_hand(s, 1, [C.C_WILD, C.C_WILD, C.C_OVERRIDE])
    s.pos[1] = SP["GRV"]
    start_crew_turn(s, 1)
    s.apply(move("GRV"))
    s.apply(act(2, C.GRV * 32 + C.C_WILD))
    s.apply(act(3, 3))
    assert s.doors[3] == 2 and s.crew_trash == [C.C_OVERRIDE]
    assert not [a for a in s.legal_actions() if a // 1000 == 2]


def test_hand_limit_and_mem_termination_order() -> None:
    s = fresh("bowman,poole,hunter")
    for seat in (1, 2, 3):
        give_hand(s, seat, [C.logic(2 * seat - 1), C.logic(2 * seat), C.C_OVERRIDE,
                            C.C_CANCEL, C.C_WILD])
    give_hand(s, 2, [C.C_RECOVER])  # Poole holds 6
    put_malfunctions(s, C.MEM, 3)
    give_hal(s, [C.H_MEM], [C.H_TARGET, C.H_SCAN, C.H_COM])
    s.monolith = 2
    start_hal_turn(s)
    s.apply(9000 + C.H_MEM)
    # clockwise from the Monolith holder: Poole (to 5), Hunter (to 4), Bowman (to 4)
    seen = []
    while s.phase == T_LIMIT:
        seen.append(s.current_seat)
        s.apply(s.legal_actions()[0])
    assert seen == [2, 3, 1]
    assert (s.hand_n[1], s.hand_n[2], s.hand_n[3]) == (4, 5, 4)


def test_pod_rules() -> None:
    s = fresh("bowman,poole")
    put_malfunctions(s, C.LIF, 3)
    give_hand(s, 1, [C.C_REPAIR_LIF, C.C_REPAIR_LIF])
    start_crew_turn(s, 1)
    s.apply(move("POD"))
    assert s.legal_actions() == [0]  # entered the POD: no repair this turn (pod_strict)
    s.apply(0)
    start_crew_turn(s, 2)
    assert move("POD") not in s.legal_actions()  # the POD holds one standee
    s.apply(move("POD_BAY"))
    s.apply(0)
    start_crew_turn(s, 1)
    s.apply(move("POD"))  # stay
    s.apply(act(2, C.LIF * 32 + C.C_REPAIR_LIF))  # Bowman: LIF Repair removes 2
    assert s.mal[C.LIF] == 1
    s2 = fresh("bowman,poole", pod_strict=False)
    put_malfunctions(s2, C.LIF, 3)
    give_hand(s2, 1, [C.C_REPAIR_LIF])
    start_crew_turn(s2, 1)
    s2.apply(move("POD"))
    assert act(2, C.LIF * 32 + C.C_REPAIR_LIF) in s2.legal_actions()


def test_pod_bay_doors_trap() -> None:
    s = fresh("bowman,poole")
    s.pos[1] = SP["POD"]
    close_door(s, 7)
    give_hand(s, 1, [C.C_OVERRIDE])
    start_crew_turn(s, 1)
    assert s.legal_actions() == [move("POD")]  # cannot leave
    s.apply(move("POD"))
    assert not [a for a in s.legal_actions() if a // 1000 == 3]  # cannot open from the POD


# -- abilities ------------------------------------------------------------------------------


def test_bowman_ask_and_lif_double() -> None:
    s = fresh("bowman,poole")
    give_hand(s, 2, [C.C_REPAIR_LIF])
    start_crew_turn(s, 1)
    s.apply(move("POD_BAY"))
    s.apply(act(7, 2))
    s.apply(16000 + C.C_REPAIR_LIF)  # Poole chooses what to give
    assert s.hands[1][C.C_REPAIR_LIF] == 1 and s.hand_n[2] == 0
    assert not [a for a in s.legal_actions() if a // 1000 == 7]


def test_poole_hand_and_mem_double() -> None:
    s = fresh("bowman,poole")
    assert s.hand_limit(2) == 7 and s.hand_limit(1) == 6
    put_malfunctions(s, C.MEM, 4)
    assert s.hand_limit(2) == 5 and s.hand_limit(1) == 4
    give_hand(s, 2, [C.C_REPAIR_MEM])
    s.pos[2] = SP["MEM"]
    start_crew_turn(s, 2)
    s.apply(move("MEM"))
    s.apply(act(2, C.MEM * 32 + C.C_REPAIR_MEM))
    assert s.mal[C.MEM] == 2


def test_hunter_door_and_grv_double() -> None:
    s = fresh("bowman,hunter")
    close_door(s, 3)
    close_door(s, 4)
    s.pos[2] = SP["PICTUREPHONE_1"]
    start_crew_turn(s, 2)
    dests = {B.names[a % 1000] for a in s.legal_actions()}
    assert "GRV" in dests  # one closed door 1-6 per turn
    assert "MEM" not in dests  # but not two
    s.pos[1] = SP["PICTUREPHONE_1"]
    start_crew_turn(s, 1)
    assert "GRV" not in {B.names[a % 1000] for a in s.legal_actions()}  # others cannot
    s2 = fresh("bowman,hunter")
    close_door(s2, 7)
    start_crew_turn(s2, 2)
    assert "POD" not in {B.names[a % 1000] for a in s2.legal_actions()}
    s3 = fresh("bowman,hunter")
    put_malfunctions(s3, C.GRV, 4)
    give_hand(s3, 2, [C.C_REPAIR_GRV, C.C_WILD])
    s3.pos[2] = SP["GRV"]
    start_crew_turn(s3, 2)
    s3.apply(move("GRV"))
    s3.apply(act(2, C.GRV * 32 + C.C_REPAIR_GRV))
    assert s3.mal[C.GRV] == 2
    s3.apply(act(2, C.GRV * 32 + C.C_WILD))  # "???" removes only 1
    assert s3.mal[C.GRV] == 1


def test_reachable_spaces_are_those_within_the_move_allowance() -> None:
    """Every (space, closed doors, allowance): the spaces at most ``steps`` away with those
    doors closed; Hunter's, the same with any one closed door 1-6 open (MOVE; Hunter)."""
    ctx = ctx_for(OdysseyOptions())
    n = ctx.n_spaces
    for mask in range(0, 256, 2):
        crossings = [mask] + [mask & ~(1 << d) for d in range(1, 7) if mask >> d & 1]
        for start in range(n):
            for steps in range(5):
                near = {x for x in range(n) if ctx.dist_mask(mask)[start][x] <= steps}
                assert ctx.reachable(start, mask, steps, False) == tuple(sorted(near))
                near = {x for m in crossings for x in range(n)
                        if ctx.dist_mask(m)[start][x] <= steps}
                assert ctx.reachable(start, mask, steps, True) == tuple(sorted(near))


def test_kaminski_draw_and_com_double() -> None:
    s = fresh("bowman,kaminski")
    s.pos[2] = SP["HAL_CORE"]
    assert s.draw_count(2) == 1
    s.pos[2] = SP["POD_BAY"]
    assert s.draw_count(2) == 1 and s.draw_count(1) == 0
    put_malfunctions(s, C.COM, 3)
    give_hand(s, 2, [C.C_REPAIR_COM])
    s.pos[2] = SP["COM"]
    start_crew_turn(s, 2)
    s.apply(move("COM"))
    s.apply(act(2, C.COM * 32 + C.C_REPAIR_COM))
    assert s.mal[C.COM] == 1
    assert max(s.legal_actions()) == 1  # draw 1 at a system space (assumed)


def test_whitehead_scan_immunity_and_any_repair() -> None:
    s = fresh("bowman,whitehead")
    give_hand(s, 1, [C.logic(1)])
    give_hand(s, 2, [C.logic(2)])
    give_hal(s, [C.H_SCAN], [C.H_TARGET, C.H_LIF, C.H_COM])
    start_hal_turn(s)
    s.apply(9000 + C.H_SCAN)
    assert s.legal_actions() == [11001]  # only Bowman may be scanned
    s.apply(11001)
    assert s.current_seat == 1 and s.legal_actions() == [15000 + C.logic(1)]
    s.apply(15000 + C.logic(1))
    s = fresh("bowman,whitehead")
    put_malfunctions(s, C.GRV, 2)
    put_malfunctions(s, C.LIF, 2)
    give_hand(s, 2, [C.C_REPAIR_LIF, C.C_REPAIR_MEM])
    s.pos[2] = SP["GRV"]
    start_crew_turn(s, 2)
    s.apply(move("GRV"))
    legal = s.legal_actions()
    assert act(2, C.GRV * 32 + C.C_REPAIR_LIF) in legal
    assert not [a for a in legal if a // 1000 == 2 and (a % 1000) // 32 == C.LIF]
    s.apply(act(2, C.GRV * 32 + C.C_REPAIR_LIF))
    s.apply(act(2, C.GRV * 32 + C.C_REPAIR_MEM))  # mixed types
    assert s.mal[C.GRV] == 0
    s = fresh("bowman,whitehead", whitehead_remote_repair=True)
    put_malfunctions(s, C.LIF, 2)
    give_hand(s, 2, [C.C_REPAIR_MEM])
    start_crew_turn(s, 2)
    s.apply(move("PICTUREPHONE_1"))
    assert act(2, C.LIF * 32 + C.C_REPAIR_MEM) in s.legal_actions()


def test_target_hit_and_miss() -> None:
    s = fresh("bowman,poole")
    give_hand(s, 2, [C.logic(5), C.logic(5 + 1)])
    give_hal(s, [C.H_TARGET], [C.H_SCAN, C.H_LIF, C.H_COM])
    start_hal_turn(s)
    s.apply(9000 + C.H_TARGET)
    s.apply(10000 + 2 * 32 + C.logic(5))
    assert s.hand_n[2] == 1 and s.crew_disc == [C.logic(5)] and s.m[s.M_TARGET_HITS] == 1


def test_recover_and_give() -> None:
    s = fresh("bowman,poole")
    give_hand(s, 1, [C.C_RECOVER, C.logic(4)])
    s.crew_draw.remove(C.logic(7))
    s.crew_disc = [C.logic(7), C.C_RECOVER]
    s.crew_draw.remove(C.C_RECOVER)
    s.pos[1] = s.pos[2] = SP["PICTUREPHONE_1"]
    start_crew_turn(s, 1)
    s.apply(move("PICTUREPHONE_1"))
    s.apply(5000)
    assert s.legal_actions() == [17000 + C.logic(7)]  # never a Recover card
    s.apply(17000 + C.logic(7))
    s.apply(1000 + 2 * 32 + C.logic(7))
    assert s.hands[2][C.logic(7)] == 1
    assert not [a for a in s.legal_actions() if a // 1000 in (1, 5)]
    assert census_ok(s)


def test_cap_ends_without_winner() -> None:
    from balancelab.policies.base import RandomPolicy
    from balancelab.simulate.play import play

    o = OdysseyOptions(max_rounds=3)
    pols = [RandomPolicy(GAME, o, k, np.random.default_rng(k)) for k in range(4)]
    rec = play(GAME, o, pols, np.random.default_rng(1)).record
    assert rec.end_reason in ("cap", "lif_terminated", "three_systems_terminated")
    if rec.end_reason == "cap":
        assert rec.winner == "" and rec.rounds == 3


def test_action_text() -> None:
    s = fresh()
    put_malfunctions(s, C.COM, 3)
    give_hal(s, [C.H_COM], [C.H_TARGET, C.H_SCAN, C.H_LIPREAD])
    start_hal_turn(s)
    assert s.action_text(9000 + C.H_COM) == "HAL plays COM Malfunction (4th: COM terminated)"
    start_crew_turn(s, 1)
    assert s.action_text(move("PICTUREPHONE_1")) == "Bowman moves to Picturephone 1"


def test_hand_limit_discards_two_cards_in_one_decision() -> None:
    """Hand Size: over by two or more, the crewmember chooses two cards at once."""
    from balancelab.simulate.odyssey.state import PAIR

    s = fresh("bowman,poole")
    give_hand(s, 1, [C.logic(1), C.logic(2), C.C_OVERRIDE, C.C_OVERRIDE, C.C_CANCEL, C.C_WILD])
    s.pos[1] = SP["PICTUREPHONE_1"]
    start_crew_turn(s, 1)
    s.apply(move("PICTUREPHONE_1"))
    s.apply(2)  # draws 2: 8 cards, limit 6
    assert s.phase == T_LIMIT and s.hand_n[1] == 8
    legal = s.legal_actions()
    pair = act(14, PAIR + C.C_OVERRIDE * 32 + C.C_OVERRIDE)
    assert pair in legal and all(a % 1000 >= PAIR for a in legal)
    assert "discards Manual Override and Manual Override" in s.action_text(pair)
    s.apply(pair)
    assert s.hand_n[1] == 6 and s.hands[1][C.C_OVERRIDE] == 0
    assert s.crew_disc[-2:] == [C.C_OVERRIDE, C.C_OVERRIDE]
    assert s.phase != T_LIMIT and census_ok(s)
