"""Invariants over random games: conservation, limits, ends; views; determinization."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_odyssey import census_ok
from hypothesis import given, settings
from hypothesis import strategies as st

from balancelab.games import get_game
from balancelab.policies.base import RandomPolicy, build, resolve
from balancelab.simulate.core import IllegalActionError
from balancelab.simulate.odyssey import GAME, OdysseyOptions, OdysseyState, OdysseyView
from balancelab.simulate.odyssey.state import T_ACT, T_MOVE
from balancelab.simulate.play import play

OPTS = st.builds(
    OdysseyOptions,
    crew=st.sampled_from([2, 3, 4]),
    hal_extra_turns=st.sampled_from([-1, 0, 1]),
    crew_talk=st.sampled_from(["none", "logic", "open"]),
    hal_turn_every=st.sampled_from([1, 2]),
    pod_strict=st.booleans(),
    whitehead_remote_repair=st.booleans(),
)


def _check_limits(s: OdysseyState) -> None:
    n = s.ctx.n
    assert s.hal_hand_n() <= s.marker + (1 if s.phase == 5 else 0)  # 5: discarding
    assert s.hand_n[0] == s.hal_hand_n()  # the count the state keeps for the views
    assert len(s.hal_rev) <= 3 and s.hal_rev == sorted(s.hal_rev)
    assert all(0 <= m for m in s.mal)
    pods = sum(1 for t in range(1, n + 1) if s.pos[t] == s.ctx.pod)
    assert pods <= 1
    assert s.marker == 6 - s.sequences
    # hand limits hold whenever a crewmember is not in the middle of discarding
    pending = {seat for code, seat in s.stack if code in (10,)}
    for t in range(1, n + 1):
        if not s.terminal and t not in pending and t != s.current_seat:
            assert s.hand_n[t] <= s.hand_limit(t) or s.actor == t
        assert s.hand_n[t] == sum(s.hands[t])


@settings(max_examples=40, deadline=None)
@given(OPTS, st.integers(0, 2**32 - 1))
def test_random_games_conserve_cards_and_end(o: OdysseyOptions, seed: int) -> None:
    rng = np.random.default_rng(seed)
    s = GAME.new_initial_state(o, rng)
    assert isinstance(s, OdysseyState)
    pol = np.random.default_rng(seed + 1)
    steps = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal
        s.apply(legal[int(pol.integers(len(legal)))])
        assert census_ok(s)
        _check_limits(s)
        if steps % 3 == 0 and not s.is_terminal():  # the views' tuples kept by the state
            v = s.view(s.current_seat)
            assert (v.pos, v.malfunctions, v.doors, v.hal_revealed, v.hand_n) == (
                tuple(s.pos), tuple(s.mal), tuple(s.doors), tuple(s.hal_rev), tuple(s.hand_n))
        steps += 1
        assert steps < 20000
    rec = s.result()
    assert rec.winner in ("hal", "crew", "")
    assert (rec.winner == "") == (rec.end_reason == "cap")
    assert set(rec.measures) == set(GAME.measure_schema)


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([2, 3, 4]), st.integers(0, 2**32 - 1))
def test_default_policies_games_end(crew: int, seed: int) -> None:
    o = OdysseyOptions(crew=crew)
    specs = [resolve(GAME, GAME.side_of_seat(o, k), "default") for k in range(crew + 1)]
    pols = [build(GAME, o, k, sp, np.random.default_rng(seed + k)) for k, sp in enumerate(specs)]
    played = play(GAME, o, pols, np.random.default_rng(seed))
    assert played.record.winner in ("hal", "crew", "")
    assert census_ok(played.state)  # type: ignore[arg-type]


def _midgame(seed: int, crew: int = 3, talk: str = "none", phase: int = T_ACT,
             ) -> OdysseyState:
    o = OdysseyOptions(crew=crew, crew_talk=talk)
    rng = np.random.default_rng(seed)
    s = OdysseyState.new(o, rng)
    pol = np.random.default_rng(seed)
    for _ in range(10000):
        if s.terminal:
            break
        if s.phase == phase and s.crew_turns >= 4:
            return s
        legal = s.legal_actions()
        s.apply(legal[int(pol.integers(len(legal)))])
    pytest.skip("no such position")
    raise AssertionError


def test_views_hide_what_they_must() -> None:
    s = _midgame(11)
    v0 = s.view(0)
    fields = set(OdysseyView._fields)
    assert "hands" not in fields and "hal_hidden" not in fields
    assert v0.hand == tuple(s.hal_hidden)  # HAL sees its hidden hand, no crew hand
    for seat in range(1, 4):
        v = s.view(seat)
        assert v.hand == tuple(s.hands[seat])
        assert v.hand_n[0] == s.hal_hand_n()
        assert v.talk == (None,) * 4
    # no mutable reference to the state
    v = s.view(1)
    s.pos[1] = -5
    assert v.pos[1] != -5


def _swap_hidden(s: OdysseyState, seat: int, seed: int) -> OdysseyState:
    """The same position with every card hidden from ``seat`` re-dealt."""
    t = GAME.determinize(s.view(seat), np.random.default_rng(seed))
    assert isinstance(t, OdysseyState)
    return t


@pytest.mark.parametrize("seed", range(6))
def test_policy_decisions_ignore_hidden_info(seed: int) -> None:
    g = get_game("odyssey")
    for phase, seat_side in ((T_ACT, "crew"), (T_MOVE, "crew"), (1, "hal")):
        s = _midgame(100 + seed, phase=phase)
        seat = s.current_seat
        assert (seat == 0) == (seat_side == "hal")
        o = s.ctx.options
        spec = g.default_policies[seat_side]
        t = _swap_hidden(s, seat, seed)
        assert s.view(seat) == t.view(seat)
        # hidden cards really differ somewhere
        others = [x for x in range(1, 4) if x != seat]
        differs = (s.hal_hidden != t.hal_hidden or s.hal_draw != t.hal_draw
                   or any(s.hands[x] != t.hands[x] for x in others))
        assert differs
        a = build(g, o, seat, spec, np.random.default_rng(1)).act(s.view(seat),
                                                                   s.legal_actions())
        b = build(g, o, seat, spec, np.random.default_rng(1)).act(t.view(seat),
                                                                   t.legal_actions())
        assert a == b


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_determinize_consistent(seat: int) -> None:
    s = _midgame(7)
    for k in range(5):
        t = _swap_hidden(s, seat, k)
        assert census_ok(t)
        assert t.view(seat) == s.view(seat)
        assert t.legal_actions() == s.legal_actions() or t.current_seat != seat
        # the determinized game plays on to an end
        pol = np.random.default_rng(k)
        while not t.is_terminal():
            legal = t.legal_actions()
            t.apply(legal[int(pol.integers(len(legal)))])
        assert census_ok(t)


def test_talk_reaches_every_view_and_stops_under_lipread() -> None:
    s = _midgame(5, talk="logic")
    for seat in range(4):
        talk = s.view(seat).talk
        if 13 in s.hal_rev:
            assert talk == (None,) * 4
        else:
            for t in range(1, 4):
                assert talk[t] == tuple(k for k in range(8, 20) for _ in range(s.hands[t][k]))
    s.hal_rev[-1] = 13  # the row stays sorted (13, Lipread, is the highest kind)
    assert s.view(0).talk == (None,) * 4


def test_illegal_action_raises() -> None:
    s = _midgame(3)
    with pytest.raises(IllegalActionError, match="legal"):
        s.apply(99999)
    s.apply(s.legal_actions()[0])
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    with pytest.raises(IllegalActionError):
        s.apply(0)
    with pytest.raises(RuntimeError):
        OdysseyState.new(OdysseyOptions(), np.random.default_rng(0)).result()


def test_copy_and_determinism() -> None:
    o = OdysseyOptions()
    a = OdysseyState.new(o, np.random.default_rng(9))
    b = a.copy()
    pol = np.random.default_rng(2)
    while not a.is_terminal():
        legal = a.legal_actions()
        assert legal == b.legal_actions()
        x = legal[int(pol.integers(len(legal)))]
        a.apply(x)
        b.apply(x)
    assert a.result() == b.result()
    recs = []
    for _ in range(2):
        pols = [RandomPolicy(GAME, o, k, np.random.default_rng(k)) for k in range(4)]
        recs.append(play(GAME, o, pols, np.random.default_rng(42)).record)
    assert recs[0] == recs[1]
