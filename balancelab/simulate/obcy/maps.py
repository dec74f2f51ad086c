"""Obcy maps: the connection rule that turns a class grid into connections, and the checks
every map (the assumed base map, a shipped alternative or a user's file) must pass.

The base map is ASSUMED (design/obcy.md 3(d)); the rulebook fixes only what these checks test:
five numbered airlocks (rulebook: 4.1 Airlocks), five hatching spaces (9.1 Hatching), the
ship's landing pad and the transporter (4.2), three computers (6. Computers), the stores of
5. Items, the mission devices, and rooms joined by corridors, doors and ventilation ducts
(2. The Board). A map that breaks one of them is refused with the broken rule named.
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from pathlib import Path
from typing import Any

#: Space classes of the grid (design/obcy.md 3(d)).
ROOM_IDS = "abcdefgh"
AIRLOCK_IDS = "12345"
#: Features every map names (stores, computers, hatching spaces, mission devices).
FEATURES = (
    "SUIT_STORE", "FUEL_STORE", "COMPONENT_STORE_1", "COMPONENT_STORE_2", "ARMOURY",
    "AMMO_STORE_1", "AMMO_STORE_2", "MEDICAL_STORE", "EXPLOSIVES_STORE",
    "COMPUTER_1", "COMPUTER_2", "COMPUTER_3",
    "HATCH_1", "HATCH_2", "HATCH_3", "HATCH_4", "HATCH_5",
    "DEVICE_SCANNER", "DEVICE_RADIO", "DEVICE_ATMO", "DEVICE_GENERATOR", "DEVICE_LIGHTS",
)


class MapError(ValueError):
    """A map that breaks a rule of the rulebook or the map format."""


_CHECKED: set[str] = set()


def load(path: str) -> dict[str, Any]:
    """Read a map file, validate it against its schema
    (:class:`~balancelab.simulate.datafiles.ObcyMap`) and :func:`check` it (once per content).

    Raises:
        MapError: one line naming the file and what is wrong (missing, not JSON, a key
            unknown, missing or mistyped, a rule of the rulebook broken).
    """
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise MapError(f"map file {path!r}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise MapError(f"map file {path!r} is not JSON: {exc}") from None
    key = hashlib.sha256(raw).hexdigest()
    if key not in _CHECKED:
        from balancelab.simulate.datafiles import ObcyMap
        from balancelab.simulate.schema import DataError, validate

        try:
            validate(ObcyMap, data, path)
        except DataError as exc:
            raise MapError(f"map file {exc}") from None
        try:
            check(data)
        except MapError as exc:
            raise MapError(f"map file {path!r}: {exc}") from None
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise MapError(f"map file {path!r}: bad entry {exc}") from None
        _CHECKED.add(key)
    return dict(data)


def hex_neighbours(x: int, y: int) -> list[tuple[int, int]]:
    """The six neighbours of (x, y) on an odd-r offset grid (odd rows shifted right)."""
    if y & 1:
        d = ((1, 0), (-1, 0), (0, -1), (1, -1), (0, 1), (1, 1))
    else:
        d = ((1, 0), (-1, 0), (-1, -1), (0, -1), (-1, 1), (0, 1))
    return [(x + dx, y + dy) for dx, dy in d]


def _cls(ch: str) -> str:
    if ch in ROOM_IDS:
        return "room"
    if ch in AIRLOCK_IDS:
        return "airlock"
    return {"#": "corridor", "+": "door", "~": "duct", "%": "grate", "L": "pad"}[ch]


def _joined(a: str, b: str, ca: str, cb: str) -> bool:
    """design/obcy.md 3(d) connection rule (symmetric)."""
    if ca == "room" and cb == "room":
        return a == b
    pair = {ca, cb}
    if pair <= {"corridor", "door"} or pair <= {"duct", "grate"}:
        return True
    if pair in ({"door", "room"}, {"grate", "room"}):
        return True
    if "airlock" in pair:
        other = cb if ca == "airlock" else ca
        return other in ("corridor", "room", "door")
    return pair == {"pad", "corridor"}


def adjacency(rows: list[str], vent_links: list[list[list[int]]]) -> dict[str, list[str]]:
    """The movement connections of a class grid: ``"x,y"`` → sorted ``["x,y", …]``.

    Two spaces are connected iff hex-adjacent and the connection rule joins their classes, plus
    each vent link (a duct passing under a corridor, one step).

    Raises:
        MapError: an unknown character in the grid, or a vent link end that is not a duct.
    """
    cells: dict[tuple[int, int], str] = {}
    for y, row in enumerate(rows):
        for x, ch in enumerate(row):
            if ch == ".":
                continue
            try:
                _cls(ch)
            except KeyError:
                raise MapError(f"unknown map character {ch!r} at ({x},{y}); valid: "
                               f". # + ~ % L {ROOM_IDS} {AIRLOCK_IDS}") from None
            cells[(x, y)] = ch
    adj: dict[tuple[int, int], set[tuple[int, int]]] = {c: set() for c in cells}
    for (x, y), ch in cells.items():
        for nb in hex_neighbours(x, y):
            if nb in cells and _joined(ch, cells[nb], _cls(ch), _cls(cells[nb])):
                adj[(x, y)].add(nb)
    for link in vent_links:
        a, b = ((int(p[0]), int(p[1])) for p in link)
        for p in (a, b):
            if p not in cells or _cls(cells[p]) not in ("duct", "grate"):
                raise MapError(f"vent link end {p} is not a ventilation duct")
        adj[a].add(b)
        adj[b].add(a)

    def key(p: tuple[int, int]) -> str:
        return f"{p[0]},{p[1]}"

    return {key(c): sorted((key(n) for n in adj[c]), key=lambda s: tuple(map(int, s.split(","))))
            for c in sorted(cells, key=lambda p: (p[1], p[0])) if adj[c]}


def derive(rows: list[str], base: dict[str, Any]) -> dict[str, Any]:
    """A full map (doors, grates, adjacency) from a class grid and the other fields of
    ``base`` (rooms, vent links, airlocks, features, landing pad)."""
    out = dict(base)
    out["rows"] = rows
    out["doors"] = [[x, y] for y, r in enumerate(rows) for x, c in enumerate(r) if c == "+"]
    out["grates"] = [[x, y] for y, r in enumerate(rows) for x, c in enumerate(r) if c == "%"]
    out["airlocks"] = {c: [x, y] for y, r in enumerate(rows) for x, c in enumerate(r)
                       if c in AIRLOCK_IDS}
    out["airlocks"] = dict(sorted(out["airlocks"].items()))
    out["adjacency"] = adjacency(rows, base["vent_links"])
    return out


def _walk(adj: dict[str, list[str]], start: str, cls: dict[str, str],
          through: frozenset[str]) -> dict[str, int]:
    dist = {start: 0}
    q = deque([start])
    while q:
        u = q.popleft()
        for v in adj.get(u, []):
            if v not in dist:
                dist[v] = dist[u] + 1
                if cls[v] in through:
                    q.append(v)
    return dist


def check(m: dict[str, Any]) -> None:
    """Check a map against the rulebook and the map format.

    Checked: the grid is ``width`` x ``height``; eight rooms a..h, each named; exactly five
    airlocks numbered 1..5 (4.1), each joined to a corridor, door or room; one landing pad
    (4.2) joined to a corridor; the listed doors, grates, airlocks and adjacency agree with
    the grid (the connection rule of design/obcy.md 3(d)); every feature named, on a room
    space (stores, computers, devices: 5., 6., 7.) or a room/duct/corridor space (the five
    hatching spaces, 9.1: ALIENS hatch there and may stand there); from the pad a character
    walks to every store, computer, device and airlock, and the transporter reaches every
    store's room (4.2); ALIENS reach every room from the hatching spaces (9.2).

    Raises:
        MapError: the first broken rule, in words.
    """
    rows: list[str] = m["rows"]
    if len(rows) != m["height"] or any(len(r) != m["width"] for r in rows):
        raise MapError(f"the grid must be {m['width']} x {m['height']} characters")
    grid = {(x, y): c for y, r in enumerate(rows) for x, c in enumerate(r) if c != "."}
    cls = {f"{x},{y}": _cls(c) for (x, y), c in grid.items()} if _all_known(grid) else {}
    present = {c for c in grid.values()}
    for r in ROOM_IDS:
        if r not in present:
            raise MapError(f"room {r!r} is missing (the base map has eight rooms a..h)")
        if r not in m["rooms"]:
            raise MapError(f"room {r!r} has no name in 'rooms'")
    airlocks = [(c, p) for p, c in grid.items() if c in AIRLOCK_IDS]
    if sorted(c for c, _ in airlocks) != list(AIRLOCK_IDS):
        raise MapError("the map needs exactly five airlocks numbered 1..5 (rulebook: 4.1); "
                       f"got {sorted(c for c, _ in airlocks)}")
    pads = [p for p, c in grid.items() if c == "L"]
    if len(pads) != 1 or list(pads[0]) != list(m["landing_pad"]):
        raise MapError("the map needs one landing pad 'L', at 'landing_pad' (rulebook: 4.2)")
    want = derive(rows, m)
    for k in ("doors", "grates", "airlocks", "adjacency"):
        if _norm(m[k]) != _norm(want[k]):
            raise MapError(f"{k!r} does not agree with the grid (connection rule, "
                           "design/obcy.md 3(d)); balancelab.simulate.obcy.maps.derive "
                           "computes it")
    adj = want["adjacency"]
    for c, p in airlocks:
        if not adj.get(f"{p[0]},{p[1]}"):
            raise MapError(f"airlock {c} at {p} is joined to no corridor, door or room")
    feats = m["features"]
    for f in FEATURES:
        if f not in feats:
            raise MapError(f"feature {f} is missing")
        p = (int(feats[f][0]), int(feats[f][1]))
        kind = _cls(grid[p]) if p in grid else "wall"
        ok = ("room", "duct", "grate", "corridor", "door") if f.startswith("HATCH") else ("room",)
        if kind not in ok:
            raise MapError(f"{f.lower().replace('_', ' ')} at {list(p)} is on a {kind} "
                           f"space; it must be on a {' or '.join(ok)} space")
    hatches = {tuple(feats[f"HATCH_{k}"]) for k in range(1, 6)}
    if len(hatches) != 5:
        raise MapError("the map needs five different hatching spaces (rulebook: 9.1)")
    pad = f"{pads[0][0]},{pads[0][1]}"
    walk = _walk(adj, pad, cls, frozenset(("corridor", "door", "room", "pad")))
    for f in FEATURES:
        if f.startswith("HATCH"):
            continue
        k = f"{feats[f][0]},{feats[f][1]}"
        if k not in walk:
            raise MapError(f"{f.lower().replace('_', ' ')} cannot be reached on foot from "
                           "the landing pad")
    for c, p in airlocks:
        if f"{p[0]},{p[1]}" not in walk:
            raise MapError(f"airlock {c} cannot be reached on foot from the landing pad")
    _check_missions(grid)
    alien = frozenset(("corridor", "door", "room", "duct", "grate"))
    reach: set[str] = set()
    for h in hatches:
        reach |= set(_walk(adj, f"{h[0]},{h[1]}", cls, alien))
    for r in ROOM_IDS:
        if not any(grid[p] == r and f"{p[0]},{p[1]}" in reach for p in grid):
            raise MapError(f"ALIENS cannot reach room {m['rooms'][r]} from the hatching spaces")


def _check_missions(grid: dict[tuple[int, int], str]) -> None:
    """The spaces the mission cards name (7. Carrying Out Missions) exist: a corridor to
    collapse is corridor on this map, the transporter's target is a corridor, door or room."""
    from balancelab.simulate.obcy.data import MISSIONS_DATA

    for m in MISSIONS_DATA:
        kind, arg = m["kind"], str(m["arg"])
        cells: list[tuple[int, int]] = []
        if kind == "collapse":
            a, b = arg.split("-")
            ax, ay = (int(v) for v in a.split(","))
            bx, by = (int(v) for v in b.split(","))
            cells = [(ax, y) for y in range(ay, by + 1)]
            ok: tuple[str, ...] = ("corridor",)
        elif "," in arg:
            x, y = arg.split(",")
            cells = [(int(x), int(y))]
            ok = ("corridor", "door", "room")
        for c in cells:
            kind_here = _cls(grid[c]) if c in grid else "wall"
            if kind_here not in ok:
                raise MapError(f"mission {m['id']} ({m['text']}) needs {c} to be a "
                               f"{' or '.join(ok)} space; it is a {kind_here}")


def _all_known(grid: dict[tuple[int, int], str]) -> bool:
    for (x, y), ch in grid.items():
        try:
            _cls(ch)
        except KeyError:
            raise MapError(f"unknown map character {ch!r} at ({x},{y})") from None
    return True


def _norm(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: sorted(map(str, x)) if isinstance(x, list) and x and isinstance(x[0], str)
                else _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return sorted(map(str, v))
    return v
