"""The what-if seat compensation ``start_bonus`` of 1998 ISS (issue 14).

Rulebook, Setup 11-12: the start player begins and starts with 1 ISS material instead of 2;
nothing else evens out the seat order. ``start_bonus`` (what-if) gives the k-th seat after the
start player k x start_bonus end points (or action cubes at setup).
"""

from __future__ import annotations

import pytest
from conftest import make_state

from balancelab.simulate.iss import IssOptions
from balancelab.simulate.options import OptionError


def test_the_option_is_labelled_what_if_and_defaults_to_the_rulebook() -> None:
    o = IssOptions()
    assert o.start_bonus == 0 and o.start_bonus_kind == "points"
    src = {d.name: d.metadata["source"] for d in o.specs()}
    assert src["start_bonus"].startswith("what-if") and src["start_bonus_kind"].startswith(
        "what-if")
    with pytest.raises(OptionError, match="must be one of points, cubes"):
        IssOptions(start_bonus_kind="money")


def test_points_go_to_later_seats_in_turn_order() -> None:
    plain = make_state(4, seed=3)
    s = make_state(4, seed=3, start_bonus=2)
    assert s.sp == 0
    assert "start_bonus" not in s.score_parts(0)  # the start player gets nothing
    for p in range(1, 4):
        assert s.score_parts(p)["start_bonus"] == 2 * p
        assert s.score_parts(p)["score"] == plain.score_parts(p)["score"] + 2 * p
    assert s.res == plain.res == [8, 8, 8, 8]


def test_cubes_go_to_later_seats_at_setup() -> None:
    s = make_state(3, seed=5, start_bonus=1, start_bonus_kind="cubes")
    assert s.res == [8, 9, 10]
    assert "start_bonus" not in s.score_parts(1)


def test_no_bonus_in_solo_mode() -> None:
    s = make_state(1, seed=2, start_bonus=3)
    assert all("start_bonus" not in s.score_parts(p) for p in range(2))
