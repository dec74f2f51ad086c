"""Runner pieces that need no game: chunk plans and frames, seat rotation, seeding, CLI parsing."""

from __future__ import annotations

import itertools

import polars as pl
import pytest

from balancelab.cli import parse_game_args, parse_policies
from balancelab.policies.base import PolicyError, canonical_spec, parse_spec
from balancelab.simulate.core import game_streams
from balancelab.simulate.runs import plan_chunks
from balancelab.simulate.runs.tables import chunk_frame, polars_schema
from balancelab.simulate.worker import seat_assignment


def test_plan_chunks_covers_every_game_once_interleaving_variants() -> None:
    chunks = plan_chunks(2, 2500, 1000)
    assert [(c.variant, c.index, c.start, c.stop) for c in chunks] == [
        (0, 0, 0, 1000), (1, 0, 0, 1000),
        (0, 1, 1000, 2000), (1, 1, 1000, 2000),
        (0, 2, 2000, 2500), (1, 2, 2000, 2500),
    ]


def test_plan_chunks_is_a_prefix_when_a_run_is_extended() -> None:
    small = plan_chunks(1, 3000, 1000)
    big = plan_chunks(1, 5000, 1000)
    assert [c.key for c in small] == [c.key for c in big[:3]]


def test_chunk_frame_types_a_workers_columns_by_the_schema() -> None:
    schema = polars_schema({"a": "i8", "b": "str", "c": "bool", "d": "f64", "e": "i64"})
    assert list(schema.values()) == [pl.Int8, pl.String, pl.Boolean, pl.Float64, pl.Int64]
    cols = {"a": [1, None], "b": ["x", "y"], "c": [True, False], "d": [0.5, 1.0], "e": [7, 8]}
    df = chunk_frame(cols, schema)
    assert df.schema == pl.Schema(schema)
    assert df.rows() == [(1, "x", True, 0.5, 7), (None, "y", False, 1.0, 8)]
    empty = chunk_frame({k: [] for k in schema}, schema)
    assert empty.height == 0 and empty.schema == df.schema
    with pytest.raises(ValueError, match="do not match"):
        chunk_frame(dict(reversed(cols.items())), schema)  # the schema's order, or nothing
    with pytest.raises(ValueError, match="'x' has type 'u8'"):
        polars_schema({"x": "u8"})  # type: ignore[dict-item]


def test_seat_rotation_plays_every_permutation_equally_often() -> None:
    specs = ["a", "b", "c", "c"]
    sides = ["player"] * 4
    seen = [tuple(seat_assignment(specs, sides, i, True)) for i in range(24)]
    perms = list(itertools.permutations(specs))
    assert seen == perms  # 4! = 24 orderings (with repeats), each once
    assert seat_assignment(specs, sides, 5, False) == specs


def test_rotation_stays_within_a_side() -> None:
    specs = ["h", "x", "y"]
    sides = ["hal", "crew", "crew"]
    assert seat_assignment(specs, sides, 1, True) == ["h", "y", "x"]


def test_game_streams_depend_only_on_seed_and_index() -> None:
    r1, s1 = game_streams(7, 3, 2)
    r2, s2 = game_streams(7, 3, 2)
    assert r1.integers(1 << 30) == r2.integers(1 << 30)
    assert [g.integers(1 << 30) for g in s1] == [g.integers(1 << 30) for g in s2]
    r3, _ = game_streams(7, 4, 2)
    r4, _ = game_streams(8, 3, 2)
    assert len({r1.integers(1 << 62), r3.integers(1 << 62), r4.integers(1 << 62)}) == 3


def test_streams_are_the_documented_seed_sequences() -> None:
    """Game i's rules stream is SeedSequence(seed, spawn_key=(i, 0)); seat k's Generator is
    default_rng(seat_key(seed, i, k)), a BLAKE2b digest: fixed, since every recorded game is
    replayed from (seed, game_index)."""
    import hashlib

    import numpy as np

    from balancelab.simulate.core import seat_key

    rules, seats = game_streams(11, 5, 3)
    want = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(5, 0)))
    assert rules.integers(1 << 62) == want.integers(1 << 62)
    keys = [int.from_bytes(hashlib.blake2b(f"11,5,{k}".encode(), digest_size=32,
                                           person=b"balancelab-seat").digest(), "little")
            for k in range(3)]
    assert [seat_key(11, 5, k) for k in range(3)] == keys
    assert [g.integers(1 << 62) for g in seats] == [
        np.random.default_rng(key).integers(1 << 62) for key in keys]


def test_a_policy_makes_its_generator_on_first_use_only() -> None:
    """play_game hands each policy a function making its seat's Generator: a policy that never
    draws costs no seeding, one that draws gets exactly the seat's stream."""
    from balancelab.games import get_game
    from balancelab.policies.base import RandomPolicy
    from balancelab.simulate.core import seat_stream

    game = get_game("odyssey")
    options = game.options_type()
    made: list[int] = []

    def make() -> object:
        made.append(1)
        return seat_stream(3, 9, 1)

    pol = RandomPolicy(game, options, 1, make)  # type: ignore[arg-type]
    assert made == []
    first = pol.rng
    assert pol.rng is first and made == [1]
    assert first.integers(1 << 62) == seat_stream(3, 9, 1).integers(1 << 62)


def test_lazy_seat_streams_play_the_games_eager_streams_play() -> None:
    """The same game with every seat's Generator made up front (random policies draw)."""
    from balancelab.games import get_game
    from balancelab.policies import base as policies
    from balancelab.simulate.play import play
    from balancelab.simulate.worker import play_game

    game = get_game("odyssey")
    options = game.options_type()
    specs = ["random"] * len(game.seats(options))
    for i in range(3):
        rules, seats = game_streams(21, i, len(specs))
        eager = play(game, options, [policies.build(game, options, k, sp, seats[k])
                                     for k, sp in enumerate(specs)], rules)
        lazy = play_game(game, options, specs, 21, i)
        assert (lazy.record, lazy.decisions) == (eager.record, eager.decisions)


def test_parse_game_args_flags_values_and_sets() -> None:
    got = parse_game_args(
        ["--crew", "3", "--hal-extra-turns", "-1", "--remove-shuttles", "--x=4"], ["limit=5"]
    )
    assert got == {"crew": "3", "hal-extra-turns": "-1", "remove-shuttles": True, "x": "4",
                   "limit": "5"}
    with pytest.raises(ValueError, match="unexpected argument"):
        parse_game_args(["3"], [])
    with pytest.raises(ValueError, match="--set takes key=value"):
        parse_game_args([], ["limit"])
    with pytest.raises(ValueError, match="hal_extra_turns is given twice"):
        parse_game_args(["--hal-extra-turns", "1"], ["hal_extra_turns=0"])
    assert parse_game_args(["--no-grate-is-duct", "--crew", "3"], []) == {
        "grate-is-duct": False, "crew": "3"}
    assert parse_game_args(["--crew", "3", "--remove-shuttles"],
                           ["crew=3", "remove_shuttles=true"])["crew"] == "3"  # agreeing: fine


def test_parse_policies_and_specs() -> None:
    assert parse_policies(["crew=search:rollouts=400,depth=40", "hal=random"]) == {
        "crew": "search:rollouts=400,depth=40", "hal": "random"}
    with pytest.raises(ValueError, match="SIDE=POLICY"):
        parse_policies(["crew"])
    assert parse_spec("search:rollouts=400,c=1.5,mode=uct") == (
        "search", {"rollouts": 400, "c": 1.5, "mode": "uct"})
    assert canonical_spec("search:rollouts=4,depth=2") == "search:depth=2,rollouts=4"
    with pytest.raises(PolicyError, match="key=value"):
        parse_spec("search:400")


def test_a_study_folder_is_named_as_such(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from balancelab.simulate.runs import MANIFEST, RunError, read_manifest

    (tmp_path / "crew-default").mkdir()
    (tmp_path / "crew-default" / MANIFEST).write_text("{}")
    with pytest.raises(RunError, match="holds runs \\(crew-default\\): a study's folder"):
        read_manifest(tmp_path)
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match="is not a balancelab run \\(no run.json\\)"):
        read_manifest(tmp_path / "empty")
