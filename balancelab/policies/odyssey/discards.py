"""crew-team's worths of crew cards and hands (2001), and its hand-limit and Scan discard:
the one that keeps the best hand (see :class:`CrewWorths`). Compiled (mypyc)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from mypy_extensions import i64

from balancelab.policies.odyssey.shared import L1, _logic_mask, _shared, _windows
from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.cards import COM, GRV, LIF, MEM
from balancelab.simulate.odyssey.state import (
    PAIR,
    SPECIALITY,
    WHITEHEAD,
    Ctx,
    OdysseyView,
    _has_run,
)


def _most_held(lm: i64, n: i64, trashed: i64, L: i64, full: i64) -> i64:
    """The most Logic cards of ``lm`` in a still-possible window of ``L`` numbers through
    Logic ``n`` (a window with a member in ``trashed`` is no longer possible), -1 when no such
    window remains (masks: bit n = Logic n; ``full``: ``L`` low bits). (``i64``: plain
    machine integers compiled, not tagged ones checked at every operation.)"""
    m: i64 = -1
    low: i64 = n - L + 1 if n > L else 1
    last: i64 = n if n < 13 - L else 13 - L
    while low <= last:
        if not (trashed >> low) & full:
            x = (lm >> low) & full
            held: i64 = 0
            while x:  # count the bits (native ints: no table read, no boxing)
                x &= x - 1
                held += 1
            if held > m:
                m = held
        low += 1
    return m


#: 1 in each 4-bit field of a :func:`_window_counts` (windows 0..12)
_NIBBLES: Final = 0x1111111111111


def _window_counts(lm: i64, trashed: i64, L: i64, full: i64) -> i64:
    """The Logic cards of ``lm`` in each still-possible window of ``L`` numbers, packed 4 bits
    per window at bit 4 x its lowest number (0 for a window with a member in ``trashed``, and
    above 13 - ``L``): :func:`_most_held` for every number at once is :func:`_most_in`."""
    out: i64 = 0
    low: i64 = 1
    last: i64 = 13 - L
    while low <= last:
        if not (trashed >> low) & full:
            x = (lm >> low) & full
            held: i64 = 0
            while x:  # count the bits
                x &= x - 1
                held += 1
            out |= held << (4 * low)
        low += 1
    return out


def _most_in(counts: i64, n: i64, L: i64) -> i64:
    """The most cards of a :func:`_window_counts` ``counts`` in a window through Logic ``n``:
    :func:`_most_held` of a held ``n`` when it is above 0, else 0."""
    low: i64 = 1
    if n > L:
        low = n - L + 1
    m: i64 = 0
    while low <= n:  # (the windows above 13 - L count 0)
        c = (counts >> (4 * low)) & 15
        if c > m:
            m = c
        low += 1
    return m


def _without(counts: i64, gone: i64, L: i64) -> i64:
    """:func:`_window_counts` once the held Logic numbers of the mask ``gone`` go: one card
    less in each still-possible window through each (those count 1 or more; the others 0)."""
    n: i64 = 1
    rest = gone >> 1
    while rest:
        if rest & 1:
            lo: i64 = 0
            if n > L:
                lo = n - L + 1
            # the windows lo..n (not 1 << ...: compiled, a literal 1 is shifted as a 32-bit int)
            through = (_NIBBLES >> (4 * (12 + lo - n))) << (4 * lo)
            possible = (counts | counts >> 1 | counts >> 2 | counts >> 3) & _NIBBLES
            counts -= through & possible
        rest >>= 1
        n += 1
    return counts


def _has_window(lm: i64, L: i64) -> bool:
    """Whether the Logic mask ``lm`` holds ``L`` consecutive numbers."""
    x = lm
    i: i64 = 1
    while i < L and x:
        x &= lm >> i
        i += 1
    return x != 0


def _logic_worths(L: int, trashed: int, lm: int, gain: bool, a: float, b: float
                  ) -> tuple[float, ...]:
    """Per Logic number n (index n - 1): ``a + b * m``, where m is the most cards held (and n
    itself when ``gain``) in a still-possible window of ``L`` numbers through n; 0.0 when
    m is 0 or no such window remains. ``trashed`` and ``lm`` are Logic masks (bit n =
    Logic n; a window with a member trashed is no longer possible)."""
    full = (1 << L) - 1
    out: list[float] = []
    for n in range(1, 13):
        m = int(_most_held(lm, n, trashed, L, full))
        if m > 0 or (m == 0 and gain):
            if gain and not lm >> n & 1:
                m += 1  # n itself, gained (the same for every window through n)
            out.append(a + b * m)
        else:
            out.append(0.0)
    return tuple(out)


def _held_logic_total(lm: i64, counts: i64, L: i64, a: float, b: float) -> float:
    """The sum of :func:`_logic_worths` (without ``gain``) over the Logic numbers held in
    ``lm``, in increasing number (``counts``: its :func:`_window_counts`)."""
    total = 0.0
    n: i64 = 1
    rest = lm >> 1
    while rest:
        if rest & 1:
            low: i64 = 1  # :func:`_most_in`, inlined (the discard's hottest loop)
            if n > L:
                low = n - L + 1
            m: i64 = 0
            while low <= n:
                c = (counts >> (4 * low)) & 15
                if c > m:
                    m = c
                low += 1
            if m > 0:
                total += a + b * float(m)
        rest >>= 1
        n += 1
    return total


def _last_copies(once: i64, twice: i64, k1: i64, k2: i64) -> i64:
    """The Logic mask of the Logic kinds whose last copy goes when a card of kind ``k1`` and
    one of kind ``k2`` (-1: none) are discarded from a hand that holds the Logic cards of
    the mask ``once`` once and those of ``twice`` twice."""
    b1: i64 = 0
    if k1 >= L1:
        b1 = 2 << (k1 - L1)
    if k2 == k1:
        return b1 & twice
    if k2 >= L1:
        b1 |= 2 << (k2 - L1)
    return b1 & once


def _hand_total(base: list[float], hand: tuple[int, ...], held: i64, k1: i64, k2: i64,
                lm: i64, counts: i64, L: i64, a: float, b: float, bonus: float) -> float:
    """A hand's worth, summed in increasing kind order, plus ``bonus``: ``hand`` (counts per
    kind) less a card of kind ``k1`` and one of kind ``k2`` (-1: none); ``c`` cards of kind
    ``k`` are worth ``base[k]`` each when they are not Logic cards; the first copy of a
    Logic card its :func:`_logic_worths` value for ``lm`` (the Logic mask of that hand, no
    ``gain``; ``counts``: its :func:`_window_counts`; ``a``, ``b``: the worth parameters),
    and 0.5 for each further copy (it adds nothing to a sequence). ``held``: bit k set for
    the kinds ``hand`` may hold (the others count 0)."""
    total = 0.0
    k: i64 = 0
    rest = held
    while rest:
        if rest & 1:
            c: i64 = hand[k]
            if k == k1:
                c -= 1
            if k == k2:
                c -= 1
            if c:
                if k < L1:
                    total += base[k] * float(c)
                else:
                    m = _most_in(counts, k - L1 + 1, L)
                    worth = a + b * float(m) if m > 0 else 0.0
                    total += worth + 0.5 * float(c - 1)
        rest >>= 1
        k += 1
    if bonus:
        total += bonus
    return total


#: per Ctx and the Logic worth parameters: :meth:`CrewWorths.logic_values`' results by (the
#: carrier, gain, the Logic TRASH, the Logic held) (a function of those only)
_LOGIC_VALUES: Final[dict[Any, dict[int, tuple[float, ...]]]] = {}


#: per Ctx and the parameters the other cards' worths depend on: :meth:`CrewWorths.base_values`'
#: lists by the position's facts they read (never mutated)
_BASE_VALUES: Final[dict[Any, dict[int, list[float]]]] = {}


class CrewWorths:
    """How much a crew-team crewmember wants each crew card kind and a whole hand, for one
    Ctx and one set of the worth parameters of
    :class:`~balancelab.policies.odyssey.crew.CrewTeam` (``carrier_discards``,
    ``keep_override``, ``wild_value``, ``override_pod``, ``override_pod_lif``,
    ``lif_repair_lif``, ``run_bonus``; ``carrier_logic``/``carrier_step`` as ``carrier_ab``,
    ``feeder_logic``/``feeder_step`` as ``feeder_ab``). Its caches are shared by every
    instance of the same Ctx and parameters (``_LOGIC_VALUES``, ``_BASE_VALUES``). A
    ``carrier_seat`` argument: the seat Logic cards are funnelled to (``CrewTeam.carrier_seat``),
    or 0."""

    def __init__(self, ctx: Ctx, carrier_disc: bool, keep_override: bool, wild_value: float,
                 override_pod: float, override_pod_lif: float, lif_repair_lif: float,
                 carrier_ab: tuple[float, ...], feeder_ab: tuple[float, ...],
                 run_bonus: float) -> None:
        self.carrier_disc = carrier_disc
        self.keep_override = keep_override
        self.wild_value = wild_value
        self.override_pod = override_pod
        self.override_pod_lif = override_pod_lif
        self.lif_repair_lif = lif_repair_lif
        # (typed variable-length: mypyc re-boxes a fixed-length tuple attribute at every read)
        self.carrier_ab = carrier_ab
        self.feeder_ab = feeder_ab
        self.run_bonus = run_bonus
        self.full = (1 << ctx.L) - 1
        #: :meth:`logic_values` by the facts it reads; shared by the instances of these
        #: options and Logic parameters
        if len(_LOGIC_VALUES) > 64:
            _LOGIC_VALUES.clear()  # many parameter sets (``balancelab tune``): start afresh
        self._logic_cache: dict[int, tuple[float, ...]] = _shared(
            _LOGIC_VALUES, (ctx, carrier_ab, feeder_ab))
        #: :meth:`base_values` by the facts it reads; shared likewise
        if len(_BASE_VALUES) > 64:
            _BASE_VALUES.clear()
        self._base_cache: dict[int, list[float]] = _shared(
            _BASE_VALUES, (ctx, carrier_disc, keep_override, wild_value, override_pod,
                           override_pod_lif, lif_repair_lif))

    def logic_ab(self, v: OdysseyView, carrier_seat: int) -> tuple[float, float]:
        """A Logic card's worth parameters for this seat: base and step (the carrier's,
        a feeder's, or those of a crew without a carrier)."""
        if carrier_seat == v.seat:
            return self.carrier_ab[0], self.carrier_ab[1]
        if carrier_seat:
            return self.feeder_ab[0], self.feeder_ab[1]
        return 2.0, 1.2

    def logic_values(self, v: OdysseyView, ctx: Ctx, carrier_seat: int, lm: int,
                     gain: bool) -> tuple[float, ...]:
        """For the Logic mask ``lm`` (bit n = Logic n held): each Logic card's worth, by
        number - 1 (:func:`_logic_worths`: the best still-possible window through it, by
        cards held in it, and the card itself with ``gain``; 0 when none remains). Cached
        across games (do not mutate)."""
        code = 0 if carrier_seat == v.seat else (1 if carrier_seat else 2)
        key = (((code << 1 | gain) << 14 | v.logic_trashed) << 14) | lm
        got = self._logic_cache.get(key)
        if got is None:
            a, b = self.logic_ab(v, carrier_seat)
            if len(self._logic_cache) > 20_000:
                self._logic_cache.clear()
            got = self._logic_cache[key] = _logic_worths(ctx.L, v.logic_trashed, lm, gain, a, b)
        return got

    def discard(self, v: OdysseyView, ctx: Ctx, legal: Sequence[int], carrier_seat: int
                ) -> int:
        """The hand-limit (or Scan) discard that keeps the best hand: each candidate is
        scored by what remains (:meth:`hand_value`; a Logic card's worth depends on the
        cards left beside it in its window), the first best in ``legal``'s order. Arguments
        are one kind, or ``PAIR + k1 * 32 + k2`` for two cards (Hand Size).

        Speed: each candidate is first estimated from counts (the other cards' worth less
        what it discards, the Logic cards left, their extra copies at 0.5 each), a few integer
        operations; the Logic worths are summed anew only when the last copy of a Logic card
        goes, from the cards per window packed in one machine integer
        (:func:`_window_counts`, :func:`_without`). Only the candidates within a rounding
        margin of the best estimate so far are then scored card by card as
        :func:`_hand_total` sums them: the others are worth less than an earlier one, so
        cannot be the best, and those of the scored ones that end below the final best
        estimate's margin are worth less than it, so cannot be it either: the choice is
        the one every candidate scored in full gives (and no estimate is kept: no float
        boxed per candidate, compiled).
        """
        orig = v.hand
        acts: tuple[int, ...] = legal if isinstance(legal, tuple) else tuple(legal)
        base = self.base_values(v, ctx, carrier_seat == v.seat)  # the same for every candidate
        la, lb = self.logic_ab(v, carrier_seat)
        # (the integers below are i64: machine integers compiled, no tagged-int checks)
        L: i64 = ctx.L
        held: i64 = 0  # bit k: kind k held
        lm0: i64 = 0
        once: i64 = 0  # the Logic mask of the Logic cards held once
        twice: i64 = 0  # ... held twice
        plain = 0.0  # the worth of the cards that are not Logic cards
        extra: i64 = 0  # Logic cards beyond the first of their kind (0.5 each)
        k: i64 = 0
        for c in orig:  # (a tuple's own loop reads it unchecked, compiled)
            if c:
                held |= 1 << k
                if k < L1:
                    plain += base[k] * c
                else:
                    extra += c - 1
                    lm0 |= 2 << (k - L1)
                    if c == 1:
                        once |= 2 << (k - L1)
                    elif c == 2:
                        twice |= 2 << (k - L1)
            k += 1
        counts0 = _window_counts(lm0, v.logic_trashed, L, self.full)
        wins = _windows(v, ctx)
        bonus0 = self.run_bonus_of(v, ctx, wins, lm0)
        whole0 = _held_logic_total(lm0, counts0, L, la, lb) + bonus0
        pairs = acts[0] % 1000 >= PAIR  # pairs of kinds k1 <= k2 (Hand Size)
        n = len(acts)
        near: list[int] = []  # the candidates within the margin of the best estimate so far
        top = -1e18
        for i in range(n):
            arg: i64 = acts[i]
            arg = arg % 1000
            k1: i64 = arg
            k2: i64 = -1
            if pairs:
                k1 = (arg - PAIR) >> 5
                k2 = (arg - PAIR) & 31
            est = plain
            x = extra
            if k1 < L1:
                est -= base[k1]
            else:
                x -= 1
            if k2 >= 0:
                if k2 < L1:
                    est -= base[k2]
                else:
                    x -= 1
            gone = _last_copies(once, twice, k1, k2)
            if gone:
                x += 1  # a last copy had no extra
                if gone & (gone - 1):
                    x += 1
                lm = lm0 & ~gone
                whole = _held_logic_total(lm, _without(counts0, gone, L), L, la, lb)
                if self.run_bonus and _has_window(lm, L):  # (the common case without a call)
                    whole += self.run_bonus_of(v, ctx, wins, lm)
            else:
                whole = whole0
            est += whole + 0.5 * float(x)
            if est > top:
                top = est
            if est >= top - 1e-7 * (1.0 + abs(top)):  # (far above any rounding of these sums)
                near.append(i)
        best = acts[0]
        best_v = -1e18
        for i in near:
            a = acts[i]
            arg = a % 1000
            k1 = arg
            k2 = -1
            if pairs:
                k1 = (arg - PAIR) >> 5
                k2 = (arg - PAIR) & 31
            gone = _last_copies(once, twice, k1, k2)
            lm = lm0 & ~gone
            bonus = bonus0 if lm == lm0 else self.run_bonus_of(v, ctx, wins, lm)
            val = _hand_total(base, orig, held, k1, k2, lm, _without(counts0, gone, L), L,
                              la, lb, bonus)
            if val > best_v:
                best, best_v = a, val
        return best

    def hand_value(self, v: OdysseyView, ctx: Ctx, hand: Sequence[int], carrier_seat: int
                   ) -> float:
        """The worth of holding ``hand`` (counts per crew card kind): its cards' worths
        (:meth:`values` of that hand), plus ``run_bonus`` when it holds a complete allowed
        sequence (DISCONNECT; the second sequence must leave a third possible)."""
        counts = tuple(hand)
        lm = _logic_mask(counts)
        held: i64 = 0
        for k in range(C.N_CREW_KINDS):
            if counts[k]:
                held |= 1 << k
        a, b = self.logic_ab(v, carrier_seat)
        return _hand_total(self.base_values(v, ctx, carrier_seat == v.seat), counts, held, -1,
                           -1, lm, _window_counts(lm, v.logic_trashed, ctx.L, self.full),
                           ctx.L, a, b, self.run_bonus_of(v, ctx, _windows(v, ctx), lm))

    def run_bonus_of(self, v: OdysseyView, ctx: Ctx, wins: tuple[int, ...], lm: int) -> float:
        """``run_bonus`` when the Logic mask ``lm`` holds a complete allowed sequence
        (``wins``: :func:`_windows`), else 0.0."""
        if not self.run_bonus or not _has_window(lm, ctx.L):
            return 0.0  # (the common case, in a few machine operations)
        full = self.full
        for low in wins:
            if (lm >> low) & full == full:
                if v.sequences == 1 and ctx.third_sequence_guard and not _has_run(
                        v.logic_trashed | full << low, ctx.L):
                    continue
                return self.run_bonus
        return 0.0

    def base_values(self, v: OdysseyView, ctx: Ctx, carrier: bool) -> list[float]:
        """The values of the cards that are not Logic cards (Logic: 0 here), by crew card
        kind; cached across games by the facts they read (do not mutate the list)."""
        role = v.roles[v.seat]
        mal = v.malfunctions
        lim = ctx.limits
        closed = v.closed_mask
        key = ((((mal[LIF] * 8 + role + 1) * 2 + carrier) * 2 + (closed >> 7 & 1)) * 2
               + (closed != 0)) * 8 + ((mal[GRV] >= lim[GRV] - 1)
                                       + (mal[MEM] >= lim[MEM] - 1) * 2
                                       + (mal[COM] >= lim[COM] - 1) * 4)
        out = self._base_cache.get(key)
        if out is None:
            out = self._base_cache[key] = self._new_base_values(v, ctx, carrier)
        return out

    def _new_base_values(self, v: OdysseyView, ctx: Ctx, carrier: bool) -> list[float]:
        """:meth:`_base_values`, computed."""
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
