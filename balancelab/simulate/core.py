"""The engine contract every game follows, and the seeding of its chance.

A game is static facts (:class:`Game`: seats, sides, options type, record schema) plus a
mutable :class:`State`. The runner, the trace printer, the random policy and the search policy
work on any game through this contract alone (and play it with the one game loop,
:func:`balancelab.simulate.play.play`):

=====================================  =================================================
``Game.new_initial_state(options, rng)``  a fresh game; ``rng`` drives every chance event
``State.current_seat``                   index of the seat to decide (``-1`` when terminal)
``State.legal_actions()``                the legal actions (a non-empty list until the end)
``State.apply(action)``                  play one action; an illegal one raises
                                         :class:`IllegalActionError`
``State.copy()``                         an independent copy (rng state included)
``State.view(seat)``                     what that seat may know, nothing more
``State.is_terminal()``                  True once the game is over
``State.result()``                       the :class:`GameRecord` of a finished game
``State.action_text(action)``            the action in the rulebook's words (for ``trace``)
=====================================  =================================================

Actions are small immutable values (ints or tuples of ints) so that they hash, compare and
pickle cheaply. Chance uses only the state's own ``numpy.random.Generator``; each seat's policy
gets its own stream (see :func:`game_streams`), so changing a policy never changes the shuffles
and dice, and rule variants can be compared on common random numbers. A seat's stream is
seeded by a one-way key (:func:`seat_key`): nothing reachable from it gives the run seed, the
game index or the rules' stream.

This module is compiled with mypyc by ``pip install`` (see :mod:`balancelab.build`). Games
written in plain Python subclass :class:`View`, :class:`State` and :class:`Game` as usual; a
State subclass sets ``current_seat`` and ``rng`` as attributes (they belong to the compiled
base: do not list them in ``__slots__``; ``rng`` is a property, and ``copy()`` hands it on
with :meth:`State.copy_rng_to`), and values must have their declared types (a numpy
integer where an ``int`` is declared raises ``TypeError``).
"""

from __future__ import annotations

import abc
import copy
import hashlib
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final, Literal

import numpy as np
from mypy_extensions import mypyc_attr
from numpy.random import Generator, default_rng
from numpy.random.bit_generator import ISeedSequence

from balancelab.simulate.options import RuleOptions
from balancelab.simulate.seeding import seeded_generator
from balancelab.simulate.words import Words

Action = Hashable

#: The type of one record column: boolean, signed integer of 8-64 bits, float64 or string.
#: Games name column types this way so that engines (and the runner's workers) never import
#: polars; the runs map them to polars/parquet dtypes (``runs.tables.POLARS_TYPES``).
ColumnType = Literal["bool", "i8", "i16", "i32", "i64", "f64", "str"]


class IllegalActionError(ValueError):
    """An action was applied that is not among the state's legal actions."""


@dataclass
class GameRecord:
    """What one finished game reports.

    Attributes:
        winner: the winning side (team games: ``"hal"``, ``"crew"``…) or seat name (iss),
            ``"tie"`` when the rules share the win, ``"draw"`` where the rules call it a draw,
            ``""`` when the game was stopped by the round cap.
        end_reason: why the game ended, in the rulebook's terms (``"lif_terminated"``,
            ``"third_sequence"``, ``"cap"`` …).
        rounds: completed rounds (game-specific unit, documented per game).
        measures: game-specific columns, matching ``Game.measure_schema``.
        seat_rows: one dict per seat matching ``Game.seat_schema`` (games with per-seat scores),
            else empty.
    """

    winner: str
    end_reason: str
    rounds: int
    measures: dict[str, Any] = field(default_factory=dict)
    seat_rows: list[dict[str, Any]] = field(default_factory=list)


@mypyc_attr(allow_interpreted_subclasses=True)
class View(abc.ABC):  # noqa: B024 - a marker base; games add their own read-only fields
    """What one seat may know. Games subclass it with read-only fields.

    A view holds copies or immutable values only, never a reference to the state, so a policy
    cannot reach hidden information through it. Every view has a ``seat`` field (the viewing
    seat), declared by the subclass.
    """


@mypyc_attr(allow_interpreted_subclasses=True)
class State(abc.ABC):
    """A game in progress. See the module docstring for the contract."""

    current_seat: int
    #: The rules' Generator, when this state holds one (else None: see :attr:`rng`).
    _rng_live: Any
    #: A snapshot ``(bit generator type, bit generator state)`` to build the Generator from on
    #: first use, or None when ``_rng_live`` holds it.
    _rng_snap: tuple[Any, Any] | None

    @property
    def rng(self) -> np.random.Generator:
        """The state's own Generator: every chance event draws from it.

        A copy does not build its Generator when it is made (:meth:`copy_rng_to`): it keeps
        a snapshot of its parent's and builds the Generator from it on the first draw, so a
        copy that is played without chance, or copied again, costs no Generator at all.
        """
        g = self._rng_live
        if g is None:
            snap = self._rng_snap
            assert snap is not None
            g = self._rng_live = _generator_from(snap)
            self._rng_snap = None  # the Generator may draw now: the snapshot is stale
        return g

    @rng.setter
    def rng(self, rng: np.random.Generator) -> None:
        self._rng_live = rng
        self._rng_snap = None

    def copy_rng_to(self, other: State) -> None:
        """Give ``other`` (a copy being made by :meth:`copy`) a Generator in this state's
        rng state, independent of this one: both then draw the same numbers.

        Neither Generator is built here. This state's rng state is snapshotted once, and both
        states build their Generator from the snapshot at their next draw; further copies of
        a state that has not drawn since share the same snapshot for free. (A search copies
        one sampled world once per candidate action: the rng state is read once.)
        """
        snap = self._rng_snap
        if snap is None:
            g = self._rng_live
            if not isinstance(g, Generator):  # a test's stand-in: copy it plainly
                other.rng = copy.deepcopy(g)
                return
            snap = self._rng_snap = (type(g.bit_generator), g.bit_generator.state)
            self._rng_live = None
        other._rng_live = None
        other._rng_snap = snap

    @abc.abstractmethod
    def legal_actions(self) -> list[Action]:
        """The legal actions of ``current_seat``; non-empty until the game is over."""

    @abc.abstractmethod
    def _apply(self, action: Action) -> None:
        """Play an action known to be legal (the hot path; no checks)."""

    def apply(self, action: Action) -> None:
        """Play ``action`` for the current seat.

        Raises:
            IllegalActionError: the game is over, or the action is not legal now; the message
                lists the legal actions in the rulebook's words.
        """
        if self.is_terminal():
            raise IllegalActionError("the game is over; no action can be applied")
        legal = self.legal_actions()
        if action not in legal:
            shown = "; ".join(self.action_text(a) for a in legal[:12])
            more = f" (+{len(legal) - 12} more)" if len(legal) > 12 else ""
            raise IllegalActionError(
                f"illegal action {action!r} for seat {self.current_seat}; legal: {shown}{more}"
            )
        self._apply(action)

    @abc.abstractmethod
    def copy(self) -> State:
        """An independent copy; both evolve identically under the same actions."""

    @abc.abstractmethod
    def view(self, seat: int) -> View:
        """What ``seat`` may know (own hand, public piles, counts of hidden cards)."""

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True once the game has ended (including by the round cap)."""

    @abc.abstractmethod
    def result(self) -> GameRecord:
        """The record of a finished game. Raises ``RuntimeError`` before the end."""

    def action_text(self, action: Action) -> str:
        """The action in the rulebook's words (used by ``trace`` and error messages)."""
        return repr(action)

    def stop_recording(self) -> None:
        """Keep no public record of past decisions for views from now on (the game loop
        calls it when no seated policy reads one: :attr:`Policy.reads_history`). The game
        plays the same; only what views carry of the past is left out. Optional: a game
        whose views carry no such record ignores it."""
        return None

    def events(self) -> list[str]:
        """Rule events since the last call (draws, terminations…), for ``trace``. Optional."""
        return []


@mypyc_attr(allow_interpreted_subclasses=True)
class Game(abc.ABC):
    """Static facts of one game, and its factory of states.

    Class attributes:
        name: registry name (``odyssey``).
        title: the box title.
        version: bumped whenever rules behaviour changes; recorded in every row.
        options_type: the game's :class:`RuleOptions` subclass.
        sides: the sides a policy can be assigned to (``("hal", "crew")``).
        outcomes: every value ``GameRecord.winner`` can take, for analysis.
        measure_schema: the game's own measure columns, in table order, with their
            :data:`ColumnType` (``{"turns": "i32", "end_nation": "str"}``).
        seat_schema: the per-seat table's columns and :data:`ColumnType` (empty when the game
            has none).
        words: column → :class:`~balancelab.simulate.words.Words` (words, unit, meaning, the
            values' words) of the game's measures, seat columns, key options, seats and end
            reasons: what reports, plots and ``games`` print instead of column names.
        chunk_games: games per runner chunk (sized so a chunk takes ~0.2–2 s on one core).
        default_policies: side → policy name used when the user names none.
        round_cap: True for a game that may stop a game at a round (or turn) cap, with
            ``winner`` ``""``; reports then show the share of such games even at 0 (a game
            without a cap shows it only if one was capped).
        beliefs: the ways :meth:`determinize` can deal what a seat cannot see, the first
            (``uniform``: at random) the default; a game offering more takes the others as its
            ``belief`` keyword (2001: ``hal-model``, HAL's hand weighted by its public plays).
    """

    name: ClassVar[str]
    title: ClassVar[str]
    version: ClassVar[str]
    options_type: ClassVar[type[RuleOptions]]
    sides: ClassVar[tuple[str, ...]]
    outcomes: ClassVar[tuple[str, ...]]
    measure_schema: ClassVar[dict[str, ColumnType]]
    seat_schema: ClassVar[dict[str, ColumnType]] = {}
    words: ClassVar[dict[str, Words]] = {}
    chunk_games: ClassVar[int] = 500
    default_policies: ClassVar[dict[str, str]]
    round_cap: ClassVar[bool] = False
    beliefs: ClassVar[tuple[str, ...]] = ("uniform",)

    @abc.abstractmethod
    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        """Seat names in seat-index order (``("hal", "bowman", "poole", "hunter")``)."""

    @abc.abstractmethod
    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        """The side a seat plays for."""

    @abc.abstractmethod
    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> State:
        """A new game after setup; every chance event draws from ``rng``."""

    def possible_outcomes(self, options: RuleOptions) -> tuple[str, ...]:
        """The ``winner`` values a game with these options can end with (cap aside).

        Defaults to :attr:`outcomes`; a game whose seats depend on its options narrows it.
        """
        return self.outcomes

    def evaluate(self, state: State, seat: int) -> float | None:
        """A cheap estimate in [0, 1] of ``seat``'s side winning from an unfinished ``state``.

        Optional: the search policy scores a playout cut at its depth with it; ``None`` (the
        default) means no estimate, and the cut playout counts as 0.5.
        """
        return None

    def settled(self, state: State) -> bool:
        """Whether a playout may be cut at ``state`` and scored by :meth:`evaluate`: False
        inside a turn whose effects are resolved only at its end (Obcy's ALIENS attack after
        all of them have moved), where the estimate cannot yet see what the turn's moves
        did. The default, True, allows a cut anywhere.
        """
        return True

    def reshuffle_piles(self, state: State, rng: np.random.Generator) -> None:
        """Re-deal, in place, the face-down cards that are in no hand (draw piles, hidden
        discards, cards set aside) among those piles, keeping each pile's size; hands and
        everything face up stay. ``oracle:sees=hands`` plays on such worlds: every hand
        known, the deck order not.

        Raises:
            NotImplementedError: the game does not offer it.
        """
        raise NotImplementedError(f"game {self.name!r} cannot re-deal its piles")

    def determinize(self, view: View, rng: np.random.Generator) -> State:
        """A full state consistent with ``view``: hidden cards re-dealt at random.

        Used by the search policy. Games that support it override this.

        Raises:
            NotImplementedError: the game does not offer determinization.
        """
        raise NotImplementedError(f"game {self.name!r} does not support determinization")


# -- seeding --------------------------------------------------------------------------------

#: Stream index of the rules' chance within a game's SeedSequence.
RULES_STREAM: Final = 0
#: BLAKE2b personalisation of the seat keys (keeps them apart from any other use of the hash).
_SEAT_PERSON: Final = b"balancelab-seat"


def rules_stream(run_seed: int, game_index: int) -> np.random.Generator:
    """The Generator of the rules' chance in one game: ``SeedSequence(run_seed,
    spawn_key=(game_index, 0))``. Game *i* of every variant of a run gets the same stream
    (common random numbers: variants are compared on the same shuffles and dice). Made by
    :func:`~balancelab.simulate.seeding.seeded_generator`: the same stream bit for bit,
    without numpy's per-seed cost (about 96,000 instructions a game)."""
    return seeded_generator(run_seed, (game_index, RULES_STREAM))


def seat_key(run_seed: int, game_index: int, seat: int) -> int:
    """The entropy of seat ``seat``'s Generator in one game: a 256-bit BLAKE2b digest of
    ``(run_seed, game_index, seat)``, an int in ``[0, 2**256)``.

    A one-way function, so that a policy cannot rebuild the rules' stream (and so the deal)
    from its own Generator: neither the run seed nor the game index can be read back from the
    key, and the key is not the rules' SeedSequence (whose hash is not one-way). Like any
    reproducible seeding it does not stop a policy that guesses small run seeds and plays the
    setups through; policies are trusted to read their view only."""
    return _seat_key(_game_hash(run_seed, game_index), seat)


def seat_keys(run_seed: int, game_index: int, n_seats: int) -> list[int]:
    """``[seat_key(run_seed, game_index, k) for k in range(n_seats)]``, hashing the game's
    part of the message once (BLAKE2b is a stream: the digests are the same)."""
    game = _game_hash(run_seed, game_index)
    return [_seat_key(game, k) for k in range(n_seats)]


#: BLAKE2b set up for the seat keys; copied rather than set up again for each (cheaper).
_SEAT_HASH: Any = hashlib.blake2b(digest_size=32, person=_SEAT_PERSON)


def _game_hash(run_seed: int, game_index: int) -> Any:
    """The seat keys' BLAKE2b fed ``"{run_seed},{game_index},"``."""
    h = _SEAT_HASH.copy()
    h.update(f"{run_seed},{game_index},".encode())
    return h


def _seat_key(game: Any, seat: int) -> int:
    """The key of seat ``seat`` from its game's :func:`_game_hash` (which is not changed)."""
    h = game.copy()
    h.update(str(seat).encode())
    return int.from_bytes(h.digest(), "little")


def seat_generator(key: int) -> np.random.Generator:
    """The seat Generator of a :func:`seat_key`: ``default_rng(key)``; its
    ``bit_generator.seed_seq`` holds the key as entropy and an empty spawn key."""
    return default_rng(key)


def seat_stream(run_seed: int, game_index: int, seat: int) -> np.random.Generator:
    """The Generator of seat ``seat``'s policy in one game:
    ``seat_generator(seat_key(run_seed, game_index, seat))``."""
    return seat_generator(seat_key(run_seed, game_index, seat))


def game_streams(
    run_seed: int, game_index: int, n_seats: int
) -> tuple[np.random.Generator, list[np.random.Generator]]:
    """The rules' Generator and one Generator per seat for one game (:func:`rules_stream`,
    :func:`seat_stream`)."""
    return (rules_stream(run_seed, game_index),
            [seat_stream(run_seed, game_index, k) for k in range(n_seats)])


class _NoEntropy:
    """A seed sequence that asks the operating system for nothing: all-zero seed words. A
    bit generator built from it is overwritten with a real state at once (:func:`copy_generator`);
    the default constructor would first read OS entropy and hash it through a SeedSequence,
    which cost 70-90% of a ``State.copy()``."""

    def generate_state(self, n_words: int, dtype: Any = np.uint32) -> Any:
        return np.zeros(n_words, dtype=dtype)


ISeedSequence.register(_NoEntropy)  # what a bit generator's constructor accepts as a seed
_NO_ENTROPY: Final = _NoEntropy()


def _generator_from(snap: tuple[Any, Any]) -> np.random.Generator:
    """A Generator of bit generator type ``snap[0]`` in the state ``snap[1]``."""
    bit_generator = snap[0](_NO_ENTROPY)
    bit_generator.state = snap[1]
    return Generator(bit_generator)


def copy_generator(rng: np.random.Generator) -> np.random.Generator:
    """An independent Generator in the same state as ``rng``: both then draw the same
    numbers. Seeds nothing from the operating system. (Engines' ``copy()`` use the cheaper
    :meth:`State.copy_rng_to`.)"""
    return _generator_from((type(rng.bit_generator), rng.bit_generator.state))


#: A Generator a ``copy()`` may pass to a constructor that requires one, before
#: :meth:`State.copy_rng_to` replaces it (never drawn from).
PLACEHOLDER_RNG: Final = Generator(np.random.PCG64(0))
