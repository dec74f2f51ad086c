"""Every balancelab game as an OpenSpiel Python game (``pip install balancelab[openspiel]``).

Importing this module registers ``python_balancelab_odyssey``, ``python_balancelab_iss`` and
``python_balancelab_obcy`` (:func:`register` adds another game)::

    import pyspiel
    import balancelab.interop.openspiel  # registers the games
    game = pyspiel.load_game("python_balancelab_odyssey(crew=3)")

Parameters are the game's rule options with their defaults (a tuple option is written with
``/`` between its values, as in a variant label: ``countdowns=1/1/2/2/2/1/2/1``), plus
``rng_seed``. Players are the seats in seat order; actions are the game's action ids
(:mod:`balancelab.simulate.encoding`; ``num_distinct_actions`` fixed by the options); returns
are +1 win, -1 loss, 0 shared result or round cap, at the end only
(:func:`~balancelab.interop.seat_returns`; GENERAL_SUM, as a team's seats all win together).

Chance: ``SAMPLED_STOCHASTIC``. The engines draw their shuffles and dice inside ``apply``
from the state's own numpy Generator, and one action can cause any number of draws (a
reshuffle, a Scan, a hatching roll…), so there are no explicit chance nodes. The Generator is
part of the state: a clone copies it (and then draws the same numbers). The game object deals
the k-th state it makes from ``rules_stream(rng_seed, k)`` — the deal of game k of
``balancelab simulate --seed rng_seed`` — and OpenSpiel makes states of its own (to learn the
tensor shape, say), so ``str(state)`` names its game index. What OpenSpiel cannot do with a
Python game of sampled chance: serialize it (``pyspiel`` has no hook for a Python game's
``GetRNGState``), so ``random_sim_test`` runs with ``serialize=False`` and the game does not
pickle.

Information: the observation of a player is its seat's view (never the hidden part), as a
string (the numbers of :class:`~balancelab.interop.observation.ViewEncoder`) and as a tensor
of the same numbers. The views are not perfect-recall, so the game offers no information-state
string or tensor: run IS-MCTS with ``use_observation_string=True``. ``resample_from_infostate``
re-deals what the player cannot see with the game's ``determinize`` (the resampled state has
the same observation for that player, and its own new Generator).

Length: ``max_game_length`` is a generous bound from the round cap (decisions per round
times rounds), not a proven maximum; the random-simulation tests stay far below it.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pyspiel

from balancelab.interop import CAP, resolve, seat_returns
from balancelab.interop.observation import ViewEncoder
from balancelab.simulate.core import Game, State, rules_stream
from balancelab.simulate.options import RuleOptions, format_value

PREFIX = "python_balancelab_"

#: decisions per round bound, and the option holding the round cap, per game
_LENGTH: dict[str, tuple[str, int]] = {
    "odyssey": ("max_rounds", 400), "iss": ("max_turns", 200), "obcy": ("max_rounds", 4000)}


def _param(value: Any) -> Any:
    """An option value as an OpenSpiel parameter (bool, int, float or str)."""
    return value if isinstance(value, bool | int | float | str) else format_value(value)


def register(game: str | Game) -> str:
    """Register ``game`` (a name or a Game with an action encoding) with pyspiel; return its
    short name ``python_balancelab_<name>``. Registering twice is a no-op.

    Raises:
        UnknownGameError: an unknown game name.
        TypeError: the game has no finite action encoding.
    """
    g, _, defaults = resolve(game, {})
    short = PREFIX + g.name
    if short in _REGISTERED:
        return short
    spec = {f.name: _param(getattr(defaults, f.name)) for f in dataclasses.fields(defaults)}
    spec["rng_seed"] = 0
    seats = len(g.seats(defaults))
    sizes = {len(g.seats(defaults.replace(**{k: v}))) for k, v in _seat_options(g, defaults)}
    game_type = pyspiel.GameType(
        short_name=short,
        long_name=f"balancelab {g.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(sizes | {seats}),
        min_num_players=min(sizes | {seats}),
        provides_information_state_string=False,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=spec,
    )

    class _Bound(BalancelabGame):
        bl_game = g

        def __init__(self, params: dict[str, Any] | None = None) -> None:
            super().__init__(game_type, params or {})

    _Bound.__name__ = f"BalancelabGame_{g.name}"
    pyspiel.register_game(game_type, _Bound)
    _REGISTERED[short] = _Bound
    return short


def _seat_options(g: Game, defaults: RuleOptions) -> list[tuple[str, Any]]:
    """The seat-count options (``crew``, ``players``) at their extreme values, to bound the
    number of players (from the option's ``choices`` or ``low``/``high``)."""
    out: list[tuple[str, Any]] = []
    for f in dataclasses.fields(defaults):
        if f.name in ("crew", "players"):
            given = f.metadata.get("choices") or (f.metadata.get("low"), f.metadata.get("high"))
            values = [int(v) for v in given if v is not None]
            out += [(f.name, v) for v in {min(values), max(values)}] if values else []
    return out


_REGISTERED: dict[str, type[BalancelabGame]] = {}


class BalancelabGame(pyspiel.Game):
    """A balancelab game seen by OpenSpiel (one subclass per registered game)."""

    bl_game: Game

    def __init__(self, game_type: pyspiel.GameType, params: dict[str, Any]) -> None:
        raw = dict(params)
        self.rng_seed = int(raw.pop("rng_seed", 0))
        _, self.codec, self.options = resolve(self.bl_game, raw)
        self.seats = len(self.bl_game.seats(self.options))
        self.encoder = ViewEncoder(self.bl_game)
        cap_option, per_round = _LENGTH.get(self.bl_game.name, ("", 0))
        cap = int(getattr(self.options, cap_option, 0) or 0)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_distinct_actions(self.options),
            max_chance_outcomes=0,
            num_players=self.seats,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=max(1, cap) * max(1, per_round) if cap else 10**6,
        )
        super().__init__(game_type, info, params)
        self._next_index = 0

    def new_initial_state(self) -> BalancelabState:
        """The next game of run seed ``rng_seed`` (game 0, 1, 2… of this game object)."""
        return BalancelabState(self)

    def take_index(self) -> int:
        """The index of the next game dealt."""
        index = self._next_index
        self._next_index += 1
        return index

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is not None and iig_obs_type.perfect_recall:
            raise ValueError(f"{self.bl_game.name}: the views are not perfect-recall; "
                             "use the observation (IS-MCTS: use_observation_string=True)")
        return ViewObserver(self)


class _Shared:
    """An attribute a clone shares (the game): OpenSpiel's ``Clone`` deep-copies ``__dict__``."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class _Engine:
    """The engine state; deep-copied by the engine's own ``copy()`` (its Generator included,
    the rule tables shared), not attribute by attribute."""

    __slots__ = ("state",)

    def __init__(self, state: State) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Engine:
        return _Engine(self.state.copy())


class BalancelabState(pyspiel.State):
    """A game in progress: the engine state (with its Generator) and its game index.

    OpenSpiel's ``clone()`` makes a new initial state and then deep-copies this one's
    attributes into it, so a new state deals its game lazily, on first use: a clone neither
    deals a game nor uses up a game index.
    """

    def __init__(self, game: BalancelabGame, engine: State | None = None,
                 index: int = -1) -> None:
        super().__init__(game)
        self._game = _Shared(game)
        self._engine = None if engine is None else _Engine(engine)
        self._index = index
        self._legal: list[int] | None = None  # the legal ids, until the next action

    @property
    def bl(self) -> BalancelabGame:
        """The game object."""
        game: BalancelabGame = self._game.value
        return game

    @property
    def engine(self) -> State:
        """The engine state (dealt from ``rules_stream(rng_seed, index)`` on first use)."""
        if self._engine is None:
            g = self.bl
            self._index = g.take_index()
            self._engine = _Engine(g.bl_game.new_initial_state(
                g.options, rules_stream(g.rng_seed, self._index)))
        return self._engine.state

    @property
    def index(self) -> int:
        """The game's index in its run seed (``-1`` for a resampled world)."""
        self.engine  # noqa: B018 - deals the game if not yet done
        return self._index

    # -- the OpenSpiel state API ---------------------------------------------------------
    def current_player(self) -> int:
        if self.engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.engine.current_seat

    def _view(self, player: int | None = None) -> Any:
        return self.engine.view(self.engine.current_seat if player is None else player)

    def _legal_actions(self, player: int) -> list[int]:
        if self._legal is None:
            view = self._view(player)
            encode = self.bl.codec.encode_action
            self._legal = sorted(encode(view, a) for a in self.engine.legal_actions())
        return list(self._legal)

    def _decode(self, action: int) -> Any:
        return self.bl.codec.decode_action(self._view(), int(action))

    def _apply_action(self, action: int) -> None:
        self.engine.apply(self._decode(action))
        self._legal = None

    def _action_to_string(self, player: int, action: int) -> str:
        """The action in the rulebook's words, then its id (two ALIENS alike on one space
        have the same words; OpenSpiel wants distinct strings)."""
        return f"{self.engine.action_text(self._decode(action))} [{action}]"

    def is_terminal(self) -> bool:
        return self.engine.is_terminal()

    def returns(self) -> list[float]:
        if not self.engine.is_terminal():
            return [0.0] * self.bl.seats
        return [float(x) for x in seat_returns(self.bl.bl_game, self.bl.options,
                                                self.engine.result())]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> Any:
        """A state consistent with what ``player_id`` sees: the hidden part re-dealt by the
        game's ``determinize``, from a Generator seeded by a draw of ``probability_sampler``
        (a callable giving a float in [0, 1), as OpenSpiel's samplers)."""
        rng = np.random.default_rng(int(float(probability_sampler()) * 2**53))
        engine = self.bl.bl_game.determinize(self.engine.view(player_id), rng)
        return BalancelabState(self.bl, engine)

    def truncated(self) -> bool:
        """True when the game was stopped by its round cap."""
        return self.engine.is_terminal() and self.engine.result().end_reason == CAP

    def __str__(self) -> str:
        s = self.engine
        if s.is_terminal():
            r = s.result()
            return f"game {self._index}: over, winner {r.winner or 'none'} ({r.end_reason})"
        return (f"game {self._index}, {len(self.history())} actions: seat "
                f"{s.current_seat} to act; its view {_numbers(self.bl, self._view())}")


def _numbers(game: BalancelabGame, view: Any) -> str:
    """The view's numbers (integers: every view field holds ints) as a string."""
    return " ".join(map(str, game.encoder.encode(view).astype(np.int64).tolist()))


class ViewObserver:
    """OpenSpiel's Python observer of a player's view (tensor and string)."""

    def __init__(self, game: BalancelabGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: BalancelabState, player: int) -> None:
        self.tensor[:] = self.game.encoder.encode(state.engine.view(player))

    def string_from(self, state: BalancelabState, player: int) -> str:
        return f"p{player}: " + _numbers(self.game, state.engine.view(player))


for _name in ("odyssey", "iss", "obcy"):
    register(_name)
