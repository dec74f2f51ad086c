"""Obcy's determinization: a full state consistent with one seat's view
(:meth:`ObcyGame.determinize <balancelab.simulate.obcy.game.ObcyGame.determinize>`), the
search policies' world sampler. Compiled (mypyc): the searches call it once per world.
"""

from __future__ import annotations

import numpy as np

from balancelab.simulate.encoding import by_identity
from balancelab.simulate.obcy.rules import ObcyOptions
from balancelab.simulate.obcy.state import N_MISSIONS, ObcyState, ObcyView


def _setup(options: ObcyOptions) -> ObcyState:
    """The set-up state of ``options`` with seed 0, the template every sampled world is
    copied from before the view's fields overwrite it (the same state as a fresh set-up, for
    the cost of a copy). Made once per options object (:func:`by_identity`) and never
    played."""
    return by_identity(options, _new_setup)


def _new_setup(options: ObcyOptions) -> ObcyState:
    return ObcyState(options, np.random.default_rng(0))


def state_from_view(view: ObcyView, rng: np.random.Generator) -> ObcyState:
    """Rebuild a state from a view; hidden cards are dealt at random from ``rng``."""
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
    unseen = [m for m in range(N_MISSIONS) if m not in s.done and m not in s.discarded]
    if view.open_missions or view.seat == 0:
        s.open = list(view.open_missions)
        unseen = [m for m in unseen if m not in s.open]
        order = [unseen[int(i)] for i in rng.permutation(len(unseen))]
    else:  # the ALIENS seat: open and discarded cards are dealt from the unseen ones
        order = [unseen[int(i)] for i in rng.permutation(len(unseen))]
        s.open = [order.pop() for _ in range(view.n_open)]
        s.discarded = [order.pop() for _ in range(view.n_discarded - len(s.discarded))]
    s.deck = order[: view.deck_left]
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
        s.stage, s.interrupt, s.queen_pending, mo, s.a_cur, s.hatch_first, tq, asg, grp, rq,
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
