"""Whole games of 1998 ISS: they end, conserve every piece, replay identically, hide hands."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_state
from hypothesis import given, settings
from hypothesis import strategies as hs
from iss_helpers import check_conservation

from balancelab.games import get_game
from balancelab.policies.base import build
from balancelab.simulate.iss import GAME, IssOptions
from balancelab.simulate.iss.rules import GOAL_TIMINGS
from balancelab.simulate.iss.state import P_KEEP
from balancelab.simulate.worker import play_game


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), players=hs.integers(1, 4), remove=hs.booleans(),
       choice=hs.sampled_from(["human", "first", "random"]),
       timing=hs.sampled_from(GOAL_TIMINGS), recall=hs.booleans())
def test_random_games_end_and_conserve_everything(seed: int, players: int, remove: bool,
                                                  choice: str, timing: str,
                                                  recall: bool) -> None:
    s = make_state(players, seed=seed, remove_shuttles=remove, fedor_choice=choice,
                   goal_timing=timing, fedor_extra_recall=recall)
    prng = np.random.default_rng(seed + 1)
    check_conservation(s)
    while not s.is_terminal():
        legal = s.legal_actions()
        assert legal
        s.apply(legal[int(prng.integers(len(legal)))])
        check_conservation(s)
    rec = s.result()
    assert rec.end_reason == "last_shuttle"
    assert rec.winner in GAME.outcomes
    assert max(rec.measures["launches_russia"], rec.measures["launches_usa"]) >= (
        4 if remove else 5)


def test_same_seed_same_game_with_default_players() -> None:
    g = get_game("iss")
    o = IssOptions(players=4)
    a = play_game(g, o, ["balanced"] * 4, 7, 3).record
    b = play_game(g, o, ["balanced"] * 4, 7, 3).record
    assert a == b
    c = play_game(g, o, ["balanced"] * 4, 7, 4).record
    assert c != a


def test_cap_ends_with_no_winner() -> None:
    g = get_game("iss")
    rec = play_game(g, IssOptions(players=2, max_turns=6), ["random", "random"], 1, 0).record
    assert rec.end_reason == "cap" and rec.winner == ""


def test_views_hide_other_hands_and_decisions_do_not_depend_on_them() -> None:
    s = make_state(3, seed=12)
    v = s.view(0)
    assert v.hand == tuple(s.hand[0]) and v.hand_sizes == (2, 2, 2)
    assert not hasattr(v, "edeck") and not hasattr(v, "sdeck")
    twin = s.copy()
    # swap seat 1's hand for unseen cards of the same levels
    lv = s.st.exp_level
    for i, e in enumerate(twin.hand[1]):
        d = twin.edeck[lv[e] - 1]
        twin.hand[1][i], d[0] = d[0], e
    assert twin.hand[1] != s.hand[1]
    check_conservation(twin)
    g = get_game("iss")
    for name in ("balanced", "experimenter", "builder", "shuttler"):
        pa = build(g, s.st.opts, 0, name, np.random.default_rng(5))
        pb = build(g, s.st.opts, 0, name, np.random.default_rng(5))
        legal = s.legal_actions()
        assert pa.act(s.view(s.current_seat), legal) == pb.act(twin.view(s.current_seat), legal)


def test_determinize_is_consistent_with_the_view() -> None:
    s = make_state(4, seed=13, remove_shuttles=True)
    prng = np.random.default_rng(0)
    for _ in range(40):
        legal = s.legal_actions()
        s.apply(legal[int(prng.integers(len(legal)))])
    assert not s.is_terminal()
    seat = s.current_seat
    v = s.view(seat)
    d = GAME.determinize(v, np.random.default_rng(1))
    check_conservation(d)
    assert d.hand[seat] == s.hand[seat]
    assert [len(h) for h in d.hand] == [len(h) for h in s.hand]
    assert [len(x) for x in d.edeck] == [len(x) for x in s.edeck]
    assert d.legal_actions() == s.legal_actions()
    dv = d.view(seat)
    for name in ("cocc", "colc", "iss", "ext", "pad", "cd", "offer", "owned", "hand"):
        assert getattr(dv, name) == getattr(v, name)
    while not d.is_terminal():
        d.apply(d.legal_actions()[0])


def test_determinize_solo_keeps_fedor_top_back() -> None:
    s = make_state(1, seed=14)
    v = s.view(0)
    d = GAME.determinize(v, np.random.default_rng(2))
    check_conservation(d)
    assert d.view(0).fnext_back == v.fnext_back


@pytest.mark.parametrize("name", ["builder", "balanced", "experimenter", "shuttler"])
def test_scripted_players_beat_random(name: str) -> None:
    g = get_game("iss")
    o = IssOptions(players=2)
    wins = 0
    for i in range(20):
        specs = [name, "random"] if i % 2 == 0 else ["random", name]
        rec = play_game(g, o, specs, 3, i).record
        wins += rec.winner == f"seat{specs.index(name)}"
    assert wins >= 17


def test_default_policy_is_builder() -> None:
    assert GAME.default_policies == {"player": "builder"}


@pytest.mark.parametrize(("players", "opts"), [(1, {}), (2, {"goal_timing": "either"}), (3, {})])
def test_determinized_world_offers_the_same_choices_at_every_decision(players: int,
                                                                      opts: dict) -> None:
    """A search world must continue the real decision: FEDOR's pending token choice (solo,
    ``fedor_choice=human``), an extra action's Plan being kept, the goal step (issue 12)."""
    for seed in range(3):
        s = make_state(players, seed=seed, **opts)
        prng = np.random.default_rng(seed)
        while not s.is_terminal():
            legal = s.legal_actions()
            d = GAME.determinize(s.view(s.current_seat), np.random.default_rng(seed))
            assert d.legal_actions() == legal, (seed, s.phase)
            a = legal[int(prng.integers(len(legal)))]
            kept = s.phase == P_KEEP
            d.apply(a)  # and the world plays it on
            s.apply(a)
            if kept:  # after an extra action's Plan: back to the extra-action step
                assert (d.phase, d.turn_player, d.res) == (s.phase, s.turn_player, s.res)


def test_a_sampled_fedor_deck_shows_the_back_and_is_otherwise_uniform() -> None:
    """The top card is one with the back the players see, uniformly; the cards under it are
    a uniform shuffle (swapping the first matching card to the top skewed the card under it:
    with two matching cards and one other, the other matching card was second 2/3 of the time
    instead of 1/2)."""
    from collections import Counter
    from types import SimpleNamespace

    import numpy as np

    from balancelab.simulate.iss.game import _fedor_deck

    fedor = [SimpleNamespace(back=b) for b in (1, 1, 2)]  # cards 0 and 1 share back 1
    rng = np.random.default_rng(0)
    decks = [_fedor_deck([0, 1, 2], 1, fedor, rng) for _ in range(4000)]
    assert all(d[-1] in (0, 1) and sorted(d) == [0, 1, 2] for d in decks)
    tops = Counter(d[-1] for d in decks)
    assert abs(tops[0] / 4000 - 0.5) < 0.04
    under = Counter(d[-2] for d in decks if d[-1] == 0)
    assert abs(under[1] / sum(under.values()) - 0.5) < 0.05
    assert sorted(_fedor_deck([0, 1, 2], -1, fedor, rng)) == [0, 1, 2]  # no back shown


@pytest.mark.parametrize("players", [1, 2, 4])
def test_the_score_is_the_score_parts_total(players: int) -> None:
    s = make_state(players, seed=5)
    prng = np.random.default_rng(6)
    while not s.is_terminal():
        for p in range(s.st.np):
            assert s.score(p) == s.score_parts(p)["score"]
        legal = s.legal_actions()
        s.apply(legal[int(prng.integers(len(legal)))])


def test_a_scripted_player_draws_its_ties_as_its_generator_would() -> None:
    """A player built from a seed source (the searches' rollouts) steps the seed's stream in
    integer arithmetic: the same choices as the same player drawing from the Generator."""
    from balancelab.simulate.seeding import FixedSeed, seeded_generator

    g = get_game("iss")
    o = IssOptions(players=3)
    for game in range(3):
        lazy = [build(g, o, k, "builder", FixedSeed(100 * game + k)) for k in range(3)]
        made = [build(g, o, k, "builder", seeded_generator(100 * game + k)) for k in range(3)]
        s, t = make_state(3, seed=game), make_state(3, seed=game)
        while not s.is_terminal():
            legal = s.legal_actions()
            p = s.current_seat
            a = lazy[p].act(s.view(p), legal) if len(legal) > 1 else legal[0]
            b = made[p].act(t.view(p), legal) if len(legal) > 1 else legal[0]
            assert a == b
            s.apply(a)
            t.apply(b)
        assert all(pol._draws is not None for pol in lazy)  # they did draw, without Generators
        assert all(pol._rng is None for pol in lazy)


@settings(max_examples=15, deadline=None)
@given(seed=hs.integers(0, 2**32 - 1), players=hs.integers(1, 4), remove=hs.booleans())
def test_views_show_the_public_records_as_they_are_now(seed: int, players: int,
                                                       remove: bool) -> None:
    """A view shares the public records' tuples (the module row, docked modules, goals,
    launches, FEDOR's discards, shuttles owned, experiments done) until one of them changes:
    at every decision of a random game, and in a copy, each equals the state's record now."""
    s = make_state(players, seed=seed, remove_shuttles=remove)
    prng = np.random.default_rng(seed + 1)
    while not s.is_terminal():
        for state in (s, s.copy()):
            v = state.view(state.current_seat)
            assert v.col == tuple(state.col) and v.offer == tuple(state.offer)
            assert v.ctype == tuple(state.ctype) and v.cmod == tuple(state.cmod)
            assert v.docked == tuple(state.docked) and v.launches == tuple(state.launches)
            assert v.fdisc == tuple(state.fdisc) and v.fpick == tuple(state.fpick)
            assert v.pgoals == tuple(tuple(x) for x in state.pgoals)
            assert v.owned == tuple(tuple(x) for x in state.owned)
            assert v.done == tuple(tuple(x) for x in state.done)
        legal = s.legal_actions()
        s.apply(legal[int(prng.integers(len(legal)))])
