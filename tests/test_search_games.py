"""Determinization on every registered game, as the search policy needs it: at each decision
point, a world sampled from the deciding seat's view shows that seat the same view, has the
same seat to move and the same legal actions."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from balancelab.games import get_game, names
from balancelab.policies import base
from balancelab.simulate.core import game_streams


def view_fields(v: Any) -> dict[str, str]:
    """A view's fields as reprs (``_fields``, dataclass or __slots__ views alike)."""
    if hasattr(type(v), "_fields"):
        names = list(type(v)._fields)
    elif dataclasses.is_dataclass(v):
        names = [f.name for f in dataclasses.fields(v)]
    else:
        names = [n for c in type(v).__mro__ for n in getattr(c, "__slots__", ())]
    return {n: repr(getattr(v, n)) for n in names if hasattr(v, n)}


def mismatches(name: str, games: int, max_steps: int = 400) -> dict[str, int]:
    """Counts of decision points where a sampled world disagrees with the real state."""
    g = get_game(name)
    o = g.options_type()
    n = len(g.seats(o))
    out = {"view": 0, "seat": 0, "legal": 0, "points": 0}
    for i in range(games):
        rules, seats = game_streams(8, i, n)
        spec = "random" if i % 2 else "default"
        pols = [
            base.build(g, o, k, base.resolve(g, g.side_of_seat(o, k), spec), seats[k])
            for k in range(n)
        ]
        s = g.new_initial_state(o, rules)
        for _ in range(max_steps):
            if s.is_terminal():
                break
            k = s.current_seat
            legal = s.legal_actions()
            if len(legal) > 1:
                v = s.view(k)
                w = g.determinize(v, np.random.default_rng(i))
                out["points"] += 1
                out["view"] += view_fields(w.view(k)) != view_fields(v)
                out["seat"] += w.current_seat != k
                out["legal"] += sorted(map(repr, w.legal_actions())) != sorted(map(repr, legal))
                a = pols[k].act(v, legal)
            else:
                a = legal[0]
            s._apply(a)
    return out


def _available() -> list[str]:
    out = []
    for name in names():
        try:
            g = get_game(name)
        except ImportError:
            continue
        if "determinize" in type(g).__dict__:
            out.append(name)
    return out


@pytest.mark.parametrize("name", _available())
def test_worlds_agree_with_the_view(name: str) -> None:
    m = mismatches(name, games=4)
    assert m["points"] > 20
    assert (m["view"], m["seat"]) == (0, 0), m


@pytest.mark.parametrize("name", _available())
def test_worlds_offer_the_real_legal_actions(name: str) -> None:
    """Legal actions must follow from the view; where they do not, search falls back to the
    scripted default for that decision (``SearchPolicy.fallbacks``)."""
    m = mismatches(name, games=8)
    assert m["legal"] == 0, m


#: Per game, the face-down piles ``reshuffle_piles`` may re-deal: each entry is one pool of
#: cards (its multiset is kept) as a tuple of piles (each pile's size is kept).
_PILES: dict[str, Any] = {
    "odyssey": lambda s: [(s.crew_draw, s.crew_disc), (s.hal_draw, s.hal_disc)],
    "iss": lambda s: [(d,) for d in s.edeck] + [(s.mdeck,), (s.fdeck,)]
    + [(s.sdeck[r], s.removed[r]) for r in (0, 1)],
    "obcy": lambda s: [(s.deck,)],
}


@pytest.mark.parametrize("name", sorted(_PILES))
def test_reshuffling_the_piles_changes_nothing_a_seat_sees(name: str) -> None:
    """``Game.reshuffle_piles`` (what ``oracle:sees=hands`` plays on) re-deals only cards in
    no hand: every seat's view, the seat to move and the legal actions stay; each pool keeps
    its cards and each pile its size; and the order does change somewhere."""
    g = get_game(name)
    o = g.options_type(players=1) if name == "iss" else g.options_type()
    n = len(g.seats(o))
    points = changed = 0
    for i in range(3):
        rules, seats = game_streams(5, i, n)
        pols = [base.build(g, o, k, base.resolve(g, g.side_of_seat(o, k), "default"), seats[k])
                for k in range(n)]
        s = g.new_initial_state(o, rules)
        while not s.is_terminal() and points < 60 * (i + 1):
            legal = s.legal_actions()
            if len(legal) > 1:
                w = s.copy()
                g.reshuffle_piles(w, np.random.default_rng(points))
                points += 1
                assert w.current_seat == s.current_seat
                assert sorted(map(repr, w.legal_actions())) == sorted(map(repr, legal))
                for k in range(n):
                    assert view_fields(w.view(k)) == view_fields(s.view(k))
                before, after = _PILES[name](s), _PILES[name](w)
                for pb, pa in zip(before, after, strict=True):
                    assert [len(p) for p in pb] == [len(p) for p in pa]
                    assert sorted(x for p in pb for x in p) == sorted(x for p in pa for x in p)
                changed += before != after
            s._apply(pols[s.current_seat].act(s.view(s.current_seat), legal)
                     if len(legal) > 1 else legal[0])
    assert points >= 60
    assert changed > points // 2

