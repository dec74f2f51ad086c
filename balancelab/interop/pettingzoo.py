"""Any balancelab game as a PettingZoo AEC environment (``pip install balancelab[pettingzoo]``).

>>> from balancelab.interop.pettingzoo import env
>>> e = env("odyssey", crew=3)
>>> e.reset(seed=7)   # the deal of game 0 of ``balancelab simulate odyssey --seed 7``

Agents are the game's seats (``hal``, ``bowman``, …) and act in the rules' order (one agent
may act several times in a row). The observation of an agent is a dict: ``"observation"``,
its own seat's view as a float32 vector of fixed shape
(:class:`~balancelab.interop.observation.ViewEncoder`), and ``"action_mask"``, an int8
vector over the game's action ids (:mod:`balancelab.simulate.encoding`), all zeros for an
agent that is not to act. Actions are ids (``Discrete(num_distinct_actions)``); an id that is
not legal raises :class:`~balancelab.simulate.core.IllegalActionError` naming the legal
actions in the rulebook's words.

Rewards come at the end only (:func:`~balancelab.interop.seat_returns`: +1 win, -1 loss, 0
shared result). A game that ends by the rules is a *termination*; one stopped by the round
cap (``max_rounds``/``max_turns``) a *truncation*.

Seeding: ``reset(seed=s)`` plays game 0 of run seed ``s`` with the same shuffles and dice as
``balancelab simulate --seed s`` (:func:`~balancelab.simulate.core.rules_stream`); each later
``reset()`` without a seed plays the next game of that run. The first reset without any seed
draws the run seed from the operating system.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from balancelab.interop import CAP, resolve, seat_returns
from balancelab.interop.observation import ViewEncoder, action_mask
from balancelab.simulate.core import Game, IllegalActionError, rules_stream
from balancelab.simulate.encoding import encode_actions


def env(game: str | Game, render_mode: str | None = None, **options: Any) -> AECEnv:
    """A PettingZoo AEC environment of ``game`` (a name or a Game) with rule ``options``,
    wrapped in PettingZoo's order-enforcing wrapper.

    Raises:
        UnknownGameError: an unknown game name (the message lists the games).
        OptionError: an unknown option or a bad value (the message lists the valid ones).
    """
    return wrappers.OrderEnforcingWrapper(raw_env(game, render_mode=render_mode, **options))


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped environment (see the module docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, game: str | Game, render_mode: str | None = None,
                 **options: Any) -> None:
        super().__init__()
        self.game, self.codec, self.options = resolve(game, options)
        self.metadata = {**self.metadata, "name": f"balancelab_{self.game.name}_v0"}
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(self.game.seats(self.options))
        self._index = {a: k for k, a in enumerate(self.possible_agents)}
        self._encoder = ViewEncoder(self.game, self.options)
        self.n_actions = self.codec.num_distinct_actions(self.options)
        obs = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, self._encoder.shape, np.float32),
            "action_mask": spaces.Box(0, 1, (self.n_actions,), np.int8),
        })
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.n_actions) for a in self.possible_agents}
        self._run_seed: int | None = None
        self._game_index = 0
        self.state: Any = None
        self._seen: Any = None  # the state the cached observations are of
        self._cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._steps = self._seen_steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game (see the module docstring for seeding); ``options`` is ignored
        (rule options are fixed when the environment is made)."""
        if seed is not None:
            self._run_seed, self._game_index = int(seed), 0
        elif self._run_seed is None:
            self._run_seed = int(np.random.SeedSequence().entropy) % 2**63  # type: ignore[arg-type]
        else:
            self._game_index += 1
        self.state = self.game.new_initial_state(
            self.options, rules_stream(self._run_seed, self._game_index))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._finish_if_over()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s observation (see the module docstring), computed once per state and
        agent (each call returns its own arrays)."""
        seat = self._index[agent]
        s = self.state
        if self._seen is not s or self._steps != self._seen_steps:
            self._seen, self._seen_steps = s, self._steps
            self._cache.clear()
        cached = self._cache.get(seat)
        if cached is None:
            view = s.view(seat)
            to_act = not s.is_terminal() and s.current_seat == seat
            ids = encode_actions(self.codec, view, s.legal_actions()) if to_act else []
            cached = self._cache[seat] = (self._encoder.encode(view),
                                          action_mask(ids, self.n_actions))
        return {"observation": cached[0].copy(), "action_mask": cached[1].copy()}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._index[agent]
        view = self.state.view(seat)
        try:
            chosen = self.codec.decode_action(view, int(action))
        except ValueError as e:
            raise IllegalActionError(f"action id {action!r} for {agent}: {e}") from None
        self.state.apply(chosen)  # an id decoding to an action not legal now raises here
        self._steps += 1
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        self._finish_if_over()

    def _finish_if_over(self) -> None:
        """Select the seat to act, or end the game: rewards, terminations or truncations."""
        s = self.state
        if not s.is_terminal():
            self.agent_selection = self.possible_agents[s.current_seat]
            return
        record = s.result()
        returns = seat_returns(self.game, self.options, record)
        capped = record.end_reason == CAP
        for k, a in enumerate(self.possible_agents):
            self.rewards[a] = float(returns[k])
            self.terminations[a] = not capped
            self.truncations[a] = capped
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]

    def render(self) -> str | None:
        """``ansi``: the seat to act and its legal actions in the rulebook's words."""
        if self.render_mode is None:
            return None
        s = self.state
        if s.is_terminal():
            r = s.result()
            return f"game over: winner {r.winner or 'none'} ({r.end_reason})"
        legal = "; ".join(s.action_text(a) for a in s.legal_actions())
        return f"{self.possible_agents[s.current_seat]} to act: {legal}"

    def close(self) -> None:
        pass
