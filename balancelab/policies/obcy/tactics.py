"""The expedition's tactics (Obcy): what a character can reach and shoot, where the ALIENS
threaten, which shot is worth its ammunition, how to move, reload and re-enter."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from balancelab.policies.base import Policy, RngSource
from balancelab.policies.obcy.tables import (
    _GUNS,
    _SV_MEMO,
    _UPGRADE,
    PolicyTables,
    _crt_table,
    _goal_row,
    _stores_of,
    policy_tables,
)
from balancelab.simulate.core import Game
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.combat import ATTACKER, DEFENDER
from balancelab.simulate.obcy.rules import (
    CHARGE,
    CLIP0,
    EMPTY,
    FLAMER,
    FUEL,
    SUIT,
    WEAPON_USE,
    WEAPONS,
)
from balancelab.simulate.obcy.state import ObcyView
from balancelab.simulate.options import RuleOptions


class _ExpeditionTactics(Policy):
    """The tactics under the expedition's plans (:class:`.expedition.ExpeditionPolicy`): its
    state (set from the parameters), reach, danger, ammunition, shots and moves."""

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

    def _range(self, v: ObcyView, c: int) -> int:
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

    def _armed(self, v: ObcyView, c: int) -> bool:
        """Whether character ``c`` holds a gun it may use (a native loop over its pockets:
        ``frozenset.isdisjoint`` is a Python method call)."""
        guns = _GUNS[c]
        for it in v.c_pk[c]:
            if it in guns:
                return True
        return False

    def _blockers(self, v: ObcyView) -> set[int]:
        block = {v.c_pos[k] for k in range(6) if v.c_state[k] == A.ON_BOARD}
        block.update(v.a_pos)
        block.update(v.collapsed)
        return block

    def _can_shoot_now(self, v: ObcyView, c: int, pos: int, block: set[int] | None = None) -> bool:
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

    def _pos(self, v: ObcyView, c: int) -> int:
        return v.c_pos[c] if v.c_state[c] == A.ON_BOARD else v.tr_pos

    def _gd(self, v: ObcyView, s: int, goals: tuple[int, ...]) -> int:
        return _goal_row(self.t, goals, v.collapsed)[s]

    def _pursues(self, v: ObcyView, c: int, pos: int) -> bool:
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

    def _adjacent_aliens(self, v: ObcyView) -> frozenset[int]:
        """The spaces next to an ALIEN."""
        return frozenset(n for p in v.a_pos for n in self.t.nbr[p])

    def _hold(self, v: ObcyView, c: int, pos: int, h: int, by: dict[int, list[Any]]) -> Any:
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

    def _gear(self, v: ObcyView, c: int, pos: int, pk: Sequence[int],
              by: dict[int, list[Any]]) -> Any:
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

    def _at_source(self, v: ObcyView, item: int, pos: int) -> bool:
        if pos in _stores_of(self.t, item):
            return True
        return any(p == pos and item in items for p, items in v.floor)

    def _drop_least(self, v: ObcyView, c: int, drops: Sequence[Any]) -> Any:
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

    def _off_the_airlock(self, v: ObcyView, legal: Sequence[Any]) -> Any:
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

    def _reenter(self, v: ObcyView, c: int, legal: Sequence[Any]) -> Any:
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

    def _danger(self, v: ObcyView, s: int) -> float:
        d = self._danger_map(v).get(s)
        if d is None:
            d = self._dmap[s] = self._danger_calc(v, s)
        return d

    def _danger_map(self, v: ObcyView) -> dict[int, float]:
        """The memo of :meth:`_danger_calc` for the current ALIENS (cleared when they move)."""
        key = (v.a_pos, v.a_str, v.hatching_on)
        if key != self._dkey:
            self._dkey = key
            self._dmap = {}
        return self._dmap

    def _danger_calc(self, v: ObcyView, s: int) -> float:
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
        self, v: ObcyView, c: int, moves: Sequence[Any], goals: tuple[int, ...], keep: int,
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

    def _best_shot(self, v: ObcyView, c: int, by: dict[int, list[Any]]) -> Any:
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
