"""The *1998 ISS* :class:`~balancelab.simulate.core.Game`: seats, record schema, setup,
determinization and evaluation."""

from __future__ import annotations

import functools
from typing import Any, ClassVar

import numpy as np

from balancelab.simulate.core import ColumnType, Game, State, View
from balancelab.simulate.iss.cards import load_cards
from balancelab.simulate.iss.determinize import (
    Rng,
    _fedor_deck,
    _reshuffled,
    _shuffled,
    state_from_view,
)
from balancelab.simulate.iss.evaluate import evaluate as _evaluate
from balancelab.simulate.iss.fedor import FEDOR
from balancelab.simulate.iss.rules import IssOptions
from balancelab.simulate.iss.state import IssState, IssView, Static
from balancelab.simulate.iss.words import WORDS
from balancelab.simulate.options import RuleOptions


@functools.lru_cache(maxsize=64)
def _static(options: IssOptions) -> Static:
    """The immutable per-variant tables (shared by every game of these options)."""
    return Static(options, load_cards(options.data_dir), FEDOR if options.players == 1 else None)


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
    words = WORDS
    chunk_games = 200
    round_cap = True  # a game ends at the turn cap (end reason "cap")
    default_policies: ClassVar[dict[str, str]] = {"player": "builder"}
    #: :meth:`determinize` also deals from a :class:`~balancelab.simulate.seeding.PcgStream`
    #: (the searches pass one: the same draws as its Generator's, without making it)
    determinize_streams: ClassVar[bool] = True

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

    def encode_actions(self, view: View, actions: Any) -> list[int]:
        """The ids of ``actions`` (legal in the viewed state), in order: one
        :meth:`encode_action` each, from a table of the ids already met."""
        from balancelab.simulate.encoding import by_identity
        from balancelab.simulate.iss.encoding import action_space

        if not isinstance(view, IssView):
            raise TypeError(f"expected an IssView, got {type(view).__name__}")
        return by_identity(view.st, action_space).encode_all(actions)

    def decode_action(self, view: View, index: int) -> Any:
        """The engine action of id ``index`` (inverse of :meth:`encode_action`)."""
        from balancelab.simulate.iss.encoding import action_space

        if not isinstance(view, IssView):
            raise TypeError(f"expected an IssView, got {type(view).__name__}")
        return action_space(view.st).decode(index)

    def reshuffle_piles(self, state: State, rng: np.random.Generator) -> None:
        """Re-deal, in place, the face-down cards in no hand: each experiment deck (but for
        the cards some player saw put under it, which keep their places: ``IssState.eknow``),
        the module deck and the FEDOR deck shuffled (its top card one of those with the back
        the players see, chosen uniformly), each nation's shuttle deck pooled with its cards
        removed by ``remove_shuttles`` and dealt back at both sizes. The deal depends on the
        piles' cards, those known places and ``rng`` only, not on the piles' order before;
        hands and the board are untouched.

        Raises:
            TypeError: ``state`` is not an :class:`IssState`.
        """
        if not isinstance(state, IssState):
            raise TypeError(f"expected an IssState, got {type(state).__name__}")
        state.edeck = [_reshuffled(d, state.eknow, rng) for d in state.edeck]
        state.mdeck = _shuffled(sorted(state.mdeck), rng)
        for r in (0, 1):
            pool = _shuffled(sorted(state.sdeck[r] + state.removed[r]), rng)
            k = len(state.sdeck[r])
            state.sdeck[r], state.removed[r] = pool[:k], pool[k:]
        if state.fdeck:
            fedor = state.st.cards.fedor
            state.fdeck = _fedor_deck(sorted(state.fdeck), fedor[state.fdeck[-1]].back,
                                      fedor, rng)
        state._legal = None

    def determinize(self, view: View, rng: Rng) -> State:
        """A full state consistent with ``view``: hidden hands and deck orders re-dealt.

        Other players' hands keep their sizes and levels; experiment decks keep their sizes;
        the module, shuttle and FEDOR decks are reshuffled from the cards the seat has not seen
        (the FEDOR deck keeps the visible back of its top card when possible).
        """
        assert isinstance(view, IssView)
        return state_from_view(view, rng)



GAME = IssGame()
