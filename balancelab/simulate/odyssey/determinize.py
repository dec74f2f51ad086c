"""2001's determinization: a full state consistent with one seat's view
(:meth:`OdysseyGame.determinize <balancelab.simulate.odyssey.game.OdysseyGame.determinize>`),
the search policies' world sampler. Compiled (mypyc): the searches call it once per world.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import numpy as np

from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.state import OdysseyState, OdysseyView, ctx_for
from balancelab.simulate.seeding import draw_seed, seeded_snapshot

#: per Ctx: its HAL deck's counts per HAL kind (never mutated)
_HAL_DECK: Final[dict[Any, list[int]]] = {}


def hal_unseen(view: OdysseyView) -> list[int]:
    """Counts per HAL kind (length 14) of the HAL cards a crewmember cannot place: the deck
    minus the HAL TRASH, the revealed row, the malfunctions beside the board and the cards
    seen going into the HAL Discard since its last reshuffle (``hal_discard_seen``). HAL's
    hidden hand, its Draw pile and the unseen part of its Discard hold exactly these."""
    ctx = ctx_for(view.options)
    deck = _HAL_DECK.get(ctx)
    if deck is None:
        deck = [0] * C.N_HAL_KINDS
        for k in ctx.hal_deck:
            deck[k] = deck[k] + 1
        _HAL_DECK[ctx] = deck
    out = list(deck)
    # (out[k] = out[k] - n: ``-=`` on a list item is a generic call compiled)
    trash = view.hal_trash
    seen = view.hal_discard_seen
    for k in range(C.N_HAL_KINDS):
        out[k] = out[k] - (trash[k] + seen[k])
    for k in view.hal_revealed:
        out[k] = out[k] - 1
    mal = view.malfunctions
    for k in range(4):
        out[k] = out[k] - mal[k]
    return out


def state_from_view(view: OdysseyView, rng: np.random.Generator,
                    hal_hidden: Sequence[int] | None = None) -> OdysseyState:
    """A full state consistent with ``view``, every card the seat cannot see re-dealt from
    ``rng`` (see :meth:`OdysseyGame.determinize
    <balancelab.simulate.odyssey.game.OdysseyGame.determinize>`); the state's own Generator
    is seeded from ``rng``. ``hal_hidden`` (counts per HAL kind, a crew seat only) sets HAL's
    hidden hand instead of dealing it uniformly from the unseen HAL cards (a belief: it must
    be drawn from :func:`hal_unseen` and hold the view's hidden count)."""
    ctx = ctx_for(view.options)
    n = ctx.n
    s = OdysseyState.__new__(OdysseyState)
    s.ctx = ctx
    # the state's Generator, seeded from ``rng`` as ``seeded_generator(int(rng.integers(2**63)))``
    # would, is built at its first draw only (State.rng): most worlds never draw
    s._rng_live = None
    s._rng_snap = seeded_snapshot(draw_seed(rng))
    s.roles = tuple(view.roles)
    s.pos = list(view.pos)
    # crew cards: all minus TRASH minus what the seat sees in hand
    pool = list(ctx.crew_deck)
    for k, c in enumerate(view.crew_trash):
        for _ in range(c):
            pool.remove(k)
    s.hands = [[0] * C.N_CREW_KINDS for _ in range(n + 1)]
    s.hand_n = [0] * (n + 1)
    if view.seat > 0:
        s.hands[view.seat] = list(view.hand)
        s.hand_n[view.seat] = sum(view.hand)
        for k, c in enumerate(view.hand):
            for _ in range(c):
                pool.remove(k)
    # a seat looking through the crew Discard (RECOVER) knows its contents; every seat knows
    # the cards seen going into it (they stay there, under the unseen part)
    seen_disc = list(view.looking_at)
    seen_crew = ([] if seen_disc else
                 [k for k in range(C.N_CREW_KINDS) for _ in range(view.crew_discard_seen[k])])
    for k in seen_disc or seen_crew:
        pool.remove(k)
    # what the crew announced (crew_talk) is in those hands: under 'open' the whole
    # hand, under 'logic' its Logic cards, and its other cards are then not Logic
    logic_told = view.options.crew_talk == "logic"
    told = [t for t in range(1, n + 1) if t != view.seat and view.talk[t] is not None]
    for t in told:
        hand = s.hands[t]
        for k in view.talk[t]:  # type: ignore[union-attr]
            pool.remove(k)
            hand[k] = hand[k] + 1
            s.hand_n[t] = s.hand_n[t] + 1
    rng.shuffle(pool)
    if logic_told and told:
        rest = [k for k in pool if k not in C.LOGIC_KINDS]
        logic = [k for k in pool if k in C.LOGIC_KINDS]
        for t in told:
            _deal(s, t, view.hand_n[t] - s.hand_n[t], rest)
        pool = rest + logic
        rng.shuffle(pool)
    for t in range(1, n + 1):
        if t == view.seat:
            continue
        _deal(s, t, view.hand_n[t] - s.hand_n[t], pool)
    if seen_disc:
        rng.shuffle(seen_disc)
        s.crew_disc = seen_disc
    else:
        s.crew_disc = seen_crew + [pool.pop() for _ in range(view.crew_discard_n - len(seen_crew))]
        rng.shuffle(s.crew_disc)
    s.crew_seen = view.crew_discard_seen
    s.crew_draw = pool
    s.crew_trash = [k for k, c in enumerate(view.crew_trash) for _ in range(c)]
    # HAL cards: all minus TRASH, revealed row, board and the cards seen going into the
    # Discard (those stay there, under the unseen part of the Discard)
    unseen = hal_unseen(view)
    if view.seat == 0 or hal_hidden is not None:
        s.hal_hidden = list(view.hand) if view.seat == 0 else list(hal_hidden)  # type: ignore[arg-type]
        for k in range(C.N_HAL_KINDS):
            unseen[k] -= s.hal_hidden[k]
            if unseen[k] < 0:
                raise ValueError(f"HAL's hidden hand {s.hal_hidden} holds cards the view "
                                 "places elsewhere")
        hpool = [k for k in range(C.N_HAL_KINDS) for _ in range(unseen[k])]
        rng.shuffle(hpool)
    else:
        s.hal_hidden = [0] * C.N_HAL_KINDS
        hpool = [k for k in range(C.N_HAL_KINDS) for _ in range(unseen[k])]
        rng.shuffle(hpool)
        hidden = s.hal_hidden
        for _ in range(view.hand_n[0] - len(view.hal_revealed)):
            k = hpool.pop()
            hidden[k] = hidden[k] + 1
    seen = [k for k in range(C.N_HAL_KINDS) for _ in range(view.hal_discard_seen[k])]
    s.hal_disc = seen + [hpool.pop() for _ in range(view.hal_discard_n - len(seen))]
    rng.shuffle(s.hal_disc)
    s.hal_draw = hpool
    s.hal_seen = view.hal_discard_seen
    s.hal_history = view.hal_history
    s.recording = False
    s.view0 = None
    s.hal_trash = [k for k, c in enumerate(view.hal_trash) for _ in range(c)]
    # the view's own tuples of public facts (below: the board's too): the world's views share
    # them as the view shares them with the records of ``hal_history`` (a pickle of either
    # view then reads the same)
    s.trash_counts = (view.crew_trash, view.hal_trash)
    s.hal_rev = list(view.hal_revealed)
    s.hand_n[0] = s.hal_hand_n()
    s.mal = list(view.malfunctions)
    s.doors = list(view.doors)
    s.pos_t = view.pos
    s.mal_t = view.malfunctions
    s.doors_t = view.doors
    s.rev_t = view.hal_revealed
    s.hand_t = [None] * (n + 1)
    s.hand_n_t = None
    s.closed_mask = sum(1 << d for d in range(1, 8) if view.doors[d] == 1)
    s.marker = view.marker
    s.sequences = view.sequences
    s.logic_trashed = view.logic_trashed
    s.monolith = view.monolith
    s.first = view.monolith
    s.crew_turns = view.crew_turns
    s.hal_turns = 0
    s.stack = list(view.stack)
    s.actor = view.actor
    s.used = view.used
    s.repair_open = view.repair_open
    s.start_pos = view.start_pos
    s.current_seat = view.stack[-1][1] if view.stack else -1
    s.phase = view.phase
    s.terminal = not view.stack
    s.winner = ""
    s.end_reason = ""
    s.m = [0] * OdysseyState.N_M
    s.log = []
    s.tracing = False
    return s


def _deal(s: OdysseyState, t: int, n: int, pile: list[int]) -> None:
    """Deal ``n`` cards (none when ``n`` <= 0) from the end of ``pile`` into crewmember
    ``t``'s hand."""
    if n <= 0:
        return
    hand = s.hands[t]
    for _ in range(n):
        k = pile.pop()
        hand[k] = hand[k] + 1
    s.hand_n[t] = s.hand_n[t] + n
