"""The rulebook's worked examples as tests on built positions."""

from __future__ import annotations

from helpers import FixedDice, build

from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.actions import (
    A_TARGET,
    CHARGE,
    END_ACT,
    HATCH,
    MOVE,
    PICK,
    SHOOT,
)
from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER, combat_result
from balancelab.simulate.obcy.rules import (
    CARBINE,
    CLIP0,
    EMPTY,
    GORMAN,
    HICKS,
    HUDSON,
    PISTOL,
    VASQUEZ,
)
from balancelab.simulate.obcy.rules import CHARGE as I_CHARGE_CODE
from balancelab.simulate.obcy.state import ST_HATCH

EXPLOSIVES = B.FEATURE["EXPLOSIVES_STORE"]


def test_combat_table_examples() -> None:
    assert combat_result(3, 5) == (DEFENDER, 1, 1)  # 6. Hicks's shot
    assert combat_result(-2, 5) == (ATTACKER, 2, 2)  # 10. Example 1
    assert combat_result(5, 4) == (DEFENDER, 2, 2)  # 10. Example 2


def test_vasquez_spends_exactly_six_action_points() -> None:
    # 3. Example: 3 moves to the explosives store, pick up a charge, 1 move, 1 shot.
    start = B.idx(13, 13)  # 3 spaces from the explosives store (15,13)
    assert B.DIST[start][EXPLOSIVES] == 3
    s = build({VASQUEZ: B.COORDS[start]}, aliens=[((15, 15), 1)], active=VASQUEZ)
    s._settle()
    s.apply((MOVE, EXPLOSIVES))
    assert s.c_ap[VASQUEZ] == 3
    s.apply((PICK, I_CHARGE_CODE))
    assert s.c_ap[VASQUEZ] == 2 and I_CHARGE_CODE in s.c_pk[VASQUEZ]
    s.apply((MOVE, B.idx(15, 14)))  # the ALIEN at (15,15) is now adjacent: she must stop
    assert s.c_ap[VASQUEZ] == 1
    assert not any(a[0] == MOVE for a in s.legal_actions())
    aid = s.a_id[0]
    shots = [a for a in s.legal_actions() if a[0] == SHOOT]
    assert shots and all(a[3] == 1 for a in shots)  # one AP left: one shot
    s.rng = FixedDice([6])  # type: ignore[assignment]
    s.apply((SHOOT, aid, shots[0][2], 1))
    assert s.c_ap[VASQUEZ] == 0
    assert s.legal_actions() == [(END_ACT,)]


def test_hicks_shot_in_a_duct() -> None:
    # 6. Example: 5 + 3 x 2 = 11 against an ALIEN of 4 in a duct (8) -> +3; die 5 -> D1/1.
    s = build({HICKS: (7, 9)}, aliens=[((10, 9), 4)], active=HICKS)
    assert B.KIND[B.idx(10, 9)] == B.DUCT
    s._settle()
    aid = s.a_id[0]
    assert (SHOOT, aid, CARBINE, 2) in s.legal_actions()
    s.rng = FixedDice([5])  # type: ignore[assignment]
    s.apply((SHOOT, aid, CARBINE, 2))
    assert s.a_str == [3]
    if s.interrupt:  # the ALIENS choose where it retreats
        s.apply(s.legal_actions()[0])
    assert s.a_pos[0] in B.NBR_SET[B.idx(10, 9)]
    assert s.c_str[HICKS] == 5
    assert s.c_pk[HICKS].count(CLIP0 + 2) == 1  # two charges used


def test_hatching_a_six_splits_with_no_alien_over_four() -> None:
    s = build({HICKS: (3, 17)})
    s.stage = ST_HATCH
    s.hatch_pts = 6
    s._legal = None
    s._settle()
    legal = s.legal_actions()
    assert max(a[1] for a in legal if a[0] == HATCH) == 4
    s.apply((HATCH, 4, 0))
    s.apply((HATCH, 2, 4))
    assert sorted(s.a_str) == [2, 4] and s.hatch_pts == 0
    s2 = build({HICKS: (3, 17)})
    s2.stage = ST_HATCH
    s2.hatch_pts = 6
    s2._settle()
    for st, k in ((3, 0), (2, 1), (1, 1)):
        s2.apply((HATCH, st, k))
    assert sorted(s2.a_str) == [1, 2, 3]


def test_metamorphosis_three_and_two_make_four() -> None:
    s = build({HICKS: (3, 17)}, aliens=[((10, 9), 3), ((10, 9), 2)])
    s._metamorphosis()
    assert s.a_str == [4] and s.st["aliens_merged"] == 1


def test_metamorphosis_not_next_to_a_character() -> None:
    s = build({HICKS: (8, 12)}, aliens=[((8, 11), 3), ((8, 11), 2)])
    s._metamorphosis()
    assert sorted(s.a_str) == [2, 3]


def test_alien_attack_on_hicks() -> None:
    # 10. Example 1: 3 - 5 = -2, die 5 -> the ALIEN loses 2 and retreats 2.
    s = build({HICKS: (6, 13)}, aliens=[((7, 13), 3)])
    s.rng = FixedDice([5])  # type: ignore[assignment]
    s._alien_attack(HICKS, (s.a_id[0],))
    assert s.a_str == [1]
    assert s.rq == [(1, s.a_id[0], 2, -1)]
    assert s.c_str[HICKS] == 5


def test_three_aliens_on_hudson() -> None:
    # 10. Example 2: (4 + 2 + 3) - 4 = +5, die 4 -> Hudson loses 2 (2 left), retreats 2.
    s = build({HUDSON: (6, 13)}, aliens=[((7, 13), 4), ((5, 13), 2), ((6, 12), 3)])
    s.c_str[HUDSON] = 4
    s.rng = FixedDice([4])  # type: ignore[assignment]
    s._alien_attack(HUDSON, tuple(s.a_id))
    assert s.c_str[HUDSON] == 2
    assert s.rq == [(0, HUDSON, 2, -1)]


def test_character_that_cannot_retreat_loses_strength() -> None:
    # 10. a character that cannot retreat loses one point per missing space
    s = build({HUDSON: (2, 17)}, aliens=[((3, 17), 1), ((3, 16), 1)])
    s.rq = [(0, HUDSON, 2, -1)]
    s._settle()
    assert s.c_str[HUDSON] == 3


def test_gorman_starting_pockets() -> None:
    st = build({GORMAN: (3, 17)})
    assert st.c_pk[GORMAN] == [PISTOL, CLIP0 + 4, EMPTY]


def test_alien_stops_next_to_character_and_target_choice() -> None:
    s = build({HICKS: (6, 13), HUDSON: (6, 15)}, aliens=[((9, 13), 2)])
    dests = s._alien_dests(0)
    # never onto a character, never past a space adjacent to one
    assert B.idx(6, 13) not in dests
    s.a_pos[0] = B.idx(6, 14)
    s._alien_in(B.idx(6, 14))
    s._find_targets()
    assert s.tgt_queue and set(s.tgt_queue[0][1]) == {HICKS, HUDSON}
    assert A_TARGET == 23


def test_explosive_charge_collapses_a_corridor() -> None:
    s = build({HICKS: (13, 12)}, active=HICKS)
    s.c_pk[HICKS][2] = I_CHARGE_CODE
    s._settle()
    acts = [a for a in s.legal_actions() if a[0] == CHARGE]
    assert (CHARGE, B.idx(13, 11)) in acts
    s.apply((CHARGE, B.idx(13, 11)))
    assert B.idx(13, 11) in s.collapsed
    assert s.used[I_CHARGE_CODE] == 1


def test_one_volley_per_alien_per_phase() -> None:
    # 6. a character decides how many shots it fires at each ALIEN; the result is determined
    # once for each attacked ALIEN: no second roll against the same ALIEN in one phase.
    s = build({HICKS: (7, 12)}, aliens=[((7, 14), 4), ((6, 15), 4)], active=HICKS)
    s._settle()
    a0, a1 = s.a_id
    assert (SHOOT, a0, CARBINE, 1) in s.legal_actions()
    s.rng = FixedDice([6])  # type: ignore[assignment]
    s.apply((SHOOT, a0, CARBINE, 1))  # +4, die 6: loses 1, retreats 1
    if s.interrupt:  # the ALIENS choose where it retreats
        s.apply(s.legal_actions()[0])
    assert a0 in s.a_id and s.shot_at == (a0,)
    targets = {a[1] for a in s.legal_actions() if a[0] == SHOOT}
    assert a0 not in targets and a1 in targets  # another ALIEN may still be shot
    # the next phase (a new activation) may fire at it again
    s._do_activate(HICKS)
    s.c_fired[HICKS] = False
    s.c_ap[HICKS] = 6
    s._legal = None
    assert a0 in {a[1] for a in s.legal_actions() if a[0] == SHOOT}


def test_no_walking_onto_or_through_a_character_on_the_transporter() -> None:
    # 4.1 a character may not stop on or pass through another character's space; 4.2 lets
    # characters cross the transporter's space, but a character standing there still blocks.
    s = build({HICKS: (5, 3), HUDSON: (6, 3)}, active=HICKS)
    s.tr_pos = B.idx(6, 3)
    s.tr_fuel = 3
    s._settle()
    moves = {a[1] for a in s.legal_actions() if a[0] == MOVE}
    assert B.idx(6, 3) not in moves
    # the transporter alone does not block
    s2 = build({HICKS: (5, 3)}, active=HICKS)
    s2.tr_pos = B.idx(6, 3)
    s2._settle()
    moves2 = {a[1] for a in s2.legal_actions() if a[0] == MOVE}
    assert B.idx(6, 3) in moves2 and B.idx(7, 3) in moves2
    assert s2._char_dests(HICKS)[B.idx(7, 3)] == 2
