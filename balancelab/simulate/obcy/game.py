"""The Obcy :class:`~balancelab.simulate.core.Game`: seats, record schema, determinization."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from balancelab.simulate.core import ColumnType, Game, State, View
from balancelab.simulate.obcy.determinize import state_from_view
from balancelab.simulate.obcy.rules import CHARACTER_NAMES, ObcyOptions
from balancelab.simulate.obcy.state import ObcyState, ObcyView
from balancelab.simulate.obcy.state import settled as stage_settled
from balancelab.simulate.obcy.words import WORDS
from balancelab.simulate.options import RuleOptions

SEATS = ("expedition", "aliens")


class ObcyGame(Game):
    """Obcy (Aliens), Gambit: one expedition player against the ALIENS player."""

    name = "obcy"
    title = "Obcy (Aliens)"
    version = "6"
    options_type = ObcyOptions
    sides = SEATS
    outcomes = ("expedition", "aliens", "draw", "")
    measure_schema: ClassVar[dict[str, ColumnType]] = {
        "tasks_completed": "i16",
        "points_at_end": "i16",
        "queen_fights": "i16",
        "queen_killed": "bool",
        "queen_round": "i16",
        "hatching_after_queen": "bool",
        "survivors": "i8",
        "characters_killed": "i8",
        "aliens_hatched": "i16",
        "alien_strength_hatched": "i16",
        "aliens_killed": "i16",
        "aliens_merged": "i16",
        "aliens_on_board": "i16",
        "missions_drawn": "i16",
        "missions_discarded": "i16",
        "shots_fired": "i16",
        "grenades_thrown": "i16",
        "charges_used": "i16",
        "transporter_moves": "i16",
        "airlock_exits": "i16",
        **{f"alive_{n.lower()}": "bool" for n in CHARACTER_NAMES},
    }
    words = WORDS
    chunk_games = 25
    round_cap = True  # the max_rounds option
    default_policies: ClassVar[dict[str, str]] = {"expedition": "dash", "aliens": "hunter"}

    def seats(self, options: RuleOptions) -> tuple[str, ...]:
        return SEATS

    def side_of_seat(self, options: RuleOptions, seat: int) -> str:
        return SEATS[seat]

    def new_initial_state(self, options: RuleOptions, rng: np.random.Generator) -> State:
        assert isinstance(options, ObcyOptions)
        return ObcyState(options, rng)

    def evaluate(self, state: State, seat: int) -> float:
        """The estimated chance in (0, 1) that ``seat`` wins from an unfinished ``state``:
        task progress and strength left, discounted toward the round cap
        (``balancelab.simulate.obcy.evaluate``; rulebook: 7., 8., 10., 11.)."""
        from balancelab.simulate.obcy.evaluate import evaluate

        assert isinstance(state, ObcyState)
        return evaluate(state, seat)

    def num_distinct_actions(self, options: RuleOptions) -> int:
        """The size of the action id space (:mod:`balancelab.simulate.obcy.encoding`)."""
        from balancelab.simulate.obcy.encoding import action_space

        if not isinstance(options, ObcyOptions):
            raise TypeError(f"expected ObcyOptions, got {type(options).__name__}")
        return action_space(options).ops.size

    def encode_action(self, view: View, action: Any) -> int:
        """The id of ``action`` in ``[0, num_distinct_actions)``; an ALIEN is named by its
        place in the public ALIEN list (:mod:`balancelab.simulate.obcy.encoding`)."""
        from balancelab.simulate.obcy.encoding import action_space

        if not isinstance(view, ObcyView):
            raise TypeError(f"expected an ObcyView, got {type(view).__name__}")
        return action_space(view.options).encode(view, action)

    def encode_actions(self, view: View, actions: Any) -> list[int]:
        """The ids of ``actions`` (legal in the viewed state), in order: one
        :meth:`encode_action` each, those naming no ALIEN from a table of the ids met."""
        from balancelab.simulate.encoding import by_identity
        from balancelab.simulate.obcy.encoding import action_space

        if not isinstance(view, ObcyView):
            raise TypeError(f"expected an ObcyView, got {type(view).__name__}")
        return by_identity(view.options, action_space).encode_all(view, actions)

    def decode_action(self, view: View, index: int) -> Any:
        """The engine action of id ``index`` (inverse of :meth:`encode_action`)."""
        from balancelab.simulate.obcy.encoding import action_space

        if not isinstance(view, ObcyView):
            raise TypeError(f"expected an ObcyView, got {type(view).__name__}")
        return action_space(view.options).decode(view, index)

    #: :meth:`Game.settled`: False during the ALIENS phase (:func:`state.settled`, compiled:
    #: the searches ask it at every step of a playout)
    settled = staticmethod(stage_settled)

    def reshuffle_piles(self, state: State, rng: np.random.Generator) -> None:
        """Re-deal, in place, the face-down cards in no hand: the mission deck shuffled (its
        order before does not matter); the open and discarded missions and the board are
        untouched.

        Raises:
            TypeError: ``state`` is not an :class:`ObcyState`.
        """
        if not isinstance(state, ObcyState):
            raise TypeError(f"expected an ObcyState, got {type(state).__name__}")
        deck = sorted(state.deck)
        state.deck = [deck[int(i)] for i in rng.permutation(len(deck))]

    def determinize(self, view: View, rng: np.random.Generator) -> State:
        """A full state consistent with ``view``: the mission deck re-shuffled, and for the
        ALIENS seat the open mission cards re-dealt from the cards it has not seen."""
        assert isinstance(view, ObcyView)
        return state_from_view(view, rng)


