"""Card tables of *1998 ISS*, read from ``balancelab/data/iss_*.toml`` (or ``data_dir``).

Cards are integer-coded: experiment ``i`` is ``EXPERIMENTS[i]`` (E01 = 0), module ``m`` is the
card with number ``m + 1``, shuttle ``s`` is RU1..RU6 (0-5) then US1..US6 (6-11), FEDOR card ``f``
is F1..F9 (0-8). The rulebook prints none of these tables (design notes 2(d)).
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from balancelab.simulate.errors import DataError
from balancelab.simulate.iss.rules import (
    ACTION_NAMES,
    COMP_CODES,
    GOAL_KINDS,
    NATIONS,
    SHUTTLE_TYPES,
)

DATA_DIR = Path(__file__).resolve().parents[2] / "data"


@dataclass(frozen=True)
class Experiment:
    """One experiment card.

    Attributes:
        id: printed id (``E17``); level: 1 basic, 2 medium, 3 advanced; iss / ext: materials
        paid; long: long-term task (astronauts stay); comps: compartment type per astronaut
        (``rules.LAB`` …, ``rules.ANY`` for "?"); points: victory points.
    """

    id: str
    level: int
    iss: int
    ext: int
    long: bool
    comps: tuple[int, ...]
    points: int


@dataclass(frozen=True)
class Module:
    """One module card: number (FEDOR's order), name, two compartment types, setup flags."""

    number: int
    name: str
    comps: tuple[int, ...]
    initial: bool
    covered: bool


@dataclass(frozen=True)
class Shuttle:
    """One shuttle card: nation (0 Russia, 1 USA), type index into ``SHUTTLE_TYPES``, seats,
    whether it takes materials, and its replacement / new-module icons."""

    id: str
    nation: int
    type: int
    seats: int
    materials: bool
    replacement: bool
    module: bool


@dataclass(frozen=True)
class FedorCard:
    """One FEDOR card: action (``rules.INSTALL`` …, -1 for the reshuffle card) and back nation."""

    id: str
    action: int
    back: int
    reshuffle: bool


@dataclass(frozen=True)
class CardData:
    """Every card table of one game."""

    experiments: tuple[Experiment, ...]
    modules: tuple[Module, ...]
    shuttles: tuple[Shuttle, ...]
    fedor: tuple[FedorCard, ...]
    goal_texts: tuple[str, ...]


def _load(base: Path, name: str, validated: bool) -> Any:
    """One table of a data directory (a user's: validated against its schema,
    :data:`~balancelab.simulate.datafiles.ISS_FILES`; the package's: checked by the tests,
    so that a worker does not import pydantic), with the schema's defaults."""
    if validated:
        from balancelab.simulate.datafiles import ISS_FILES
        from balancelab.simulate.schema import load_toml

        model = load_toml(base / name, ISS_FILES[name])
        return _Rows(model.model_dump())
    with (base / name).open("rb") as fh:
        return _Rows(tomllib.load(fh))


_DEFAULTS: dict[str, Any] = {"initial": False, "covered": True, "reshuffle": False}


class _Rows:
    """A table file read by attribute (``.experiment`` → rows read by attribute)."""

    def __init__(self, d: Any) -> None:
        self._d = d

    def __getattr__(self, key: str) -> Any:
        v = self._d[key] if key in self._d else _DEFAULTS.get(key)
        if isinstance(v, list):
            return [_Rows(x) if isinstance(x, dict) else x for x in v]
        return v


@functools.cache
def load_cards(data_dir: str = "") -> CardData:
    """Read the card tables.

    Args:
        data_dir: directory holding ``iss_experiments.toml``, ``iss_modules.toml``,
            ``iss_shuttles.toml``, ``iss_fedor.toml`` and ``iss_goals.toml``; ``""`` = package data.

    Each file is validated against its schema (:mod:`balancelab.simulate.datafiles`): every
    key typed, unknown keys refused with "did you mean".

    Raises:
        DataError: (a ValueError) one line naming the file and key: a table is missing,
            unreadable, not TOML, has an unknown, missing or mistyped key, an unknown
            compartment, nation, type or FEDOR action, or goals out of order.
    """
    base = Path(data_dir) if data_dir else DATA_DIR
    if data_dir and not base.is_dir():
        raise DataError(f"data_dir {data_dir!r}: no such directory")
    user = bool(data_dir)
    codes = {c: i for i, c in enumerate(COMP_CODES)}
    exps = tuple(
        Experiment(e.id, e.level, e.iss, e.ext, e.task == "long",
                   tuple(codes[c] for c in e.compartments), e.points)
        for e in _load(base, "iss_experiments.toml", user).experiment
    )
    mods = tuple(
        Module(m.number, m.name, tuple(codes[c] for c in m.compartments), m.initial, m.covered)
        for m in _load(base, "iss_modules.toml", user).module
    )
    shuttles = tuple(
        Shuttle(s.id, NATIONS.index(s.nation), SHUTTLE_TYPES.index(s.type), s.astronauts,
                s.materials, s.replacement, s.module)
        for s in _load(base, "iss_shuttles.toml", user).shuttle
    )
    action_codes = {n.upper().replace(" ", "_"): i for i, n in enumerate(ACTION_NAMES)}
    action_codes["INSTALL"] = action_codes["INSTALL_COMPARTMENTS"]
    action_codes["OUTSIDE"] = action_codes["OUTSIDE_JOBS"]
    action_codes["EXPERIMENT"] = action_codes["CONDUCT_EXPERIMENTS"]
    fedor = []
    for i, f in enumerate(_load(base, "iss_fedor.toml", user).fedor):
        if f.action and f.action not in action_codes:
            raise DataError(f"{base / 'iss_fedor.toml'}: key 'fedor[{i}].action' should be "
                            f"'' or one of {', '.join(sorted(action_codes))}; got {f.action!r}")
        fedor.append(FedorCard(f.id, action_codes[f.action] if f.action else -1,
                               NATIONS.index(f.back), f.reshuffle))
    goals = _load(base, "iss_goals.toml", user).goal
    kinds = tuple(g.kind for g in goals)
    if kinds != GOAL_KINDS:
        raise DataError(f"{base / 'iss_goals.toml'}: the goals' key 'kind' must list "
                        f"{', '.join(GOAL_KINDS)} in this order; got {', '.join(kinds)}")
    mods = tuple(sorted(mods, key=lambda m: m.number))
    return CardData(exps, mods, shuttles, tuple(fedor), tuple(g.text for g in goals))
