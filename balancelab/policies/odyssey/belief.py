"""The crew's belief about HAL's hidden hand (2001): which hands HAL may hold, weighted by
what it publicly did (``belief=hal-model`` of ``search`` and ``ismcts``).

The uniform re-deal (``belief=uniform``) deals HAL's hidden cards at random from the HAL
cards a crewmember cannot place (:func:`~balancelab.simulate.odyssey.determinize.hal_unseen`).
But HAL's plays, reveals and discards were chosen by its hand: a HAL that could have ended
the game with a LIF Malfunction and played a door instead most likely held none; a HAL that
revealed a LIF Malfunction (its most precious card) most likely held nothing cheaper.

``hal-model`` is a particle filter (sequential importance resampling) over HAL's hidden hand
along the public record of HAL's decisions (``OdysseyView.hal_history``), under a named
**assumption**: HAL plays like the game's default HAL player (``hal-pressure`` at its
default parameters, whose choice is a function of its view and hand), except that with
probability ``epsilon`` it picks uniformly among its legal actions (an epsilon-greedy
likelihood: a hand under which the model would have chosen otherwise is ``epsilon / n``
times as likely, not impossible, so the belief stays usable against another HAL player).

Each of ``PARTICLES`` particles is a hidden hand. At each recorded decision, in order:

1. the particle draws the cards HAL drew since the last decision, uniformly from the HAL
   cards unplaced at that decision (hard constraints: nothing in the TRASH, on the board, in
   the revealed row or seen going into the Discard since its last reshuffle);
2. a card HAL was seen to take from behind its screen (a hidden play, a reveal) must be in
   the hand: a particle without it trades one of its cards, chosen at random, for it (the
   proposal; the decision's likelihood then weighs the rest of the hand);
3. the particle is weighted by the model's likelihood of the decision, then the card leaves
   its hand (a hidden Disconnect discard, unseen: the model's choice if hidden, else a random
   card);
4. the particles are resampled (systematic) when their effective number falls below half.

The filter reads public information only (the record and the view's public fields), so it
is the same for every crewmember and is cached per game history, advanced by the new
decisions only; each world of a search then picks a particle by weight and draws the cards
HAL drew since its last decision (:class:`HalBelief.sample`). Its own random numbers come
from a fixed seed, so the belief is a function of the public history (reproducible).

Measured (docs/games/odyssey.md): on scripted games its worlds put 53% of HAL's true hidden
cards in HAL's hand against 36% for the uniform re-deal, but the ``ismcts`` crew wins no more
with it (3 crew against ``hal-pressure``, 1,200 paired deals: -0.4 [-1.3, +0.4] points against
``belief=uniform``), nor when told HAL's true hand; hence not the default.
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np

from balancelab.simulate.odyssey import cards as C
from balancelab.simulate.odyssey.determinize import hal_unseen
from balancelab.simulate.odyssey.rules import OP_HAL_DISCARD, OP_HAL_PLAY, OP_REVEAL, REV
from balancelab.simulate.odyssey.state import (
    T_HAL_DISCARD,
    T_HAL_PLAY,
    T_HAL_REVEAL,
    OdysseyView,
    ctx_for,
    hal_card_actions,
)
from balancelab.simulate.seeding import seeded_generator

#: particles (hidden hands) the filter carries
PARTICLES: Final = 128
#: the model's slack: the chance that HAL picks uniformly among its legal actions
EPSILON: Final = 0.1
#: the filter's fixed seed (its draws are a function of the public history)
_SEED: Final = 20010


def _hidden_n(v: OdysseyView) -> int:
    return v.hand_n[0] - len(v.hal_revealed)


def _draw(rng: np.random.Generator, hand: list[int], free: list[int], n: int) -> None:
    """Move ``n`` cards drawn uniformly from ``free`` (counts, changed) into ``hand``."""
    for _ in range(n):
        total = sum(free)
        if total <= 0:
            return
        r = int(rng.integers(total))
        k = 0
        while r >= free[k]:
            r -= free[k]
            k += 1
        free[k] -= 1
        hand[k] += 1


def _random_card(rng: np.random.Generator, hand: list[int]) -> int:
    """A kind drawn from ``hand`` (counts), a card at a time; -1 when empty."""
    total = sum(hand)
    if total <= 0:
        return -1
    r = int(rng.integers(total))
    k = 0
    while r >= hand[k]:
        r -= hand[k]
        k += 1
    return k


class HalBelief:
    """The filter over one game's public history (see the module docstring).

    Args:
        game: the 2001 game (to build the model of HAL).
        first: a view of the game (its options fix the deck and the rules).
    """

    def __init__(self, game: Any, first: OdysseyView) -> None:
        from balancelab.policies.base import build, resolve  # policies are built lazily

        options = first.options
        self.ctx = ctx_for(options)
        spec = resolve(game, "hal", game.default_policies["hal"])
        self.model = build(game, options, 0, spec, seeded_generator(_SEED, (1,)))
        self.rng = seeded_generator(_SEED)
        self.hands: list[list[int]] = [[0] * C.N_HAL_KINDS for _ in range(PARTICLES)]
        self.weights = np.full(PARTICLES, 1.0 / PARTICLES)
        #: the history processed so far (its records, oldest first)
        self.history: tuple[Any, ...] = ()
        #: the view :meth:`ready` prepared for (kept: its identity keys the decision)
        self.view: OdysseyView | None = None
        self._cum = self.weights
        self._free: list[int] = []

    def advance(self, history: tuple[Any, ...]) -> None:
        """Process the decisions of ``history`` after those already processed (``history``
        must extend :attr:`history`)."""
        for rec in history[len(self.history):]:
            self._step(rec)
        self.history = history

    def _step(self, rec: tuple[int, int, OdysseyView]) -> None:
        phase, shown, v = rec
        rng = self.rng
        need_n = _hidden_n(v)
        free0 = hal_unseen(v)
        rev = list(v.hal_revealed)
        op = shown // 1000 if shown >= 0 else OP_HAL_DISCARD
        arg = shown - op * 1000 if shown >= 0 else -1
        seen_k = -1  # a card seen leaving the hidden hand
        if (op == OP_HAL_PLAY and arg < REV) or op == OP_REVEAL:
            seen_k = arg
        memo: dict[tuple[int, ...], int] = {}
        like = np.empty(PARTICLES)
        for i, hand in enumerate(self.hands):
            free = [free0[k] - hand[k] for k in range(C.N_HAL_KINDS)]
            if min(free) < 0:  # cards since placed (cannot happen; guard): start afresh
                hand[:] = [0] * C.N_HAL_KINDS
                free = free0[:]
            extra = sum(hand) - need_n
            while extra > 0:  # guard: more than HAL holds
                k = _random_card(rng, hand)
                hand[k] -= 1
                free[k] += 1
                extra -= 1
            _draw(rng, hand, free, need_n - sum(hand))
            if seen_k >= 0 and not hand[seen_k]:
                k = _random_card(rng, hand)
                if k >= 0:
                    hand[k] -= 1
                hand[seen_k] += 1
            key = tuple(hand)
            legal = hal_card_actions(self.ctx, phase, hand, rev)
            got = memo.get(key)
            if got is None:
                got = memo[key] = int(self.model.act(v.with_hand(key), legal)  # type: ignore[call-overload]
                                      ) if legal else -1
            pred: int = got
            n = max(1, len(legal))
            if shown >= 0:
                hit = pred == shown
                p = (1.0 - EPSILON) * hit + EPSILON / n if shown in legal else 0.0
            else:  # a hidden card discarded, unseen
                hidden = sum(1 for a in legal if a % 1000 < REV)
                hit = pred >= 0 and pred % 1000 < REV
                p = (1.0 - EPSILON) * hit + EPSILON * hidden / n
            like[i] = p
            # the card leaves the hidden hand
            if seen_k >= 0:
                hand[seen_k] -= 1
            elif shown < 0:
                k = pred % 1000 if hit else _random_card(rng, hand)
                if k >= 0 and hand[k]:
                    hand[k] -= 1
        w = self.weights * like
        total = float(w.sum())
        if total <= 0.0:  # nothing explains the decision: keep the hands, forget the weights
            self.weights = np.full(PARTICLES, 1.0 / PARTICLES)
            return
        w /= total
        self.weights = w
        if 1.0 / float(np.dot(w, w)) < PARTICLES / 2:
            self._resample()

    def _resample(self) -> None:
        """Systematic resampling: particles kept in proportion to their weights."""
        cum = np.cumsum(self.weights)
        cum[-1] = 1.0
        u = (float(self.rng.random()) + np.arange(PARTICLES)) / PARTICLES
        idx = np.searchsorted(cum, u)
        self.hands = [self.hands[int(j)][:] for j in idx]
        self.weights = np.full(PARTICLES, 1.0 / PARTICLES)

    def sample(self, view: OdysseyView, rng: np.random.Generator) -> list[int]:
        """A hidden hand for HAL in a world of ``view`` (counts per HAL kind): a particle by
        weight, with the cards drawn since HAL's last decision dealt from those unplaced."""
        cum = self._cum
        j = int(np.searchsorted(cum, float(rng.random()) * cum[-1], side="right"))
        hand = self.hands[min(j, PARTICLES - 1)][:]
        free = [self._free[k] - hand[k] for k in range(C.N_HAL_KINDS)]
        if min(free) < 0:  # guard (cannot happen): the uniform deal
            hand = [0] * C.N_HAL_KINDS
            free = self._free[:]
        _draw(rng, hand, free, _hidden_n(view) - sum(hand))
        return hand

    def ready(self, view: OdysseyView) -> None:
        """Prepare :meth:`sample` for the worlds of ``view`` (once per decision)."""
        self._cum = np.cumsum(self.weights)
        self._free = hal_unseen(view)
        self.view = view


#: the belief of the game whose history was seen last (one filter per process: every
#: crewmember of a game shares it, as it reads public information only)
_LAST: list[HalBelief] = []


def hal_belief(game: Any, view: OdysseyView) -> HalBelief:
    """The filter for ``view``'s game, advanced to its history and ready for its worlds;
    cached: a later decision of the same game processes only HAL's new decisions."""
    history = view.hal_history
    b = _LAST[0] if _LAST else None
    if b is not None and b.view is view:  # the same decision's next world
        return b
    if b is not None:
        done = b.history
        m = len(done)
        if m > len(history) or (m and history[m - 1] is not done[m - 1]):
            b = None
    if b is None or b.ctx is not ctx_for(view.options):
        b = HalBelief(game, view)
        _LAST[:] = [b]
    b.advance(history)
    b.ready(view)
    return b


__all__ = ["EPSILON", "PARTICLES", "HalBelief", "hal_belief", "T_HAL_PLAY", "T_HAL_REVEAL",
           "T_HAL_DISCARD"]
