"""The search policies' fast seeding draws exactly numpy's SeedSequence streams, and their
cheaper draws (a shuffled list, the rollout seeds made on demand) are the old ones."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from balancelab.simulate.seeding import (
    draw_seed,
    pool,
    seeded_draws,
    seeded_generator,
    seeded_snapshot,
)


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


@given(st.integers(0, 2**63 - 1), st.integers(1, 6))
def test_ismcts_rollout_seeds_are_the_rollout_childs_draws(entropy: int, n: int) -> None:
    from balancelab.policies.ismcts import _RolloutSeeds

    rollouts = np.random.SeedSequence(entropy).spawn(2)[1]
    expected = np.random.default_rng(rollouts).integers(2**63, size=n).tolist()
    seeds = _RolloutSeeds(entropy, n)
    assert [seeds.seed(k) for k in reversed(range(n))] == expected[::-1]
    assert seeds.maker(n - 1)().random() == np.random.default_rng(expected[-1]).random()


@given(st.integers(0, 2**63 - 1), st.lists(st.integers(0, 99), max_size=40))
def test_a_shuffled_copy_is_the_permutation_order(seed: int, items: list[int]) -> None:
    from balancelab.simulate.iss.determinize import _shuffled

    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    assert _shuffled(items, a) == [items[int(k)] for k in b.permutation(len(items))]
    assert a.integers(2**63) == b.integers(2**63)  # the same draws spent


@given(st.integers(0, 2**63 - 1), st.lists(st.integers(0, 2**40), max_size=2),
       st.integers(0, 9))
def test_seeded_draws_are_the_generators(entropy: int, key: list[int], n: int) -> None:
    rng = np.random.default_rng(np.random.SeedSequence(entropy, spawn_key=tuple(key)))
    assert seeded_draws(entropy, tuple(key), n) == rng.integers(2**63, size=n).tolist()


@given(st.integers(0, 2**63 - 1), st.integers(1, 64))
def test_a_decisions_entropies_drawn_at_once_are_the_one_by_one_draws(seed: int, n: int) -> None:
    # IsmctsPolicy draws a decision's iteration entropies in one call; the games stay those of
    # one draw an iteration only while numpy draws the same numbers both ways
    at_once = np.random.default_rng(seed).integers(2**63, size=n).tolist()
    one_rng = np.random.default_rng(seed)
    assert at_once == [int(one_rng.integers(2**63)) for _ in range(n)]


@given(st.integers(0, 2**63 - 1),
       st.lists(st.one_of(st.integers(1, 8), st.integers(1, 2**32)), min_size=1, max_size=30))
def test_small_draws_are_the_generators_bounded_draws(entropy: int, bounds: list[int]) -> None:
    from balancelab.simulate.seeding import PcgStream

    g = seeded_generator(entropy)
    draws = PcgStream(entropy)
    assert [draws.integers(n) for n in bounds] == [int(g.integers(n)) for n in bounds]


def test_seed_sources_make_the_generator_of_their_seed() -> None:
    from balancelab.policies.ismcts import _RolloutSeeds
    from balancelab.simulate.seeding import FixedSeed

    assert FixedSeed(77).seed() == 77
    assert FixedSeed(77)().random() == np.random.default_rng(77).random()
    seeds = _RolloutSeeds(5, 3)
    assert seeds.maker(2).seed() == seeds.seed(2)


@given(st.integers(0, 2**63 - 1), st.lists(st.integers(0, 2**40), max_size=2))
def test_a_snapshot_is_the_seeded_generators_state(entropy: int, key: list[int]) -> None:
    # 2001's worlds hold their Generator as this snapshot until they first draw
    from balancelab.simulate.core import _generator_from

    g = seeded_generator(entropy, tuple(key))
    snap = seeded_snapshot(entropy, tuple(key))
    assert snap[0] is type(g.bit_generator) and snap[1] == g.bit_generator.state
    assert _generator_from(snap).integers(2**63, size=3).tolist() == \
        g.integers(2**63, size=3).tolist()


@given(st.integers(0, 2**63 - 1), st.integers(1, 6))
def test_draw_seed_is_an_integers_draw(seed: int, n: int) -> None:
    # the same number and the same draws spent, interleaved with other draws
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    for _ in range(n):
        assert draw_seed(a) == int(b.integers(2**63))
        assert a.integers(5) == b.integers(5) and a.random() == b.random()
    m1 = np.random.Generator(np.random.MT19937(seed))
    m2 = np.random.Generator(np.random.MT19937(seed))
    assert [draw_seed(m1) for _ in range(n)] == [int(m2.integers(2**63)) for _ in range(n)]


@given(st.integers(0, 2**63 - 1), st.lists(st.integers(0, 2**40), max_size=2),
       st.lists(st.one_of(st.integers(0, 70), st.integers(-9, -1)), max_size=12))
def test_a_streams_shuffles_and_draws_are_the_generators(entropy: int, key: list[int],
                                                        steps: list[int]) -> None:
    # ISS's worlds are dealt from a PcgStream: shuffles of lists (numpy's masked rejection per
    # swap) interleaved with bounded draws, then handed on to the state as a snapshot
    from balancelab.simulate.core import _generator_from
    from balancelab.simulate.seeding import PcgStream

    g = seeded_generator(entropy, tuple(key))
    ours = PcgStream(entropy, tuple(key))
    for k in steps:
        if k >= 0:
            a, b = list(range(k)), list(range(k))
            g.shuffle(a)
            ours.shuffle(b)
            assert a == b
        else:
            assert ours.integers(-k) == int(g.integers(-k))
    # (a snapshot keeps the buffered half of the last 64-bit output for the next small draw)
    assert _generator_from(ours.snapshot()).integers(5, size=3).tolist() == \
        g.integers(5, size=3).tolist()
