"""A seat's view as a fixed-shape numeric vector (the observation of the adapters).

Each field of the view (``View._fields``, in order) is flattened to numbers — an int or bool is
one number, ``None`` is ``-1``, a tuple or list is its length followed by its items (nested
the same way), a set its length and sorted items, a dict its sorted items, strings and
objects (the rule options, the card tables) are left out — and written into its own block of
the vector, padded with zeros. A
block keeps its place whatever the state, so position ``k`` means the same field in every
observation; a length prefix makes the flattening reversible.

Block sizes (:data:`LAYOUTS`) are per game. A field of fixed length at the largest seat count
gets exactly its size; a field whose length varies in play (hands, the compartments of the
ISS, the ALIENS on the board…) gets the greatest length seen in random games of the largest
seat counts, times 1.5, plus 4 (:func:`measure`), or a bound from the rules for what random
play does not reach (Obcy's missions). These are generous bounds for the rule options a study
uses, not proofs for every option value: a view that does not fit (say ISS with
``hand_max=10``) raises :class:`ObservationOverflowError` naming the field, never a silently
cut vector.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from balancelab.simulate.core import Game, View
from balancelab.simulate.options import RuleOptions

#: game → field → numbers reserved for it (0: the field holds no numbers).
LAYOUTS: dict[str, dict[str, int]] = {
    "odyssey": {
        "seat": 1, "phase": 1, "roles": 6, "pos": 6, "hand": 36, "hand_n": 6,
        "hal_revealed": 10, "malfunctions": 5, "doors": 9, "marker": 1, "sequences": 1,
        "logic_trashed": 1, "crew_trash": 21, "hal_trash": 15, "crew_draw_n": 1,
        "crew_discard_n": 1, "hal_draw_n": 1, "hal_discard_n": 1, "monolith": 1,
        "crew_turns": 1, "actor": 1, "used": 1, "repair_open": 1, "start_pos": 1,
        "talk": 6, "lipread": 1, "stack": 37, "options": 0, "closed_mask": 1,
        "looking_at": 21,
    },
    # hands: 12 numbers hold ``hand_max`` up to 10; their levels 45 (4 players x 10)
    "iss": {
        "seat": 1, "player": 1, "st": 0, "phase": 1, "turn_player": 1, "sp": 1, "final":
        1, "triggered": 1, "turns": 1, "rows": 9, "col": 5, "colc": 30, "mdeck_n": 1,
        "ctype": 36, "ccover": 36, "cocc": 36, "cmod": 36, "pool": 1, "unity": 12,
        "earth": 12, "pad": 3, "cd": 3, "sha": 18, "shm": 18, "sdeck_n": 3, "iss": 12,
        "ext": 12, "ls": 12, "tok": 12, "pgoals": 15, "offer": 12, "owned": 25, "hand":
        12, "hand_sizes": 12, "hand_levels": 45, "done": 18, "xsp": 9, "res": 12,
        "edeck_n": 4, "drawn": 9, "xq": 12, "fdisc": 16, "fdeck_n": 1, "fnext_back": 1,
        "launches": 3, "extra_used": 1, "docked": 21, "removed_n": 3, "on_card": 1,
        "cur_action": 1, "goal_step": 1, "keep_extra": 1, "fpick": 9, "fcont": 1,
    },
    # missions and collapsed spaces, which random play never reaches: one per mission card
    # (20) and 20 collapsed spaces (the charges of the box are 4); pockets for the option's
    # greatest value (6 characters of 10 pockets: 67)
    "obcy": {
        "seat": 1, "decision": 1, "round": 1, "active": 1, "alien": 1, "retreat": 10,
        "c_pos": 7, "c_state": 7, "c_str": 7, "c_max": 7, "c_ap": 7, "c_pk": 67,
        "c_done": 7, "c_fired": 7, "c_stopped": 7, "c_left": 7, "c_track": 7, "c_exit":
        7, "a_id": 90, "a_pos": 90, "a_str": 90, "floor": 103, "supply": 11, "used": 11,
        "tr_pos": 1, "tr_fuel": 1, "tr_moved": 1, "collapsed": 21, "open_missions": 21,
        "n_open": 1, "deck_left": 1, "done_missions": 21, "discarded": 21,
        "n_discarded": 1, "points": 1, "queen_alive": 1, "hatching_on": 1, "hatch_pts":
        1, "kills_phase": 1, "shot_at": 7, "options": 0, "stats": 31, "machine": 109,
    },
}

#: the largest integer a float32 observation holds exactly
_EXACT = 2**24


class ObservationOverflowError(ValueError):
    """A view holds more numbers in one field than the game's layout reserves."""


def flatten(value: Any, out: list[float]) -> None:
    """Append the numbers of ``value`` to ``out`` (see the module docstring)."""
    if isinstance(value, bool | int | float | np.integer | np.floating):
        out.append(float(value))
    elif value is None:
        out.append(-1)
    elif isinstance(value, tuple | list):
        out.append(len(value))
        if all(type(v) is int for v in value):  # the common case, at once
            out.extend(value)
        else:
            for v in value:
                flatten(v, out)
    elif isinstance(value, set | frozenset):
        out.append(len(value))
        for v in sorted(value):
            flatten(v, out)
    elif isinstance(value, dict):
        items = sorted(value.items())
        out.append(len(items))
        for k, v in items:
            flatten(k, out)
            flatten(v, out)
    # strings and other objects (rule options, card tables): no numbers


class ViewEncoder:
    """Encodes one game's views into vectors of a fixed shape.

    Args:
        game: the game; its layout is ``LAYOUTS[game.name]``.

    Raises:
        KeyError: the game has no layout (the message names the games that have one).
    """

    def __init__(self, game: Game) -> None:
        layout = LAYOUTS.get(game.name)
        if layout is None:
            raise KeyError(f"no observation layout for game {game.name!r}; "
                           f"games with one: {', '.join(sorted(LAYOUTS))}")
        self.game = game
        self.fields = tuple(layout)
        self.slots = tuple(layout.values())
        self.starts = tuple(int(x) for x in np.cumsum((0, *self.slots[:-1])))
        self.size = sum(self.slots)
        self.shape = (self.size,)

    def encode(self, view: View) -> np.ndarray:
        """The view as a float32 vector of shape :attr:`shape`.

        Raises:
            ObservationOverflowError: a field needs more numbers than its block, or holds a
                number a float32 cannot keep exactly.
        """
        fields = type(view)._fields  # type: ignore[attr-defined]
        if fields != self.fields:
            raise ObservationOverflowError(
                f"{type(view).__name__} fields {fields} differ from the layout's {self.fields}")
        vec = np.zeros(self.size, dtype=np.float32)
        buf: list[float] = []
        for name, start, slots in zip(self.fields, self.starts, self.slots, strict=True):
            buf.clear()
            flatten(getattr(view, name), buf)
            if len(buf) > slots:
                raise ObservationOverflowError(
                    f"{self.game.name}: view field {name!r} holds {len(buf)} numbers; "
                    f"its block has {slots} (balancelab.interop.observation.LAYOUTS)")
            if buf:
                vec[start:start + len(buf)] = buf
        if np.abs(vec).max(initial=0.0) > _EXACT:
            raise ObservationOverflowError(f"{self.game.name}: a view number exceeds 2**24")
        return vec


def measure(game: Game, options: Iterable[RuleOptions], games: int, seed: int = 0
            ) -> dict[str, int]:
    """The block sizes of a layout for ``game`` from random games (how :data:`LAYOUTS` was
    made): per field, its length if fixed, else ``ceil(1.5 * longest) + 4``."""
    lo: dict[str, int] = {}
    hi: dict[str, int] = {}
    fields: tuple[str, ...] = ()
    rng = np.random.default_rng(seed)
    for opts in options:
        for _ in range(games):
            s = game.new_initial_state(opts, np.random.default_rng(int(rng.integers(2**32))))
            while True:
                seats = range(len(game.seats(opts)))
                for k in seats:
                    v = s.view(k)
                    fields = type(v)._fields  # type: ignore[attr-defined]
                    for f in fields:
                        buf: list[float] = []
                        flatten(getattr(v, f), buf)
                        lo[f] = min(lo.get(f, len(buf)), len(buf))
                        hi[f] = max(hi.get(f, 0), len(buf))
                if s.is_terminal():
                    break
                legal = s.legal_actions()
                s.apply(legal[int(rng.integers(len(legal)))])
    return {f: hi[f] if lo[f] == hi[f] else math.ceil(1.5 * hi[f]) + 4 for f in fields}
