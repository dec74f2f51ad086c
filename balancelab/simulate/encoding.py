"""A finite action encoding: every action of a game as an int in ``[0, num_distinct_actions)``.

Engines keep their own actions (ints or tuples of ints: they hash, compare and print in the
rulebook's words). Tools written for fixed action spaces (OpenSpiel, PettingZoo, neural
networks) need a number per action instead, from one range fixed by the game and its options.
A game that offers this implements the :class:`ActionEncoding` protocol (three methods on its
:class:`~balancelab.simulate.core.Game`):

=========================================  ==================================================
``num_distinct_actions(options) -> int``    size of the id space for these rule options
``encode_action(view, action) -> int``      the id of a legal action of the viewed state
``decode_action(view, index) -> action``    the action with that id (inverse of the above)
=========================================  ==================================================

A game may add ``encode_actions(view, actions) -> list[int]``, the ids of many actions of one
state at once (the adapters encode every legal action of every state they show); without it,
:func:`encode_actions` calls ``encode_action`` per action.

``view`` is any seat's view of the state the action is legal in (an encoding may use public
facts only, e.g. the list of ALIENS on the board, so every seat's view gives the same ids).
The encoding is a bijection between the legal actions of every state and a subset of the ids:
legal actions get distinct ids, and decoding an id gives the action back. Ids are *semantic*
(the same id means the same kind of move with the same arguments in every state), built from
an opcode table (:class:`OpSpace`) in which each opcode has a fixed block of ids; the
arguments are digits of a mixed-radix number inside the block.

Errors: an action outside the game's action space (for instance an argument larger than the
options allow) raises :class:`ActionEncodingError`, an id outside ``[0, size)`` too.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from balancelab.simulate.core import Action, View
from balancelab.simulate.options import RuleOptions


class ActionEncodingError(ValueError):
    """An action or id outside a game's finite action space."""


class ActionEncoding(Protocol):
    """The optional part of the Game contract that numbers actions (see the module docstring).

    Not ``@runtime_checkable``: this module is compiled with mypyc, which refuses it at import;
    :func:`encoding_of` checks the three methods instead."""

    def num_distinct_actions(self, options: RuleOptions) -> int:
        """The size of the id space for ``options`` (ids are ``0 .. size-1``)."""
        ...

    def encode_action(self, view: View, action: Action) -> int:
        """The id of ``action``, legal in the state ``view`` was taken from.

        Raises:
            ActionEncodingError: ``action`` is outside the game's action space.
        """
        ...

    def decode_action(self, view: View, index: int) -> Action:
        """The action whose id is ``index`` (the engine's own value).

        Raises:
            ActionEncodingError: ``index`` is outside ``[0, num_distinct_actions)`` or names
                no action in the state ``view`` was taken from.
        """
        ...


#: the methods of :class:`ActionEncoding`
_ENCODING_METHODS = ("num_distinct_actions", "encode_action", "decode_action")


def encoding_of(game: Any) -> ActionEncoding:
    """``game`` as an :class:`ActionEncoding`.

    Raises:
        TypeError: the game has no finite action encoding (the message names the methods).
    """
    if not all(callable(getattr(game, m, None)) for m in _ENCODING_METHODS):
        name = getattr(game, "name", type(game).__name__)
        raise TypeError(f"game {name!r} has no finite action encoding (num_distinct_actions, "
                        "encode_action, decode_action): see balancelab.simulate.encoding")
    codec: ActionEncoding = game
    return codec


def encode_actions(codec: ActionEncoding, view: View, actions: Sequence[Action]) -> list[int]:
    """The ids of ``actions``, legal in the state ``view`` was taken from, in their order: the
    game's own batch ``encode_actions`` when it has one, else ``encode_action`` per action.

    Raises:
        ActionEncodingError: an action outside the game's action space.
    """
    batch = getattr(codec, "encode_actions", None)
    if batch is not None:
        ids: list[int] = batch(view, actions)
        return ids
    return [codec.encode_action(view, a) for a in actions]


#: (id(owner), make) → (owner, value) for :func:`by_identity`
_BY_IDENTITY: dict[tuple[int, Any], tuple[object, Any]] = {}


def by_identity(owner: object, make: Callable[[Any], Any]) -> Any:
    """``make(owner)``, made once per ``owner`` object and function ``make`` (a module-level
    function, not a lambda made per call), then found by identity: no hash of ``owner`` is
    computed (rule options are frozen dataclasses, whose hash reads every field, each time).
    Equal but distinct owners each get their own value; at most 256 are kept.
    """
    key = (id(owner), make)
    hit = _BY_IDENTITY.get(key)
    if hit is not None and hit[0] is owner:
        return hit[1]
    if len(_BY_IDENTITY) >= 256:
        _BY_IDENTITY.clear()
    value = make(owner)
    _BY_IDENTITY[key] = (owner, value)
    return value


def memo_encode(memo: dict[Any, int], actions: Sequence[Action],
                encode: Callable[[Any], int]) -> list[int]:
    """The ids of ``actions`` for an encoding whose ids do not depend on the state: each
    looked up in ``memo`` (action → id) first, else ``encode(action)`` and remembered.

    Raises:
        ActionEncodingError: from ``encode``, for an action outside the space.
    """
    out: list[int] = []
    for a in actions:
        i = memo.get(a)
        if i is None:
            i = encode(a)
            memo[a] = i
        out.append(i)
    return out


class OpSpace:
    """An id space made of one block per opcode; a block is a mixed-radix number.

    Args:
        radices: opcode → the radix of each argument digit, in order (``()`` for an opcode
            without arguments). Blocks are laid out in the mapping's order.

    ``encode(op, digits)`` is ``offset[op] + digits`` read in mixed radix (first digit most
    significant); :meth:`decode` is its inverse.
    """

    __slots__ = ("radices", "offsets", "sizes", "size", "_order")

    def __init__(self, radices: Mapping[int, Sequence[int]]) -> None:
        self.radices: dict[int, tuple[int, ...]] = {op: tuple(r) for op, r in radices.items()}
        self.offsets: dict[int, int] = {}
        self.sizes: dict[int, int] = {}
        start = 0
        for op, rad in self.radices.items():
            if any(r < 1 for r in rad):
                raise ValueError(f"opcode {op}: every radix must be >= 1, got {rad}")
            n = 1
            for r in rad:
                n *= r
            self.offsets[op] = start
            self.sizes[op] = n
            start += n
        self.size = start
        self._order = sorted(self.offsets.items(), key=lambda kv: kv[1])

    def encode(self, op: int, digits: Sequence[int]) -> int:
        """The id of opcode ``op`` with argument ``digits``.

        Raises:
            ActionEncodingError: unknown opcode, wrong number of digits, or a digit out of range.
        """
        rad = self.radices.get(op)
        if rad is None:
            raise ActionEncodingError(f"unknown opcode {op!r}; valid: {sorted(self.radices)}")
        if len(digits) != len(rad):
            raise ActionEncodingError(
                f"opcode {op}: expected {len(rad)} argument digits, got {tuple(digits)}")
        x = 0
        for d, r in zip(digits, rad, strict=True):
            if not 0 <= d < r:
                raise ActionEncodingError(
                    f"opcode {op}: argument digit {d} out of range [0, {r}) in {tuple(digits)}")
            x = x * r + d
        return self.offsets[op] + x

    def decode(self, index: int) -> tuple[int, tuple[int, ...]]:
        """``(op, digits)`` of id ``index``.

        Raises:
            ActionEncodingError: ``index`` is outside ``[0, size)``.
        """
        if not 0 <= index < self.size:
            raise ActionEncodingError(f"action id {index!r} out of range [0, {self.size})")
        op = start = 0
        for o, s in self._order:
            if s > index:
                break
            op, start = o, s
        x = index - start
        rad = self.radices[op]
        out = [0] * len(rad)
        for i in range(len(rad) - 1, -1, -1):
            x, out[i] = divmod(x, rad[i])
        return op, tuple(out)


class Multisets:
    """The sorted tuples (multisets) of ``min_size..max_size`` symbols from ``range(n)``, ranked.

    ``len()`` of them, :meth:`rank` of one and :meth:`unrank` back; used as one radix of an
    :class:`OpSpace` (``(CONSTRUCT, (0, 0, 3), ())`` has the multiset ``(0, 0, 3)``).
    """

    __slots__ = ("n", "items", "_rank")

    def __init__(self, n: int, max_size: int, min_size: int = 0, distinct: bool = False) -> None:
        self.n = n
        pick = itertools.combinations if distinct else itertools.combinations_with_replacement
        self.items: tuple[tuple[int, ...], ...] = tuple(
            c for k in range(min_size, max_size + 1) for c in pick(range(n), k))
        self._rank: dict[tuple[int, ...], int] = {c: i for i, c in enumerate(self.items)}

    def __len__(self) -> int:
        return len(self.items)

    def rank(self, items: Sequence[int]) -> int:
        """The rank of the multiset ``items`` (any order).

        Raises:
            ActionEncodingError: ``items`` is not a multiset of this family.
        """
        key = tuple(sorted(items))
        r = self._rank.get(key)
        if r is None:
            raise ActionEncodingError(
                f"{tuple(items)} is not a multiset of {self.n} symbols with a size in range")
        return r

    def unrank(self, r: int) -> tuple[int, ...]:
        """The sorted tuple of rank ``r``."""
        return self.items[r]


def check_index(index: Any) -> int:
    """``index`` as a Python int (numpy integers accepted).

    Raises:
        ActionEncodingError: ``index`` is not an integer.
    """
    try:
        return int(index.__index__())
    except (AttributeError, TypeError):
        raise ActionEncodingError(f"an action id must be an int, got {index!r}") from None


def digit(value: int, low: int, n: int, what: str) -> int:
    """``value - low`` checked to lie in ``[0, n)``.

    Raises:
        ActionEncodingError: ``value`` is outside ``[low, low + n)``; the message names ``what``.
    """
    d = value - low
    if not 0 <= d < n:
        raise ActionEncodingError(f"{what} {value!r} outside [{low}, {low + n})")
    return d
