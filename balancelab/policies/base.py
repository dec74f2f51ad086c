"""Policies: the Policy protocol, the registry, spec parsing, and the random policy.

A policy plays one seat. It is built once per game with its seat's own Generator and asked
``act(view, legal)`` at every decision where more than one action is legal. It reads the
seat's :class:`~balancelab.simulate.core.View` only, never the state.

Policies are named by specs: ``default``, ``random``, ``search:rollouts=400,depth=40``. A run
assigns a spec to each side (``crew=search``) or seat (``seat2=random``).

Typed parameters. A policy class declares its parameters in ``params``: name → :class:`Param`
(type, default, allowed range or values, help), or name → a plain default whose type gives the
parameter's (``3`` an integer, ``0.5`` a number, ``True`` true/false, ``"squad"`` text)::

    class Expedition(Policy):
        params = {"spread": Param(3, low=0, high=6, help="how far escorts may lead"),
                  "plan": Param("squad", choices=("squad", "dash")),
                  "danger": 1.0}

:func:`resolve` checks every value of a spec against the declaration before a run starts and
writes the spec canonically with the typed values (``squad:spread=2.5`` is refused: "takes an
integer", never truncated to 2); ``Policy.cfg`` then holds typed values only (an ``int``
parameter is an ``int``). :func:`param_specs` gives a class's declarations.
"""

from __future__ import annotations

import abc
import difflib
import functools
import importlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
from mypy_extensions import mypyc_attr
from numpy.random import Generator

from balancelab.policies.errors import PolicyError
from balancelab.simulate.core import Action, Game, State, View
from balancelab.simulate.options import RuleOptions

#: The types a policy parameter may have (how it is parsed from a spec).
PARAM_TYPES: tuple[str, ...] = ("int", "float", "bool", "str")


@dataclass
class Param:
    """One declared policy parameter (a value of a policy class's ``params``).

    Args:
        default: the value when the spec does not give one.
        type: ``"int"``, ``"float"``, ``"bool"`` or ``"str"``; ``""`` (the default) takes the
            default's type.
        low, high: inclusive bounds of a number (None: unbounded).
        choices: the allowed values, if a closed set.
        help: one line for ``balancelab games``.

    Raises:
        PolicyError: an unknown type, or a default outside its own declaration.
    """

    default: Any
    type: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[Any, ...] | None = None
    help: str = ""

    def __post_init__(self) -> None:
        if not self.type:
            self.type = _type_of(self.default)
        if self.type not in PARAM_TYPES:
            raise PolicyError(f"parameter type {self.type!r} is not one of "
                              f"{', '.join(PARAM_TYPES)}")

    def words(self) -> str:
        """What the parameter accepts, in words: ``an integer in [1, 10000]``."""
        if self.choices is not None:
            return "one of " + ", ".join(_format(c) for c in self.choices)
        kind = {"int": "an integer", "float": "a number", "bool": "true or false",
                "str": "text"}[self.type]
        if self.low is not None or self.high is not None:
            lo = "-inf" if self.low is None else _format(self.low)
            hi = "inf" if self.high is None else _format(self.high)
            kind += f" in [{lo}, {hi}]"
        return kind

    def parse(self, raw: Any, policy: str, name: str) -> Any:
        """The typed value of ``raw`` (a spec's string, or a typed value).

        Raises:
            PolicyError: naming the policy, the parameter, what it accepts and what was given.
        """
        value = _coerce(raw, self.type)
        bad = value is None
        if not bad and self.choices is not None and value not in self.choices:
            bad = True
        if not bad and self.type in ("int", "float") and (
                (self.low is not None and value < self.low)
                or (self.high is not None and value > self.high)):
            bad = True
        if bad:
            raise PolicyError(f"policy {policy!r} parameter {name!r} takes {self.words()}; "
                              f"got {_format(raw)}")
        return value


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


def _coerce(raw: Any, kind: str) -> Any:
    """``raw`` as ``kind``, or None when it is not one (no truncation, no numpy scalars)."""
    if isinstance(raw, str):
        s = raw.strip()
        if kind == "str":
            return s
        if kind == "bool":
            low = s.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            return None
        if kind == "int":
            try:
                return int(s)
            except ValueError:
                return None
        try:
            f = float(s)
        except ValueError:
            return None
        return f if math.isfinite(f) else None
    if kind == "str":
        return raw if type(raw) is str else None
    if kind == "bool":
        return raw if type(raw) is bool else None
    if kind == "int":
        return raw if type(raw) is int else None
    if type(raw) is int or type(raw) is float:
        f = float(raw)
        return f if math.isfinite(f) else None
    return None


def _format(value: Any) -> str:
    """A parameter value as written in specs and records (``2.5``, ``3``, ``True``)."""
    if isinstance(value, float):
        r = repr(value)
        return r[:-2] if r.endswith(".0") else r
    return str(value)


def param_specs(factory: Any) -> dict[str, Param]:
    """A policy class's parameters as :class:`Param` (plain defaults typed by their value)."""
    raw = getattr(factory, "params", None) or {}
    ranges = getattr(factory, "param_ranges", None) or {}
    out: dict[str, Param] = {}
    for k, v in raw.items():
        if isinstance(v, Param):
            out[k] = v
        elif k in ranges and not isinstance(v, bool):
            lo, hi = ranges[k]
            out[k] = Param(v, low=lo, high=hi)
        else:
            out[k] = Param(v)
    return out


#: policy class → its parameters' defaults (filled on first use)
_DEFAULTS: dict[Any, dict[str, Any]] = {}


def param_defaults(factory: Any) -> dict[str, Any]:
    """A policy class's parameter defaults (name → value)."""
    hit = _DEFAULTS.get(factory)
    if hit is None:
        hit = _DEFAULTS[factory] = {k: p.default for k, p in param_specs(factory).items()}
    return hit


#: A seat's Generator, or a function making it on first use (see :class:`Policy`).
RngSource: TypeAlias = Generator | Callable[[], Generator]


@mypyc_attr(allow_interpreted_subclasses=True)
class Policy(abc.ABC):
    """One seat's decision maker.

    Class attributes:
        name: registry name.
        params: parameter name → :class:`Param` (or a plain default, typed by its value); the
            spec ``name:key=value`` overrides them. ``cfg`` holds the typed values.
        param_ranges: numeric parameter name → (lowest, highest) allowed value (inclusive) of
            a plain default; these are the parameters ``balancelab tune`` searches.
            :func:`resolve` rejects a value outside its range or of the wrong type with a
            one-line error.

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
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {}
    #: True only for a policy that CHEATS: the game loop then calls :meth:`act_on_state` with
    #: a copy of the true state (every hand, the deck order) instead of :meth:`act` with the
    #: seat's view. Only ``oracle`` sets it; runs, manifests and reports label it a cheat.
    sees_state: ClassVar[bool] = False
    #: Whether :meth:`act` may read a view's public record of past decisions (such as
    #: ``OdysseyView.hal_history``). When no seated policy does, the game loop tells the state
    #: not to keep that record (:meth:`State.stop_recording`): the same games, faster.
    #: A policy that never reads it sets False; a subclass that reads it sets True again.
    reads_history: ClassVar[bool] = True

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
        self.cfg = {**param_defaults(type(self)), **params}

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

    def ranked(self, view: View, legal: Sequence[Action]) -> list[Action]:
        """``legal`` in the order this policy prefers it: first its choice (what :meth:`act`
        returns, with the same effects on the policy's memory and stream: it calls
        :meth:`act` once), then the others, best first where the policy scores them
        (``ismcts`` widens its tree in this order), else in ``legal``'s order."""
        a = self.act(view, legal)
        return [a, *[x for x in legal if x != a]]


@mypyc_attr(allow_interpreted_subclasses=True)
class RandomPolicy(Policy):
    """Uniform over the legal actions, from the seat's own stream. Plays any seat of any game."""

    name = "random"
    reads_history = False

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
    factory: Callable[..., Policy] | str,
    *,
    games: Sequence[str] | None = None,
    sides: Sequence[str] | None = None,
    help: str = "",
) -> None:
    """Register a policy under ``name`` for some games and sides (None = all).

    ``factory``: a Policy subclass (or a function with its constructor's signature), or its
    import path ``"package.module:Class"``. A registration from user code reaches the run's
    workers too (:mod:`balancelab.plugins`); registering the same entry twice is a no-op.

    Raises:
        PluginError: an import path that cannot be loaded.
    """
    from balancelab import plugins

    made = plugins.load_path(factory) if isinstance(factory, str) else factory
    entry = PolicyEntry(
        name,
        made,
        tuple(games) if games is not None else None,
        tuple(sides) if sides is not None else None,
        help,
    )
    if entry in _REGISTRY.get(name, []):
        return
    _REGISTRY.setdefault(name, []).append(entry)
    _FACTORIES.clear()
    plugins.remember("policy", name, factory, games=entry.games, sides=entry.sides, help=help)


register("random", RandomPolicy, help="uniform over legal actions")


#: (name, value) of the policy entry points loaded in this process.
_PLUGINS_LOADED: set[tuple[str, str]] = set()


def load_plugins() -> None:
    """Load every ``balancelab.policies`` entry point not loaded yet (:mod:`balancelab.plugins`).
    A module registers its policies on import; a Policy subclass is registered under the entry
    point's name for the games and sides named by its class attributes ``games`` and ``sides``
    (absent: all), with its docstring's first line as help. A plug-in that fails is skipped
    with a warning (it must not stop the others from playing)."""
    import types
    import warnings

    from balancelab import plugins

    for ep in plugins.entry_points(plugins.POLICIES_GROUP):
        if (ep.name, ep.value) in _PLUGINS_LOADED:
            continue
        _PLUGINS_LOADED.add((ep.name, ep.value))
        try:
            obj = plugins.load_entry_point(ep)
            if isinstance(obj, types.ModuleType):
                continue
            if isinstance(obj, type) and issubclass(obj, Policy):
                doc = str(getattr(obj, "__doc__", None) or "")
                with plugins.loading():
                    register(ep.name, obj, games=getattr(obj, "games", None),
                             sides=getattr(obj, "sides", None),
                             help=doc.strip().split("\n")[0].rstrip("."))
                continue
            raise plugins.PluginError(f"{plugins.describe(ep)} is a {type(obj).__name__}, "
                                      "not a module or a Policy subclass")
        except plugins.PluginError as exc:
            warnings.warn(str(exc), stacklevel=2)


def _load_builtin(game: str) -> None:
    """Load the game and every policy plug-in (``balancelab.policies`` entry points: the
    built-in games' policies are declared so too)."""
    from balancelab.games import get_game

    get_game(game)
    load_plugins()


def available(game: str, side: str) -> list[str]:
    """Policy names that can play ``side`` of ``game``, sorted."""
    _load_builtin(game)
    out = set()
    for name, entries in _REGISTRY.items():
        for e in entries:
            if (e.games is None or game in e.games) and (e.sides is None or side in e.sides):
                out.add(name)
    return sorted(out)


#: Built-in policies that live behind an optional extra: name → (module that registers it,
#: the extra). They are registered on first use, so that ``--policy crew=openspiel-ismcts``
#: works without importing the module first.
OPTIONAL_POLICIES: dict[str, tuple[str, str]] = {
    "openspiel-ismcts": ("balancelab.interop.openspiel", "openspiel"),
}


def _load_optional(name: str) -> None:
    """Register the optional built-in policy ``name`` (see :data:`OPTIONAL_POLICIES`), if it
    is one and is not registered yet.

    Raises:
        PolicyError: its extra is not installed (the message says how to install it).
    """
    if name not in OPTIONAL_POLICIES or name in _REGISTRY:
        return
    module, extra = OPTIONAL_POLICIES[name]
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise PolicyError(
            f"policy {name!r} needs the {extra} extra: pip install 'balancelab[{extra}]' "
            f"({exc})") from None


def entries_for(game: str, side: str, name: str | None = None) -> dict[str, PolicyEntry]:
    """name → entry for the policies that can play ``side`` of ``game``; when ``name`` is
    given and is an optional built-in policy, it is registered first.

    Raises:
        PolicyError: ``name`` is an optional policy whose extra is not installed.
    """
    _load_builtin(game)
    if name is not None:
        _load_optional(name)
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


def _split_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split a spec into its name and its parameters' raw strings.

    Raises:
        PolicyError: a parameter is not ``key=value``, or a parameter is given twice.
    """
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise PolicyError(f"policy parameter {part!r} in {spec!r} must be key=value")
        if key.strip() in params:
            raise PolicyError(f"policy parameter {key.strip()!r} is given twice in {spec!r}")
        params[key.strip()] = value.strip()
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
    name, params = _split_spec(spec)
    if not name:
        raise PolicyError(f"policy spec {spec!r} has no policy name (e.g. default, random)")
    if name == "default":
        name = game.default_policies[side]
    options = entries_for(game.name, side, name)
    if name not in options:
        raise PolicyError(
            f"unknown policy {name!r} for side {side!r} of {game.name!r}; "
            f"valid: default, {', '.join(sorted(set(options) | set(OPTIONAL_POLICIES)))}"
        )
    factory = options[name].factory
    typed = typed_params(name, factory, {k: v for k, v in params.items() if k != PRESET_KEY})
    if PRESET_KEY in params:
        from balancelab.policies.presets import preset_params

        preset_params(game.name, name, params[PRESET_KEY])  # raises on an unknown one
        typed[PRESET_KEY] = params[PRESET_KEY]
    if not typed:
        return name
    return name + ":" + ",".join(f"{k}={_format(typed[k])}" for k in sorted(typed))


def typed_params(name: str, factory: Any, params: dict[str, Any]) -> dict[str, Any]:
    """Check a spec's parameters against the policy's declaration; their typed values.

    Raises:
        PolicyError: an unknown parameter ("did you mean", the valid ones listed) or a value
            of the wrong type or outside the allowed values (naming the parameter, what it
            accepts and what was given).
    """
    specs = param_specs(factory)
    out: dict[str, Any] = {}
    for key, raw in params.items():
        p = specs.get(key)
        if p is None:
            close = difflib.get_close_matches(key, list(specs), n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            listed = ", ".join(f"{k} (default {_format(v.default)})"
                               for k, v in specs.items()) or "none"
            raise PolicyError(f"policy {name!r} has no parameter {key!r}; {hint}"
                              f"parameters: {listed}")
        out[key] = p.parse(raw, name, key)
    return out


#: the spec key naming a stored parameter set: ``crew-team:preset=tuned``
PRESET_KEY = "preset"


def build(
    game: Game,
    options: RuleOptions,
    seat: int,
    spec: str,
    rng: RngSource,
) -> Policy:
    """Build the policy for one seat from a resolved spec; ``rng`` as for :class:`Policy`."""
    return builder(game, options, seat, spec)(rng)


def builder(game: Game, options: RuleOptions, seat: int, spec: str
            ) -> Callable[[RngSource], Policy]:
    """What :func:`build` does, less the ``rng``: ``builder(game, options, seat, spec)(rng)``
    builds the policy. A runner builds the same seats' policies game after game: this looks
    the spec up once."""
    side = game.side_of_seat(options, seat)
    factory, params = _factory_and_params(game.name, side, spec)
    return functools.partial(factory, game, options, seat, **params)


def _factory_and_params(game: str, side: str, spec: str
                        ) -> tuple[Callable[..., Policy], dict[str, Any]]:
    """The factory and parameters of a resolved spec (cached: a run builds a policy per seat
    and game)."""
    key = (game, side, spec)
    hit = _FACTORIES.get(key)
    if hit is None:
        name, raw = _split_spec(spec)
        factory = entries_for(game, side, name)[name].factory
        preset = raw.pop(PRESET_KEY, None)
        typed = typed_params(name, factory, raw)
        if preset is not None:
            from balancelab.policies.presets import preset_params

            typed = {**preset_params(game, name, preset), **typed}
        hit = _FACTORIES[key] = (factory, typed)
    return hit[0], dict(hit[1])

