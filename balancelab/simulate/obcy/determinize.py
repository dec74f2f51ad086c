"""Obcy's determinization: a full state consistent with one seat's view
(:meth:`ObcyGame.determinize <balancelab.simulate.obcy.game.ObcyGame.determinize>`), the
search policies' world sampler. Compiled (mypyc): the searches call it once per world.
"""

from __future__ import annotations

from typing import Final

import numpy as np

from balancelab.simulate.encoding import by_identity
from balancelab.simulate.obcy.rules import ObcyOptions
from balancelab.simulate.obcy.state import (
    N_MISSIONS,
    ST_ALIENS_BEGIN,
    ST_ATARGET,
    ST_HATCH,
    ObcyState,
    ObcyView,
)

#: the tasks checked at the end of an Expedition phase on the characters and the transporter
#: (M08, M18, M19; not M13, on the ALIENS, who move after the check)
_MET_KINDS: Final = frozenset(("transporter", "bishop", "room"))
#: and M13 (no ALIEN near computer 1), while the ALIENS have only hatched since the check
_MET_KINDS_HATCH: Final = _MET_KINDS | {"clear"}
_NO_KINDS: Final[frozenset[str]] = frozenset()


def _setup(options: ObcyOptions) -> ObcyState:
    """The set-up state of ``options`` with seed 0, the template every sampled world is
    copied from before the view's fields overwrite it (the same state as a fresh set-up, for
    the cost of a copy). Made once per options object (:func:`by_identity`) and never
    played."""
    return by_identity(options, _new_setup)


def _new_setup(options: ObcyOptions) -> ObcyState:
    return ObcyState(options, np.random.default_rng(0))


def state_from_view(view: ObcyView, rng: np.random.Generator) -> ObcyState:
    """Rebuild a state from a view; hidden cards are dealt at random from ``rng``: the
    mission deck's order, and for the ALIENS seat which cards are open, discarded and drawn
    this phase (:func:`_deal_aliens`), consistent with what that seat can infer.

    Raises:
        ValueError: no deal fits the view (a view no game reaches).
    """
    s = _setup(view.options).copy()
    s.rng = rng
    s.c_pos = list(view.c_pos)
    s.c_state = list(view.c_state)
    s.c_str = list(view.c_str)
    s.c_ap = list(view.c_ap)
    s.c_pk = [list(p) for p in view.c_pk]
    s.c_done = list(view.c_done)
    s.c_fired = list(view.c_fired)
    s.c_stopped = list(view.c_stopped)
    s.c_left = list(view.c_left)
    s.c_track = list(view.c_track)
    s.c_exit = list(view.c_exit)
    s.a_id = list(view.a_id)
    s.a_pos = list(view.a_pos)
    s.a_str = list(view.a_str)
    s.char_cnt = [0] * s.m_n
    s.c_adj = [0] * s.m_n
    s.alien_cnt = [0] * s.m_n
    s.a_adj = [0] * s.m_n
    s._chars_shared = s._aliens_shared = False  # fresh counts, its own
    for c in range(6):
        if s.c_state[c] == 0:
            s._char_in(s.c_pos[c])
    for p in s.a_pos:
        s._alien_in(p)
    s.floor = {k: list(v) for k, v in view.floor}
    s._floor_shared = False
    s.supply = list(view.supply)
    s.used = list(view.used)
    s.tr_pos, s.tr_fuel, s.tr_moved = view.tr_pos, view.tr_fuel, view.tr_moved
    s.collapsed = view.collapsed
    s.done = list(view.done_missions)
    s.discarded = list(view.discarded)
    s.fresh = list(view.fresh)
    s.stage, s.interrupt = view.machine[0], view.machine[1]
    unseen = [m for m in range(N_MISSIONS) if m not in s.done and m not in s.discarded]
    order = unseen  # shuffled as rng.permutation(len(unseen)) would order it (same draws)
    rng.shuffle(order)
    if view.seat == 0:  # the expedition reads its cards: only the deck's order is hidden
        s.open = list(view.open_missions)
        s.deck = [m for m in order if m not in s.open]
    else:
        _deal_aliens(s, view, order)
    s.points = view.points
    s.queen_alive = view.queen_alive
    s.hatching_on = view.hatching_on
    s.hatch_pts = view.hatch_pts
    s.kills_phase = view.kills_phase
    s.shot_at = view.shot_at
    s.round = view.round
    s.active = view.active
    s.st = dict(view.stats)
    s._vstats = None
    (
        _, _, s.queen_pending, mo, s.a_cur, s.hatch_first, tq, asg, grp, rq,
        s.r_opts, s.next_aid, s.over, s.winner, s.end_reason,
    ) = view.machine
    s.move_order = tuple(mo)
    s.tgt_queue = list(tq)
    s.assign = list(asg)
    s.groups = list(grp)
    s.rq = list(rq)
    s._legal = None
    s._dest = None
    s.current_seat = -1 if s.over else view.seat
    return s


def _deal_aliens(s: ObcyState, view: ObcyView, order: list[int]) -> None:
    """Deal the mission cards the ALIENS have not read (``order``, shuffled) into ``s``'s
    open, discarded and deck piles and its cards drawn this phase, sizes as in ``view``.

    7. The ALIENS read a card only once its task is done, but they see the board, so under
    ``discard_impossible_missions`` (3(c)23) they know that a discarded card's task is
    impossible (impossibility never ends) and that an open card's task was possible at the
    last check: a character's death is checked at once, a used-up item at the end of the
    Expedition phase (so during the ALIENS phase every condition applies, before it only the
    deaths). Before the ALIENS' attacks the characters stand as at the end of the Expedition
    phase, so no open card is a task checked then (M08, M18, M19) that the board shows met;
    nor, before the ALIENS move, M13 (hatching only adds ALIENS).
    Each pile is dealt uniformly from the cards that fit it.
    """
    stage = s.stage
    missions = s.m_missions
    now = then = met = _NO_KINDS
    if s.opt.discard_impossible_missions:
        now = s.impossible_kinds()
        then = now if stage >= ST_ALIENS_BEGIN else s.impossible_kinds(deaths_only=True)
    if ST_ALIENS_BEGIN <= stage <= ST_ATARGET:
        # M13 too until the ALIENS move (hatching only adds ALIENS), unless it may have been
        # drawn in that phase and waited (clear_mission_when_drawn false: s.fresh is gone)
        met = _MET_KINDS_HATCH if stage <= ST_HATCH and s.opt.clear_mission_when_drawn \
            else _MET_KINDS
    n_discarded, n_open = view.n_discarded, view.n_open
    discarded: list[int] = []
    fits: list[int] = []  # the cards that may be open
    for m in order:
        kind = missions[m][0]
        if len(discarded) < n_discarded and kind in now:
            discarded.append(m)
        elif kind not in then and not (kind in met and s.task_met_at_phase_end(m)):
            fits.append(m)
    if len(discarded) < n_discarded or len(fits) < n_open:
        raise ValueError(f"no deal of the mission cards fits the ALIENS' view ({n_open} open, "
                         f"{n_discarded} discarded)")
    s.discarded = discarded
    s.open = fits[:n_open]
    hidden = s.open + discarded
    s.deck = [m for m in order if m not in hidden]
    if view.n_fresh:  # the cards drawn this phase: among the hidden ones, else the last done
        s.fresh = ([m for m in order if m in hidden] + s.done[::-1])[: view.n_fresh]
    else:
        s.fresh = []
