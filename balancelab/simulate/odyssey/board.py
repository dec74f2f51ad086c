"""The Discovery Board: spaces, edges and doors, loaded from TOML package data.

The rulebook does not print the board; ``balancelab/data/odyssey_board.toml`` holds the layout
proposed by the design notes (section 1(d)), every value marked ``source = "assumed: ..."`` or
``"rulebook: ..."``. A user's own file replaces it (option ``board_file``).

Rulebook: Crewmember Actions (MOVE: "only into spaces connected by a solid line", "cannot move
through a closed Door token", "Doors are not counted as a space"), POD, Crewmember Special
Abilities (Hunter).
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from balancelab.simulate.odyssey.cards import SYSTEMS

N_DOORS = 7
#: the POD BAY Doors (Hunter cannot pass them): derived, design notes 1(b)
POD_BAY_DOOR = 7


class BoardError(ValueError):
    """A board file is missing, unreadable, or inconsistent."""


@dataclass(frozen=True)
class Board:
    """An immutable board.

    Attributes:
        names: space names, index = space id.
        draw: cards drawn at each space (Picturephones: the COM-operational value).
        system: system index repaired at each space, or -1.
        capacity: most standees at once (0 = unlimited).
        picturephone, cancel, disconnect: flags per space.
        start: the start space id.
        edges: (a, b, door) with door 0 = no door.
        adj: per space, tuple of (neighbour, door).
        door_spaces: per door 1..7 (index 0 unused), the two spaces it separates.
    """

    names: tuple[str, ...]
    draw: tuple[int, ...]
    system: tuple[int, ...]
    capacity: tuple[int, ...]
    picturephone: tuple[bool, ...]
    cancel: tuple[bool, ...]
    disconnect: tuple[bool, ...]
    start: int
    edges: tuple[tuple[int, int, int], ...]
    adj: tuple[tuple[tuple[int, int], ...], ...] = field(repr=False)
    door_spaces: tuple[tuple[int, int], ...] = field(repr=False)

    def index(self, name: str) -> int:
        """The id of a space by name. Raises ``KeyError`` if unknown."""
        return self.names.index(name)

    @property
    def system_space(self) -> tuple[int, int, int, int]:
        """The space of each system (GRV, MEM, COM, LIF)."""
        out = [-1, -1, -1, -1]
        for s, k in enumerate(self.system):
            if k >= 0:
                out[k] = s
        return (out[0], out[1], out[2], out[3])

    @property
    def core(self) -> int:
        """THE HAL-9000 CORE (the Disconnect space)."""
        return self.disconnect.index(True)

    def distances(self, closed_mask: int, hunter: bool = False) -> tuple[tuple[int, ...], ...]:
        """All-pairs step distances with the given doors closed (99 = unreachable).

        Hunter's one crossing per turn is ignored here (it is a per-turn allowance).
        """
        return _distances(self, closed_mask)


@cache
def _distances(board: Board, closed_mask: int) -> tuple[tuple[int, ...], ...]:
    n = len(board.names)
    out = []
    for a in range(n):
        dist = [99] * n
        dist[a] = 0
        queue = [a]
        for s in queue:
            for t, door in board.adj[s]:
                if door and closed_mask >> door & 1:
                    continue
                if dist[t] == 99:
                    dist[t] = dist[s] + 1
                    queue.append(t)
        out.append(tuple(dist))
    return tuple(out)


def load_board(path: str = "") -> Board:
    """Load a board from TOML: the built-in assumed board when ``path`` is empty.

    The file is validated against :class:`~balancelab.simulate.datafiles.BoardFile` (every
    key typed, unknown keys refused with "did you mean").

    Raises:
        BoardError: one line naming the file and, where it applies, the key: the file is
            missing, unreadable or not TOML, a key is unknown, missing or of the wrong type,
            or it names an unknown space, lacks a start, a Core, a Picturephone or a space
            per system, or has a door number outside 1..7 or used twice.
    """
    where = path or "<built-in board>"
    if path:  # a user's file: validated strictly (pydantic is imported only then)
        from balancelab.simulate.datafiles import BoardFile
        from balancelab.simulate.schema import DataError, load_toml

        try:
            data = load_toml(Path(path), BoardFile, where).model_dump()
        except DataError as exc:
            raise BoardError(f"board file {exc}") from None
    else:  # package data, checked against the same schema by the tests (no pydantic in a
        # worker: ~17 MB a process)
        ref = resources.files("balancelab") / "data" / "odyssey_board.toml"
        data = tomllib.loads(ref.read_text())
    return _build(data, where)


@cache
def default_board() -> Board:
    """The built-in (assumed) Discovery Board, loaded once."""
    return load_board("")


#: the defaults of a space's and an edge's keys (datafiles.BoardSpace / BoardEdge)
_DEFAULTS: dict[str, Any] = {"draw": 0, "system": None, "capacity": 0, "picturephone": False,
                             "cancel": False, "disconnect": False, "start": False, "door": 0}


class _Row:
    """A table row read by attribute, with the schema's defaults."""

    def __init__(self, d: dict[str, Any]) -> None:
        self._d = d

    def __getattr__(self, key: str) -> Any:
        return self._d.get(key, _DEFAULTS.get(key))


def _build(data: dict[str, Any], where: str) -> Board:
    """The board of a (validated) board file's tables; missing keys take their defaults."""
    spaces = [_Row(s) for s in data.get("spaces", [])]
    names = tuple(str(s.name) for s in spaces)
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise BoardError(f"board file {where}: space name {dup!r} is used twice")
    system = [-1 if s.system is None else SYSTEMS.index(s.system) for s in spaces]
    if sorted(k for k in system if k >= 0) != [0, 1, 2, 3]:
        raise BoardError(f"board file {where}: each of GRV, MEM, COM, LIF needs exactly one "
                         "space (key 'system')")
    edges = []
    doors_seen = set()
    adj: list[list[tuple[int, int]]] = [[] for _ in names]
    door_spaces = [(-1, -1)] * (N_DOORS + 1)
    for i, e in enumerate(_Row(e) for e in data.get("edges", [])):
        for end in (e.a, e.b):
            if end not in names:
                close = difflib.get_close_matches(end, names, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                raise BoardError(f"board file {where}: edges[{i}] names an unknown space "
                                 f"{end!r}{hint}; spaces: {', '.join(names)}")
        a, b = names.index(e.a), names.index(e.b)
        door = e.door
        if door:
            if door in doors_seen:
                raise BoardError(f"board file {where}: edges[{i}].door {door} is used twice")
            doors_seen.add(door)
            door_spaces[door] = (a, b)
        edges.append((a, b, door))
        adj[a].append((b, door))
        adj[b].append((a, door))
    starts = [i for i, s in enumerate(spaces) if s.start]
    cores = [i for i, s in enumerate(spaces) if s.disconnect]
    if len(starts) != 1 or len(cores) != 1:
        raise BoardError(f"board file {where}: needs exactly one space with start = true and "
                         f"one with disconnect = true (has {len(starts)} and {len(cores)})")
    if not any(s.picturephone for s in spaces):
        raise BoardError(f"board file {where}: needs at least one space with "
                         "picturephone = true")
    return Board(
        names=names,
        draw=tuple(s.draw for s in spaces),
        system=tuple(system),
        capacity=tuple(s.capacity for s in spaces),
        picturephone=tuple(s.picturephone for s in spaces),
        cancel=tuple(s.cancel for s in spaces),
        disconnect=tuple(s.disconnect for s in spaces),
        start=starts[0],
        edges=tuple(edges),
        adj=tuple(tuple(a) for a in adj),
        door_spaces=tuple(door_spaces),
    )
