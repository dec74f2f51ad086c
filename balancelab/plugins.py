"""Plug-ins: games and policies from installed packages, or registered from user code.

A package adds games and policies to balancelab by declaring entry points (the built-in games
are declared exactly so, in balancelab's own ``pyproject.toml``)::

    [project.entry-points."balancelab.games"]
    nim = "nim_game:GAME"                 # a Game instance (or a Game subclass)

    [project.entry-points."balancelab.policies"]
    nim = "nim_game.policies"             # a module that calls policies.base.register(...)
    nim-greedy = "nim_game.policies:Greedy"   # or one Policy subclass, named by the entry

A game entry point is loaded the first time its game is asked for
(:func:`balancelab.games.get_game`); every policy entry point is loaded the first time a
policy is looked up. Both happen in the driver and, lazily again, in every worker process
(loky, dask): a worker finds the same installed entry points.

Registering from user code (a notebook, a script) also reaches the workers:
:func:`balancelab.games.register` and :func:`balancelab.policies.base.register` remember each
registration made outside an entry point, the runner ships them with every chunk
(:func:`shipment`), and a worker replays them once (:func:`install`). A registration given as
an import path (``"my_pkg.game:GAME"``) travels as that string; one given as an object travels
pickled (joblib's loky and dask pickle with cloudpickle, so a class defined in a script's
``__main__`` travels by value).

A plug-in that fails to load is reported with :class:`PluginError`, naming the entry point and
the package that declares it.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.metadata as metadata
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeAlias

#: The entry point group of games.
GAMES_GROUP = "balancelab.games"
#: The entry point group of policies.
POLICIES_GROUP = "balancelab.policies"


class PluginError(ImportError):
    """A plug-in that cannot be loaded (bad import path, import error, wrong kind of object)."""


def load_path(path: str) -> Any:
    """The object named by an import path ``"package.module:attribute"`` (or a module path
    ``"package.module"``).

    Raises:
        PluginError: the module cannot be imported or has no such attribute.
    """
    module_name, _, attr = path.partition(":")
    try:
        obj: Any = importlib.import_module(module_name.strip())
    except ImportError as exc:
        raise PluginError(f"cannot import {module_name!r} (from {path!r}): {exc}") from exc
    for part in filter(None, attr.strip().split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise PluginError(f"{module_name!r} has no attribute {attr!r} "
                              f"(from {path!r})") from None
    return obj


def entry_points(group: str) -> list[metadata.EntryPoint]:
    """The entry points of ``group``, one per name (the first found on ``sys.path`` wins).

    Run from a source tree where balancelab itself is not installed, balancelab's own entry
    points are read from the tree's ``pyproject.toml`` (the one place they are declared).
    """
    found = list(metadata.entry_points(group=group))
    if not any(_dist_name(ep) == "balancelab" for ep in found):
        found += _source_tree_entry_points(group)
    out: dict[str, metadata.EntryPoint] = {}
    for ep in found:
        out.setdefault(ep.name, ep)
    return list(out.values())


def _dist_name(ep: metadata.EntryPoint) -> str:
    dist = getattr(ep, "dist", None)
    return str(dist.name) if dist is not None else ""


def _source_tree_entry_points(group: str) -> list[metadata.EntryPoint]:
    pyproject = Path(__file__).resolve().parent.parent / "pyproject.toml"
    if not pyproject.is_file():
        return []
    import tomllib

    with pyproject.open("rb") as f:
        project = tomllib.load(f).get("project", {})
    if project.get("name") != "balancelab":
        return []
    declared = project.get("entry-points", {}).get(group, {})
    return [metadata.EntryPoint(name, value, group) for name, value in declared.items()]


def describe(ep: metadata.EntryPoint) -> str:
    """An entry point in words: ``'nim = nim_game:GAME' (package nim-game)``."""
    dist = _dist_name(ep) or "balancelab source tree"
    return f"entry point {ep.name!r} = {ep.value!r} of group {ep.group!r} (package {dist})"


def load_entry_point(ep: metadata.EntryPoint) -> Any:
    """Load one entry point (registrations it makes are not shipped to workers: workers load
    it themselves).

    Raises:
        PluginError: naming the entry point and its package.
    """
    try:
        with loading():
            return ep.load()
    except Exception as exc:
        raise PluginError(f"cannot load {describe(ep)}: {exc}") from exc


# -- registrations from user code, shipped to workers ---------------------------------------

#: One registration made from user code: (token, kind, args, kwargs).
Registration: TypeAlias = tuple[str, str, tuple[Any, ...], dict[str, Any]]
#: The registrations made from user code in this process, in order.
_registrations: list[Registration] = []
#: Tokens already installed in this process (a driver's own, or a worker's replayed ones).
_installed: set[str] = set()
_loading_depth: list[int] = [0]


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """While an entry point loads or a worker replays a registration: registrations made
    are not remembered for shipping."""
    _loading_depth[0] += 1
    try:
        yield
    finally:
        _loading_depth[0] -= 1


def remember(kind: str, *args: Any, **kwargs: Any) -> None:
    """Record a registration made from user code (``kind``: ``"game"`` for
    :func:`balancelab.games.register`, ``"policy"`` for
    :func:`balancelab.policies.base.register`, called with ``args`` and ``kwargs``). A no-op
    while an entry point loads, in a worker replaying, or for balancelab's own modules."""
    if _loading_depth[0]:
        return
    if any(str(getattr(a, "__module__", "")).startswith("balancelab.") for a in args):
        return
    token = uuid.uuid4().hex  # unique across drivers (a dask worker may serve several)
    _registrations.append((token, kind, args, kwargs))
    _installed.add(token)


def forget(kind: str, name: str) -> None:
    """Stop shipping the registrations of the game or policy ``name`` (``kind`` as for
    :func:`remember`)."""
    _registrations[:] = [r for r in _registrations
                         if r[1] != kind or r[2][1 if kind == "game" else 0] != name]


def shipment() -> tuple[Registration, ...]:
    """This process's user-code registrations, to send with a worker's task."""
    return tuple(_registrations)


def install(items: tuple[Registration, ...],
            registrars: dict[str, Callable[..., object]]) -> None:
    """Replay, in a worker, the registrations of :func:`shipment` it has not replayed yet (a
    no-op in the driver that made them). ``registrars``: kind → the register function
    (:func:`balancelab.games.register`, :func:`balancelab.policies.base.register`), passed in
    so that this module imports neither registry."""
    for token, kind, args, kwargs in items:
        if token in _installed:
            continue
        with loading():
            registrars[kind](*args, **kwargs)
        _installed.add(token)
