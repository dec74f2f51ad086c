"""A cheap win-chance estimate of an unfinished 2001 game, for the search policies.

``OdysseyGame.evaluate(state, seat)`` scores a playout that ``search`` or ``ismcts`` cut at its
``depth`` (:meth:`balancelab.simulate.core.Game.evaluate`). It is not a rule: it never changes
how a game is played, only how a searching seat values a position it did not play to the end.

Each side's progress toward its win (rulebook: End of the Game) is a fraction in [0, 1]:

* crew: Logic sequences played, plus the best crewmember's progress toward the next one (the
  longest run of consecutive Logic cards in one hand, over the sequence length), over the
  sequences needed;
* HAL: the larger of LIF's malfunctions over its limit and the mean of the
  ``systems_to_win`` most advanced systems' malfunctions over their limits;

and the crew's chance is a logistic of the difference::

    crew   = (sequences + longest_run / L) / sequences_to_win
    hal    = max(mal[LIF] / limit[LIF], mean of the top systems_to_win mal[k] / limit[k])
    p_crew = 1 / (1 + exp(-SCALE * (crew - hal) - BIAS))

SCALE and BIAS are heuristic values of the estimate (not rule data), set by hand so that an
even race reads about even; no balance number depends on them unless a run uses a search
policy with a cut depth.
"""

from __future__ import annotations

import math

from balancelab.simulate.odyssey.cards import C_LOGIC1, LIF
from balancelab.simulate.odyssey.state import OdysseyState

#: Logistic slope per unit of progress difference.
SCALE = 6.0
#: Logistic offset (0: equal progress reads as an even game).
BIAS = 0.0


def progress(s: OdysseyState) -> tuple[float, float]:
    """(crew progress, HAL progress), each in [0, 1] (see the module docstring)."""
    ctx = s.ctx
    L = ctx.L
    best = 0
    hands = s.hands
    for t in range(1, len(hands)):
        hand = hands[t]
        run = 0
        for k in range(C_LOGIC1, C_LOGIC1 + 12):
            if hand[k]:
                run += 1
                if run > best:
                    best = run
            else:
                run = 0
    crew = min(1.0, (s.sequences + min(best, L) / L) / ctx.sequences_to_win)
    mal = s.mal
    lim = ctx.limits
    fr = [min(1.0, mal[k] / lim[k]) for k in range(4)]
    fr.sort(reverse=True)
    top = fr[: ctx.systems_to_win]
    hal = max(min(1.0, mal[LIF] / lim[LIF]), sum(top) / len(top))
    return crew, hal


def evaluate(s: OdysseyState, seat: int) -> float:
    """The estimated chance in (0, 1) that ``seat``'s side wins from ``s``.

    Args:
        s: an unfinished state.
        seat: 0 for HAL, 1… for the crew.
    """
    crew, hal = progress(s)
    p = 1.0 / (1.0 + math.exp(-SCALE * (crew - hal) - BIAS))
    return p if seat > 0 else 1.0 - p
