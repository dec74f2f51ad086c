"""HAL's scripted players (2001): ``hal-pressure``, ``hal-lif`` and ``hal-spread``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import i64

from balancelab.policies.base import RngSource, register
from balancelab.policies.odyssey.shared import (
    L1,
    _OdysseyPolicy,
    _windows,
)
from balancelab.simulate.core import Action, Game, View
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.cards import LIF
from balancelab.simulate.odyssey.state import (
    REV,
    T_HAL_DISCARD,
    T_HAL_PLAY,
    T_HAL_REVEAL,
    T_HAL_SCAN,
    T_HAL_TARGET,
    Ctx,
    OdysseyView,
)
from balancelab.simulate.options import RuleOptions

#: a cache that outlives one game: per Ctx, by ``closed mask * 8 + door`` (masks below 256),
#: what closing the door adds to each space's distance to the Core, both capped at 8
#: (:meth:`HalPressure.door_value`; None: not computed yet)
_DOOR_GAIN: Final[dict[Any, list[tuple[int, ...] | None]]] = {}


class HalPressure(_OdysseyPolicy):
    """Scores each HAL card against the position (see the module docstring)."""

    name = "hal-pressure"
    reads_history = False  # plays from the position only
    #: the tuned set (``balancelab tune``; presets ``tuned`` and, for the values before
    #: tuning, ``classic``: :mod:`balancelab.policies.presets`)
    params: ClassVar[dict[str, Any]] = {"lif_weight": 1.244, "door7_weight": 0.564,
                                        "sys_weight": 1.095, "down_weight": 0.4567,
                                        "door_gain": 3.203, "target_weight": 1.378,
                                        "scan_weight": 0.6376, "lipread_keep": 3.21}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "lif_weight": (0.0, 8.0), "door7_weight": (0.0, 4.0), "sys_weight": (0.0, 4.0),
        "down_weight": (0.0, 4.0), "door_gain": (0.0, 4.0), "target_weight": (0.0, 3.0),
        "scan_weight": (0.0, 2.0), "lipread_keep": (-2.0, 20.0)}
    plan = "pressure"

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        cfg = self.cfg
        self.lif_w = float(cfg["lif_weight"]) if self.plan != "spread" else 0.5
        self.sys_w = 2.0 if self.plan == "spread" else float(cfg["sys_weight"])
        self.down_w = float(cfg["down_weight"])
        self.door_gain = float(cfg["door_gain"])
        self.door7_w = float(cfg["door7_weight"])
        self.target_w = float(cfg["target_weight"])
        self.scan_w = float(cfg["scan_weight"])
        #: worth of a *revealed* Lipread when HAL must discard (it blocks every GIVE and all
        #: talk while it lies face up: LIPREAD CARD)
        self.lipread_keep = float(cfg["lipread_keep"])
        self.sys_to_win = self.ctx.systems_to_win
        #: :meth:`_down`'s last malfunction tuple and result
        self._mal: tuple[int, ...] = ()
        self._mal_down = 0
        gains = _DOOR_GAIN.get(self.ctx)
        if gains is None:
            gains = _DOOR_GAIN[self.ctx] = [None] * (256 * 8)
        self._door_gain = gains

    def act(self, view: View, actions: Sequence[Action]) -> Action:
        v: OdysseyView = view  # type: ignore[assignment]
        acts: Sequence[int] = actions  # type: ignore[assignment]
        legal: tuple[int, ...] = acts if isinstance(acts, tuple) else tuple(acts)
        ph = v.phase
        ctx = self.ctx
        if ph == T_HAL_PLAY:
            best = legal[0]
            best_score = -1e9
            down = self._down(v)
            for a in legal:
                arg = a - 9000  # OP_HAL_PLAY
                if arg >= REV:
                    sc = self.card_value(v, ctx, arg - REV, down) + 0.25  # shows a card less
                else:
                    sc = self.card_value(v, ctx, arg, down)
                if sc > best_score:
                    best, best_score = a, sc
            return best
        if ph == T_HAL_REVEAL:
            # reveal the card least worth keeping hidden (Lipread first: it silences the crew)
            down = self._down(v)
            best = legal[0]
            best_c = 1e18
            for a in legal:
                c = self.reveal_cost(v, ctx, a - 12000, down)  # OP_REVEAL
                if c < best_c:
                    best, best_c = a, c
            return best
        if ph == T_HAL_DISCARD:
            down = self._down(v)
            best = legal[0]
            best_c = 1e18
            for a in legal:
                arg = a % 1000
                if arg == REV + C.H_LIPREAD:
                    c = self.lipread_keep  # active: keep silencing the crew
                elif arg >= REV:
                    c = self.card_value(v, ctx, arg - REV, down) + 0.5
                else:
                    c = self.card_value(v, ctx, arg, down) + 0.0
                if c < best_c:
                    best, best_c = a, c
            return best
        if ph == T_HAL_SCAN:
            best = legal[0]
            best_t = -1e18
            for a in legal:
                t = self.threat(v, ctx, a % 1000)
                if t > best_t:
                    best, best_t = a, t
            return best
        if ph == T_HAL_TARGET:
            return self.target(v, ctx, legal)
        return legal[int(self.rng.integers(len(legal)))]

    # -- evaluation ------------------------------------------------------------------------
    def _down(self, v: OdysseyView) -> int:
        """The systems terminated (at their malfunction limit), remembered for the last
        malfunction tuple read (the state hands its views one tuple until a malfunction
        changes)."""
        mal = v.malfunctions
        if mal is not self._mal:
            lim = self.ctx.limits
            self._mal = mal
            self._mal_down = ((mal[0] >= lim[0]) + (mal[1] >= lim[1]) + (mal[2] >= lim[2])
                              + (mal[3] >= lim[3]))
        return self._mal_down

    def card_value(self, v: OdysseyView, ctx: Ctx, k: int, down: int) -> float:
        if k <= LIF:
            m = v.malfunctions[k]  # (each tuple read once: a checked call compiled)
            lim = ctx.limits[k]
            if k == LIF:
                if m + 1 >= lim:
                    return 1000.0
                return 4.0 + self.lif_w * m
            if m < lim and down + 1 >= self.sys_to_win:
                return 1000.0  # the third system (or a step towards it when two are down)
            if m >= lim:
                return 1.5  # buffer against a repair
            return 3.0 + self.sys_w * m + self.down_w * down
        if k < C.H_TARGET:
            return self.door_value(v, ctx, k - C.H_DOOR1 + 1)
        if k == C.H_TARGET:
            return 3.0 + self.target_w * v.sequences
        if k == C.H_SCAN:
            most = 0  # the most cards a crewmember holds
            hand_n = v.hand_n
            for s in range(1, len(hand_n)):
                if hand_n[s] > most:
                    most = hand_n[s]
            return 2.0 + self.scan_w * most
        return -1.0  # Lipread: worth more revealed than played

    def door_value(self, v: OdysseyView, ctx: Ctx, d: int) -> float:
        pos = v.pos
        if d == 7:
            pod = ctx.pod
            for p in pos:
                if p == pod:
                    return 0.5
            return self.door7_w * (2.0 + 1.2 * v.malfunctions[LIF])
        # (the gain per space, per closed mask and door: see _DOOR_GAIN)
        mask: i64 = v.closed_mask
        if mask < 256:
            i = mask * 8 + d
            row = self._door_gain[i]
            if row is None:
                row = self._door_gain[i] = self._gain_row(ctx, mask, d)
        else:
            row = self._gain_row(ctx, mask, d)
        gain = 0
        for j in range(1, len(pos)):
            gain += row[pos[j]]
        return 1.0 + self.door_gain * gain

    def _gain_row(self, ctx: Ctx, mask: int, d: int) -> tuple[int, ...]:
        """Per space, what closing door ``d`` over the doors of ``mask`` adds to its
        distance to the Core, both capped at 8."""
        # the Core's rows: dist[p][core] == dist[core][p] (the board's ways go both ways)
        core = ctx.core
        before = self.dists(mask)[core]
        after = self.dists(mask | 1 << d)[core]
        return tuple((x if x < 8 else 8) - (y if y < 8 else 8)
                     for x, y in zip(after, before, strict=True))

    def reveal_cost(self, v: OdysseyView, ctx: Ctx, k: int, down: int) -> float:
        if k == C.H_LIPREAD:
            return -10.0
        if k <= LIF:
            return 5.0 + (3.0 if k == LIF else 0.0)
        return self.card_value(v, ctx, k, down)

    def threat(self, v: OdysseyView, ctx: Ctx, seat: int) -> float:
        d = self.dists(v.closed_mask)[v.pos[seat]][ctx.core]
        return v.hand_n[seat] - 0.3 * (d if d < 6 else 6)

    def target(self, v: OdysseyView, ctx: Ctx, legal: tuple[int, ...]) -> Action:
        wins = _windows(v, ctx)
        L = ctx.L
        full = self.full
        core = ctx.core
        # what the crew said (crew_talk): name a Logic card of the best announced run
        best_s = 0
        best_k = 0
        best_sc = -1.0
        for s in range(1, len(v.pos)):
            said = v.talk[s]
            if not said or v.roles[s] < 0:
                continue
            held = 0  # bit n: Logic n announced
            for k in said:
                if k >= L1:
                    held |= 2 << (k - L1)
            near = 0.5 if v.pos[s] == core else 0.0
            for low in wins:
                have = (held >> low) & full
                if have:
                    n = low  # the lowest Logic number held in the run
                    while not have & 1:
                        have >>= 1
                        n += 1
                    count = 0
                    while have:
                        count += have & 1
                        have >>= 1
                    sc = count + near
                    if sc > best_sc:
                        best_sc, best_s, best_k = sc, s, L1 + n - 1
        if not best_s:
            best_t = -1e18
            for s in range(1, len(v.pos)):
                t = self.threat(v, ctx, s)
                if t > best_t:
                    best_t, best_s = t, s  # the first most threatening
            # no information: the Logic number in the most still-possible windows
            counts = [0] * 13
            for low in wins:
                for i in range(L):
                    counts[low + i] += 1
            n = 1
            for x in range(2, 13):
                if counts[x] > counts[n]:
                    n = x
            best_k = L1 + n - 1
        a = 10 * 1000 + best_s * 32 + best_k
        for x in legal:
            if x == a:
                return x  # the offered object (the game loop finds it by identity)
        return legal[0]


#: hal-pressure's values before tuning (preset ``classic``; hal-lif and hal-spread keep them)
HAL_CLASSIC: Final[dict[str, Any]] = {"lif_weight": 3.0, "door7_weight": 1.0,
                                      "sys_weight": 1.0, "down_weight": 1.5, "door_gain": 1.0,
                                      "target_weight": 0.5, "scan_weight": 0.4,
                                      "lipread_keep": 8.0}


class HalLif(HalPressure):
    """Races Life Support (see the module docstring)."""

    name = "hal-lif"
    params: ClassVar[dict[str, Any]] = dict(HAL_CLASSIC)
    plan = "lif"

    def card_value(self, v: OdysseyView, ctx: Ctx, k: int, down: int) -> float:
        if k == LIF:
            return 100.0
        if k == C.hal_door(7):
            return 50.0
        return super().card_value(v, ctx, k, down)


class HalSpread(HalPressure):
    """Spreads malfunctions over GRV, MEM and COM (see the module docstring)."""

    name = "hal-spread"
    params: ClassVar[dict[str, Any]] = dict(HAL_CLASSIC)
    plan = "spread"


register("hal-pressure", HalPressure, games=["odyssey"], sides=["hal"],
         help="scores every card against the position: wins, LIF, systems near limit, doors")
register("hal-lif", HalLif, games=["odyssey"], sides=["hal"],
         help="races Life Support, then the POD BAY Doors")
register("hal-spread", HalSpread, games=["odyssey"], sides=["hal"],
         help="spreads malfunctions over GRV/MEM/COM for the three-systems win")
