"""The contract kit (balancelab.testing.check_game) on every built-in game and the example
plug-in, and on broken games it must catch."""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pytest
from plugin_env import NIM

from balancelab.games import get_game
from balancelab.testing import ContractError, check_game, has_action_encoding

sys.path.insert(0, str(NIM))
import nim_game  # noqa: E402
from search_toy import GAME as DUEL  # noqa: E402
from search_toy import DuelGame, DuelState, DuelView  # noqa: E402

#: (game, options, games): the built-in games at their defaults and at their edges.
CASES = [
    ("odyssey", {}, 3), ("odyssey", {"crew": 2, "hal_extra_turns": 1}, 2),
    ("iss", {}, 3), ("iss", {"players": 4}, 2),
    ("obcy", {}, 2), ("obcy", {"queen_variant": "roll"}, 2),
]


@pytest.mark.parametrize(("name", "options", "games"), CASES,
                         ids=[f"{c[0]}-{c[1] or 'default'}" for c in CASES])
def test_the_builtin_games_keep_the_contract(name, options, games) -> None:
    report = check_game(name, options, games=games)
    assert report.checked["random games end"] == games
    assert report.checked["same seed, same game"] == games
    for check in ("copy evolves identically", "views hide hidden information",
                  "determinize consistent with the view"):  # states were examined
        assert report.checked[check] >= 10 * games, (check, report)
    has = has_action_encoding(get_game(name))
    assert ("action encoding round-trips" in report.skipped) is not has


@pytest.mark.parametrize("options", [{}, {"heaps": 1, "max_take": 1, "misere": True}])
def test_the_example_plugin_game_keeps_the_contract(options) -> None:
    report = check_game(nim_game.GAME, options, games=10)
    assert report.checked["random games end"] == 10
    assert str(report).startswith("nim (heaps=")


# -- broken games the kit must catch ----------------------------------------------------------

class SharedCopy(nim_game.NimState):
    """copy() shares the heaps list: a copy's moves change the original."""

    __slots__ = ()

    def copy(self) -> nim_game.NimState:
        s = super().copy()
        s.heaps = self.heaps
        return s


class SharedCopyNim(nim_game.NimGame):
    def new_initial_state(self, options, rng):
        s = super().new_initial_state(options, rng)
        t = SharedCopy.__new__(SharedCopy)
        t.options, t.rng, t.heaps, t.turns, t.last, t.current_seat = (
            s.options, s.rng, s.heaps, s.turns, s.last, s.current_seat)
        return t


class UnseededNim(nim_game.NimGame):
    """Deals from fresh operating-system entropy instead of the rules' Generator."""

    def new_initial_state(self, options, rng):
        return super().new_initial_state(options, np.random.default_rng())


class EndlessNim(nim_game.NimGame):
    def new_initial_state(self, options, rng):
        s = super().new_initial_state(options, rng)
        s.heaps = [10**6] * len(s.heaps)
        return s


@dataclasses.dataclass(frozen=True)
class LeakyView(DuelView):
    other: tuple[int, ...] = ()


class LeakyState(DuelState):
    __slots__ = ()

    def view(self, seat):
        v = super().view(seat)
        return LeakyView(**{f.name: getattr(v, f.name) for f in dataclasses.fields(v)},
                         other=tuple(sorted(self.hands[1 - seat])))


class LeakyDuel(DuelGame):
    """Shows each seat the other hand."""

    def new_initial_state(self, options, rng):
        s = super().new_initial_state(options, rng)
        t = LeakyState(s.options, s.rng)
        t.hands, t.pile = s.hands, s.pile
        return t

    def determinize(self, view, rng):
        s = super().determinize(view, rng)
        t = LeakyState(s.options, s.rng)
        t.hands, t.pile, t.played, t.led, t.leader, t.current_seat, t.tricks = (
            s.hands, s.pile, s.played, s.led, s.leader, s.current_seat, s.tricks)
        return t


@dataclasses.dataclass(frozen=True)
class BadgeView(nim_game.NimView):
    badge: int = 0


class BadgeState(nim_game.NimState):
    """Nim with a badge both seats see, which changes nothing in play."""

    __slots__ = ("badge",)

    def copy(self):
        return _badged(super().copy(), self.badge)

    def view(self, seat):
        v = super().view(seat)
        return BadgeView(**{f.name: getattr(v, f.name) for f in dataclasses.fields(v)},
                         badge=self.badge)


def _badged(s, badge):
    t = BadgeState.__new__(BadgeState)
    t.options, t.rng, t.heaps, t.turns, t.last, t.current_seat = (
        s.options, s.rng, s.heaps, s.turns, s.last, s.current_seat)
    t.badge = badge
    return t


class GlobalRngNim(nim_game.NimGame):
    """Deals the badge from numpy's global generator, not the rules' Generator: the same seed
    plays the same actions to the same record, but the seats see another badge (issue 30)."""

    def new_initial_state(self, options, rng):
        return _badged(super().new_initial_state(options, rng), int(np.random.randint(10**9)))

    def determinize(self, view, rng):
        return _badged(super().determinize(view, rng), view.badge)


class ForgetfulDuel(DuelGame):
    """determinize drops the tricks won (visible to both seats), as one that drops the bids."""

    def determinize(self, view, rng):
        s = super().determinize(view, rng)
        s.tricks = [0, 0]
        return s


class BadlyEncodedNim(nim_game.NimGame):
    def encode_action(self, view, action):
        return action % 100  # the heap is lost: two heaps' moves share ids


def test_the_duel_toy_keeps_the_contract() -> None:
    assert check_game(DUEL, games=5).checked["views hide hidden information"] > 50


@pytest.mark.parametrize(("game", "check"), [
    (SharedCopyNim(), "copy evolves identically"),
    (UnseededNim(), "same seed, same game"),
    (EndlessNim(), "random games end"),
    (LeakyDuel(), "views hide hidden information"),
    (GlobalRngNim(), "same seed, same game"),
    (ForgetfulDuel(), "determinize consistent with the view"),
    (BadlyEncodedNim(), "action encoding round-trips"),
])
def test_a_broken_promise_is_caught_and_named(game, check) -> None:
    with pytest.raises(ContractError, match=f"^{check}: .*game 0"):
        check_game(game, games=3, max_decisions=5000)


def test_the_check_names_what_went_wrong() -> None:
    """A leak names the field that shows hidden information; a determinize that drops a
    visible field is named for that field, never called a leak (issue 30)."""
    with pytest.raises(ContractError, match=r"seat \d's view \(other\) changed"):
        check_game(LeakyDuel(), games=3)
    with pytest.raises(ContractError, match="shows it another tricks: determinize must keep"):
        check_game(ForgetfulDuel(), games=3)
    with pytest.raises(ContractError, match="other views from decision 0 .*numpy's global"):
        check_game(GlobalRngNim())  # at the default 5 games


def test_the_encoding_is_checked_only_when_the_game_has_one() -> None:
    report = check_game(nim_game.GAME, games=3)  # the example numbers its actions
    assert report.checked["action encoding round-trips"] > 10
    assert "action encoding round-trips" not in report.skipped
    assert "action encoding round-trips" in check_game(DUEL, games=1).skipped
