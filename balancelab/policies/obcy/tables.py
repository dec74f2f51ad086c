"""Obcy policies' shared tables: combat odds, map distances and stores per map, the
Variant 1 Queen-fight table (read-only, built once per map or CRT offset)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER, combat_result
from balancelab.simulate.obcy.rules import (
    CARBINE,
    CLIP0,
    FLAMER,
    GORMAN,
    PISTOL,
    RIPLEY,
    WEAPON_USE,
    WEAPONS,
)
from balancelab.simulate.obcy.state import ObcyView


def _kill_prob(attack: int, strength: int, offset: int) -> float:
    k = 0
    for die in range(1, 7):
        side, loss, _ = combat_result(attack, die, offset)
        if side == DEFENDER and loss >= strength:
            k += 1
    return k / 6


def _exp(attack: int, offset: int) -> tuple[float, float]:
    """Expected strength lost by (defender, attacker) at an attack strength."""
    d = a = 0.0
    for die in range(1, 7):
        side, loss, _ = combat_result(attack, die, offset)
        if side == DEFENDER:
            d += loss
        elif side == ATTACKER:
            a += loss
    return d / 6, a / 6


_CRT: Final[dict[int, dict[int, tuple[tuple[int, int, int], ...]]]] = {}
_EXP: Final[dict[int, dict[int, tuple[float, float]]]] = {}
_SV_MEMO: Final[dict[int, dict[tuple[int, int, bool], float]]] = {}


def _crt_table(offset: int) -> dict[int, tuple[tuple[int, int, int], ...]]:
    """Attack -> per die (side, loss, retreat), for attacks -20..39 (cached per offset)."""
    t = _CRT.get(offset)
    if t is None:
        t = _CRT[offset] = {
            att: tuple(combat_result(att, d, offset) for d in range(1, 7))
            for att in range(-20, 40)
        }
    return t


def _exp_table(offset: int) -> dict[int, tuple[float, float]]:
    """Attack -> :func:`_exp`, for attacks -20..39 (cached per offset)."""
    t = _EXP.get(offset)
    if t is None:
        t = _EXP[offset] = {att: _exp(att, offset) for att in range(-20, 40)}
    return t


def _dist_row(t: PolicyTables, src: int, collapsed: frozenset[int]) -> tuple[int, ...]:
    """Walking distances from ``src`` to every space, avoiding the ``collapsed`` corridor
    spaces (99 = unreachable)."""
    if collapsed:
        row: tuple[int, ...] = t.bd.dist_from(src, collapsed)
        return row
    return t.dist[src]


def _dist(t: PolicyTables, view: ObcyView, a: int, b: int) -> int:
    return _dist_row(t, a, view.collapsed)[b]


def _goal_row(t: PolicyTables, goals: tuple[int, ...],
              collapsed: frozenset[int]) -> tuple[int, ...]:
    """Walking distance from every space to the nearest of ``goals`` (cached)."""
    key = (goals, collapsed)
    rows = t.rows
    row = rows.get(key)
    if row is None:
        if len(rows) > 4096:
            rows.clear()
        row = rows[key] = _nearest_of(t, goals, collapsed)
    return row


def _nearest_of(t: PolicyTables, goals: tuple[int, ...],
                collapsed: frozenset[int]) -> tuple[int, ...]:
    """The element-wise minimum of the goals' distance rows (a native loop: ``map(min,
    *rows)`` calls the generic ``min`` once per space)."""
    first = _dist_row(t, goals[0], collapsed)
    if len(goals) == 1:
        return first
    out = list(first)
    n = len(out)
    for g in goals[1:]:
        row = _dist_row(t, g, collapsed)
        for i in range(n):
            d: int = row[i]
            if d < out[i]:
                out[i] = d
    return tuple(out)


def _nearest(t: PolicyTables, view: ObcyView, src: int, targets: Sequence[int]) -> tuple[int, int]:
    best, bd = -1, 999
    d = _dist_row(t, src, view.collapsed)
    for g in targets:
        if d[g] < bd:
            best, bd = g, d[g]
    return best, bd


#: Per character: the guns it may use (not the grenade).
_GUNS: Final = tuple(frozenset(WEAPONS) & use for use in WEAPON_USE)


class PolicyTables:
    """One board's tables as the policies read them, with the tables derived from it (built
    once per board: :func:`policy_tables`)."""

    def __init__(self, map_file: str) -> None:
        from balancelab.simulate.obcy.state import map_tables

        mt = map_tables(map_file)
        bd: Any = mt.bd
        self.bd: Any = bd
        self.missions: tuple[tuple[str, Any], ...] = mt.missions
        self.n: int = bd.N
        self.nbr: tuple[tuple[int, ...], ...] = bd.NBR
        self.nbr_set: tuple[frozenset[int], ...] = bd.NBR_SET
        self.dist: tuple[tuple[int, ...], ...] = bd.DIST
        self.kind: tuple[int, ...] = bd.KIND
        self.los: dict[int, dict[int, tuple[int, ...]]] = bd.LOS
        self.hatches: tuple[int, ...] = bd.HATCHES
        self.computers: tuple[int, ...] = bd.COMPUTERS
        self.airlocks: tuple[int, ...] = bd.AIRLOCKS
        self.pad: int = bd.PAD_SPACE
        self.duct: tuple[bool, ...] = bd.IS_DUCT_OR_GRATE
        self.store_items: dict[int, tuple[int, ...]] = bd.STORE_ITEMS
        dist = self.dist
        n = self.n
        self.room_c: tuple[int, ...] = tuple(i for i in range(n) if bd.ROOM_OF[i] == 2)
        self.clip_stores: tuple[int, ...] = (
            bd.FEATURE["AMMO_STORE_1"], bd.FEATURE["AMMO_STORE_2"], bd.FEATURE["ARMOURY"])
        self.clip_set: frozenset[int] = frozenset(self.clip_stores)
        self.hatch_set: frozenset[int] = frozenset(bd.HATCHES)
        #: 2 per hatching space within 5 spaces (where new ALIENS may strike from next phase).
        self.hatch_near: tuple[int, ...] = tuple(
            2 * sum(1 for h in bd.HATCHES if dist[h][s] <= 5) for s in range(n))
        #: Hatching spaces in the order holders take them: nearest to the landing pad first.
        self.hold_order: tuple[int, ...] = tuple(
            sorted(bd.HATCHES, key=lambda h: (dist[bd.PAD_SPACE][h], h)))
        self.armoury: int = bd.FEATURE["ARMOURY"]
        #: where the transporter waits while the Queen lives: the central corridor crossing
        #: of the base map, (13,10) (the landing pad on a map without that space)
        self.tr_target: int = bd.INDEX.get((13, 10), bd.PAD_SPACE)
        #: Spaces from which ALIENS come: within this walking distance of a hatching space a
        #: task is "in the nest" and costs more (plans prefer the easiest open missions).
        self.nest_cost: tuple[int, ...] = tuple(
            max(0, 6 - min(dist[h][s] for h in bd.HATCHES)) for s in range(n))
        #: Spaces next to a duct or grate (an ALIEN there attacks with double strength).
        self.next_to_duct: tuple[bool, ...] = tuple(
            any(bd.IS_DUCT_OR_GRATE[v] for v in bd.NBR[s]) for s in range(n))
        self.rows: dict[tuple[tuple[int, ...], frozenset[int]], tuple[int, ...]] = {}
        self.stores: dict[int, tuple[int, ...]] = {}


_PTABLES: Final[dict[str, PolicyTables]] = {}


def policy_tables(map_file: str) -> PolicyTables:
    """The :class:`PolicyTables` of a map file ('' = the assumed base map)."""
    t = _PTABLES.get(map_file)
    if t is None:
        t = _PTABLES[map_file] = PolicyTables(map_file)
    return t


def _stores_of(t: PolicyTables, item: int) -> tuple[int, ...]:
    if item >= CLIP0:
        return t.clip_stores
    st = t.stores.get(item)
    if st is None:
        st = t.stores[item] = tuple(s for s, items in t.store_items.items() if item in items)
    return st


# == expedition ====================================================================================
#: Arming wishes at the armoury: character -> (weapon wanted, weapon it replaces).
_UPGRADE: Final = {RIPLEY: (FLAMER, PISTOL), GORMAN: (CARBINE, PISTOL)}


def _queen_table(s: float) -> tuple[float, ...]:
    """F[p]: chance the Queen dies with p points held after a task, fighting optimally, when
    each further task is completed with probability ``s`` (value iteration)."""
    f = [0.0] * 8
    for _ in range(200):
        for p in range(7, 0, -1):
            win = min(p, 6) / 6
            fight = win + (1 - win) * s * f[1]
            wait = s * f[p + 1] if p < 7 else fight
            f[p] = max(fight, wait)
    return tuple(f)
