"""The crew's scripted players (2001): ``crew-team`` and ``crew-rush``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from mypy_extensions import i64

from balancelab.policies.base import PolicyError, RngSource, register
from balancelab.policies.odyssey.discards import CrewWorths, _has_window
from balancelab.policies.odyssey.shared import (
    _CAMP,
    L1,
    _logic_mask,
    _occupied,
    _OdysseyPolicy,
    _windows,
)
from balancelab.simulate.core import Action, Game, View
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.cards import COM, GRV, LIF, MEM
from balancelab.simulate.odyssey.rules import CREWMEMBERS
from balancelab.simulate.odyssey.state import (
    BOWMAN,
    OP_ASK,
    OP_CANCEL,
    OP_DISCONNECT,
    OP_GIVE,
    OP_OPEN,
    OP_RECOVER,
    OP_REPAIR,
    POOLE,
    SPECIALITY,
    T_ACT,
    T_ASK_GIVE,
    T_LIMIT,
    T_MOVE,
    T_RECOVER_TAKE,
    T_SCAN_DISCARD,
    WHITEHEAD,
    Ctx,
    OdysseyView,
    _has_run,
)
from balancelab.simulate.options import RuleOptions

#: the kind of the Close Door card of the POD BAY Doors (read once: a module's function
#: called through its attribute costs a Python call)
_DOOR7: Final = C.hal_door(7)

#: crew-team's numeric choices (parameters; see :class:`CrewTeam`) and their ranges
_CREW_NUMBERS: Final[dict[str, Any]] = {
    "pod_alarm": 4, "pod_open_lif": 3, "run_bonus": 3.0, "carrier_logic": 3.0,
    "carrier_step": 1.5, "feeder_logic": 2.5, "feeder_step": 1.2, "wild_value": 4.0,
    "override_pod": 2.0, "override_pod_lif": 0.5, "lif_repair_lif": 0.3,
}
_CREW_RANGES: Final[dict[str, tuple[float, float]]] = {
    "lif_alarm": (1, 7), "sys_min": (0, 4), "pod_alarm": (0, 8), "pod_open_lif": (0, 7),
    "run_bonus": (0.0, 12.0), "carrier_logic": (0.0, 6.0), "carrier_step": (0.0, 4.0),
    "feeder_logic": (0.0, 6.0), "feeder_step": (0.0, 4.0), "wild_value": (0.0, 8.0),
    "override_pod": (0.0, 6.0), "override_pod_lif": (0.0, 2.0), "lif_repair_lif": (0.0, 1.5),
}


class _CrewParams:
    """A crew policy's parameters (see :class:`CrewTeam`), read and converted once, and what
    they derive from the options: shared by the players of one class, Ctx and parameter
    set (never mutated; ``camp`` and ``worths`` hold caches shared by the options).

    Raises:
        PolicyError: ``carrier_role`` is not a crewmember.
    """

    def __init__(self, name: str, cfg: dict[str, Any], ctx: Ctx, options: Any) -> None:
        self.lif_alarm = int(cfg["lif_alarm"])
        self.sys_min = int(cfg["sys_min"])
        self.repair_on = bool(cfg["repair"])
        self.carrier_on = bool(cfg["carrier"])
        self.camp_shared = bool(cfg["camp_shared"])
        self.cancel_lipread = bool(cfg["cancel_lipread"])
        self.door_duty = bool(cfg["door_duty"])
        self.detour = bool(cfg["detour"])
        self.no_loop = bool(cfg["no_loop"])
        self.gift_room = bool(cfg["gift_room"])
        self.pod_alarm = int(cfg["pod_alarm"])
        self.pod_open_lif = int(cfg["pod_open_lif"])
        if str(cfg["carrier_role"]) not in CREWMEMBERS:
            raise PolicyError(f"policy {name!r}: carrier_role must be one of "
                              f"{', '.join(CREWMEMBERS)}; got {cfg['carrier_role']!r}")
        self.carrier_role = CREWMEMBERS.index(str(cfg["carrier_role"]))
        #: the camp by closed-door mask below 256 (-1: not computed yet); shared by the
        #: policies of these options (board facts only)
        camp = _CAMP.get(ctx)
        if camp is None:
            camp = _CAMP[ctx] = [-1] * 256
        self.camp: list[int] = camp
        self.worths = CrewWorths(
            ctx, bool(cfg["carrier_discards"]), bool(cfg["keep_override"]),
            float(cfg["wild_value"]), float(cfg["override_pod"]), float(cfg["override_pod_lif"]),
            float(cfg["lif_repair_lif"]),
            (float(cfg["carrier_logic"]), float(cfg["carrier_step"])),
            (float(cfg["feeder_logic"]), float(cfg["feeder_step"])), float(cfg["run_bonus"]))
        #: twice the move allowance (how far a repair detour may lead), GRV up / down
        self.reach2: tuple[int, ...] = (2 * options.move, 2 * options.move_grv_terminated)
        b = ctx.board
        #: preference among equally near destinations: cards drawn there
        self.draw_pref = tuple(-2 if b.picturephone[d] else (-1 if 0 <= ctx.space_system[d] < 3
                                                              else 0)
                               for d in range(ctx.n_spaces))


#: :class:`_CrewParams` by (policy class, Ctx, the parameters given)
_PARAMS: Final[dict[Any, _CrewParams]] = {}


class CrewTeam(_OdysseyPolicy):
    """A crewmember of the team plan (see the module docstring).

    Parameters: ``lif_alarm`` (LIF malfunctions at which a repairer heads for the POD),
    ``sys_min`` (malfunctions at which a repairer detours to a GRV/MEM/COM system it can
    repair), ``repair`` (repair at all), ``carrier`` (funnel Logic cards to Bowman),
    ``carrier_discards`` (the carrier values only Logic cards, and the cards that save the
    ship: a Manual Override while the POD BAY Doors are closed, a LIF Repair);
    ``pod_alarm`` (LIF malfunctions at which a holder of a Manual Override goes and opens
    the closed POD BAY Doors, Door 7), ``pod_open_lif`` (LIF malfunctions from which an
    Override opens Door 7 whatever the route), ``run_bonus`` (worth of holding a complete
    allowed sequence, over its cards' own worth: hand-limit discards keep the best *hand*),
    ``carrier_logic``/``carrier_step`` and ``feeder_logic``/``feeder_step`` (a Logic card's
    worth: base + step x cards held in its best window, for the carrier and the others),
    ``wild_value`` (a ??? Repair), ``override_pod``/``override_pod_lif`` (a Manual
    Override's extra worth while Door 7 is closed: base + per LIF malfunction),
    ``lif_repair_lif`` (a LIF Repair's extra worth per LIF malfunction).
    Giving: Logic cards go to the carrier only while his hand has room (a card over his Hand
    Size is discarded at once, HAND SIZE), and he asks only while his own hand has room.
    """

    name = "crew-team"
    reads_history = False  # plays from the position only
    params: ClassVar[dict[str, Any]] = {"lif_alarm": 4, "sys_min": 2, "repair": True,
                                        "carrier": True, "carrier_discards": True,
                                        "camp_shared": True, "cancel_lipread": True,
                                        "keep_override": True,
                                        "door_duty": True, "detour": True,
                                        "no_loop": True, "carrier_role": "bowman",
                                        "gift_room": False, **_CREW_NUMBERS}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = dict(_CREW_RANGES)

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        # the parameters, read once per (class, options, parameters): an ISMCTS iteration
        # makes three of these players
        key = (type(self), self.ctx, tuple(params.items()))
        par = _PARAMS.get(key)
        if par is None:
            if len(_PARAMS) > 256:
                _PARAMS.clear()  # many parameter sets (``balancelab tune``): start afresh
            par = _PARAMS[key] = _CrewParams(self.name, self.cfg, self.ctx, self.options)
        self.par = par
        #: the worths of cards and hands (values, discards)
        self.worths = par.worths
        self._roles: tuple[int, ...] = ()
        self._carrier = 0
        #: the last hand tuple :meth:`held_logic` read, and its Logic mask
        self._hand: tuple[int, ...] = ()
        self._hand_logic = 0
        #: the last malfunction tuple :meth:`urgent_system` found nothing to do at
        self._calm: tuple[int, ...] = ()

    def act(self, view: View, actions: Sequence[Action]) -> Action:
        v: OdysseyView = view  # type: ignore[assignment]
        legal: Sequence[int] = actions  # type: ignore[assignment]
        ctx = self.ctx
        ph = v.phase
        if ph == T_MOVE:
            return self.move(v, ctx, legal)
        if ph == T_ACT:
            return self.action(v, ctx, legal)
        if ph == T_LIMIT or ph == T_SCAN_DISCARD:
            return self.worths.discard(v, ctx, legal, self.carrier_seat(v))
        if ph == T_ASK_GIVE:
            # Bowman asked: the carrier gets our best Logic card; else a LIF Repair (it doubles
            # in his hands); else our least useful card
            vals = self.values(v, ctx)
            if self.carrier_seat(v) == v.actor:
                best = -1
                for a in legal:  # the first most wanted Logic card worth something
                    k = a % 1000
                    if k >= L1 and vals[k] > 0 and (best < 0 or vals[k] > vals[best % 1000]):
                        best = a
                if best >= 0:
                    return best
            if 16 * 1000 + C.C_REPAIR_LIF in legal and not (
                    self.par.no_loop and self.carrier_seat(v) == v.actor):
                return 16 * 1000 + C.C_REPAIR_LIF
            return _first_best(legal, vals, -1.0)
        if ph == T_RECOVER_TAKE:
            return _first_best(legal, self.values(v, ctx, gain=True), 1.0)
        return legal[int(self.rng.integers(len(legal)))]

    # -- values ----------------------------------------------------------------------------
    def values(self, v: OdysseyView, ctx: Ctx, gain: bool = False,
               hand: Sequence[int] | None = None) -> list[float]:
        """How much this crewmember wants each crew card kind (used to discard the least,
        or, with ``gain``, to take the most): a list of 20 floats, by crew card kind.
        ``hand`` (counts per kind) replaces the view's hand (to score a hand after a
        discard)."""
        carrier_seat = self.carrier_seat(v)
        worths = self.worths
        out = worths.base_values(v, ctx, carrier_seat == v.seat)[:L1]  # (Logic: the last 12)
        lm = self.held_logic(v.hand) if hand is None else _logic_mask(tuple(hand))
        out.extend(worths.logic_values(v, ctx, carrier_seat, lm, gain))
        return out

    def held_logic(self, hand: tuple[int, ...]) -> int:
        """The Logic mask of ``hand`` (:func:`_logic_mask`), remembered for the last hand
        tuple read (the state hands its views one tuple per hand until the hand changes:
        the same tuple, the same cards)."""
        if hand is not self._hand:
            self._hand = hand
            self._hand_logic = _logic_mask(hand)
        return self._hand_logic

    def has_room(self, v: OdysseyView, ctx: Ctx, seat: int) -> bool:
        """Whether ``seat`` can take a card without going over its Hand Size (public: its
        card count, its role, the MEM tile)."""
        if not self.par.gift_room:
            return True
        size = ctx.hand_sizes[v.roles[seat] == POOLE][v.malfunctions[MEM] >= ctx.limits[MEM]]
        return v.hand_n[seat] < size

    def carrier_seat(self, v: OdysseyView) -> int:
        """The seat Logic cards are funnelled to (the team's public convention), or 0."""
        if not self.par.carrier_on:
            return 0
        roles = v.roles
        if roles is not self._roles and roles != self._roles:  # (views share the state's)
            self._roles = roles
            if self.par.carrier_role != BOWMAN and self.par.carrier_role in roles:
                self._carrier = roles.index(self.par.carrier_role)
            else:
                self._carrier = roles.index(BOWMAN)
        return self._carrier

    def can_repair(self, v: OdysseyView, sysk: int) -> bool:
        hand = v.hand
        if hand[C.C_WILD] or hand[C.SYSTEM_REPAIR[sysk]]:
            return True
        return v.roles[v.seat] == WHITEHEAD and bool(hand[1] or hand[2] or hand[3] or hand[4])

    def sequence(self, v: OdysseyView, ctx: Ctx) -> int:
        """The lowest number of a complete allowed sequence in hand, or 0."""
        lm = self.held_logic(v.hand)
        if not _has_window(lm, ctx.L):
            return 0  # (the common case, in a few machine operations)
        full = self.full
        L = ctx.L
        for low in _windows(v, ctx):
            if (lm >> low) & full == full:
                if v.sequences == 1 and ctx.third_sequence_guard:
                    if not _has_run(v.logic_trashed | full << low, L):
                        continue
                return low
        return 0

    def urgent_system(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """The system this crewmember should go and repair, or -1."""
        if not self.par.repair_on:
            return -1
        mal = v.malfunctions
        if mal is self._calm:
            return -1  # the same malfunctions (tuple) as last time: still nothing to do
        seat = v.seat
        sys_min = self.par.sys_min
        lif_check = mal[LIF] >= self.par.lif_alarm
        if not lif_check and mal[0] < sys_min and mal[1] < sys_min and mal[2] < sys_min:
            self._calm = mal
            return -1  # nothing to do (the common case)
        lim = ctx.limits
        pos = v.pos[seat]
        if lif_check:
            pod = ctx.pod
            pod_taken = pod != pos and _occupied(v.pos, pod)
            alarm = self.par.lif_alarm + (1 if self.carrier_seat(v) == seat else 0)
            if mal[LIF] >= alarm and not pod_taken and self.can_repair(v, LIF):
                return LIF
        reach = self.par.reach2[mal[GRV] >= lim[GRV]]
        hand = v.hand
        white = v.roles[seat] == WHITEHEAD
        row = dist[pos]
        best, best_sc = -1, 0.0
        for i in range(3):
            m = mal[i]  # (each tuple read once: a checked call compiled)
            if m < sys_min or row[ctx.sys_space[i]] > reach:
                continue
            n = lim[i]
            typed = hand[C.SYSTEM_REPAIR[i]] > 0 or (white and (
                hand[1] > 0 or hand[2] > 0 or hand[3] > 0 or hand[4] > 0))
            if typed or (hand[C.C_WILD] > 0 and m >= n - 1):
                sc = m / n + (1.0 if m >= n - 1 else 0.0)
                if sc > best_sc:
                    best, best_sc = i, sc
        return best

    def goal(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """Where this crewmember heads this turn."""
        pos = v.pos[v.seat]
        seq = self.sequence(v, ctx)
        if seq and v.malfunctions[LIF] < ctx.limit_lif - 2:
            return ctx.core
        if (v.closed_mask >> 7 & 1 and v.malfunctions[LIF] >= self.par.pod_alarm
                and v.hand[C.C_OVERRIDE] > 0 and not _occupied(v.pos, ctx.pod)):
            # the POD BAY Doors shut the LIF repairs out: go and open them (OPEN)
            a, b = ctx.board.door_spaces[7]
            return a if dist[pos][a] <= dist[pos][b] else b
        urgent = self.urgent_system(v, ctx, dist)
        if urgent >= 0:
            return ctx.sys_space[urgent]
        if seq:
            return ctx.core
        # draw: the Picturephone nearest to the Core (the team's camp)
        core = ctx.core
        if self.par.camp_shared:  # one camp for all (a public convention): feeders meet the carrier
            camp = self.camp(v, ctx, dist)
            if self.par.door_duty and dist[camp][core] >= 99 and v.hand[C.C_OVERRIDE]:
                # the Core is cut off from the camp: go and open the door that reconnects it
                d = self.door_to_open(v, ctx, camp)
                if d:
                    a, b = ctx.board.door_spaces[d]
                    return a if dist[pos][a] <= dist[pos][b] else b
            return camp
        return self.nearest_draw(dist, pos, core)

    def nearest_draw(self, dist: tuple[tuple[int, ...], ...], pos: int, core: int) -> int:
        """The Picturephone nearest to the Core, then to ``pos`` (a method of its own: a
        ``key=`` lambda makes its caller build a closure at every call, compiled)."""
        return min(self.pps, key=lambda s: (dist[s][core], dist[pos][s], s))

    def camp(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """The team's camp (a public convention, the same for every crewmember): the
        Picturephone nearest to the Core, by the open route, else by the route through the
        closed doors."""
        mask = v.closed_mask
        camp = self.par.camp[mask] if mask < 256 else -1
        if camp < 0:
            camp = self.new_camp(ctx, dist)
            if mask < 256:
                self.par.camp[mask] = camp
        return camp

    def new_camp(self, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """:meth:`camp`, computed (a method of its own: see :meth:`nearest_draw`)."""
        core = ctx.core
        free = self.free
        return min(self.pps, key=lambda s: (min(dist[s][core], 50 + free[s][core]), s))

    def door_to_open(self, v: OdysseyView, ctx: Ctx, camp: int) -> int:
        """The closed door whose opening brings the Core nearest to the camp, or 0."""
        core = ctx.core
        mask = v.closed_mask
        best, best_d = 0, self.dists(mask)[camp][core]
        for d in range(1, 8):
            if mask >> d & 1:
                dd = self.dists(mask & ~(1 << d))[camp][core]
                if dd < best_d:
                    best, best_d = d, dd
        return best

    def move(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        acts: tuple[int, ...] = legal if isinstance(legal, tuple) else tuple(legal)
        dist = self.dists(v.closed_mask)
        g = self.goal(v, ctx, dist)
        has_override = v.hand[C.C_OVERRIDE] > 0
        pos = v.pos[v.seat]
        if self.par.detour and dist[pos][g] >= 99:
            g = self.detour_target(v, ctx, dist, pos, g, has_override)
        pref = self.par.draw_pref
        best = acts[0]
        best_c: i64 = 1 << 30
        # the goal's rows: dist[d][g] == dist[g][d] (the board's ways go both ways), read once
        to_g = dist[g]
        free_g = self.free[g]
        off: i64 = 5 if has_override else 0
        for a in acts:
            d = a - 8000  # OP_MOVE
            c: i64 = to_g[d]  # (machine integers compiled)
            if c >= 99:
                c = 20 + free_g[d] - off
            c = c * 4 + pref[d]
            if c < best_c:
                best, best_c = a, c
        return best

    def detour_target(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...],
                      pos: int, g: int, has_override: bool) -> int:
        """Where to go when closed doors cut ``pos`` off from the goal ``g``: with a Manual
        Override, to the nearer side of the closed door whose opening brings ``g`` nearest
        (the OPEN action then opens it); without one, to the reachable Picturephone nearest
        to ``g`` through the doors (draw while waiting), else stay."""
        mask = v.closed_mask
        if has_override:
            best_d, best = 0, 99
            for d in range(1, 8):
                if mask >> d & 1:
                    a, b = ctx.board.door_spaces[d]
                    if dist[pos][a] >= 99 and dist[pos][b] >= 99:
                        continue
                    dd = self.dists(mask & ~(1 << d))[pos][g]
                    if dd < best:
                        best_d, best = d, dd
            if best_d:
                a, b = ctx.board.door_spaces[best_d]
                return a if dist[pos][a] <= dist[pos][b] else b
        reach = [s for s in self.pps if dist[pos][s] < 99]
        if reach:
            return self.nearest_to(reach, g)
        return pos

    def nearest_to(self, spaces: list[int], g: int) -> int:
        """The space of ``spaces`` nearest to ``g`` through the doors, the lowest first
        (``min`` by (distance, space), without a Python call per space)."""
        to_g = self.free[g]  # (free[s][g] == free[g][s]: the board's ways go both ways)
        best = spaces[0]
        best_d = to_g[best]
        for s in spaces:
            d = to_g[s]
            if d < best_d or (d == best_d and s < best):
                best, best_d = s, d
        return best

    def action(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        acts: tuple[int, ...] = legal if isinstance(legal, tuple) else tuple(legal)
        if acts[-1] < 1000:  # only "end and draw k" (END actions come first)
            return acts[-1]
        present: i64 = 0  # bit op set when an action of kind op is legal (machine integers)
        for a in acts:
            op: i64 = a
            present |= 1 << (op // 1000)
        seat = v.seat
        role = v.roles[seat]
        mal = v.malfunctions
        lim = ctx.limits
        if present >> OP_DISCONNECT & 1:
            return OP_DISCONNECT * 1000 + _args(acts, OP_DISCONNECT)[0]
        if present >> OP_REPAIR & 1:
            best_pref = 3
            best_arg = 0
            spec = SPECIALITY.get(role, -1)
            for arg in _args(acts, OP_REPAIR):
                sysk = arg // 32
                k = arg % 32
                worth = (sysk == LIF or mal[sysk] >= lim[sysk] - 1 or k != C.C_WILD)
                if not self.par.repair_on and sysk != LIF and mal[sysk] < lim[sysk]:
                    worth = False
                if worth:
                    pref = 0 if (k != C.C_WILD and spec == k) else (1 if k != C.C_WILD else 2)
                    if pref < best_pref:
                        best_pref, best_arg = pref, arg
            if best_pref < 3:
                return OP_REPAIR * 1000 + best_arg
        if present >> OP_CANCEL & 1:
            rev = _args(acts, OP_CANCEL)
            if C.H_LIPREAD in rev and (ctx.crew_talk != "none" or (
                    self.par.cancel_lipread and self.par.carrier_on)):
                return OP_CANCEL * 1000 + C.H_LIPREAD
            if C.H_LIF in rev and mal[LIF] >= 2:
                return OP_CANCEL * 1000 + C.H_LIF
            for k in (GRV, MEM, COM):
                if k in rev and mal[k] >= lim[k] - 1:
                    return OP_CANCEL * 1000 + k
            if _DOOR7 in rev:
                return OP_CANCEL * 1000 + _DOOR7
        if present >> OP_OPEN & 1:
            dist = self.dists(v.closed_mask)
            g = self.goal(v, ctx, dist)
            pos = v.pos[seat]
            best_open, best_gain = 0, 0
            for d in _args(acts, OP_OPEN):
                after = self.dists(v.closed_mask & ~(1 << d))
                if d == 7 and (_occupied(v.pos, ctx.pod) or mal[LIF] >= self.par.pod_open_lif):
                    return OP_OPEN * 1000 + d  # someone trapped on the POD, or LIF in danger
                gain = dist[pos][g] - after[pos][g]
                if gain <= 0 and self.par.door_duty:
                    camp = self.camp(v, ctx, dist)
                    gain = dist[camp][ctx.core] - after[camp][ctx.core]
                if gain > best_gain:
                    best_open, best_gain = d, gain
            if best_open:
                return OP_OPEN * 1000 + best_open
        if present >> OP_GIVE & 1:
            gives = _args(acts, OP_GIVE)
            carrier = self.carrier_seat(v)
            vals: list[float] = []  # :meth:`values`, once needed
            if carrier and carrier != seat and self.has_room(v, ctx, carrier):
                vals = self.values(v, ctx)
                best_k = -1
                for arg in gives:
                    k = arg % 32
                    if arg // 32 == carrier and k >= L1 and vals[k] > 0 and (
                            best_k < 0 or vals[k] > vals[best_k]):
                        best_k = k  # the first most wanted Logic card
                if best_k >= 0:
                    return OP_GIVE * 1000 + carrier * 32 + best_k
            if carrier == seat:
                for arg in gives:
                    if arg % 32 < L1:
                        return OP_GIVE * 1000 + arg  # the first card that is not Logic
            spec = SPECIALITY.get(role, -1)
            for arg in gives:
                t = arg // 32
                k = arg % 32
                if self.par.no_loop and t == carrier:
                    continue  # the carrier passes non-Logic cards on: give him Logic only
                if k == SPECIALITY.get(v.roles[t], -1) and k != spec and role != WHITEHEAD:
                    return OP_GIVE * 1000 + arg
                said = v.talk[t]
                if said is not None and k >= L1:
                    if not vals:
                        vals = self.values(v, ctx)
                    theirs = _talk_value(v, ctx, said, k)
                    if theirs > vals[k] + 0.5:
                        return OP_GIVE * 1000 + arg
        if present >> OP_ASK & 1 and role == BOWMAN and self.has_room(v, ctx, seat) and (
                self.carrier_seat(v) == seat or mal[LIF] >= self.par.lif_alarm):
            asked = _args(acts, OP_ASK)
            best_t = asked[0]
            for t in asked:
                if v.hand_n[t] > v.hand_n[best_t]:
                    best_t = t  # the first who holds the most cards
            return OP_ASK * 1000 + best_t
        if present >> OP_RECOVER & 1:
            return OP_RECOVER * 1000
        return _last_end(acts)  # end the turn, drawing the most


def _first_best(legal: Sequence[int], vals: list[float], sign: float) -> int:
    """The first action of ``legal`` whose card (``action % 1000``, a crew card kind) has
    the highest ``sign * vals[kind]`` (``max``/``min`` by ``vals`` with a key, without a
    Python call per action)."""
    best = legal[0]
    best_v = sign * vals[best % 1000]
    for a in legal:
        val = sign * vals[a % 1000]
        if val > best_v:
            best, best_v = a, val
    return best


def _args(acts: tuple[int, ...], op: int) -> list[int]:
    """The arguments of the actions of kind ``op`` (``op * 1000 + argument``) in ``acts``,
    in order."""
    lo = op * 1000
    return [a - lo for a in acts if lo <= a < lo + 1000]


def _last_end(acts: tuple[int, ...]) -> int:
    """The END action drawing the most (``max(_args(acts, 0))`` without a list or a Python
    call): the highest action below 1000."""
    best = -1
    for a in acts:
        if a < 1000 and a > best:
            best = a
    return best


def _talk_value(v: OdysseyView, ctx: Ctx, said: tuple[int, ...], k: int) -> float:
    """How much a teammate who announced ``said`` would want Logic card ``k``."""
    n = k - L1 + 1
    held = set(said)
    L = ctx.L
    best = 0
    for low in _windows(v, ctx):
        if low <= n < low + L:
            best = max(best, 1 + sum(1 for i in range(L) if L1 + low - 1 + i in held))
    return 0.0 if best == 0 else 2.0 + 1.2 * best


class CrewRush(CrewTeam):
    """The Logic plan only (see the module docstring)."""

    name = "crew-rush"
    params: ClassVar[dict[str, Any]] = {"lif_alarm": 99, "sys_min": 99, "repair": False,
                                        "carrier": False, "carrier_discards": False,
                                        "camp_shared": False, "cancel_lipread": False,
                                        "keep_override": False,
                                        "door_duty": False, "detour": False,
                                        "no_loop": False, "carrier_role": "bowman",
                                        "gift_room": False, **_CREW_NUMBERS,
                                        "pod_alarm": 99, "run_bonus": 0.0}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {}


register("crew-team", CrewTeam, games=["odyssey"], sides=["crew"],
         help="Bowman carries Logic to the Core, the others repair and feed him")
register("crew-rush", CrewRush, games=["odyssey"], sides=["crew"],
         help="the Logic plan only: draw, carry sequences to the Core")
