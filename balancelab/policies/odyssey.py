"""Scripted policies for *2001: A Space Odyssey* (HAL and crew), reading only their seat's view.

HAL policies:

* ``hal-pressure`` (default): every card scored against the position: a winning malfunction
  first, LIF pushed toward its limit, systems near their limit topped up, the POD BAY Doors
  closed when LIF is under attack and nobody is on the POD, doors closed where they lengthen
  the crew's way to the Core, Target/Scan at the crewmember closest to a Disconnect; reveals its
  least valuable cards (Lipread first, to silence the crew) and discards the least valuable.
* ``hal-lif``: races Life Support: LIF malfunctions whenever it holds one, else the POD BAY
  Doors, else the first card in hand order.
* ``hal-spread``: spreads malfunctions over GRV, MEM and COM for the three-systems win (LIF
  only when it wins), doors on the crew's route to the Core.

Crew policies (each crewmember decides from its own hand and public information; they
coordinate only through what ``crew_talk`` lets them announce, which HAL hears too):

* ``crew-team`` (default): repairs first when a system threatens HAL's win and it holds a fitting
  Repair card (LIF at the POD above ``lif_alarm``), carries a complete Logic sequence to the
  Core, otherwise draws at a Picturephone; cancels Lipread and revealed LIF malfunctions,
  opens doors on its way, gives Repair cards to their specialist, gives Logic cards to a
  teammate who announced the matching run (with ``crew_talk``), recovers the most useful card.
* ``crew-rush``: the Logic plan only (repairs only when standing on a system with a fitting
  card anyway, never detours to repair).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, cast

from balancelab.policies.base import Policy, register  # noqa: F401
from balancelab.simulate.core import Action, View
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.state import (
    BOWMAN,
    OP_ASK,
    OP_CANCEL,
    OP_DISCONNECT,
    OP_GIVE,
    OP_OPEN,
    OP_RECOVER,
    OP_REPAIR,
    REV,
    SPECIALITY,
    T_ACT,
    T_ASK_GIVE,
    T_HAL_DISCARD,
    T_HAL_PLAY,
    T_HAL_REVEAL,
    T_HAL_SCAN,
    T_HAL_TARGET,
    T_LIMIT,
    T_MOVE,
    T_RECOVER_TAKE,
    T_SCAN_DISCARD,
    WHITEHEAD,
    Ctx,
    OdysseyView,
    ctx_for,
)

GRV, MEM, COM, LIF = C.GRV, C.MEM, C.COM, C.LIF


def _windows(v: OdysseyView, ctx: Ctx) -> tuple[int, ...]:
    """Lowest numbers of the Logic windows still possible (no member in the crew TRASH)."""
    key = (v.logic_trashed, 0, False)
    w = ctx.windows_cache.get(key)
    if w is None:
        L = ctx.L
        gone = v.logic_trashed
        w = ctx.windows_cache[key] = tuple(
            low for low in range(1, 14 - L) if not any(gone >> (low + i) & 1 for i in range(L)))
    return w


class _OdysseyPolicy(Policy):
    """Shared set-up: the options' constants (board, limits), computed once."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ctx = ctx_for(self.options)  # type: ignore[arg-type]


# =============================================================================================
# HAL
# =============================================================================================


class HalPressure(_OdysseyPolicy):
    """Scores each HAL card against the position (see the module docstring)."""

    name = "hal-pressure"
    params: ClassVar[dict[str, Any]] = {"lif_weight": 3.0, "door7_weight": 1.0}
    plan = "pressure"

    def act(self, view: View, actions: Sequence[Action]) -> Action:
        v = view
        assert isinstance(v, OdysseyView)
        legal = cast("Sequence[int]", actions)
        ph = v.phase
        ctx = self.ctx
        if ph == T_HAL_PLAY:
            best = None
            best_score = -1e9
            for a in legal:
                k = a % 1000
                rev = k >= REV
                k %= REV
                sc = self.card_value(v, ctx, k) + (0.25 if rev else 0.0)
                if sc > best_score:
                    best, best_score = a, sc
            return best
        if ph == T_HAL_REVEAL:
            # reveal the card least worth keeping hidden (Lipread first: it silences the crew)
            return min(legal, key=lambda a: self.reveal_cost(v, ctx, a % 1000))
        if ph == T_HAL_DISCARD:
            return min(legal, key=lambda a: self.card_value(v, ctx, a % 1000 % REV)
                       + (0.5 if a % 1000 >= REV else 0.0))
        if ph == T_HAL_SCAN:
            return max(legal, key=lambda a: self.threat(v, ctx, a % 1000))
        if ph == T_HAL_TARGET:
            return self.target(v, ctx, legal)
        return legal[int(self.rng.integers(len(legal)))]

    # -- evaluation ------------------------------------------------------------------------
    def card_value(self, v: OdysseyView, ctx: Ctx, k: int) -> float:
        mal = v.malfunctions
        lim = ctx.limits
        down = sum(1 for i in range(4) if mal[i] >= lim[i])
        if k <= LIF:
            after = mal[k] + 1
            if k == LIF and after >= lim[LIF]:
                return 1000.0
            if k != LIF and mal[k] < lim[k] and down + 1 >= v.options.systems_to_win:
                return 1000.0
            if k == LIF:
                w = self.cfg["lif_weight"] if self.plan != "spread" else 0.5
                return 4.0 + w * mal[LIF]
            if mal[k] >= lim[k]:
                return 1.5  # buffer against a repair
            w = 2.0 if self.plan == "spread" else 1.0
            return 3.0 + w * mal[k] + 1.5 * down
        if k < C.H_TARGET:
            return self.door_value(v, ctx, k - C.H_DOOR1 + 1)
        if k == C.H_TARGET:
            return 3.0 + 0.5 * v.sequences
        if k == C.H_SCAN:
            return 2.0 + 0.4 * max(v.hand_n[1:])
        return -1.0  # Lipread: worth more revealed than played

    def door_value(self, v: OdysseyView, ctx: Ctx, d: int) -> float:
        if d == 7:
            on_pod = any(p == ctx.pod for p in v.pos[1:])
            if on_pod:
                return 0.5
            return self.cfg["door7_weight"] * (2.0 + 1.2 * v.malfunctions[LIF])
        before = ctx.dist(v.doors)
        doors = list(v.doors)
        doors[d] = 1
        after = ctx.dist(doors)
        gain = 0
        for s in range(1, len(v.pos)):
            p = v.pos[s]
            gain += min(after[p][ctx.core], 8) - min(before[p][ctx.core], 8)
        return 1.0 + 1.0 * gain

    def reveal_cost(self, v: OdysseyView, ctx: Ctx, k: int) -> float:
        if k == C.H_LIPREAD:
            return -10.0
        if k <= LIF:
            return 5.0 + (3.0 if k == LIF else 0.0)
        return self.card_value(v, ctx, k)

    def threat(self, v: OdysseyView, ctx: Ctx, seat: int) -> float:
        dist = ctx.dist(v.doors)
        return v.hand_n[seat] - 0.3 * min(dist[v.pos[seat]][ctx.core], 6)

    def target(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        wins = _windows(v, ctx)
        L = ctx.L
        # what the crew said (crew_talk): name a Logic card of the best announced run
        best = None
        best_sc = -1.0
        for s in range(1, len(v.pos)):
            said = v.talk[s]
            if not said or v.roles[s] < 0:
                continue
            held = set(said)
            for low in wins:
                run = [C.C_LOGIC1 + low - 1 + i for i in range(L)]
                have = [k for k in run if k in held]
                if have:
                    sc = len(have) + (0.5 if v.pos[s] == ctx.core else 0.0)
                    if sc > best_sc:
                        best_sc, best = sc, (s, have[0])
        if best is None:
            seat = max(range(1, len(v.pos)), key=lambda s: self.threat(v, ctx, s))
            # no information: the Logic number in the most still-possible windows
            counts = [0] * 13
            for low in wins:
                for i in range(L):
                    counts[low + i] += 1
            n = max(range(1, 13), key=lambda x: counts[x])
            best = (seat, C.C_LOGIC1 + n - 1)
        a = 10 * 1000 + best[0] * 32 + best[1]
        return a if a in legal else legal[0]


class HalLif(HalPressure):
    """Races Life Support (see the module docstring)."""

    name = "hal-lif"
    plan = "lif"

    def card_value(self, v: OdysseyView, ctx: Ctx, k: int) -> float:
        if k == LIF:
            return 100.0
        if k == C.hal_door(7):
            return 50.0
        return super().card_value(v, ctx, k)


class HalSpread(HalPressure):
    """Spreads malfunctions over GRV, MEM and COM (see the module docstring)."""

    name = "hal-spread"
    plan = "spread"


# =============================================================================================
# crew
# =============================================================================================


class CrewTeam(_OdysseyPolicy):
    """A crewmember of the team plan (see the module docstring)."""

    name = "crew-team"
    params: ClassVar[dict[str, Any]] = {"lif_alarm": 3, "sys_min": 2, "repair": True,
                               "carrier": True, "carrier_discards": True}

    def act(self, view: View, actions: Sequence[Action]) -> Action:
        v = view
        assert isinstance(v, OdysseyView)
        legal = cast("Sequence[int]", actions)
        ctx = self.ctx
        ph = v.phase
        if ph == T_MOVE:
            return self.move(v, ctx, legal)
        if ph == T_ACT:
            return self.action(v, ctx, legal)
        if ph in (T_LIMIT, T_SCAN_DISCARD):
            return min(legal, key=lambda a: self.value(v, ctx, a % 1000))
        if ph == T_ASK_GIVE:
            # Bowman asked: the carrier gets our best Logic card; else a LIF Repair (it doubles
            # in his hands); else our least useful card
            if self.carrier_seat(v) == v.actor:
                logic = [a for a in legal if a % 1000 >= C.C_LOGIC1
                         and self.value(v, ctx, a % 1000) > 0]
                if logic:
                    return max(logic, key=lambda a: self.value(v, ctx, a % 1000))
            if 16 * 1000 + C.C_REPAIR_LIF in legal:
                return 16 * 1000 + C.C_REPAIR_LIF
            return min(legal, key=lambda a: self.value(v, ctx, a % 1000))
        if ph == T_RECOVER_TAKE:
            return max(legal, key=lambda a: self.value(v, ctx, a % 1000, gain=True))
        return legal[int(self.rng.integers(len(legal)))]

    # -- values ----------------------------------------------------------------------------
    def value(self, v: OdysseyView, ctx: Ctx, k: int, gain: bool = False) -> float:
        """How much this crewmember wants card ``k`` (used to discard the least)."""
        role = v.roles[v.seat]
        hand = v.hand
        mal = v.malfunctions
        carrier = self.is_carrier(v)
        if k >= C.C_LOGIC1:
            n = k - C.C_LOGIC1 + 1
            best = 0
            L = ctx.L
            for low in _windows(v, ctx):
                if low <= n < low + L:
                    held = sum(1 for i in range(L) if hand[C.C_LOGIC1 + low - 1 + i])
                    if gain and not hand[k]:
                        held += 1
                    best = max(best, held)
            if best == 0:
                return 0.0
            if carrier:
                return 3.0 + 1.5 * best
            return 2.5 + 1.2 * best if self.carrier_seat(v) else 2.0 + 1.2 * best
        if carrier and self.cfg["carrier_discards"]:
            return 1.0 + (0.5 if k == C.C_REPAIR_LIF else 0.0)
        if k == C.C_WILD:
            return 4.0
        if k in (C.C_REPAIR_MEM, C.C_REPAIR_COM, C.C_REPAIR_GRV, C.C_REPAIR_LIF):
            sysk = C.REPAIR_SYSTEM[k]
            base = 3.5 if role == WHITEHEAD else 1.0
            if SPECIALITY.get(role) == k:
                base += 2.0
            if sysk == LIF:
                base += 1.5 + 0.3 * mal[LIF]
            elif mal[sysk] >= ctx.limits[sysk] - 1:
                base += 1.0
            return base
        if k == C.C_OVERRIDE:
            return 1.5 + (1.0 if any(d == 1 for d in v.doors[1:]) else 0.0)
        if k == C.C_CANCEL:
            return 2.0
        return 1.2  # Recover

    def carrier_seat(self, v: OdysseyView) -> int:
        """The seat Logic cards are funnelled to (the team's public convention), or 0."""
        if not self.cfg["carrier"]:
            return 0
        return v.roles.index(BOWMAN)

    def is_carrier(self, v: OdysseyView) -> bool:
        return self.carrier_seat(v) == v.seat

    def can_repair(self, v: OdysseyView, sysk: int) -> bool:
        hand = v.hand
        if hand[C.C_WILD] or hand[C.SYSTEM_REPAIR[sysk]]:
            return True
        return v.roles[v.seat] == WHITEHEAD and any(hand[k] for k in (1, 2, 3, 4))

    def sequence(self, v: OdysseyView, ctx: Ctx) -> int:
        """The lowest number of a complete allowed sequence in hand, or 0."""
        hand = v.hand
        L = ctx.L
        for low in _windows(v, ctx):
            if all(hand[C.C_LOGIC1 + low - 1 + i] for i in range(L)):
                if v.sequences == 1 and v.options.third_sequence_guard:
                    gone = v.logic_trashed
                    for i in range(L):
                        gone |= 1 << (low + i)
                    from balancelab.simulate.odyssey.state import _has_run
                    if not _has_run(gone, L):
                        continue
                return low
        return 0

    def urgent_system(self, v: OdysseyView, ctx: Ctx) -> int:
        """The system this crewmember should go and repair, or -1."""
        if not self.cfg["repair"]:
            return -1
        mal = v.malfunctions
        lim = ctx.limits
        pos = v.pos[v.seat]
        pod_taken = any(p == ctx.pod for s, p in enumerate(v.pos) if s and s != v.seat)
        alarm = self.cfg["lif_alarm"] + (1 if self.is_carrier(v) else 0)
        if mal[LIF] >= alarm and self.can_repair(v, LIF) and not pod_taken:
            return LIF
        dist = self.dist(v, ctx)
        reach = 2 * (v.options.move_grv_terminated if mal[GRV] >= lim[GRV] else v.options.move)
        best, best_sc = -1, 0.0
        for i in range(3):
            if mal[i] < self.cfg["sys_min"] or dist[pos][ctx.sys_space[i]] > reach:
                continue
            hand = v.hand
            typed = hand[C.SYSTEM_REPAIR[i]] or (v.roles[v.seat] == WHITEHEAD
                                                 and any(hand[k] for k in (1, 2, 3, 4)))
            if typed or (hand[C.C_WILD] and mal[i] >= lim[i] - 1):
                sc = mal[i] / lim[i] + (1.0 if mal[i] >= lim[i] - 1 else 0.0)
                if sc > best_sc:
                    best, best_sc = i, sc
        return best

    def goal(self, v: OdysseyView, ctx: Ctx) -> int:
        """Where this crewmember heads this turn."""
        pos = v.pos[v.seat]
        seq = self.sequence(v, ctx)
        if seq and v.malfunctions[LIF] < v.options.limit_lif - 2:
            return ctx.core
        urgent = self.urgent_system(v, ctx)
        if urgent >= 0:
            return ctx.sys_space[urgent]
        if seq:
            return ctx.core
        # draw: the Picturephone nearest to the Core (the team's camp)
        dist = self.dist(v, ctx)
        pps = [s for s in range(ctx.n_spaces) if ctx.board.picturephone[s]]
        return min(pps, key=lambda s: (dist[s][ctx.core], dist[pos][s], s))

    def dist(self, v: OdysseyView, ctx: Ctx) -> tuple[tuple[int, ...], ...]:
        return ctx.dist(v.doors)

    def move(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        g = self.goal(v, ctx)
        dist = self.dist(v, ctx)
        free = ctx.dist((0,) * 8)
        has_override = v.hand[C.C_OVERRIDE] > 0

        def cost(a: int) -> tuple[float, int]:
            d = a % 1000
            c = dist[d][g]
            if c >= 99:
                c = 20 + free[d][g] - (5 if has_override else 0)
            draw = 2 if ctx.board.picturephone[d] else (1 if ctx.space_system[d] in (0, 1, 2)
                                                         else 0)
            return (c, -draw)

        return min(legal, key=cost)

    def action(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        ops: dict[int, list[int]] = {}
        for a in legal:
            ops.setdefault(a // 1000, []).append(a % 1000)
        seat = v.seat
        role = v.roles[seat]
        mal = v.malfunctions
        lim = ctx.limits
        if OP_DISCONNECT in ops:
            return OP_DISCONNECT * 1000 + ops[OP_DISCONNECT][0]
        if OP_REPAIR in ops:
            best = None
            for arg in ops[OP_REPAIR]:
                sysk, k = divmod(arg, 32)
                worth = (sysk == LIF or mal[sysk] >= lim[sysk] - 1 or k != C.C_WILD)
                if not self.cfg["repair"] and sysk != LIF and mal[sysk] < lim[sysk]:
                    worth = False
                if worth:
                    pref = 0 if (k != C.C_WILD and SPECIALITY.get(role) == k) else (
                        1 if k != C.C_WILD else 2)
                    if best is None or pref < best[0]:
                        best = (pref, arg)
            if best is not None:
                return OP_REPAIR * 1000 + best[1]
        if OP_CANCEL in ops:
            rev = ops[OP_CANCEL]
            if C.H_LIPREAD in rev and v.options.crew_talk != "none":
                return OP_CANCEL * 1000 + C.H_LIPREAD
            if C.H_LIF in rev and mal[LIF] >= 2:
                return OP_CANCEL * 1000 + C.H_LIF
            for k in (GRV, MEM, COM):
                if k in rev and mal[k] >= lim[k] - 1:
                    return OP_CANCEL * 1000 + k
            if C.hal_door(7) in rev:
                return OP_CANCEL * 1000 + C.hal_door(7)
        if OP_OPEN in ops:
            g = self.goal(v, ctx)
            pos = v.pos[seat]
            dist = self.dist(v, ctx)
            for d in ops[OP_OPEN]:
                doors = list(v.doors)
                doors[d] = 2
                after = ctx.dist(doors)
                trapped = d == 7 and any(p == ctx.pod for p in v.pos[1:])
                if after[pos][g] < dist[pos][g] or trapped or (d == 7 and mal[LIF] >= 3):
                    return OP_OPEN * 1000 + d
        if OP_GIVE in ops:
            carrier = self.carrier_seat(v)
            if carrier and carrier != seat:
                gifts = [arg % 32 for arg in ops[OP_GIVE] if arg // 32 == carrier
                         and arg % 32 >= C.C_LOGIC1 and self.value(v, ctx, arg % 32) > 0]
                if gifts:
                    k = max(gifts, key=lambda k: self.value(v, ctx, k))
                    return OP_GIVE * 1000 + carrier * 32 + k
            if carrier == seat:
                junk = [arg for arg in ops[OP_GIVE] if arg % 32 < C.C_LOGIC1]
                if junk:
                    return OP_GIVE * 1000 + junk[0]
            for arg in ops[OP_GIVE]:
                t, k = divmod(arg, 32)
                spec = SPECIALITY.get(v.roles[t])
                if k == spec and k != SPECIALITY.get(role) and role != WHITEHEAD:
                    return OP_GIVE * 1000 + arg
                said = v.talk[t]
                if said is not None and k >= C.C_LOGIC1:
                    mine = self.value(v, ctx, k)
                    theirs = _talk_value(v, ctx, said, k)
                    if theirs > mine + 0.5:
                        return OP_GIVE * 1000 + arg
        if OP_ASK in ops and role == BOWMAN and (self.is_carrier(v)
                                                  or mal[LIF] >= self.cfg["lif_alarm"]):
            return OP_ASK * 1000 + max(ops[OP_ASK], key=lambda t: v.hand_n[t])
        if OP_RECOVER in ops:
            return OP_RECOVER * 1000
        return max(ops[0])  # end the turn, drawing the most


def _talk_value(v: OdysseyView, ctx: Ctx, said: tuple[int, ...], k: int) -> float:
    """How much a teammate who announced ``said`` would want Logic card ``k``."""
    n = k - C.C_LOGIC1 + 1
    held = set(said)
    L = ctx.L
    best = 0
    for low in _windows(v, ctx):
        if low <= n < low + L:
            best = max(best, 1 + sum(1 for i in range(L)
                                     if C.C_LOGIC1 + low - 1 + i in held))
    return 0.0 if best == 0 else 2.0 + 1.2 * best


class CrewRush(CrewTeam):
    """The Logic plan only (see the module docstring)."""

    name = "crew-rush"
    params: ClassVar[dict[str, Any]] = {"lif_alarm": 99, "sys_min": 99, "repair": False,
                               "carrier": False, "carrier_discards": False}


register("hal-pressure", HalPressure, games=["odyssey"], sides=["hal"],
         help="scores every card against the position: wins, LIF, systems near limit, doors")
register("hal-lif", HalLif, games=["odyssey"], sides=["hal"],
         help="races Life Support, then the POD BAY Doors")
register("hal-spread", HalSpread, games=["odyssey"], sides=["hal"],
         help="spreads malfunctions over GRV/MEM/COM for the three-systems win")
register("crew-team", CrewTeam, games=["odyssey"], sides=["crew"],
         help="repairs when a system threatens HAL's win, carries sequences to the Core")
register("crew-rush", CrewRush, games=["odyssey"], sides=["crew"],
         help="the Logic plan only: draw, carry sequences to the Core")

__all__ = ["CrewRush", "CrewTeam", "HalLif", "HalPressure", "HalSpread", "OP_RECOVER"]
