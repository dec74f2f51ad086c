"""Policies: the Policy protocol, the registry, spec parsing, and the random policy.

A policy plays one seat. It is built once per game with its seat's own Generator and asked
``act(view, legal)`` at every decision where more than one action is legal. It reads the
seat's :class:`~balancelab.simulate.core.View` only, never the state.

Policies are named by specs: ``default``, ``random``, ``search:rollouts=400,depth=40``. A run
assigns a spec to each side (``crew=search``) or seat (``seat2=random``).
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
from mypy_extensions import mypyc_attr
from numpy.random import Generator

from balancelab.simulate.core import Action, Game, State, View
from balancelab.simulate.options import RuleOptions


class PolicyError(ValueError):
    """An unknown policy, a policy that cannot play a seat, or a bad policy parameter."""


#: A seat's Generator, or a function making it on first use (see :class:`Policy`).
RngSource: TypeAlias = Generator | Callable[[], Generator]


@mypyc_attr(allow_interpreted_subclasses=True)
class Policy(abc.ABC):
    """One seat's decision maker.

    Class attributes:
        name: registry name.
        params: parameter name → default; the spec ``name:key=value`` overrides them.

    Args:
        game: the game being played.
        options: the game's rule options.
        seat: the seat index this policy plays.
        rng: the seat's own Generator (its only source of randomness), or a function that
            makes it, called the first time the policy reads :attr:`rng` (most scripted
            policies never draw, and seeding a Generator costs more than a whole decision).
        **params: values for the keys of ``params``.
    """

    name: ClassVar[str] = ""
    params: ClassVar[dict[str, Any]] = {}
    #: True only for a policy that CHEATS: the game loop then calls :meth:`act_on_state` with
    #: a copy of the true state (every hand, the deck order) instead of :meth:`act` with the
    #: seat's view. Only ``oracle`` sets it; runs, manifests and reports label it a cheat.
    sees_state: ClassVar[bool] = False

    def __init__(
        self,
        game: Game,
        options: RuleOptions,
        seat: int,
        rng: RngSource,
        **params: Any,
    ) -> None:
        self.game = game
        self.options = options
        self.seat = seat
        self._rng: np.random.Generator | None = None
        self._make_rng: Callable[[], np.random.Generator] | None = None
        if isinstance(rng, Generator):
            self._rng = rng
        elif callable(rng):
            self._make_rng = rng
        else:
            raise PolicyError(f"policy {self.name!r}: rng must be a numpy Generator or a "
                              f"function making one; got {type(rng).__name__}")
        self.cfg = {**self.params, **params}

    @property
    def rng(self) -> np.random.Generator:
        """The seat's own Generator (made on first use when built from a function)."""
        rng = self._rng
        if rng is None:
            assert self._make_rng is not None
            rng = self._rng = self._make_rng()
        return rng

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng = rng

    @abc.abstractmethod
    def act(self, view: View, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (a non-empty sequence) from what ``view`` shows."""

    def act_on_state(self, state: State, legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` from a copy of the true state: called instead of
        :meth:`act` for a policy with :attr:`sees_state` (a cheat), never otherwise.

        Raises:
            NotImplementedError: the policy does not see the state.
        """
        raise NotImplementedError(f"policy {self.name!r} plays from its view, not the state")


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomPolicy(Policy):
    """Uniform over the legal actions, from the seat's own stream. Plays any seat of any game."""

    name = "random"

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        return legal[int(self.rng.integers(len(legal)))]


@dataclass(frozen=True)
class PolicyEntry:
    """A registered policy: which games and sides it plays, and how to build it."""

    name: str
    factory: Callable[..., Policy]
    games: tuple[str, ...] | None  # None: any game
    sides: tuple[str, ...] | None  # None: any side
    help: str


_REGISTRY: dict[str, list[PolicyEntry]] = {}
#: (game, side, resolved spec) -> (factory, parameters), filled by :func:`build`
_FACTORIES: dict[tuple[str, str, str], tuple[Callable[..., Policy], dict[str, Any]]] = {}


def register(
    name: str,
    factory: Callable[..., Policy],
    *,
    games: Sequence[str] | None = None,
    sides: Sequence[str] | None = None,
    help: str = "",
) -> None:
    """Register a policy under ``name`` for some games and sides (None = all)."""
    entry = PolicyEntry(
        name,
        factory,
        tuple(games) if games is not None else None,
        tuple(sides) if sides is not None else None,
        help,
    )
    _REGISTRY.setdefault(name, []).append(entry)
    _FACTORIES.clear()


register("random", RandomPolicy, help="uniform over legal actions")


def _load_builtin(game: str) -> None:
    """Import the game and the module that registers its built-in policies."""
    from balancelab.games import get_game

    get_game(game)


def available(game: str, side: str) -> list[str]:
    """Policy names that can play ``side`` of ``game``, sorted."""
    _load_builtin(game)
    out = set()
    for name, entries in _REGISTRY.items():
        for e in entries:
            if (e.games is None or game in e.games) and (e.sides is None or side in e.sides):
                out.add(name)
    return sorted(out)


def entries_for(game: str, side: str) -> dict[str, PolicyEntry]:
    """name → entry for the policies that can play ``side`` of ``game``."""
    _load_builtin(game)
    found: dict[str, PolicyEntry] = {}
    for name, entries in _REGISTRY.items():
        for e in entries:
            if (e.games is None or game in e.games) and (e.sides is None or side in e.sides):
                found.setdefault(name, e)
    return found


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``name:key=value,key=value`` into the name and typed parameters.

    Raises:
        PolicyError: a parameter is not ``key=value``.
    """
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise PolicyError(f"policy parameter {part!r} in {spec!r} must be key=value")
        params[key.strip()] = _typed(value.strip())
    return name.strip(), params


def _typed(value: str) -> Any:
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    if value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def canonical_spec(spec: str) -> str:
    """A spec written canonically (parameters sorted), for records and labels."""
    name, params = parse_spec(spec)
    if not params:
        return name
    return name + ":" + ",".join(f"{k}={params[k]}" for k in sorted(params))


def resolve(game: Game, side: str, spec: str) -> str:
    """Validate a spec for a side of a game and return it canonical; ``default`` is resolved.

    Raises:
        PolicyError: unknown policy (the message lists those that can play the side), or an
            unknown parameter (the message lists the valid ones).
    """
    name, params = parse_spec(spec)
    if name == "default":
        name = game.default_policies[side]
    options = entries_for(game.name, side)
    if name not in options:
        raise PolicyError(
            f"unknown policy {name!r} for side {side!r} of {game.name!r}; "
            f"valid: default, {', '.join(sorted(options))}"
        )
    factory = options[name].factory
    valid = getattr(factory, "params", {})
    bad = sorted(set(params) - set(valid))
    if bad:
        listed = ", ".join(f"{k} (default {v})" for k, v in valid.items()) or "none"
        raise PolicyError(f"policy {name!r} has no parameter {bad[0]!r}; parameters: {listed}")
    return canonical_spec(name + (":" + ",".join(f"{k}={v}" for k, v in params.items())
                                  if params else ""))


def build(
    game: Game,
    options: RuleOptions,
    seat: int,
    spec: str,
    rng: RngSource,
) -> Policy:
    """Build the policy for one seat from a resolved spec; ``rng`` as for :class:`Policy`."""
    side = game.side_of_seat(options, seat)
    factory, params = _factory_and_params(game.name, side, spec)
    return factory(game, options, seat, rng, **params)


def _factory_and_params(game: str, side: str, spec: str
                        ) -> tuple[Callable[..., Policy], dict[str, Any]]:
    """The factory and parameters of a resolved spec (cached: a run builds a policy per seat
    and game)."""
    key = (game, side, spec)
    hit = _FACTORIES.get(key)
    if hit is None:
        name, params = parse_spec(spec)
        hit = _FACTORIES[key] = (entries_for(game, side)[name].factory, params)
    return hit[0], dict(hit[1])


import balancelab.policies.ismcts  # noqa: E402, F401  (registers "ismcts" and "oracle")
import balancelab.policies.search  # noqa: E402, F401  (registers "search" for every game)
