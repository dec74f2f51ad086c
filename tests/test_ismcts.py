"""ISMCTS (``ismcts``) and its cheating twin (``oracle``): fair information (twin states),
reproducibility, parameters, registration, the state plumbing of the oracle and its labels,
the games' evaluate hooks, and multi-step turns that do not stall (Obcy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from search_toy import GAME as TOY
from search_toy import DuelOptions
from test_search import hidden_twin, position
from test_search_odyssey import positions

from balancelab.games import get_game, names
from balancelab.policies import base
from balancelab.policies.base import Policy, PolicyError
from balancelab.policies.ismcts import IsmctsPolicy, OraclePolicy
from balancelab.simulate import runs
from balancelab.simulate.core import State, View, game_streams
from balancelab.simulate.play import play
from balancelab.simulate.runs import RunConfig, play_one
from balancelab.simulate.runs.plan import cheating_specs

TOY_OPT = DuelOptions()


# -- fair information ------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(0, 8), twin=st.integers(0, 10_000))
def test_decisions_ignore_what_the_seat_cannot_see(seed: int, moves: int, twin: int) -> None:
    s = position(seed, moves)
    seat = s.current_seat
    t = hidden_twin(s, seat, twin)
    assert s.view(seat) == t.view(seat)
    p = IsmctsPolicy(TOY, TOY_OPT, seat, np.random.default_rng(seed), iterations=24, depth=0)
    q = IsmctsPolicy(TOY, TOY_OPT, seat, np.random.default_rng(seed), iterations=24, depth=0)
    for _ in range(3):  # a sequence of calls: the seat's stream and the tree advance alike
        assert p.act(s.view(seat), s.legal_actions()) == q.act(t.view(seat), t.legal_actions())


@pytest.mark.parametrize("crew", [2, 4])
def test_odyssey_decisions_ignore_what_the_seat_cannot_see(crew: int) -> None:
    game = get_game("odyssey")
    o = game.options_type(crew=crew)
    checked = 0
    for s in positions(crew, 5)[::11]:
        seat = s.current_seat
        twin = game.determinize(s.view(seat), np.random.default_rng(99))
        assert twin.view(seat) == s.view(seat)
        p = IsmctsPolicy(game, o, seat, np.random.default_rng(3), iterations=6, depth=6)
        q = IsmctsPolicy(game, o, seat, np.random.default_rng(3), iterations=6, depth=6)
        assert p.act(s.view(seat), s.legal_actions()) == q.act(twin.view(seat),
                                                               twin.legal_actions())
        checked += 1
    assert checked >= 4


def test_a_decision_reads_the_view_only() -> None:
    """``act`` gets a View; handing it the state itself is refused by the oracle's twin
    check below, and ismcts never needs more than ``determinize(view)``."""
    s = position(3, 2)
    p = IsmctsPolicy(TOY, TOY_OPT, s.current_seat, np.random.default_rng(0), iterations=8)
    a = p.act(s.view(s.current_seat), s.legal_actions())
    assert a in s.legal_actions()
    assert p.iterations_run == 8


def test_the_cyclic_collector_is_paused_while_a_decision_iterates(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed: the iterations run with Python's cyclic garbage collector paused (they make no
    reference cycles), and a decision leaves it as it found it (on here, off in a runner's
    chunk)."""
    import gc

    seen: list[bool] = []
    determinize = TOY.determinize

    def spy(view: View, rng: np.random.Generator) -> State:
        seen.append(gc.isenabled())
        return determinize(view, rng)

    monkeypatch.setattr(TOY, "determinize", spy)
    s = position(3, 2)
    for was in (True, False):
        (gc.enable if was else gc.disable)()
        try:
            p = IsmctsPolicy(TOY, TOY_OPT, s.current_seat, np.random.default_rng(0), iterations=8)
            p.act(s.view(s.current_seat), s.legal_actions())
            assert gc.isenabled() is was
        finally:
            gc.enable()
    assert seen == [False] * 16, seen


# -- reproducibility, parameters, registration -------------------------------------------------


def test_same_seed_same_games_and_the_budget_is_iterations() -> None:
    config = RunConfig(game="odyssey", variants=[], seed=4, games=2,
                       policies={"hal": "ismcts:iterations=6,depth=6"})
    a = [play_one(config, 0, i).record for i in range(2)]
    b = [play_one(config, 0, i).record for i in range(2)]
    assert a == b


def test_parameters_are_checked() -> None:
    g = get_game("odyssey")
    o = g.options_type()
    for bad in ({"iterations": 0}, {"depth": -1}, {"c": -1.0}, {"teammates": "x"},
                {"reuse": 3}, {"bias": -0.5}, {"bias": "high"}, {"widen": -1}, {"widen": 1.5}):
        with pytest.raises(PolicyError):
            IsmctsPolicy(g, o, 0, np.random.default_rng(0), **bad)
    with pytest.raises(PolicyError, match="no parameter"):
        base.resolve(g, "crew", "ismcts:rollouts=3")
    assert base.resolve(g, "crew", "ismcts:iterations=200,depth=20") == (
        "ismcts:depth=20,iterations=200")


@pytest.mark.parametrize("name", names())
def test_registered_for_every_side(name: str) -> None:
    g = get_game(name)
    for side in g.sides:
        assert {"ismcts", "oracle"} <= set(base.available(name, side))
        assert "oracle" not in g.default_policies.values()
    assert base.entries_for(name, g.sides[0])["oracle"].help.startswith("CHEAT")


def test_reuse_keeps_the_subtree_of_the_chosen_action() -> None:
    s = position(11, 0)
    seat = s.current_seat
    p = IsmctsPolicy(TOY, TOY_OPT, seat, np.random.default_rng(1), iterations=40, depth=0)
    a = p.act(s.view(seat), s.legal_actions())
    assert p._next is not None and p._next.n > 0
    assert a in s.legal_actions()


class _Recording(IsmctsPolicy):
    """Records the scripted favourite offered at each decision."""

    favs: list[object]

    def _preference(self, view: View, legal: object) -> object:  # type: ignore[override]
        order = super()._preference(view, legal)  # type: ignore[arg-type]
        self.favs.append(order[0] if order else None)
        return order


@pytest.mark.parametrize("bias", [0.0, 1e6])
def test_a_progressive_bias_keeps_the_scripted_choice_until_others_earn_it(bias: float) -> None:
    """With an overwhelming bias the tree plays the scripted choice at every decision; with
    none it departs from it somewhere (the bias is what holds it)."""
    game = get_game("odyssey")
    o = game.options_type(crew=3)
    same = total = 0
    for s in positions(3, 5)[::5]:
        seat = s.current_seat
        legal = s.legal_actions()
        if len(legal) < 3:
            continue
        p = _Recording(game, o, seat, np.random.default_rng(7), iterations=40, depth=6,
                       bias=bias)
        p.favs = []
        a = p.act(s.view(seat), legal)
        same += a == p.favs[0]
        total += 1
    assert total >= 8
    if bias:
        assert same == total
    else:
        assert same < total


def test_widening_admits_the_scripted_ranking_one_by_one() -> None:
    """``widen=1``: a node visited n times chooses among the first 1 + isqrt(n) // 2 actions
    of its ranking (untried first, the favourite first of all)."""
    from balancelab.policies.ismcts import _Node

    g = get_game("odyssey")
    p = IsmctsPolicy(g, g.options_type(), 0, np.random.default_rng(0), widen=1)
    legal = ["a", "b", "c", "d", "e"]
    node = _Node()
    node.order, node.fav = ["c", "b", "e", "a", "d"], "c"
    assert p._select(node, legal) == "c"  # k = 1: the favourite alone
    node.children["c"] = _Node()
    node.children["c"].n = node.children["c"].avail = node.n = 3
    node.children["c"].w = 0.0
    assert p._select(node, legal) == "c"  # still k = 1 (isqrt(3) // 2 == 0)
    node.n = 4
    assert p._select(node, legal) == "b"  # k = 2: the second of the ranking, untried
    assert p._select(node, ["c", "e", "d"]) == "e"  # ranking order among this world's legal
    p0 = IsmctsPolicy(g, g.options_type(), 0, np.random.default_rng(0))  # widen=0: all
    node.n = 0
    assert p0._select(node, legal) == "a"  # the first untried in legal order


def test_the_hunter_ranks_an_aliens_moves_its_choice_first() -> None:
    """``Policy.ranked``: a permutation of the legal actions, the policy's own choice first;
    the hunter orders the other moves by its plan's score."""
    from balancelab.simulate.obcy.actions import D_ALIEN_MOVE

    g = get_game("obcy")
    o = g.options_type()
    rules, _ = game_streams(5, 0, 2)
    s = g.new_initial_state(o, rules)
    pols = [base.build(g, o, k, g.default_policies[g.side_of_seat(o, k)],
                       np.random.default_rng(k)) for k in range(2)]
    twin = base.build(g, o, 1, "hunter", np.random.default_rng(1))
    moves = 0
    while not s.is_terminal() and moves < 40:
        legal = s.legal_actions()
        seat = s.current_seat
        v = s.view(seat)
        if seat == 1 and len(legal) > 2 and v.decision == D_ALIEN_MOVE:
            order = twin.ranked(v, legal)
            a = pols[1].act(v, legal)
            assert order[0] == a and sorted(order) == sorted(legal)
            moves += 1
        else:
            a = pols[seat].act(v, legal)
            if seat == 1:
                twin.act(v, legal)  # the twin keeps the same memory
        s._apply(a)
    assert moves >= 10


# -- the oracle: the only policy handed the state ----------------------------------------------


class _Spy(Policy):
    name = "spy"
    seen: list[type]

    def act(self, view: View, legal: list) -> object:  # type: ignore[override]
        type(self).seen.append(type(view))
        return legal[0]


class _StateSpy(_Spy):
    sees_state = True

    def act_on_state(self, state: State, legal: list) -> object:  # type: ignore[override]
        type(self).seen.append(type(state))
        return legal[0]


def test_only_a_policy_that_sees_the_state_gets_it() -> None:
    g = get_game("odyssey")
    o = g.options_type()
    rules, seats = game_streams(1, 0, len(g.seats(o)))
    _Spy.seen, _StateSpy.seen = [], []
    pols: list[Policy] = [_StateSpy(g, o, 0, seats[0])] + [
        _Spy(g, o, k, seats[k]) for k in range(1, len(g.seats(o)))]
    play(g, o, pols, rules)
    # by behaviour, not class identity (another test may re-import the engine modules)
    assert _StateSpy.seen and all(hasattr(t, "legal_actions") for t in _StateSpy.seen)
    assert _Spy.seen and all(not hasattr(t, "legal_actions") and t.__name__.endswith("View")
                             for t in _Spy.seen)


def test_the_oracle_plays_from_the_state_and_not_from_a_view() -> None:
    g = get_game("odyssey")
    o = g.options_type()
    oracle = OraclePolicy(g, o, 0, np.random.default_rng(0), iterations=4, depth=4)
    assert oracle.sees_state and not IsmctsPolicy.sees_state
    s = positions(3, 2)[0]
    with pytest.raises(RuntimeError, match="true state"):
        oracle.act(s.view(s.current_seat), s.legal_actions())
    real = s.copy()
    before = real.view(real.current_seat)
    a = oracle.act_on_state(real, real.legal_actions())
    assert a in real.legal_actions()
    assert real.view(real.current_seat) == before  # searched on copies


def test_the_oracle_that_sees_the_hands_only_ignores_the_deck_order() -> None:
    """``oracle:sees=hands`` decides the same on two states that differ only in the order
    of the face-down piles (``Game.reshuffle_piles``), for the same seed; the full oracle,
    which plays out the true deck order, does not always."""
    g = get_game("odyssey")
    o = g.options_type()
    crew = [s for s in positions(3, 4) if s.current_seat > 0][:40:2]
    assert len(crew) == 20
    differs = 0
    for i, s in enumerate(crew):
        twin = s.copy()
        g.reshuffle_piles(twin, np.random.default_rng(1000 + i))
        assert twin.view(twin.current_seat) == s.view(s.current_seat)
        picks = {}
        for sees in ("hands", "all"):
            picks[sees] = [
                OraclePolicy(g, o, s.current_seat, np.random.default_rng(i), iterations=48,
                             depth=12, sees=sees).act_on_state(w, w.legal_actions())
                for w in (s, twin)]
        assert picks["hands"][0] == picks["hands"][1]
        differs += picks["all"][0] != picks["all"][1]
    assert differs > 0


def test_the_oracle_checks_what_it_sees() -> None:
    g = get_game("odyssey")
    with pytest.raises(PolicyError, match="sees must be one of all, hands; got 'deck'"):
        OraclePolicy(g, g.options_type(), 1, np.random.default_rng(0), sees="deck")
    assert base.resolve(g, "crew", "oracle:sees=hands,iterations=8") == (
        "oracle:iterations=8,sees=hands")
    # a game that cannot re-deal its piles says so at the first decision
    s = TOY.new_initial_state(TOY_OPT, np.random.default_rng(0))
    oracle = OraclePolicy(TOY, TOY_OPT, s.current_seat, np.random.default_rng(0),
                          iterations=2, depth=2, sees="hands")
    with pytest.raises(NotImplementedError, match="cannot re-deal its piles"):
        oracle.act_on_state(s, s.legal_actions())


def test_a_run_with_the_oracle_is_labelled_a_cheat(tmp_path: object) -> None:
    from pathlib import Path

    from balancelab.reports import run_report

    fair = RunConfig(game="odyssey", variants=[], policies={"hal": "ismcts:iterations=2"},
                     games=1)
    cheat = RunConfig(game="odyssey", variants=[], games=1,
                      policies={"hal": "oracle:iterations=2,depth=4"})
    assert cheating_specs(fair) == []
    assert cheating_specs(cheat) == ["oracle:depth=4,iterations=2"]
    out = Path(str(tmp_path)) / "run"
    runs.run(cheat, out, jobs=1, backend="sequential")
    assert runs.read_manifest(out)["cheats"] == ["oracle:depth=4,iterations=2"]
    rep = run_report.build_run_report(out)
    assert rep.warnings[0].startswith("CHEAT: oracle")


# -- the games' evaluate hooks -------------------------------------------------------------------


@pytest.mark.parametrize("name", ["odyssey", "obcy"])
def test_evaluate_is_a_probability_for_each_side_and_sums_to_the_chance_of_an_end(
        name: str) -> None:
    """2001 always ends: the two estimates sum to one. Obcy's round cap is a loss for both
    sides, so the sum is the chance of ending before it: 1 - (round / max_rounds)^2."""
    g = get_game(name)
    o = g.options_type()
    n = len(g.seats(o))
    rules, seats = game_streams(2, 0, n)
    s = g.new_initial_state(o, rules)
    rng = np.random.default_rng(0)
    for _ in range(300):
        if s.is_terminal():
            break
        hal_or_exp = g.evaluate(s, 0)
        other = g.evaluate(s, 1)
        assert hal_or_exp is not None and other is not None
        end = 1.0 if name == "odyssey" else 1.0 - (s.round / s.opt.max_rounds) ** 2
        assert 0.0 <= hal_or_exp <= 1.0 and math.isclose(hal_or_exp + other, end)
        legal = s.legal_actions()
        s._apply(legal[int(rng.integers(len(legal)))])


def test_odyssey_evaluate_reads_progress() -> None:
    from balancelab.simulate.odyssey.evaluate import evaluate, progress

    s = positions(3, 1)[0].copy()
    s.sequences, s.mal = 0, [0, 0, 0, 0]
    even = evaluate(s, 1)
    s.sequences = 2
    assert evaluate(s, 1) > even  # two of three sequences played: the crew is ahead
    s.sequences, s.mal = 0, [0, 0, 0, s.ctx.limits[3] - 1]
    assert evaluate(s, 0) > 1 - even  # LIF one malfunction from termination: HAL ahead
    crew, hal = progress(s)
    assert hal == pytest.approx((s.ctx.limits[3] - 1) / s.ctx.limits[3])


def test_obcy_evaluate_rewards_tasks_and_punishes_waiting() -> None:
    from balancelab.simulate.obcy.evaluate import expedition_chance

    g = get_game("obcy")
    s = g.new_initial_state(g.options_type(), np.random.default_rng(0))
    start = expedition_chance(s)
    s.done = [0]
    assert expedition_chance(s) > start  # a task done (Variant 2: one of three)
    s.round = s.opt.max_rounds - 1
    assert expedition_chance(s) < 0.1  # at the cap the game is lost for both
    assert g.evaluate(s, 1) < 0.1  # (the ALIENS do not win by waiting either)


def test_obcy_rollouts_are_cut_only_outside_the_aliens_phase(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """1., 10.: the ALIENS attack after all of them have moved; a rollout cut inside their
    phase would score their moves before they strike (the ismcts ALIENS' blind spot), in
    ``ismcts`` and in the flat ``search`` alike."""
    from balancelab.simulate.obcy.state import ST_ALIENS_BEGIN, ST_AMOVE

    g = get_game("obcy")
    s = g.new_initial_state(g.options_type(), np.random.default_rng(0))
    assert g.settled(s)
    s.stage = ST_AMOVE
    assert not g.settled(s)
    cut: list[int] = []
    real = type(g).evaluate

    def spy(self: object, state: object, seat: int) -> float:
        cut.append(state.stage)  # type: ignore[attr-defined]
        return real(self, state, seat)  # type: ignore[arg-type]

    monkeypatch.setattr(type(g), "evaluate", spy)
    for side in ("aliens", "expedition"):
        for spec in ("ismcts:iterations=3,depth=2",  # and the flat search, both rollouts
                     "search:rollouts=4,depth=2", "search:rollouts=4,depth=2,rollout=default"):
            config = RunConfig(game="obcy", variants=[g.options_type.from_strings(
                {"max_rounds": "3"})], seed=1, games=1, policies={side: spec})
            before = len(cut)
            play_one(config, 0, 0)
            assert len(cut) > before, spec  # some playouts were cut and scored
    assert all(st < ST_ALIENS_BEGIN for st in cut)


# -- multi-step turns do not stall ---------------------------------------------------------------


@pytest.mark.slow
def test_obcy_ismcts_expedition_completes_tasks_and_does_not_hide() -> None:
    """Measured (rules version 5, seed 0, against hunter): 0 of 120 games capped [0, 3.1%],
    2.03 tasks a game, 28 airlock tasks (the flat search hid until the cap, 0 tasks; at
    version 4, 6 of 120 capped: the last survivor's stall). Here: 6 games, a few tasks, none
    capped."""
    config = RunConfig(game="obcy", variants=[], seed=3, games=6,
                       policies={"expedition": "ismcts:iterations=6,depth=8"})
    recs = [play_one(config, 0, i).record for i in range(6)]
    assert sum(r.measures["tasks_completed"] for r in recs) >= 3
    assert all(r.end_reason != "cap" for r in recs)
