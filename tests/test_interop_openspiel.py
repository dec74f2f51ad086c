"""The OpenSpiel adapter passes OpenSpiel's own random-simulation test for every game, and
OpenSpiel's IS-MCTS bot plays it through resample_from_infostate (the game's determinize)."""

from __future__ import annotations

import subprocess
import sys

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


@pytest.mark.parametrize("name", GAMES)
def test_the_evaluator_scores_a_leaf_by_the_games_evaluate(name: str) -> None:
    """IS-MCTS's leaves are scored by the game's own evaluate (2p - 1 for each seat), a
    finished game by its returns: no random rollouts (which never end in Obcy)."""
    g = pyspiel.load_game(name)
    s = g.new_initial_state()
    ev = bos.EvaluateEvaluator()
    got = ev.evaluate(s)
    want = [2.0 * float(g.bl_game.evaluate(s.engine, k)) - 1.0 for k in range(g.num_players())]
    assert got.shape == (g.num_players(),) and got.tolist() == pytest.approx(want)
    assert np.all(np.abs(got) <= 1.0) and len(set(got.tolist())) > 1  # seats see it apart
    legal = s.legal_actions()
    assert ev.prior(s) == [(a, pytest.approx(1.0 / len(legal))) for a in legal]
    rng = np.random.default_rng(0)
    while not s.is_terminal():
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
    assert ev.evaluate(s).tolist() == s.returns()


def test_openspiel_ismcts_is_a_policy_the_runs_workers_can_seat(tmp_path) -> None:
    """``openspiel-ismcts`` (OpenSpiel's IS-MCTS with the evaluator) plays whole games through
    balancelab's runner, in loky workers too (the registration travels by its import path),
    and reproducibly."""
    import balancelab
    from balancelab.policies import base
    from balancelab.simulate.runs import load_games

    iss = get_game("iss")
    assert base.resolve(iss, "player", "openspiel-ismcts:simulations=2") == (
        "openspiel-ismcts:simulations=2")
    with pytest.raises(base.PolicyError, match="simulations"):
        base.resolve(iss, "player", "openspiel-ismcts:simulations=0")
    runs = [balancelab.simulate("iss", games=2, seed=3, jobs=jobs, out=tmp_path / str(jobs),
                                policies={"seat0": "openspiel-ismcts:simulations=2"})
            for jobs in (1, 2)]
    a, b = (load_games(r.path).sort("game_index") for r in runs)
    assert a.height == 2 and a.get_column("winner").to_list() == b.get_column(
        "winner").to_list()
    assert set(a.get_column("end_reason").to_list()) <= {"last_shuttle", "launch", "station"}


def test_the_skill_ladder_seats_openspiels_ismcts_as_an_outside_rung(tmp_path) -> None:
    """``--openspiel`` adds the outside rung to every side's screen (before the cheat)."""
    import json

    from typer.testing import CliRunner

    from balancelab.cli import app
    from balancelab.questions import rungs

    lad = rungs.LADDERS["iss"]
    names = [r.name for r in rungs.rungs(lad, "player", 0.5, outside=True)]
    assert names[-2:] == ["openspiel ismcts", "oracle (CHEAT)"]
    assert rungs.rungs(lad, "player", 0.5, outside=True)[-2].spec == (
        "openspiel-ismcts:simulations=8")
    res = CliRunner().invoke(app, [
        "study", "skill-ladder", "iss", "--games", "2", "--verdict-games", "1",
        "--budget-scale", "0.1", "--minutes", "0", "--jobs", "1", "--quiet", "--openspiel",
        "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    facts = json.loads((tmp_path / "study.json").read_text())
    assert facts["openspiel"] is True
    screen = {r["rung"]: r for r in facts["rates"] if r["stage"] == "screen"}
    assert screen["openspiel ismcts"]["policy"] == "openspiel-ismcts:simulations=2"
    assert screen["openspiel ismcts"]["games"] == 2


def test_openspiel_ismcts_is_found_without_importing_the_interop_first() -> None:
    """A fresh process (the CLI's) finds ``openspiel-ismcts`` by name: it is registered on
    first use, with no ``import balancelab.interop.openspiel`` beforehand."""
    code = ("from balancelab import policies\n"
            "from balancelab.games import get_game\n"
            "import sys\n"
            "assert 'balancelab.interop.openspiel' not in sys.modules\n"
            "spec = 'openspiel-ismcts:simulations=3'\n"
            "print(policies.resolve(get_game('obcy'), 'aliens', spec))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "openspiel-ismcts:simulations=3"

