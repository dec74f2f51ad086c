"""Scripted players of *1998 ISS*.

All read only their seat's :class:`~balancelab.simulate.iss.state.IssView` (own experiment
hand, public board) and score each legal action with a weighted heuristic in victory-point
units; the plans differ by weights:

============  ==================================================================================
balanced      experiments when possible, installs for tokens and to open compartments,
              long stays late, keeps astronauts and materials flowing, launches for new types
experimenter  experiments first: plans often, keeps up to four cards, values materials highly
builder       (default: strongest measured) long stay and installation: tokens, long-stay
              track, outside jobs; experiments when cheap
shuttler      shuttles and goals: lowers countdowns to launch itself, trains and loads cargo,
              chases goal cards
random        uniform over the legal actions (registered for every game)
============  ==================================================================================

Every weight is a policy parameter (``balanced:w_install=3``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import mypyc_attr

from balancelab.policies.base import Policy, RngSource, register
from balancelab.simulate.core import Game
from balancelab.simulate.iss.rules import (
    ANY,
    CONSTRUCT,
    EXPERIMENT,
    INSTALL,
    LOAD,
    LONG_STAY,
    LS,
    OUTSIDE,
    PLAN,
    TRAIN,
)
from balancelab.simulate.iss.state import (
    CARGO,
    COUNTDOWN,
    FPICK,
    GOAL,
    KEEP,
    P_EXTRA,
    PASS,
    RETRIEVE,
    XSPACE,
    IssView,
)
from balancelab.simulate.options import RuleOptions

BASE: Final[dict[str, Any]] = {
    "w_exp": 1.0,  # per experiment point
    "w_install": 1.0,  # per token point
    "w_enable": 1.5,  # per hand card an installed compartment type helps
    "w_ls": 1.0,  # per long-stay point gained
    "w_outside": 1.0,  # per external point
    "w_iss": 0.8,  # value of an ISS material kept
    "w_train": 2.5,  # value of an astronaut short of the target
    "astro_target": 3,
    "w_load": 1.2,  # per material short of the target
    "mat_target": 5,
    "w_plan": 3.0,  # planning when the hand is short
    "hand_target": 2,
    "w_construct": 0.6,
    "w_launch": 1.0,  # per point of shuttle set gained by launching
    "w_goal": 1.0,  # per goal point approached
    "keep_min": 2.0,  # keep a drawn card worth at least this (net)
}

PRESETS: Final[dict[str, dict[str, Any]]] = {
    "balanced": {},
    "experimenter": {"w_exp": 1.3, "w_plan": 5.0, "hand_target": 3, "w_iss": 1.2,
                     "w_install": 0.7, "w_ls": 0.6, "keep_min": 1.0},
    "builder": {"w_install": 1.6, "w_ls": 1.6, "w_outside": 1.3, "w_exp": 0.7,
                "w_plan": 1.0, "hand_target": 1},
    "shuttler": {"w_launch": 2.5, "w_goal": 2.0, "w_train": 3.5, "w_load": 2.0,
                 "mat_target": 7, "astro_target": 4, "w_construct": 1.2},
}


@mypyc_attr(allow_interpreted_subclasses=True)  # the presets below subclass it
class IssHeuristic(Policy):
    """A weighted one-step evaluation of the legal actions (see the module docstring)."""

    name = "balanced"
    params: ClassVar[dict[str, Any]] = dict(BASE)
    preset: ClassVar[dict[str, Any]] = {}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.w = {**BASE, **self.preset, **params}
        self._cmemo: dict[tuple[float, ...], dict[tuple[int, ...], float]] = {}

    # -- entry ---------------------------------------------------------------------------------
    def act(self, view: Any, legal: Sequence[Any]) -> Any:
        assert isinstance(view, IssView)
        v: IssView = view  # typed: mypyc reads its fields natively
        tag = legal[0][0] if legal[0][0] != PASS else (legal[1][0] if len(legal) > 1 else PASS)
        if tag == KEEP:
            return self._keep(v, legal)
        if tag == COUNTDOWN:
            return max(legal, key=lambda a: self._countdown(v, a[1]))
        if tag == CARGO:
            return max(legal, key=lambda a: -v.cd[a[1]])
        if tag == RETRIEVE:
            return min(legal, key=lambda a: self._src_cost(v, a[1]))
        if tag == XSPACE:
            pref = (EXPERIMENT, INSTALL, LONG_STAY, TRAIN, OUTSIDE, LOAD, PLAN, CONSTRUCT)
            return min(legal, key=lambda a: (pref.index(a[1]), self._src_cost(v, a[2])))
        if tag == GOAL:
            return legal[0]
        if tag == FPICK:
            need = self._hand_types(v)
            return max(legal, key=lambda a: need.get(v.ctype[a[1]], 0))
        self._prep(v)
        extra = v.phase == P_EXTRA
        sg = self.slot_gain
        wc = self.w["w_construct"]
        goal4 = 4 in v.offer
        if goal4:
            n, p = self.n, v.player
            mine = [v.colc[s * n + p] for s in range(4)]
            need4 = v.st.needs[4]
            gpts = self.w["w_goal"] * v.st.opts.goal_points
            before = max(mine)
            goal4 = before < need4  # else no construction can approach the goal
        vals: list[float] = []
        append = vals.append
        sgget = sg.__getitem__
        # construction targets -> their value before sources and goal (memo per slot gains)
        memo = self._cmemo.get(key := tuple(sg))
        if memo is None:
            memo = self._cmemo[key] = {}
        plan_val: float | None = None
        for a in legal:
            tag = a[0]
            if tag == CONSTRUCT and a[1]:
                tg, src = a[1], a[2]
                x = memo.get(tg)
                if x is None:
                    x = memo[tg] = wc * len(tg) + sum(map(sgget, tg))
                x = x - 0.3 * len(src)
                if goal4:
                    cnt = list(mine)
                    for t in tg:
                        cnt[t] += 1
                    for t in src:
                        if t < 4:
                            cnt[t] -= 1
                    ctop = max(cnt)
                    if ctop > before:
                        x += gpts if ctop >= need4 else gpts * 0.25 * (ctop - before) / need4
                append(x)
            elif tag == PASS:
                append(0.0)
            elif tag == PLAN:  # the same value for every deck choice: score it once
                if plan_val is None:
                    plan_val = self._value(v, a, extra)
                append(plan_val)
            else:
                append(self._value(v, a, extra))
        top = max(vals)
        best = [legal[j] for j in range(len(vals)) if vals[j] >= top - 1e-9]
        if len(best) == 1:
            return best[0]
        return best[int(self.rng.integers(len(best)))]

    # -- helpers -------------------------------------------------------------------------------
    def _prep_time(self, v: IssView) -> None:
        """``late`` and ``iss_val``: how near the end the game is (all that ``_keep`` reads)."""
        self.late = v.triggered or min(v.sdeck_n) <= 0 or v.final
        mid = min(v.sdeck_n) <= 1
        self.iss_val = 0.0 if v.final else self.w["w_iss"] * (0.6 if (self.late or mid) else 1.0)

    def _prep(self, v: IssView) -> None:
        p = v.player
        n = len(v.iss)
        self.n = n
        self._prep_time(v)
        astro = v.unity[p]
        if p in v.cocc:
            cocc, ctype = v.cocc, v.ctype
            for j in range(len(cocc)):
                if cocc[j] == p and ctype[j] != LS:
                    astro += 1
        self.my_astro = astro
        self.astro_incoming = v.sha[p] + v.sha[n + p]
        self.mat_incoming = v.shm[p] + v.shm[n + p]
        self.need_types = self._hand_types(v)
        colc = v.colc
        sg = []
        for s in range(p, 4 * n, n):  # s: my counter on each module slot
            mine = colc[s]
            row = colc[s - p:s - p + n]
            mx = max(row)
            if mine < mx or row.count(mx) > 1:  # oth: the best rival's cubes (counts >= 0)
                oth = mx
            elif n > 1:
                oth = sorted(row)[-2]
            else:
                oth = 0
            sg.append(0.4 if mine + 1 >= oth and mine <= oth + 1 else 0.0)
        self.slot_gain = sg

    def _hand_types(self, v: IssView) -> dict[int, int]:
        need: dict[int, int] = {}
        for e in v.hand:
            for t in v.st.exp_cards[e].comps:
                if t != ANY:
                    need[t] = need.get(t, 0) + 1
        return need

    def _keep(self, v: IssView, legal: Sequence[Any]) -> Any:
        self._prep_time(v)
        st, o = v.st, v.st.opts
        present = set(t for c, t in enumerate(v.ctype))
        vals = []
        for e in v.drawn:
            card = st.exp_cards[e]
            val = self.w["w_exp"] * card.points - self.iss_val * card.iss - card.ext
            val -= 1.5 * sum(1 for t in card.comps if t != ANY and t not in present)
            val -= 1.0 * max(0, len(card.comps) - 2)
            if self.late:
                val -= 3.0 + card.level
            vals.append(val - o.unperformed_penalty)
        best, best_v = legal[0], -1e9
        for a in legal:
            tot = sum(vals[i] - self.w["keep_min"] for i in range(len(vals)) if a[1] >> i & 1)
            if tot > best_v:
                best, best_v = a, tot
        return best

    def _src_cost(self, v: IssView, src: int) -> float:
        if src < 0:
            return 0.0
        if src >= 4:
            return 5.0
        n = len(v.iss)
        mine = v.colc[src * n + v.player]
        others = max(v.colc[src * n + q] for q in range(n) if q != v.player) if n > 1 else 0
        return 1.0 if mine > others + 1 or mine < others else 3.0

    def _goal_bonus(self, v: IssView, g: int, before: int, after: int) -> float:
        if g not in v.offer:
            return 0.0
        need = v.st.needs[g]
        if before >= need or after <= before:
            return 0.0
        if after >= need:
            return self.w["w_goal"] * v.st.opts.goal_points
        return self.w["w_goal"] * v.st.opts.goal_points * 0.25 * (after - before) / need

    def _value(self, v: IssView, a: tuple[Any, ...], extra: bool) -> float:
        w, st, o, p = self.w, v.st, v.st.opts, v.player
        tag = a[0]
        # (a goal bonus is 0.0 unless the goal is offered: the ``in v.offer`` tests skip calls)
        if tag == OUTSIDE:
            k = a[1]
            val = w["w_outside"] * o.external_points * k - self.iss_val * k
            if 7 in v.offer:
                val += self._goal_bonus(v, 7, v.ext[p], v.ext[p] + k)
            return val - 0.2 * a[2]
        if tag == TRAIN:
            total = self.my_astro + self.astro_incoming
            val = w["w_train"] * max(0, w["astro_target"] - total) / max(1, w["astro_target"])
            val *= 2.0
            g2 = 2 in v.offer
            if g2:
                val += self._goal_bonus(v, 2, self.astro_incoming, self.astro_incoming + 1)
            if v.final:
                val = self._goal_bonus(v, 2, self.astro_incoming, self.astro_incoming + 1) \
                    if g2 else 0.0
            return val + 0.5 * (1.0 if v.cd[a[1]] <= 2 else 0.0)
        if tag == LOAD:
            k = len(a) - 1
            total = v.iss[p] + self.mat_incoming
            short = max(0, w["mat_target"] - total)
            val = w["w_load"] * min(k, short) * (0.3 if self.late else 1.0)
            g3 = 3 in v.offer
            if g3:
                val += self._goal_bonus(v, 3, self.mat_incoming, self.mat_incoming + k)
            if v.final:
                val = self._goal_bonus(v, 3, self.mat_incoming, self.mat_incoming + k) \
                    if g3 else 0.0
            cd = v.cd
            return val + 0.2 * sum([1.0 if cd[r] <= 2 else 0.0 for r in set(a[1:])])
        if tag == EXPERIMENT:
            card = st.exp_cards[a[1]]
            val = w["w_exp"] * (card.points + o.unperformed_penalty)
            val -= self.iss_val * card.iss + card.ext * w["w_outside"]
            nd = len(v.done[p])
            val += self._goal_bonus(v, 0, nd, nd + 1)
            if card.level == 3:
                n3 = sum(1 for e in v.done[p] if st.exp_level[e] == 3)
                val += self._goal_bonus(v, 1, n3, n3 + 1)
            val -= 0.3 * sum(c & 1 for c in a[2]) * (0 if card.long else 1)
            return val + 2.0
        if tag == INSTALL:
            k = len(a[1])
            val = w["w_install"] * o.token_points * k
            need = self.need_types
            val += w["w_enable"] * sum(min(1, need.get(t, 0)) for t in set(a[1]))
            val += self._goal_bonus(v, 5, v.tok[p], v.tok[p] + k)
            if v.ls[p] >= 1 and len({st.sh_nation[c] for c in v.owned[p]}) == 2:
                val += self._goal_bonus(v, 9, 0, 1) if v.tok[p] == 0 else 0.0
            return val
        if tag == LONG_STAY:
            pts = o.long_stay_points
            gain = pts[v.ls[p] + 1] - pts[v.ls[p]]
            val = w["w_ls"] * gain - self.iss_val
            val += self._goal_bonus(v, 6, v.ls[p], v.ls[p] + 1)
            if not self.late:
                val -= 0.8  # the astronaut is locked until a replacement
            return val
        if tag == PLAN:
            if v.final or self.late:
                return -1.0
            short = w["hand_target"] - len(v.hand)
            return w["w_plan"] * max(0, short) - 0.5
        if tag == CONSTRUCT:
            if not a[1]:
                return -2.0
            sg = self.slot_gain
            val = w["w_construct"] * len(a[1]) + sum(sg[t] for t in a[1]) - 0.3 * len(a[2])
            if 4 in v.offer:
                n = self.n
                cnt = [v.colc[s * n + p] for s in range(4)]
                before = max(cnt)
                for t in a[1]:
                    cnt[t] += 1
                for s in a[2]:
                    if s < 4:
                        cnt[s] -= 1
                val += self._goal_bonus(v, 4, before, max(cnt))
            return val
        return 0.0

    def _launch_soon(self, v: IssView, r: int) -> float:
        return 1.0 if v.cd[r] <= 2 else 0.0

    def _countdown(self, v: IssView, r: int) -> float:
        w, st, p, n = self.w, v.st, v.player, len(v.iss)
        dec = st.cd[self._cur_action(v)]
        c = v.pad[r]
        mine = v.sha[r * n + p] + v.shm[r * n + p]
        others = sum(v.sha[r * n + q] + v.shm[r * n + q] for q in range(n) if q != p)
        val = 0.3 * mine - 0.15 * others
        if v.cd[r] - dec <= 0:
            types = {st.sh_type[x] for x in v.owned[p]}
            sp = st.opts.set_points
            gain = 0.0
            if st.sh_type[c] not in types:
                gain = float(sp[len(types)] - (sp[len(types) - 1] if types else 0))
            gain += self._goal_bonus(v, 8, len(v.owned[p]), len(v.owned[p]) + 1) / max(
                1e-9, w["w_goal"]) * w["w_goal"]
            val += w["w_launch"] * gain + 1.0
        elif v.cd[r] - dec == 1:
            val -= 0.5 * w["w_launch"]  # sets up the next player's launch
        return val

    def _cur_action(self, v: IssView) -> int:
        # the action just done is the one whose module slot got the newest cube: not public
        # in the view, so read the rows: the engine keeps it as the turn's action (public).
        return v.cur_action


def _ranges(params: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Each weight may range over [0, 3 x its value] (at least [0, 3]); each target over
    [0, 2 x its value + 2]."""
    out: dict[str, tuple[float, float]] = {}
    for k, v in params.items():
        if isinstance(v, int) and not isinstance(v, bool):
            out[k] = (0, 2 * v + 2)
        elif isinstance(v, float):
            out[k] = (0.0, max(3.0, 3.0 * v))
    return out


def _make(name: str, preset: dict[str, Any], doc: str) -> type[IssHeuristic]:
    params = {**BASE, **preset}
    cls = type(f"Iss_{name}", (IssHeuristic,), {"name": name, "preset": preset,
                                                  "params": params,
                                                  "param_ranges": _ranges(params),
                                                  "__doc__": doc})
    return cls


#: one line per preset, for ``balancelab games iss`` (the module docstring says more)
PLANS: Final[dict[str, str]] = {
    "balanced": "experiments when possible, installs, long stays late, launches for new types",
    "experimenter": "experiments first: plans often, keeps up to four cards",
    "builder": "long stay and installation: tokens, long-stay track, outside jobs",
    "shuttler": "shuttles and goals: lowers countdowns, trains and loads cargo",
}

for _name, _preset in PRESETS.items():
    register(_name, _make(_name, _preset, f"1998 ISS scripted player: {_name}"), games=["iss"],
             sides=["player"], help=f"scripted: {PLANS[_name]}")
