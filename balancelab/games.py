"""The registry of built-in games.

Each game package exposes a module-level ``GAME`` (a :class:`~balancelab.simulate.core.Game`)
and registers its policies on import.
"""

from __future__ import annotations

import importlib

from balancelab.simulate.core import Game

#: name → module holding ``GAME``.
GAME_MODULES: dict[str, str] = {
    "odyssey": "balancelab.simulate.odyssey",
    "iss": "balancelab.simulate.iss",
    "obcy": "balancelab.simulate.obcy",
}


class UnknownGameError(ValueError):
    """A game name that is not registered."""


_loaded: dict[str, Game] = {}


def get_game(name: str) -> Game:
    """The game registered as ``name``.

    Raises:
        UnknownGameError: the name is not a built-in game; the message lists them.
    """
    if name not in GAME_MODULES:
        raise UnknownGameError(
            f"unknown game {name!r}; valid games: {', '.join(sorted(GAME_MODULES))}"
        )
    if name not in _loaded:
        module = importlib.import_module(GAME_MODULES[name])
        importlib.import_module(f"balancelab.policies.{name}")
        _loaded[name] = module.GAME
    return _loaded[name]


def all_games() -> list[Game]:
    """Every built-in game that can be loaded."""
    out = []
    for name in sorted(GAME_MODULES):
        try:
            out.append(get_game(name))
        except ImportError:
            continue
    return out
