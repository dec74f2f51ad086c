"""Readings of the Obcy rules that move results, each a named option with today's reading as
its default (issue 30): a character standing on an airlock after re-entering (rule 4.3), and
M13 completed in the Expedition phase it is drawn in (design note 24)."""

from __future__ import annotations

import dataclasses

from helpers import build

from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.actions import END_ACT, ON_BOARD, REENTER, TRACK
from balancelab.simulate.obcy.rules import ObcyOptions


def _reenter_and_stand(**opts: object) -> tuple[int, int, int]:
    """A character at the end of the passage track re-enters through airlock 2 and ends its
    action there: its state, track space and exit airlock afterwards."""
    s = build({0: (5, 5)}, active=0, **opts)
    s._char_out(s.c_pos[0])
    s.c_state[0], s.c_track[0], s.c_exit[0] = TRACK, s.passage_len - 1, 1
    s._legal = None
    assert (REENTER, 2) in s.legal_actions()
    s.apply((REENTER, 2))
    assert s.c_state[0] == ON_BOARD and s.c_pos[0] == B.AIRLOCKS[1]
    s.apply((END_ACT,))
    return s.c_state[0], s.c_track[0], s.c_exit[0]


def test_a_character_standing_on_its_airlock_stays_by_default() -> None:
    assert ObcyOptions().airlock_stand_exits is False
    state, _, exit_no = _reenter_and_stand()
    assert state == ON_BOARD and exit_no == 0


def test_rule_4_3_read_literally_sends_it_out_again() -> None:
    assert _reenter_and_stand(airlock_stand_exits=True) == (TRACK, 0, 2)


def _clear_mission(s) -> int:  # type: ignore[no-untyped-def]
    return next(m for m, (kind, _) in enumerate(s.m_missions) if kind == "clear")


def test_m13_is_completed_in_the_phase_it_is_drawn_in_by_default() -> None:
    for when_drawn, done_at_once in ((True, True), (False, False)):
        s = build({0: (5, 5)}, clear_mission_when_drawn=when_drawn)  # no ALIEN anywhere
        m = _clear_mission(s)
        s.deck.remove(m)
        s.open.append(m)
        s.fresh.append(m)
        s._end_expedition()
        assert (m in s.done) is done_at_once
        assert s.fresh == []
        if not done_at_once:  # the next Expedition phase's end completes it
            s._end_expedition()
            assert m in s.done and m not in s.open


def test_the_readings_are_declared_with_their_source() -> None:
    fields = {f.name: f for f in dataclasses.fields(ObcyOptions)}
    for name in ("airlock_stand_exits", "clear_mission_when_drawn"):
        source = fields[name].metadata["source"]
        assert source.startswith("assumed: ") and ("4.3" in source or "note 24" in source)


def test_the_scripted_expedition_steps_off_the_airlock_under_the_literal_reading() -> None:
    """Under rule 4.3 read literally the default expedition steps off the airlock it
    re-entered through; it used to stand there, go out again and loop to the round cap (35
    of 250 games)."""
    from balancelab.simulate.runs import RunConfig, play_one

    config = RunConfig(game="obcy", variants=[ObcyOptions(airlock_stand_exits=True)],
                       seed=3, games=40)
    records = [play_one(config, 0, i).record for i in range(40)]
    capped = sum(r.winner == "" for r in records)
    exits = sum(int(r.measures.get("airlock_exits", 0)) for r in records)
    assert exits >= 10  # the airlocks are used
    assert capped <= 2, capped
