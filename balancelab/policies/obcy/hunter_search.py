"""``hunter-search``: the ALIENS' fast strong player (Obcy, seat 1).

``hunter`` plays every decision except those named by ``at``, where the flat Monte Carlo
search on paired worlds (:class:`~balancelab.policies.search.SearchPolicy`, with ``hunter``'s
choice as its favourite) decides. By default it searches only the hatching (9.1: how strong
each new ALIEN is, on which hatching space, or to hatch no more this phase): about a fifth of
the ALIENS' decisions, and the one where the search departs from ``hunter`` most often.

Why the hatching. Traced over 40 games (seed 0, against ``dash``), the full search
(``search:rollouts=32,depth=8,rollout=default,z=1``, 133 ALIENS decisions a game) overrode
``hunter`` on 19% of its hatchings and 9% of its ALIEN moves; it mostly hatched away from the
space nearest the characters (``hunter``'s rule), on one 3 to 5 spaces off (still one move
from a strike) or in the duct hatching space (strength x2), sometimes weaker ALIENS or none.
Searching only there keeps most of the full search's edge at a sixth of its cost (paired
runs against ``dash``, compiled, core-seconds a game under a load of 9-17):

- seed 0 (the screen), 200 deals: 79.0% where ``hunter`` won 64.0%;
- seed 25 (fresh), 600 deals: 80.3% [77.0, 83.3] where ``hunter`` won 67.8%, +12.5 points
  [+8.0, +17.0], at 0.21 core-seconds a game; on the first 200 of them the full search won
  84.5% (+21.5 [+13.8, +29.2] over ``hunter``, 1.15 core-seconds a game), this 80.5%: the
  full search's lead, +4.0 [-2.5, +10.5], is not decided;
- seed 26 (fresh; main after the ALIENS' re-deal was made consistent with what they can
  infer), 400 deals: 82.5% [78.5, 85.9] where ``hunter`` won 70.5%, +12.0 [+7.0, +17.0],
  0.16 core-seconds a game.

Seeds 25 and 26 pooled: +12.3 [+9.0, +15.6] over ``hunter`` (1,000 deals). Twice the budget
(``rollouts=64``, 0.25-0.27 core-seconds a game) adds nothing measurable: -0.2 [-4.3, +3.8]
on seed 26's 400 deals. The ALIEN moves where a strike is possible (``at=strike``) come 40
times a game, too many to search within 0.3 core-seconds.

The search reads the ALIENS' view only (open missions stay hidden, 7.), like ``search``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from balancelab.policies.base import Param, PolicyError, RngSource, register
from balancelab.policies.obcy.tables import policy_tables
from balancelab.policies.search import SearchPolicy
from balancelab.simulate.core import Action, Game, View
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.options import RuleOptions

#: the ALIENS' decisions ``at`` may name → their decision codes. ``strike``: an ALIEN's move
#: when one of its legal moves stands next to a character (10.: it would attack); ``move``:
#: every ALIEN move (``strike`` included).
AT_DECISIONS: Final[dict[str, tuple[int, ...]]] = {
    "hatch": (A.D_HATCH,),
    "move": (A.D_ALIEN_MOVE,),
    "strike": (A.D_ALIEN_MOVE,),
    "order": (A.D_ALIEN_PICK,),
    "target": (A.D_ALIEN_TARGET,),
    "retreat": (A.D_RETREAT,),
}


def parse_at(value: Any) -> frozenset[str]:
    """The decision names of an ``at`` parameter (``hatch+strike``).

    Raises:
        PolicyError: empty, or a name not in :data:`AT_DECISIONS` (the message lists them).
    """
    names = frozenset(p.strip() for p in str(value).split("+") if p.strip())
    bad = sorted(names - AT_DECISIONS.keys())
    if bad or not names:
        raise PolicyError(f"hunter-search: at must name decisions joined by '+' from "
                          f"{', '.join(AT_DECISIONS)}; got {value!r}")
    return names


class HunterSearchPolicy(SearchPolicy):
    """``hunter``, with ``search`` deciding where ``at`` says (default: the hatching).

    Parameters: those of :class:`~balancelab.policies.search.SearchPolicy` (defaults here
    ``rollouts=32, depth=8, rollout=default, z=1``, the full search ALIENS' budget) and ``at``:
    the decisions searched, names joined by ``+`` from :data:`AT_DECISIONS`.

    Raises:
        PolicyError: a bad parameter value (at construction).
    """

    name = "hunter-search"
    params = {**SearchPolicy.params,
              "rollouts": Param(32, low=1, high=SearchPolicy.params["rollouts"].high,
                                help="playouts per searched decision"),
              "depth": Param(8, low=0, high=SearchPolicy.params["depth"].high,
                             help="decisions per playout after the candidate (0: to the end)"),
              "rollout": "default", "z": 1.0,
              "at": Param("hatch", help="the decisions searched, joined by '+': "
                                        + ", ".join(AT_DECISIONS))}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        at = parse_at(self.cfg["at"])
        self._codes = frozenset(c for n in at - {"strike"} for c in AT_DECISIONS[n])
        self._strike = "strike" in at and "move" not in at
        self._nbr = policy_tables(getattr(options, "map_file", "")).nbr

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        """The search's choice at a decision ``at`` names, else ``hunter``'s (the same
        instance of it sees every decision, as in ``search``)."""
        if len(legal) > 1 and not self._searched(view, legal):
            assert self._shadow is not None  # hunter is scripted
            return self._shadow.act(view, legal)
        return super().act(view, legal)

    def _searched(self, view: View, legal: Sequence[Action]) -> bool:
        v: Any = view
        d = v.decision
        if d in self._codes:
            return True
        if not self._strike or d != A.D_ALIEN_MOVE:
            return False
        nbr = self._nbr
        near = {n for c, p in enumerate(v.c_pos) if v.c_state[c] == A.ON_BOARD for n in nbr[p]}
        moves: Sequence[Any] = legal  # (A_MOVE, space)
        return any(a[1] in near for a in moves)


register("hunter-search", HunterSearchPolicy, games=["obcy"], sides=["aliens"],
         help="hunter, with search (32 playouts on paired worlds) deciding the hatching: "
              "the fast strong ALIENS")
