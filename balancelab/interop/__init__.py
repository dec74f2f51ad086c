"""Adapters to other game-AI tools: PettingZoo (:mod:`balancelab.interop.pettingzoo`) and
OpenSpiel (:mod:`balancelab.interop.openspiel`), each an optional extra
(``pip install balancelab[pettingzoo]`` / ``[openspiel]``).

Both play a game through its contract only: the action ids of the game's finite encoding
(:mod:`balancelab.simulate.encoding`), the seat's view as the observation
(:mod:`balancelab.interop.observation`) and the returns of :func:`seat_returns`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from balancelab.games import get_game
from balancelab.simulate.core import Game, GameRecord
from balancelab.simulate.encoding import ActionEncoding, encoding_of
from balancelab.simulate.options import RuleOptions

#: the ``end_reason`` of a game stopped by its round cap (no winner: a truncation)
CAP = "cap"


def resolve(game: str | Game, options: dict[str, Any]
            ) -> tuple[Game, ActionEncoding, RuleOptions]:
    """The game (by name or object), its action encoding and its validated options.

    Raises:
        UnknownGameError: an unknown game name (the message lists the games).
        OptionError: an unknown option or a bad value (the message lists the valid ones).
        TypeError: the game has no finite action encoding.
    """
    g = get_game(game) if isinstance(game, str) else game
    return g, encoding_of(g), g.options_type.from_strings(options)


def seat_returns(game: Game, options: RuleOptions, record: GameRecord) -> np.ndarray:
    """Each seat's return for a finished game, float64 of shape ``(seats,)``: ``+1`` when its
    side (or the seat itself) won, ``0`` for a shared result (``tie``/``draw``) or a game
    stopped by the round cap, ``-1`` for a loss."""
    seats = game.seats(options)
    out = np.zeros(len(seats))
    if record.winner in ("", "tie", "draw"):
        return out
    for k, name in enumerate(seats):
        won = record.winner in (name, game.side_of_seat(options, k))
        out[k] = 1.0 if won else -1.0
    return out
