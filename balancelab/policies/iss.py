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
from typing import Any, ClassVar, Final, final

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
    PASS,
    RETRIEVE,
    XSPACE,
    IssView,
)
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.seeding import PcgStream, SeedSource

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


#: Option names of the weights, in ``_Weights``' order (all read as floats).
_WEIGHT_KEYS: Final = ("w_exp", "w_install", "w_enable", "w_ls", "w_outside", "w_iss", "w_train",
                       "astro_target", "w_load", "mat_target", "w_plan", "hand_target",
                       "w_construct", "w_launch", "w_goal", "keep_min")
#: An extra-action space's preference by action card (``XSPACE``): Conduct Experiments first.
_XPREF: Final = (EXPERIMENT, INSTALL, LONG_STAY, TRAIN, OUTSIDE, LOAD, PLAN, CONSTRUCT)
_XRANK: Final = tuple(_XPREF.index(a) for a in range(8))


@final
class _Weights:
    """A plan's weights as typed floats (compiled code reads them natively; an integer target
    is the same number as a float: every use below is arithmetic or a comparison)."""

    def __init__(self, w: dict[str, Any]) -> None:
        self.w_exp = float(w["w_exp"])
        self.w_install = float(w["w_install"])
        self.w_enable = float(w["w_enable"])
        self.w_ls = float(w["w_ls"])
        self.w_outside = float(w["w_outside"])
        self.w_iss = float(w["w_iss"])
        self.w_train = float(w["w_train"])
        self.astro_target = float(w["astro_target"])
        self.w_load = float(w["w_load"])
        self.mat_target = float(w["mat_target"])
        self.w_plan = float(w["w_plan"])
        self.hand_target = float(w["hand_target"])
        self.w_construct = float(w["w_construct"])
        self.w_launch = float(w["w_launch"])
        self.w_goal = float(w["w_goal"])
        self.keep_min = float(w["keep_min"])


#: a plan class's weights when built without parameters (the usual case: the searches build
#: a scripted player per seat and iteration)
_CLASS_WEIGHTS: dict[type, _Weights] = {}


@mypyc_attr(allow_interpreted_subclasses=True)  # the presets below subclass it
class IssHeuristic(Policy):
    """A weighted one-step evaluation of the legal actions (see the module docstring)."""

    name = "balanced"
    params: ClassVar[dict[str, Any]] = dict(BASE)
    preset: ClassVar[dict[str, Any]] = {}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        wt = _CLASS_WEIGHTS.get(type(self)) if not params else None
        if wt is None:
            wt = _Weights(self.cfg)  # (the class's defaults, ``{**BASE, **preset}``, and params)
            if not params:
                _CLASS_WEIGHTS[type(self)] = wt
        self._sc = _Scorer(wt)
        #: the tie-break draws stepped in integer arithmetic, when the seat's Generator is
        #: not made yet and its maker tells the seed (the searches' scripted players)
        self._draws: PcgStream | None = None

    def act(self, view: Any, legal: Sequence[Any]) -> Any:
        assert isinstance(view, IssView)
        sc = self._sc
        j = sc.choose(view, legal)
        if j >= 0:
            return legal[j]
        ties = sc.ties  # the best actions, equal within 1e-9: one at random
        return legal[ties[self._draw(len(ties))]]

    def _draw(self, n: int) -> int:
        """``int(self.rng.integers(n))``: the same number; without making the Generator when
        its maker tells the seed (this policy draws nothing else from its stream)."""
        draws = self._draws
        if draws is None:
            make = self._make_rng
            if self._rng is not None or not isinstance(make, SeedSource):
                return int(self.rng.integers(n))
            draws = self._draws = PcgStream(make.seed())
        return draws.integers(n)


@final
class _Scorer:
    """The scoring of one player's decisions (compiled: typed fields, no dicts of Any)."""

    def __init__(self, wt: _Weights) -> None:
        self.k = wt
        #: the tied best actions' indexes when :meth:`choose` returns -1
        self.ties: list[int] = []
        # the decision's facts (``_prep_time``, ``_prep``)
        self.late = False
        self.iss_val = 0.0
        self.offered = 0  # bit mask of the goals on offer
        self.n = 0
        self.my_astro = 0
        self.astro_incoming = 0
        self.mat_incoming = 0
        self.need: list[int] = [0] * 6  # hand cards needing each compartment type
        self.slot_gain: list[float] = [0.0] * 4

    def choose(self, v: IssView, legal: Sequence[Any]) -> int:
        """The index of the chosen action in ``legal``, or -1 with the tied best in ``ties``."""
        a: tuple[Any, ...] = legal[0]
        tag: int = a[0]
        if tag == PASS:
            tag = legal[1][0] if len(legal) > 1 else PASS
        offered = 0
        for g in v.offer:
            offered |= 1 << g
        self.offered = offered
        nl = len(legal)
        if tag == KEEP:
            return self._keep(v, legal)
        if tag == COUNTDOWN:  # the first best (as ``max``)
            j, top = 0, 0.0
            for i in range(nl):
                a = legal[i]
                x = self._countdown(v, a[1])
                if i == 0 or x > top:
                    j, top = i, x
            return j
        if tag == CARGO:  # the lowest countdown
            j, low = 0, 0
            for i in range(nl):
                a = legal[i]
                c = v.cd[a[1]]
                if i == 0 or c < low:
                    j, low = i, c
            return j
        if tag == RETRIEVE:
            j, lowf = 0, 0.0
            for i in range(nl):
                a = legal[i]
                x = self._src_cost(v, a[1])
                if i == 0 or x < lowf:
                    j, lowf = i, x
            return j
        if tag == XSPACE:  # the preferred card, then the cheapest source
            j, rank, lowf = 0, 0, 0.0
            for i in range(nl):
                a = legal[i]
                r = _XRANK[a[1]]
                x = self._src_cost(v, a[2])
                if i == 0 or r < rank or (r == rank and x < lowf):
                    j, rank, lowf = i, r, x
            return j
        if tag == GOAL:
            return 0
        if tag == FPICK:  # the compartment most needed by the hand
            self._hand_types(v)
            need = self.need
            j, most = 0, 0
            for i in range(nl):
                a = legal[i]
                c = need[v.ctype[a[1]]]
                if i == 0 or c > most:
                    j, most = i, c
            return j
        # (a list's items are read natively; a Sequence's by a generic lookup)
        return self._best(v, legal if isinstance(legal, list) else list(legal))

    def _best(self, v: IssView, legal: list[Any]) -> int:
        """The general step (an action card, or an extra action): every action scored."""
        self._prep(v)
        k = self.k
        st = v.st
        sg = self.slot_gain
        wc = k.w_construct
        n, p = self.n, v.player
        colc = v.colc
        mine: list[int] = [0, 0, 0, 0]
        need4 = 0
        gpts = 0.0
        before = 0
        goal4 = (self.offered >> 4 & 1) == 1
        if goal4:
            for s in range(4):
                mine[s] = colc[s * n + p]
            need4 = st.needs[4]
            gpts = k.w_goal * float(st.goal_points)
            before = _top4(mine)
            goal4 = before < need4  # else no construction can approach the goal
        nl = len(legal)
        vals: list[float] = [0.0] * nl
        plan_val = 0.0
        plan_known = False
        cnt: list[int] = [0, 0, 0, 0]
        top = 0.0  # the best value so far (the first action's, then any higher)
        for i in range(nl):
            x = 0.0
            a: tuple[Any, ...] = legal[i]
            tag: int = a[0]
            if tag == CONSTRUCT and a[1]:
                tg: tuple[int, ...] = a[1]
                src: tuple[int, ...] = a[2]
                gain = 0.0
                for t in tg:
                    gain += sg[t]
                x = wc * float(len(tg)) + gain
                x = x - 0.3 * float(len(src))
                if goal4:
                    for s in range(4):
                        cnt[s] = mine[s]
                    for t in tg:
                        cnt[t] = cnt[t] + 1
                    for t in src:
                        if t < 4:
                            cnt[t] = cnt[t] - 1
                    ctop = _top4(cnt)
                    if ctop > before:
                        x += gpts if ctop >= need4 else gpts * 0.25 * float(ctop - before) \
                            / float(need4)
            elif tag == PLAN:  # the same value for every deck choice: score it once
                if not plan_known:
                    plan_val = self._value(v, a)
                    plan_known = True
                x = plan_val
            elif tag != PASS:  # (a pass is worth 0)
                x = self._value(v, a)
            vals[i] = x
            if i == 0 or x > top:
                top = x
        cut = top - 1e-9
        ties = self.ties
        ties.clear()
        for i in range(nl):
            if vals[i] >= cut:
                ties.append(i)
        if len(ties) == 1:
            return ties[0]
        return -1

    # -- helpers -------------------------------------------------------------------------------
    def _prep_time(self, v: IssView) -> None:
        """``late`` and ``iss_val``: how near the end the game is (all that ``_keep`` reads)."""
        d0, d1 = v.sdeck_n
        low = d0 if d0 < d1 else d1
        self.late = v.triggered or low <= 0 or v.final
        mid = low <= 1
        self.iss_val = 0.0 if v.final else self.k.w_iss * (0.6 if (self.late or mid) else 1.0)

    def _prep(self, v: IssView) -> None:
        p = v.player
        n = len(v.iss)
        self.n = n
        self._prep_time(v)
        astro = v.unity[p]
        cocc, ctype = v.cocc, v.ctype
        for j in range(len(cocc)):
            if cocc[j] == p and ctype[j] != LS:
                astro += 1
        self.my_astro = astro
        self.astro_incoming = v.sha[p] + v.sha[n + p]
        self.mat_incoming = v.shm[p] + v.shm[n + p]
        self._hand_types(v)
        colc = v.colc
        sg = self.slot_gain
        for s in range(4):  # my counter on each module slot against the best rival's
            b = s * n
            mine = colc[b + p]
            mx = colc[b]
            for q in range(1, n):
                if colc[b + q] > mx:
                    mx = colc[b + q]
            top = 0  # how many hold the most
            for q in range(n):
                if colc[b + q] == mx:
                    top += 1
            if mine < mx or top > 1:
                oth = mx
            elif n > 1:  # mine alone is the most: the best of the others
                oth = -1
                for q in range(n):
                    if q != p and colc[b + q] > oth:
                        oth = colc[b + q]
            else:
                oth = 0
            sg[s] = 0.4 if mine + 1 >= oth and mine <= oth + 1 else 0.0

    def _hand_types(self, v: IssView) -> None:
        """``need``: how many hand cards need each compartment type."""
        need = self.need
        for t in range(6):
            need[t] = 0
        exp_comps = v.st.exp_comps
        for e in v.hand:
            for t in exp_comps[e]:
                if t != ANY:
                    need[t] = need[t] + 1

    def _keep(self, v: IssView, legal: Sequence[Any]) -> int:
        self._prep_time(v)
        k = self.k
        st = v.st
        present = 0
        for t in v.ctype:
            present |= 1 << t
        vals: list[float] = []
        for e in v.drawn:
            comps = st.exp_comps[e]
            val = k.w_exp * float(st.exp_points[e]) - self.iss_val * float(st.exp_iss[e]) \
                - float(st.exp_ext[e])
            missing = 0
            for t in comps:
                if t != ANY and not present >> t & 1:
                    missing += 1
            val -= 1.5 * float(missing)
            extra = len(comps) - 2
            val -= 1.0 * float(extra if extra > 0 else 0)
            if self.late:
                val -= 3.0 + float(st.exp_level[e])
            vals.append(val - float(st.unperformed_penalty))
        best, best_v = 0, -1e9
        keep_min = k.keep_min
        for j in range(len(legal)):
            a: tuple[Any, ...] = legal[j]
            mask: int = a[1]
            tot = 0.0
            for i in range(len(vals)):
                if mask >> i & 1:
                    tot += vals[i] - keep_min
            if tot > best_v:
                best, best_v = j, tot
        return best

    def _src_cost(self, v: IssView, src: int) -> float:
        if src < 0:
            return 0.0
        if src >= 4:
            return 5.0
        n = len(v.iss)
        p = v.player
        colc = v.colc
        mine = colc[src * n + p]
        others = 0
        if n > 1:
            others = -1
            for q in range(n):
                if q != p and colc[src * n + q] > others:
                    others = colc[src * n + q]
        return 1.0 if mine > others + 1 or mine < others else 3.0

    def _goal_bonus(self, v: IssView, g: int, before: int, after: int) -> float:
        if not self.offered >> g & 1:
            return 0.0
        st = v.st
        need = st.needs[g]
        if before >= need or after <= before:
            return 0.0
        if after >= need:
            return self.k.w_goal * float(st.goal_points)
        return self.k.w_goal * float(st.goal_points) * 0.25 * float(after - before) / float(need)

    def _value(self, v: IssView, a: tuple[Any, ...]) -> float:
        k, st, p = self.k, v.st, v.player
        offered = self.offered
        tag: int = a[0]
        # (a goal bonus is 0.0 unless the goal is offered: the offer tests skip calls)
        if tag == OUTSIDE:
            m: int = a[1]
            val = k.w_outside * float(st.external_points) * float(m) - self.iss_val * float(m)
            if offered >> 7 & 1:
                val += self._goal_bonus(v, 7, v.ext[p], v.ext[p] + m)
            new: int = a[2]
            return val - 0.2 * float(new)
        if tag == TRAIN:
            total = self.my_astro + self.astro_incoming
            at = k.astro_target
            short = at - float(total)
            val = k.w_train * (short if short > 0.0 else 0.0) / (at if at > 1.0 else 1.0)
            val *= 2.0
            g2 = (offered >> 2 & 1) == 1
            ai = self.astro_incoming
            if g2:
                val += self._goal_bonus(v, 2, ai, ai + 1)
            if v.final:
                val = self._goal_bonus(v, 2, ai, ai + 1) if g2 else 0.0
            return val + 0.5 * (1.0 if v.cd[a[1]] <= 2 else 0.0)
        if tag == LOAD:
            m = len(a) - 1
            total = v.iss[p] + self.mat_incoming
            short = k.mat_target - float(total)
            if short < 0.0:
                short = 0.0
            fm = float(m)
            val = k.w_load * (fm if fm <= short else short) * (0.3 if self.late else 1.0)
            g3 = (offered >> 3 & 1) == 1
            mi = self.mat_incoming
            if g3:
                val += self._goal_bonus(v, 3, mi, mi + m)
            if v.final:
                val = self._goal_bonus(v, 3, mi, mi + m) if g3 else 0.0
            pads = 0  # the distinct pads loaded, as a bit mask
            for i in range(1, len(a)):
                r: int = a[i]
                pads |= 1 << r
            soon = 0.0
            for r in range(2):
                if pads >> r & 1 and v.cd[r] <= 2:
                    soon += 1.0
            return val + 0.2 * soon
        if tag == EXPERIMENT:
            e: int = a[1]
            val = k.w_exp * float(st.exp_points[e] + st.unperformed_penalty)
            val -= self.iss_val * float(st.exp_iss[e]) + float(st.exp_ext[e]) * k.w_outside
            done = v.done[p]
            nd = len(done)
            val += self._goal_bonus(v, 0, nd, nd + 1)
            lv = st.exp_level
            if lv[e] == 3:
                n3 = 0
                for d in done:
                    if lv[d] == 3:
                        n3 += 1
                val += self._goal_bonus(v, 1, n3, n3 + 1)
            mine = 0
            cls: tuple[int, ...] = a[2]
            for c in cls:
                mine += c & 1
            val -= 0.3 * float(mine) * float(0 if st.exp_long[e] else 1)
            return val + 2.0
        if tag == INSTALL:
            types: tuple[int, ...] = a[1]
            m = len(types)
            val = k.w_install * float(st.token_points) * float(m)
            need = self.need
            seen = 0  # the distinct types installed that the hand needs
            helped = 0
            for t in types:
                if not seen >> t & 1:
                    seen |= 1 << t
                    if need[t] > 0:
                        helped += 1
            val += k.w_enable * float(helped)
            tok = v.tok[p]
            val += self._goal_bonus(v, 5, tok, tok + m)
            if v.ls[p] >= 1 and _kinds(st.sh_nation, v.owned[p])[1] == 2:
                val += self._goal_bonus(v, 9, 0, 1) if tok == 0 else 0.0
            return val
        if tag == LONG_STAY:
            pts = st.long_stay_points
            ls = v.ls[p]
            gain = pts[ls + 1] - pts[ls]
            val = k.w_ls * float(gain) - self.iss_val
            val += self._goal_bonus(v, 6, ls, ls + 1)
            if not self.late:
                val -= 0.8  # the astronaut is locked until a replacement
            return val
        if tag == PLAN:
            if v.final or self.late:
                return -1.0
            short_h = k.hand_target - float(len(v.hand))
            return k.w_plan * (short_h if short_h > 0.0 else 0.0) - 0.5
        if tag == CONSTRUCT:  # (``_best`` scores the constructions with targets)
            return -2.0
        return 0.0

    def _countdown(self, v: IssView, r: int) -> float:
        k, st, p = self.k, v.st, v.player
        n = len(v.iss)
        # the action just done: the engine keeps it as the turn's action (public)
        dec = st.cd[v.cur_action]
        c = v.pad[r]
        sha, shm = v.sha, v.shm
        b = r * n
        mine = sha[b + p] + shm[b + p]
        others = 0
        for q in range(n):
            if q != p:
                others += sha[b + q] + shm[b + q]
        val = 0.3 * float(mine) - 0.15 * float(others)
        left = v.cd[r] - dec
        if left <= 0:
            owned = v.owned[p]
            types, ntypes = _kinds(st.sh_type, owned)
            sp = st.set_points
            gain = 0.0
            if not types >> st.sh_type[c] & 1:
                gain = float(sp[ntypes] - (sp[ntypes - 1] if ntypes else 0))
            w_goal = k.w_goal
            gain += self._goal_bonus(v, 8, len(owned), len(owned) + 1) \
                / (w_goal if w_goal > 1e-9 else 1e-9) * w_goal
            val += k.w_launch * gain + 1.0
        elif left == 1:
            val -= 0.5 * k.w_launch  # sets up the next player's launch
        return val


def _top4(x: list[int]) -> int:
    """The largest of the first four counts."""
    top = x[0]
    for i in range(1, 4):
        if x[i] > top:
            top = x[i]
    return top


def _kinds(kind_of: tuple[int, ...], owned: tuple[int, ...]) -> tuple[int, int]:
    """The kinds (``kind_of[card]``: a shuttle's nation or type) of the cards ``owned``: their
    bitmask and how many there are."""
    seen = 0
    count = 0
    for c in owned:
        if not seen >> kind_of[c] & 1:
            seen |= 1 << kind_of[c]
            count += 1
    return seen, count


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
