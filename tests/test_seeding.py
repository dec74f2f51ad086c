"""A policy cannot rebuild the deal: nothing reachable from it holds the run seed, the game
index or the rules' stream (issue 12, item 15), in every game."""

from __future__ import annotations

import types
from collections import deque
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.random import BitGenerator, Generator, SeedSequence

from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import Game, rules_stream
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.worker import play_game, seat_policies

SEED = 8_642_097_531_975  # distinctive values, found by no accident
INDEX = 4_242_421
GAMES = ("odyssey", "iss", "obcy")


def _reachable(root: object) -> list[object]:
    """Every object reachable from ``root`` through instance fields, containers, partials,
    closures and numpy Generators (their bit generator, its SeedSequence and state); classes,
    modules and functions' globals are shared code, not per-game data, and are skipped."""
    seen: set[int] = set()
    out: list[object] = []
    todo: deque[object] = deque([root])
    while todo:
        o = todo.popleft()
        if id(o) in seen or isinstance(o, type | types.ModuleType):
            continue
        seen.add(id(o))
        out.append(o)
        kids: list[Any] = []
        if isinstance(o, dict):
            kids += [*o.keys(), *o.values()]
        elif isinstance(o, list | tuple | set | frozenset | deque):
            kids += list(o)
        elif isinstance(o, types.FunctionType):
            kids += [*(o.__defaults__ or ()), *(c.cell_contents for c in o.__closure__ or ())]
        elif isinstance(o, types.MethodType):
            kids += [o.__self__, o.__func__]
        elif isinstance(o, Generator):
            kids.append(o.bit_generator)
        elif isinstance(o, BitGenerator):
            kids += [o.seed_seq, o.state]
        elif isinstance(o, SeedSequence):
            kids += [o.entropy, o.spawn_key, o.pool_size, o.n_children_spawned]
        elif isinstance(o, np.ndarray):
            kids += o.ravel().tolist() if o.dtype.kind in "iu" else []
        elif hasattr(o, "func") and hasattr(o, "args"):  # functools.partial
            kids += [o.func, *o.args, *(o.keywords or {}).values()]
        if hasattr(o, "__dict__") and not isinstance(o, types.FunctionType):
            kids.append(vars(o))
        for cls in type(o).__mro__:
            for name in getattr(cls, "__slots__", ()):
                if hasattr(o, name):
                    kids.append(getattr(o, name))
        todo.extend(kids)
    return out


def _random_seats(game: Game, options: RuleOptions, spec: str = "random"
                  ) -> list[policies.Policy]:
    seats = range(len(game.seats(options)))
    specs = [policies.resolve(game, game.side_of_seat(options, k), spec) for k in seats]
    pols = seat_policies(game, options, specs, SEED, INDEX)
    for p in pols:
        p.rng.integers(1 << 30, size=3)  # the Generator is made, and has drawn
    return pols


@pytest.mark.parametrize("spec", ["random", "default"])
@pytest.mark.parametrize("name", GAMES)
def test_no_run_seed_or_game_index_is_reachable_from_a_policy(name: str, spec: str) -> None:
    game = get_game(name)
    options = game.options_type()
    for pol in _random_seats(game, options, spec):
        ss = pol.rng.bit_generator.seed_seq
        assert ss.spawn_key == () and ss.entropy not in (SEED, INDEX)
        for o in _reachable(pol):
            if isinstance(o, int) and not isinstance(o, bool):
                assert o not in (SEED, INDEX), f"{name}: seat {pol.seat} reaches {o}"
            elif isinstance(o, str):
                assert str(SEED) not in o and str(INDEX) not in o


def _rebuilt_rules(rng: Generator) -> Generator:
    """What a cheating policy would try: the rules' stream from its own Generator's
    SeedSequence (entropy = run seed, spawn key = (game index, 1 + seat) before the fix)."""
    ss = rng.bit_generator.seed_seq
    index = ss.spawn_key[0] if ss.spawn_key else 0
    return np.random.default_rng(SeedSequence(ss.entropy, spawn_key=(index, 0)))


def _deal(game: Game, options: RuleOptions, rng: Generator) -> object:
    """The setup a rules stream deals: the rules' Generator state after setup (it moves with
    every shuffle and die), and for 2001 the hands and decks themselves."""
    s: Any = game.new_initial_state(options, rng)
    if game.name == "odyssey":
        return (s.rng.bit_generator.state, s.hands, s.hal_hidden, s.hal_rev, s.hal_draw,
                s.crew_draw)
    return s.rng.bit_generator.state


@pytest.mark.parametrize("name", GAMES)
def test_a_policy_rebuilding_the_rules_stream_gets_another_deal(name: str) -> None:
    game = get_game(name)
    options = game.options_type()
    true_deal = _deal(game, options, rules_stream(SEED, INDEX))
    # the attack works on a Generator seeded the old way (seat k: spawn key (index, 1 + k)) ...
    old = np.random.default_rng(SeedSequence(SEED, spawn_key=(INDEX, 1)))
    assert _deal(game, options, _rebuilt_rules(old)) == true_deal
    # ... and fails on every seat's Generator as a run makes it
    for pol in _random_seats(game, options):
        assert _deal(game, options, _rebuilt_rules(pol.rng)) != true_deal


def test_a_search_policy_plays_from_its_seat_stream_reproducibly() -> None:
    """The search policy derives its playout seeds from its own Generator: the same game,
    twice, with the same decisions."""
    game = get_game("odyssey")
    options = game.options_type.from_strings({"crew": "2"})
    specs = [policies.resolve(game, "hal", "default")] + [
        policies.resolve(game, "crew", "search:rollouts=4,depth=8")] * 2
    a = play_game(game, options, specs, 5, 1)
    b = play_game(game, options, specs, 5, 1)
    assert a.decisions > 0 and (a.record, a.decisions) == (b.record, b.decisions)


def test_drawing_policies_give_the_same_parquet_for_any_jobs_and_replay(tmp_path: Path) -> None:
    """Random policies draw from their seat streams: the same seed still writes the same games
    with 1 or 2 workers, and ``trace`` (``replay``) plays a game again from its row."""
    from balancelab.simulate.runs import RunConfig, load_games, replay, run

    g = get_game("odyssey")
    config = RunConfig(game="odyssey", variants=[g.options_type(crew=2)], seed=7, games=24,
                       chunk_games=8, policies={"hal": "random", "crew": "random"})
    run(config, tmp_path / "a", jobs=1, backend="sequential")
    run(config, tmp_path / "b", jobs=2)
    a = load_games(tmp_path / "a").drop("run_id")
    assert a.equals(load_games(tmp_path / "b").drop("run_id"))
    row = a.row(13, named=True)
    rec = replay(tmp_path / "a", 0, 13)
    assert (rec.record.winner, rec.record.rounds, rec.decisions) == (
        row["winner"], row["rounds"], row["decisions"])
