"""The observation numbers of :mod:`balancelab.interop.observation`: what :func:`flatten` writes
for each kind of value (checked against the plain definition of the module docstring, written
out below), the text and the float32 vector of a view, on hand-made values and on the views of
random games of the three built-in games."""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from balancelab.games import get_game
from balancelab.interop.observation import (
    ObservationOverflowError,
    ViewEncoder,
    action_mask,
    flatten,
    text,
)
from balancelab.simulate.core import rules_stream


def reference(value: Any, out: list[Any]) -> None:
    """The module docstring's definition, one case after the other (no fast paths)."""
    if isinstance(value, bool | int | np.integer):
        out.append(int(value))
    elif isinstance(value, float | np.floating):
        out.append(float(value))
    elif value is None:
        out.append(-1)
    elif isinstance(value, tuple | list):
        out.append(len(value))
        for v in value:
            reference(v, out)
    elif isinstance(value, set | frozenset):
        out.append(len(value))
        for v in sorted(value):
            reference(v, out)
    elif isinstance(value, dict):
        items = sorted(value.items())
        out.append(len(items))
        for k, v in items:
            reference(k, out)
            reference(v, out)


def numbers(value: Any) -> list[Any]:
    out: list[Any] = []
    flatten(value, out)
    return out


Pair = namedtuple("Pair", "a b")


@dataclasses.dataclass(frozen=True)
class Opaque:
    x: int = 3


def test_flatten_values() -> None:
    assert numbers(7) == [7] and numbers(True) == [1] and numbers(None) == [-1]
    assert numbers("words") == [] and numbers(Opaque()) == []
    assert numbers((2, False, None, "s", (4, 5))) == [5, 2, 0, -1, 2, 4, 5]
    assert numbers([1, [2]]) == [2, 1, 1, 2]
    assert numbers(Pair(3, (True,))) == [2, 3, 1, 1]
    assert numbers(frozenset({9, 2})) == [2, 2, 9] and numbers(set()) == [0]
    assert numbers({3: (1,), 1: None}) == [2, 1, -1, 3, 1, 1]
    assert numbers(np.int64(5)) == [5] and type(numbers(np.int8(-2))[0]) is int
    assert numbers((1.5, np.float32(0.25))) == [2, 1.5, 0.25]
    assert [type(x) for x in numbers((True, np.int16(1), 2.0))] == [int, int, int, float]


_leaf = (st.integers(-2**70, 2**70) | st.booleans() | st.none() | st.text(max_size=2)
         | st.floats(allow_nan=False) | st.builds(np.int32, st.integers(-2**31, 2**31 - 1)))
_value = st.recursive(_leaf, lambda inner: (
    st.tuples(inner, inner) | st.lists(inner, max_size=4)
    | st.frozensets(st.integers(-5, 5), max_size=4)
    | st.dictionaries(st.integers(-5, 5), inner, max_size=3)
    | st.builds(Pair, inner, inner)), max_leaves=12)


@given(_value)
def test_flatten_is_the_docstrings_definition(value: Any) -> None:
    out, expected = numbers(value), []
    reference(value, expected)
    assert out == expected and [type(x) for x in out] == [type(x) for x in expected]


@given(st.lists(st.integers(-2**70, 2**70) | st.floats(allow_nan=False, width=32), max_size=30))
def test_text_writes_each_number_as_str(values: list[Any]) -> None:
    assert text(values) == " ".join(map(str, values))


@given(st.integers(1, 50).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.integers(0, n - 1), max_size=2 * n))))
def test_action_mask_is_one_at_the_ids(case: tuple[int, list[int]]) -> None:
    size, ids = case
    expected = np.zeros(size, np.int8)
    expected[ids] = 1
    mask = action_mask(ids, size)
    assert mask.dtype == np.int8 and mask.shape == (size,) and mask.flags.writeable
    assert mask.tolist() == expected.tolist()


def test_an_action_mask_refuses_an_id_out_of_range() -> None:
    with pytest.raises(IndexError):
        action_mask([3], 3)


def test_vector_is_the_numbers_as_float32_and_refuses_what_float32_cannot_hold() -> None:
    enc = ViewEncoder(get_game("odyssey"))
    for values in ([0, -1, 3, 2**24, -2**24], [1, 2.5, -3], []):
        vec = enc.vector(values)
        assert vec.dtype == np.float32 and vec.flags.writeable
        assert vec.tolist() == [float(v) for v in values]
    for bad in ([2**24 + 2], [-2**24 - 2, 1], [1, 2**63], [1.0, 2.0**30]):
        with pytest.raises(ObservationOverflowError, match="exceeds 2\\*\\*24"):
            enc.vector(bad)


@pytest.mark.parametrize("name", ["odyssey", "iss", "obcy"])
def test_views_of_random_games_encode_as_the_definition_says(name: str) -> None:
    """Every seat's view along random games: each field's numbers are the definition's, padded
    to its block in its place; the text is the unpadded numbers; the vector the padded ones."""
    game = get_game(name)
    options = game.options_type()
    enc = ViewEncoder(game)
    rng = np.random.default_rng(5)
    seen = 0
    k = 0
    while seen < 200:
        s = game.new_initial_state(options, rules_stream(5, k))
        k += 1
        while not s.is_terminal() and seen < 200:
            for seat in range(len(game.seats(options))):
                view = s.view(seat)
                padded, unpadded = [], []
                for field, slots in zip(enc.fields, enc.slots, strict=True):
                    part: list[Any] = []
                    reference(getattr(view, field), part)
                    assert len(part) <= slots, field
                    unpadded += part
                    padded += part + [0] * (slots - len(part))
                assert enc.numbers(view) == padded
                assert enc.numbers(view, pad=False) == unpadded
                assert enc.text(view) == " ".join(map(str, unpadded))
                assert enc.encode(view).tolist() == [float(x) for x in padded]
            legal = s.legal_actions()
            s.apply(legal[int(rng.integers(len(legal)))])
            seen += 1
