"""*1998 ISS* (Looping Games, 2022): rules engine, FEDOR solo bot and records.

Rulebook: ../shared/rulebooks/iss-1998.txt. Missing data and rulings: ../shared/design/iss.md
(every ASSUMED value is a rule option or a row of ``balancelab/data/iss_*.toml``).

=================  ==========================================================================
seats              ``seat0`` … ``seat{n-1}`` clockwise, ``seat0`` = start player; all on side
                   ``player``. Solo (``players=1``): one seat ``seat0``; FEDOR is part of the
                   rules (no seat, no policy) and the start player is drawn (``solo_start``).
decisions          per turn, only where there is a real choice: cargo-check pad, extra action
                   (or pass), cube to take back when the reserve is empty, the normal action
                   with its parameters (one tuple, see ``engine``), experiments to keep,
                   countdown pad, extra-action space after a launch (any seat may be asked),
                   goal card when several are met; solo ``fedor_choice=human``: FEDOR's token.
chance             action-card columns, module deck, shuttle decks (and the removed cards),
                   goal cards, experiment decks, start player (solo), FEDOR deck: all from the
                   state's Generator.
end conditions     the last shuttle of a nation is placed after a launch → the round is
                   finished, then a final round without module cubes or countdown; end reason
                   ``last_shuttle``; ``max_turns`` reached → ``cap`` (winner ``""``).
winner             the seat with most points, ties broken by most experiments, else ``tie``;
                   solo: ``seat0``, ``fedor`` or ``tie``.
rounds             ``turns // np`` where np counts FEDOR in solo (completed rounds, final
                   round included).
options            ``players`` 1-4 and ``remove_shuttles`` (key); ``fedor_choice``,
                   ``fedor_extra_recall`` and ``goal_timing`` (rulebook ambiguities); every
                   rulebook number and every assumed number (countdowns, pad sides, long-stay
                   points, goal thresholds, FEDOR numbers…); ``max_turns``; ``data_dir``.
search hooks       ``determinize`` (hidden hands and deck orders re-dealt) and ``evaluate`` (a
                   logistic of the adjusted score lead, ``iss/evaluate.py``) for cut playouts.
version history    1.0 first engine (issue 3).
                   1.1 (issue 12): FEDOR's Install on an extra action counts its astronauts in
                   long stay (Solo Mode: "one installation token for each astronaut it has on
                   the ISS"); new options ``goal_timing`` and ``fedor_extra_recall`` (defaults
                   keep the 1.0 readings); each seat's Generator is seeded by a one-way key
                   (``core.seat_key``: no policy can rebuild the deal), so the games of policies
                   that draw (the scripted players, ``random``) differ from 1.0 for one seed.
=================  ==========================================================================
"""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

from balancelab.simulate.core import ColumnType, Game, State, View
from balancelab.simulate.iss.cards import load_cards
from balancelab.simulate.iss.engine import IssState, IssView, Static
from balancelab.simulate.iss.evaluate import evaluate as _evaluate
from balancelab.simulate.iss.rules import IssOptions
from balancelab.simulate.options import RuleOptions


@functools.lru_cache(maxsize=64)
def _static(options: IssOptions) -> Static:
    """The immutable per-variant tables (shared by every game of these options)."""
    return Static(options, load_cards(options.data_dir))


class IssGame(Game):
    """*1998 ISS* for balancelab."""

    name = "iss"
    title = "1998 ISS"
    version = "1.1"
    options_type = IssOptions
    sides = ("player",)
    outcomes = ("seat0", "seat1", "seat2", "seat3", "fedor", "tie")
    measure_schema: ClassVar[dict[str, ColumnType]] = {
        "turns": "i32",
        "launches_russia": "i16",
        "launches_usa": "i16",
        "launches": "i16",
        "tie_break": "bool",
        "shared_win": "bool",
        "winning_score": "i16",
        "winning_margin": "i16",
        "end_nation": "str",
        "shuttles_removed": "bool",
        "modules_docked": "i16",
        "goals_taken": "i16",
        "extra_actions_won": "i16",
        "fedor_score": "i16",
        "fedor_experiments": "i16",
    }
    seat_schema: ClassVar[dict[str, ColumnType]] = {
        "seat": "i32",
        "score": "i16",
        "tokens": "i16",
        "external": "i16",
        "long_stay": "i16",
        "goals": "i16",
        "shuttles": "i16",
        "experiments": "i16",
        "penalties": "i16",
        "n_experiments": "i16",
        "n_shuttles": "i16",
        "won": "bool",
        "rank": "i8",
    }
    chunk_games = 200
    default_policies: ClassVar[dict[str, str]] = {"player": "builder"}

    def possible_outcomes(self, options: RuleOptions) -> tuple[str, ...]:
        """The seats in play, FEDOR in solo (Solo Mode), and a shared win (tie-break)."""
        seats = self.seats(options)
        return (*seats, "fedor", "tie") if len(seats) == 1 else (*seats, "tie")

    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        assert isinstance(options, IssOptions)
        return tuple(f"seat{k}" for k in range(options.players))

    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        return "player"

    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> IssState:
        assert isinstance(options, IssOptions)
        s = IssState(_static(options), rng)
        s.setup()
        return s

    def evaluate(self, state: State, seat: int) -> float:
        """The estimated chance that ``seat`` wins from an unfinished ``state``: a logistic of
        its adjusted score lead over the best rival (``balancelab.simulate.iss.evaluate``).
        Used by the search policy only, for playouts cut at its depth."""
        assert isinstance(state, IssState)
        return _evaluate(state, seat)

    def num_distinct_actions(self, options: RuleOptions) -> int:
        """The size of the action id space (:mod:`balancelab.simulate.iss.encoding`)."""
        from balancelab.simulate.iss.encoding import action_space

        if not isinstance(options, IssOptions):
            raise TypeError(f"expected IssOptions, got {type(options).__name__}")
        return action_space(_static(options)).ops.size

    def encode_action(self, view: View, action: Any) -> int:
        """The id of ``action`` in ``[0, num_distinct_actions)`` (state-independent)."""
        from balancelab.simulate.iss.encoding import action_space

        if not isinstance(view, IssView):
            raise TypeError(f"expected an IssView, got {type(view).__name__}")
        return action_space(view.st).encode(action)

    def decode_action(self, view: View, index: int) -> Any:
        """The engine action of id ``index`` (inverse of :meth:`encode_action`)."""
        from balancelab.simulate.iss.encoding import action_space

        if not isinstance(view, IssView):
            raise TypeError(f"expected an IssView, got {type(view).__name__}")
        return action_space(view.st).decode(index)

    def determinize(self, view: View, rng: np.random.Generator) -> State:
        """A full state consistent with ``view``: hidden hands and deck orders re-dealt.

        Other players' hands keep their sizes and levels; experiment decks keep their sizes;
        the module, shuttle and FEDOR decks are reshuffled from the cards the seat has not seen
        (the FEDOR deck keeps the visible back of its top card when possible).
        """
        from balancelab.simulate.iss.determinize import determinize

        assert isinstance(view, IssView)
        return determinize(view, rng)


GAME = IssGame()

__all__ = ["GAME", "IssGame", "IssOptions", "IssState", "IssView"]
