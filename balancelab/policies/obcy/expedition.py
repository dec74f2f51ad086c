"""The expedition's scripted players (Obcy, seat 0): ``squad`` and ``dash``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from balancelab.policies.base import register
from balancelab.policies.obcy.tables import (
    _UPGRADE,
    _dist,
    _goal_row,
    _nearest,
    _queen_table,
    _stores_of,
)
from balancelab.policies.obcy.tactics import _ExpeditionTactics
from balancelab.simulate.core import View
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.rules import (
    BISHOP,
    CHARGE,
    CLIP0,
    COMP,
    DISK,
    EMPTY,
    FUEL,
    HICKS,
    RIPLEY,
    SUIT,
    WEAPON_USE,
    WEAPONS,
)
from balancelab.simulate.obcy.state import ObcyView


class ExpeditionPolicy(_ExpeditionTactics):
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


    # -- dispatch ------------------------------------------------------------------------------
    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: ObcyView = view  # type: ignore[assignment]
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
    def _queen(self, v: ObcyView) -> Any:
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

    def _retreat(self, v: ObcyView, legal: Sequence[Any]) -> Any:
        return max(legal, key=lambda a: self._safety(v, a[1]))

    def _safety(self, v: ObcyView, s: int) -> float:
        return -self._danger(v, s)

    # -- tasks ---------------------------------------------------------------------------------
    def _alive(self, v: ObcyView) -> list[int]:
        return [c for c in range(6) if v.c_state[c] != A.DEAD]

    def _todo(self, v: ObcyView) -> list[tuple[Any, ...]]:
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

    def _plan_tasks(self, v: ObcyView) -> None:
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
            # the cheapest (character, task) pair first, the first of equals; each cost
            # computed once (costs[c][k]: character c doing todo[k], -1 not yet)
            costs = {c: [-1] * len(todo) for c in free}
            left = list(range(len(todo)))  # the tasks not yet assigned, in todo's order
            while left and free:
                bc = bk = bcost = -1
                for c in free:
                    pos = self._pos(v, c)
                    row = costs[c]
                    for k in left:
                        cost = row[k]
                        if cost < 0:
                            cost = row[k] = self._task_cost(v, c, pos, todo[k])
                        if bc < 0 or cost < bcost:
                            bc, bk, bcost = c, k, cost
                self.tasks[bc] = todo[bk]
                free.remove(bc)
                left.remove(bk)
            workers = [c for c in self.tasks if self.tasks[c][0] != "escort"]
            for c in free:
                if workers:
                    self.tasks[c] = ("escort", -1, (workers[c % len(workers)],), -1)

    def _plan_holders(self, v: ObcyView, free: list[int]) -> None:
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

    def _task_cost(self, v: ObcyView, c: int, pos: int, t: tuple[Any, ...]) -> int:
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

    def _item_source(self, v: ObcyView, item: int, pos: int) -> tuple[int, int]:
        srcs = [s for s in _stores_of(self.t, item) if item == COMP or v.supply[item] > 0]
        srcs += [p for p, items in v.floor if item in items]
        if not srcs:
            return -1, 99
        return _nearest(self.t, v, pos, srcs)

    def _waypoint(self, v: ObcyView, c: int) -> tuple[int, ...]:
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

    def _squad_goal(self, v: ObcyView) -> tuple[int, ...]:
        if not v.queen_alive:
            return (self.t.pad,)
        if self.worker >= 0 and v.c_state[self.worker] != A.DEAD:
            return self._waypoint(v, self.worker)
        return (self.t.armoury,) if self.arm else self.t.computers[:2]

    # -- which character acts next -----------------------------------------------------------
    def _pick(self, v: ObcyView, legal: Sequence[Any]) -> Any:
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

    def _prio(self, v: ObcyView, c: int, block: set[int]) -> tuple[int, int]:
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

    def _ride(self, v: ObcyView, c: int) -> bool:
        t = self.tasks.get(c)
        if not v.tr_moved:  # it could not move this phase: get out and walk
            return False
        if not v.queen_alive:
            return v.tr_pos != self.t.pad
        return t is not None and t[0] == "transport" and v.tr_pos != self.t.tr_target

    # -- the active character ----------------------------------------------------------------
    def _char(self, v: ObcyView, legal: Sequence[Any]) -> Any:
        c = v.active
        by: dict[int, list[Any]] = {}  # opcode -> its actions, in the engine's order
        last = 0  # (no opcode) the engine lists an opcode's actions together: one lookup
        run: list[Any] = []  # by[last]
        for a in legal:
            op: int = a[0]
            if op != last:
                same = by.get(op)
                if same is None:
                    same = by[op] = []
                run = same
                last = op
            run.append(a)
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

    def _move_char(self, v: ObcyView, c: int, kind: str, moves: Sequence[Any]) -> Any:
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

    def _fire_position(self, v: ObcyView, c: int, moves: Sequence[Any], kind: str) -> Any:
        """The best (move, then shoot) plan: a destination from which the shots left are
        worth most, traded against progress towards the waypoint and danger; None if
        standing and shooting (or just walking) is better."""
        pos: int = v.c_pos[c]
        ap: int = v.c_ap[c]
        pk = v.c_pk[c]
        charges = sum(it - CLIP0 for it in pk if it >= CLIP0)
        rng_ = self._range(v, c)
        dist = self.t.dist
        near = [i for i, p in enumerate(v.a_pos) if dist[p][pos] <= ap + rng_ + 1]
        if not near or not charges:
            return None
        weapons: list[int] = [w for w in pk if w in WEAPONS and w in WEAPON_USE[c]]
        block = self._blockers(v)
        block.discard(pos)
        wp = self._waypoint(v, c)
        row = _goal_row(self.t, wp, v.collapsed) if wp else None
        here = row[pos] if row else 0
        chars = [v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD and k != c]
        wd = self.wdanger * 0.05
        strength: int = v.c_str[c]
        cost_shot = 0.03 if min(dist[pos][s] for s in self.t.clip_stores) <= 8 else 0.06
        best, bval = None, -1e9
        dpos = dist[pos]
        cands: list[tuple[int, int]] = [(pos, 0)]
        for a in moves:
            dest: int = a[1]
            cands.append((dest, dpos[dest]))
        # per nearby ALIEN: space, its distances, the distance to the nearest other
        # character (999: none), strength, effective strength (duct x2)
        aliens: list[tuple[int, tuple[int, ...], int, int, int]] = []
        for i in near:
            p: int = v.a_pos[i]
            dp = dist[p]
            st: int = v.a_str[i]
            aliens.append((p, dp, min([dp[q] for q in chars]) if chars else 999, st,
                           st * (self.dmul if self.duct[p] else 1)))
        # the best volley of one weapon at one ALIEN, by (ALIEN, weapon, adjacent, threat,
        # shots left): the same for every firing position that shares them
        volleys: dict[int, float] = {}
        nw = len(weapons)
        kinds = self.t.kind
        for s, cost in cands:
            left = min(ap - cost, charges)
            if left < 1 or kinds[s] >= 5:
                continue
            los = self.t.los[s]
            nbs = self.t.nbr_set[s]
            sv = 0.0
            for j in range(len(aliens)):
                p, dp, dc, st, eff = aliens[j]
                if p == s:
                    continue
                inter = los.get(p)
                if inter is None or not block.isdisjoint(inter):
                    continue
                far = (dp[s] if dp[s] < dc else dc) > 5
                adj = p in nbs
                rng_n = len(inter)
                for wi in range(nw):
                    r, fp = self.wst[weapons[wi]]
                    if rng_n >= r:
                        continue
                    key = (((j * nw + wi) * 2 + adj) * 2 + far) * (ap + 1) + left
                    val = volleys.get(key)
                    if val is None:
                        val = volleys[key] = self._volley(
                            strength, fp, eff, st, adj, 0.5 if far else 1.0, left, cost_shot)
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

    def _volley(self, strength: int, fp: int, eff: int, st: int, adj: bool, th: float,
                left: int, cost_shot: float) -> float:
        """The value of the best volley of 1..``left`` shots of a weapon of firepower ``fp``
        at an ALIEN of strength ``st`` (``eff`` in its space), less ``cost_shot`` a shot;
        at least 0."""
        best = 0.0
        for n in range(1, left + 1):
            val = self._shot_value(strength + fp * n - eff, st, adj) * th
            val -= cost_shot * n
            if val > best:
                best = val
        return best

    # -- transporter ---------------------------------------------------------------------------
    def _transport(self, v: ObcyView, legal: Sequence[Any]) -> Any:
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


register("squad", ExpeditionPolicy, games=["obcy"], sides=["expedition"],
         help="escorted worker: one character carries out the task, armed ones escort and shoot")
register("dash", DashPolicy, games=["obcy"], sides=["expedition"],
         help="parallel: every character on its own task")
