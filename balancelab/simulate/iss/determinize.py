"""Determinization: a full *1998 ISS* state consistent with one seat's view (for search).

Hidden information re-dealt at random from what the seat cannot see: other players' experiment
hands (sizes and levels kept — card backs show the level), the order of the three experiment
decks (sizes kept), the module deck, the shuttle decks and the cards removed by
``remove_shuttles`` (sizes kept), and the FEDOR deck (the back of its top card kept if possible).
"""

from __future__ import annotations

import numpy as np

from balancelab.simulate.iss.engine import IssState, IssView


def _shuffled(items: list[int], rng: np.random.Generator) -> list[int]:
    return [items[int(k)] for k in rng.permutation(len(items))]


def determinize(view: IssView, rng: np.random.Generator) -> IssState:
    """Build a state from ``view`` with hidden cards re-dealt from ``rng``.

    Returns:
        An :class:`IssState` whose public part equals the view and whose rng is ``rng``.
    """
    st = view.st
    n = st.np
    s = IssState(st, rng)
    for name in ("phase", "turn_player", "sp", "final", "triggered", "turns", "rows", "pool",
                 "extra_used"):
        setattr(s, name, getattr(view, name))
    for name in ("col", "colc", "ctype", "ccover", "cocc", "cmod", "unity", "earth", "pad",
                 "cd", "sha", "shm", "iss", "ext", "ls", "tok", "offer", "xsp", "res", "xq",
                 "fdisc", "launches", "docked"):
        setattr(s, name, list(getattr(view, name)))
    s.pgoals = [list(g) for g in view.pgoals]
    s.owned = [list(x) for x in view.owned]
    s.done = [list(x) for x in view.done]
    s.current_seat = view.seat if view.phase != 9 else -1
    s.final_done = 0
    if s.final:
        # turns played in the final round: count from the start player
        s.final_done = (view.turn_player - view.sp) % n
    s.trigger_nation = -1
    s.end_reason = ""
    s.launcher = -1
    s.on_card = view.on_card
    s.extras_won = 0
    s.fedor_fails = 0
    s.fcont = view.fcont  # FEDOR's pending token choice and the kind of Plan being kept
    s.fpick = list(view.fpick)  # are public
    s.keep_extra = view.keep_extra
    s.cur_action = view.cur_action
    s.goal_step = view.goal_step
    # experiments
    p = view.player
    seen = set(view.hand) | set(view.drawn)
    for d in view.done:
        seen |= set(d)
    unseen = {lvl: [] for lvl in (1, 2, 3)}  # type: dict[int, list[int]]
    for e in range(len(st.exp_cards)):
        if e not in seen:
            unseen[st.exp_level[e]].append(e)
    for lvl in unseen:
        unseen[lvl] = _shuffled(unseen[lvl], rng)
    s.hand = [[] for _ in range(n)]
    s.hand[p] = list(view.hand)
    for q in range(n):
        if q == p:
            continue
        for lvl in view.hand_levels[q]:
            s.hand[q].append(unseen[lvl].pop())
    s.drawn = list(view.drawn)
    if not s.drawn and view.phase == 4:  # another seat's pending draw: not visible; none
        s.drawn = []
    s.edeck = [unseen[lvl][: view.edeck_n[lvl - 1]] for lvl in (1, 2, 3)]
    # modules
    known = set(view.docked) | {m for m in view.col if m >= 0}
    rest = [m for m in range(len(st.cards.modules)) if m not in known]
    s.mdeck = _shuffled(rest, rng)[: view.mdeck_n]
    # shuttles
    s.sdeck, s.removed = [], []
    owned = {c for x in view.owned for c in x}
    for r in (0, 1):
        pool = [c for c in range(len(st.sh_nation))
                if st.sh_nation[c] == r and c not in owned and c != view.pad[r]]
        pool = _shuffled(pool, rng)
        k = view.sdeck_n[r]
        s.sdeck.append(pool[:k])
        s.removed.append(pool[k:])
    # FEDOR deck
    s.fdeck = []
    if st.solo:
        rest = [c for c in range(len(st.cards.fedor)) if c not in view.fdisc]
        rest = _shuffled(rest, rng)
        if view.fnext_back >= 0:
            for i, c in enumerate(rest):
                if st.cards.fedor[c].back == view.fnext_back:
                    rest[i], rest[-1] = rest[-1], rest[i]
                    break
        s.fdeck = rest
    s._legal = None
    s._events = []
    return s
