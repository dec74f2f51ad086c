"""1998 ISS's determinization: a full state consistent with one seat's view
(:meth:`IssGame.determinize <balancelab.simulate.iss.game.IssGame.determinize>`), the search
policies' world sampler, and the shuffles it shares with ``IssGame.reshuffle_piles``.
Compiled (mypyc): the searches call it once per world.
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

from balancelab.simulate.core import PLACEHOLDER_RNG
from balancelab.simulate.iss.state import IssState, IssView, _Public
from balancelab.simulate.seeding import PcgStream

#: What deals a world: a Generator, or the searches' :class:`PcgStream` (the same draws,
#: without making the Generator: a multiplayer world never draws again once dealt).
Rng: TypeAlias = np.random.Generator | PcgStream


def _shuffled(items: list[int], rng: Rng) -> list[int]:
    """A shuffled copy of ``items``: the list ``[items[k] for k in
    rng.permutation(len(items))]`` would give, from the same draws (numpy shuffles a list
    and an index array by the same swaps), without numpy's array and integer scalars."""
    out = list(items)
    rng.shuffle(out)
    return out


def _reshuffled(deck: list[int], known: dict[int, int], rng: Rng) -> list[int]:
    """``deck`` shuffled, but for the cards in ``known`` (seen put under it), which keep
    their places; the deal depends on the cards, those places and ``rng`` only."""
    free = _shuffled(sorted(e for e in deck if e not in known), rng)
    return [e if e in known else free.pop() for e in deck]


def _fedor_deck(cards: list[int], top_back: int, fedor: Any, rng: Rng) -> list[int]:
    """The FEDOR deck dealt from ``cards`` at random, its top card (the last) one whose back
    is ``top_back`` (the back the players see; ``-1``: any), chosen uniformly among those;
    the rest shuffled under it. Uniform over the orders that show that back."""
    tops = [c for c in cards if fedor[c].back == top_back]
    if not tops:
        return _shuffled(cards, rng)
    top = tops[int(rng.integers(len(tops)))]
    rest = list(cards)
    rest.remove(top)
    return _shuffled(rest, rng) + [top]


def state_from_view(view: IssView, rng: Rng) -> IssState:
    """A state consistent with ``view``: hidden information re-dealt at random from what the
    seat cannot see: other players' experiment hands (sizes and levels kept — card backs show
    the level), the order of the three experiment decks (sizes kept; a card the seat saw put
    under its deck (``eknown``) stays where the seat knows it is: at its place in the deck,
    or in the hand of the player who drew it), the module deck, the
    shuttle decks and the cards removed by ``remove_shuttles`` (sizes kept), and the FEDOR
    deck (the back of its top card kept if possible).

    Returns:
        An :class:`IssState` whose public part equals the view and whose rng is ``rng`` (a
        :class:`PcgStream`: its Generator, built at the state's first draw).
    """
    st = view.st
    n = st.np
    s = IssState(st, PLACEHOLDER_RNG)  # (its rng once dealt, below)
    s.phase = view.phase
    s.turn_player = view.turn_player
    s.sp = view.sp
    s.final = view.final
    s.triggered = view.triggered
    s.turns = view.turns
    s.rows = view.rows
    s.pool = view.pool
    s.extra_used = view.extra_used
    s.col = list(view.col)
    s.colc = list(view.colc)
    s.ctype = list(view.ctype)
    s.ccover = list(view.ccover)
    s.cocc = list(view.cocc)
    s.cmod = list(view.cmod)
    s.unity = list(view.unity)
    s.earth = list(view.earth)
    s.pad = list(view.pad)
    s.cd = list(view.cd)
    s.sha = list(view.sha)
    s.shm = list(view.shm)
    s.iss = list(view.iss)
    s.ext = list(view.ext)
    s.ls = list(view.ls)
    s.tok = list(view.tok)
    s.offer = list(view.offer)
    s.xsp = list(view.xsp)
    s.res = list(view.res)
    s.xq = list(view.xq)
    s.fdisc = list(view.fdisc)
    s.launches = list(view.launches)
    s.docked = list(view.docked)
    s.pgoals = [list(g) for g in view.pgoals]
    s.owned = [list(x) for x in view.owned]
    s.done = [list(x) for x in view.done]
    # the world's views hand out the view's own tuples of these records (the same values)
    s._public = _Public(view.col, view.ctype, view.cmod, view.docked, view.offer,
                        view.launches, view.fdisc, view.fpick, view.pgoals, view.owned,
                        view.done)
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
    # experiments: the cards the seat saw put under their decks stay where it knows they are
    p = view.player
    places = {e: (kind, x) for e, kind, x in view.eknown}
    seen = [False] * len(st.exp_cards)
    for cards in (view.hand, view.drawn, tuple(places)) + view.done:
        for e in cards:
            seen[e] = True
    # each level's unseen cards (in card order) shuffled, levels 1 to 3
    unseen = [_shuffled([e for e in cards if not seen[e]], rng) for cards in st.exp_by_level]
    s.hand = [[] for _ in range(n)]
    s.hand[p] = list(view.hand)
    s.drawn = list(view.drawn)
    pinned = {}  # type: dict[tuple[int, int], int]
    for e, (kind, x) in places.items():
        if kind == 0:
            pinned[st.exp_level[e], x] = e
        elif kind == 1:
            if x != p:
                s.hand[x].append(e)
        elif x != p:  # another seat's pending draw: only the cards the seat knows
            s.drawn.append(e)
        s.eknow[e] = 1 << p
    for q in range(n):
        if q == p:
            continue
        levels = list(view.hand_levels[q])
        for e in s.hand[q]:
            levels.remove(st.exp_level[e])
        for lvl in levels:
            s.hand[q].append(unseen[lvl - 1].pop())
    s.edeck = []
    for lvl in (1, 2, 3):
        pool = unseen[lvl - 1]
        s.edeck.append([pinned[lvl, i] if pinned and (lvl, i) in pinned else pool.pop()
                        for i in range(view.edeck_n[lvl - 1])])
    # modules
    known = set(view.docked) | {m for m in view.col if m >= 0}
    rest = [m for m in range(len(st.cards.modules)) if m not in known]
    s.mdeck = _shuffled(rest, rng)[: view.mdeck_n]
    # shuttles
    s.sdeck, s.removed = [], []
    owned = {c for x in view.owned for c in x}
    for r in (0, 1):
        pad = view.pad[r]
        pool = _shuffled([c for c in st.sh_by_nation[r] if c not in owned and c != pad], rng)
        k = view.sdeck_n[r]
        s.sdeck.append(pool[:k])
        s.removed.append(pool[k:])
    # FEDOR deck
    s.fdeck = []
    if st.solo:
        rest = [c for c in range(len(st.cards.fedor)) if c not in view.fdisc]
        s.fdeck = _fedor_deck(rest, view.fnext_back, st.cards.fedor, rng)
    if isinstance(rng, PcgStream):
        s._rng_live = None
        s._rng_snap = rng.snapshot()
    else:
        s.rng = rng
    s._legal = None
    s._events = []
    return s
