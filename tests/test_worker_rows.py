"""The worker's tables hold, row by row, what a game's row merges (``play_chunk`` builds them
a column at a time): values a game reports win over the labels, options, policies and the
columns every game has; a value nobody gives is None."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from balancelab import games
from balancelab.policies import base as policies
from balancelab.policies.base import RandomPolicy
from balancelab.simulate.core import ColumnType, GameRecord, State, seat_key, seat_keys
from balancelab.simulate.worker import (
    games_columns,
    play_chunk,
    rotation_period,
    seat_assignment,
    seats_columns,
)

sys.path.insert(0, str(Path(__file__).parent / "analysis"))
import coin_game  # noqa: E402


class ClashState(coin_game.CoinState):
    """A coin game that reports, by a die, values of other columns, drops a measure, adds
    one the schema lacks, and seat rows of varying keys."""

    def _apply(self, action: Any) -> None:
        super()._apply(action)
        r = self.record
        assert r is not None
        die = int(self.rng.integers(0, 6))
        m = dict(r.measures)
        seats: list[dict[str, Any]] = [{"seat": 1, "score": 3.5}, {"seat": 0, "score": 1.0}]
        if die == 0:
            m["winner"] = "someone"
            seats[1]["game_index"] = -5
        elif die == 1:
            m.update(seed=77, edge=-1)
        elif die == 2:
            del m["flips"]
            seats[0]["policy"] = "mine"
            del seats[1]["score"]
        elif die == 3:
            m.update(game="label clash", extra=5)
        elif die == 4:
            m.update(policy_red="x", policies="y")
        else:
            seats = []
        self.record = GameRecord(r.winner, r.end_reason, r.rounds, m, seats)


class ClashGame(coin_game.CoinGame):
    name = "clashcoin"
    measure_schema: ClassVar[dict[str, ColumnType]] = {
        "flips": "i32", "heads": "i32", "rounds": "i32", "policy_blue": "str", "run_id": "str"}
    seat_schema: ClassVar[dict[str, ColumnType]] = {"seat": "i32", "score": "f64"}

    def side_of_seat(self, options: Any, seat: int) -> str:
        return "red"  # both seats: their specs rotate, and blue's policy column is ""

    def new_initial_state(self, options: Any, rng: np.random.Generator) -> State:
        return ClashState(options, rng)


def _rows_merged(labels: dict[str, Any], specs: list[str], rotate: bool, seed: int,
                 start: int, stop: int) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The rows as a row at a time: one merged dict per game and per seat row."""
    from balancelab.simulate.worker import play_game, side_policy_columns

    game = ClashGame()
    options = game.options_type()
    names = game.seats(options)
    sides = [game.side_of_seat(options, k) for k in range(len(names))]
    games_rows, seats_rows = [], []
    for i in range(start, stop):
        assigned = seat_assignment(specs, sides, i, rotate)
        played = play_game(game, options, assigned, seed, i)
        rec = played.record
        row = {**labels, **options.columns(), **side_policy_columns(game, sides, assigned),
               "policies": ";".join(f"{n}={s}" for n, s in zip(names, assigned, strict=True)),
               "game_index": i, "seed": seed, "winner": rec.winner,
               "end_reason": rec.end_reason, "rounds": rec.rounds,
               "decisions": played.decisions, **rec.measures}
        games_rows.append(tuple(row.get(c) for c in games_columns(game, options)))
        for sr in rec.seat_rows:
            k = sr["seat"]
            srow = {**labels, "game_index": i, "seat_name": names[k], "policy": assigned[k],
                    **sr}
            seats_rows.append(tuple(srow.get(c) for c in seats_columns(game)))
    return games_rows, seats_rows


class OtherRandom(RandomPolicy):
    """A second policy, so that the seats rotate."""

    name = "other-random"


def test_a_chunks_tables_hold_each_rows_merge() -> None:
    games.register(ClashGame())
    policies.register("other-random", OtherRandom, games=["clashcoin"])
    labels = {"run_id": "r", "game": "g", "flips": "label", "heads": None, "nowhere": 1}
    for specs, rotate in ((["random", "random"], False), (["other-random", "random"], True)):
        cols, seats, decisions, _ = play_chunk("clashcoin", {}, specs, rotate, 3, 10, 70,
                                               labels)
        want_games, want_seats = _rows_merged(labels, specs, rotate, 3, 10, 70)
        assert list(zip(*cols.values(), strict=True)) == want_games
        assert seats is not None
        assert list(zip(*seats.values(), strict=True)) == want_seats
        assert decisions == sum(cols["decisions"])
        assert len(set(cols["policies"]) - {"y"}) == (2 if rotate else 1)  # "y": reported
        empty, seats, _, _ = play_chunk("clashcoin", {}, specs, rotate, 3, 5, 5, labels)
        assert all(v == [] for v in empty.values()) and seats is not None


def test_seat_keys_are_the_seats_keys() -> None:
    for seed, index in ((0, 0), (3, 12345), (-7, 10**12), (2**70, 4)):
        assert seat_keys(seed, index, 5) == [seat_key(seed, index, k) for k in range(5)]


def test_the_rotation_period_repeats_the_seat_assignment() -> None:
    specs = ["h1", "h2", "a", "b", "c"]
    sides = ["hal", "hal", "crew", "crew", "crew"]
    period = rotation_period(specs, sides, True)
    assert period == 6  # lcm(2!, 3!)
    assert all(seat_assignment(specs, sides, i, True)
               == seat_assignment(specs, sides, i % period, True) for i in range(40))
    assert rotation_period(specs, sides, False) == 1
    assert rotation_period(["x"] * 4, ["p"] * 4, True) == 1
