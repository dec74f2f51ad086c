"""A plug-in game (the worked example, examples/nim_game) plays through both adapters with an
observation layout derived from its views, and balancelab policies play in OpenSpiel loops."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest
from plugin_env import NIM

pytest.importorskip("pettingzoo")
pyspiel = pytest.importorskip("pyspiel")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import balancelab.interop.openspiel as bos  # noqa: E402
from balancelab import games, policies  # noqa: E402
from balancelab.interop.observation import ViewEncoder, layout_of  # noqa: E402
from balancelab.interop.pettingzoo import env, raw_env  # noqa: E402

sys.path.insert(0, str(NIM))
import nim_game  # noqa: E402
import nim_game.policies  # noqa: E402, F401  (registers nim-sum)


@pytest.fixture
def nim_registered():
    """Nim known to balancelab by name, as its entry point would make it once installed
    (policies are looked up by the game's name)."""
    games.register(nim_game.GAME)
    yield
    games.unregister("nim")


def _winning(heaps: tuple[int, ...], max_take: int) -> bool:
    """The player to move wins Nim with at most ``max_take`` a turn (Bouton, modulo m+1)."""
    x = 0
    for h in heaps:
        x ^= h % (max_take + 1)
    return x != 0


def test_the_layout_of_a_plugin_is_derived_from_its_views() -> None:
    """NimView is a dataclass (no ``_fields``): one block per field, in declaration order;
    the heaps a length prefix and one number per heap; the options no numbers."""
    opts = nim_game.NimOptions(heaps=4)
    assert layout_of(nim_game.GAME, opts) == {
        "seat": 1, "options": 0, "heaps": 5, "to_move": 1, "turns": 1}
    enc = ViewEncoder(nim_game.GAME, opts)
    state = nim_game.GAME.new_initial_state(opts, np.random.default_rng(0))
    state.heaps = [3, 0, 7, 1]
    state.apply(203)  # take 3 from heap 3
    assert enc.encode(state.view(1)).tolist() == [1, 4, 3, 0, 4, 1, 1, 1]


def test_nim_passes_pettingzoo_api_and_seed_tests() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's style hints
        api_test(env(nim_game.GAME, heaps=4), num_cycles=200)
        seed_test(lambda: env(nim_game.GAME, heaps=4), num_cycles=100)
    e = raw_env(nim_game.GAME, heaps=4, max_take=2)
    e.reset(seed=3)
    assert e.observation_space("first")["observation"].shape == (8,)
    assert e.action_space("second").n == 8  # 4 heaps x 1-2 counters
    obs = e.observe("first")
    heaps = e.state.heaps
    assert obs["observation"][2:6].tolist() == heaps
    expected = [h * 2 + n - 1 for h in range(4) for n in (1, 2) if n <= heaps[h]]
    assert np.flatnonzero(obs["action_mask"]).tolist() == expected
    assert not e.observe("second")["action_mask"].any()


def test_nim_passes_openspiel_random_sim_test() -> None:
    name = bos.register(nim_game.GAME)
    assert name == "python_balancelab_nim"
    game = pyspiel.load_game(f"{name}(heaps=4,max_take=2,rng_seed=1)")
    assert (game.num_players(), game.num_distinct_actions()) == (2, 8)
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)
    state = game.new_initial_state()
    heaps = state.engine.heaps
    assert state.observation_string(0) == "p0: 0 4 " + " ".join(map(str, heaps)) + " 0 0"
    assert state.observation_tensor(1) == [1, 4, *heaps, 0, 0]


def test_a_balancelab_policy_plays_in_an_openspiel_loop(nim_registered) -> None:
    """Bouton's nim-sum, seated by PolicyBot, wins every deal that gives it a winning
    position against a random OpenSpiel player, in pyspiel's own evaluate_bots."""
    game = pyspiel.load_game(f"{bos.register(nim_game.GAME)}(heaps=3,rng_seed=4)")
    wins = won_positions = 0
    for k in range(40):
        state = game.new_initial_state()
        first_wins = _winning(tuple(state.engine.heaps), 3)
        bots = [bos.PolicyBot(game, 0, "nim-sum"),
                pyspiel.make_uniform_random_bot(1, k)]
        returns = pyspiel.evaluate_bots(state, bots, k)
        if first_wins:
            won_positions += 1
            assert returns == [1.0, -1.0]
        wins += returns[0] == 1.0
    assert 20 < won_positions < 40 and wins >= won_positions


def test_policy_bot_bad_input() -> None:
    game = pyspiel.load_game("python_balancelab_odyssey(crew=2)")
    with pytest.raises(policies.PolicyError, match="unknown policy 'genius'.*valid: default"):
        bos.PolicyBot(game, 1, "genius")
    with pytest.raises(ValueError, match="player 3 is not a seat of odyssey"):
        bos.PolicyBot(game, 3)
    with pytest.raises(TypeError, match="plays a balancelab game"):
        bos.PolicyBot(pyspiel.load_game("tic_tac_toe"), 0)
    bot = bos.PolicyBot(game, 1, "random")
    with pytest.raises(ValueError, match="not its turn"):
        bot.step(game.new_initial_state())  # HAL (player 0) opens


def test_the_policy_registry_is_reachable_from_balancelab_policies(nim_registered) -> None:
    g = nim_game.GAME
    assert policies.resolve(g, "first", "default") == "nim-sum"
    assert policies.resolve(g, "first", "nim-sum:fallback=2") == "nim-sum:fallback=2"
    pol = policies.build(g, g.options_type(), 0, "nim-sum", np.random.default_rng(0))
    assert isinstance(pol, policies.Policy) and pol.act(
        g.new_initial_state(g.options_type(), np.random.default_rng(0)).view(0), [101]) == 101


def test_bench_measures_the_adapters_against_an_engine_decision() -> None:
    from rich.console import Console

    from balancelab import bench

    costs = bench.adapter_costs("odyssey", seconds=0.05, states=30)
    assert costs["states"] == 30 and costs["rounds"] >= 3
    for k in ("observe", "openspiel"):
        assert costs[f"{k}_us"] > 0
        assert costs[f"{k}_ratio"] == pytest.approx(costs[f"{k}_us"] / costs["decision_us"])
    results = {"machine": {"cpus": 2, "load_1min": 0.0}, "jobs": 2, "games": [
        {"game": "odyssey", "policies": {}, "memory": [], "adapters": costs,
         "search": {"copies_per_s": 1, "rollouts_per_s": 1, "steps_per_rollout": 1}}]}
    console = Console(width=200, record=True)
    for table in bench.tables(results):
        console.print(table)
    row = next(line for line in console.export_text().splitlines()
               if line.startswith("│ odyssey") and "×" in line)
    assert f"{costs['observe_ratio']:.1f}×" in row and f"{costs['openspiel_ratio']:.1f}×" in row


class _LowestId(pyspiel.Bot):
    """An OpenSpiel bot that plays the lowest legal action id."""

    def __init__(self) -> None:
        pyspiel.Bot.__init__(self)

    def step(self, state):
        return min(state.legal_actions())

    def restart_at(self, state) -> None:
        pass

    def inform_action(self, state, player, action) -> None:
        pass


def test_an_openspiel_bot_plays_in_balancelab_loop(nim_registered) -> None:
    """Seated by bot_policy, a lowest-id bot plays Nim exactly as balancelab's own
    first-legal player does (Nim's ids grow with its actions), deal for deal."""
    from balancelab.simulate.core import game_streams
    from balancelab.simulate.play import play

    cls = bos.bot_policy("lowest-id", lambda game, player, rng: _LowestId(), games=["nim"])
    assert "lowest-id" in policies.available("nim", "second")
    g, opts = nim_game.GAME, nim_game.NimOptions(heaps=4, high=9)
    for k in range(6):
        rules, streams = game_streams(3, k, 2)
        bots = play(g, opts, [cls(g, opts, i, streams[i]) for i in (0, 1)], rules)
        rules, streams = game_streams(3, k, 2)
        first = play(g, opts, [nim_game.policies.FirstLegal(g, opts, i, streams[i])
                               for i in (0, 1)], rules)
        assert (bots.record.winner, bots.record.rounds) == (first.record.winner,
                                                            first.record.rounds)
