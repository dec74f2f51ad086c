"""Nim, the worked example of a balancelab plug-in game (see balancelab's docs/plugins.md).

Rules: ``heaps`` heaps of counters, each dealt between ``low`` and ``high`` counters at random
(the only chance in the game). Two seats, ``first`` and ``second``, take turns; a turn takes 1
to ``max_take`` counters from one heap. Whoever takes the last counter wins (with
``misere=true``, loses). Nothing is hidden: every view shows the heaps.

An action is the int ``heap * 100 + counters`` (heap index, counters taken). Its id for the
adapters (PettingZoo, OpenSpiel: ``balancelab.simulate.encoding``) is
``heap * max_take + counters - 1``, in ``[0, heaps * max_take)``.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import numpy as np

from balancelab.simulate.core import Action, ColumnType, Game, GameRecord, State, View
from balancelab.simulate.encoding import ActionEncodingError
from balancelab.simulate.options import OptionError, RuleOptions, option

SEATS = ("first", "second")


@dataclasses.dataclass(frozen=True)
class NimOptions(RuleOptions):
    """Nim's rule options (the rules above)."""

    GAME: ClassVar[str] = "nim"
    heaps: int = option(3, source="rulebook: setup", help="heaps of counters", low=1, high=9,
                        key=True)
    low: int = option(1, source="rulebook: setup", help="fewest counters dealt to a heap",
                      low=1, high=99)
    high: int = option(7, source="rulebook: setup", help="most counters dealt to a heap",
                       low=1, high=99)
    max_take: int = option(3, source="rulebook: a turn", help="most counters taken in a turn",
                           low=1, high=99)
    misere: bool = option(False, source="what-if: whoever takes the last counter loses",
                          help="misère play: taking the last counter loses")

    def check(self) -> None:
        if self.low > self.high:
            raise OptionError(f"option 'low' ({self.low}) of game 'nim' must not exceed "
                              f"'high' ({self.high})")


@dataclasses.dataclass(frozen=True)
class NimView(View):
    """What a seat sees: everything (Nim has no hidden information)."""

    seat: int
    options: NimOptions
    heaps: tuple[int, ...]
    to_move: int
    turns: int


class NimState(State):
    """A game of Nim in progress."""

    # current_seat and rng belong to balancelab's State (do not list them here)
    __slots__ = ("options", "heaps", "turns", "last")

    def __init__(self, options: NimOptions, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng
        self.heaps: list[int] = []
        self.turns = 0
        self.last = -1  # the seat that took the last counters
        self.current_seat = 0

    def legal_actions(self) -> list[Action]:
        take = self.options.max_take
        return [h * 100 + n for h, size in enumerate(self.heaps)
                for n in range(1, min(size, take) + 1)]

    def _apply(self, action: Action) -> None:
        assert isinstance(action, int)
        heap, n = divmod(action, 100)
        self.heaps[heap] -= n
        self.turns += 1
        self.last = self.current_seat
        self.current_seat = -1 if not any(self.heaps) else 1 - self.current_seat

    def copy(self) -> NimState:
        s = NimState.__new__(NimState)
        s.options = self.options
        self.copy_rng_to(s)
        s.heaps = list(self.heaps)
        s.turns, s.last, s.current_seat = self.turns, self.last, self.current_seat
        return s

    def view(self, seat: int) -> NimView:
        return NimView(seat=seat, options=self.options, heaps=tuple(self.heaps),
                       to_move=self.current_seat, turns=self.turns)

    def is_terminal(self) -> bool:
        return self.current_seat == -1

    def result(self) -> GameRecord:
        if not self.is_terminal():
            raise RuntimeError("the game of Nim is not over")
        winner = self.last if not self.options.misere else 1 - self.last
        return GameRecord(winner=SEATS[winner], end_reason="last_counter_taken",
                          rounds=self.turns)

    def action_text(self, action: Action) -> str:
        assert isinstance(action, int)
        heap, n = divmod(action, 100)
        return f"take {n} from heap {heap + 1}"


class NimGame(Game):
    """Nim's static facts and its setup."""

    name = "nim"
    title = "Nim (balancelab plug-in example)"
    version = "1"
    options_type = NimOptions
    sides = SEATS
    outcomes = SEATS
    measure_schema: ClassVar[dict[str, ColumnType]] = {}
    chunk_games = 2000
    default_policies: ClassVar[dict[str, str]] = {"first": "nim-sum", "second": "nim-sum"}

    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        return SEATS

    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        return SEATS[seat]

    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> NimState:
        assert isinstance(options, NimOptions)
        s = NimState(options, rng)
        s.heaps = [int(x) for x in rng.integers(options.low, options.high + 1, options.heaps)]
        return s

    def determinize(self, view: View, rng: np.random.Generator) -> NimState:
        """The one state consistent with a view (nothing is hidden)."""
        assert isinstance(view, NimView)
        s = NimState(view.options, np.random.default_rng(int(rng.integers(2**63))))
        s.heaps = list(view.heaps)
        s.turns, s.current_seat = view.turns, view.to_move
        s.last = -1 if view.turns == 0 else 1 - view.to_move
        return s


    # -- the finite action encoding (optional: the PettingZoo and OpenSpiel adapters need it)
    def num_distinct_actions(self, options: RuleOptions) -> int:
        assert isinstance(options, NimOptions)
        return options.heaps * options.max_take

    def encode_action(self, view: View, action: Action) -> int:
        assert isinstance(view, NimView)
        heap, n = divmod(action, 100) if isinstance(action, int) else (-1, 0)
        if not (0 <= heap < len(view.heaps) and 1 <= n <= view.options.max_take):
            raise ActionEncodingError(f"not a Nim action: {action!r}")
        return heap * view.options.max_take + n - 1

    def decode_action(self, view: View, index: int) -> Action:
        assert isinstance(view, NimView)
        if not 0 <= index < self.num_distinct_actions(view.options):
            raise ActionEncodingError(f"action id {index!r} out of range")
        heap, n = divmod(int(index), view.options.max_take)
        return heap * 100 + n + 1


GAME = NimGame()
