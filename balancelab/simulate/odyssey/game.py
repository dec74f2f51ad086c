"""The odyssey :class:`~balancelab.simulate.core.Game`: seats, sides, schema, determinization."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from balancelab.simulate.core import ColumnType, Game, State, View
from balancelab.simulate.odyssey.determinize import state_from_view
from balancelab.simulate.odyssey.evaluate import evaluate
from balancelab.simulate.odyssey.rules import CREWMEMBERS, OdysseyOptions
from balancelab.simulate.odyssey.state import T_RECOVER_TAKE, OdysseyState, OdysseyView
from balancelab.simulate.odyssey.words import WORDS


class OdysseyGame(Game):
    """2001: A Space Odyssey, the board game (HAL against 2-4 crewmembers)."""

    name: ClassVar[str] = "odyssey"
    title: ClassVar[str] = "2001: A Space Odyssey, the board game"
    version: ClassVar[str] = "3"
    options_type = OdysseyOptions
    sides: ClassVar[tuple[str, ...]] = ("hal", "crew")
    outcomes: ClassVar[tuple[str, ...]] = ("hal", "crew", "")
    measure_schema: ClassVar[dict[str, ColumnType]] = {
        "crew_names": "str",
        "first_crewmember": "str",
        "systems_terminated": "i8",
        "terminated_systems": "str",
        "malfunctions_grv": "i8",
        "malfunctions_mem": "i8",
        "malfunctions_com": "i8",
        "malfunctions_lif": "i8",
        "disconnects": "i8",
        "hal_marker": "i8",
        "malfunctions_played": "i16",
        "malfunctions_repaired": "i16",
        "played_grv": "i16",
        "played_mem": "i16",
        "played_com": "i16",
        "played_lif": "i16",
        "repaired_grv": "i16",
        "repaired_mem": "i16",
        "repaired_com": "i16",
        "repaired_lif": "i16",
        "hal_draw_left": "i8",
        "hal_reshuffles": "i16",
        "crew_reshuffles": "i16",
        "doors_closed": "i8",
        "doors_opened": "i8",
        "hal_played_door": "i8",
        "hal_played_target": "i16",
        "hal_played_scan": "i16",
        "hal_played_lipread": "i16",
        "target_hits": "i16",
        "cancels": "i16",
        "recovers": "i16",
        "gives": "i16",
        "hal_turns": "i16",
    }
    words = WORDS
    chunk_games = 200
    round_cap = True  # the max_rounds option
    default_policies: ClassVar[dict[str, str]] = {"hal": "hal-pressure", "crew": "crew-team"}
    beliefs: ClassVar[tuple[str, ...]] = ("uniform", "hal-model")

    def seats(self, options: Any) -> tuple[str, ...]:
        """``("hal", "bowman", ...)``: named crewmembers for a fixed roster, else
        ``("hal", "bowman", "crew2", ...)`` (the companions are drawn per game)."""
        fixed = options.roster_fixed()
        if fixed:
            return ("hal", *fixed)
        return ("hal", "bowman", *(f"crew{i}" for i in range(2, options.crew + 1)))

    def side_of_seat(self, options: Any, seat: int) -> str:
        return "hal" if seat == 0 else "crew"

    def new_initial_state(self, options: Any, rng: np.random.Generator) -> State:
        return OdysseyState.new(options, rng)

    def evaluate(self, state: State, seat: int) -> float:
        """The estimated chance in (0, 1) that ``seat``'s side wins from an unfinished
        ``state``: a logistic of the two sides' progress toward their wins
        (``balancelab.simulate.odyssey.evaluate``; rulebook: End of the Game)."""
        assert isinstance(state, OdysseyState)
        return evaluate(state, seat)

    def num_distinct_actions(self, options: Any) -> int:
        """The size of the action id space (:mod:`balancelab.simulate.odyssey.encoding`)."""
        from balancelab.simulate.odyssey.encoding import action_space

        if not isinstance(options, OdysseyOptions):
            raise TypeError(f"expected OdysseyOptions, got {type(options).__name__}")
        return action_space(options).size

    def encode_action(self, view: View, action: Any) -> int:
        """The id of ``action`` in ``[0, num_distinct_actions)`` (state-independent)."""
        from balancelab.simulate.odyssey.encoding import encode

        if not isinstance(view, OdysseyView):
            raise TypeError(f"expected an OdysseyView, got {type(view).__name__}")
        return encode(view.options, action)

    def encode_actions(self, view: View, actions: Any) -> list[int]:
        """The ids of ``actions`` (legal in the viewed state), in order: one
        :meth:`encode_action` each, from a table of the ids already met."""
        from balancelab.simulate.odyssey.encoding import encode_all

        if not isinstance(view, OdysseyView):
            raise TypeError(f"expected an OdysseyView, got {type(view).__name__}")
        return encode_all(view.options, actions)

    def decode_action(self, view: View, index: int) -> int:
        """The engine action of id ``index`` (inverse of :meth:`encode_action`)."""
        from balancelab.simulate.odyssey.encoding import decode

        if not isinstance(view, OdysseyView):
            raise TypeError(f"expected an OdysseyView, got {type(view).__name__}")
        return decode(view.options, index)

    def reshuffle_piles(self, state: State, rng: np.random.Generator) -> None:
        """Re-deal, in place, the face-down cards in no hand: each deck's Draw and Discard
        piles pooled and dealt back at their sizes (the crew Discard stays while a seat looks
        through it for a RECOVER). The deal depends on the pools' cards and ``rng`` only, not
        on their order before. Hands, HAL's hidden hand, the revealed row, the TRASH and
        the board are untouched.

        Raises:
            TypeError: ``state`` is not an :class:`OdysseyState`.
        """
        if not isinstance(state, OdysseyState):
            raise TypeError(f"expected an OdysseyState, got {type(state).__name__}")
        keep_disc = state.phase == T_RECOVER_TAKE
        pool = sorted(state.crew_draw + ([] if keep_disc else state.crew_disc))
        rng.shuffle(pool)
        if not keep_disc:
            n = len(state.crew_disc)
            state.crew_disc = pool[:n]
            pool = pool[n:]
        state.crew_draw = pool
        hpool = sorted(state.hal_draw + state.hal_disc)
        rng.shuffle(hpool)
        n = len(state.hal_disc)
        state.hal_disc, state.hal_draw = hpool[:n], hpool[n:]

    def determinize(self, view: View, rng: np.random.Generator,
                    belief: str = "uniform") -> State:
        """A full state consistent with ``view``: every card the seat cannot see re-dealt at
        random (other hands, HAL's hidden hand, both Draw and Discard piles), each pile and
        hand keeping its public size; the card multiset is preserved. HAL cards seen going
        into the HAL Discard since its last reshuffle stay there (``hal_discard_seen``). What
        the crew announce (``crew_talk``, heard by every seat: design notes 1(c)19) stays
        where it is: under ``open`` each crewmember's whole hand, under ``logic`` its Logic
        cards, the rest of that hand then dealt from the other cards.

        Args:
            view: an :class:`OdysseyView`.
            rng: source of the re-deal; the new state's own Generator is spawned from it.
            belief: how a crewmember deals HAL's hidden hand: ``uniform`` (at random from the
                HAL cards it cannot place) or ``hal-model`` (weighted by HAL's public plays,
                reveals and discards under a model of HAL:
                :mod:`balancelab.policies.odyssey.belief`). HAL's own worlds ignore it.

        Raises:
            TypeError: ``view`` is not an :class:`OdysseyView`.
            ValueError: an unknown ``belief``.
        """
        if not isinstance(view, OdysseyView):
            raise TypeError(f"expected an OdysseyView, got {type(view).__name__}")
        if belief == "uniform" or view.seat == 0:
            return state_from_view(view, rng)
        if belief != "hal-model":
            raise ValueError(f"odyssey: unknown belief {belief!r}; choose one of "
                             f"{', '.join(self.beliefs)}")
        from balancelab.policies.odyssey.belief import hal_belief

        return state_from_view(view, rng, hal_belief(self, view).sample(view, rng))


GAME = OdysseyGame()
__all__ = ["GAME", "OdysseyGame", "CREWMEMBERS"]
