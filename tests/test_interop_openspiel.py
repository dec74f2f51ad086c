"""The OpenSpiel adapter passes OpenSpiel's own random-simulation test for every game, and
OpenSpiel's IS-MCTS bot plays it through resample_from_infostate (the game's determinize)."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import balancelab.interop.openspiel as bos  # noqa: E402
from balancelab.games import get_game  # noqa: E402
from balancelab.interop import seat_returns  # noqa: E402
from balancelab.simulate.core import rules_stream  # noqa: E402

GAMES = ["python_balancelab_odyssey(crew=3)", "python_balancelab_iss(players=3)",
         "python_balancelab_obcy(max_rounds=3)"]


def test_load_game_with_parameters() -> None:
    g = pyspiel.load_game("python_balancelab_odyssey(crew=3)")
    odyssey = get_game("odyssey")
    opts = odyssey.options_type.from_strings({"crew": 3})
    assert g.num_players() == 4
    assert g.num_distinct_actions() == odyssey.num_distinct_actions(opts)  # type: ignore[attr-defined]
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC
    iss = pyspiel.load_game("python_balancelab_iss(players=1,countdowns=2/2/2/2/2/2/2/2)")
    assert iss.num_players() == 1 and iss.options.countdowns == (2,) * 8
    types = {t.short_name: t for t in pyspiel.registered_games()}
    assert [(types[bos.PREFIX + n].min_num_players, types[bos.PREFIX + n].max_num_players)
            for n in ("odyssey", "iss", "obcy")] == [(3, 5), (1, 4), (2, 2)]
    with pytest.raises(Exception, match="option 'crew' of game 'odyssey' must be one of 2, 3, 4"):
        pyspiel.load_game("python_balancelab_odyssey(crew=7)")


@pytest.mark.parametrize("name", GAMES)
def test_openspiel_random_sim_test(name: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(name), num_sims=2, serialize=False,
                            verbose=False)


@pytest.mark.parametrize("name", GAMES)
def test_states_deal_like_simulate_and_return_the_game_result(name: str) -> None:
    g = pyspiel.load_game(name.replace(")", ",rng_seed=5)"))
    s = g.new_initial_state()
    twin = g.bl_game.new_initial_state(g.options, rules_stream(5, s.index))
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        p = s.current_player()
        assert p == twin.current_seat
        assert s.observation_string(p) == bos.ViewObserver(g).string_from(s, p)
        legal = s.legal_actions()
        assert legal == sorted(g.bl_game.encode_action(twin.view(p), a)
                               for a in twin.legal_actions())
        a = int(legal[int(rng.integers(len(legal)))])
        twin.apply(g.bl_game.decode_action(twin.view(p), a))
        s.apply_action(a)
    assert s.returns() == list(seat_returns(g.bl_game, g.options, twin.result()))


@pytest.mark.parametrize("name", GAMES)
def test_resample_keeps_the_players_observation_and_redeals_the_rest(name: str) -> None:
    g = pyspiel.load_game(name)
    s = g.new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(12):  # into the game, so that there is something hidden
        legal = s.legal_actions()
        s.apply_action(int(legal[int(rng.integers(len(legal)))]))
    p = s.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = set()
    for _ in range(6):
        r = s.resample_from_infostate(p, sampler)
        assert r.observation_string(p) == s.observation_string(p)
        assert r.legal_actions() == s.legal_actions()
        others.add(tuple(r.observation_tensor((p + 1) % g.num_players())))
    # what another seat sees of the re-dealt part: other hands (odyssey, iss), the open
    # missions (obcy's ALIENS see only their number: for the expedition seat the re-dealt
    # mission deck shows in no view)
    if not (name.startswith("python_balancelab_obcy") and p == 0):
        assert len(others) > 1, "the hidden part is never re-dealt"


@pytest.mark.parametrize("name", GAMES)
def test_ismcts_bot_plays(name: str) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    g = pyspiel.load_game(name)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(g, evaluator, uct_c=2.0, max_simulations=6,
                           random_state=np.random.RandomState(1), use_observation_string=True)
    s = g.new_initial_state()
    decisions = 0
    while not s.is_terminal() and decisions < 4:
        legal = s.legal_actions()
        a = bot.step(s)
        assert a in legal
        decisions += len(legal) > 1
        s.apply_action(a)
    assert decisions == 4


@pytest.mark.slow
def test_ismcts_plays_a_whole_game_as_hal() -> None:
    """IS-MCTS for HAL against random crewmembers, to the end (about a minute pure Python)."""
    from open_spiel.python.algorithms import ismcts, mcts

    g = pyspiel.load_game("python_balancelab_odyssey(crew=2,rng_seed=3)")
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(0))
    bot = ismcts.ISMCTSBot(g, evaluator, uct_c=2.0, max_simulations=20,
                           random_state=np.random.RandomState(1), use_observation_string=True)
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    while not s.is_terminal():
        legal = s.legal_actions()
        a = bot.step(s) if s.current_player() == 0 else legal[int(rng.integers(len(legal)))]
        assert a in legal
        s.apply_action(int(a))
    assert sorted(s.returns()) in ([-1.0, -1.0, 1.0], [-1.0, 1.0, 1.0], [0.0, 0.0, 0.0])
