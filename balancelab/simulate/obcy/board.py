"""The Obcy base map: spaces, connections, walking distances and line of sight.

Source: ``balancelab/data/obcy_map.json`` (assumed: design/obcy.md 3(d) base map, an odd-r
offset hex grid, pointy-top, 27 x 20, 302 spaces). Spaces are numbered 0..N-1 in row-major
order; everything here is precomputed at import as tuples.

A :class:`Board` holds the tables of one map; the module's names (``NBR``, ``DIST``, ``LOS`` …)
are those of the assumed base map, :data:`DEFAULT`. :func:`board_of` builds (and caches, per
file content) the board of another map file, e.g. an alternative of
``balancelab/data/alternatives/obcy/`` (checked by :func:`balancelab.simulate.obcy.maps.check`).

Rulings used (design/obcy.md 3(c)15, 3(d)): two spaces are *adjacent* only when joined by a
movement connection (same room, door, grate, duct link …), never across a wall; the four duct
links that pass under a corridor are one step each and carry no line of sight.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any, Final

import numpy as np

from balancelab.simulate.obcy.rules import (
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
#: Item code used in STORE_ITEMS for "a full ammo clip".
FULL_CLIP: Final = -2
#: Longest line of sight precomputed (the longest weapon range an option allows).
LOS_MAX = 6


def _cube(x: int, y: int) -> tuple[int, int, int]:
    q = x - (y - (y & 1)) // 2
    return q, y, -q - y


def _round(q: float, r: float, s: float) -> tuple[int, int]:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    x = rq + (rr - (rr & 1)) // 2
    return x, rr


class Board:
    """The tables of one map (design/obcy.md 3(d); rulings 3(c)15: two spaces are adjacent
    only when joined by a movement connection, never across a wall; duct links under a
    corridor are one step each and carry no line of sight).

    Args:
        m: a map as in ``obcy_map.json`` (checked by :func:`~balancelab.simulate.obcy.maps.check`
            before it gets here).

    Attributes (each a tuple indexed by space, 0..N-1 in row-major order, unless said):
        COORDS (x, y); KIND (space kind code); ROOM_OF (0 = a Medlab … 7 = h Reactor, or -1);
        NBR / NBR_SET (connected neighbours); INDEX ((x, y) → space, dict); FEATURE (name →
        space, dict); PAD_SPACE; AIRLOCKS (airlocks 1..5); AIRLOCK_NO (space → number, dict);
        COMPUTERS; HATCHES; STORE_ITEMS (store → item codes, dict); TRANSPORT_OK (4.2);
        ALIEN_OK (9.2); IS_DUCT_ONLY; IS_DUCT_OR_GRATE; CUBE; DIST (walking distances, 99 =
        unreachable); LOS (LOS[a][b] = the spaces strictly between a and b on a wall-free line
        up to LOS_MAX, a dict per space, every row built here: :meth:`_los_table`).
    """

    def __init__(self, m: dict[str, Any]) -> None:
        self.map = m
        coords: list[tuple[int, int]] = []
        kind: list[int] = []
        room: list[int] = []
        for y, row in enumerate(m["rows"]):
            for x, ch in enumerate(row):
                if ch == ".":
                    continue
                coords.append((x, y))
                if ch == "#":
                    kind.append(CORRIDOR)
                elif ch == "+":
                    kind.append(DOOR)
                elif ch == "~":
                    kind.append(DUCT)
                elif ch == "%":
                    kind.append(GRATE)
                elif ch in "12345":
                    kind.append(AIRLOCK)
                elif ch == "L":
                    kind.append(PAD)
                else:
                    kind.append(ROOM)
                room.append("abcdefgh".index(ch) if ch in "abcdefgh" else -1)
        self.COORDS: tuple[tuple[int, int], ...] = tuple(coords)
        self.KIND: tuple[int, ...] = tuple(kind)
        self.ROOM_OF: tuple[int, ...] = tuple(room)
        self.N = len(coords)
        self.INDEX: dict[tuple[int, int], int] = {xy: i for i, xy in enumerate(coords)}
        index = self.INDEX

        def xy(s: str) -> int:
            a, b = s.split(",")
            return index[(int(a), int(b))]

        self.NBR: tuple[tuple[int, ...], ...] = tuple(
            tuple(sorted(xy(t) for t in m["adjacency"].get(f"{x},{y}", []))) for (x, y) in coords
        )
        self.NBR_SET: tuple[frozenset[int], ...] = tuple(frozenset(n) for n in self.NBR)
        self.FEATURE: dict[str, int] = {k: index[tuple(v)] for k, v in m["features"].items()}
        f = self.FEATURE
        self.PAD_SPACE = index[tuple(m["landing_pad"])]
        self.AIRLOCKS: tuple[int, ...] = tuple(index[tuple(m["airlocks"][str(k)])]
                                               for k in range(1, 6))
        self.AIRLOCK_NO: dict[int, int] = {s: i + 1 for i, s in enumerate(self.AIRLOCKS)}
        self.COMPUTERS: tuple[int, ...] = (f["COMPUTER_1"], f["COMPUTER_2"], f["COMPUTER_3"])
        self.HATCHES: tuple[int, ...] = tuple(f[f"HATCH_{k}"] for k in range(1, 6))
        # stores: which items a store gives (rulebook: 5. Items)
        self.STORE_ITEMS: dict[int, tuple[int, ...]] = {
            f["SUIT_STORE"]: (SUIT,),
            f["FUEL_STORE"]: (FUEL,),
            f["COMPONENT_STORE_1"]: (DISK, COMP),
            f["COMPONENT_STORE_2"]: (DISK, COMP),
            f["ARMOURY"]: (PISTOL, CARBINE, FLAMER, GRENADE, FULL_CLIP),
            f["AMMO_STORE_1"]: (FULL_CLIP,),
            f["AMMO_STORE_2"]: (FULL_CLIP,),
            f["MEDICAL_STORE"]: (MED,),
            f["EXPLOSIVES_STORE"]: (CHARGE,),
        }
        self.STORES = frozenset(self.STORE_ITEMS)
        self.COMPONENT_STORES = (f["COMPONENT_STORE_1"], f["COMPONENT_STORE_2"])
        #: 4.2: corridors and rooms, not ducts, airlocks, storerooms
        self.TRANSPORT_OK: tuple[bool, ...] = tuple(
            (k in (CORRIDOR, DOOR, ROOM, PAD)) and i not in self.STORES
            for i, k in enumerate(self.KIND)
        )
        #: 9.2: not airlocks, not the landing pad
        self.ALIEN_OK: tuple[bool, ...] = tuple(k not in (AIRLOCK, PAD) for k in self.KIND)
        self.IS_DUCT_ONLY: tuple[bool, ...] = tuple(k == DUCT for k in self.KIND)
        self.IS_DUCT_OR_GRATE: tuple[bool, ...] = tuple(k in (DUCT, GRATE) for k in self.KIND)
        self.CUBE: tuple[tuple[int, int, int], ...] = tuple(_cube(x, y) for x, y in coords)
        self.LOS: dict[int, dict[int, tuple[int, ...]]] = self._los_table()
        self.DIST: tuple[tuple[int, ...], ...] = tuple(
            self._bfs(s, frozenset()) for s in range(self.N))
        self._cache: dict[frozenset[int], list[tuple[int, ...] | None]] = {}

    # -- hex geometry ----------------------------------------------------------------------------
    def idx(self, x: int, y: int) -> int:
        """The space index of (x, y). Raises KeyError for a wall/void cell."""
        return self.INDEX[(x, y)]

    def hex_distance(self, a: int, b: int) -> int:
        """Range in spaces between two spaces (cube distance, walls ignored)."""
        qa, ra, sa = self.CUBE[a]
        qb, rb, sb = self.CUBE[b]
        return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))

    def line_cells(self, a: int, b: int) -> list[tuple[int, int]]:
        """The hex cells (x, y) on the centre line from a to b, both ends included."""
        qa, ra, sa = self.CUBE[a]
        qb, rb, sb = self.CUBE[b]
        n = self.hex_distance(a, b)
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

    def _static_los(self, a: int, b: int) -> tuple[int, ...] | None:
        cells = self.line_cells(a, b)
        path = []
        for c in cells:
            if c not in self.INDEX:
                return None
            path.append(self.INDEX[c])
        for u, v in zip(path, path[1:], strict=False):
            if v not in self.NBR_SET[u]:
                return None  # a wall between two hexes on the line
        return tuple(path[1:-1])

    def _los_row(self, a: int) -> dict[int, tuple[int, ...]]:
        """LOS[a] line by line (:meth:`line_cells`): what :meth:`_los_table` computes for
        every row at once (the tests check the two agree)."""
        qa, ra, sa = self.CUBE[a]
        d: dict[int, tuple[int, ...]] = {}
        for b, (qb, rb, sb) in enumerate(self.CUBE):
            r = max(abs(qa - qb), abs(ra - rb), abs(sa - sb))
            if 0 < r <= LOS_MAX:
                inter = self._static_los(a, b)
                if inter is not None:
                    d[b] = inter
        return d

    def _los_table(self) -> dict[int, dict[int, tuple[int, ...]]]:
        """Every row of LOS: for each pair of spaces at range 1..LOS_MAX, the cells of the
        centre line (:meth:`line_cells`, the same floating-point steps and rounding, for all
        pairs of one range at once in numpy); a line is kept when every cell is a space and
        each step joins two adjacent spaces (no wall). About 30 ms once per board, where the
        line-by-line :meth:`_los_row` took about a billion instructions (0.3 s)."""
        n = self.N
        cube = np.array(self.CUBE, dtype=np.int64).reshape(n, 3)
        coords = np.array(self.COORDS, dtype=np.int64).reshape(n, 2)
        w = int(coords[:, 0].max()) + 1
        h = int(coords[:, 1].max()) + 1
        grid = np.full((h + 2, w + 2), -1, dtype=np.int64)  # a border of void around the map
        grid[coords[:, 1] + 1, coords[:, 0] + 1] = np.arange(n)
        adj = np.zeros((n, n), dtype=bool)
        for u, nb in enumerate(self.NBR):
            adj[u, list(nb)] = True
        q, r_, s = cube[:, 0], cube[:, 1], cube[:, 2]
        rng = np.maximum(np.maximum(np.abs(q[:, None] - q), np.abs(r_[:, None] - r_)),
                         np.abs(s[:, None] - s))  # (n, n) hex distances
        eps = np.array([1e-6, 2e-6, -3e-6])
        starts: list[Any] = []
        ends: list[Any] = []
        paths: list[tuple[int, ...]] = []
        for r in range(1, LOS_MAX + 1):
            a, b = np.nonzero(rng == r)
            ca, cb = cube[a].astype(np.float64), cube[b].astype(np.float64)
            t = np.arange(r + 1) / r
            # (pairs, r + 1, 3): qa + eq + (qb - qa) * t, as line_cells, then _round
            pts = (ca + eps)[:, None, :] + (cb - ca)[:, None, :] * t[None, :, None]
            rnd = np.rint(pts)  # half to even, as round()
            d = np.abs(rnd - pts)
            rq, rr, rs = rnd[..., 0], rnd[..., 1], rnd[..., 2]
            dq, dr, ds = d[..., 0], d[..., 1], d[..., 2]
            fix_q = (dq > dr) & (dq > ds)
            rq = np.where(fix_q, -rr - rs, rq)
            rr = np.where(~fix_q & (dr > ds), -rq - rs, rr)
            y = rr.astype(np.int64)
            x = rq.astype(np.int64) + (y - (y & 1)) // 2
            cells = grid[np.clip(y + 1, 0, h + 1), np.clip(x + 1, 0, w + 1)]
            on_map = (cells >= 0).all(axis=1)
            a, b, cells = a[on_map], b[on_map], cells[on_map]
            clear = adj[cells[:, :-1], cells[:, 1:]].all(axis=1)
            starts.append(a[clear])
            ends.append(b[clear])
            paths.extend(map(tuple, cells[clear][:, 1:-1].tolist()))
        fa, fb = np.concatenate(starts), np.concatenate(ends)
        order = np.lexsort((fb, fa))  # each row by target, as _los_row
        table: dict[int, dict[int, tuple[int, ...]]] = {a: {} for a in range(n)}
        for i, a_, b_ in zip(order.tolist(), fa[order].tolist(), fb[order].tolist(), strict=True):
            table[a_][b_] = paths[i]
        return table

    # -- walking distances -----------------------------------------------------------------------
    def _bfs(self, src: int, blocked: frozenset[int]) -> tuple[int, ...]:
        n, nbr, kind = self.N, self.NBR, self.KIND
        dist = [99] * n
        if src in blocked:
            return tuple(dist)
        dist[src] = 0
        q = [src]  # a list read from the front (a deque's methods are Python calls)
        i = 0
        while i < len(q):
            u = q[i]
            i += 1
            du = dist[u] + 1
            for v in nbr[u]:
                if dist[v] > du and v not in blocked:
                    dist[v] = du
                    # airlocks and the pad are ends, never passed through
                    if kind[v] not in (AIRLOCK, PAD):
                        q.append(v)
        return tuple(dist)

    def dist_from(self, src: int, collapsed: frozenset[int]) -> tuple[int, ...]:
        """Walking distances from ``src`` avoiding collapsed corridor spaces (cached).

        Args:
            src: a space index.
            collapsed: the collapsed corridor spaces.

        Returns:
            A tuple of N ints (99 = unreachable).
        """
        if not collapsed:
            return self.DIST[src]
        table = self._cache.get(collapsed)
        if table is None:
            if len(self._cache) > 256:
                self._cache.clear()
            table = self._cache[collapsed] = [None] * self.N
        d = table[src]
        if d is None:
            d = table[src] = self._bfs(src, collapsed)
        return d

    def name(self, space: int) -> str:
        """A space in words, its room from the map file and its (column,row) after:
        ``computer 1 in the Operations (10,7)``, ``the Supply Depot (6,14)``, ``a door of
        the Supply Depot (4,13)``, ``hatching space 1 in the Colony Hab (15,7)``, ``a corridor
        (12,3)``."""
        x, y = self.COORDS[space]
        at = f"({x},{y})"
        rooms = self.map["rooms"]

        def room(s: int) -> str:
            return f"the {rooms['abcdefgh'[self.ROOM_OF[s]]]}"

        inside = f" in {room(space)}" if self.ROOM_OF[space] >= 0 else ""
        for k, v in self.FEATURE.items():
            if v == space:
                kind, _, n = k.partition("_")
                words = (f"hatching space {n}" if kind == "HATCH"
                         else f"the {n.lower()} device" if kind == "DEVICE"
                         else _STORE_WORDS.get(k, k.lower().replace("_", " ")))
                return f"{words}{inside} {at}"
        if space == self.PAD_SPACE:
            return f"the landing pad {at}"
        if space in self.AIRLOCK_NO:
            return f"airlock {self.AIRLOCK_NO[space]} {at}"
        if inside:
            return f"{room(space)} {at}"
        kind = KIND_NAMES[self.KIND[space]]
        near = sorted({room(t) for t in self.NBR[space] if self.ROOM_OF[t] >= 0})
        if kind == "door" and near:
            return f"a door of {' and '.join(near)} {at}"
        if near:
            return f"a {kind} by {' and '.join(near)} {at}"
        return f"a {kind} {at}"


#: feature names the rulebook words otherwise (5. Items: "the armoury stores", "ammunition
#: stores"); the rest read as written (``COMPUTER_1`` -> ``computer 1``)
_STORE_WORDS = {"ARMOURY": "the armoury store", "AMMO_STORE_1": "ammunition store 1",
                "AMMO_STORE_2": "ammunition store 2", "SUIT_STORE": "the suit store",
                "FUEL_STORE": "the fuel store", "MEDICAL_STORE": "the medical store",
                "EXPLOSIVES_STORE": "the explosives store"}


#: The assumed base map's board (design/obcy.md 3(d)).
DEFAULT: Final = Board(MAP)
_BOARDS: dict[str, Board] = {}


def board_of(map_file: str) -> Board:
    """The board of a map file ('' = the assumed base map), built once per file content.

    Raises:
        OSError: the file cannot be read. (Its content is checked by the option's validation,
            :func:`balancelab.simulate.obcy.maps.load`, before a game starts.)
    """
    if not map_file:
        return DEFAULT
    raw = Path(map_file).read_bytes()
    key = hashlib.sha256(raw).hexdigest()
    b = _BOARDS.get(key)
    if b is None:
        b = _BOARDS[key] = Board(json.loads(raw))
    return b


# -- the base map's tables, as module names (the engine's and the policies' default) -------------
COORDS = DEFAULT.COORDS
KIND = DEFAULT.KIND
ROOM_OF = DEFAULT.ROOM_OF
N = DEFAULT.N
INDEX = DEFAULT.INDEX
NBR = DEFAULT.NBR
NBR_SET = DEFAULT.NBR_SET
FEATURE = DEFAULT.FEATURE
PAD_SPACE = DEFAULT.PAD_SPACE
AIRLOCKS = DEFAULT.AIRLOCKS
AIRLOCK_NO = DEFAULT.AIRLOCK_NO
COMPUTERS = DEFAULT.COMPUTERS
HATCHES = DEFAULT.HATCHES
STORE_ITEMS = DEFAULT.STORE_ITEMS
STORES = DEFAULT.STORES
COMPONENT_STORES = DEFAULT.COMPONENT_STORES
TRANSPORT_OK = DEFAULT.TRANSPORT_OK
ALIEN_OK = DEFAULT.ALIEN_OK
IS_DUCT_ONLY = DEFAULT.IS_DUCT_ONLY
IS_DUCT_OR_GRATE = DEFAULT.IS_DUCT_OR_GRATE
CUBE = DEFAULT.CUBE
LOS = DEFAULT.LOS
DIST = DEFAULT.DIST
idx = DEFAULT.idx
hex_distance = DEFAULT.hex_distance
line_cells = DEFAULT.line_cells
dist_from = DEFAULT.dist_from
name = DEFAULT.name
