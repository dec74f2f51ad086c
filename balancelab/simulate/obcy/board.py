"""The Obcy base map: spaces, connections, walking distances and line of sight.

Source: ``balancelab/data/obcy_map.json`` (assumed: design/obcy.md 3(d) base map, an odd-r
offset hex grid, pointy-top, 27 x 20, 302 spaces). Spaces are numbered 0..N-1 in row-major
order; everything here is precomputed at import as tuples.

Rulings used (design/obcy.md 3(c)15, 3(d)): two spaces are *adjacent* only when joined by a
movement connection (same room, door, grate, duct link …), never across a wall; the four duct
links that pass under a corridor are one step each and carry no line of sight.
"""

from __future__ import annotations

import json
from collections import deque
from importlib import resources
from typing import Final

with resources.files("balancelab.data").joinpath("obcy_map.json").open("r") as _fh:
    MAP = json.load(_fh)
# (checked against datafiles.ObcyMap by the tests; a worker does not import pydantic)

# -- space kinds -------------------------------------------------------------------------------
CORRIDOR: Final = 0
DOOR: Final = 1
ROOM: Final = 2
DUCT: Final = 3
GRATE: Final = 4
AIRLOCK: Final = 5
PAD: Final = 6
KIND_NAMES = ("corridor", "door", "room", "duct", "grate", "airlock", "landing pad")

_rows: list[str] = MAP["rows"]
_coords: list[tuple[int, int]] = []
_kind: list[int] = []
_room: list[int] = []
for _y, _row in enumerate(_rows):
    for _x, _ch in enumerate(_row):
        if _ch == ".":
            continue
        _coords.append((_x, _y))
        if _ch == "#":
            _kind.append(CORRIDOR)
        elif _ch == "+":
            _kind.append(DOOR)
        elif _ch == "~":
            _kind.append(DUCT)
        elif _ch == "%":
            _kind.append(GRATE)
        elif _ch in "12345":
            _kind.append(AIRLOCK)
        elif _ch == "L":
            _kind.append(PAD)
        else:
            _kind.append(ROOM)
        _room.append("abcdefgh".index(_ch) if _ch in "abcdefgh" else -1)

#: (x, y) of each space.
COORDS: tuple[tuple[int, int], ...] = tuple(_coords)
#: space kind code of each space.
KIND: tuple[int, ...] = tuple(_kind)
#: room index (0 = a Medlab … 7 = h Reactor) or -1.
ROOM_OF: tuple[int, ...] = tuple(_room)
N = len(COORDS)
INDEX: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(COORDS)}


def idx(x: int, y: int) -> int:
    """The space index of (x, y). Raises KeyError for a wall/void cell."""
    return INDEX[(x, y)]


def _xy(s: str) -> int:
    a, b = s.split(",")
    return INDEX[(int(a), int(b))]


#: Connected neighbours of each space (movement connections; 3(c)15 "adjacent").
NBR: tuple[tuple[int, ...], ...] = tuple(
    tuple(sorted(_xy(t) for t in MAP["adjacency"].get(f"{x},{y}", []))) for (x, y) in COORDS
)
NBR_SET: tuple[frozenset[int], ...] = tuple(frozenset(n) for n in NBR)

_f = MAP["features"]
FEATURE: dict[str, int] = {k: INDEX[tuple(v)] for k, v in _f.items()}
PAD_SPACE = INDEX[tuple(MAP["landing_pad"])]
AIRLOCKS: tuple[int, ...] = tuple(INDEX[tuple(MAP["airlocks"][str(k)])] for k in range(1, 6))
AIRLOCK_NO: dict[int, int] = {s: i + 1 for i, s in enumerate(AIRLOCKS)}
COMPUTERS: tuple[int, ...] = (FEATURE["COMPUTER_1"], FEATURE["COMPUTER_2"], FEATURE["COMPUTER_3"])
HATCHES: tuple[int, ...] = tuple(FEATURE[f"HATCH_{k}"] for k in range(1, 6))

# -- stores: which items a store gives (rulebook: 5. Items) ------------------------------------
from balancelab.simulate.obcy.rules import (  # noqa: E402
    CARBINE,
    CHARGE,
    COMP,
    DISK,
    FLAMER,
    FUEL,
    GRENADE,
    MED,
    PISTOL,
    SUIT,
)

#: Item code used in STORE_ITEMS for "a full ammo clip".
FULL_CLIP: Final = -2
STORE_ITEMS: dict[int, tuple[int, ...]] = {
    FEATURE["SUIT_STORE"]: (SUIT,),
    FEATURE["FUEL_STORE"]: (FUEL,),
    FEATURE["COMPONENT_STORE_1"]: (DISK, COMP),
    FEATURE["COMPONENT_STORE_2"]: (DISK, COMP),
    FEATURE["ARMOURY"]: (PISTOL, CARBINE, FLAMER, GRENADE, FULL_CLIP),
    FEATURE["AMMO_STORE_1"]: (FULL_CLIP,),
    FEATURE["AMMO_STORE_2"]: (FULL_CLIP,),
    FEATURE["MEDICAL_STORE"]: (MED,),
    FEATURE["EXPLOSIVES_STORE"]: (CHARGE,),
}
STORES = frozenset(STORE_ITEMS)
COMPONENT_STORES = (FEATURE["COMPONENT_STORE_1"], FEATURE["COMPONENT_STORE_2"])

#: Spaces the transporter may use (4.2: corridors and rooms, not ducts, airlocks, storerooms).
TRANSPORT_OK: tuple[bool, ...] = tuple(
    (k in (CORRIDOR, DOOR, ROOM, PAD)) and i not in STORES for i, k in enumerate(KIND)
)
#: Spaces an ALIEN may enter (9.2: not airlocks, not the landing pad).
ALIEN_OK: tuple[bool, ...] = tuple(k not in (AIRLOCK, PAD) for k in KIND)
IS_DUCT_ONLY: tuple[bool, ...] = tuple(k == DUCT for k in KIND)
IS_DUCT_OR_GRATE: tuple[bool, ...] = tuple(k in (DUCT, GRATE) for k in KIND)


# -- hex geometry --------------------------------------------------------------------------------
def _cube(x: int, y: int) -> tuple[int, int, int]:
    q = x - (y - (y & 1)) // 2
    return q, y, -q - y


CUBE: tuple[tuple[int, int, int], ...] = tuple(_cube(x, y) for x, y in COORDS)


def hex_distance(a: int, b: int) -> int:
    """Range in spaces between two spaces (cube distance, walls ignored)."""
    qa, ra, sa = CUBE[a]
    qb, rb, sb = CUBE[b]
    return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))


def _round(q: float, r: float, s: float) -> tuple[int, int]:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    x = rq + (rr - (rr & 1)) // 2
    return x, rr


def line_cells(a: int, b: int) -> list[tuple[int, int]]:
    """The hex cells (x, y) on the centre line from a to b, both ends included."""
    qa, ra, sa = CUBE[a]
    qb, rb, sb = CUBE[b]
    n = hex_distance(a, b)
    eq, er, es = 1e-6, 2e-6, -3e-6
    out = []
    for i in range(n + 1):
        t = i / n if n else 0.0
        out.append(
            _round(
                qa + eq + (qb - qa) * t,
                ra + er + (rb - ra) * t,
                sa + es + (sb - sa) * t,
            )
        )
    return out


#: Longest line of sight precomputed (the longest weapon range an option allows).
LOS_MAX = 6


def _static_los(a: int, b: int) -> tuple[int, ...] | None:
    cells = line_cells(a, b)
    path = []
    for c in cells:
        if c not in INDEX:
            return None
        path.append(INDEX[c])
    for u, v in zip(path, path[1:], strict=False):
        if v not in NBR_SET[u]:
            return None  # a wall between two hexes on the line
    return tuple(path[1:-1])


def _los_row(a: int) -> dict[int, tuple[int, ...]]:
    """LOS[a]: target -> spaces strictly between, for every wall-free line up to LOS_MAX."""
    qa, ra, sa = CUBE[a]
    d: dict[int, tuple[int, ...]] = {}
    for b, (qb, rb, sb) in enumerate(CUBE):
        r = max(abs(qa - qb), abs(ra - rb), abs(sa - sb))
        if 0 < r <= LOS_MAX:
            inter = _static_los(a, b)
            if inter is not None:
                d[b] = inter
    return d


class _LazyLos(dict[int, dict[int, tuple[int, ...]]]):
    """A table filled row by row on first use (a plain dict lookup afterwards)."""

    def __missing__(self, a: int) -> dict[int, tuple[int, ...]]:
        if not 0 <= a < N:
            raise KeyError(a)
        row = self[a] = _los_row(a)
        return row


#: LOS[a][b] = the spaces strictly between a and b on a wall-free line (absent: a wall or void
#: blocks it). Characters, other ALIENS and collapsed corridors are checked at play time.
#: Rows are built on first use (most games touch a fraction of the board).
LOS: dict[int, dict[int, tuple[int, ...]]] = _LazyLos()


# -- walking distances ---------------------------------------------------------------------------
def _bfs(src: int, blocked: frozenset[int]) -> tuple[int, ...]:
    dist = [99] * N
    if src in blocked:
        return tuple(dist)
    dist[src] = 0
    q = deque([src])
    while q:
        u = q.popleft()
        du = dist[u] + 1
        for v in NBR[u]:
            if dist[v] > du and v not in blocked:
                dist[v] = du
                # airlocks and the pad are ends, never passed through
                if KIND[v] not in (AIRLOCK, PAD):
                    q.append(v)
    return tuple(dist)


#: DIST[a][b]: walking distance over connections (99 = unreachable), no collapsed corridors.
DIST: tuple[tuple[int, ...], ...] = tuple(_bfs(s, frozenset()) for s in range(N))
_CACHE: dict[frozenset[int], list[tuple[int, ...] | None]] = {}


def dist_from(src: int, collapsed: frozenset[int]) -> tuple[int, ...]:
    """Walking distances from ``src`` avoiding collapsed corridor spaces (cached).

    Args:
        src: a space index.
        collapsed: the collapsed corridor spaces.

    Returns:
        A tuple of N ints (99 = unreachable).
    """
    if not collapsed:
        return DIST[src]
    table = _CACHE.get(collapsed)
    if table is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        table = _CACHE[collapsed] = [None] * N
    d = table[src]
    if d is None:
        d = table[src] = _bfs(src, collapsed)
    return d


def name(space: int) -> str:
    """A space in words: ``(10,7) computer 1`` / ``(12,3) corridor``."""
    x, y = COORDS[space]
    for k, v in FEATURE.items():
        if v == space:
            return f"({x},{y}) {k.lower().replace('_', ' ')}"
    if space == PAD_SPACE:
        return f"({x},{y}) landing pad"
    if space in AIRLOCK_NO:
        return f"({x},{y}) airlock {AIRLOCK_NO[space]}"
    if ROOM_OF[space] >= 0:
        return f"({x},{y}) {MAP['rooms']['abcdefgh'[ROOM_OF[space]]]}"
    return f"({x},{y}) {KIND_NAMES[KIND[space]]}"
