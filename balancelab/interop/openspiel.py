"""Every balancelab game as an OpenSpiel Python game (``pip install balancelab[openspiel]``).

Importing this module registers ``python_balancelab_odyssey``, ``python_balancelab_iss`` and
``python_balancelab_obcy`` (:func:`register` adds another game, a plug-in too: it needs the
action encoding of :mod:`balancelab.simulate.encoding`; its observation layout is derived).
:class:`PolicyBot` seats any balancelab policy in an OpenSpiel loop (and :func:`bot_policy` an
OpenSpiel bot in balancelab's)::

    import pyspiel
    import balancelab.interop.openspiel  # registers the games
    game = pyspiel.load_game("python_balancelab_odyssey(crew=3)")
    bots = [PolicyBot(game, 0, "default"), *(PolicyBot(game, k, "random", seed=k)
                                             for k in (1, 2, 3))]
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)

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
string (the numbers of :class:`~balancelab.interop.observation.ViewEncoder`, unpadded) and as a
tensor of the same numbers (padded to the game's layout); both, and the legal action ids, are
computed once per state and player. The views are not perfect-recall, so the game offers no
information-state string or tensor: run IS-MCTS with ``use_observation_string=True``.
``resample_from_infostate`` re-deals what the player cannot see with the game's ``determinize``
(the resampled state has the same observation for that player, and its own new Generator).

Length: ``max_game_length`` is a generous bound from the round cap (decisions per round
times rounds), not a proven maximum; the random-simulation tests stay far below it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

from balancelab.interop import CAP, resolve, seat_returns
from balancelab.interop.observation import ViewEncoder
from balancelab.policies import base as policy_base
from balancelab.simulate.core import Game, State, rules_stream
from balancelab.simulate.encoding import encode_actions
from balancelab.simulate.options import RuleOptions, format_value

PREFIX = "python_balancelab_"

#: OpenSpiel's player id of a finished game
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)

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


def load(game: str | Game, options: RuleOptions | None = None, rng_seed: int = 0
         ) -> BalancelabGame:
    """The OpenSpiel game of ``game`` (registered if not yet) at rule ``options`` (None: the
    defaults): ``pyspiel.load_game`` with every option as a parameter.

    Raises:
        UnknownGameError: an unknown game name.
        TypeError: the game has no finite action encoding.
    """
    short = register(game)
    params: dict[str, Any] = {"rng_seed": rng_seed}
    if options is not None:
        params.update({f.name: _param(getattr(options, f.name))
                       for f in dataclasses.fields(options)})
    loaded: BalancelabGame = pyspiel.load_game(short, params)
    return loaded


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
        self.encoder = ViewEncoder(self.bl_game, self.options)
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


class _Cache:
    """What a state computes once: the player to act, its legal ids and each player's
    observation (string and tensor). A clone starts with the same (immutable) values; a
    state that applies an action starts a new cache."""

    __slots__ = ("player", "legal", "views", "strings", "tensors")

    def __init__(self) -> None:
        self.player: int | None = None
        self.legal: tuple[int, ...] | None = None
        self.views: dict[int, Any] = {}
        self.strings: dict[int, str] = {}
        self.tensors: dict[int, np.ndarray] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> _Cache:
        c = _Cache()
        c.player, c.legal, c.views = self.player, self.legal, dict(self.views)
        c.strings, c.tensors = dict(self.strings), dict(self.tensors)
        return c


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
        self._cache = _Cache()

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
        """The seat to act (OpenSpiel asks several times per call of its own: once per
        state here)."""
        cache = self._cache
        player = cache.player
        if player is None:
            engine = self.engine
            player = cache.player = (_TERMINAL if engine.is_terminal()
                                     else engine.current_seat)
        return player

    def _view(self, player: int | None = None) -> Any:
        """The view of ``player`` (None: the seat to act), made once per state and player."""
        seat = self.engine.current_seat if player is None else player
        views = self._cache.views
        view = views.get(seat)
        if view is None:
            view = views[seat] = self.engine.view(seat)
        return view

    def _legal_actions(self, player: int) -> list[int]:
        cache = self._cache
        if cache.legal is None:
            cache.legal = tuple(sorted(encode_actions(
                self.bl.codec, self._view(player), self.engine.legal_actions())))
        return list(cache.legal)

    def view_string(self, player: int) -> str:
        """``player``'s view as its numbers, unpadded (:class:`ViewObserver`), computed once
        per state and player."""
        strings = self._cache.strings
        text = strings.get(player)
        if text is None:
            text = strings[player] = self.bl.encoder.text(self._view(player))
        return text

    def view_tensor(self, player: int) -> np.ndarray:
        """``player``'s view as a float32 vector (:class:`ViewObserver`), computed once per
        state and player; do not write into it."""
        tensors = self._cache.tensors
        vec = tensors.get(player)
        if vec is None:
            vec = tensors[player] = self.bl.encoder.encode(self._view(player))
        return vec

    def _decode(self, action: int) -> Any:
        return self.bl.codec.decode_action(self._view(), int(action))

    def _apply_action(self, action: int) -> None:
        self.engine.apply(self._decode(action))
        self._cache = _Cache()

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
                f"{s.current_seat} to act; its view "
                f"{self.view_string(s.current_seat)}")


class ViewObserver:
    """OpenSpiel's Python observer of a player's view: the tensor is the view's numbers
    padded to the game's layout (:class:`~balancelab.interop.observation.ViewEncoder`), the
    string ``p<player>: `` and the same numbers unpadded (their length prefixes keep the
    fields apart, so two views give one string only when they hold the same numbers)."""

    def __init__(self, game: BalancelabGame) -> None:
        self.game = game
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"view": self.tensor}

    def set_from(self, state: BalancelabState, player: int) -> None:
        self.tensor[:] = state.view_tensor(player)

    def string_from(self, state: BalancelabState, player: int) -> str:
        return f"p{player}: " + state.view_string(player)


class PolicyBot(pyspiel.Bot):
    """A balancelab policy playing one player of a registered balancelab game in an OpenSpiel
    loop (``pyspiel.evaluate_bots``, a bot tournament, a training opponent)::

        game = pyspiel.load_game("python_balancelab_odyssey(crew=3)")
        bots = [PolicyBot(game, 0, "default")] + [PolicyBot(game, k, "random", seed=k)
                                                  for k in (1, 2, 3)]
        returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)

    Args:
        game: a game loaded from a registered name (``python_balancelab_<name>(...)``).
        player: the seat the policy plays (0-based, seat order).
        spec: a policy spec as ``balancelab simulate --policy`` takes it (``default``,
            ``random``, ``search:rollouts=8`` …), for this seat's side.
        seed: seeds the policy's own Generator; game ``k`` since the bot was made (counted by
            :meth:`restart`) plays from ``default_rng([seed, k])``.

    The policy sees the seat's view and the legal actions, as in ``balancelab simulate``, and
    is asked only when there is a choice (one legal action is played without asking); a
    policy that sees the true state (``oracle``) gets a copy of it. Each :meth:`restart`
    (OpenSpiel calls it, or :meth:`restart_at`, before a new game) builds the policy afresh,
    so a scripted player's memory of one game never leaks into the next.

    Raises:
        TypeError: ``game`` is not a balancelab game.
        ValueError: ``player`` is not a seat of the game.
        balancelab.policies.base.PolicyError: an unknown policy or parameter for the seat's
            side (the message lists the valid ones).
    """

    def __init__(self, game: Any, player: int, spec: str = "default", seed: int = 0) -> None:
        pyspiel.Bot.__init__(self)
        if not isinstance(game, BalancelabGame):
            raise TypeError(f"PolicyBot plays a balancelab game (python_balancelab_*), "
                            f"got {type(game).__name__}")
        if not 0 <= player < game.seats:
            raise ValueError(f"player {player} is not a seat of {game.bl_game.name} "
                             f"(0..{game.seats - 1})")
        side = game.bl_game.side_of_seat(game.options, player)
        self.game, self.player, self.seed = game, player, seed
        self.spec = policy_base.resolve(game.bl_game, side, spec)
        self._games = -1
        self.policy: policy_base.Policy
        self.restart()

    def restart(self) -> None:
        """A new game: the policy rebuilt, with the next game's Generator."""
        self._games += 1
        g = self.game
        self.policy = policy_base.build(g.bl_game, g.options, self.player, self.spec,
                                        np.random.default_rng([self.seed, self._games]))

    def restart_at(self, state: Any) -> None:
        self.restart()

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        pass  # the policy reads the view it is shown when asked

    def inform_actions(self, state: Any, actions: Any) -> None:
        pass

    def provides_force_action(self) -> bool:
        return False

    def provides_policy(self) -> bool:
        return False

    def is_clonable(self) -> bool:
        return False

    def step(self, state: Any) -> int:
        """The action id the policy chooses for its player in ``state``.

        Raises:
            ValueError: it is not this bot's player's turn.
        """
        engine: State = state.engine
        if engine.is_terminal() or engine.current_seat != self.player:
            raise ValueError(f"PolicyBot for player {self.player}: not its turn")
        legal = engine.legal_actions()
        view = engine.view(self.player)
        if len(legal) == 1:
            chosen = legal[0]
        elif self.policy.sees_state:
            chosen = self.policy.act_on_state(engine.copy(), legal)
        else:
            chosen = self.policy.act(view, legal)
        return int(self.game.codec.encode_action(view, chosen))


class BotPolicy(policy_base.Policy):
    """A balancelab policy that asks an OpenSpiel bot (the reverse of :class:`PolicyBot`):
    a subclass gives :meth:`make_bot`; :func:`bot_policy` makes one from a function.

    The bot is asked for a move in a world dealt by the game's ``determinize`` from the seat's
    view (the bot sees no more than the view, and no history: the state it is handed is the
    start of that world), and its action id is decoded with the view. The game needs
    ``determinize`` and an action encoding.
    """

    def __init__(self, game: Game, options: RuleOptions, seat: int,
                 rng: policy_base.RngSource, **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self._spiel: BalancelabGame | None = None
        self._bot: Any = None

    def make_bot(self, game: BalancelabGame, player: int, rng: np.random.Generator) -> Any:
        """The bot for ``player`` of ``game`` (this adapter's, at the run's rule options),
        seeded from the seat's Generator ``rng``; made once per seat and game, at its first
        decision."""
        raise NotImplementedError

    def act(self, view: Any, legal: Sequence[Any]) -> Any:
        if self._spiel is None:
            self._spiel = load(self.game, self.options)
            self._bot = self.make_bot(self._spiel, self.seat, self.rng)
        world = BalancelabState(self._spiel, self.game.determinize(view, self.rng))
        return self._spiel.codec.decode_action(view, int(self._bot.step(world)))


def bot_policy(name: str, make_bot: Callable[[BalancelabGame, int, np.random.Generator], Any],
               games: Sequence[str] | None = None, sides: Sequence[str] | None = None,
               help: str = "") -> type[policy_base.Policy]:
    """Register an OpenSpiel bot as a balancelab policy (the reverse of :class:`PolicyBot`), so
    that ``balancelab simulate --policy <side>=<name>``, studies and the Python API seat it::

        from open_spiel.python.algorithms import ismcts, mcts

        def make(game, player, rng):  # once per seat and game, at its first decision
            return ismcts.ISMCTSBot(
                game, mcts.RandomRolloutEvaluator(), 2.0, 20, use_observation_string=True,
                random_state=np.random.RandomState(int(rng.integers(2**31))))

        bot_policy("os-ismcts", make, games=["odyssey"], sides=["hal"])
        balancelab.simulate("odyssey", games=2, policies={"hal": "os-ismcts"}, jobs=1)

    (``openspiel-ismcts``, :class:`OpenSpielISMCTS`, is this bot with the game's own
    ``evaluate`` at the leaves, registered when this module is imported.)

    Args:
        name: the policy's registry name.
        make_bot: builds the bot for ``(OpenSpiel game, player, the seat's Generator)``
            (:meth:`BotPolicy.make_bot`).
        games, sides, help: as for :func:`balancelab.policies.base.register`.

    Returns:
        The registered Policy class (a :class:`BotPolicy`).
    """

    class Made(BotPolicy):
        __doc__ = help or f"the OpenSpiel bot {name!r}"

        def make_bot(self, game: BalancelabGame, player: int, rng: np.random.Generator
                     ) -> Any:
            return make_bot(game, player, rng)

    Made.name = name
    Made.__name__ = Made.__qualname__ = f"BotPolicy_{name}"
    policy_base.register(name, Made, games=games, sides=sides,
                         help=help or f"the OpenSpiel bot {name!r}")
    return Made


class EvaluateEvaluator:
    """An OpenSpiel MCTS/IS-MCTS evaluator built on the game's own ``evaluate`` (instead of
    random rollouts, which never end in Obcy): a leaf is scored, for every player, by
    ``2 p - 1`` where ``p = Game.evaluate(state, seat)`` is the seat's estimated chance of
    winning (0 where the game gives none), a finished game by its returns; the prior is
    uniform over the legal actions.

    ``evaluate(state)`` returns float64 of shape ``(players,)`` in [-1, 1]; ``prior(state)``
    a list of ``(action id, probability)``. Duck-typed to
    ``open_spiel.python.algorithms.mcts.Evaluator`` (``evaluate``, ``prior``).
    """

    def evaluate(self, state: BalancelabState) -> np.ndarray:
        if state.is_terminal():
            return np.asarray(state.returns(), dtype=np.float64)
        g = state.bl
        engine = state.engine
        out = np.zeros(g.seats)
        for seat in range(g.seats):
            p = g.bl_game.evaluate(engine, seat)
            out[seat] = 0.0 if p is None else 2.0 * float(p) - 1.0
        return out

    def prior(self, state: BalancelabState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


class OpenSpielISMCTS(BotPolicy):
    """OpenSpiel's own IS-MCTS bot (``open_spiel.python.algorithms.ismcts.ISMCTSBot``, UCT,
    the most visited move) with the game's evaluate at the leaves (:class:`EvaluateEvaluator`);
    a fair player: it searches worlds re-dealt from its seat's view. The skill ladder's
    outside rung (``balancelab study skill-ladder GAME --openspiel``); needs the openspiel
    extra."""

    name = "openspiel-ismcts"
    params = {
        "simulations": policy_base.Param(16, low=1, high=100_000,
                                         help="IS-MCTS simulations per decision"),
        "uct_c": policy_base.Param(2.0, low=0.0, high=100.0, help="UCT exploration constant"),
    }

    def make_bot(self, game: BalancelabGame, player: int, rng: np.random.Generator) -> Any:
        from open_spiel.python.algorithms import ismcts

        return ismcts.ISMCTSBot(
            game, EvaluateEvaluator(), float(self.cfg["uct_c"]), int(self.cfg["simulations"]),
            random_state=np.random.RandomState(int(rng.integers(2**31))),
            use_observation_string=True, allow_inconsistent_action_sets=True)


for _name in ("odyssey", "iss", "obcy"):
    register(_name)

# by its import path, so that a run's workers import this module (and pyspiel) themselves
policy_base.register(OpenSpielISMCTS.name, f"{__name__}:OpenSpielISMCTS",
                     help="OpenSpiel's IS-MCTS bot, scored by the game's evaluate (openspiel "
                     "extra)")
