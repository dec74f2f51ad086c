"""A cheap win-chance estimate of an unfinished *1998 ISS* game, for the search policy.

``IssGame.evaluate(state, seat)`` scores a playout the search policy cut at its ``depth``
(:meth:`balancelab.simulate.core.Game.evaluate`). It is not a rule: it never changes how a game
is played, only how a searching seat values a position it did not play to the end.

The estimate is a logistic of the seat's *adjusted lead* over its best rival, shrinking with the
shuttles left to place (rulebook: Endgame — the end is triggered when a nation's shuttle deck is
exhausted, so the cards left in both decks measure the time left)::

    adjusted(p) = score(p)                         # rulebook: Endgame, as if the game ended now
                  + HAND_CARD * len(hand[p])       # an experiment in hand is not yet a penalty
                  + HAND_POINTS * points(hand[p])  # ... and may still be conducted
    lead        = adjusted(seat) - max(adjusted(q) for each rival q)
    estimate    = 1 / (1 + exp(-SCALE * lead / (shuttles_left + 2)))

The three constants were fitted once (logistic regression without intercept, 50 000 decision
points of 600 two-player games of the scripted ``builder`` against itself; ties left out):
SCALE 1.35 per point per remaining shuttle (+2), HAND_POINTS 0.28 (about a quarter of an
experiment's printed points), HAND_CARD 1.6 (the 1-point end penalty is more than offset while
time is left). They are heuristic values of the estimate, not rule data, and no balance number
depends on them unless a run uses the search policy with a cut depth. Solo: the rival is FEDOR.
"""

from __future__ import annotations

import math

from balancelab.simulate.iss.state import IssState

#: Logistic slope per point of adjusted lead, divided by (shuttles left + 2).
SCALE = 1.35
#: Weight of the printed points of each experiment still in hand.
HAND_POINTS = 0.28
#: Value of holding an experiment card (offsets the end-of-game penalty while time is left).
HAND_CARD = 1.6


def adjusted_score(s: IssState, p: int) -> float:
    """Player ``p``'s end-of-game score now, plus the potential of the experiments in hand.

    Args:
        s: a state (finished or not).
        p: player index (``Static.fedor`` for FEDOR in solo).

    Returns:
        The adjusted score in points (float).
    """
    hand = s.hand[p]
    points = s.st.exp_points
    pts = 0
    for e in hand:
        pts += points[e]
    return s.score(p) + HAND_CARD * len(hand) + HAND_POINTS * pts


def evaluate(s: IssState, seat: int) -> float:
    """The estimated chance in (0, 1) that ``seat`` wins from ``s`` (see the module docstring).

    Args:
        s: an unfinished (or finished) state.
        seat: the seat whose chance is estimated (0 … players-1).

    Returns:
        A float in (0, 1); 0.5 means an even position.
    """
    n = s.st.np
    adj = [adjusted_score(s, p) for p in range(n)]
    lead = adj[seat] - max(adj[q] for q in range(n) if q != seat)
    left = len(s.sdeck[0]) + len(s.sdeck[1])
    x = SCALE * lead / (left + 2)
    if x < -30.0:
        return 1e-13
    return 1.0 / (1.0 + math.exp(-x))
