"""The search policies' fast seeding draws exactly numpy's SeedSequence streams."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from balancelab.simulate.seeding import pool, seeded_generator


@given(st.integers(0, 2**130), st.lists(st.integers(0, 2**40), max_size=3))
def test_the_pool_is_numpys(entropy: int, key: list[int]) -> None:
    expected = np.random.SeedSequence(entropy, spawn_key=tuple(key)).pool.tolist()
    assert pool(entropy, tuple(key)) == expected


@given(st.integers(0, 2**63 - 1))
def test_a_generator_draws_what_default_rng_draws(entropy: int) -> None:
    ours = seeded_generator(entropy).integers(2**63, size=5).tolist()
    assert ours == np.random.default_rng(entropy).integers(2**63, size=5).tolist()


def test_spawned_children_are_numpys() -> None:
    world, rollouts = np.random.SeedSequence(123456789).spawn(2)
    assert seeded_generator(123456789, (0,)).random(4).tolist() == \
        np.random.default_rng(world).random(4).tolist()
    assert seeded_generator(123456789, (1,)).random(4).tolist() == \
        np.random.default_rng(rollouts).random(4).tolist()


def test_a_negative_seed_is_refused() -> None:
    with pytest.raises(ValueError, match="must be >= 0"):
        seeded_generator(-1)
