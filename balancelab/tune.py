"""Tune a scripted player's numeric parameters with optuna (``balancelab tune``).

One side's policy plays against the other side's defaults. Each optuna trial proposes a value
for every numeric parameter the policy declares (:attr:`Policy.param_ranges`: integers,
floats; conventions given as booleans and names are left as they are) and plays a block of
games on the *common* seeds of the study (game *i* of every trial deals the same cards and
rolls the same dice: trials are compared on paired games). The TPE sampler is seeded from
``--seed``, so a study replays identically.

Storage: an optuna RDB study in ``<folder>/study.sqlite3`` (SQLite through SQLAlchemy):
stopping and calling ``tune`` again with the same folder continues the study where it
stopped; the configuration is kept in ``<folder>/tune.json`` and must match.

At the end the best parameters (by win rate over the tuning seeds) and the starting
parameters (the policy's defaults) are both played on FRESH seeds (a different run seed,
never used in tuning): the win rates, their Wilson intervals and the paired difference are
printed, so the selection's optimism does not leak into the answer.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import Game, play, rules_stream, seat_stream
from balancelab.simulate.options import RuleOptions

#: run seed of the fresh seeds used for the before/after comparison: ``seed + FRESH``
FRESH = 1_000_003


class TuneError(ValueError):
    """A bad tuning request: unknown side, a policy with nothing to tune, a mismatched
    folder."""


def side_wins(game: Game, options: RuleOptions, side: str, spec: str, games: int, seed: int,
              start: int = 0, opponents: dict[str, str] | None = None,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Play games ``start .. start+games-1`` of run seed ``seed`` with every seat of ``side``
    on ``spec`` and the other sides on their defaults (or ``opponents``).

    Returns:
        bool array of shape (games,): True where ``side`` won.

    Raises:
        PolicyError: a bad spec.
    """
    opponents = opponents or {}
    seats = game.seats(options)
    specs = []
    for k in range(len(seats)):
        s = game.side_of_seat(options, k)
        specs.append(policies.resolve(game, s, spec if s == side
                                      else opponents.get(s, "default")))
    out = np.zeros(games, dtype=bool)
    for i in range(games):
        gi = start + i
        pols = [policies.build(game, options, k, sp, functools.partial(seat_stream, seed, gi, k))
                for k, sp in enumerate(specs)]
        rec = play(game, options, pols, rules_stream(seed, gi)).record
        out[i] = rec.winner == side
        if progress is not None:
            progress(1)
    return out
