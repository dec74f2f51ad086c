"""``hunter-search``: hunter everywhere but where ``at`` says, the search there."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers import build

from balancelab.games import get_game
from balancelab.policies import base as P
from balancelab.policies.errors import PolicyError
from balancelab.simulate.obcy import actions as A
from balancelab.simulate.obcy import board as B
from balancelab.simulate.obcy.state import ST_AMOVE, ObcyState
from balancelab.simulate.play import play

HICKS = 3


def aliens_decisions(seed: int, want: int, n: int) -> list[ObcyState]:
    """The first ``n`` ALIENS decisions of code ``want`` (more than one legal action) of a
    game of ``dash`` against ``hunter`` (copies of the state before each)."""
    g = get_game("obcy")
    opts = g.options_type()
    found: list[ObcyState] = []

    def keep(s: Any, action: Any) -> None:
        if (len(found) < n and s.current_seat == 1 and s.decision() == want
                and len(s.legal_actions()) > 1):
            found.append(s.copy())

    pols = [P.build(g, opts, k, spec, np.random.default_rng(k))
            for k, spec in enumerate(["dash", "hunter"])]
    play(g, opts, pols, np.random.default_rng(seed), on_step=keep)
    assert len(found) == n
    return found


def policy(spec: str, seed: int = 0) -> Any:
    g = get_game("obcy")
    return P.build(g, g.options_type(), 1, spec, np.random.default_rng(seed))


def test_listed_for_the_aliens_only() -> None:
    assert "hunter-search" in P.available("obcy", "aliens")
    assert "hunter-search" not in P.available("obcy", "expedition")


def test_hunter_moves_where_the_search_is_not_asked() -> None:
    for s in aliens_decisions(3, A.D_ALIEN_MOVE, 4):
        legal = s.legal_actions()
        pol = policy("hunter-search:rollouts=4")
        assert pol.act(s.view(1), legal) == policy("hunter").act(s.view(1), legal)
        assert pol.playouts == 0


def test_the_hatching_is_searched_as_search_would() -> None:
    (s,) = aliens_decisions(3, A.D_HATCH, 1)
    legal = s.legal_actions()
    assert len(legal) > 2
    ours = policy("hunter-search:rollouts=4", seed=7)
    theirs = policy("search:rollouts=4,depth=8,rollout=default,z=1", seed=7)
    assert ours.act(s.view(1), legal) == theirs.act(s.view(1), legal)
    assert ours.playouts == theirs.playouts > 0


def _move_stage(chars: dict[int, tuple[int, int]], alien: tuple[int, int]) -> ObcyState:
    s = build(chars, aliens=[(alien, 1)])
    s.stage = ST_AMOVE
    s.move_order = tuple(s.a_id)
    s.a_cur = -1
    s._legal = None
    s._settle()
    assert s.decision() == A.D_ALIEN_MOVE
    return s


def test_strike_searches_a_move_only_when_it_can_reach_a_character() -> None:
    near = _move_stage({HICKS: (8, 3)}, (5, 3))  # 3 spaces along the top corridor
    far = _move_stage({HICKS: (3, 17)}, (20, 6))
    pol = policy("hunter-search:at=strike")
    assert pol._searched(near.view(1), near.legal_actions())
    assert not pol._searched(far.view(1), far.legal_actions())
    assert B.idx(7, 3) in {a[1] for a in near.legal_actions()}  # next to Hicks
    assert not policy("hunter-search")._searched(near.view(1), near.legal_actions())
    assert policy("hunter-search:at=move")._searched(far.view(1), far.legal_actions())


@pytest.mark.parametrize("at", ["", "hatch+fly", "everything"])
def test_bad_decisions_are_refused_in_one_line(at: str) -> None:
    with pytest.raises(PolicyError, match="at must name decisions") as e:
        policy(f"hunter-search:at={at}")
    assert "\n" not in str(e.value)
