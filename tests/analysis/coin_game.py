"""A tiny team game implementing the engine contract, for analysis and report tests.

Coin: two sides, ``red`` (seat 0) and ``blue`` (seat 1). Red calls heads or tails (one
decision); then the rules' rng decides: red wins with probability ``edge`` (per mille), a
draw with probability ``draw`` (per mille), the round cap with probability ``cap`` (per
mille), else blue wins. ``rounds`` is 1–10 from the rules' rng; measure ``flips`` = rounds.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from balancelab.simulate.core import Action, ColumnType, Game, GameRecord, State, View
from balancelab.simulate.options import RuleOptions, option


@dataclasses.dataclass(frozen=True)
class CoinOptions(RuleOptions):
    GAME: ClassVar[str] = "coin"
    edge: int = option(500, source="assumed: test", help="red win chance, per mille",
                       low=0, high=1000, key=True)
    bonus: int = option(0, source="what-if: test", help="added to edge", low=-500, high=500)
    draw: int = option(0, source="assumed: test", help="draw chance per mille", low=0, high=1000)
    cap: int = option(0, source="assumed: test", help="cap chance per mille", low=0, high=1000)


@dataclasses.dataclass(frozen=True)
class CoinView(View):
    seat: int


class CoinState(State):
    def __init__(self, options: CoinOptions, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng
        self.current_seat = 0
        self.done = False
        self.record: GameRecord | None = None

    def legal_actions(self) -> list[Action]:
        return [0, 1]

    def _apply(self, action: Action) -> None:
        o = self.options
        u = float(self.rng.random())
        rounds = int(self.rng.integers(1, 11))
        edge = min(1.0, max(0.0, (o.edge + o.bonus) / 1000))
        if u < edge:
            w, why = "red", "red_call"
        elif u < edge + o.draw / 1000:
            w, why = "draw", "draw"
        elif u < edge + (o.draw + o.cap) / 1000:
            w, why = "", "cap"
        else:
            w, why = "blue", "blue_call"
        self.record = GameRecord(w, why, rounds, {"flips": rounds, "heads": int(action)})
        self.done = True
        self.current_seat = -1

    def copy(self) -> CoinState:
        c = CoinState(self.options, np.random.default_rng())
        c.rng.bit_generator.state = self.rng.bit_generator.state
        c.current_seat, c.done, c.record = self.current_seat, self.done, self.record
        return c

    def view(self, seat: int) -> View:
        return CoinView(seat)

    def is_terminal(self) -> bool:
        return self.done

    def result(self) -> GameRecord:
        assert self.record is not None
        return self.record


class CoinGame(Game):
    name = "coin"
    title = "Coin (test game)"
    version = "1"
    options_type = CoinOptions
    sides = ("red", "blue")
    outcomes = ("red", "blue", "draw")
    measure_schema: ClassVar[dict[str, ColumnType]] = {"flips": "i32", "heads": "i32"}
    chunk_games = 250
    default_policies: ClassVar[dict[str, str]] = {"red": "random", "blue": "random"}

    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        return ("red", "blue")

    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        return self.sides[seat]

    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> State:
        assert isinstance(options, CoinOptions)
        return CoinState(options, rng)


GAME = CoinGame()


def install() -> None:
    """Register the coin game in balancelab's game registry (in this process)."""
    from balancelab import games

    games.register(GAME)


