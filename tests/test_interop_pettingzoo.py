"""The PettingZoo adapter passes PettingZoo's own api_test and seed_test for every game, and
its observations, masks, rewards and seeding say what the game says."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from balancelab.games import get_game  # noqa: E402
from balancelab.interop import seat_returns  # noqa: E402
from balancelab.interop.observation import ObservationOverflowError, ViewEncoder  # noqa: E402
from balancelab.interop.pettingzoo import env, raw_env  # noqa: E402
from balancelab.simulate.core import IllegalActionError, rules_stream  # noqa: E402
from balancelab.simulate.options import OptionError  # noqa: E402

#: small games: a short round cap keeps obcy quick (its games then end by the cap)
CASES = [("odyssey", {"crew": 3}), ("iss", {"players": 3}), ("obcy", {"max_rounds": 3})]


@pytest.mark.parametrize(("name", "options"), CASES)
def test_pettingzoo_api_and_seed_tests(name: str, options: dict[str, object]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's style hints (agent names, Dict spaces)
        api_test(env(name, **options), num_cycles=60)
        seed_test(lambda: env(name, **options), num_cycles=60)


@pytest.mark.parametrize(("name", "options"), CASES)
def test_a_full_game_through_the_env(name: str, options: dict[str, object]) -> None:
    """Seeded like simulate; masks are the legal actions; rewards are the game's result."""
    e = raw_env(name, **options)
    game, opts = e.game, e.options
    e.reset(seed=11)
    twin = game.new_initial_state(opts, rules_stream(11, 0))
    enc = ViewEncoder(game)
    rng = np.random.default_rng(0)
    steps = 0
    while not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
        agent = e.agent_selection
        seat = e.possible_agents.index(agent)
        assert seat == twin.current_seat
        obs = e.observe(agent)
        np.testing.assert_array_equal(obs["observation"], enc.encode(twin.view(seat)))
        legal = twin.legal_actions()
        ids = np.flatnonzero(obs["action_mask"])
        assert len(ids) == len(legal)
        other = e.possible_agents[(seat + 1) % len(e.possible_agents)]
        if other != agent:
            assert not e.observe(other)["action_mask"].any()
        i = int(rng.integers(len(ids)))
        decoded = game.decode_action(twin.view(seat), int(ids[i]))  # type: ignore[attr-defined]
        e.step(int(ids[i]))
        twin.apply(decoded)
        steps += 1
    record = twin.result()
    expected = seat_returns(game, opts, record)
    assert [e.rewards[a] for a in e.possible_agents] == list(expected)
    capped = record.end_reason == "cap"
    assert all(e.truncations[a] == capped for a in e.possible_agents)
    assert all(e.terminations[a] != capped for a in e.possible_agents)
    assert steps > 10
    e.reset()  # the next game of the same run seed
    nxt = game.new_initial_state(opts, rules_stream(11, 1))
    first = e.possible_agents[nxt.current_seat]
    np.testing.assert_array_equal(e.observe(first)["observation"],
                                  enc.encode(nxt.view(nxt.current_seat)))


def test_seat_returns_values() -> None:
    from balancelab.simulate.core import GameRecord

    odyssey = get_game("odyssey")
    o = odyssey.options_type.from_strings({"crew": 2})
    assert list(seat_returns(odyssey, o, GameRecord("crew", "third_sequence", 3))) == [-1, 1, 1]
    assert list(seat_returns(odyssey, o, GameRecord("", "cap", 3))) == [0, 0, 0]
    iss = get_game("iss")
    o = iss.options_type.from_strings({"players": 3})
    assert list(seat_returns(iss, o, GameRecord("seat1", "last_shuttle", 3))) == [-1, 1, -1]
    assert list(seat_returns(iss, o, GameRecord("tie", "last_shuttle", 3))) == [0, 0, 0]


def test_bad_input_gets_clear_errors() -> None:
    with pytest.raises(OptionError, match="unknown option 'crw'.*crew"):
        env("odyssey", crw=3)
    e = env("odyssey", crew=2)
    e.reset(seed=1)
    with pytest.raises(IllegalActionError, match="legal:"):
        e.step(0)  # "end + draw 0" is not legal for HAL's opening turn
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(10**6)
    shown = raw_env("odyssey", render_mode="ansi", crew=2)
    shown.reset(seed=1)
    assert (shown.render() or "").startswith("hal to act: HAL reveals")
    with pytest.raises(ValueError, match="render_mode must be None or 'ansi'"):
        raw_env("odyssey", render_mode="human")


def test_a_view_too_big_for_its_layout_names_the_field() -> None:
    game = get_game("iss")
    enc = ViewEncoder(game)
    s = game.new_initial_state(game.options_type(), rules_stream(0, 0))
    i = enc.fields.index("hand")
    enc.slots = (*enc.slots[:i], 1, *enc.slots[i + 1:])
    with pytest.raises(ObservationOverflowError, match="'hand' holds .* its block has 1"):
        enc.encode(s.view(0))


@pytest.mark.slow
@pytest.mark.parametrize("name", ["odyssey", "iss", "obcy"])
def test_pettingzoo_api_and_seed_tests_at_their_default_length(name: str) -> None:
    """PettingZoo's defaults (1000 and 500 cycles: several whole games) at default options."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(env(name))
        seed_test(lambda: env(name))
