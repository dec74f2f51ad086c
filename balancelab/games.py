"""The registry of games: the ``balancelab.games`` entry points, and games registered in code.

The built-in games (odyssey, iss, obcy) are entry points of balancelab's own
``pyproject.toml``, exactly as a third-party game is in its package's (see
:mod:`balancelab.plugins` and ``docs/plugins.md``). A game package's module exposes a
:class:`~balancelab.simulate.core.Game`; its policies come from ``balancelab.policies`` entry
points.
"""

from __future__ import annotations

from typing import Any

from balancelab import plugins
from balancelab.simulate.core import Game


class UnknownGameError(ValueError):
    """A game name that is not registered."""


#: name → a game registered from code not loaded yet (an import path) — registered first
#: wins over an entry point of the same name.
_pending: dict[str, str] = {}
#: name → the loaded game.
_loaded: dict[str, Game] = {}


def names() -> list[str]:
    """Every registered game name (entry points and registrations from code), sorted."""
    found = {ep.name for ep in plugins.entry_points(plugins.GAMES_GROUP)}
    return sorted(found | set(_pending) | set(_loaded))


def register(game: Game | type[Game] | str, name: str | None = None) -> str:
    """Register a game from code; it then plays in every worker too.

    Args:
        game: a :class:`Game` instance, a Game subclass (instantiated without arguments), or an
            import path ``"package.module:GAME"`` (loaded now, or at first use when ``name``
            is given).
        name: the registry name; default: the game's ``name``.

    Returns:
        The name it is registered under (replacing any game of that name).

    Raises:
        PluginError: the import path cannot be loaded, or is not a Game.
    """
    if isinstance(game, str) and name is not None:
        _pending[name] = game
        _loaded.pop(name, None)
        plugins.remember("game", game, name)
        return name
    obj = _as_game(plugins.load_path(game) if isinstance(game, str) else game, repr(game))
    name = name or obj.name
    _loaded[name] = obj
    _pending.pop(name, None)
    plugins.remember("game", game, name)
    return name


def unregister(name: str) -> None:
    """Forget a game registered from code (entry point games stay)."""
    _loaded.pop(name, None)
    _pending.pop(name, None)
    plugins.forget("game", name)


def _as_game(obj: Any, where: str) -> Game:
    if isinstance(obj, type) and issubclass(obj, Game):
        obj = obj()
    if not isinstance(obj, Game):
        raise plugins.PluginError(f"{where} is a {type(obj).__name__}, not a balancelab Game")
    return obj


def get_game(name: str) -> Game:
    """The game registered as ``name`` (loaded on first use).

    Raises:
        UnknownGameError: the name is not registered; the message lists the games.
        ImportError: the game's module cannot be imported (a :class:`PluginError` naming the
            entry point and its package).
    """
    game = _loaded.get(name)
    if game is None:
        if name in _pending:
            game = _as_game(plugins.load_path(_pending[name]), repr(_pending[name]))
        else:
            eps = {ep.name: ep for ep in plugins.entry_points(plugins.GAMES_GROUP)}
            if name not in eps:
                raise UnknownGameError(f"unknown game {name!r}; valid games: "
                                       f"{', '.join(names())}")
            game = _as_game(plugins.load_entry_point(eps[name]), plugins.describe(eps[name]))
        _loaded[name] = game
    return game


def all_games() -> list[Game]:
    """Every registered game that can be loaded."""
    out = []
    for name in names():
        try:
            out.append(get_game(name))
        except ImportError:
            continue
    return out
