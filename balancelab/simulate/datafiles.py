"""The schemas of every game's data files (one convention: :mod:`balancelab.simulate.schema`).

Each TOML/JSON data file a game reads is a :class:`~balancelab.simulate.schema.Strict` model:
the Discovery Board (2001: A Space Odyssey, ``odyssey_board.toml`` or a user's
``board_file``), the card tables of 1998 ISS (``iss_*.toml`` or a user's ``data_dir``), and
Obcy's characters, items, missions, combat table and map. Loaders call
:func:`~balancelab.simulate.schema.load_toml`/:func:`~balancelab.simulate.schema.validate`
and then check what a schema cannot (names that refer to each other, counts).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from balancelab.simulate.schema import Strict

# -- 2001: A Space Odyssey: the Discovery Board (design notes 1(d)) -------------------------


class BoardSpace(Strict):
    """One space of the Discovery Board."""

    name: str = Field(min_length=1)
    draw: int = Field(0, ge=0, le=20)
    system: Literal["GRV", "MEM", "COM", "LIF"] | None = None
    capacity: int = Field(0, ge=0)
    picturephone: bool = False
    cancel: bool = False
    disconnect: bool = False
    start: bool = False
    source: str = ""


class BoardEdge(Strict):
    """A solid line between two spaces, with a Door token (1..7) or none (0)."""

    a: str
    b: str
    door: int = Field(0, ge=0, le=7)
    source: str = ""


class BoardFile(Strict):
    """``odyssey_board.toml``."""

    name: str = ""
    source: str = ""
    spaces: list[BoardSpace] = Field(min_length=1)
    edges: list[BoardEdge]


# -- 1998 ISS: card tables --------------------------------------------------------------------

Compartment = Literal["LAB", "SW", "LS", "CRANE", "COMM", "?"]
Nation = Literal["russia", "usa"]


class IssExperiment(Strict):
    id: str
    level: int = Field(ge=0)
    iss: int = Field(ge=0)
    ext: int = Field(ge=0)
    task: Literal["short", "long"]
    compartments: list[Compartment]
    points: int = Field(ge=0)
    source: str = ""


class IssModule(Strict):
    number: int = Field(ge=0)
    name: str
    compartments: list[Compartment]
    initial: bool = False
    covered: bool = True
    source: str = ""


class IssShuttle(Strict):
    id: str
    nation: Nation
    type: Literal["Soyuz", "Progress", "Endeavour", "Atlantis", "Discovery"]
    astronauts: int = Field(ge=0)
    materials: bool
    replacement: bool
    module: bool
    source: str = ""


class IssFedor(Strict):
    id: str
    action: str
    back: Nation
    reshuffle: bool = False
    source: str = ""


class IssGoal(Strict):
    kind: str
    text: str
    source: str = ""


class IssExperiments(Strict):
    experiment: list[IssExperiment] = Field(min_length=1)


class IssModules(Strict):
    module: list[IssModule] = Field(min_length=1)


class IssShuttles(Strict):
    shuttle: list[IssShuttle] = Field(min_length=1)


class IssFedorDeck(Strict):
    fedor: list[IssFedor] = Field(min_length=1)


class IssGoals(Strict):
    goal: list[IssGoal] = Field(min_length=1)


#: file name in a ``data_dir`` → its schema
ISS_FILES: dict[str, type[Strict]] = {
    "iss_experiments.toml": IssExperiments,
    "iss_modules.toml": IssModules,
    "iss_shuttles.toml": IssShuttles,
    "iss_fedor.toml": IssFedorDeck,
    "iss_goals.toml": IssGoals,
}

# -- Obcy: package data -----------------------------------------------------------------------


class ObcyValue(Strict):
    value: int
    source: str


class ObcyCharacter(Strict):
    name: str
    strength: int = Field(ge=0)
    strength_source: str = ""
    weapons: list[str]
    items: list[str]
    source: str = ""


class ObcyCharacters(Strict):
    character: list[ObcyCharacter] = Field(min_length=1)


class ObcyMission(Strict):
    id: str
    kind: str
    arg: str
    text: str
    source: str = ""


class ObcyMissions(Strict):
    mission: list[ObcyMission] = Field(min_length=1)


class ObcyCombat(Strict):
    source: str
    columns: list[int] = Field(min_length=1)
    rows: list[list[str]] = Field(min_length=1)


class ObcyMap(Strict):
    """``obcy_map.json`` or an alternative map (``data/alternatives/obcy/``); the rulebook's
    constraints on it are checked by :func:`balancelab.simulate.obcy.maps.check`."""

    name: str = ""
    source: str = ""
    layout: str
    width: int = Field(ge=1)
    height: int = Field(ge=1)
    rows: list[str]
    rooms: dict[str, str]
    doors: list[list[int]]
    grates: list[list[int]]
    vent_links: list[list[list[int]]]
    airlocks: dict[str, list[int]]
    features: dict[str, Any]
    landing_pad: list[int]
    adjacency: dict[str, list[str]]
