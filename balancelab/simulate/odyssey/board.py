"""The Discovery Board: spaces, edges and doors, loaded from TOML package data.

The rulebook does not print the board; ``balancelab/data/odyssey_board.toml`` holds the layout
proposed by the design notes (section 1(d)), every value marked ``source = "assumed: ..."`` or
``"rulebook: ..."``. A user's own file replaces it (option ``board_file``).

Rulebook: Crewmember Actions (MOVE: "only into spaces connected by a solid line", "cannot move
through a closed Door token", "Doors are not counted as a space"), POD, Crewmember Special
Abilities (Hunter).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

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

    def reachable(self, start: int, closed_mask: int, steps: int, hunter: bool) -> tuple[int, ...]:
        """Spaces reachable in 0..``steps`` moves (start included), sorted.

        Args:
            start: space id.
            closed_mask: bit ``d`` set when door ``d`` is closed.
            steps: the move allowance.
            hunter: may cross one closed door 1-6 (Hunter's ability).
        """
        return _reachable(self, start, closed_mask, steps, hunter)

    def distances(self, closed_mask: int, hunter: bool = False) -> tuple[tuple[int, ...], ...]:
        """All-pairs step distances with the given doors closed (99 = unreachable).

        Hunter's one crossing per turn is ignored here (it is a per-turn allowance).
        """
        return _distances(self, closed_mask)


@cache
def _reachable(board: Board, start: int, closed_mask: int, steps: int,
               hunter: bool) -> tuple[int, ...]:
    seen = {(start, 0)}
    frontier = [(start, 0)]
    for _ in range(steps):
        nxt = []
        for s, used in frontier:
            for t, door in board.adj[s]:
                u = used
                if door and closed_mask >> door & 1:
                    if not hunter or used or door == POD_BAY_DOOR:
                        continue
                    u = 1
                if (t, u) not in seen:
                    seen.add((t, u))
                    nxt.append((t, u))
        frontier = nxt
    return tuple(sorted({s for s, _ in seen}))


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

    Raises:
        BoardError: the file is missing or unreadable, or it names an unknown space or system,
            lacks a start, a Core, a Picturephone, a space per system, or has a door number
            outside 1..7 or used twice.
    """
    try:
        if path:
            data = tomllib.loads(Path(path).read_text())
        else:
            ref = resources.files("balancelab") / "data" / "odyssey_board.toml"
            data = tomllib.loads(ref.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise BoardError(f"cannot read board file {path or '<built-in>'!r}: {exc}") from None
    return _build(data, path or "<built-in>")


@cache
def default_board() -> Board:
    """The built-in (assumed) Discovery Board, loaded once."""
    return load_board("")


def _build(data: dict, where: str) -> Board:
    spaces = data.get("spaces", [])
    names = tuple(str(s["name"]) for s in spaces)
    if len(set(names)) != len(names) or not names:
        raise BoardError(f"{where}: space names must be unique and non-empty")
    system = []
    for s in spaces:
        sys_name = s.get("system")
        if sys_name is None:
            system.append(-1)
        elif sys_name in SYSTEMS:
            system.append(SYSTEMS.index(sys_name))
        else:
            raise BoardError(f"{where}: unknown system {sys_name!r}; valid: {', '.join(SYSTEMS)}")
    if sorted(k for k in system if k >= 0) != [0, 1, 2, 3]:
        raise BoardError(f"{where}: each of GRV, MEM, COM, LIF needs exactly one space")
    edges = []
    doors_seen = set()
    adj: list[list[tuple[int, int]]] = [[] for _ in names]
    door_spaces = [(-1, -1)] * (N_DOORS + 1)
    for e in data.get("edges", []):
        try:
            a, b = names.index(e["a"]), names.index(e["b"])
        except ValueError:
            raise BoardError(f"{where}: edge {e} names an unknown space") from None
        door = int(e.get("door", 0))
        if door:
            if not 1 <= door <= N_DOORS or door in doors_seen:
                raise BoardError(f"{where}: door {door} outside 1..7 or used twice")
            doors_seen.add(door)
            door_spaces[door] = (a, b)
        edges.append((a, b, door))
        adj[a].append((b, door))
        adj[b].append((a, door))
    starts = [i for i, s in enumerate(spaces) if s.get("start")]
    cores = [i for i, s in enumerate(spaces) if s.get("disconnect")]
    if len(starts) != 1 or len(cores) != 1:
        raise BoardError(f"{where}: needs exactly one start space and one disconnect space")
    if not any(s.get("picturephone") for s in spaces):
        raise BoardError(f"{where}: needs at least one picturephone space")
    return Board(
        names=names,
        draw=tuple(int(s.get("draw", 0)) for s in spaces),
        system=tuple(system),
        capacity=tuple(int(s.get("capacity", 0)) for s in spaces),
        picturephone=tuple(bool(s.get("picturephone", False)) for s in spaces),
        cancel=tuple(bool(s.get("cancel", False)) for s in spaces),
        disconnect=tuple(bool(s.get("disconnect", False)) for s in spaces),
        start=starts[0],
        edges=tuple(edges),
        adj=tuple(tuple(a) for a in adj),
        door_spaces=tuple(door_spaces),
    )
