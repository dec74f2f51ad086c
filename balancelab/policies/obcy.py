"""Scripted players of Obcy: two expedition plans and two ALIENS plans.

Expedition (seat 0):
    ``squad``  one worker carries out the current task (fetch a disk, read a mission, bring a
               spare component …) while the armed characters escort it and shoot threats;
               in Variant 1 the Queen is fought when the odds (points/6) are good enough.
    ``dash``   every character works on its own task in parallel (fast, spread out); suits and
               airlocks are used for the M11/M12 tasks. (Default: it beat ``squad`` in our runs.)
    Neither plan drives the transporter yet (M08 is never pursued; after the Queen's death
    riders, if any, drive to the pad). Both shoot threats before moving, move into firing
    positions, avoid spaces ALIENS can reach, and fight the Queen (Variant 1) once
    ``points >= queen_points`` (4: P(Queen dies) = points/6 >= 2/3), one point less when three
    or fewer characters live or the deck is nearly empty.
ALIENS (seat 1):
    ``hunter`` hatch strong ALIENS on the hatching space nearest the expedition, close in on the
               nearest character, and only step adjacent when the gang-up is strong enough.
    ``ambush`` keep to the ventilation ducts (strength x2), merge by metamorphosis, strike from
               the ducts; hatch preferably into the duct hatching space.
    (Default: ``hunter``.)

The ALIENS player never sees open mission cards (its view hides them); policies read the view
only and use the public map tables of :mod:`balancelab.simulate.obcy.board`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from balancelab.policies.base import Policy, register
from balancelab.simulate.core import View
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER, combat_result
from balancelab.simulate.obcy.rules import (
    BISHOP,
    CHARGE,
    CLIP0,
    COMP,
    DISK,
    EMPTY,
    FLAMER,
    FUEL,
    HICKS,
    RIPLEY,
    SUIT,
    WEAPON_USE,
    WEAPONS,
)
from balancelab.simulate.obcy.state import MISSIONS

NBR = B.NBR
NBR_SET = B.NBR_SET
PAD = B.PAD_SPACE
DUCT = B.IS_DUCT_OR_GRATE


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


def _dist(view: Any, a: int, b: int) -> int:
    if view.collapsed:
        return B.dist_from(a, view.collapsed)[b]
    return B.DIST[a][b]


def _nearest(view: Any, src: int, targets: Sequence[int]) -> tuple[int, int]:
    best, bd = -1, 999
    d = B.dist_from(src, view.collapsed) if view.collapsed else B.DIST[src]
    for t in targets:
        if d[t] < bd:
            best, bd = t, d[t]
    return best, bd


ROOM_C = tuple(i for i in range(B.N) if B.ROOM_OF[i] == 2)
CLIP_STORES = (B.FEATURE["AMMO_STORE_1"], B.FEATURE["AMMO_STORE_2"], B.FEATURE["ARMOURY"])


def _stores_of(item: int) -> tuple[int, ...]:
    if item >= CLIP0:
        return CLIP_STORES
    return tuple(s for s, items in B.STORE_ITEMS.items() if item in items)


# == expedition ====================================================================================
class ExpeditionPolicy(Policy):
    """Scripted expedition; ``plan`` = squad or dash (see module docstring)."""

    name = "squad"
    params = {"plan": "squad", "queen_points": 4, "danger": 1.0}

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.plan = str(self.cfg["plan"])
        self.qpts = int(self.cfg["queen_points"])
        self.wdanger = float(self.cfg["danger"])
        self.off = self.options.crt_offset  # type: ignore[attr-defined]
        self.tasks: dict[int, tuple[Any, ...]] = {}
        self.task_round = -1
        self.idle: set[int] = set()
        self._dkey: Any = None
        self._dmap: dict[int, float] = {}

    # -- dispatch ------------------------------------------------------------------------------
    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: Any = view
        d = v.decision
        if d == A.D_CHAR:
            return self._char(v, legal)
        if d == A.D_PICK:
            return self._pick(v, legal)
        if d == A.D_QUEEN:
            return self._queen(v)
        if d == A.D_RETREAT:
            return self._retreat(v, legal)
        if d == A.D_TRANSPORT:
            return self._transport(v, legal)
        return legal[0]

    def _queen(self, v: Any) -> Any:
        alive = sum(1 for s in v.c_state if s != A.DEAD)
        need = self.qpts - (1 if alive <= 3 or v.deck_left <= 2 else 0)
        return (A.QUEEN,) if v.points >= need else (A.NO_QUEEN,)

    def _retreat(self, v: Any, legal: Sequence[Any]) -> Any:
        return max(legal, key=lambda a: self._safety(v, a[1]))

    def _safety(self, v: Any, s: int) -> int:
        if not v.a_pos:
            return 99
        return min(B.DIST[p][s] for p in v.a_pos)

    # -- tasks ---------------------------------------------------------------------------------
    def _alive(self, v: Any) -> list[int]:
        return [c for c in range(6) if v.c_state[c] != A.DEAD]

    def _plan_tasks(self, v: Any) -> None:
        """Assign each character a task: (kind, item, goal spaces, mission)."""
        self.task_round = v.round
        self.tasks = {}
        self.idle = set()
        alive = [c for c in self._alive(v) if v.c_state[c] in (A.ON_BOARD, A.ABOARD)]
        if not alive:
            return
        if not v.queen_alive:
            for c in alive:
                self.tasks[c] = ("go", -1, (PAD,), -1)
            return
        todo: list[tuple[Any, ...]] = []
        for m in v.open_missions:
            kind, p = MISSIONS[m]
            if kind == "component":
                todo.append(("deliver", COMP, (p,), m))
            elif kind == "read":
                todo.append(("read", DISK, (p,), m))
            elif kind == "bishop":
                todo.append(("deliver", COMP, (p,), m, BISHOP))
            elif kind == "room":
                todo.append(("go", -1, ROOM_C, m, RIPLEY))
                todo.append(("go", -1, ROOM_C, m, HICKS))
            elif kind == "fuel_drop":
                todo.append(("drop", FUEL, (p,), m))
            elif kind == "collapse":
                spots = tuple(n for t in sorted(p) if t not in v.collapsed for n in NBR[t]
                              if B.KIND[n] != B.AIRLOCK)
                todo.append(("charge", CHARGE, spots, m))
            elif kind == "airlocks" and v.c_state:
                out_no, _ = p
                todo.append(("airlock", SUIT, (B.AIRLOCKS[out_no - 1],), m))
        if len(v.open_missions) < v.options.max_open_missions and v.deck_left:
            todo.append(("read", DISK, (B.COMPUTERS[0], B.COMPUTERS[1]), -1))
        free = list(alive)
        # fixed-character tasks first
        for t in [t for t in todo if len(t) > 4]:
            if t[4] in free:
                self.tasks[t[4]] = t[:4]
                free.remove(t[4])
        todo = [t for t in todo if len(t) == 4]
        if self.plan == "squad":
            # one worker at a time: the least useful fighter does the nearest task
            order = sorted(free, key=lambda c: (len(WEAPON_USE[c]), -v.c_str[c]))
            if todo and order:
                w = order[0]
                pos = v.c_pos[w] if v.c_state[w] == A.ON_BOARD else v.tr_pos
                t = min(todo, key=lambda t: self._task_cost(v, w, pos, t))
                self.tasks[w] = t
                for c in order[1:]:
                    self.tasks[c] = ("escort", -1, (w,), -1)
        else:
            while todo and free:
                best = None
                for c in free:
                    pos = v.c_pos[c] if v.c_state[c] == A.ON_BOARD else v.tr_pos
                    for t in todo:
                        cost = self._task_cost(v, c, pos, t)
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

    def _task_cost(self, v: Any, c: int, pos: int, t: tuple[Any, ...]) -> int:
        kind, item, goals, _ = t[:4]
        if item >= 0 and item not in v.c_pk[c]:
            s, d1 = self._item_source(v, item, pos)
            _, d2 = _nearest(v, s, goals) if s >= 0 else (-1, 99)
            return d1 + d2
        return _nearest(v, pos, goals)[1]

    def _item_source(self, v: Any, item: int, pos: int) -> tuple[int, int]:
        srcs = [s for s in _stores_of(item) if item == COMP or v.supply[item] > 0]
        srcs += [p for p, items in v.floor if item in items]
        if not srcs:
            return -1, 99
        return _nearest(v, pos, srcs)

    # -- which character acts next -----------------------------------------------------------
    def _pick(self, v: Any, legal: Sequence[Any]) -> Any:
        if self.task_round != v.round or not self.tasks:
            self._plan_tasks(v)
        cands = [a[1] for a in legal if a[0] == A.ACT and a[1] not in self.idle]
        if not cands:
            return (A.END_PHASE,)

        def prio(c: int) -> tuple[int, int]:
            pos = v.c_pos[c]
            near = min((B.DIST[pos][p] for p in v.a_pos), default=99)
            t = self.tasks.get(c, ("none",))
            if near <= 5 and self._armed(v, c):
                return (0, near)
            if self.plan == "squad":
                return (1 if t[0] == "escort" else 2, near)
            return (1, near)

        return (A.ACT, min(cands, key=prio))

    def _armed(self, v: Any, c: int) -> bool:
        pk = v.c_pk[c]
        return any(it in WEAPONS and it in WEAPON_USE[c] for it in pk) and any(
            it > CLIP0 for it in pk
        )

    # -- the active character ----------------------------------------------------------------
    def _char(self, v: Any, legal: Sequence[Any]) -> Any:
        c = v.active
        by: dict[int, list[Any]] = {}
        for a in legal:
            by.setdefault(a[0], []).append(a)
        if A.REENTER in by:
            t = self.tasks.get(c)
            want = 1
            if t and t[0] == "airlock" and t[3] >= 0:
                want = MISSIONS[t[3]][1][1]
            for a in by[A.REENTER]:
                if a[1] == want:
                    return a
            return by[A.REENTER][0]
        pos = v.c_pos[c]
        # 1. shoot threats
        shot = self._best_shot(v, c, by)
        if shot is not None:
            return shot
        task = self.tasks.get(c)
        if task is None:
            self.idle.add(c)
            return (A.END_ACT,)
        kind, item, goals, m = task
        pk = v.c_pk[c]
        # 2. heal (Bishop)
        if A.HEAL in by:
            return min(by[A.HEAL], key=lambda a: v.c_str[a[1]] - v.c_max[a[1]])
        # 3. ammunition and task items
        need = item if item >= 0 and item not in pk else -1
        if need < 0 and self._armed_weapon_no_ammo(v, c) and A.PICK in by:
            for a in by[A.PICK]:
                if a[1] >= CLIP0 + 1:
                    return a
        if need >= 0 and A.PICK in by:
            for a in by[A.PICK]:
                if a[1] == need:
                    return a
        if need >= 0 and EMPTY not in pk and A.DROP in by and self._at_source(v, need, pos):
            return self._drop_least(v, c, by[A.DROP])
        # 4. at the goal: do the task
        if need < 0 and kind != "escort":
            if kind == "read" and A.READ in by:
                return (A.READ,)
            if kind == "drop" and pos in goals and A.DROP in by:
                return (A.DROP, item)
            if kind == "charge" and A.CHARGE in by and m >= 0:
                for a in by[A.CHARGE]:
                    if a[1] in MISSIONS[m][1]:
                        return a
        # 5. move into a firing position against a nearby ALIEN
        if A.MOVE in by and v.a_pos and self._armed(v, c) and v.c_ap[c] >= 2:
            fp = self._fire_position(v, c, by[A.MOVE])
            if fp is not None:
                return fp
        # 6. move
        if A.MOVE in by:
            if kind == "escort":
                w = goals[0]
                if v.c_state[w] == A.DEAD:
                    target: tuple[int, ...] = (PAD,) if not v.queen_alive else B.COMPUTERS
                else:
                    target = (v.c_pos[w],)
                    wt = self.tasks.get(w)
                    if self.plan == "squad" and wt is not None and wt[0] != "escort":
                        target = self._task_target(v, w, wt)
                mv = self._move(v, c, by[A.MOVE], target, keep=1)
            else:
                if need >= 0:
                    src, _ = self._item_source(v, need, pos)
                    target = (src,) if src >= 0 else goals
                else:
                    target = goals
                lead = -1
                if self.plan == "squad" and v.queen_alive:
                    esc = [e for e in range(6) if e != c and v.c_state[e] == A.ON_BOARD
                           and self._armed(v, e)]
                    if esc:
                        lead = min(self._gd(v, v.c_pos[e], target) for e in esc)
                mv = self._move(v, c, by[A.MOVE], target, keep=0, lead=lead)
            if mv is not None:
                return mv
        if A.BOARD in by and kind == "go" and not v.queen_alive:
            return (A.BOARD,)
        return (A.END_ACT,)

    def _fire_position(self, v: Any, c: int, moves: list[Any]) -> Any:
        pos = v.c_pos[c]
        near = [(p, i) for i, p in enumerate(v.a_pos) if B.DIST[p][pos] <= 7]
        if not near:
            return None
        wst = v.options.weapon_stats()
        rng_ = max(wst[w][0] for w in v.c_pk[c] if w in WEAPONS and w in WEAPON_USE[c])
        block = {v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD and k != c}
        block.update(v.a_pos)
        block.update(v.collapsed)
        best, bcost = None, 99
        ap = v.c_ap[c]
        for a in moves:
            s = a[1]
            cost = B.DIST[pos][s]
            if cost >= bcost or ap - cost < 1 or B.KIND[s] >= 5:
                continue
            los = B.LOS[s]
            for p, _ in near:
                if p in NBR_SET[s] or B.hex_distance(s, p) > rng_:
                    continue
                inter = los.get(p)
                if inter is not None and not any(x in block for x in inter):
                    best, bcost = a, cost
                    break
        return best

    def _task_target(self, v: Any, c: int, t: tuple[Any, ...]) -> tuple[int, ...]:
        item, goals = t[1], t[2]
        if item >= 0 and item not in v.c_pk[c]:
            src, _ = self._item_source(v, item, v.c_pos[c])
            return (src,) if src >= 0 else goals
        return goals

    def _gd(self, v: Any, s: int, goals: tuple[int, ...]) -> int:
        return min(_dist(v, g, s) for g in goals)

    def _armed_weapon_no_ammo(self, v: Any, c: int) -> bool:
        pk = v.c_pk[c]
        has_w = any(it in WEAPONS and it in WEAPON_USE[c] for it in pk)
        return has_w and sum(it - CLIP0 for it in pk if it >= CLIP0) < 2

    def _at_source(self, v: Any, item: int, pos: int) -> bool:
        if pos in _stores_of(item):
            return True
        return any(p == pos and item in items for p, items in v.floor)

    def _drop_least(self, v: Any, c: int, drops: list[Any]) -> Any:
        def useless(a: Any) -> int:
            it = a[1]
            if it == CLIP0:
                return 0
            if it in WEAPONS and it not in WEAPON_USE[c]:
                return 1
            if it in (FUEL, SUIT, CHARGE):
                return 2
            if it >= CLIP0:
                return 5
            if it in WEAPONS:
                return 6
            return 3

        return min(drops, key=useless)

    def _danger(self, v: Any, s: int) -> float:
        key = (v.a_pos, v.a_str, v.hatching_on)
        if key != self._dkey:
            self._dkey = key
            self._dmap = {}
        d = self._dmap.get(s)
        if d is None:
            d = self._dmap[s] = self._danger_calc(v, s)
        return d

    def _danger_calc(self, v: Any, s: int) -> float:
        tot = 0.0
        for p, st in zip(v.a_pos, v.a_str, strict=True):
            d = B.DIST[p][s]
            if d <= 5:
                tot += st * (2 if d <= 1 else 1)
        if v.hatching_on:
            for h in B.HATCHES:
                if B.DIST[h][s] <= 5:
                    tot += 2
        return tot

    def _move(
        self, v: Any, c: int, moves: list[Any], goals: tuple[int, ...], keep: int,
        lead: int = -1,
    ) -> Any:
        pos = v.c_pos[c]
        dtab = [B.dist_from(g, v.collapsed) if v.collapsed else B.DIST[g] for g in goals]

        def gd(s: int) -> int:
            return min(d[s] for d in dtab)

        here = gd(pos)
        if keep and here <= keep:
            return None
        wd = self.wdanger * (0.5 if self._armed(v, c) else 1.0)
        avoid = set(goals) if keep else set()
        best, bscore = None, 1e9
        for a in moves:
            s = a[1]
            g = gd(s)
            if g >= here or s in avoid:
                continue
            if lead >= 0 and g < lead - 1:
                continue
            if B.KIND[s] == B.AIRLOCK and not (
                self.tasks.get(c, ("",))[0] == "airlock" and s in goals
            ):
                continue
            score = max(g - keep, 0) + wd * self._danger(v, s) * 0.1
            if score < bscore:
                best, bscore = a, score
        return best

    def _best_shot(self, v: Any, c: int, by: dict[int, list[Any]]) -> Any:
        shots = by.get(A.SHOOT, [])
        grenades = by.get(A.GRENADE, [])
        if not shots and not grenades:
            return None
        pos = v.c_pos[c]
        strength = v.c_str[c]
        idx = {aid: i for i, aid in enumerate(v.a_id)}
        wst = v.options.weapon_stats()
        best, bval = None, 0.12
        ap = v.c_ap[c]
        for a in shots:
            _, aid, w, n = a
            i = idx[aid]
            ap_ = v.a_pos[i]
            s_eff = v.a_str[i] * (v.options.duct_multiplier if DUCT[ap_] else 1)
            att = strength + wst[w][1] * n - s_eff
            pk = _kill_prob(att, v.a_str[i], self.off)
            if ap_ in NBR_SET[pos]:
                _, back = _exp(att, self.off)
                pk -= 0.3 * back
            threat = 1.0 if B.DIST[ap_][pos] <= 5 else 0.4
            val = pk * threat - 0.06 * n - (0.05 if n == ap and n > 1 else 0)
            if w == FLAMER and DUCT[ap_]:
                val += 0.05
            if val > bval:
                best, bval = a, val
        for a in grenades:
            area = {a[1], a[2], a[3]}
            if any(v.c_state[k] == A.ON_BOARD and v.c_pos[k] in area for k in range(6)):
                continue
            k = sum(1 for p in v.a_pos if p in area)
            val = 0.45 * k
            if val > bval:
                best, bval = a, val
        return best

    # -- transporter ---------------------------------------------------------------------------
    def _transport(self, v: Any, legal: Sequence[Any]) -> Any:
        if not v.queen_alive:
            for a in legal:
                if a[0] == A.T_MOVE and a[1] == PAD:
                    return a
            return min(legal, key=lambda a: B.DIST[a[1]][PAD] if a[0] == A.T_MOVE else 999)
        target = B.idx(13, 10)
        moves = [a for a in legal if a[0] == A.T_MOVE]
        if not moves:
            return (A.T_STAY,)
        return min(moves, key=lambda a: B.DIST[a[1]][target])


class DashPolicy(ExpeditionPolicy):
    """Every character on its own task, in parallel."""

    name = "dash"
    params = {"plan": "dash", "queen_points": 4, "danger": 0.6}


# == ALIENS ========================================================================================
class AliensPolicy(Policy):
    """Scripted ALIENS; ``plan`` = hunt or ambush (see module docstring)."""

    name = "hunter"
    params = {"plan": "hunt", "gang": -1}

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.ambush = self.cfg["plan"] == "ambush"
        self.gang = int(self.cfg["gang"])
        self.off = self.options.crt_offset  # type: ignore[attr-defined]
        self.dmul = self.options.duct_multiplier  # type: ignore[attr-defined]

    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: Any = view
        d = v.decision
        if d == A.D_ALIEN_MOVE:
            return self._move(v, legal)
        if d == A.D_HATCH:
            return self._hatch(v, legal)
        if d == A.D_ALIEN_TARGET:
            return min(legal, key=lambda a: v.c_str[a[1]])
        if d == A.D_RETREAT:
            chars = self._chars(v)
            return min(legal, key=lambda a: min((B.DIST[a[1]][p] for p in chars), default=0))
        return legal[0]

    def _chars(self, v: Any) -> list[int]:
        return [v.c_pos[c] for c in range(6) if v.c_state[c] == A.ON_BOARD]

    def _hatch(self, v: Any, legal: Sequence[Any]) -> Any:
        chars = self._chars(v)
        top = max(a[1] for a in legal if a[0] == A.HATCH)

        def key(a: Any) -> tuple[int, int]:
            if a[0] != A.HATCH or a[1] != top:
                return (9999, 0)
            h = B.HATCHES[a[2]]
            d = min((B.DIST[h][p] for p in chars), default=0)
            if self.ambush and DUCT[h]:
                d -= 6
            return (d, a[2])

        return min(legal, key=key)

    def _move(self, v: Any, legal: Sequence[Any]) -> Any:
        i = v.a_id.index(v.alien)
        me_s = v.a_str[i]
        here = v.a_pos[i]
        chars = [(c, v.c_pos[c]) for c in range(6) if v.c_state[c] == A.ON_BOARD]
        if not chars:
            return (A.A_MOVE, here)
        adj: dict[int, list[int]] = {}
        for c, p in chars:
            for n in NBR[p]:
                adj.setdefault(n, []).append(c)
        # strength already adjacent to each character (other ALIENS)
        pressure = [0] * 6
        for j, p in enumerate(v.a_pos):
            if j != i and p in adj:
                for c in adj[p]:
                    pressure[c] += v.a_str[j] * (self.dmul if DUCT[p] else 1)
        cpos = [p for _, p in chars]
        best, bscore = legal[0], -1e9
        for a in legal:
            s = a[1]
            eff = me_s * (self.dmul if DUCT[s] else 1)
            if s in adj:
                sc = -1e9
                for c in adj[s]:
                    att = pressure[c] + eff - v.c_str[c]
                    dmg, back = _exp(att, self.off)
                    val = 10 + 4 * dmg - 3 * back
                    if att < self.gang and not (self.ambush and DUCT[s]):
                        val -= 8
                    sc = max(sc, val)
            else:
                dmin = min(B.DIST[s][p] for p in cpos)
                sc = -dmin
                if dmin == 2:
                    sc -= 0.5
                if self.ambush:
                    sc += 3 if DUCT[s] else 0
            if s == here:
                sc += 0.01
            if sc > bscore:
                best, bscore = a, sc
        return best


class AmbushPolicy(AliensPolicy):
    """Ambush from the ducts with metamorphosis."""

    name = "ambush"
    params = {"plan": "ambush", "gang": 0}


register("squad", ExpeditionPolicy, games=["obcy"], sides=["expedition"],
         help="escorted worker: one character carries out the task, armed ones escort and shoot")
register("dash", DashPolicy, games=["obcy"], sides=["expedition"],
         help="parallel: every character on its own task")
register("hunter", AliensPolicy, games=["obcy"], sides=["aliens"],
         help="hunt the nearest character, strike when the gang-up is strong")
register("ambush", AmbushPolicy, games=["obcy"], sides=["aliens"],
         help="keep to the ducts (x2), merge, strike from the ducts")
