"""What bounds a search policy: ``State.copy()``/s on a mid-game state, random rollouts/s from
it, and ISMCTS iterations/s at the next decision."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from balancelab.games import get_game
from balancelab.simulate.core import Game, State, game_streams
from balancelab.simulate.options import RuleOptions


def mid_game_state(game: Game, seed: int = 0, options: dict[str, str] | None = None) -> State:
    """A state about halfway through a game played with uniformly random actions (``options``:
    rule option name → value, None for the defaults)."""
    opts = game.options_type.from_strings(options or {})
    n_seats = len(game.seats(opts))
    rules, _ = game_streams(seed, 0, n_seats)
    rng = np.random.default_rng(seed)
    start = game.new_initial_state(opts, rules)
    probe = start.copy()
    steps = 0
    while not probe.is_terminal():
        legal = probe.legal_actions()
        probe._apply(legal[int(rng.integers(len(legal)))])
        steps += 1
    # replay the same actions on the start state for half the game (same rng, same choices)
    rng = np.random.default_rng(seed)
    state = start
    for _ in range(steps // 2):
        legal = state.legal_actions()
        state._apply(legal[int(rng.integers(len(legal)))])
    return state


def search_primitives(game_name: str, *, seconds: float = 1.0, seed: int = 0,
                      options: dict[str, str] | None = None) -> dict[str, Any]:
    """``State.copy()``/s and random rollouts/s from a mid-game state.

    Returns:
        ``{"copies_per_s", "rollouts_per_s", "rollout_steps_per_s", "steps_per_rollout"}``.
    """
    game = get_game(game_name)
    state = mid_game_state(game, seed, options)
    budget = seconds / 2
    copies = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget:
        for _ in range(100):
            state.copy()
        copies += 100
    t_copy = time.perf_counter() - t0
    rng = np.random.default_rng(seed + 1)
    rollouts = steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget:
        s = state.copy()
        while not s.is_terminal():
            legal = s.legal_actions()
            s._apply(legal[int(rng.integers(len(legal)))])
            steps += 1
        rollouts += 1
    t_roll = time.perf_counter() - t0
    return {
        "copies_per_s": copies / t_copy,
        "rollouts_per_s": rollouts / t_roll,
        "rollout_steps_per_s": steps / t_roll,
        "steps_per_rollout": steps / max(rollouts, 1),
        "ismcts_iterations_per_s": ismcts_rate(
            game, state, game.options_type.from_strings(options or {}), seconds=budget,
            seed=seed),
    }


#: The ISMCTS spec :func:`ismcts_rate` measures (the ladders' small rungs use depths 8-12).
ISMCTS_BENCH = {"iterations": 16, "depth": 10}


def ismcts_rate(game: Game, state: State, options: RuleOptions, *, seconds: float = 0.5,
                seed: int = 0) -> float:
    """ISMCTS iterations/s (determinize, select, expand, scripted rollout cut at depth 10,
    evaluate) at the first decision from ``state`` with more than one legal action, by the
    seat to move there (decisions of :data:`ISMCTS_BENCH` iterations, repeated until
    ``seconds`` have passed)."""
    from balancelab.policies.ismcts import IsmctsPolicy

    s = state.copy()
    while not s.is_terminal() and len(s.legal_actions()) == 1:
        s._apply(s.legal_actions()[0])
    if s.is_terminal():
        return float("nan")
    seat = s.current_seat
    view, legal = s.view(seat), s.legal_actions()
    done = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or done == 0:
        pol = IsmctsPolicy(game, options, seat, np.random.default_rng(seed + done),
                           reuse=False, **ISMCTS_BENCH)
        pol.act(view, legal)
        done += pol.iterations_run
    return done / (time.perf_counter() - t0)
