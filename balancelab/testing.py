"""The contract kit: :func:`check_game` checks that a game keeps the engine contract.

Use it in a plug-in game's own tests (and balancelab's tests use it for the built-in games)::

    from balancelab.testing import check_game
    from nim_game import GAME

    def test_nim_keeps_the_contract():
        check_game(GAME)                       # default options, 5 random games
        check_game(GAME, {"heaps": 1, "misere": True}, games=20)

Every game is played by uniformly random choices from seeded streams; at about ``samples``
decisions of each game the state is examined. The checks (:data:`CHECKS`):

* **random games end** within ``max_decisions`` decisions, and ``result()`` names an outcome
  of :meth:`Game.possible_outcomes` (or ``""``, the round cap);
* **legal actions until the end**: ``legal_actions()`` is non-empty and free of duplicates in
  every unfinished state, and the seat to move is a seat of the game;
* **copy evolves identically**: two copies played on with the same actions (chance included)
  see the same seats, legal actions and views, and leave the original untouched;
* **same seed, same game**: the same rules seed and the same choices give the same game: the
  same actions, the same record and the same views of every seat at every decision (a game
  that deals from numpy's global generator, or any source but the rules' Generator, differs);
* **views hide hidden information**: a seat's view pickles to the same bytes once
  ``determinize`` has re-dealt everything the seat cannot see (and building another view does
  not change it) — skipped, and said so, for a game without ``determinize``;
* **determinize consistent with the view**: the world re-dealt from a seat's view shows that
  seat the same view wherever the re-deal does not reach (a field that differs the same way
  in every re-dealt world was dropped or changed by ``determinize``, e.g. the bids; a field
  that differs from one re-deal to the next is hidden information the view shows: the check
  above); the world of the seat to move (what a search samples) has that seat to move with
  the same legal actions, and plays on without error;
* **action encoding round-trips**, only for a game with the finite action encoding
  (``num_distinct_actions``, ``encode_action``, ``decode_action``): every legal action has
  its own id in ``[0, num_distinct_actions)``, the same from every seat's view, and decodes
  back to itself.

A broken promise raises :class:`ContractError` naming the check, the game, the options, the
game index and the decision, so it can be replayed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from balancelab.simulate.core import Action, Game, GameRecord, State, rules_stream
from balancelab.simulate.options import RuleOptions

#: The checks, in the order they are reported.
CHECKS: tuple[str, ...] = (
    "random games end",
    "legal actions until the end",
    "copy evolves identically",
    "same seed, same game",
    "views hide hidden information",
    "determinize consistent with the view",
    "action encoding round-trips",
)


class ContractError(AssertionError):
    """A game broke the engine contract; the message names the check and where."""


@dataclass
class ContractReport:
    """What :func:`check_game` checked.

    Attributes:
        game: the game's name.
        options: the variant label of the options checked.
        checked: check name → cases checked (states, views or games).
        skipped: check name → why it was not run (the game lacks the optional method).
    """

    game: str
    options: str
    checked: dict[str, int] = field(default_factory=lambda: dict.fromkeys(CHECKS, 0))
    skipped: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        lines = [f"{self.game} ({self.options}): the engine contract holds"]
        for name in CHECKS:
            if name in self.skipped:
                lines.append(f"  {name}: skipped ({self.skipped[name]})")
            else:
                lines.append(f"  {name}: {self.checked[name]} checked")
        return "\n".join(lines)


def has_action_encoding(game: Game) -> bool:
    """True when the game offers the finite action encoding (all three methods)."""
    return all(callable(getattr(game, m, None))
               for m in ("num_distinct_actions", "encode_action", "decode_action"))


def check_game(
    game: Game | str,
    options: RuleOptions | Mapping[str, Any] | None = None,
    *,
    games: int = 5,
    seed: int = 0,
    samples: int = 12,
    horizon: int = 25,
    max_decisions: int = 200_000,
) -> ContractReport:
    """Check that ``game`` keeps the engine contract (see the module docstring).

    Args:
        game: a Game, or a registered game's name.
        options: rule options (an options object, or names → values as for
            ``RuleOptions.from_strings``); default: the game's defaults.
        games: random games played.
        seed: the rules seed of game ``i`` is ``rules_stream(seed, i)``; the random choices
            come from ``numpy.random.default_rng([seed, i])``.
        samples: states examined per game (copies, views, determinize, encoding), spread over
            the game's decisions.
        horizon: actions a copy or a determinized world is played on when examined.
        max_decisions: a game still unfinished after this many actions fails
            "random games end".

    Returns:
        A :class:`ContractReport` of the cases checked.

    Raises:
        ContractError: the first broken promise.
        UnknownGameError, OptionError: a bad game name or bad options.
    """
    if isinstance(game, str):
        from balancelab.games import get_game

        game = get_game(game)
    if options is None:
        opts = game.options_type()
    elif isinstance(options, RuleOptions):
        opts = options
    else:
        opts = game.options_type.from_strings(options)
    checker = _Checker(game, opts, seed, horizon, max_decisions)
    for i in range(games):
        checker.play(i, samples)
    return checker.report


class _Checker:
    def __init__(self, game: Game, options: RuleOptions, seed: int, horizon: int,
                 max_decisions: int) -> None:
        self.game = game
        self.options = options
        self.seed = seed
        self.horizon = horizon
        self.max_decisions = max_decisions
        self.n_seats = len(game.seats(options))
        self.report = ContractReport(game.name, options.label())
        self.encoding = has_action_encoding(game)
        if not self.encoding:
            self.report.skipped["action encoding round-trips"] = (
                "the game has no num_distinct_actions/encode_action/decode_action")
        self.where = ""

    def fail(self, check: str, detail: str) -> ContractError:
        return ContractError(f"{check}: {detail} ({self.game.name}, options "
                             f"{self.options.label()}, seed {self.seed}, {self.where})")

    # -- one game ---------------------------------------------------------------------------
    def _random_game(self, i: int, examine_at: set[int] | None
                     ) -> tuple[list[Action], GameRecord, list[bytes]]:
        """Play game ``i`` by random choices; examine the states at ``examine_at``. Returns
        the actions, the record and a digest of every seat's view at each decision."""
        state = self.game.new_initial_state(self.options, rules_stream(self.seed, i))
        pick = np.random.default_rng([self.seed, i])
        probe = np.random.default_rng([self.seed, i, 1])  # examining never changes the choices
        actions: list[Action] = []
        seen: list[bytes] = []
        k = 0
        while not state.is_terminal():
            self.where = f"game {i}, decision {k}"
            legal = self._legal(state)
            seen.append(hashlib.blake2b(
                b"".join(pickle.dumps(state.view(s)) for s in range(self.n_seats)),
                digest_size=16).digest())
            if examine_at is not None and k in examine_at:
                self._examine(state, probe)
            action = legal[int(pick.integers(len(legal)))]
            state.apply(action)
            actions.append(action)
            k += 1
            if k > self.max_decisions:
                raise self.fail("random games end",
                                f"still unfinished after {self.max_decisions} actions")
        record = state.result()
        possible = set(self.game.possible_outcomes(self.options)) | {""}
        if record.winner not in possible:
            raise self.fail("random games end", f"winner {record.winner!r} is not one of "
                            f"{sorted(possible)}")
        return actions, record, seen

    def play(self, i: int, samples: int) -> None:
        first, record, seen = self._random_game(i, None)
        self.report.checked["random games end"] += 1
        n = len(first)
        examine_at = {int(x) for x in np.linspace(0, max(n - 1, 0), num=min(samples, n))}
        again, record2, seen2 = self._random_game(i, examine_at)
        self.where = f"game {i}"
        if again != first or record2 != record:
            at = "" if again == first else f" from action {_first_diff(first, again)}"
            raise self.fail("same seed, same game",
                            f"two games with the same seed and the same choices differ{at}")
        if seen2 != seen:
            raise self.fail("same seed, same game", "two games with the same seed and the "
                            "same choices show the seats other views from decision "
                            f"{_first_diff(seen, seen2)} (is something dealt from a source "
                            "other than the rules' Generator, such as numpy's global one?)")
        self.report.checked["same seed, same game"] += 1

    def _legal(self, state: State) -> list[Action]:
        check = "legal actions until the end"
        legal = state.legal_actions()
        if not legal:
            raise self.fail(check, "no legal action in an unfinished state")
        if len(set(legal)) != len(legal):
            raise self.fail(check, f"duplicate legal actions {legal!r}")
        if not 0 <= state.current_seat < self.n_seats:
            raise self.fail(check, f"seat to move {state.current_seat} is not a seat "
                            f"0..{self.n_seats - 1}")
        self.report.checked[check] += 1
        return legal

    # -- one examined state -----------------------------------------------------------------
    def _examine(self, state: State, probe: np.random.Generator) -> None:
        before = [pickle.dumps(state.view(s)) for s in range(self.n_seats)]
        self._copies(state, probe)
        after = [pickle.dumps(state.view(s)) for s in range(self.n_seats)]
        if after != before:
            raise self.fail("copy evolves identically",
                            "playing on a copy changed the original state's views")
        if "views hide hidden information" not in self.report.skipped:
            self._determinize(state, before, probe)
        if self.encoding:
            self._encoding(state)

    def _copies(self, state: State, rng: np.random.Generator) -> None:
        check = "copy evolves identically"
        a, b = state.copy(), state.copy()
        choices = rng.integers(2**31, size=self.horizon)
        played: list[Action] = []
        for c in choices:
            if a.is_terminal():
                break
            legal = a.legal_actions()
            action = legal[int(c) % len(legal)]
            a.apply(action)
            played.append(action)
        for step, action in enumerate(played):
            if b.is_terminal() or action not in b.legal_actions():
                raise self.fail(check, f"action {action!r}, legal in one copy, is not legal "
                                f"in the other after {step} actions")
            b.apply(action)
        same = (a.is_terminal() == b.is_terminal() and a.current_seat == b.current_seat
                and all(pickle.dumps(a.view(s)) == pickle.dumps(b.view(s))
                        for s in range(self.n_seats)))
        if same and a.is_terminal():
            same = a.result() == b.result()
        if not same:
            raise self.fail(check, f"two copies differ after the same {len(played)} actions")
        self.report.checked[check] += 1

    def _determinize(self, state: State, views: list[bytes], rng: np.random.Generator) -> None:
        privacy = "views hide hidden information"
        consistent = "determinize consistent with the view"
        for seat in range(self.n_seats):
            view = state.view(seat)
            try:
                world = self.game.determinize(view, rng)
            except NotImplementedError:
                why = "the game has no determinize"
                self.report.skipped[privacy] = self.report.skipped[consistent] = why
                return
            if pickle.dumps(world.view(seat)) != views[seat]:
                self._view_changed(seat, view, world.view(seat), rng)
            if pickle.dumps(view) != views[seat]:
                raise self.fail(privacy, f"seat {seat}'s view changed when another view was "
                                "built (it shares mutable state)")
            self.report.checked[privacy] += 1
            if seat != state.current_seat:  # search determinizes for the seat to move only
                continue
            if world.is_terminal() or world.current_seat != seat:
                raise self.fail(consistent, f"the world of seat {seat} (to move) has seat "
                                f"{world.current_seat} to move")
            if world.legal_actions() != state.legal_actions():
                raise self.fail(consistent, f"seat {seat} to move has other legal actions in "
                                "its determinized world")
            for _ in range(self.horizon):
                if world.is_terminal():
                    break
                legal = world.legal_actions()
                if not legal:
                    raise self.fail(consistent, "a determinized world has no legal action")
                world.apply(legal[int(rng.integers(len(legal)))])
            self.report.checked[consistent] += 1

    def _view_changed(self, seat: int, view: Any, redealt: Any,
                      rng: np.random.Generator) -> None:
        """Name the broken promise when the view of a re-dealt world differs from ``view``:
        the fields that differ from one re-deal to the next are hidden information the view
        shows (a leak); a field that differs the same way in every re-deal was dropped or
        changed by ``determinize``.

        Raises:
            ContractError: always.
        """
        fields = _view_fields(view)
        differ = [f for f in fields if _pickled(redealt, f) != _pickled(view, f)]
        others = [self.game.determinize(view, rng).view(seat) for _ in range(3)]
        varying = [f for f in differ
                   if any(_pickled(o, f) != _pickled(redealt, f) for o in others)]
        if varying or not differ:
            shown = f" ({', '.join(varying)})" if varying and varying != ["view"] else ""
            raise self.fail("views hide hidden information", f"seat {seat}'s view{shown} "
                            "changed when what it cannot see was re-dealt: the view reaches "
                            "hidden information")
        raise self.fail("determinize consistent with the view", f"the world determinized "
                        f"from seat {seat}'s view shows it another {', '.join(differ)}: "
                        "determinize must keep everything the view shows")

    def _encoding(self, state: State) -> None:
        check = "action encoding round-trips"
        game: Any = self.game
        size = game.num_distinct_actions(self.options)
        legal = state.legal_actions()
        ids = None
        for seat in range(self.n_seats):
            view = state.view(seat)
            got = [game.encode_action(view, a) for a in legal]
            if ids is not None and got != ids:
                raise self.fail(check, f"seat {seat}'s view gives other ids than seat 0's")
            ids = got
            for a, x in zip(legal, got, strict=True):
                if not (isinstance(x, int) and 0 <= x < size):
                    raise self.fail(check, f"action {a!r} has id {x!r}, not an int in "
                                    f"[0, {size})")
                if game.decode_action(view, x) != a:
                    raise self.fail(check, f"id {x} of action {a!r} decodes to "
                                    f"{game.decode_action(view, x)!r}")
        if ids is not None and len(set(ids)) != len(ids):
            raise self.fail(check, "two legal actions share an id")
        self.report.checked[check] += 1


def _view_fields(view: Any) -> list[str]:
    """The names of a view's fields (a NamedTuple's, a dataclass's or its slots); ``["view"]``,
    the whole view, when it has none."""
    names = getattr(type(view), "_fields", None)
    if names is None and dataclasses.is_dataclass(view):
        names = [f.name for f in dataclasses.fields(view)]
    if names is None:
        names = [n for c in type(view).__mro__ for n in getattr(c, "__slots__", ())]
    return list(names) or ["view"]


def _pickled(view: Any, name: str) -> bytes:
    """One field of a view pickled (the whole view for ``"view"``)."""
    return pickle.dumps(view if name == "view" else getattr(view, name, None))


def _first_diff(a: list[Any], b: list[Any]) -> int:
    for k, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return k
    return min(len(a), len(b))
