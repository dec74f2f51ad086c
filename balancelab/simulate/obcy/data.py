"""Obcy's rule data (characters, items, missions, combat) loaded from package data
(``balancelab/data/obcy_*.toml``)."""

from __future__ import annotations

import tomllib
from importlib import resources
from typing import Any


def _load(name: str) -> dict[str, Any]:
    """A package data table (checked against its schema, :mod:`~balancelab.simulate.
    datafiles`, by the tests; a worker does not import pydantic)."""
    with resources.files("balancelab.data").joinpath(name).open("rb") as fh:
        return tomllib.load(fh)


_ITEMS = _load("obcy_items.toml")
CHARACTERS_DATA: list[dict[str, Any]] = _load("obcy_characters.toml")["character"]
MISSIONS_DATA: list[dict[str, Any]] = _load("obcy_missions.toml")["mission"]
COMBAT_DATA: dict[str, Any] = _load("obcy_combat.toml")
