"""FEDOR, the solo-mode robot (rulebook: Solo Mode). Part of the rules, not a policy.

FEDOR is player 1 of a solo game. It has no seat: its turn runs inside the engine. Its only open
choice ("If FEDOR cannot take both installation tokens on a module card, choose the one you
prefer") is settled by the ``fedor_choice`` rule option: ``human`` asks the human seat (an
``(FPICK, compartment)`` decision), ``first`` takes the first printed compartment, ``random``
draws from the state's Generator.

Readings (design notes 2(c)): Outside Jobs converts ``min(fedor_outside_max, ISS material)``
(14); experiment retries are cards (15); the reshuffle card is never resolved, all 9 cards are
reshuffled and a new one flipped (20); a countdown aimed at an empty pad, or at a shuttle holding
nothing, is skipped (12, and the normal rule of Player Turn 5); with no cube in reserve FEDOR
takes one from the bottom-most module holding one (option ``fedor_retrieve``). Install counts
every FEDOR astronaut on the ISS, long stay included, and moves none (FEDOR's Turn 2: it matters
on an extra action, which has no recall). Whether an extra action after a launch starts with
the recall is ambiguous (Launch 4, "performs it normally"): option ``fedor_extra_recall``
(default no recall).
"""

from __future__ import annotations

from typing import Final

from balancelab.simulate.iss.rules import (
    E_FEDOR_COUNTDOWN,
    E_FEDOR_CUBES,
    E_FEDOR_DONE,
    E_FEDOR_EXTRA,
    E_FEDOR_FAILED,
    E_FEDOR_FLIP,
    E_FEDOR_LOAD,
    E_FEDOR_RESHUFFLE,
    EXPERIMENT,
    INSTALL,
    LONG_STAY,
    LS,
    OUTSIDE,
    P_FPICK,
    P_GOAL,
    P_XSPACE,
    SHUTTLE_TYPES,
)
from balancelab.simulate.iss.state import IssState

CRANE: Final = 3
_CONT_TURN: Final = 0
_CONT_XQ: Final = 1


def fedor_load(s: IssState, r: int) -> None:
    """FEDOR's load on a newly placed shuttle: 1 astronaut on a Soyuz, 3 materials otherwise.

    Rulebook: Solo Mode, Setup and Launch ("When replenishing the shuttle…").
    """
    st, o = s.st, s.st.opts
    f = st.fedor
    c = s.pad[r]
    if c < 0:
        return
    n = st.np
    if SHUTTLE_TYPES[st.sh_type[c]] == "Soyuz":
        k = min(o.fedor_soyuz_astronauts, s.earth[f],
                st.sh_seats[c] - sum(s.sha[r * n:r * n + n]))
        if k > 0:
            s.earth[f] -= k
            s.sha[r * n + f] += k
            s._tell(E_FEDOR_LOAD, r, k, 0)
    elif st.sh_mat[c]:
        k = min(o.fedor_cargo, st.mat_cap - s._units_out(f))
        if k > 0:
            s.shm[r * n + f] += k
            s._tell(E_FEDOR_LOAD, r, 0, k)


def _flip(s: IssState) -> int:
    """Flip the top FEDOR card; on the reshuffle card reshuffle all and flip again."""
    cards = s.st.cards.fedor
    again = 0
    while True:
        if not s.fdeck:
            _reshuffle(s)
        c = s.fdeck.pop()
        s._public = None
        s.fdisc.append(c)
        if not cards[c].reshuffle:
            return c
        s._tell(E_FEDOR_RESHUFFLE, again)
        again = 1
        _reshuffle(s)


def _reshuffle(s: IssState) -> None:
    allc = s.fdeck + s.fdisc
    allc.sort()
    s.fdeck = [allc[int(k)] for k in s.rng.permutation(len(allc))]
    s._public = None
    s.fdisc = []


def _astro_on_iss(s: IssState, f: int) -> int:
    """FEDOR's astronauts on the ISS: Unity and every compartment, long stay included."""
    return s.unity[f] + sum(1 for q in s.cocc if q == f)


def _recall(s: IssState, f: int) -> None:
    """Every FEDOR astronaut in a compartment back to Unity, long stay included (rulebook:
    Solo Mode, FEDOR's Turn 1)."""
    for k in range(len(s.cocc)):
        if s.cocc[k] == f:
            s.cocc[k] = -1
            s.unity[f] += 1


def fedor_turn(s: IssState) -> None:
    """One FEDOR turn (rulebook: Solo Mode, FEDOR's Turn 1-4, then the launch check).

    Leaves the state in phase P_GOAL (end of turn) or P_FPICK (waiting for the human's pick).
    """
    f = s.st.fedor
    _recall(s, f)  # 1. recall
    card = _flip(s)  # 2. act
    act = s.st.cards.fedor[card].action
    s.cur_action = act
    s._tell(E_FEDOR_FLIP, act)
    ok = _perform(s, act, _CONT_TURN)
    if ok is None:
        return
    fedor_after_action(s, act, ok)


def fedor_after_action(s: IssState, act: int, ok: bool) -> None:
    """Module preparation (a second cube if the action failed) and the countdown."""
    st = s.st
    f = st.fedor
    if not ok:
        s.fedor_fails += 1
    s._tell(E_FEDOR_DONE if ok else E_FEDOR_FAILED, act)
    if not s.final:
        slot = s.rows[act]
        for _ in range(1 if ok else 2):
            _fedor_cube(s, f)
            s.colc[slot * st.np + f] += 1
        s._tell(E_FEDOR_CUBES, slot, 1 if ok else 2)
        r = st.cards.fedor[s.fdeck[-1]].back if s.fdeck else -1
        v = st.cd[act]
        if r >= 0 and v > 0 and s.pad[r] >= 0 and s._pad_loaded(r):
            s._tell(E_FEDOR_COUNTDOWN, r, v)
            s._countdown(r, v)
    s.phase = P_GOAL


def _fedor_cube(s: IssState, f: int) -> None:
    n = s.st.np
    if s.res[f] > 0:
        s.res[f] -= 1
        return
    slots = range(3, -1, -1) if s.st.opts.fedor_retrieve == "bottom" else range(4)
    for sl in slots:
        if s.colc[sl * n + f] > 0:
            s.colc[sl * n + f] -= 1
            return
    raise AssertionError("FEDOR has no cube anywhere")


def fedor_extra(s: IssState) -> None:
    """FEDOR's extra action after a launch: flip and act, no cube, no countdown.

    Rulebook: Solo Mode, Launch 4-5 ("flips over a FEDOR card and performs it normally, but
    without placing an action cube or advancing any countdowns"). Whether "performs it
    normally" includes the recall of FEDOR's Turn 1 is ambiguous: option
    ``fedor_extra_recall`` (default ``False``, no recall: only the card is named).
    """
    if s.st.opts.fedor_extra_recall:
        _recall(s, s.st.fedor)
    card = _flip(s)
    act = s.st.cards.fedor[card].action
    s._tell(E_FEDOR_EXTRA, act)
    ok = _perform(s, act, _CONT_XQ)
    if ok is not None:
        s._tell(E_FEDOR_DONE if ok else E_FEDOR_FAILED, act)


def fedor_resume(s: IssState, comp: int) -> None:
    """Finish a paused Install with the human's pick, then continue FEDOR's turn or the launch."""
    f = s.st.fedor
    s.ccover[comp] = 0
    s.tok[f] += 1
    s._public = None
    s.fpick = []
    if s.fcont == _CONT_TURN:
        fedor_after_action(s, INSTALL, True)
    else:
        s._tell(E_FEDOR_DONE, INSTALL)
        s.phase = P_XSPACE


def _perform(s: IssState, act: int, cont: int) -> bool | None:
    """Do FEDOR's action. True done, False failed, None paused for the human's pick."""
    st, o = s.st, s.st.opts
    f = st.fedor
    if act == INSTALL:
        # "one installation token for each astronaut it has on the ISS" (Solo Mode, FEDOR's
        # Turn 2): every FEDOR astronaut counts, long stay included. On FEDOR's own turn the
        # recall has put them all in Unity; on an extra action (no recall) some may be in
        # long stay. None of them moves: long-stay astronauts stay in long stay.
        k = _astro_on_iss(s, f)
        if k == 0:
            return False
        took = 0
        by_mod: dict[int, list[int]] = {}
        for c in range(len(s.ccover)):
            if s.ccover[c]:
                by_mod.setdefault(s.cmod[c], []).append(c)
        for m in sorted(by_mod):
            comps = by_mod[m]
            if k - took >= len(comps):
                for c in comps:
                    s.ccover[c] = 0
                    s.tok[f] += 1
                took += len(comps)
            else:
                need = k - took
                if need == 0:
                    break
                if o.fedor_choice == "first":
                    pick = comps[:need]
                elif o.fedor_choice == "random":
                    idx = sorted(int(x) for x in s.rng.permutation(len(comps))[:need])
                    pick = [comps[i] for i in idx]
                else:
                    if len({s.ctype[c] for c in comps}) == 1:
                        pick = comps[:need]
                    else:
                        s._public = None
                        s.fpick = list(comps)
                        s.fcont = cont
                        s.phase = P_FPICK
                        return None
                for c in pick:
                    s.ccover[c] = 0
                    s.tok[f] += 1
                took += need
                break
        return took > 0
    if act == OUTSIDE:
        c = s._free_comp(CRANE)
        kk = min(o.fedor_outside_max, s.iss[f], o.ext_max - s.ext[f])
        if c < 0 or kk <= 0 or s._stat_astro(f) == 0:
            return False
        s._take_astro(f)
        s.cocc[c] = f
        s.iss[f] -= kk
        s.ext[f] += kk
        return True
    if act == LONG_STAY:
        done = 0
        while (s.iss[f] >= 1 and s.ls[f] < st.ls_max and s._stat_astro(f) > 0):
            c = s._free_comp(LS)
            if c < 0:
                break
            s._take_astro(f)
            s.cocc[c] = f
            s.iss[f] -= 1
            s.ls[f] += 1
            done += 1
        return done > 0
    if act == EXPERIMENT:
        lvl = min(3, _astro_on_iss(s, f))
        deck = s.edeck[lvl - 1]
        for _ in range(o.fedor_tries):
            if not deck:
                return False
            e = deck.pop()
            opts = s.exp_options(f, e)
            if opts:
                s.do_experiment(f, e, opts[0])
                return True
            deck.insert(0, e)  # face up: every player knows it is at the bottom
            s.eknow[e] = (1 << st.np) - 1
        return False
    return False



class Fedor:
    """FEDOR's rules as the state calls them (:class:`~balancelab.simulate.iss.state.
    SoloRules`), handed to a solo game's state by the game. Holds nothing, so a view that
    reaches it pickles the same whatever the game."""

    def load(self, s: IssState, r: int) -> None:
        fedor_load(s, r)

    def turn(self, s: IssState) -> None:
        fedor_turn(s)

    def extra(self, s: IssState) -> None:
        fedor_extra(s)

    def resume(self, s: IssState, comp: int) -> None:
        fedor_resume(s, comp)


FEDOR: Final = Fedor()
