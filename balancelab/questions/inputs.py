"""The inputs every question shares: a game resolved from its name (once, at the edge), a
grid of rule options and its variants, and policy pairings.

Errors are :class:`StudyError` (a RuntimeError) or ValueError with one-line messages.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from balancelab.simulate.core import Game
from balancelab.simulate.options import RuleOptions


class StudyError(RuntimeError):
    """A study or sweep cannot run (engine missing, bad grid, bad policy pairing)."""



def load_game(name: str) -> Game:
    """The game, or a clear StudyError when its engine cannot be imported yet.

    Raises:
        StudyError: the engine module is missing or broken.
        UnknownGameError: not a game name.
    """
    from balancelab.games import get_game

    try:
        return get_game(name)
    except ImportError as exc:
        raise StudyError(
            f"the {name!r} engine is not available in this installation ({exc}); "
            f"this needs the {name} game, which is not built yet"
        ) from None


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    """``["crew=2,3,4", "hal_extra_turns=-1,0,1"]`` → ``{"crew": ["2","3","4"], …}``.

    Raises:
        ValueError: an item without ``=`` or without values, or an option given twice.
    """
    out: dict[str, list[str]] = {}
    for item in items:
        key, eq, vals = item.partition("=")
        key = key.strip().replace("-", "_")
        values = [v.strip() for v in vals.split(",") if v.strip()]
        if not eq or not key or not values:
            raise ValueError(f"--grid takes OPTION=V1,V2,…; got {item!r}")
        if key in out:
            raise ValueError(f"--grid option {key!r} given twice")
        out[key] = values
    return out


def grid_variants(game: Game, grid: Mapping[str, Sequence[Any]], base: dict[str, Any] | None = None
                  ) -> list[RuleOptions]:
    """Every combination of the grid (first option slowest), on top of ``base`` options.

    Raises:
        OptionError: an unknown option or a bad value (the message names the valid ones).
    """
    base = dict(base or {})
    names = list(grid)
    clash = sorted(set(names) & {k.replace("-", "_") for k in base})
    if clash:
        raise ValueError(f"option {clash[0]!r} is both fixed and in --grid")
    out = []
    for combo in itertools.product(*(grid[n] for n in names)):
        out.append(game.options_type.from_strings({**base, **dict(zip(names, combo,
                                                                       strict=True))}))
    labels = [v.label() for v in out]
    if len(set(labels)) < len(labels):
        raise ValueError("the grid repeats a variant (a value listed twice?)")
    return out


def parse_pairing(text: str, game: Game) -> dict[str, str]:
    """One policy pairing: ``"hal=random;crew=default"`` (``,`` also separates sides).

    A comma separates sides only where the next piece starts with a side or seat name and
    ``=``, so policy parameters (``search:rollouts=200,depth=40``) survive.

    Raises:
        ValueError: a piece that is not SIDE=POLICY.
    """
    names = set(game.sides)
    try:
        names |= set(game.seats(game.options_type()))
    except Exception:  # noqa: BLE001 - seat names are a convenience only
        pass
    pieces: list[str] = []
    for chunk in re.split(r"[;\s]+", text.strip()):
        for part in chunk.split(","):
            if not part:
                continue
            head = part.partition("=")[0].strip()
            if pieces and ("=" not in part or head not in names):
                pieces[-1] += "," + part
            else:
                pieces.append(part)
    out = {}
    for p in pieces:
        key, eq, spec = p.partition("=")
        if not eq or not spec.strip():
            raise ValueError(f"--policy takes SIDE=POLICY[;SIDE=POLICY…]; got {text!r}")
        out[key.strip()] = spec.strip()
    return out


def pairing_name(pairing: dict[str, str]) -> str:
    """``{"hal": "random", "crew": "default"}`` → ``crew=default;hal=random`` (``default``
    for the empty pairing)."""
    return ";".join(f"{k}={v}" for k, v in sorted(pairing.items())) or "default"


def slug(text: str) -> str:
    """A folder name for a pairing; no ``=`` (polars would read it as a hive partition)."""
    text = text.replace("=", "-").replace(";", "_")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "default"
