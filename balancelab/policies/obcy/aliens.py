"""The ALIENS' scripted players (Obcy, seat 1): ``hunter`` and ``ambush``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Final

from balancelab.policies.base import Policy, RngSource, register
from balancelab.policies.obcy.tables import (
    PolicyTables,
    _dist_row,
    _exp,
    _exp_table,
    policy_tables,
)
from balancelab.simulate.core import Game, View
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy.state import ObcyView
from balancelab.simulate.options import RuleOptions

#: ``two_away`` → the scores of :func:`_far_scores` (built once per value: a policy is made
#: per game, and per iteration inside ``ismcts`` rollouts)
_FARS: Final[dict[float, tuple[float, ...]]] = {}


def _far_scores(two_away: float) -> tuple[float, ...]:
    """An ALIEN's score of a space at walking distance d from the nearest character (not
    adjacent): closer is better, but not 2 away (one step short of striking), which costs
    ``two_away``."""
    hit = _FARS.get(two_away)
    if hit is None:
        hit = _FARS[two_away] = tuple(-d - (two_away if d == 2 else 0.0) for d in range(100))
    return hit


# == ALIENS ========================================================================================
class AliensPolicy(Policy):
    """Scripted ALIENS; ``plan`` = hunt or ambush (see module docstring)."""

    name = "hunter"
    #: The numbers of the plan (``balancelab tune obcy --side aliens`` searches them): a move
    #: next to a character scores ``strike + dmg * E[losses dealt] - back * E[losses taken]``
    #: (the combat table's expectation at the attack's margin), less ``weak`` when the margin
    #: is under ``gang`` (too weak alone: wait for the others); any other space scores minus
    #: its distance to the nearest character, less ``two_away`` at distance 2; ambushing
    #: ALIENS add ``duct_far`` to a duct space and hatch into a duct hatching space as if it
    #: were ``duct_hatch`` spaces nearer.
    #: The defaults are the tuned set (rules version 6; the hand-set numbers are preset
    #: ``classic``, :mod:`balancelab.policies.presets`).
    params = {"plan": "hunt", "gang": -2, "strike": 2.601, "dmg": 0.1937, "back": 6.788,
              "weak": 4.233, "two_away": 0.7966, "duct_far": 4.916, "duct_hatch": 0}
    param_ranges: ClassVar[dict[str, tuple[float, float]]] = {
        "gang": (-4, 4), "strike": (0.0, 20.0), "dmg": (0.0, 10.0), "back": (0.0, 10.0),
        "weak": (0.0, 20.0), "two_away": (0.0, 3.0), "duct_far": (0.0, 10.0),
        "duct_hatch": (0, 12)}

    def __init__(self, game: Game, options: RuleOptions, seat: int, rng: RngSource,
                 **params: Any) -> None:
        super().__init__(game, options, seat, rng, **params)
        self.t: PolicyTables = policy_tables(getattr(options, "map_file", ""))
        self.ambush = self.cfg["plan"] == "ambush"
        self.gang = int(self.cfg["gang"])
        self.w_strike = float(self.cfg["strike"])
        self.w_dmg = float(self.cfg["dmg"])
        self.w_back = float(self.cfg["back"])
        self.w_weak = float(self.cfg["weak"])
        self.w_duct_far = float(self.cfg["duct_far"])
        self.duct_hatch = int(self.cfg["duct_hatch"])
        self._far_of: tuple[float, ...] = _far_scores(float(self.cfg["two_away"]))
        self.off: int = self.options.crt_offset  # type: ignore[attr-defined]
        self.dmul: int = self.options.duct_multiplier  # type: ignore[attr-defined]
        self._exp = _exp_table(self.off)
        self._ckey: Any = None
        #: per space, the on-board characters on its neighbouring spaces (in seat order)
        self._adj: list[tuple[int, ...]] = []
        #: the distance rows of the characters' spaces, and the memo of _far_score per
        #: space (``_UNSET``: not yet valued) (all for the characters' places ``_ckey``)
        self._rows: list[tuple[int, ...]] = []
        self._far: list[float] = []
        #: as ``_ckey``, ``_rows`` for :meth:`_pick` (which walks around collapsed spaces):
        #: the characters' places and the collapsed spaces, their rows, and the memo of the
        #: distance to the nearest character per space (-1: not yet read)
        self._pkey: Any = None
        self._prows: list[tuple[int, ...]] = []
        self._pnear: list[int] = []

    def act(self, view: View, legal: Sequence[Any]) -> Any:
        v: ObcyView = view  # type: ignore[assignment]
        d = v.decision
        if d == A.D_ALIEN_MOVE:
            return self._move(v, legal)
        if d == A.D_ALIEN_PICK:
            return self._pick(v, legal)
        if d == A.D_HATCH:
            return self._hatch(v, legal)
        if d == A.D_ALIEN_TARGET:
            return min(legal, key=lambda a: v.c_str[a[1]])
        if d == A.D_RETREAT:
            chars = self._chars(v)
            return min(legal, key=lambda a: min((self.t.dist[a[1]][p] for p in chars), default=0))
        return legal[0]

    def ranked(self, view: View, legal: Sequence[Any]) -> list[Any]:
        """As :meth:`Policy.ranked`; an ALIEN's moves after the chosen one are ordered by the
        plan's score (best first, the first of equals first)."""
        v: ObcyView = view  # type: ignore[assignment]
        if v.decision != A.D_ALIEN_MOVE:
            return super().ranked(view, legal)
        scores: dict[Any, float] = {}
        a = self._move(v, legal, scores)
        rest = sorted((x for x in legal if x != a), key=lambda x: -scores.get(x, -1e9))
        return [a, *rest]

    def _chars(self, v: ObcyView) -> list[int]:
        return [v.c_pos[c] for c in range(6) if v.c_state[c] == A.ON_BOARD]

    def _pick(self, v: ObcyView, legal: Sequence[Any]) -> Any:
        """Which ALIEN moves next (9.2 sets no order): the oldest, unless another ALIEN
        stands in front of it (nearer the characters and within its reach), which then
        moves first to clear the way (the one nearest the characters first)."""
        chars = self._chars(v)
        first = legal[0]
        if not chars or len(legal) < 2:
            return first
        # the walking distance from the nearest character (the few ALIENS' spaces are
        # read, each once while the characters stay: not a whole row)
        key = (v.c_pos, v.c_state, v.collapsed)
        if key != self._pkey:
            self._pkey = key
            self._prows = [_dist_row(self.t, p, v.collapsed) for p in chars]
            self._pnear = [-1] * self.t.n
        rows = self._prows
        near = self._pnear
        reach: int = v.options.alien_move
        a_id = v.a_id
        a_pos = v.a_pos
        n = len(a_id)
        best, bd = first, 0
        dx: tuple[int, ...] = ()  # the distances from the oldest's space
        oldest = True
        # each ALIEN's space: one walk along ``a_id`` while the picks come in its order (as
        # the engine lists them), else a look-up
        j = 0
        for a in legal:
            aid: int = a[1]
            while j < n and a_id[j] != aid:
                j += 1
            if j < n:
                y = a_pos[j]
                j += 1
            else:
                y = a_pos[_index(a_id, aid)]
            ny = near[y]
            if ny < 0:
                ny = near[y] = _least(rows, y)
            if oldest:
                oldest = False
                bd = ny
                dx = self.t.dist[y]
            elif ny < bd and dx[y] <= reach:
                best, bd = a, ny
        return best

    def _hatch(self, v: ObcyView, legal: Sequence[Any]) -> Any:
        chars = self._chars(v)
        top = 0
        for a in legal:
            if a[0] == A.HATCH and a[1] > top:
                top = a[1]
        # only the strongest hatchings compete (one per hatching space: no ties); the least
        # (distance to the nearest character, hatching space) wins
        best: Any = None
        bd = bk = 0
        for a in legal:
            if a[0] != A.HATCH or a[1] != top:
                continue
            k: int = a[2]
            h = self.t.hatches[k]
            dh = self.t.dist[h]
            d = 0
            for j, p in enumerate(chars):
                if j == 0 or dh[p] < d:
                    d = dh[p]
            if self.ambush and self.t.duct[h]:
                d -= self.duct_hatch
            if best is None or d < bd or (d == bd and k < bk):
                best, bd, bk = a, d, k
        return best

    def _move(self, v: ObcyView, legal: Sequence[Any],
              scores: dict[Any, float] | None = None) -> Any:
        """The move of ``v.alien`` (9.2); ``scores``, when given, receives every move's
        score (the move chosen has the highest, ties going as the choice went)."""
        i = _index(v.a_id, v.alien)
        me_s = v.a_str[i]
        here = v.a_pos[i]
        key = (v.c_pos, v.c_state)
        if key != self._ckey:
            self._ckey = key
            chars = [(c, v.c_pos[c]) for c in range(6) if v.c_state[c] == A.ON_BOARD]
            adj: list[tuple[int, ...]] = [()] * self.t.n
            for c, p in chars:
                for n in self.t.nbr[p]:
                    adj[n] = adj[n] + (c,)
            self._adj = adj
            self._rows = [self.t.dist[p] for p in sorted({p for _, p in chars})]
            self._far = [_UNSET] * self.t.n
        adj = self._adj
        if not self._rows:
            return (A.A_MOVE, here)
        # one pass: the moves next to a character, and the best of the others (the first
        # of equals, as max() would)
        strike: list[Any] = []
        best, bscore = legal[0], -1e9
        rbest: Any = None
        far = self._far
        for a in legal:
            s: int = a[1]
            if adj[s]:
                strike.append(a)
            else:
                f = far[s]
                if f == _UNSET:
                    f = self._far_score(s)
                if scores is not None:
                    scores[a] = f
                if rbest is None or f > bscore:
                    rbest, bscore = a, f
        stay = legal[0][1] == here  # (an ALIEN hatched on a character's space must leave)
        if rbest is not None:
            best = rbest
            if stay and not adj[here] and self._far_score(here) + 0.01 >= bscore:
                best, bscore = (A.A_MOVE, here), self._far_score(here) + 0.01
                if scores is not None:
                    scores[best] = bscore
        if not strike:
            return best
        # strength already adjacent to each character (other ALIENS)
        pressure = [0] * 6
        for j, p in enumerate(v.a_pos):
            if j != i and adj[p]:
                for c in adj[p]:
                    pressure[c] += v.a_str[j] * (self.dmul if self.t.duct[p] else 1)
        exp = self._exp
        for a in strike:
            s = a[1]
            eff = me_s * (self.dmul if self.t.duct[s] else 1)
            sc = -1e9
            for c in adj[s]:
                att = pressure[c] + eff - v.c_str[c]
                dmg, back = exp[att] if -20 <= att < 40 else _exp(att, self.off)
                val = self.w_strike + self.w_dmg * dmg - self.w_back * back
                if att < self.gang and not (self.ambush and self.t.duct[s]):
                    val -= self.w_weak
                sc = max(sc, val)
            if s == here:
                sc += 0.01
            if scores is not None:
                scores[a] = sc
            if sc > bscore:
                best, bscore = a, sc
        return best

    def _far_score(self, s: int) -> float:
        """The score of space ``s`` not adjacent to a character (memo per characters'
        places): closer to the nearest character is better, but not 2 away (one step short
        of striking), ducts preferred when ambushing."""
        f = self._far[s]
        if f == _UNSET:
            f = self._far_of[_least(self._rows, s)]
            if self.ambush:
                f = f + self.w_duct_far * self.t.duct[s]
            self._far[s] = f
        return f


#: a space not yet valued in :meth:`AliensPolicy._far_score`'s memo (no score is this high)
_UNSET: Final = 1e300


def _index(ids: tuple[int, ...], x: int) -> int:
    """The place of ``x`` in ``ids`` (``ids.index(x)`` in native integers)."""
    for k in range(len(ids)):
        if ids[k] == x:
            return k
    raise ValueError(f"{x} is not an ALIEN on the board")


def _least(rows: list[tuple[int, ...]], s: int) -> int:
    """The least of the rows' entries at ``s`` (the walking distance from the nearest of
    the spaces whose distance rows they are)."""
    d = rows[0][s]
    for row in rows:
        x = row[s]
        if x < d:
            d = x
    return d


class AmbushPolicy(AliensPolicy):
    """Ambush from the ducts with metamorphosis."""

    name = "ambush"
    #: hand-set numbers (not tuned)
    params = {**AliensPolicy.params, "plan": "ambush", "gang": 0, "strike": 10.0, "dmg": 4.0,
              "back": 3.0, "weak": 8.0, "two_away": 0.5, "duct_far": 3.0, "duct_hatch": 6}


register("hunter", AliensPolicy, games=["obcy"], sides=["aliens"],
         help="hunt the nearest character, strike when the gang-up is strong")
register("ambush", AmbushPolicy, games=["obcy"], sides=["aliens"],
         help="keep to the ducts (x2), merge, strike from the ducts")
