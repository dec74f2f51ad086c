"""Fair information, for every game: a seat's view holds only what that seat may know.

The check: re-deal everything the seat cannot see (``Game.determinize(view, rng)``), take the
same seat's view of the new state, and compare the two views *byte for byte* by pickle. A view
that reaches any hidden information (another seat's hand, a deck order, a cache keyed by a
rival's cards, a reference to the state) pickles differently once that information is re-dealt.
Nothing is excluded from the comparison: the whole view object, with everything it references
(options, card tables, shared per-variant objects), is pickled. The original view is pickled
again after the re-dealt world's view is built, so a shared object that the new view changes
(issue 12: ISS views carried a per-variant memo keyed by every player's exact hand) is caught
too.

States are reached by uniformly random play from seeded games; every seat's view is checked,
not only the seat to move.
"""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from balancelab.games import get_game
from balancelab.simulate.core import Game, State

#: (game, rule options, games, check every k-th decision)
CASES = [
    ("odyssey", {}, 4, 3),
    ("iss", {}, 3, 4),
    ("iss", {"players": 4}, 2, 6),
    ("iss", {"players": 1}, 3, 2),
    ("iss", {"players": 3, "goal_timing": "either"}, 2, 4),
    ("obcy", {}, 2, 40),
]


def redeal(g: Game, state: State, seat: int, rng: np.random.Generator, where: str) -> State:
    """One world re-dealt from ``seat``'s view of ``state``, asserting that it shows the seat
    the same view, byte for byte, and that building its view left the original unchanged."""
    v = state.view(seat)
    before = pickle.dumps(v)
    world = g.determinize(v, rng)
    after = pickle.dumps(world.view(seat))
    again = pickle.dumps(v)
    assert after == before, f"view changed when hidden cards were re-dealt: {where}"
    assert again == before, f"view changed when another view was built: {where}"
    return world


def _views_after_redeal(name: str, opts_kw: dict[str, Any], games: int, every: int) -> int:
    """Play ``games`` random games; at every ``every``-th decision check every seat's view.

    Returns:
        The number of views checked (asserts on the first that leaks).
    """
    g = get_game(name)
    opts = g.options_type(**opts_kw)
    seats = range(len(g.seats(opts)))
    checked = 0
    for i in range(games):
        s = g.new_initial_state(opts, np.random.default_rng(100 + i))
        pick = np.random.default_rng(200 + i)
        k = 0
        while not s.is_terminal():
            if k % every == 0:
                for seat in seats:
                    where = f"{name} {opts_kw} game {i} decision {k} seat {seat}"
                    redeal(g, s, seat, np.random.default_rng(300 + k), where)
                    checked += 1
            legal = s.legal_actions()
            s.apply(legal[int(pick.integers(len(legal)))])
            k += 1
    return checked


@pytest.mark.parametrize(("name", "opts_kw", "games", "every"), CASES,
                         ids=[f"{c[0]}-{'-'.join(f'{k}{v}' for k, v in c[1].items()) or 'default'}"
                              for c in CASES])
def test_view_is_unchanged_when_hidden_information_is_redealt(
        name: str, opts_kw: dict[str, Any], games: int, every: int) -> None:
    assert _views_after_redeal(name, opts_kw, games, every) > 20


def test_iss_view_reaches_no_memo_of_hands() -> None:
    """Issue 12: the ISS view's shared ``Static`` held a memo keyed by every hand."""
    g = get_game("iss")
    s = g.new_initial_state(g.options_type(), np.random.default_rng(1))
    v = s.view(0)
    st = v.st  # type: ignore[attr-defined]
    names = [a for a in dir(st) if not a.startswith("__")]
    assert "opts" in names and "exp_level" in names  # compiled and pure Python alike
    assert not [a for a in names if isinstance(getattr(st, a, None), (dict, set, list))]
