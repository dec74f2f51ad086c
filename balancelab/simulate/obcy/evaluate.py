"""A cheap win-chance estimate of an unfinished Obcy game, for the search policies.

``ObcyGame.evaluate(state, seat)`` scores a playout that ``search`` or ``ismcts`` cut at its
``depth`` (:meth:`balancelab.simulate.core.Game.evaluate`). It is not a rule: it never changes
how a game is played, only how a searching seat values a position it did not play to the end.

The expedition wins by killing the ALIEN QUEEN and reaching the ship (rulebook: 7. Tasks, 8. The
ALIEN QUEEN, 10./11. Victory); a game stopped by the round cap is a loss for both. So::

    queen alive:  task = tasks done / queen_tasks        (Variant 2)
                         points / 6                      (Variant 1: the Queen's die)
                  p = logistic(-2.5 + 4 * task + 2 * alive)
    queen dead:   p = 0.7 + 0.25 * alive                 (the walk back to the ship)
    p_expedition = p * (1 - (round / max_rounds) ** 2)         (the cap is a loss)
    p_aliens     = (1 - p) * (1 - (round / max_rounds) ** 2)   (for them too)

where ``alive`` is the strength left on living characters over their starting strength. The
time factor makes waiting cost something, so a search that cannot see a task finished within its
depth still does not value hiding until the cap; it discounts the ALIENS' share too (one minus
the expedition's estimate would make the cap look like their win, while a capped game scores
0 for both sides). The constants are heuristic values of the estimate (not rule data).
"""

from __future__ import annotations

import math

from balancelab.simulate.obcy.actions import DEAD
from balancelab.simulate.obcy.state import ObcyState


def expedition_chance(s: ObcyState) -> float:
    """The estimated chance in (0, 1) that the expedition wins from ``s``."""
    return _chances(s)[0]


def _chances(s: ObcyState) -> tuple[float, float]:
    """The estimated chances (expedition, ALIENS) from ``s``; their sum is the chance that
    the game ends before the round cap."""
    o = s.opt
    total = sum(s.c_max) or 1
    alive = sum(s.c_str[c] for c in range(6) if s.c_state[c] != DEAD) / total
    if s.queen_alive:
        if o.queen_variant == "tasks":
            task = min(1.0, len(s.done) / o.queen_tasks)
        else:
            task = min(1.0, s.points / 6.0)
        p = 1.0 / (1.0 + math.exp(2.5 - 4.0 * task - 2.0 * alive))
    else:
        p = 0.7 + 0.25 * alive
    t = min(1.0, s.round / o.max_rounds)
    left = 1.0 - t * t
    return p * left, (1.0 - p) * left


def evaluate(s: ObcyState, seat: int) -> float:
    """The estimated chance that ``seat`` (0 expedition, 1 ALIENS) wins from ``s``."""
    return _chances(s)[seat]
