"""Scripted policies for *2001: A Space Odyssey* (HAL and crew), reading only their seat's view.

HAL policies:

* ``hal-pressure`` (default): every card scored against the position: a winning malfunction
  first, LIF pushed toward its limit, systems near their limit topped up, the POD BAY Doors
  closed when LIF is under attack and nobody is on the POD, doors closed where they lengthen
  the crew's way to the Core, Target/Scan at the crewmember closest to a Disconnect; reveals its
  least valuable cards (Lipread first, to silence the crew) and discards the least valuable,
  never a revealed Lipread it can spare (``lipread_keep``: face up, it blocks every GIVE and
  all talk, LIPREAD CARD). Its weights are parameters, tuned with ``balancelab tune`` (rules
  version 3; the values before tuning are ``hal-pressure:preset=classic``).
* ``hal-lif``: races Life Support: LIF malfunctions whenever it holds one, else the POD BAY
  Doors, else the pressure scores.
* ``hal-spread``: spreads malfunctions over GRV, MEM and COM for the three-systems win (LIF
  weighted low), doors on the crew's route to the Core.

Crew policies (each crewmember decides from its own hand and public information; they
coordinate only through a public convention and what ``crew_talk`` lets them announce, which
HAL hears too):

* ``crew-team`` (default): a division of labour fixed by public conventions (HAL knows them
  too): Bowman is the *carrier* (he may also ask for cards): the others give him their Logic
  cards (never anything he would hand back) and he carries each complete sequence to the
  Core; the others are *repairers*: they repair LIF at the POD from ``lif_alarm`` LIF
  malfunctions and the GRV/MEM/COM system nearest its limit within reach when they hold a
  fitting card, otherwise everybody draws at the *camp*, the one Picturephone nearest to the
  Core (``camp_shared``), where they meet to give. A crewmember cut off from its goal by
  closed doors heads for the door whose opening reconnects it, or draws at a reachable
  Picturephone (``detour``); one holding a Manual Override opens the door that cuts the camp
  off from the Core (``door_duty``) and keeps its Overrides while the POD BAY Doors are closed
  (``keep_override``). At POD BAY or the Core it cancels a revealed LIF (or terminating)
  malfunction, and Lipread, which blocks the giving the plan lives on (``cancel_lipread``).
  It recovers the most useful card and discards the least useful. Each convention is a
  parameter (``crew-team:door_duty=false`` …) so that its worth can be measured.
* ``crew-rush``: the Logic plan only (each keeps its own Logic cards and carries its own runs;
  repairs only when standing on a system with a fitting card anyway, never detours to repair;
  none of the conventions above).

Speed: a decision reads a handful of view fields; Logic holdings are bitmasks (bit n = Logic n
held), windows and distances come from per-options caches.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from balancelab.policies.base import Policy, PolicyError, RngSource, register
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
    PAIR,
    POOLE,
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
    _has_run,
    ctx_for,
)
from balancelab.simulate.options import RuleOptions

L1: Final = C.C_LOGIC1
_POP: Final = tuple(bin(i).count("1") for i in range(256))
#: (k1, k2) of a two-card hand-limit discard argument ``PAIR + k1 * 32 + k2``
_PAIR_KINDS: Final = tuple(divmod(arg - PAIR, 32) if arg >= PAIR else (arg, arg)
                    for arg in range(PAIR + 32 * 32))


def _windows(v: OdysseyView, ctx: Ctx) -> tuple[int, ...]:
    """Lowest numbers of the Logic windows still possible (no member in the crew TRASH)."""
    gone = v.logic_trashed
    w = ctx.windows_cache.get(gone)
    if w is None:
        L = ctx.L
        w = ctx.windows_cache[gone] = tuple(
            low for low in range(1, 14 - L) if not any(gone >> (low + i) & 1 for i in range(L)))
    return w


def _logic_mask(hand: Sequence[int]) -> int:
    """Bit n set when Logic n is held (a crew hand: counts per kind)."""
    m = 0
    bit = 2
    for k in range(L1, L1 + 12):
        if hand[k]:
            m |= bit
        bit <<= 1
    return m


#: _logic_best's tables by (sequence length, Logic trashed, Logic held, gain) packed in an int
_BEST: Final[dict[int, tuple[int, ...]]] = {}


def _logic_best(ctx: Ctx, trashed: int, lm: int, gain: bool) -> tuple[int, ...]:
    """Per Logic number n (index 1..12): the most cards held (counting n itself when
    ``gain``) in a still-possible window through n; 0 when no window through n remains.
    ``trashed`` and ``lm`` are Logic masks (bit n = Logic n)."""
    key = ((ctx.L * 2 + gain) << 28) | (trashed << 14) | lm
    out = _BEST.get(key)
    if out is None:
        L = ctx.L
        full = (1 << L) - 1
        wins = [low for low in range(1, 14 - L) if not (trashed >> low) & full]
        res = [0] * 13
        for n in range(1, 13):
            for low in wins:
                if low <= n < low + L:
                    held = _POP[(lm >> low) & full]
                    if gain and not lm >> n & 1:
                        held += 1
                    if held > res[n]:
                        res[n] = held
        if len(_BEST) > 20_000:
            _BEST.clear()
        out = _BEST[key] = tuple(res)
    return out


def _worth(base: list[float], logic: tuple[float, ...], k: int, c: int) -> float:
    """The worth of ``c`` cards of kind ``k`` in a hand: ``base[k]`` each for a card that is
    not a Logic card; ``logic`` by Logic number - 1 for the first copy of a Logic card, and
    0.5 for each further copy (it adds nothing to a sequence)."""
    if not c:
        return 0.0
    if k < L1:
        return base[k] * c
    return logic[k - L1] + 0.5 * (c - 1)


def _hand_total(base: list[float], logic: tuple[float, ...], hand: Sequence[int],
                kinds: Sequence[int], bonus: float) -> float:
    """A hand's worth: the :func:`_worth` of each kind held, summed in increasing kind order,
    plus ``bonus``. ``kinds``: the kinds that may be held, in increasing order (the others
    count 0)."""
    total = 0.0
    for k in kinds:
        c = hand[k]
        if c:
            total += _worth(base, logic, k, c)
    if bonus:
        total += bonus
    return total


#: every crew card kind, in order (:func:`_hand_total` of any hand)
_ALL_KINDS: Final = tuple(range(C.N_CREW_KINDS))
def _take(hand: list[int], arg: int, pairs: bool, lm: int) -> tuple[int, int, int]:
    """Take a discard's cards out of ``hand`` (counts per kind): ``arg`` is one kind, or
    with ``pairs`` ``PAIR + k1 * 32 + k2``. Returns (k1, k2, the Logic mask ``lm`` of what
    is left); ``k1 == k2`` for one card."""
    if pairs:
        k1, k2 = _PAIR_KINDS[arg]
        hand[k1] -= 1
        hand[k2] -= 1
    else:
        k1 = k2 = arg
        hand[k1] -= 1
    if k1 >= L1 and not hand[k1]:
        lm &= ~(2 << (k1 - L1))
    if k2 >= L1 and not hand[k2]:
        lm &= ~(2 << (k2 - L1))
    return k1, k2, lm


def _put_back(hand: list[int], k1: int, k2: int, pairs: bool) -> None:
    """Undo :func:`_take`."""
    hand[k1] += 1
    if pairs:
        hand[k2] += 1


#: no Logic worths (:func:`_worth` of a card that is not a Logic card never reads them)
_NO_LOGIC: Final[tuple[float, ...]] = ()


#: a cache that outlives one game (policies are built per game): per Ctx, the camp by the
#: closed doors (a function of the options and the board only)
_CAMP: Final[dict[Any, dict[int, int]]] = {}


#: per Ctx and the parameters a Logic card's worth depends on: :meth:`CrewTeam._logic_part`'s
#: results (a function of those and of the position's Logic facts only)
_LOGIC_PARTS: Final[dict[Any, dict[int, tuple[tuple[float, ...], float]]]] = {}


def _shared(table: dict[Any, Any], key: Any) -> Any:
    d = table.get(key)
    if d is None:
        d = table[key] = {}
    return d


class _OdysseyPolicy(Policy):
    """Shared set-up: the options' constants (board, limits), computed once."""

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        ctx = self.ctx = ctx_for(self.options)  # type: ignore[arg-type]
        self.pps = ctx.picturephones
        self.full = (1 << ctx.L) - 1
        #: distances with every door open (never change)
        self.free = ctx.dist_mask(0)


# =============================================================================================
# HAL
# =============================================================================================


class HalPressure(_OdysseyPolicy):
    """Scores each HAL card against the position (see the module docstring)."""

    name = "hal-pressure"
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

    def act(self, view: View, actions: Sequence[Action]) -> Action:
        v: OdysseyView = view  # type: ignore[assignment]
        legal: Sequence[int] = actions  # type: ignore[assignment]
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
        mal = v.malfunctions
        lim = self.ctx.limits
        return (mal[0] >= lim[0]) + (mal[1] >= lim[1]) + (mal[2] >= lim[2]) + (mal[3] >= lim[3])

    def card_value(self, v: OdysseyView, ctx: Ctx, k: int, down: int) -> float:
        mal = v.malfunctions
        lim = ctx.limits
        if k <= LIF:
            if k == LIF:
                if mal[LIF] + 1 >= lim[LIF]:
                    return 1000.0
                return 4.0 + self.lif_w * mal[LIF]
            if mal[k] < lim[k] and down + 1 >= self.sys_to_win:
                return 1000.0  # the third system (or a step towards it when two are down)
            if mal[k] >= lim[k]:
                return 1.5  # buffer against a repair
            return 3.0 + self.sys_w * mal[k] + self.down_w * down
        if k < C.H_TARGET:
            return self.door_value(v, ctx, k - C.H_DOOR1 + 1)
        if k == C.H_TARGET:
            return 3.0 + self.target_w * v.sequences
        if k == C.H_SCAN:
            return 2.0 + self.scan_w * max(v.hand_n[1:])
        return -1.0  # Lipread: worth more revealed than played

    def door_value(self, v: OdysseyView, ctx: Ctx, d: int) -> float:
        pos = v.pos
        if d == 7:
            if ctx.pod in pos:
                return 0.5
            return self.door7_w * (2.0 + 1.2 * v.malfunctions[LIF])
        before = ctx.dist_mask(v.closed_mask)
        after = ctx.dist_mask(v.closed_mask | 1 << d)
        core = ctx.core
        gain = 0
        for i in range(1, len(pos)):
            p = pos[i]
            gain += min(after[p][core], 8) - min(before[p][core], 8)
        return 1.0 + self.door_gain * gain

    def reveal_cost(self, v: OdysseyView, ctx: Ctx, k: int, down: int) -> float:
        if k == C.H_LIPREAD:
            return -10.0
        if k <= LIF:
            return 5.0 + (3.0 if k == LIF else 0.0)
        return self.card_value(v, ctx, k, down)

    def threat(self, v: OdysseyView, ctx: Ctx, seat: int) -> float:
        dist = ctx.dist_mask(v.closed_mask)
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
                run = [L1 + low - 1 + i for i in range(L)]
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
            best = (seat, L1 + n - 1)
        a = 10 * 1000 + best[0] * 32 + best[1]
        return a if a in legal else legal[0]


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


# =============================================================================================
# crew
# =============================================================================================


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
        cfg = self.cfg
        self.lif_alarm = int(cfg["lif_alarm"])
        self.sys_min = int(cfg["sys_min"])
        self.repair_on = bool(cfg["repair"])
        self.carrier_on = bool(cfg["carrier"])
        self.carrier_disc = bool(cfg["carrier_discards"])
        self.camp_shared = bool(cfg["camp_shared"])
        self.cancel_lipread = bool(cfg["cancel_lipread"])
        self.keep_override = bool(cfg["keep_override"])
        self.door_duty = bool(cfg["door_duty"])
        self.detour = bool(cfg["detour"])
        self.no_loop = bool(cfg["no_loop"])
        self.gift_room = bool(cfg["gift_room"])
        self.pod_alarm = int(cfg["pod_alarm"])
        self.pod_open_lif = int(cfg["pod_open_lif"])
        self.run_bonus = float(cfg["run_bonus"])
        self.carrier_ab = (float(cfg["carrier_logic"]), float(cfg["carrier_step"]))
        self.feeder_ab = (float(cfg["feeder_logic"]), float(cfg["feeder_step"]))
        self.wild_value = float(cfg["wild_value"])
        self.override_pod = float(cfg["override_pod"])
        self.override_pod_lif = float(cfg["override_pod_lif"])
        self.lif_repair_lif = float(cfg["lif_repair_lif"])
        if str(cfg["carrier_role"]) not in CREWMEMBERS:
            raise PolicyError(f"policy {self.name!r}: carrier_role must be one of "
                              f"{', '.join(CREWMEMBERS)}; got {cfg['carrier_role']!r}")
        self.carrier_role = CREWMEMBERS.index(str(cfg["carrier_role"]))
        #: per closed-door mask; shared by the policies of these options (board facts only)
        self._camp: dict[int, int] = _shared(_CAMP, self.ctx)
        self._roles: tuple[int, ...] = ()
        self._carrier = 0
        #: :meth:`_logic_part` by (carrier, sequences, gain, Logic TRASH, Logic held); shared
        #: by the policies of these options and Logic parameters
        if len(_LOGIC_PARTS) > 64:
            _LOGIC_PARTS.clear()  # many parameter sets (``balancelab tune``): start afresh
        self._logic_cache: dict[int, tuple[tuple[float, ...], float]] = _shared(
            _LOGIC_PARTS, (self.ctx, self.carrier_ab, self.feeder_ab, self.run_bonus))
        o = self.options
        #: twice the move allowance (how far a repair detour may lead), GRV up / down
        self.reach2 = (2 * o.move, 2 * o.move_grv_terminated)  # type: ignore[attr-defined]
        b = self.ctx.board
        #: preference among equally near destinations: cards drawn there
        self.draw_pref = tuple(-2 if b.picturephone[d] else (-1 if 0 <= self.ctx.space_system[d] < 3
                                                              else 0)
                               for d in range(self.ctx.n_spaces))

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
            return self.discard(v, ctx, legal)
        if ph == T_ASK_GIVE:
            # Bowman asked: the carrier gets our best Logic card; else a LIF Repair (it doubles
            # in his hands); else our least useful card
            vals = self.values(v, ctx)
            if self.carrier_seat(v) == v.actor:
                logic = [a for a in legal if a % 1000 >= L1 and vals[a % 1000] > 0]
                if logic:
                    return max(logic, key=lambda a: vals[a % 1000])
            if 16 * 1000 + C.C_REPAIR_LIF in legal and not (
                    self.no_loop and self.carrier_seat(v) == v.actor):
                return 16 * 1000 + C.C_REPAIR_LIF
            return min(legal, key=lambda a: vals[a % 1000])
        if ph == T_RECOVER_TAKE:
            vals = self.values(v, ctx, gain=True)
            return max(legal, key=lambda a: vals[a % 1000])
        return legal[int(self.rng.integers(len(legal)))]

    # -- values ----------------------------------------------------------------------------
    def values(self, v: OdysseyView, ctx: Ctx, gain: bool = False,
               hand: Sequence[int] | None = None) -> list[float]:
        """How much this crewmember wants each crew card kind (used to discard the least,
        or, with ``gain``, to take the most): a list of 20 floats, by crew card kind.
        ``hand`` (counts per kind) replaces the view's hand (to score a hand after a
        discard)."""
        carrier_seat = self.carrier_seat(v)
        out = self._base_values(v, ctx, carrier_seat == v.seat)
        lm = _logic_mask(v.hand if hand is None else hand)
        out[L1:L1 + 12] = self._logic_part(v, ctx, carrier_seat, lm, gain)[0]
        return out

    def _logic_part(self, v: OdysseyView, ctx: Ctx, carrier_seat: int, lm: int,
                    gain: bool) -> tuple[tuple[float, ...], float]:
        """For the Logic mask ``lm`` (bit n = Logic n held): each Logic card's worth, by
        number - 1 (the best still-possible window through it, by cards held in it; 0 when
        none remains), and ``run_bonus`` when ``lm`` holds a complete allowed sequence (else
        0). Cached per policy: a function of the carrier, the Logic TRASH, the sequences
        disconnected and ``lm`` only."""
        code = 0 if carrier_seat == v.seat else (1 if carrier_seat else 2)
        key = ((((code * 4 + v.sequences) << 1 | gain) << 14 | v.logic_trashed) << 14) | lm
        got = self._logic_cache.get(key)
        if got is None:
            best = _logic_best(ctx, v.logic_trashed, lm, gain)
            if code == 0:
                a, b = self.carrier_ab
            elif code == 1:
                a, b = self.feeder_ab
            else:
                a, b = 2.0, 1.2
            vals = tuple([a + b * best[n] if best[n] else 0.0 for n in range(1, 13)])
            bonus = self.run_bonus if self.run_bonus and self._complete_run(v, ctx, lm) else 0.0
            if len(self._logic_cache) > 20_000:
                self._logic_cache.clear()
            got = self._logic_cache[key] = (vals, bonus)
        return got

    def discard(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        """The hand-limit (or Scan) discard that keeps the best hand: each candidate is
        scored by what remains (:meth:`hand_value`; a Logic card's worth depends on the
        cards left beside it in its window), the first best in ``legal``'s order. Arguments
        are one kind, or ``PAIR + k1 * 32 + k2`` for two cards (Hand Size).

        Speed: each candidate is first estimated from the whole hand's worth less what it
        discards (a few operations); only those within a rounding margin of the best
        estimate are then scored card by card as :func:`_hand_total` sums them (the others
        cannot be the best), so the choice is the one every candidate scored in full gives.
        """
        orig = v.hand
        hand = list(orig)
        carrier_seat = self.carrier_seat(v)
        base = self._base_values(v, ctx, carrier_seat == v.seat)  # the same for every candidate
        lm0 = _logic_mask(hand)
        held = [k for k in range(C.N_CREW_KINDS) if hand[k]]
        plain = 0.0  # the worth of the cards that are not Logic cards
        for k in held:
            if k < L1:
                plain += _worth(base, _NO_LOGIC, k, hand[k])
        #: Logic mask left -> (:meth:`_logic_part`, the worth of every Logic card of the
        #: whole hand under it); candidates that keep the same Logic cards share it
        seen: dict[int, tuple[tuple[float, ...], float, float]] = {}
        pairs = legal[0] % 1000 >= PAIR  # pairs of kinds k1 <= k2 (Hand Size)
        n = len(legal)
        estimates = [0.0] * n
        top = -1e18
        for i in range(n):
            a = legal[i]
            k1, k2, lm = _take(hand, a % 1000, pairs, lm0)
            got = seen.get(lm)
            if got is None:
                logic, bonus = self._logic_part(v, ctx, carrier_seat, lm, False)
                whole = 0.0
                for k in held:
                    if k >= L1:
                        whole += _worth(base, logic, k, orig[k])
                got = seen[lm] = (logic, bonus, whole)
            logic = got[0]
            est = plain + got[2] + got[1] - (
                _worth(base, logic, k1, orig[k1]) - _worth(base, logic, k1, hand[k1]))
            if k2 != k1:
                est -= _worth(base, logic, k2, orig[k2]) - _worth(base, logic, k2, hand[k2])
            estimates[i] = est
            _put_back(hand, k1, k2, pairs)
            if est > top:
                top = est
        floor = top - 1e-7 * (1.0 + abs(top))  # far above any rounding of these sums
        best = legal[0]
        best_v = -1e18
        for i in range(n):
            if estimates[i] < floor:
                continue
            a = legal[i]
            k1, k2, lm = _take(hand, a % 1000, pairs, lm0)
            got = seen[lm]
            val = _hand_total(base, got[0], hand, held, got[1])
            _put_back(hand, k1, k2, pairs)
            if val > best_v:
                best, best_v = a, val
        return best

    def hand_value(self, v: OdysseyView, ctx: Ctx, hand: Sequence[int]) -> float:
        """The worth of holding ``hand`` (counts per crew card kind): its cards' worths
        (:meth:`values` of that hand), plus ``run_bonus`` when it holds a complete allowed
        sequence (DISCONNECT; the second sequence must leave a third possible)."""
        carrier_seat = self.carrier_seat(v)
        logic, bonus = self._logic_part(v, ctx, carrier_seat, _logic_mask(hand), False)
        return _hand_total(self._base_values(v, ctx, carrier_seat == v.seat), logic, hand,
                           _ALL_KINDS, bonus)

    def _complete_run(self, v: OdysseyView, ctx: Ctx, lm: int) -> bool:
        full = self.full
        for low in _windows(v, ctx):
            if (lm >> low) & full == full:
                if v.sequences == 1 and ctx.third_sequence_guard and not _has_run(
                        v.logic_trashed | full << low, ctx.L):
                    continue
                return True
        return False

    def has_room(self, v: OdysseyView, ctx: Ctx, seat: int) -> bool:
        """Whether ``seat`` can take a card without going over its Hand Size (public: its
        card count, its role, the MEM tile)."""
        if not self.gift_room:
            return True
        size = ctx.hand_sizes[v.roles[seat] == POOLE][v.malfunctions[MEM] >= ctx.limits[MEM]]
        return v.hand_n[seat] < size

    def _base_values(self, v: OdysseyView, ctx: Ctx, carrier: bool) -> list[float]:
        """The values of the cards that are not Logic cards (Logic: 0 here)."""
        role = v.roles[v.seat]
        mal = v.malfunctions
        lim = ctx.limits
        out = [0.0] * C.N_CREW_KINDS
        if carrier and self.carrier_disc:
            for k in range(L1):
                out[k] = 1.0
            out[C.C_REPAIR_LIF] = 1.5 + self.lif_repair_lif * mal[LIF]
            if self.keep_override and v.closed_mask >> 7 & 1:
                # the POD BAY Doors shut: an Override is the way back to the LIF repairs
                out[C.C_OVERRIDE] += self.override_pod + self.override_pod_lif * mal[LIF]
            return out
        out[C.C_WILD] = self.wild_value
        spec = SPECIALITY.get(role)
        for k in (C.C_REPAIR_MEM, C.C_REPAIR_COM, C.C_REPAIR_GRV, C.C_REPAIR_LIF):
            sysk = C.REPAIR_SYSTEM[k]
            base = 3.5 if role == WHITEHEAD else 1.0
            if spec == k:
                base += 2.0
            if sysk == LIF:
                base += 1.5 + self.lif_repair_lif * mal[LIF]
            elif mal[sysk] >= lim[sysk] - 1:
                base += 1.0
            out[k] = base
        out[C.C_OVERRIDE] = 1.5 + (1.0 if v.closed_mask else 0.0)
        if self.keep_override and v.closed_mask >> 7 & 1:
            out[C.C_OVERRIDE] += self.override_pod + self.override_pod_lif * mal[LIF]
        out[C.C_CANCEL] = 2.0
        out[C.C_RECOVER] = 1.2
        return out

    def carrier_seat(self, v: OdysseyView) -> int:
        """The seat Logic cards are funnelled to (the team's public convention), or 0."""
        if not self.carrier_on:
            return 0
        roles = v.roles
        if roles != self._roles:
            self._roles = roles
            if self.carrier_role != BOWMAN and self.carrier_role in roles:
                self._carrier = roles.index(self.carrier_role)
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
        lm = _logic_mask(v.hand)
        if not lm:
            return 0
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
        if not self.repair_on:
            return -1
        mal = v.malfunctions
        seat = v.seat
        sys_min = self.sys_min
        lif_check = mal[LIF] >= self.lif_alarm
        if not lif_check and mal[0] < sys_min and mal[1] < sys_min and mal[2] < sys_min:
            return -1  # nothing to do (the common case)
        lim = ctx.limits
        pos = v.pos[seat]
        if lif_check:
            pod = ctx.pod
            pod_taken = pod != pos and pod in v.pos
            alarm = self.lif_alarm + (1 if self.carrier_seat(v) == seat else 0)
            if mal[LIF] >= alarm and not pod_taken and self.can_repair(v, LIF):
                return LIF
        reach = self.reach2[mal[GRV] >= lim[GRV]]
        hand = v.hand
        white = v.roles[seat] == WHITEHEAD
        best, best_sc = -1, 0.0
        for i in range(3):
            if mal[i] < sys_min or dist[pos][ctx.sys_space[i]] > reach:
                continue
            typed = hand[C.SYSTEM_REPAIR[i]] or (white and (hand[1] or hand[2] or hand[3]
                                                             or hand[4]))
            if typed or (hand[C.C_WILD] and mal[i] >= lim[i] - 1):
                sc = mal[i] / lim[i] + (1.0 if mal[i] >= lim[i] - 1 else 0.0)
                if sc > best_sc:
                    best, best_sc = i, sc
        return best

    def goal(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """Where this crewmember heads this turn."""
        pos = v.pos[v.seat]
        seq = self.sequence(v, ctx)
        if seq and v.malfunctions[LIF] < ctx.limit_lif - 2:
            return ctx.core
        if (v.closed_mask >> 7 & 1 and v.malfunctions[LIF] >= self.pod_alarm
                and v.hand[C.C_OVERRIDE] and ctx.pod not in v.pos):
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
        if self.camp_shared:  # one camp for all (a public convention): feeders meet the carrier
            camp = self.camp(v, ctx, dist)
            if self.door_duty and dist[camp][core] >= 99 and v.hand[C.C_OVERRIDE]:
                # the Core is cut off from the camp: go and open the door that reconnects it
                d = self.door_to_open(v, ctx, camp)
                if d:
                    a, b = ctx.board.door_spaces[d]
                    return a if dist[pos][a] <= dist[pos][b] else b
            return camp
        return min(self.pps, key=lambda s: (dist[s][core], dist[pos][s], s))

    def camp(self, v: OdysseyView, ctx: Ctx, dist: tuple[tuple[int, ...], ...]) -> int:
        """The team's camp (a public convention, the same for every crewmember): the
        Picturephone nearest to the Core, by the open route, else by the route through the
        closed doors."""
        camp = self._camp.get(v.closed_mask)
        if camp is None:
            core = ctx.core
            free = ctx.dist_mask(0)
            camp = self._camp[v.closed_mask] = min(
                self.pps, key=lambda s: (min(dist[s][core], 50 + free[s][core]), s))
        return camp

    def door_to_open(self, v: OdysseyView, ctx: Ctx, camp: int) -> int:
        """The closed door whose opening brings the Core nearest to the camp, or 0."""
        core = ctx.core
        mask = v.closed_mask
        best, best_d = 0, ctx.dist_mask(mask)[camp][core]
        for d in range(1, 8):
            if mask >> d & 1:
                dd = ctx.dist_mask(mask & ~(1 << d))[camp][core]
                if dd < best_d:
                    best, best_d = d, dd
        return best

    def move(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        mask = v.closed_mask
        dist = ctx.dist_mask_cache.get(mask) or ctx.dist_mask(mask)
        g = self.goal(v, ctx, dist)
        has_override = v.hand[C.C_OVERRIDE] > 0
        pos = v.pos[v.seat]
        if self.detour and dist[pos][g] >= 99:
            g = self.detour_target(v, ctx, dist, pos, g, has_override)
        pref = self.draw_pref
        best = legal[0]
        best_c = 1 << 30
        free = self.free
        for a in legal:
            d = a - 8000  # OP_MOVE
            c = dist[d][g]
            if c >= 99:
                c = 20 + free[d][g] - (5 if has_override else 0)
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
                    dd = ctx.dist_mask(mask & ~(1 << d))[pos][g]
                    if dd < best:
                        best_d, best = d, dd
            if best_d:
                a, b = ctx.board.door_spaces[best_d]
                return a if dist[pos][a] <= dist[pos][b] else b
        free = ctx.dist_mask(0)
        reach = [s for s in self.pps if dist[pos][s] < 99]
        if reach:
            return min(reach, key=lambda s: (free[s][g], s))
        return pos

    def action(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int]) -> Action:
        if legal[-1] < 1000:  # only "end and draw k" (END actions come first)
            return legal[-1]
        ops: dict[int, list[int]] = {}
        for a in legal:
            op = a // 1000
            if op in ops:
                ops[op].append(a % 1000)
            else:
                ops[op] = [a % 1000]
        seat = v.seat
        role = v.roles[seat]
        mal = v.malfunctions
        lim = ctx.limits
        if OP_DISCONNECT in ops:
            return OP_DISCONNECT * 1000 + ops[OP_DISCONNECT][0]
        if OP_REPAIR in ops:
            best = None
            spec = SPECIALITY.get(role)
            for arg in ops[OP_REPAIR]:
                sysk, k = divmod(arg, 32)
                worth = (sysk == LIF or mal[sysk] >= lim[sysk] - 1 or k != C.C_WILD)
                if not self.repair_on and sysk != LIF and mal[sysk] < lim[sysk]:
                    worth = False
                if worth:
                    pref = 0 if (k != C.C_WILD and spec == k) else (1 if k != C.C_WILD else 2)
                    if best is None or pref < best[0]:
                        best = (pref, arg)
            if best is not None:
                return OP_REPAIR * 1000 + best[1]
        if OP_CANCEL in ops:
            rev = ops[OP_CANCEL]
            if C.H_LIPREAD in rev and (ctx.crew_talk != "none" or (
                    self.cancel_lipread and self.carrier_on)):
                return OP_CANCEL * 1000 + C.H_LIPREAD
            if C.H_LIF in rev and mal[LIF] >= 2:
                return OP_CANCEL * 1000 + C.H_LIF
            for k in (GRV, MEM, COM):
                if k in rev and mal[k] >= lim[k] - 1:
                    return OP_CANCEL * 1000 + k
            if C.hal_door(7) in rev:
                return OP_CANCEL * 1000 + C.hal_door(7)
        if OP_OPEN in ops:
            dist = ctx.dist_mask(v.closed_mask)
            g = self.goal(v, ctx, dist)
            pos = v.pos[seat]
            best_open, best_gain = 0, 0
            for d in ops[OP_OPEN]:
                after = ctx.dist_mask(v.closed_mask & ~(1 << d))
                if d == 7 and (ctx.pod in v.pos or mal[LIF] >= self.pod_open_lif):
                    return OP_OPEN * 1000 + d  # someone trapped on the POD, or LIF in danger
                gain = dist[pos][g] - after[pos][g]
                if gain <= 0 and self.door_duty:
                    camp = self.camp(v, ctx, dist)
                    gain = dist[camp][ctx.core] - after[camp][ctx.core]
                if gain > best_gain:
                    best_open, best_gain = d, gain
            if best_open:
                return OP_OPEN * 1000 + best_open
        if OP_GIVE in ops:
            carrier = self.carrier_seat(v)
            if carrier and carrier != seat and self.has_room(v, ctx, carrier):
                vals = self.values(v, ctx)
                gifts = [arg % 32 for arg in ops[OP_GIVE] if arg // 32 == carrier
                         and arg % 32 >= L1 and vals[arg % 32] > 0]
                if gifts:
                    k = max(gifts, key=lambda k: vals[k])
                    return OP_GIVE * 1000 + carrier * 32 + k
            if carrier == seat:
                junk = [arg for arg in ops[OP_GIVE] if arg % 32 < L1]
                if junk:
                    return OP_GIVE * 1000 + junk[0]
            spec = SPECIALITY.get(role)
            for arg in ops[OP_GIVE]:
                t, k = divmod(arg, 32)
                if self.no_loop and t == carrier:
                    continue  # the carrier passes non-Logic cards on: give him Logic only
                if k == SPECIALITY.get(v.roles[t]) and k != spec and role != WHITEHEAD:
                    return OP_GIVE * 1000 + arg
                said = v.talk[t]
                if said is not None and k >= L1:
                    mine = self.values(v, ctx)[k]
                    theirs = _talk_value(v, ctx, said, k)
                    if theirs > mine + 0.5:
                        return OP_GIVE * 1000 + arg
        if OP_ASK in ops and role == BOWMAN and self.has_room(v, ctx, seat) and (
                self.carrier_seat(v) == seat or mal[LIF] >= self.lif_alarm):
            return OP_ASK * 1000 + max(ops[OP_ASK], key=lambda t: v.hand_n[t])
        if OP_RECOVER in ops:
            return OP_RECOVER * 1000
        return max(ops[0])  # end the turn, drawing the most


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


register("hal-pressure", HalPressure, games=["odyssey"], sides=["hal"],
         help="scores every card against the position: wins, LIF, systems near limit, doors")
register("hal-lif", HalLif, games=["odyssey"], sides=["hal"],
         help="races Life Support, then the POD BAY Doors")
register("hal-spread", HalSpread, games=["odyssey"], sides=["hal"],
         help="spreads malfunctions over GRV/MEM/COM for the three-systems win")
register("crew-team", CrewTeam, games=["odyssey"], sides=["crew"],
         help="Bowman carries Logic to the Core, the others repair and feed him")
register("crew-rush", CrewRush, games=["odyssey"], sides=["crew"],
         help="the Logic plan only: draw, carry sequences to the Core")

__all__ = ["HAL_CLASSIC", "CrewRush", "CrewTeam", "HalLif", "HalPressure", "HalSpread",
           "OP_RECOVER"]
