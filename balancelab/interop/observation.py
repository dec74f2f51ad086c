"""A seat's view as a fixed-shape numeric vector (the observation of the adapters).

Each field of the view (``View._fields`` or a dataclass view's fields, in order) is flattened
to numbers — an int or bool is one number, ``None`` is ``-1``, a tuple or list is its length
followed by its items (nested the same way), a set its length and sorted items, a dict its
sorted items, strings and objects (the rule options, the card tables) are left out — and
written into its own block of the vector, padded with zeros. A block keeps its place whatever
the state, so position ``k`` means the same field in every observation; a length prefix makes
the flattening reversible.

Block sizes are per game (:func:`layout_of`): the game's own ``observation_layout(options)`` if
it has one, else :data:`LAYOUTS` for the built-in games, else a layout derived from random
games at the options in use (a plug-in game needs no table). For :data:`LAYOUTS`, a field of
fixed length at the largest seat count gets exactly its size; a field whose length varies in
play (hands, the compartments of the ISS, the ALIENS on the board…) gets the greatest length
seen in random games of the largest seat counts, times 1.5, plus 4 (:func:`measure`), or a
bound from the rules for what random play does not reach (Obcy's missions). These are generous
bounds for the rule options a study uses, not proofs for every option value: a view that does
not fit (say ISS with ``hand_max=10``) raises :class:`ObservationOverflowError` naming the
field, never a silently cut vector.
"""

from __future__ import annotations

import dataclasses
import math
import operator
import struct
from collections.abc import Callable, Iterable
from typing import Any, Final

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
        "looking_at": 21, "hal_discard_seen": 15, "crew_discard_seen": 21,
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
        "eknown": 137,
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
        "n_open": 1, "fresh": 21, "n_fresh": 1, "deck_left": 1, "done_missions": 21,
        "discarded": 21, "n_discarded": 1, "points": 1, "queen_alive": 1, "hatching_on": 1,
        "hatch_pts": 1, "kills_phase": 1, "shot_at": 7, "options": 0, "stats": 31, "machine": 109,
    },
}

#: the largest integer a float32 observation holds exactly
_EXACT: Final = 2**24

#: random games played to derive the layout of a game that has none (:func:`layout_of`)
DERIVE_GAMES = 20


class ObservationOverflowError(ValueError):
    """A view holds more numbers in one field than the game's layout reserves."""


def flatten(value: Any, out: list[Any]) -> None:
    """Append the numbers of ``value`` to ``out`` (see the module docstring)."""
    t = type(value)
    if t is int:
        out.append(value)
    elif t is tuple:
        _flatten_items(value, out)
    elif t is bool:
        out.append(1 if value else 0)
    elif t is str:
        pass
    elif isinstance(value, _INTS):
        out.append(int(value))
    elif isinstance(value, _FLOATS):
        out.append(float(value))
    elif value is None:
        out.append(-1)
    elif isinstance(value, _SEQUENCES):
        _flatten_items(tuple(value), out)
    elif isinstance(value, _SETS):
        _flatten_items(tuple(sorted(value)), out)
    elif isinstance(value, dict):
        items = sorted(value.items())
        out.append(len(items))
        for k, v in items:
            flatten(k, out)
            flatten(v, out)
    # strings and other objects (rule options, card tables): no numbers


def _flatten_items(items: tuple[Any, ...], out: list[Any]) -> None:
    """Append the length of ``items``, then the numbers of each (ints and bools inline)."""
    out.append(len(items))
    for v in items:
        t = type(v)
        if t is int:
            out.append(v)
        elif t is bool:
            out.append(1 if v else 0)
        else:
            flatten(v, out)


#: the classes :func:`flatten` writes as one int, one float, a sequence, a set (module-level
#: tuples: an ``A | B`` union in an isinstance call is built anew at each call)
_INTS = (bool, int, np.integer)
_FLOATS = (float, np.floating)
_SEQUENCES = (tuple, list)
_SETS = (set, frozenset)

#: the text of the ints ``-1 .. len - 2`` (:func:`text`)
_TEXT = [str(i) for i in range(-1, 4095)]


def text(numbers: list[Any]) -> str:
    """``numbers`` written out, separated by single spaces: ``" ".join(map(str, numbers))``,
    the common small ints from a table."""
    n = len(numbers)
    parts = [""] * n
    table = _TEXT
    top = len(table) - 1
    for k in range(n):
        x = numbers[k]
        if type(x) is int:
            i: int = x
            if -1 <= i < top:
                parts[k] = table[i + 1]
                continue
        parts[k] = str(x)
    return " ".join(parts)


def action_mask(ids: list[int], size: int) -> np.ndarray:
    """int8 of shape ``(size,)``: 1 at each of ``ids``, 0 elsewhere.

    Raises:
        IndexError: an id outside ``[-size, size)``.
    """
    mask = bytearray(size)
    for i in ids:
        mask[i] = 1
    return np.frombuffer(mask, np.int8)


def view_fields(view_type: type) -> tuple[str, ...]:
    """The field names of a view class, in order: a namedtuple's (or a class declaring
    ``_fields``) or a dataclass's.

    Raises:
        TypeError: the class is neither (the view has no ordered fields to encode).
    """
    fields = getattr(view_type, "_fields", None)
    if isinstance(fields, tuple):
        return fields
    if dataclasses.is_dataclass(view_type):
        return tuple(f.name for f in dataclasses.fields(view_type))
    raise TypeError(f"view class {view_type.__name__} has neither _fields nor dataclass "
                    "fields: the observation encodes a view field by field")


#: (game name, options) → a layout derived by :func:`measure`
_DERIVED: dict[tuple[str, RuleOptions], dict[str, int]] = {}


def layout_of(game: Game, options: RuleOptions | None = None) -> dict[str, int]:
    """The observation layout of ``game`` at ``options`` (None: the defaults): field → numbers.

    In order: the game's own ``observation_layout(options)`` if it has one; the built-in
    games' :data:`LAYOUTS`; else a layout derived from :data:`DERIVE_GAMES` random games at
    these options (:func:`measure`, seed 0; cached per game and options), so a plug-in game
    needs no table. A derived layout is measured, not proven: a view that outgrows it later
    raises :class:`ObservationOverflowError` naming the field.
    """
    opts = game.options_type() if options is None else options
    own = getattr(game, "observation_layout", None)
    if own is not None:
        return dict(own(opts))
    if game.name in LAYOUTS:
        return LAYOUTS[game.name]
    key = (game.name, opts)
    if key not in _DERIVED:
        _DERIVED[key] = measure(game, [opts], DERIVE_GAMES)
    return _DERIVED[key]


class ViewEncoder:
    """Encodes one game's views into vectors of a fixed shape.

    Args:
        game: the game.
        options: the rule options the views come from (None: the defaults); they matter only
            for a layout derived or given by the game (:func:`layout_of`).
        layout: field → numbers, to use instead of :func:`layout_of`'s.

    Attributes:
        fields, slots, starts: per field of the layout, its name, its numbers and its first
            position; ``size``/``shape``: the vector's length ``sum(slots)``, ``(size,)``.
    """

    def __init__(self, game: Game, options: RuleOptions | None = None,
                 layout: dict[str, int] | None = None) -> None:
        lay = layout_of(game, options) if layout is None else layout
        self.game = game
        self.fields: tuple[str, ...] = tuple(lay)
        self.slots: tuple[int, ...] = tuple(lay.values())
        self.starts = tuple(int(x) for x in np.cumsum((0, *self.slots[:-1])))
        self.size = sum(self.slots)
        self.shape = (self.size,)
        self._zeros = [0] * self.size
        self._zero_bytes = bytes(8 * self.size)
        self._checked: type | None = None  # the view class whose fields match the layout
        self._opaque: set[type] = set()  # classes met in a view that give no numbers
        get = operator.attrgetter(*self.fields) if self.fields else (lambda v: ())
        self._values: Callable[[View], Any] = (
            get if len(self.fields) != 1 else lambda v: (get(v),))

    def numbers(self, view: View, pad: bool = True) -> list[Any]:
        """The view's numbers (Python ints, floats for float values), each field padded with
        zeros to its block: a list of :attr:`size` numbers; with ``pad=False`` the fields'
        numbers only, one after the other (the length prefixes keep them apart).

        Raises:
            ObservationOverflowError: the view's fields differ from the layout's, or a field
                needs more numbers than its block.
        """
        out: list[Any] = []
        used = self._fill(view, out)
        if not pad:
            return out
        padded: list[Any] = []
        zeros = self._zeros
        for start, stop, pads in _runs(used, self.slots):
            padded += out[start:stop]
            padded += zeros[:pads]
        return padded

    def _fill(self, view: View, out: list[Any]) -> list[int]:
        """Append the view's numbers to ``out``, unpadded; return each field's count."""
        if type(view) is not self._checked:
            fields = view_fields(type(view))
            if fields != self.fields:
                raise ObservationOverflowError(
                    f"{type(view).__name__} fields {fields} differ from the layout's "
                    f"{self.fields}")
            self._checked = type(view)
        opaque, slots = self._opaque, self.slots
        used: list[int] = []
        values: tuple[Any, ...] = self._values(view)
        for k in range(len(slots)):
            value = values[k]
            start = len(out)
            t = type(value)
            if t is int:  # the common case inline
                out.append(value)
            elif t in opaque:  # a class met before that holds no numbers
                pass
            else:
                flatten(value, out)
                if len(out) == start:  # not a container (its length would be a number)
                    opaque.add(t)
            n = len(out) - start
            if n > slots[k]:
                raise ObservationOverflowError(
                    f"{self.game.name}: view field {self.fields[k]!r} holds {n} numbers; "
                    f"its block has {slots[k]} (balancelab.interop.observation.layout_of)")
            used.append(n)
        return used

    def encode(self, view: View) -> np.ndarray:
        """The view as a float32 vector of shape :attr:`shape`.

        Raises:
            ObservationOverflowError: a field needs more numbers than its block, or holds a
                number a float32 cannot keep exactly.
        """
        out: list[Any] = []
        used = self._fill(view, out)
        if not _small_ints(out):
            return self.vector(self.numbers(view))
        # the common case: the numbers packed at once as int64, the blocks' zeros put in as
        # bytes, then converted by numpy (no padded list, no number read twice)
        raw = _packer(len(out)).pack(*out)
        parts: list[bytes] = []
        zeros = self._zero_bytes
        for start, stop, pads in _runs(used, self.slots):
            parts.append(raw[8 * start:8 * stop])
            parts.append(zeros[:8 * pads])
        return np.frombuffer(b"".join(parts), np.int64).astype(np.float32)

    def vector(self, numbers: list[Any]) -> np.ndarray:
        """:meth:`numbers`' list as the float32 vector (the checks of :meth:`encode`)."""
        n = len(numbers)
        if _small_ints(numbers):  # the common case: packed at once, then converted by numpy
            return np.frombuffer(_packer(n).pack(*numbers), np.int64).astype(np.float32)
        vec = np.fromiter(numbers, np.float32, n)
        if np.abs(vec).max(initial=0.0) > _EXACT:
            raise ObservationOverflowError(f"{self.game.name}: a view number exceeds 2**24")
        return vec

    def text(self, view: View) -> str:
        """The view's numbers unpadded (:meth:`numbers` with ``pad=False``) as text, separated
        by single spaces (the observation string of the OpenSpiel adapter).

        Raises:
            ObservationOverflowError: as :meth:`numbers`.
        """
        out: list[Any] = []
        self._fill(view, out)
        return text(out)


def _runs(used: list[int], slots: tuple[int, ...]) -> list[tuple[int, int, int]]:
    """The padded numbers as runs ``(start, stop, zeros)``: ``numbers[start:stop]`` then
    ``zeros`` zeros, run after run, for fields of ``used`` numbers in blocks of ``slots``."""
    runs: list[tuple[int, int, int]] = []
    start = stop = pads = 0
    for k in range(len(used)):
        n = used[k]
        if n and pads:  # numbers after zeros: a new run
            runs.append((start, stop, pads))
            start, pads = stop, 0
        stop += n
        pads += slots[k] - n
    runs.append((start, stop, pads))
    return runs


def _small_ints(numbers: list[Any]) -> bool:
    """Whether every number is an int (not a subclass) in ``[-2**24, 2**24]``: a float32 holds
    each exactly (so :meth:`ViewEncoder.vector` has nothing to check) and int64 packs it."""
    for x in numbers:
        if type(x) is not int:
            return False
        i: int = x
        if i > _EXACT or i < -_EXACT:
            return False
    return True


#: n → the Struct packing n int64 (:meth:`ViewEncoder.vector`)
_PACKERS: dict[int, struct.Struct] = {}


def _packer(n: int) -> struct.Struct:
    packer = _PACKERS.get(n)
    if packer is None:
        if len(_PACKERS) >= 4096:
            _PACKERS.clear()
        packer = _PACKERS[n] = struct.Struct(f"={n}q")
    return packer


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
                    fields = view_fields(type(v))
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
