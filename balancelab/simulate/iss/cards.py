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


def _load(path: Path) -> dict[str, Any]:
    with path.open("rb") as fh:
        return tomllib.load(fh)


@functools.cache
def load_cards(data_dir: str = "") -> CardData:
    """Read the card tables.

    Args:
        data_dir: directory holding ``iss_experiments.toml``, ``iss_modules.toml``,
            ``iss_shuttles.toml``, ``iss_fedor.toml`` and ``iss_goals.toml``; ``""`` = package data.

    Raises:
        FileNotFoundError: a table is missing.
        ValueError: a table holds an unknown compartment, nation, type or action.
    """
    base = Path(data_dir) if data_dir else DATA_DIR
    codes = {c: i for i, c in enumerate(COMP_CODES)}
    try:
        exps = tuple(
            Experiment(
                e["id"], int(e["level"]), int(e["iss"]), int(e["ext"]), e["task"] == "long",
                tuple(codes[c] for c in e["compartments"]), int(e["points"]),
            )
            for e in _load(base / "iss_experiments.toml")["experiment"]
        )
        mods = tuple(
            Module(int(m["number"]), m["name"], tuple(codes[c] for c in m["compartments"]),
                   bool(m.get("initial", False)), bool(m.get("covered", True)))
            for m in _load(base / "iss_modules.toml")["module"]
        )
        shuttles = tuple(
            Shuttle(s["id"], NATIONS.index(s["nation"]), SHUTTLE_TYPES.index(s["type"]),
                    int(s["astronauts"]), bool(s["materials"]), bool(s["replacement"]),
                    bool(s["module"]))
            for s in _load(base / "iss_shuttles.toml")["shuttle"]
        )
        action_codes = {n.upper().replace(" ", "_"): i for i, n in enumerate(ACTION_NAMES)}
        action_codes["INSTALL"] = action_codes["INSTALL_COMPARTMENTS"]
        action_codes["OUTSIDE"] = action_codes["OUTSIDE_JOBS"]
        action_codes["EXPERIMENT"] = action_codes["CONDUCT_EXPERIMENTS"]
        fedor = tuple(
            FedorCard(f["id"], action_codes[f["action"]] if f["action"] else -1,
                      NATIONS.index(f["back"]), bool(f.get("reshuffle", False)))
            for f in _load(base / "iss_fedor.toml")["fedor"]
        )
        goals = _load(base / "iss_goals.toml")["goal"]
    except (KeyError, ValueError) as exc:
        raise ValueError(f"bad iss card data in {base}: {exc!r}") from None
    kinds = tuple(g["kind"] for g in goals)
    if kinds != GOAL_KINDS:
        raise ValueError(f"iss_goals.toml must list the goals in order {GOAL_KINDS}")
    mods = tuple(sorted(mods, key=lambda m: m.number))
    return CardData(exps, mods, shuttles, fedor, tuple(g["text"] for g in goals))
