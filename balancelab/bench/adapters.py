"""What the PettingZoo and OpenSpiel adapters cost per fresh state, against one random engine
decision."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from balancelab.games import get_game
from balancelab.simulate.core import Game, State, game_streams
from balancelab.simulate.options import RuleOptions


def _states_of_random_games(game: Game, options: RuleOptions, count: int, seed: int
                            ) -> list[State]:
    """``count`` unfinished states met along random games (every state of each game)."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    k = 0
    while len(out) < count:
        s = game.new_initial_state(options, game_streams(seed, k, len(game.seats(options)))[0])
        k += 1
        while not s.is_terminal() and len(out) < count:
            out.append(s.copy())
            legal = s.legal_actions()
            s._apply(legal[int(rng.integers(len(legal)))])
    return out


def adapter_costs(game_name: str, *, seconds: float = 1.0, seed: int = 0, states: int = 200,
                  options: dict[str, str] | None = None) -> dict[str, Any]:
    """What the adapters cost per state, against one random engine decision, on ``states``
    states of random games (each measured fresh: no adapter has seen it before).

    - ``decision_us``: one decision of random players in the play loop (the seat's view, a
      uniform pick among the legal actions, the action applied, as ``decisions/s`` of the
      random pairing counts them: whole games, over the decisions with a choice),
      microseconds;
    - ``observe_us``: PettingZoo ``observe()`` of the seat to act (its view as a vector and
      the mask of legal ids); ``openspiel_us``: OpenSpiel ``legal_actions()`` plus
      ``observation_string()`` of the player to act;
    - ``observe_ratio`` and ``openspiel_ratio``: each over ``decision_us`` (the goal: at most
      10).

    The three are timed in CPU seconds of this process (other processes on a busy machine
    then show less), in turn, round after round, for ``seconds`` (after one untimed round that
    fills the adapters' tables); each keeps its fastest round. An adapter is None when its
    extra is not installed or the game has no action encoding.
    """
    game = get_game(game_name)
    opts = game.options_type.from_strings(options or {})
    sample = _states_of_random_games(game, opts, states, seed)
    timers: dict[str, Callable[[], float]] = {}

    from balancelab.policies.base import RandomPolicy
    from balancelab.simulate.play import play

    seats = len(game.seats(opts))

    def decide() -> float:  # seconds for len(sample) decisions
        spent = 0.0
        made = 0
        k = 0
        while made < len(sample):
            rules, streams = game_streams(seed, k, seats)
            pols = [RandomPolicy(game, opts, i, streams[i]) for i in range(seats)]
            t0 = time.process_time()
            made += play(game, opts, pols, rules).decisions
            spent += time.process_time() - t0
            k += 1
        return spent * len(sample) / made

    timers["decision"] = decide
    for name, make in (("observe", _observe_timer), ("openspiel", _openspiel_timer)):
        try:
            timers[name] = make(game, options or {}, sample, seed)
        except (ImportError, TypeError):  # the extra is missing; the game numbers no actions
            pass
    for timer in timers.values():
        timer()
    best = dict.fromkeys(timers, float("inf"))
    t_end = time.process_time() + seconds
    rounds = 0
    while rounds < 3 or time.process_time() < t_end:
        for name, timer in timers.items():
            best[name] = min(best[name], timer())
        rounds += 1
    per = {k: v / len(sample) * 1e6 for k, v in best.items()}
    out: dict[str, Any] = {"states": len(sample), "rounds": rounds,
                           "decision_us": per["decision"]}
    for name in ("observe", "openspiel"):
        us = per.get(name)
        out[f"{name}_us"] = us
        out[f"{name}_ratio"] = None if us is None else us / per["decision"]
    return out


def _observe_timer(game: Game, options: dict[str, str], sample: list[State], seed: int
                   ) -> Callable[[], float]:
    """Seconds for PettingZoo ``observe()`` of the seat to act on a copy of each state."""
    from balancelab.interop.pettingzoo import raw_env

    env = raw_env(game, **options)
    env.reset(seed=seed)
    agents = env.possible_agents

    def timer() -> float:
        copies = [s.copy() for s in sample]
        t0 = time.process_time()
        for c in copies:
            env.state = c
            env.observe(agents[c.current_seat])
        return time.process_time() - t0

    return timer


def _openspiel_timer(game: Game, options: dict[str, str], sample: list[State], seed: int
                     ) -> Callable[[], float]:
    """Seconds for OpenSpiel ``legal_actions()`` + ``observation_string()`` of the player to
    act on a new OpenSpiel state of each state."""
    from balancelab.interop import openspiel as bos

    spiel = bos.load(game, game.options_type.from_strings(options), rng_seed=seed)

    def timer() -> float:
        fresh = [bos.BalancelabState(spiel, s.copy()) for s in sample]
        t0 = time.process_time()
        for st in fresh:
            st.legal_actions()
            st.observation_string(st.current_player())
        return time.process_time() - t0

    return timer
