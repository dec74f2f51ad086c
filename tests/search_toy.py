"""A tiny hidden-information card game implementing the engine contract, for search tests.

Duel: two seats (``north``, ``south``; each seat is its own side). A deck of ``values`` card
values, ``copies`` of each, is shuffled; each seat is dealt ``hand`` cards, the rest is a
face-down draw pile. A trick: the leader plays a card face up, the follower answers with a
card; the higher card wins, an equal card loses to the leader. Both played cards go to a
face-up pile; the winner draws first, then the other (while the pile lasts), and leads next.
When both hands are empty the seat with more tricks wins; equal tricks are a ``"tie"``.

Hidden: the other hand and the pile order. A view shows the own hand, the led card, the face-up
pile, tricks won, hand and pile counts. ``determinize`` re-deals the unseen cards.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from balancelab.policies.base import Policy, register
from balancelab.simulate.core import Action, Game, GameRecord, State, View
from balancelab.simulate.options import RuleOptions, option


@dataclasses.dataclass(frozen=True)
class DuelOptions(RuleOptions):
    GAME: ClassVar[str] = "duel"
    values: int = option(6, source="assumed: test game", help="card values 1..values", low=2)
    copies: int = option(2, source="assumed: test game", help="copies of each value", low=1)
    hand: int = option(3, source="assumed: test game", help="hand size", low=1)


@dataclasses.dataclass(frozen=True)
class DuelView(View):
    seat: int
    options: DuelOptions
    hand: tuple[int, ...]
    led: int  # 0 when no card is led yet
    to_move: int
    leader: int
    played: tuple[int, ...]
    tricks: tuple[int, int]
    other_hand: int
    pile: int


class DuelState(State):
    # current_seat and rng are State's own attributes (the compiled State reads them directly)
    __slots__ = ("options", "hands", "pile", "played", "led", "leader", "tricks")

    def __init__(self, options: DuelOptions, rng: np.random.Generator) -> None:
        self.options = options
        self.rng = rng
        self.hands: list[list[int]] = [[], []]
        self.pile: list[int] = []
        self.played: list[int] = []
        self.led = 0
        self.leader = 0
        self.current_seat = 0
        self.tricks = [0, 0]

    def legal_actions(self) -> list[Action]:
        return sorted(set(self.hands[self.current_seat]))

    def _apply(self, action: Action) -> None:
        assert isinstance(action, int)
        seat = self.current_seat
        self.hands[seat].remove(action)
        if seat == self.leader:
            self.led = action
            self.current_seat = 1 - seat
            return
        winner = seat if action > self.led else self.leader
        self.tricks[winner] += 1
        self.played += [self.led, action]
        self.led = 0
        for k in (winner, 1 - winner):
            if self.pile:
                self.hands[k].append(self.pile.pop())
        self.leader = winner
        self.current_seat = winner if self.hands[winner] else -1

    def copy(self) -> DuelState:
        s = DuelState.__new__(DuelState)
        s.options = self.options
        s.rng = np.random.default_rng()
        s.rng.bit_generator.state = self.rng.bit_generator.state
        s.hands = [list(h) for h in self.hands]
        s.pile = list(self.pile)
        s.played = list(self.played)
        s.led, s.leader, s.current_seat = self.led, self.leader, self.current_seat
        s.tricks = list(self.tricks)
        return s

    def view(self, seat: int) -> DuelView:
        return DuelView(
            seat=seat,
            options=self.options,
            hand=tuple(sorted(self.hands[seat])),
            led=self.led,
            to_move=self.current_seat,
            leader=self.leader,
            played=tuple(self.played),
            tricks=(self.tricks[0], self.tricks[1]),
            other_hand=len(self.hands[1 - seat]),
            pile=len(self.pile),
        )

    def is_terminal(self) -> bool:
        return self.current_seat == -1

    def result(self) -> GameRecord:
        if not self.is_terminal():
            raise RuntimeError("game not over")
        a, b = self.tricks
        winner = "north" if a > b else "south" if b > a else "tie"
        return GameRecord(winner=winner, end_reason="hands_empty", rounds=a + b)


class DuelGame(Game):
    name = "duel"
    title = "Duel (test game)"
    version = "1"
    options_type = DuelOptions
    sides = ("north", "south")
    outcomes = ("north", "south", "tie")
    measure_schema: ClassVar[dict] = {}  # type: ignore[type-arg]
    default_policies: ClassVar[dict[str, str]] = {"north": "duel_low", "south": "duel_low"}

    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        return ("north", "south")

    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        return ("north", "south")[seat]

    def deck(self, options: DuelOptions) -> list[int]:
        return [v for v in range(1, options.values + 1) for _ in range(options.copies)]

    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> DuelState:
        assert isinstance(options, DuelOptions)
        s = DuelState(options, rng)
        deck = self.deck(options)
        order = rng.permutation(len(deck))
        cards = [deck[i] for i in order]
        s.hands = [cards[: options.hand], cards[options.hand: 2 * options.hand]]
        s.pile = cards[2 * options.hand:]
        return s

    def determinize(self, view: View, rng: np.random.Generator) -> DuelState:
        assert isinstance(view, DuelView)
        o = view.options
        unseen = Counter(self.deck(o))
        unseen.subtract(view.hand)
        unseen.subtract(view.played)
        if view.led:
            unseen[view.led] -= 1
        cards = sorted(unseen.elements())
        cards = [cards[i] for i in rng.permutation(len(cards))]
        s = DuelState(o, np.random.default_rng(rng.integers(2**63)))
        me = view.seat
        s.hands[me] = list(view.hand)
        s.hands[1 - me] = cards[: view.other_hand]
        s.pile = cards[view.other_hand:]
        s.played = list(view.played)
        s.led = view.led
        s.leader = view.leader
        s.current_seat = view.to_move
        s.tricks = list(view.tricks)
        return s


class LowPolicy(Policy):
    """Scripted: lead the lowest card; follow with the lowest card that wins, else the lowest."""

    name = "duel_low"

    def act(self, view: View, legal: Sequence[Action]) -> Action:
        assert isinstance(view, DuelView)
        if not view.led:
            return min(legal)  # type: ignore[type-var]
        winning = [a for a in legal if a > view.led]  # type: ignore[operator]
        return min(winning) if winning else min(legal)  # type: ignore[type-var]


register("duel_low", LowPolicy, games=["duel"], help="duel test game: play low")

GAME = DuelGame()
