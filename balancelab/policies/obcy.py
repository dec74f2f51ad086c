"""Scripted players of Obcy: two expedition plans and two ALIENS plans.

Expedition (seat 0):
    ``dash``   every character works on its own task in parallel (the cheapest open missions
               first: fetch distance + walk + a cost for goals near the hatching spaces);
               spare characters escort a worker. Parameter ``block`` (default 2): that
               many of the strongest armed characters *hold* hatching spaces, nearest the
               ship first (H5 west duct, H1 Colony Hab), ending every Expedition phase on
               them: by design ruling 3(c)11 no ALIEN hatches on a space holding a
               character, so the ALIENS must hatch farther from the missions; at least
               ``workers`` characters stay on tasks. (Default: the strongest; its numbers are
               the tuned set, ``dash:preset=classic`` the hand-set ones.)
    ``squad``  one worker (preferably unarmed Bishop) carries out the current task while the
               armed characters arm up at the armoury/ammunition stores (``arm``) and escort
               it, never leading it by more than ``spread`` spaces; the airlock tasks are side
               jobs for a spare character.
    Both: armed characters reload where clips are to be had (drop an empty clip, take a full
    one), plan "move, then shoot" from range (a non-adjacent shooter ignores unfavourable
    results), value a shot by its chance to kill or drive off the ALIEN (COMBAT RESULT table,
    duct x2) against the ammunition it costs, throw grenades at two or more ALIENS clear of
    characters, avoid spaces the ALIENS can reach (doubly next to ducts and grates), let Bishop
    heal, drive the transporter for M08 and back to the ship, and decide the Variant 1 Queen
    fight by the odds (dynamic programme over points, with the chance of completing another
    task estimated from the expedition's remaining strength).
ALIENS (seat 1):
    ``hunter`` hatch strong ALIENS on the hatching space nearest the expedition, close in on the
               nearest character, and only step adjacent when the gang-up is strong enough.
    ``ambush`` keep to the ventilation ducts (strength x2), merge by metamorphosis, strike from
               the ducts; hatch preferably into the duct hatching space.
    Both: the ALIENS move oldest first, except that an ALIEN standing in front of the next
    one (nearer the characters, within its reach) moves first to clear the way (9.2 sets no
    order).
    (Default: ``hunter``.)

The ALIENS player never sees open mission cards (its view hides them); policies read the view
only and use the public map tables of :mod:`balancelab.simulate.obcy.board`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from balancelab.policies.base import Policy, RngSource, register
from balancelab.simulate.core import Game, View
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER, combat_result
from balancelab.simulate.obcy.rules import (
    BISHOP,
    CARBINE,
    CHARGE,
    CLIP0,
    COMP,
    DISK,
    EMPTY,
    FLAMER,
    FUEL,
    GORMAN,
    HICKS,
    PISTOL,
    RIPLEY,
    SUIT,
    WEAPON_USE,
    WEAPONS,
)
from balancelab.simulate.options import RuleOptions


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


def _dist(t: PolicyTables, view: Any, a: int, b: int) -> int:
    if view.collapsed:
        return int(t.bd.dist_from(a, view.collapsed)[b])
    return t.dist[a][b]


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
    first: tuple[int, ...] = t.bd.dist_from(goals[0], collapsed) if collapsed else t.dist[goals[0]]
    if len(goals) == 1:
        return first
    out = list(first)
    n = len(out)
    for g in goals[1:]:
        row: tuple[int, ...] = t.bd.dist_from(g, collapsed) if collapsed else t.dist[g]
        for i in range(n):
            d: int = row[i]
            if d < out[i]:
                out[i] = d
    return tuple(out)


def _nearest(t: PolicyTables, view: Any, src: int, targets: Sequence[int]) -> tuple[int, int]:
    best, bd = -1, 999
    d: tuple[int, ...] = t.bd.dist_from(src, view.collapsed) if view.collapsed else t.dist[src]
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


class ExpeditionPolicy(Policy):
    """Scripted expedition; ``plan`` = squad or dash (see module docstring).

    Parameters: ``arm`` (1: the fighters visit the armoury first), ``spread`` (how far the
    escorts may lead the worker), ``danger`` (weight of ALIEN reach in movement),
    ``shot_min`` (least value of a shot worth its ammunition), ``queen_s`` (if > 0, a fixed
    chance of completing one more task for the Variant 1 decision; 0 = estimate it),
    ``block``/``workers`` (see ``dash``), ``reenter_group`` (re-entering from the passage
    track with no airlock mission to complete: weight of the distance to the other
    characters against the ALIENS' threat at the airlock).
    """

    name = "squad"
    params = {"plan": "squad", "arm": 1, "spread": 3, "danger": 1.0, "shot_min": 0.1,
              "queen_s": 0.0, "block": 0, "workers": 1, "reenter_group": 0.3}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "arm": (0, 1), "spread": (1, 6), "danger": (0.0, 4.0), "shot_min": (0.0, 1.0),
        "queen_s": (0.0, 1.0), "block": (0, 3), "workers": (1, 4),
        "reenter_group": (0.0, 3.0)}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.t: PolicyTables = policy_tables(getattr(options, "map_file", ""))
        self.plan = str(self.cfg["plan"])
        self.arm = int(self.cfg["arm"])
        self.spread = int(self.cfg["spread"])
        self.wdanger = float(self.cfg["danger"])
        self.shot_min = float(self.cfg["shot_min"])
        self.queen_s = float(self.cfg["queen_s"])
        self.block = int(self.cfg["block"])
        self.workers_min = int(self.cfg["workers"])
        self.reenter_group = float(self.cfg["reenter_group"])
        o: Any = self.options
        self.off: int = o.crt_offset
        self.dmul: int = o.duct_multiplier
        bd: Any = self.t.bd
        self.duct: tuple[bool, ...] = bd.IS_DUCT_OR_GRATE if o.grate_is_duct else bd.IS_DUCT_ONLY
        self.wst: dict[int, tuple[int, int]] = o.weapon_stats()
        self.full: int = CLIP0 + o.clip_charges
        self.tasks: dict[int, tuple[Any, ...]] = {}
        self.plan_key: Any = None
        self.idle: set[int] = set()
        self.armed_up: set[int] = set()
        self.worker = -1
        self._dkey: Any = None
        self._dmap: dict[int, float] = {}
        self._rmemo: dict[tuple[int, tuple[int, ...]], int] = {}  # (c, pockets) -> range
        # combat tables: (attack) -> per die (side, loss, retreat); shared read-only
        self._crt = _crt_table(self.off)
        self._svmemo = _SV_MEMO.setdefault(self.off, {})  # _shot_value's arguments -> value

    # -- dispatch ------------------------------------------------------------------------------
    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: Any = view
        d = v.decision
        if d == A.D_CHAR:
            chosen = self._char(v, legal)
            if chosen[0] == A.END_ACT and v.options.airlock_stand_exits:
                return self._off_the_airlock(v, legal) or chosen
            return chosen
        if d == A.D_PICK:
            return self._pick(v, legal)
        if d == A.D_QUEEN:
            return self._queen(v)
        if d == A.D_RETREAT:
            return self._retreat(v, legal)
        if d == A.D_TRANSPORT:
            return self._transport(v, legal)
        return legal[0]

    # -- Variant 1: the Queen fight by the odds ------------------------------------------------
    def _queen(self, v: Any) -> Any:
        s = self.queen_s
        if s <= 0:
            alive = [c for c in range(6) if v.c_state[c] != A.DEAD]
            health = sum(v.c_str[c] for c in alive) / sum(v.c_max)
            s = 0.35 + 0.55 * health
            if v.deck_left == 0 and not v.open_missions:
                s = 0.0
        f = _queen_table(s)
        p = min(v.points, 7)
        win = min(p, 6) / 6
        fight = win + (1 - win) * s * f[1]
        wait = s * f[p + 1] if p < 7 else 0.0
        return (A.QUEEN,) if fight >= wait else (A.NO_QUEEN,)

    def _retreat(self, v: Any, legal: Sequence[Any]) -> Any:
        return max(legal, key=lambda a: self._safety(v, a[1]))

    def _safety(self, v: Any, s: int) -> float:
        return -self._danger(v, s)

    # -- tasks ---------------------------------------------------------------------------------
    def _alive(self, v: Any) -> list[int]:
        return [c for c in range(6) if v.c_state[c] != A.DEAD]

    def _todo(self, v: Any) -> list[tuple[Any, ...]]:
        todo: list[tuple[Any, ...]] = []
        for m in v.open_missions:
            kind, p = self.t.missions[m]
            if kind == "component":
                todo.append(("deliver", COMP, (p,), m))
            elif kind == "read":
                todo.append(("read", DISK, (p,), m))
            elif kind == "bishop":
                todo.append(("deliver", COMP, (p,), m, BISHOP))
            elif kind == "room":
                todo.append(("go", -1, self.t.room_c, m, RIPLEY))
                todo.append(("go", -1, self.t.room_c, m, HICKS))
            elif kind == "fuel_drop":
                todo.append(("drop", FUEL, (p,), m))
            elif kind == "collapse":
                spots = tuple(n for t in sorted(p) if t not in v.collapsed for n in self.t.nbr[t]
                              if self.t.kind[n] != B.AIRLOCK)
                todo.append(("charge", CHARGE, spots, m))
            elif kind == "airlocks":
                out_no, _ = p
                todo.append(("airlock", SUIT, (self.t.airlocks[out_no - 1],), m))
            elif kind == "transporter":
                # a fuel can to fuel it; also to reach it on the landing pad, which only a
                # character starting the transporter may enter while the Queen lives (4.1)
                fuel = v.tr_fuel == 0 or v.tr_pos == self.t.pad
                todo.append(("transport", FUEL if fuel else -1, (v.tr_pos,), m))
            elif kind == "clear":
                todo.append(("go", -1, (p,), m))
        if len(v.open_missions) < v.options.max_open_missions and v.deck_left:
            todo.append(("read", DISK, (self.t.computers[0], self.t.computers[1]), -1))
        return todo

    def _plan_tasks(self, v: Any) -> None:
        """Assign each character a task: (kind, item, goal spaces, mission)."""
        self.tasks = {}
        self.idle = set()
        self.worker = -1
        alive = [c for c in self._alive(v) if v.c_state[c] in (A.ON_BOARD, A.ABOARD)]
        if not alive:
            return
        if not v.queen_alive:
            for c in alive:
                self.tasks[c] = ("go", -1, (self.t.pad,), -1)
            return
        todo = self._todo(v)
        free = list(alive)
        for t in [t for t in todo if len(t) > 4]:  # tasks naming a character
            if t[4] in free:
                self.tasks[t[4]] = t[:4]
                free.remove(t[4])
        todo = [t for t in todo if len(t) == 4]
        if self.block:
            self._plan_holders(v, free)
        if self.plan == "squad":
            # side jobs for a lone character: the airlock tasks (out of the ALIENS' reach)
            for t in [t for t in todo if t[0] == "airlock"]:
                side = [c for c in free if not self._armed(v, c) or c == 2]
                if side and len(free) > 3:
                    c = min(side, key=lambda c: self._task_cost(v, c, self._pos(v, c), t))
                    self.tasks[c] = t
                    free.remove(c)
                    todo.remove(t)
            order = sorted(free, key=lambda c: (self._armed(v, c), len(WEAPON_USE[c]),
                                                -v.c_str[c]))
            if todo and order:
                w = order[0]
                t = min(todo, key=lambda t: self._task_cost(v, w, self._pos(v, w), t))
                self.tasks[w] = t
                self.worker = w
                order = order[1:]
            lead = self.worker
            for c in order:
                self.tasks[c] = ("escort", -1, (lead,), -1)
        else:
            costs: dict[tuple[int, tuple[Any, ...]], int] = {}  # (c, task) -> cost
            while todo and free:
                best = None
                for c in free:
                    pos = self._pos(v, c)
                    for t in todo:
                        key = (c, t)
                        cost = costs.get(key)
                        if cost is None:
                            cost = costs[key] = self._task_cost(v, c, pos, t)
                        if best is None or cost < best[0]:
                            best = (cost, c, t)
                assert best is not None
                _, c, t = best
                self.tasks[c] = t
                free.remove(c)
                todo.remove(t)
            workers = [c for c in self.tasks if self.tasks[c][0] != "escort"]
            for c in free:
                if workers:
                    self.tasks[c] = ("escort", -1, (workers[c % len(workers)],), -1)

    def _plan_holders(self, v: Any, free: list[int]) -> None:
        """Design 3(c)11: no ALIEN hatches on a space holding a character. Holders end every
        Expedition phase on a hatching space (the nearest to the ship first), so the ALIENS
        must hatch farther away; the strongest armed characters hold."""
        cands = sorted(free, key=lambda c: (not self._armed(v, c), -v.c_str[c]))
        cands = cands[: max(0, min(self.block, len(free) - self.workers_min))]
        for h in self.t.hold_order:
            if not cands:
                break
            c = min(cands, key=lambda c: _goal_row(self.t, (h,), v.collapsed)[self._pos(v, c)])
            self.tasks[c] = ("hold", -1, (h,), -1)
            cands.remove(c)
            free.remove(c)

    def _pos(self, v: Any, c: int) -> int:
        return v.c_pos[c] if v.c_state[c] == A.ON_BOARD else v.tr_pos

    def _task_cost(self, v: Any, c: int, pos: int, t: tuple[Any, ...]) -> int:
        kind, item, goals, _ = t[:4]
        if item >= 0 and item not in v.c_pk[c]:
            s, d1 = self._item_source(v, item, pos)
            g, d2 = _nearest(self.t, v, s, goals) if s >= 0 else (-1, 99)
        else:
            d1 = 0
            g, d2 = _nearest(self.t, v, pos, goals)
        extra = 3 * self.t.nest_cost[g] if g >= 0 else 0
        if kind == "transport":
            extra += 8
        return d1 + d2 + extra

    def _item_source(self, v: Any, item: int, pos: int) -> tuple[int, int]:
        srcs = [s for s in _stores_of(self.t, item) if item == COMP or v.supply[item] > 0]
        srcs += [p for p, items in v.floor if item in items]
        if not srcs:
            return -1, 99
        return _nearest(self.t, v, pos, srcs)

    def _waypoint(self, v: Any, c: int) -> tuple[int, ...]:
        """Where character c is heading: its task item's source, else the task's goals."""
        t = self.tasks.get(c)
        if t is None:
            return ()
        kind, item, goals = t[0], t[1], t[2]
        if (self.arm and v.queen_alive and c not in self.armed_up and self._armed(v, c)
                and kind != "airlock"):
            up = _UPGRADE.get(c)
            if up is not None and v.supply[up[0]] > 0 and up[0] not in v.c_pk[c]:
                return (self.t.armoury,)
            return self.t.clip_stores[::2]
        if kind == "escort":
            w = goals[0]
            if w < 0 or v.c_state[w] == A.DEAD:
                return self._squad_goal(v)
            return self._waypoint(v, w) or (self._pos(v, w),)
        if item >= 0 and item not in v.c_pk[c]:
            src, _ = self._item_source(v, item, self._pos(v, c))
            return (src,) if src >= 0 else goals
        if kind == "transport":
            # 4.2: a rider goes where the vehicle goes; one on foot walks to the vehicle (to
            # fuel it, or to board it once fuelled: it moves only with riders aboard)
            tt = self.t.tr_target
            aboard = v.c_state[c] == A.ABOARD
            return (tt,) if aboard and v.tr_fuel > 0 and v.tr_pos != tt else (v.tr_pos,)
        return goals

    def _squad_goal(self, v: Any) -> tuple[int, ...]:
        if not v.queen_alive:
            return (self.t.pad,)
        if self.worker >= 0 and v.c_state[self.worker] != A.DEAD:
            return self._waypoint(v, self.worker)
        return (self.t.armoury,) if self.arm else self.t.computers[:2]

    # -- which character acts next -----------------------------------------------------------
    def _pick(self, v: Any, legal: Sequence[Any]) -> Any:
        key = (v.round, v.open_missions, v.points, v.c_state, v.queen_alive, v.tr_fuel > 0)
        if key != self.plan_key:
            self.plan_key = key
            self._plan_tasks(v)
        cands = [a[1] for a in legal if a[0] == A.ACT and a[1] not in self.idle]
        if not cands and legal[-1][0] != A.END_PHASE:  # riders of an empty transporter
            cands = [a[1] for a in legal if a[0] == A.ACT]  # must leave it (4.2)
        if not cands:
            return (A.END_PHASE,)
        # riders stay aboard while the transporter still has to get somewhere
        if v.tr_fuel > 0:
            keep = [c for c in cands if v.c_state[c] == A.ABOARD and self._ride(v, c)]
            cands = [c for c in cands if c not in keep]
            if not cands:
                return (A.END_PHASE,)

        block = self._blockers(v) if v.a_pos else set()
        # the first candidate of the least priority (as min() with a key would choose)
        best, b0, b1 = -1, 0, 0
        for c in cands:
            p0, p1 = self._prio(v, c, block)
            if best < 0 or p0 < b0 or (p0 == b0 and p1 < b1):
                best, b0, b1 = c, p0, p1
        return (A.ACT, best)

    def _prio(self, v: Any, c: int, block: set[int]) -> tuple[int, int]:
        """Who acts first (least first): a character that can shoot now, then (squad) the
        armed ones, or (dash) the nearest to an ALIEN."""
        pos = self._pos(v, c)
        armed = self._armed(v, c)
        if armed and self._can_shoot_now(v, c, pos, block):
            return (0, 0)
        if self.plan == "squad":
            if c == self.worker:
                return (3, 0)
            wp = self._waypoint(v, c)
            return (1 if armed else 2, self._gd(v, pos, wp) if wp else 0)
        near = 99
        dpos = self.t.dist[pos]
        for p in v.a_pos:
            d: int = dpos[p]
            if d < near:
                near = d
        return (1, near)

    def _ride(self, v: Any, c: int) -> bool:
        t = self.tasks.get(c)
        if not v.tr_moved:  # it could not move this phase: get out and walk
            return False
        if not v.queen_alive:
            return v.tr_pos != self.t.pad
        return t is not None and t[0] == "transport" and v.tr_pos != self.t.tr_target

    def _can_shoot_now(self, v: Any, c: int, pos: int, block: set[int] | None = None) -> bool:
        if not v.a_pos or v.c_state[c] != A.ON_BOARD:
            return False
        rng_ = self._range(v, c)
        if rng_ <= 0:
            return False
        los = self.t.los[pos]
        if block is None:
            block = self._blockers(v)
        for p in v.a_pos:
            inter = los.get(p)  # a line of n spaces has n - 1 between its ends
            if inter is not None and len(inter) < rng_ and block.isdisjoint(inter):
                return True
        return False

    def _blockers(self, v: Any) -> set[int]:
        block = {v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD}
        block.update(v.a_pos)
        block.update(v.collapsed)
        return block

    def _range(self, v: Any, c: int) -> int:
        pk = v.c_pk[c]
        key = (c, pk)
        r = self._rmemo.get(key)
        if r is None:
            r = 0
            if any(it > CLIP0 for it in pk):
                r = max((self.wst[w][0] for w in pk if w in WEAPONS and w in WEAPON_USE[c]),
                        default=0)
            self._rmemo[key] = r
        return r

    def _armed(self, v: Any, c: int) -> bool:
        return not _GUNS[c].isdisjoint(v.c_pk[c])

    # -- the active character ----------------------------------------------------------------
    def _char(self, v: Any, legal: Sequence[Any]) -> Any:
        c = v.active
        by: dict[int, list[Any]] = {}  # opcode -> its actions, in the engine's order
        for a in legal:
            op: int = a[0]
            same = by.get(op)
            if same is None:
                by[op] = [a]
            else:
                same.append(a)
        if A.REENTER in by:
            return self._reenter(v, c, by[A.REENTER])
        pos = v.c_pos[c]
        task = self.tasks.get(c)
        if task is not None and task[0] == "hold":
            return self._hold(v, c, pos, task[2][0], by)
        # 1. shoot threats (never before the fire is worth it). A last survivor walks first
        # (see _pursues).
        pursue = task is not None and self._pursues(v, c, pos)
        if not pursue:
            shot = self._best_shot(v, c, by)
            if shot is not None:
                return shot
        if task is None:
            self.idle.add(c)
            return (A.END_ACT,)
        kind, item, goals, m = task
        pk = v.c_pk[c]
        # 2. heal (Bishop)
        if A.HEAL in by:
            return min(by[A.HEAL], key=lambda a: v.c_str[a[1]] - v.c_max[a[1]])
        # 3. arm up and reload at the armoury / ammunition stores
        gear = self._gear(v, c, pos, pk, by)
        if gear is not None:
            return gear
        # 4. task items
        need = item if item >= 0 and item not in pk else -1
        if kind == "transport" and v.tr_fuel > 0 and pos == v.tr_pos:
            need = -1  # fuelled (maybe a moment ago, by this character): board it (4.2)
        if need >= 0 and A.PICK in by:
            for a in by[A.PICK]:
                if a[1] == need:
                    return a
        if need >= 0 and EMPTY not in pk and A.DROP in by and self._at_source(v, need, pos):
            return self._drop_least(v, c, by[A.DROP])
        # 5. at the goal: do the task
        if need < 0 and kind != "escort":
            if kind == "read" and A.READ in by:
                return (A.READ,)
            if kind == "drop" and pos in goals and A.DROP in by:
                return (A.DROP, item)
            if kind == "transport" and pos == v.tr_pos:
                if v.tr_fuel == 0 and FUEL in pk and A.DROP in by:
                    return (A.DROP, FUEL)
                if A.BOARD in by and v.tr_pos != self.t.tr_target:
                    return (A.BOARD,)
            if kind == "charge" and A.CHARGE in by and m >= 0:
                for a in by[A.CHARGE]:
                    if a[1] in self.t.missions[m][1]:
                        return a
        # 6. move and shoot: a firing position on the way
        if (not pursue and A.MOVE in by and v.a_pos and self._range(v, c)
                and v.c_ap[c] >= 2):
            fp = self._fire_position(v, c, by[A.MOVE], kind)
            if fp is not None:
                return fp
        # 7. move
        if A.MOVE in by:
            mv = self._move_char(v, c, kind, by[A.MOVE])
            if mv is not None:
                return mv
        if pursue:  # as far as it gets this phase: now the shots
            shot = self._best_shot(v, c, by)
            if shot is not None:
                return shot
        if A.BOARD in by and not v.queen_alive and v.tr_fuel > 0:
            return (A.BOARD,)
        return (A.END_ACT,)

    def _pursues(self, v: Any, c: int, pos: int) -> bool:
        """A last survivor pursues the win before it shoots: it carries out its task (7.),
        walks toward it, or, the Queen dead, back to the ship (8.), and fires only from
        where that leaves it. Firing first would end its movement for the phase (3.: "after
        a character has fired ... it may no longer move"), and no one else is left to
        complete the tasks: a survivor that shoots every ALIEN coming at it where clips are
        to be had wins nothing and keeps the game going to the round cap. An ALIEN already
        next to it is shot first (it strikes in the ALIENS' phase wherever the survivor
        stops, 10.)."""
        for k in range(6):
            if k != c and v.c_state[k] != A.DEAD:
                return False
        return pos not in self._adjacent_aliens(v)

    def _adjacent_aliens(self, v: Any) -> frozenset[int]:
        """The spaces next to an ALIEN."""
        return frozenset(n for p in v.a_pos for n in self.t.nbr[p])

    def _hold(self, v: Any, c: int, pos: int, h: int, by: dict[int, list[Any]]) -> Any:
        """A holder: reach its hatching space (only the space at the end of the phase
        counts), reload on the way when a clip store is in reach, then shoot from there."""
        moves = by.get(A.MOVE, ())
        if pos != h:
            gear = self._gear(v, c, pos, v.c_pk[c], by)
            if gear is not None:
                return gear
            for a in moves:
                if a[1] == h:
                    return a
        shot = self._best_shot(v, c, by)
        if shot is not None:
            return shot
        if pos == h:
            return (A.END_ACT,)
        if moves:
            mv = self._move(v, c, moves, (h,), keep=0)
            if mv is not None:
                return mv
        return (A.END_ACT,)

    def _gear(self, v: Any, c: int, pos: int, pk: Sequence[int], by: dict[int, list[Any]]) -> Any:
        """Arm up (better weapon, a second clip) and reload where clips are to be had."""
        if pos not in self.t.clip_set or not self._armed(v, c):
            return None
        up = _UPGRADE.get(c)
        if pos == self.t.armoury and up is not None and self.arm:
            new, old = up
            if new not in pk and old in pk:
                if A.PICK in by and (A.PICK, new) in by[A.PICK]:
                    return (A.PICK, new)
            elif new in pk and old in pk and A.DROP in by:
                return (A.DROP, old)
        if pos == self.t.armoury or up is None or v.supply[up[0]] == 0 or up[0] in pk:
            self.armed_up.add(c)
        if A.DROP in by and CLIP0 in pk:
            return (A.DROP, CLIP0)  # an empty clip
        charges = sum(it - CLIP0 for it in pk if it >= CLIP0)
        if EMPTY in pk and charges < 2 * self.full - CLIP0 and A.PICK in by:
            if (A.PICK, self.full) in by[A.PICK]:
                return (A.PICK, self.full)
        if EMPTY not in pk and A.DROP in by:
            low = min((it for it in pk if it >= CLIP0), default=99)
            if low <= CLIP0 + 1 and sum(1 for it in pk if it >= CLIP0) >= 1:
                return (A.DROP, low)
        return None

    def _move_char(self, v: Any, c: int, kind: str, moves: Sequence[Any]) -> Any:
        wp = self._waypoint(v, c)
        if not wp:
            return None
        if wp[0] in self.t.clip_set and c not in self.armed_up:
            return self._move(v, c, moves, wp, keep=0)
        if kind == "escort":
            lead = -1
            if self.plan == "squad":
                w = self.worker
                if w >= 0 and v.c_state[w] != A.DEAD:
                    # stay within `spread` ahead of the worker
                    lead = self._gd(v, self._pos(v, w), wp) - self.spread
            return self._move(v, c, moves, wp, keep=1, lead=lead, floor_=True)
        lead = -1
        if self.plan == "squad" and v.queen_alive:
            pos = v.c_pos[c]
            esc = [e for e in range(6) if e != c and v.c_state[e] == A.ON_BOARD
                   and self._armed(v, e) and self.t.dist[pos][v.c_pos[e]] <= 8]
            if esc:
                lead = min(self._gd(v, v.c_pos[e], wp) for e in esc) - 2
        return self._move(v, c, moves, wp, keep=0, lead=lead)

    def _fire_position(self, v: Any, c: int, moves: Sequence[Any], kind: str) -> Any:
        """The best (move, then shoot) plan: a destination from which the shots left are
        worth most, traded against progress towards the waypoint and danger; None if
        standing and shooting (or just walking) is better."""
        pos = v.c_pos[c]
        ap = v.c_ap[c]
        pk = v.c_pk[c]
        charges = sum(it - CLIP0 for it in pk if it >= CLIP0)
        rng_ = self._range(v, c)
        near = [i for i, p in enumerate(v.a_pos) if self.t.dist[p][pos] <= ap + rng_ + 1]
        if not near or not charges:
            return None
        weapons = [w for w in pk if w in WEAPONS and w in WEAPON_USE[c]]
        block = self._blockers(v)
        block.discard(pos)
        wp = self._waypoint(v, c)
        row = _goal_row(self.t, wp, v.collapsed) if wp else None
        here = row[pos] if row else 0
        chars = [v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD and k != c]
        wd = self.wdanger * 0.05
        strength = v.c_str[c]
        cost_shot = 0.03 if min(self.t.dist[pos][s] for s in self.t.clip_stores) <= 8 else 0.06
        best, bval = None, -1e9
        dpos = self.t.dist[pos]
        cands = [(pos, 0)] + [(a[1], dpos[a[1]]) for a in moves]
        # per nearby ALIEN: space, its distances, the nearest other character, strength,
        # effective strength (duct x2)
        aliens = []
        for i in near:
            p = v.a_pos[i]
            dp = self.t.dist[p]
            st = v.a_str[i]
            aliens.append((p, dp, min([dp[q] for q in chars]) if chars else None, st,
                           st * (self.dmul if self.duct[p] else 1)))
        for s, cost in cands:
            left = min(ap - cost, charges)
            if left < 1 or self.t.kind[s] >= 5:
                continue
            los = self.t.los[s]
            nbs = self.t.nbr_set[s]
            sv = 0.0
            for p, dp, dc, st, eff in aliens:
                if p == s:
                    continue
                inter = los.get(p)
                if inter is None or not block.isdisjoint(inter):
                    continue
                dn = dp[s] if dc is None or dp[s] < dc else dc
                th = 1.0 if dn <= 5 else 0.5
                adj = p in nbs
                rng_n = len(inter)
                for w in weapons:
                    r, fp = self.wst[w]
                    if rng_n >= r:
                        continue
                    for n in range(1, left + 1):
                        val = self._shot_value(strength + fp * n - eff, st, adj) * th
                        val -= cost_shot * n
                        if val > sv:
                            sv = val
            if sv <= self.shot_min:
                continue
            prog = (row[s] - here) if row else 0
            score = sv - 0.04 * prog - wd * self._danger(v, s) - 0.01 * cost
            if score > bval:
                best, bval = s, score
        if best is None or best == pos:
            return None
        return (A.MOVE, best)

    def _gd(self, v: Any, s: int, goals: tuple[int, ...]) -> int:
        return _goal_row(self.t, goals, v.collapsed)[s]

    def _at_source(self, v: Any, item: int, pos: int) -> bool:
        if pos in _stores_of(self.t, item):
            return True
        return any(p == pos and item in items for p, items in v.floor)

    def _drop_least(self, v: Any, c: int, drops: Sequence[Any]) -> Any:
        def useless(a: Any) -> int:
            it = a[1]
            if it == CLIP0:
                return 0
            if it in WEAPONS and it not in WEAPON_USE[c]:
                return 1
            if it in (FUEL, SUIT, CHARGE):
                return 2
            if it >= CLIP0:
                return 5 if sum(1 for x in v.c_pk[c] if x >= CLIP0) > 1 else 7
            if it in WEAPONS:
                return 6
            return 3

        return min(drops, key=useless)

    def _off_the_airlock(self, v: Any, legal: Sequence[Any]) -> Any:
        """Under ``airlock_stand_exits`` (rule 4.3 read literally) a character that would end
        its action on an airlock it re-entered through would go out again (and, re-entering,
        loop to the round cap): the step off it to the space the ALIENS threaten least, or
        None when it cannot step (then it goes out, as the rule says)."""
        c = v.active
        if v.c_state[c] != A.ON_BOARD or self.t.kind[v.c_pos[c]] != B.AIRLOCK:
            return None
        steps = [a for a in legal if a[0] == A.MOVE and self.t.kind[a[1]] != B.AIRLOCK]
        if not steps:
            return None
        return min(steps, key=lambda a: self._danger(v, a[1]))

    def _reenter(self, v: Any, c: int, legal: Sequence[Any]) -> Any:
        """Leave the passage track (4.3: through any airlock): through the airlock an open
        airlock mission names for the airlock this character went out by (the mission is
        then complete), else the airlock where the ALIENS threaten least, nearest the other
        characters (``reenter_group`` per space).

        The task plan cannot tell: a character on the track has no task (it is off the
        board), so this reads the open missions and ``c_exit`` (public) directly."""
        ex = v.c_exit[c]
        for m in v.open_missions:
            kind, p = self.t.missions[m]
            if kind == "airlocks" and p[0] == ex:
                for a in legal:
                    if a[1] == p[1]:
                        return a
        others = [v.c_pos[o] for o in range(6) if o != c and v.c_state[o] == A.ON_BOARD]
        best = legal[0]
        best_sc = 1e18
        for a in legal:
            sp = self.t.airlocks[a[1] - 1]
            sc = self._danger(v, sp)
            if others:
                sc += self.reenter_group * min(self.t.dist[sp][o] for o in others)
            if sc < best_sc:
                best, best_sc = a, sc
        return best

    def _danger(self, v: Any, s: int) -> float:
        d = self._danger_map(v).get(s)
        if d is None:
            d = self._dmap[s] = self._danger_calc(v, s)
        return d

    def _danger_map(self, v: Any) -> dict[int, float]:
        """The memo of :meth:`_danger_calc` for the current ALIENS (cleared when they move)."""
        key = (v.a_pos, v.a_str, v.hatching_on)
        if key != self._dkey:
            self._dkey = key
            self._dmap = {}
        return self._dmap

    def _danger_calc(self, v: Any, s: int) -> float:
        tot = 0.0
        mul = self.dmul if self.t.next_to_duct[s] else 1
        ds = self.t.dist[s]  # the distance table is symmetric
        a_pos = v.a_pos
        a_str = v.a_str
        for j in range(len(a_pos)):
            p: int = a_pos[j]
            st: int = a_str[j]
            d = ds[p]
            if d <= 5:
                tot += st * mul * (1.5 if d <= 1 else 1)
        if v.hatching_on:
            tot += self.t.hatch_near[s]
        return tot

    def _move(
        self, v: Any, c: int, moves: Sequence[Any], goals: tuple[int, ...], keep: int,
        lead: int = -1, floor_: bool = False,
    ) -> Any:
        pos = v.c_pos[c]
        row = _goal_row(self.t, goals, v.collapsed)
        here = row[pos]
        if keep and here <= keep:
            return None
        wd = self.wdanger * (0.5 if self._armed(v, c) else 1.0) * 0.1
        avoid = set(goals) if keep else set()
        mine = self.tasks.get(c, ("",))[0]
        best, bscore = None, 1e9
        dmap = self._danger_map(v)
        kind = self.t.kind
        airlock = B.AIRLOCK
        for a in moves:
            s: int = a[1]
            g = row[s]
            if g >= here or s in avoid:
                continue
            if lead >= 0 and g < lead:
                continue
            if kind[s] == airlock and not (mine == "airlock" and s in goals):
                continue
            d = dmap.get(s)
            if d is None:
                d = dmap[s] = self._danger_calc(v, s)
            score = (g - keep if g > keep else 0) + wd * d
            if score < bscore:
                best, bscore = a, score
        return best

    def _shot_value(self, att: int, strength: int, adjacent: bool) -> float:
        key = (att, strength, adjacent)
        val = self._svmemo.get(key)
        if val is None:
            val = self._svmemo[key] = self._shot_value_calc(att, strength, adjacent)
        return val

    def _shot_value_calc(self, att: int, strength: int, adjacent: bool) -> float:
        val = 0.0
        for side, loss, retreat in self._crt[max(-20, min(39, att))]:
            if side == DEFENDER:
                if loss >= strength:
                    val += 1.0
                else:
                    val += 0.35 * loss / strength + (0.3 if retreat else 0.0)
            elif side == ATTACKER and adjacent:
                val -= 0.25 * loss
        return val / 6

    def _best_shot(self, v: Any, c: int, by: dict[int, list[Any]]) -> Any:
        shots = by.get(A.SHOOT, [])
        grenades = by.get(A.GRENADE, [])
        if not shots and not grenades:
            return None
        pos = v.c_pos[c]
        strength = v.c_str[c]
        idx = {aid: i for i, aid in enumerate(v.a_id)}
        chars = [v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD]
        open_kinds = {self.t.missions[m][0] for m in v.open_missions}
        pk = v.c_pk[c]
        charges = sum(it - CLIP0 for it in pk if it >= CLIP0)
        near_ammo = min(self.t.dist[pos][s] for s in self.t.clip_stores) <= 8
        cost = 0.03 if near_ammo else 0.06
        best, bval = None, self.shot_min
        threat_of: dict[int, float] = {}
        for a in shots:
            _, aid, w, n = a
            i = idx[aid]
            ap_ = v.a_pos[i]
            th = threat_of.get(aid)
            if th is None:
                dn = min(self.t.dist[ap_][p] for p in chars)
                th = threat_of[aid] = 1.0 if dn <= 5 else (0.6 if dn <= 9 else 0.25)
            s_eff = v.a_str[i] * (self.dmul if self.duct[ap_] else 1)
            att = strength + self.wst[w][1] * n - s_eff
            val = self._shot_value(att, v.a_str[i], ap_ in self.t.nbr_set[pos]) * th
            if "kill_duct_flamer" in open_kinds and w == FLAMER and self.duct[ap_]:
                val += 0.3 * self._shot_value(att, v.a_str[i], False)
            if "kill_hatch" in open_kinds and ap_ in self.t.hatch_set:
                val += 0.3 * self._shot_value(att, v.a_str[i], False)
            val -= cost * n
            if charges - n < 2 and not near_ammo:
                val -= 0.05
            if val > bval:
                best, bval = a, val
        for a in grenades:
            area = {a[1], a[2], a[3]}
            if any(p in area for p in chars):
                continue
            ks = [v.a_str[i] for i, p in enumerate(v.a_pos) if p in area]
            val = 0.3 * len(ks) + 0.05 * sum(ks) - 0.35
            if len(ks) >= 2 and "grenade" in open_kinds:
                val += 0.5
            if val > bval:
                best, bval = a, val
        return best

    # -- transporter ---------------------------------------------------------------------------
    def _transport(self, v: Any, legal: Sequence[Any]) -> Any:
        moves = [a for a in legal if a[0] == A.T_MOVE]
        if not moves:
            return (A.T_STAY,)
        target = self.t.pad if not v.queen_alive else self.t.tr_target
        for a in moves:
            if a[1] == target:
                return a
        if v.tr_pos == target:
            return (A.T_STAY,)
        return min(moves, key=lambda a: _dist(self.t, v, target, a[1]))


class DashPolicy(ExpeditionPolicy):
    """Every character on its own task, in parallel. The default values are the tuned set
    (``balancelab tune obcy --side expedition``, rules version 5; presets ``tuned``,
    ``tuned-v4`` (version 4's default) and ``classic``: :mod:`balancelab.policies.presets`).
    ``queen_s`` stays 0 (estimated): it acts only in Variant 1, and the tuning played
    Variant 2."""

    name = "dash"
    params = {**ExpeditionPolicy.params, "plan": "dash", "arm": 1, "spread": 6,
              "danger": 2.511, "shot_min": 0.273, "queen_s": 0.0, "block": 2,
              "workers": 4, "reenter_group": 1.392}


#: ``two_away`` → the scores of :func:`_far_scores` (built once per value: a policy is made
#: per game, and per iteration inside ``ismcts`` rollouts)
_FARS: Final[dict[float, tuple[float, ...]]] = {}


def _far_scores(two_away: float) -> tuple[float, ...]:
    """An ALIEN's score of a space at walking distance d from the nearest character (not
    adjacent): closer is better, but not 2 away (one step short of striking), which costs
    ``two_away``."""
    hit = _FARS.get(two_away)
    if hit is None:
        hit = _FARS[two_away] = tuple(-d - (two_away if d == 2 else 0.0) for d in range(100))
    return hit


# == ALIENS ========================================================================================
class AliensPolicy(Policy):
    """Scripted ALIENS; ``plan`` = hunt or ambush (see module docstring)."""

    name = "hunter"
    #: The numbers of the plan (``balancelab tune obcy --side aliens`` searches them): a move
    #: next to a character scores ``strike + dmg * E[losses dealt] - back * E[losses taken]``
    #: (the combat table's expectation at the attack's margin), less ``weak`` when the margin
    #: is under ``gang`` (too weak alone: wait for the others); any other space scores minus
    #: its distance to the nearest character, less ``two_away`` at distance 2; ambushing
    #: ALIENS add ``duct_far`` to a duct space and hatch into a duct hatching space as if it
    #: were ``duct_hatch`` spaces nearer.
    #: The defaults are the tuned set (rules version 6; the hand-set numbers are preset
    #: ``classic``, :mod:`balancelab.policies.presets`).
    params = {"plan": "hunt", "gang": -2, "strike": 2.601, "dmg": 0.1937, "back": 6.788,
              "weak": 4.233, "two_away": 0.7966, "duct_far": 4.916, "duct_hatch": 0}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "gang": (-4, 4), "strike": (0.0, 20.0), "dmg": (0.0, 10.0), "back": (0.0, 10.0),
        "weak": (0.0, 20.0), "two_away": (0.0, 3.0), "duct_far": (0.0, 10.0),
        "duct_hatch": (0, 12)}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.t: PolicyTables = policy_tables(getattr(options, "map_file", ""))
        self.ambush = self.cfg["plan"] == "ambush"
        self.gang = int(self.cfg["gang"])
        self.w_strike = float(self.cfg["strike"])
        self.w_dmg = float(self.cfg["dmg"])
        self.w_back = float(self.cfg["back"])
        self.w_weak = float(self.cfg["weak"])
        self.w_duct_far = float(self.cfg["duct_far"])
        self.duct_hatch = int(self.cfg["duct_hatch"])
        self._far_of: tuple[float, ...] = _far_scores(float(self.cfg["two_away"]))
        self.off: int = self.options.crt_offset  # type: ignore[attr-defined]
        self.dmul: int = self.options.duct_multiplier  # type: ignore[attr-defined]
        self._exp = _exp_table(self.off)
        self._ckey: Any = None
        self._adj: dict[int, list[int]] = {}
        self._near: tuple[int, ...] = ()
        self._far: list[float] = []

    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: Any = view
        d = v.decision
        if d == A.D_ALIEN_MOVE:
            return self._move(v, legal)
        if d == A.D_ALIEN_PICK:
            return self._pick(v, legal)
        if d == A.D_HATCH:
            return self._hatch(v, legal)
        if d == A.D_ALIEN_TARGET:
            return min(legal, key=lambda a: v.c_str[a[1]])
        if d == A.D_RETREAT:
            chars = self._chars(v)
            return min(legal, key=lambda a: min((self.t.dist[a[1]][p] for p in chars), default=0))
        return legal[0]

    def ranked(self, view: View, legal: Sequence[Any]) -> list[Any]:
        """As :meth:`Policy.ranked`; an ALIEN's moves after the chosen one are ordered by the
        plan's score (best first, the first of equals first)."""
        v: Any = view
        if v.decision != A.D_ALIEN_MOVE:
            return super().ranked(view, legal)
        scores: dict[Any, float] = {}
        a = self._move(v, legal, scores)
        rest = sorted((x for x in legal if x != a), key=lambda x: -scores.get(x, -1e9))
        return [a, *rest]

    def _chars(self, v: Any) -> list[int]:
        return [v.c_pos[c] for c in range(6) if v.c_state[c] == A.ON_BOARD]

    def _pick(self, v: Any, legal: Sequence[Any]) -> Any:
        """Which ALIEN moves next (9.2 sets no order): the oldest, unless another ALIEN
        stands in front of it (nearer the characters and within its reach), which then
        moves first to clear the way (the one nearest the characters first)."""
        chars = self._chars(v)
        first = legal[0]
        if not chars or len(legal) < 2:
            return first
        near = _goal_row(self.t, tuple(sorted(set(chars))), v.collapsed)
        pos = {aid: v.a_pos[i] for i, aid in enumerate(v.a_id)}
        x = pos[first[1]]
        reach: int = v.options.alien_move
        best, bd = first, near[x]
        dx = self.t.dist[x]
        for a in legal[1:]:
            y = pos[a[1]]
            if near[y] < bd and dx[y] <= reach:
                best, bd = a, near[y]
        return best

    def _hatch(self, v: Any, legal: Sequence[Any]) -> Any:
        chars = self._chars(v)
        top = 0
        for a in legal:
            if a[0] == A.HATCH and a[1] > top:
                top = a[1]
        # only the strongest hatchings compete (one per hatching space: no ties); the least
        # (distance to the nearest character, hatching space) wins
        best: Any = None
        bd = bk = 0
        for a in legal:
            if a[0] != A.HATCH or a[1] != top:
                continue
            k: int = a[2]
            h = self.t.hatches[k]
            dh = self.t.dist[h]
            d = 0
            for j, p in enumerate(chars):
                if j == 0 or dh[p] < d:
                    d = dh[p]
            if self.ambush and self.t.duct[h]:
                d -= self.duct_hatch
            if best is None or d < bd or (d == bd and k < bk):
                best, bd, bk = a, d, k
        return best

    def _move(self, v: Any, legal: Sequence[Any],
              scores: dict[Any, float] | None = None) -> Any:
        """The move of ``v.alien`` (9.2); ``scores``, when given, receives every move's
        score (the move chosen has the highest, ties going as the choice went)."""
        i = v.a_id.index(v.alien)
        me_s = v.a_str[i]
        here = v.a_pos[i]
        key = (v.c_pos, v.c_state)
        if key != self._ckey:
            self._ckey = key
            chars = [(c, v.c_pos[c]) for c in range(6) if v.c_state[c] == A.ON_BOARD]
            self._adj = {}
            for c, p in chars:
                for n in self.t.nbr[p]:
                    self._adj.setdefault(n, []).append(c)
            self._near = (
                _goal_row(self.t, tuple(sorted({p for _, p in chars})), frozenset())
                if chars else ()
            )
            # the score of a space not adjacent to a character: closer is better, but not 2
            # away (one step short of striking), ducts preferred when ambushing
            far_of = self._far_of
            far = [far_of[d] for d in self._near]
            if self.ambush:
                far = [f + self.w_duct_far * self.t.duct[s] for s, f in enumerate(far)]
            self._far = far
        adj = self._adj
        far = self._far
        if not far:
            return (A.A_MOVE, here)
        # one pass: the moves next to a character, and the best of the others (the first
        # of equals, as max() would)
        strike: list[Any] = []
        best, bscore = legal[0], -1e9
        rbest: Any = None
        for a in legal:
            s: int = a[1]
            if s in adj:
                strike.append(a)
            else:
                f = far[s]
                if scores is not None:
                    scores[a] = f
                if rbest is None or f > bscore:
                    rbest, bscore = a, f
        stay = legal[0][1] == here  # (an ALIEN hatched on a character's space must leave)
        if rbest is not None:
            best = rbest
            if stay and here not in adj and far[here] + 0.01 >= bscore:
                best, bscore = (A.A_MOVE, here), far[here] + 0.01
                if scores is not None:
                    scores[best] = bscore
        if not strike:
            return best
        # strength already adjacent to each character (other ALIENS)
        pressure = [0] * 6
        for j, p in enumerate(v.a_pos):
            if j != i and p in adj:
                for c in adj[p]:
                    pressure[c] += v.a_str[j] * (self.dmul if self.t.duct[p] else 1)
        exp = self._exp
        for a in strike:
            s = a[1]
            eff = me_s * (self.dmul if self.t.duct[s] else 1)
            sc = -1e9
            for c in adj[s]:
                att = pressure[c] + eff - v.c_str[c]
                dmg, back = exp[att] if -20 <= att < 40 else _exp(att, self.off)
                val = self.w_strike + self.w_dmg * dmg - self.w_back * back
                if att < self.gang and not (self.ambush and self.t.duct[s]):
                    val -= self.w_weak
                sc = max(sc, val)
            if s == here:
                sc += 0.01
            if scores is not None:
                scores[a] = sc
            if sc > bscore:
                best, bscore = a, sc
        return best


class AmbushPolicy(AliensPolicy):
    """Ambush from the ducts with metamorphosis."""

    name = "ambush"
    #: hand-set numbers (not tuned)
    params = {**AliensPolicy.params, "plan": "ambush", "gang": 0, "strike": 10.0, "dmg": 4.0,
              "back": 3.0, "weak": 8.0, "two_away": 0.5, "duct_far": 3.0, "duct_hatch": 6}


register("squad", ExpeditionPolicy, games=["obcy"], sides=["expedition"],
         help="escorted worker: one character carries out the task, armed ones escort and shoot")
register("dash", DashPolicy, games=["obcy"], sides=["expedition"],
         help="parallel: every character on its own task")
register("hunter", AliensPolicy, games=["obcy"], sides=["aliens"],
         help="hunt the nearest character, strike when the gang-up is strong")
register("ambush", AmbushPolicy, games=["obcy"], sides=["aliens"],
         help="keep to the ducts (x2), merge, strike from the ducts")
