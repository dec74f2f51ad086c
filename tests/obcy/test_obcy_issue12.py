"""Issue 12 (rule fidelity), the Obcy items: built positions that failed before the fixes,
and the rulebook's remaining worked examples (9.1, 8. Variants 1 and 2, the ship, a draw)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from helpers import FixedDice, build

from balancelab.games import get_game
from balancelab.policies import base as P
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.actions import (
    A_MOVE,
    A_PICK,
    ABOARD,
    ACT,
    BOARD,
    D_ALIEN_MOVE,
    D_ALIEN_PICK,
    D_QUEEN,
    END_ACT,
    END_PHASE,
    GRENADE,
    HATCH,
    MOVE,
    NO_QUEEN,
    ON_BOARD,
    QUEEN,
    SHOOT,
    T_MOVE,
    T_STAY,
)
from balancelab.simulate.obcy.game import state_from_view
from balancelab.simulate.obcy.rules import (
    BISHOP,
    CARBINE,
    HICKS,
    HUDSON,
    RIPLEY,
    VASQUEZ,
    ObcyOptions,
)
from balancelab.simulate.obcy.rules import GRENADE as I_GRENADE
from balancelab.simulate.obcy.state import (
    MISSION_IDS,
    ST_AMOVE,
    ST_HATCH,
    ST_PICK,
    ST_TRANSPORT,
    ObcyState,
)

M15 = MISSION_IDS.index("M15")  # an ALIEN standing on a hatching space is killed
M17 = MISSION_IDS.index("M17")  # one grenade kills >= 2 ALIENS


def _board(s: ObcyState, c: int, tr: tuple[int, int], fuel: int) -> None:
    """Put character ``c`` in the transporter, standing on ``tr`` with ``fuel`` phases."""
    s._char_out(s.c_pos[c])
    s.tr_pos = B.idx(*tr)
    s.tr_fuel = fuel
    s.c_state[c] = ABOARD
    s.c_pos[c] = s.tr_pos
    s._legal = None


def _pick_stage(s: ObcyState) -> None:
    s.stage = ST_PICK
    s.active = -1
    s._legal = None
    s._settle()


# -- 7. leaving the transporter ---------------------------------------------------------------
def test_a_rider_cannot_leave_onto_an_aliens_space() -> None:
    # 9.2 ALIENS and characters never share a space: the transporter stayed where an ALIEN
    # walked onto it during the ALIENS phase; its rider may not step out there.
    s = build({HICKS: (3, 17), HUDSON: (20, 3)}, aliens=[((10, 3), 2)])
    _board(s, HICKS, (10, 3), 2)
    s.stage = ST_TRANSPORT
    s._settle()
    s.apply((T_STAY,))
    legal = s.legal_actions()
    assert (ACT, HICKS) not in legal and (ACT, HUDSON) in legal
    assert s.c_state[HICKS] == ABOARD


def test_a_rider_cannot_leave_onto_another_characters_space() -> None:
    # 4.1 a character may not stop on a space occupied by another character
    s = build({HICKS: (3, 17), HUDSON: (10, 3)})
    _board(s, HICKS, (10, 3), 2)
    _pick_stage(s)
    assert (ACT, HICKS) not in s.legal_actions()
    s.apply((ACT, HUDSON))
    s.apply((MOVE, B.idx(12, 3)))  # Hudson walks off the transporter's space
    s.apply((END_ACT,))
    assert (ACT, HICKS) in s.legal_actions()
    s.apply((ACT, HICKS))
    assert s.c_state[HICKS] == ON_BOARD and s.c_pos[HICKS] == B.idx(10, 3)


def test_riders_of_an_emptied_transporter_leave_one_at_a_time() -> None:
    # 4.2 "If the fuel runs out, all characters must leave the transporter": they leave one
    # after the other (never two on one space), and the phase cannot end while one can.
    s = build({HICKS: (3, 17), HUDSON: (3, 17)})
    _board(s, HICKS, (10, 3), 1)
    _board(s, HUDSON, (10, 3), 1)
    s.stage = ST_TRANSPORT
    s._settle()
    s.apply((T_MOVE, B.idx(14, 3)))
    assert s.tr_fuel == 0
    assert s.c_state[HICKS] == ABOARD and s.c_state[HUDSON] == ABOARD
    legal = s.legal_actions()
    assert (END_PHASE,) not in legal and {(ACT, HICKS), (ACT, HUDSON)} <= set(legal)
    s.apply((ACT, HICKS))
    assert s.char_cnt[B.idx(14, 3)] == 1
    s.apply((MOVE, B.idx(16, 3)))
    s.apply((END_ACT,))
    assert (ACT, HUDSON) in s.legal_actions() and (END_PHASE,) not in s.legal_actions()
    s.apply((ACT, HUDSON))
    assert s.c_pos[HUDSON] == B.idx(14, 3) and s.char_cnt[B.idx(14, 3)] == 1
    s.apply((END_ACT,))
    assert (END_PHASE,) in s.legal_actions()


# -- 8. no boarding after firing ----------------------------------------------------------------
def test_no_boarding_after_firing() -> None:
    # 3. "After a character has fired a shot or shots, it may no longer move or perform
    # another action in that phase."
    s = build({HICKS: (10, 3)}, aliens=[((14, 3), 1)], active=HICKS)
    s.tr_pos = B.idx(10, 3)
    s.tr_fuel = 2
    s._settle()
    assert (BOARD,) in s.legal_actions()
    s.rng = FixedDice([6])  # type: ignore[assignment]
    s.apply((SHOOT, s.a_id[0], CARBINE, 1))
    if s.interrupt:
        s.apply(s.legal_actions()[0])
    assert s.c_fired[HICKS]
    assert (BOARD,) not in s.legal_actions()


# -- 9. the grenade in a room -------------------------------------------------------------------
def _areas(s: ObcyState) -> set[frozenset[int]]:
    out = [frozenset(a[1:]) - {-1} for a in s.legal_actions() if a[0] == GRENADE]
    assert len(out) == len(set(out)), "each area once"
    return set(out)


def _rule_areas(s: ObcyState, c: int) -> set[frozenset[int]]:
    """5. by brute force: every connected trio of room spaces holding an ALIEN with a space
    the grenade can reach (at most 2 away, line of sight, not the thrower's own)."""
    pos = s.c_pos[c]
    los = B.LOS[pos]

    def reach(t: int) -> bool:
        inter = los.get(t)
        return t != pos and inter is not None and len(inter) < 2 and s._los_clear(inter)

    room = [i for i in range(B.N) if B.KIND[i] == B.ROOM]
    near = {i for i in room if min(B.DIST[i][p] for p in s.a_pos) <= 2}
    out = set()
    for trio in itertools.combinations(sorted(near), 3):
        x, y, z = trio
        connected = sum(
            1 for u, v in ((x, y), (y, z), (x, z)) if v in B.NBR_SET[u]) >= 2
        if not connected or not any(t in s.a_pos for t in trio):
            continue
        if any(reach(t) for t in trio):
            out.add(frozenset(trio))
    return out


def test_grenade_in_a_room_any_space_of_the_three_within_two() -> None:
    # 5. "In a room, it acts on three freely chosen adjacent spaces, at least one of which
    # lies no further than two spaces from the character throwing the grenade." Hicks in the
    # Engineering room (g), an ALIEN three spaces away in the same room.
    s = build({HICKS: (14, 12)}, aliens=[((16, 13), 2)], active=HICKS)
    s.c_pk[HICKS][2] = I_GRENADE
    s._settle()
    assert B.DIST[B.idx(14, 12)][B.idx(16, 13)] == 3
    got = _areas(s)
    want = _rule_areas(s, HICKS)
    assert got == want
    assert len(got) == 14  # 7 of them were missing before the fix
    # e.g. the ALIEN (3 away) in the middle, an end (15,13) 2 away
    assert frozenset({B.idx(15, 13), B.idx(16, 13), B.idx(17, 13)}) in got


def test_grenade_room_count_from_a_busy_spot() -> None:
    # Hicks in the middle of the Armoury (f) with four ALIENS around him in the room: 54
    # areas, each offered once (before the fix 72 throws repeated some areas).
    s = build({HICKS: (10, 13)},
              aliens=[((9, 12), 1), ((12, 14), 2), ((11, 15), 1), ((9, 15), 3)], active=HICKS)
    s.c_pk[HICKS][2] = I_GRENADE
    s._settle()
    got = _areas(s)
    room = _rule_areas(s, HICKS)
    assert room <= got  # every room trio; the others hold a door, grate or duct space
    assert all(any(B.KIND[t] != B.ROOM for t in a) for a in got - room)
    assert len(got) == 54


# -- 10. the ALIENS choose their order of movement -----------------------------------------------
def _alien_move_stage(s: ObcyState) -> None:
    s.stage = ST_AMOVE
    s.move_order = tuple(s.a_id)
    s.a_cur = -1
    s._legal = None
    s._settle()


def test_a_younger_alien_may_move_first_to_clear_a_corridor() -> None:
    # 9.2 sets no order; an ALIEN may not pass through another. The older ALIEN (id 0) at
    # (8,3) is stuck behind the younger (id 1) at (7,3) in the top corridor... until it moves.
    s = build({HICKS: (3, 17)}, aliens=[((5, 3), 1), ((4, 3), 2)])
    old, young = s.a_id
    _alien_move_stage(s)
    assert s.decision() == D_ALIEN_PICK
    assert set(s.legal_actions()) == {(A_PICK, old), (A_PICK, young)}
    before = set(s._alien_dests(s.a_id.index(young)))
    s.apply((A_PICK, old))
    assert s.decision() == D_ALIEN_MOVE and s.view(1).alien == old
    s.apply((A_MOVE, B.idx(9, 3)))  # the older one goes east, out of the way
    assert s.decision() == D_ALIEN_MOVE and s.view(1).alien == young  # the last one left
    after = {a[1] for a in s.legal_actions()}
    assert B.idx(8, 3) in after - before


def test_hunter_lets_the_alien_in_front_move_first() -> None:
    from balancelab.games import get_game
    from balancelab.policies import base as P

    g = get_game("obcy")
    s = build({HICKS: (12, 3)}, aliens=[((5, 3), 1), ((7, 3), 2)])
    old, young = s.a_id
    _alien_move_stage(s)
    pol = P.build(g, s.opt, 1, "hunter", np.random.default_rng(0))
    assert pol.act(s.view(1), s.legal_actions()) == (A_PICK, young)  # it blocks the corridor
    s2 = build({HICKS: (12, 3)}, aliens=[((7, 3), 1), ((5, 3), 2)])
    _alien_move_stage(s2)
    pol2 = P.build(g, s2.opt, 1, "hunter", np.random.default_rng(0))
    assert pol2.act(s2.view(1), s2.legal_actions()) == (A_PICK, s2.a_id[0])  # oldest first


def test_aliens_far_apart_move_oldest_first_without_a_choice() -> None:
    # the order cannot matter for ALIENS more than 2 x 4 spaces apart: no pick decision
    s = build({HICKS: (3, 17)}, aliens=[((20, 6), 1), ((5, 3), 2), ((6, 3), 1)])
    far_, a, b = s.a_id
    _alien_move_stage(s)
    assert s.decision() == D_ALIEN_MOVE and s.a_cur == far_
    s.apply(s.legal_actions()[0])
    assert s.decision() == D_ALIEN_PICK and set(s.legal_actions()) == {(A_PICK, a), (A_PICK, b)}


def test_alien_order_kept_when_the_ids_are_not_ascending() -> None:
    # the ALIENS' places are found by a walk along ``a_id`` (ascending in play); a state
    # whose ``a_id`` runs in another order lists the same picks, moves and hunter choices
    aliens = [((5, 3), 1), ((7, 3), 2), ((6, 5), 3), ((20, 6), 1)]
    g = get_game("obcy")
    s = build({HICKS: (12, 3)}, aliens=aliens)
    t = build({HICKS: (12, 3)}, aliens=aliens)
    for name in ("a_id", "a_pos", "a_str"):
        setattr(t, name, getattr(t, name)[::-1])
    _alien_move_stage(s)
    t.move_order = tuple(s.a_id)  # the oldest first, as in play
    t.a_cur = -1
    t.stage = s.stage
    t._legal = None
    t._settle()
    picks = 0
    while s.decision() in (D_ALIEN_PICK, D_ALIEN_MOVE):
        picks += s.decision() == D_ALIEN_PICK
        assert t.decision() == s.decision() and t.a_cur == s.a_cur
        assert t.legal_actions() == s.legal_actions() and len(s.legal_actions()) > 0
        ps = P.build(g, s.opt, 1, "hunter", np.random.default_rng(0))
        pt = P.build(g, t.opt, 1, "hunter", np.random.default_rng(0))
        a = ps.act(s.view(1), s.legal_actions())
        assert pt.act(t.view(1), t.legal_actions()) == a
        s.apply(a)
        t.apply(a)
    assert picks >= 2
    assert sorted(zip(t.a_id, t.a_pos, strict=True)) == sorted(zip(s.a_id, s.a_pos, strict=True))


# -- 11. hatching options -----------------------------------------------------------------------
def _hatch_stage(s: ObcyState, pts: int) -> None:
    s.stage = ST_HATCH
    s.hatch_pts = pts
    s.hatch_first = s.next_aid
    s._legal = None
    s._settle()


def _spaces(s: ObcyState) -> set[int]:
    return {a[2] for a in s.legal_actions() if a[0] == HATCH}


HOLD = {c: B.COORDS[h] for c, h in enumerate(B.HATCHES)}


def test_closed_no_hatching_on_a_held_space() -> None:
    s = build({HICKS: HOLD[0]})
    _hatch_stage(s, 3)
    assert _spaces(s) == {1, 2, 3, 4}


def test_closed_all_hatching_spaces_held_still_hatches() -> None:
    # 9.1 "The hatching process takes place in every phase": with all five held, the new
    # ALIENS hatch on the held spaces (and must leave them in their movement).
    s = build(HOLD)
    _hatch_stage(s, 3)
    assert s.current_seat == 1 and _spaces(s) == {0, 1, 2, 3, 4}
    s.apply((HATCH, 3, 0))
    assert s.a_pos == [B.HATCHES[0]] and s.hatch_pts == 0


def test_open_hatching_on_a_held_space_and_the_alien_must_leave() -> None:
    s = build({HICKS: HOLD[0]}, hatching_held_space="open")
    _hatch_stage(s, 2)
    assert 0 in _spaces(s)
    s.apply((HATCH, 2, 0))
    assert s.stage == ST_AMOVE and s.decision() == D_ALIEN_MOVE
    dests = {a[1] for a in s.legal_actions()}
    assert B.HATCHES[0] not in dests and dests
    s.rng = FixedDice([1])  # type: ignore[assignment]  # 2 - 5 = -3, die 1: no effect
    s.apply(s.legal_actions()[0])
    assert s.a_pos[0] in B.NBR_SET[B.HATCHES[0]]  # it stops next to Hicks and attacks him
    assert not s.rng.rolls  # type: ignore[attr-defined]  # (the attack's die was rolled)


def test_open_an_alien_that_cannot_leave_attacks_from_the_shared_space() -> None:
    s = build({HICKS: HOLD[0]}, aliens=[(HOLD[0], 3)], hatching_held_space="open")
    s._find_targets()
    assert s.assign == [(s.a_id[0], HICKS)]


def test_no_hatching_onto_older_aliens_option() -> None:
    s = build({HICKS: (3, 17)}, aliens=[(HOLD[1], 2)], hatch_onto_older=False)
    _hatch_stage(s, 4)
    assert _spaces(s) == {0, 2, 3, 4}
    s.apply((HATCH, 1, 2))  # hatched this phase: its companions may join it
    assert 2 in _spaces(s)
    # default: stacks onto older ALIENS are allowed (today's reading)
    s2 = build({HICKS: (3, 17)}, aliens=[(HOLD[1], 2)])
    _hatch_stage(s2, 4)
    assert _spaces(s2) == {0, 1, 2, 3, 4}


def test_no_hatching_onto_older_aliens_never_skips_a_hatching() -> None:
    s = build({HICKS: (3, 17)}, aliens=[(HOLD[k], 1) for k in range(5)],
              hatch_onto_older=False)
    _hatch_stage(s, 2)
    assert _spaces(s) == {0, 1, 2, 3, 4}
    # a character on one of them: the character ruling still holds
    s2 = build({HICKS: HOLD[4]}, aliens=[(HOLD[k], 1) for k in range(4)],
               hatch_onto_older=False)
    _hatch_stage(s2, 2)
    assert _spaces(s2) == {0, 1, 2, 3}


def test_hatching_options_reject_bad_values() -> None:
    from balancelab.simulate.options import OptionError

    with pytest.raises(OptionError, match="closed, open"):
        ObcyOptions.from_strings({"hatching_held_space": "ajar"})


# -- 12. the ALIENS never see a discarded task --------------------------------------------------
def test_aliens_view_hides_discarded_tasks() -> None:
    s = build({HICKS: (3, 17)})
    s.discarded = [s.deck.pop()]
    s.open = [s.deck.pop()]
    v1, v0 = s.view(1), s.view(0)
    assert v1.discarded == () and v1.n_discarded == 1 and v1.open_missions == ()
    assert v0.discarded == tuple(s.discarded) and v0.n_discarded == 1
    d = state_from_view(v1, np.random.default_rng(5))
    assert len(d.discarded) == 1 and len(d.open) == 1
    assert sorted(d.open + d.deck + d.done + d.discarded) == list(range(20))


# -- 13. Variant 1: a fight after each completed task ---------------------------------------------
def test_two_tasks_by_one_grenade_offer_two_queen_fights() -> None:
    s = build({HICKS: (15, 5)}, aliens=[(HOLD[0], 1), ((16, 7), 1)], active=HICKS,
              queen_variant="roll")
    s.c_pk[HICKS][2] = I_GRENADE
    s.open = [M15, M17]
    s._settle()
    throw = next(a for a in s.legal_actions()
                 if a[0] == GRENADE and {B.HATCHES[0], B.idx(16, 7)} <= set(a[1:]))
    s.apply(throw)
    assert sorted(s.done) == sorted([M15, M17]) and s.points == 2
    assert s.decision() == D_QUEEN
    s.apply((NO_QUEEN,))
    assert s.decision() == D_QUEEN  # the second task's fight
    s.rng = FixedDice([1])  # type: ignore[assignment]
    s.apply((QUEEN,))
    assert not s.queen_alive and s.st["queen_fights"] == 1


# -- 16. the rulebook's remaining worked examples -----------------------------------------------
def test_hatching_a_six_as_four_one_one() -> None:
    # 9.1 Example: rolling a 6, "one ALIEN of strength 4, another of strength 1 and a third of
    # strength 1", on any hatching spaces
    s = build({HICKS: (3, 17)})
    _hatch_stage(s, 6)
    for st, k in ((4, 0), (1, 4), (1, 4)):
        assert (HATCH, st, k) in s.legal_actions()
        s.apply((HATCH, st, k))
    assert sorted(s.a_str) == [1, 1, 4] and s.hatch_pts == 0 and s.stage == ST_AMOVE


def _fight(points: int, queen: int) -> ObcyState:
    s = build({HICKS: (3, 17)}, queen_variant="roll")
    s.points = points
    s.queen_pending = 1
    s.stage = ST_PICK
    s._settle()
    assert s.decision() == D_QUEEN
    s.rng = FixedDice([queen])  # type: ignore[assignment]
    s.apply((QUEEN,))
    return s


def test_variant_1_lower_the_queen_dies_and_no_more_hatching() -> None:
    s = _fight(points=3, queen=2)
    assert not s.queen_alive and not s.hatching_on and s.points == 3


def test_variant_1_equal_the_queen_dies_but_hatching_continues() -> None:
    s = _fight(points=3, queen=3)
    assert not s.queen_alive and s.hatching_on and s.points == 3


def test_variant_1_higher_the_points_are_lost() -> None:
    s = _fight(points=3, queen=5)
    assert s.queen_alive and s.hatching_on and s.points == 0


def test_variant_2_three_tasks_kill_the_queen() -> None:
    # 8. Variant 2 "(for example, 3 tasks)": after the last of the agreed number the Queen
    # dies and the ALIENS no longer hatch
    s = build({HICKS: (3, 17)}, queen_variant="tasks", queen_tasks=3)
    s.open = [s.deck.pop(), s.deck.pop(), s.deck.pop()]
    for k in range(3):
        assert s.queen_alive and s.hatching_on
        s._complete(s.open[0])
        assert s.points == k + 1
    assert not s.queen_alive and not s.hatching_on


def test_reaching_the_ship_after_the_queen_died_wins() -> None:
    s = build({HICKS: (3, 17), RIPLEY: (10, 3)}, active=HICKS)
    s.queen_alive = False
    s._settle()
    assert (MOVE, B.PAD_SPACE) in s.legal_actions()
    s.apply((MOVE, B.PAD_SPACE))
    assert s.over and s.winner == "expedition" and s.end_reason == "returned_to_ship"


def test_the_ship_is_closed_while_the_queen_lives() -> None:
    s = build({HICKS: (3, 17)}, active=HICKS)
    s._settle()
    assert (MOVE, B.PAD_SPACE) not in s.legal_actions()


def test_all_killed_after_the_queen_died_is_a_draw() -> None:
    # 8./11. all members killed while withdrawing after the Queen's death: a draw
    s = build({BISHOP: (6, 13)}, aliens=[((7, 13), 4), ((5, 13), 4)])
    s.queen_alive = False
    s.c_str[BISHOP] = 1
    s.rng = FixedDice([1])  # type: ignore[assignment]
    s._alien_attack(BISHOP, tuple(s.a_id))
    assert s.over and s.winner == "draw" and s.end_reason == "draw_all_died_after_queen"


def test_all_killed_while_the_queen_lives_is_an_aliens_win() -> None:
    s = build({BISHOP: (6, 13)}, aliens=[((7, 13), 4), ((5, 13), 4)])
    s.c_str[BISHOP] = 1
    s.rng = FixedDice([1])  # type: ignore[assignment]
    s._alien_attack(BISHOP, tuple(s.a_id))
    assert s.over and s.winner == "aliens"


# -- 14. the trace shows combat results, deaths, merges and retreats ------------------------------
def test_trace_prints_combat_deaths_merges_and_retreats() -> None:
    s = build({HICKS: (7, 9)}, aliens=[((10, 9), 4)], active=HICKS)
    s.events()  # trace on
    s._settle()
    s.rng = FixedDice([5])  # type: ignore[assignment]
    s.apply((SHOOT, s.a_id[0], CARBINE, 2))  # 6. Example: +3, die 5 -> loses 1, retreats 1
    text = "\n".join(s.events())
    if s.interrupt:  # a retreat with a choice of end space: the decision's words tell it
        text += "\n" + s.action_text(s.legal_actions()[0])
        s.apply(s.legal_actions()[0])
    text += "\n" + "\n".join(s.events())
    assert "attack +3, die 5: the ALIEN (4 -> 3) loses 1, retreats 1" in text
    assert "the ALIEN of strength 3 retreats from" in text
    m = build({HICKS: (3, 17)}, aliens=[((10, 9), 3), ((10, 9), 2)])
    m.events()
    m._metamorphosis()
    assert "ALIENS of strength 3 and 2 become one of strength 4 (1 lost)" in "\n".join(
        m.events())
    k = build({HUDSON: (6, 13)}, aliens=[((7, 13), 1)])
    k.events()
    k.rng = FixedDice([6])  # type: ignore[assignment]
    k._alien_attack(HUDSON, tuple(k.a_id))  # 1 - 5 = -4, die 6: A3/3
    text = "\n".join(k.events())
    assert "attack -4, die 6: the ALIEN loses 3, retreats 3" in text
    assert "an ALIEN dies at" in text
    w = build({VASQUEZ: (2, 17)}, aliens=[((3, 17), 1), ((3, 16), 1)])
    w.events()
    w.rq = [(0, VASQUEZ, 2, -1)]
    w._settle()
    text = "\n".join(w.events())
    assert "Vasquez can retreat only 0 of 2" in text and "Vasquez's strength: 4" in text

