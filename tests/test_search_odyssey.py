"""The search policy on odyssey: determinization, fair information, the spec machinery, and
(slow) strength against the scripted crew."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from balancelab.games import get_game
from balancelab.policies import base
from balancelab.policies.search import SearchPolicy
from balancelab.simulate.core import game_streams
from balancelab.simulate.runs import RunConfig
from balancelab.simulate.worker import play_game

GAME = get_game("odyssey")


def positions(crew: int, seed: int, policy: str = "default", **options: Any) -> list[Any]:
    """Every decision point of one game (copies), with the sides on ``policy``."""
    o = GAME.options_type(crew=crew, **options)
    rules, seats = game_streams(seed, 0, crew + 1)
    pols = [
        base.build(GAME, o, k, base.resolve(GAME, GAME.side_of_seat(o, k), policy), seats[k])
        for k in range(crew + 1)
    ]
    s = GAME.new_initial_state(o, rules)
    out = []
    while not s.is_terminal():
        k = s.current_seat
        legal = s.legal_actions()
        if len(legal) > 1:
            out.append(s.copy())
        s._apply(legal[0] if len(legal) == 1 else pols[k].act(s.view(k), legal))
    return out


def crew_cards(s: Any) -> Counter[int]:
    c: Counter[int] = Counter(s.crew_draw + s.crew_disc + s.crew_trash)
    for h in s.hands[1:]:
        c.update({k: n for k, n in enumerate(h) if n})
    return c


def hal_cards(s: Any) -> Counter[int]:
    c: Counter[int] = Counter(s.hal_draw + s.hal_disc + s.hal_trash + s.hal_rev)
    c.update({k: n for k, n in enumerate(s.hal_hidden) if n})
    c.update({k: n for k, n in enumerate(s.mal[:4]) if n})
    return c


@settings(max_examples=30, deadline=None)
@given(crew=st.sampled_from([2, 3, 4]), seed=st.integers(0, 1000), pick=st.integers(0, 10**6),
       wseed=st.integers(0, 1000), policy=st.sampled_from(["default", "random"]),
       talk=st.sampled_from(["none", "logic", "open"]))
def test_determinize_keeps_the_view_and_the_card_multisets(
    crew: int, seed: int, pick: int, wseed: int, policy: str, talk: str
) -> None:
    """Every seat's sampled world shows it its own view, what the crew announced included
    (``crew_talk``: announced cards stay in their hands), and keeps both decks' cards."""
    ps = positions(crew, seed, policy, crew_talk=talk)
    s = ps[pick % len(ps)]
    for seat in range(crew + 1):
        w = GAME.determinize(s.view(seat), np.random.default_rng(wseed))
        assert w.view(seat) == s.view(seat)
        for other in range(crew + 1):  # announcements are public: every seat hears the same
            assert w.view(other).talk == s.view(other).talk
        assert crew_cards(w) == crew_cards(s) == Counter(s.ctx.crew_deck)
        assert hal_cards(w) == hal_cards(s) == Counter(s.ctx.hal_deck)
        assert w.current_seat == s.current_seat


@pytest.mark.parametrize("crew", [2, 4])
def test_decisions_ignore_what_the_seat_cannot_see(crew: int) -> None:
    """A twin consistent with the deciding seat's view (everything it cannot see re-dealt)
    gets the same decisions from the same seed."""
    o = GAME.options_type(crew=crew)
    checked = 0
    for s in positions(crew, 5)[::9]:
        seat = s.current_seat
        twin = GAME.determinize(s.view(seat), np.random.default_rng(99))
        assert twin.view(seat) == s.view(seat)
        if sorted(twin.legal_actions()) != sorted(s.legal_actions()):
            continue  # a decision whose legal actions show more than the view (Recover)
        p = SearchPolicy(GAME, o, seat, np.random.default_rng(3), rollouts=12, depth=10)
        q = SearchPolicy(GAME, o, seat, np.random.default_rng(3), rollouts=12, depth=10)
        for _ in range(2):
            assert p.act(s.view(seat), s.legal_actions()) == q.act(
                twin.view(seat), twin.legal_actions()
            )
        checked += 1
    assert checked >= 5


def test_spec_through_the_policy_machinery() -> None:
    assert base.resolve(GAME, "crew", "search:rollouts=400,depth=40") == (
        "search:depth=40,rollouts=400"
    )
    assert "search" in base.available("odyssey", "hal")
    with pytest.raises(base.PolicyError, match="no parameter"):
        base.resolve(GAME, "crew", "search:budget=3")
    cfg = RunConfig(game="odyssey", variants=[], policies={"crew": "search:rollouts=400,depth=40"},
                    games=1)
    specs = cfg.seat_specs(GAME.options_type())
    assert specs[0] != specs[1] and set(specs[1:]) == {"search:depth=40,rollouts=400"}
    pol = base.build(GAME, GAME.options_type(), 1, specs[1], np.random.default_rng(0))
    assert isinstance(pol, SearchPolicy) and (pol.rollouts, pol.depth) == (400, 40)


@pytest.mark.parametrize("side", ["crew", "hal"])
def test_same_seed_same_game(side: str) -> None:
    o = GAME.options_type(crew=2)
    specs = [
        base.resolve(GAME, GAME.side_of_seat(o, k),
                     "search:rollouts=6,depth=8" if GAME.side_of_seat(o, k) == side else "default")
        for k in range(3)
    ]
    a = play_game(GAME, o, specs, 4, 1)
    b = play_game(GAME, o, specs, 4, 1)
    assert (a.record.winner, a.record.rounds, a.decisions, a.record.measures) == (
        b.record.winner, b.record.rounds, b.decisions, b.record.measures
    )


@pytest.mark.slow
@pytest.mark.stat
@pytest.mark.xfail(
    strict=False,
    reason="measured (odyssey v2): search does not beat the scripted crew. At "
    "hal_turn_every=2 (crew=3 vs hal-pressure) crew=search:rollouts=16,rollout=default,"
    "depth=0,z=1 won 0.90 of 100 deals against crew-team's 0.88 on the same deals (z=0: 0.08 "
    "of 50 vs 0.94); "
    "at the rulebook setting HAL wins ~98% against every crew, so crew playouts see no wins",
)
def test_search_crew_beats_the_scripted_crew() -> None:
    """Crew on search (16 scripted playouts to the end, z=1) vs the scripted crew, both
    against the scripted HAL, on the same 40 deals at ``hal_turn_every=2`` (the what-if where
    the scripted sides are closest to even, so playouts carry signal).

    Criterion: crew win rate higher by >= 0.05 with paired z > 2 (one-sided). The measured
    gain is ~0 (see the xfail reason), so this documents a finding; were the true gain 0.1
    (paired SD <= 0.4), a seed would fail with probability P(Z < 2 - 1.6) ~ 35%.
    """
    o = GAME.options_type(crew=3, hal_turn_every=2)
    n = 40

    def wins(crew_spec: str) -> np.ndarray:
        specs = [base.resolve(GAME, GAME.side_of_seat(o, k),
                              "default" if k == 0 else crew_spec) for k in range(4)]
        return np.array([play_game(GAME, o, specs, 31, i).record.winner == "crew"
                         for i in range(n)], dtype=float)

    d = wins("search:rollouts=16,rollout=default,depth=0,z=1") - wins("default")
    sd = d.std(ddof=1) or 1.0
    z = d.mean() / (sd / np.sqrt(n))
    assert d.mean() >= 0.05 and z > 2.0, (d.mean(), z)


@pytest.mark.slow
@pytest.mark.stat
def test_search_hal_beats_the_scripted_hal_at_hal_turn_every_2() -> None:
    """HAL on search (16 scripted playouts to the end per decision, z=0) vs the scripted HAL,
    both against the scripted crew (crew=3), on the same 100 deals at ``hal_turn_every=2``
    (the what-if where crew playouts and HAL playouts both end either way).

    Measured on this seed: HAL wins 0.31 vs 0.11 (paired gain +0.20, paired SD 0.51,
    z = 3.9); 48 playouts: 0.43 vs 0.07 on 30 deals. Criterion: gain >= 0.08 and paired
    z > 2 (one-sided). If the true gain is the measured one, a seed fails with probability
    about P(Z < 2 - 3.9) + P(Z < -2.35) ~ 4%; the seed is fixed, so the outcome is
    deterministic. About 2-3 min on one core.
    """
    o = GAME.options_type(crew=3, hal_turn_every=2)
    n = 100

    def hal_wins(hal_spec: str) -> np.ndarray:
        specs = [base.resolve(GAME, GAME.side_of_seat(o, k),
                              hal_spec if k == 0 else "default") for k in range(4)]
        return np.array([play_game(GAME, o, specs, 11, i).record.winner == "hal"
                         for i in range(n)], dtype=float)

    d = hal_wins("search:rollouts=16,rollout=default,depth=0") - hal_wins("default")
    sd = d.std(ddof=1) or 1.0
    z = d.mean() / (sd / np.sqrt(n))
    assert d.mean() >= 0.08 and z > 2.0, (d.mean(), z)
