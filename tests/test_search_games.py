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
