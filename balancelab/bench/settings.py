"""What the suite measures each game with: the rule options (:data:`SETTINGS`), the memory-run
sizes, and the number of workers ``--jobs`` means."""

from __future__ import annotations

import os

from balancelab.games import get_game
from balancelab.simulate.options import RuleOptions

#: Rule options each game is measured with, unless ``--set`` says otherwise: 1998 ISS at four
#: players (its longest games, and the setting its speed target names); others at defaults.
SETTINGS: dict[str, dict[str, str]] = {"iss": {"players": "4"}}


def variants(game_name: str, options: dict[str, str] | None) -> list[RuleOptions]:
    """The one variant a measurement plays: ``options`` (rule option name → value), or the
    default options when empty.

    Raises:
        balancelab.simulate.options.OptionError: an unknown option or a bad value.
    """
    if not options:
        return []
    return [get_game(game_name).options_type.from_strings(options)]


#: Memory-run sizes of the quick default and of ``--full``.
QUICK_MEMORY_GAMES = (10_000,)
FULL_MEMORY_GAMES = (10_000, 100_000)


def workers(jobs: int) -> int:
    """The number of workers ``jobs`` means (-1: all cores)."""
    return (os.cpu_count() or 1) if jobs < 0 else jobs
