"""The rulebook's words for *1998 ISS* actions (for ``trace`` and error messages).

The words read a state (or anything holding the same public fields, as a view does) through
:class:`Seen`, so this module imports no state.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from balancelab.simulate.iss.cards import CardData, Experiment
from balancelab.simulate.iss.rules import (
    ACTION_NAMES,
    CARGO,
    COMP_NAMES,
    CONSTRUCT,
    COUNTDOWN,
    EXPERIMENT,
    FPICK,
    GOAL,
    INSTALL,
    KEEP,
    LOAD,
    LONG_STAY,
    OUTSIDE,
    PASS,
    PLAN,
    RETRIEVE,
    SHUTTLE_TYPES,
    TRAIN,
    XSPACE,
)


class Tables(Protocol):
    """The per-variant tables the words read (``state.Static``)."""

    @property
    def cards(self) -> CardData: ...
    @property
    def exp_cards(self) -> Sequence[Experiment]: ...
    @property
    def sh_type(self) -> Sequence[int]: ...
    @property
    def mod_number(self) -> Sequence[int]: ...


class Seen(Protocol):
    """The public fields the words read (an ``IssState``)."""

    @property
    def st(self) -> Tables: ...
    @property
    def pad(self) -> Sequence[int]: ...
    @property
    def col(self) -> Sequence[int]: ...
    @property
    def ctype(self) -> Sequence[int]: ...
    @property
    def cmod(self) -> Sequence[int]: ...
    @property
    def docked(self) -> Sequence[int]: ...
    @property
    def drawn(self) -> Sequence[int]: ...


def action_text(s: Seen, action: Any) -> str:
    """One action in the rulebook's words (``Train Astronauts: 1 astronaut onto the Soyuz``)."""
    st = s.st
    try:
        tag = action[0]
    except (TypeError, IndexError):
        return repr(action)
    pad = ("the Russian shuttle", "the US shuttle")

    def padname(r: int) -> str:
        c = s.pad[r] if 0 <= r < 2 else -1
        if c >= 0:
            return f"the {SHUTTLE_TYPES[st.sh_type[c]]}"
        return pad[r] if 0 <= r < 2 else "?"

    if tag == TRAIN:
        return f"Train Astronauts: 1 astronaut onto {padname(action[1])}"
    if tag == LOAD:
        return "Load Material: " + ", ".join(f"1 onto {padname(r)}" for r in action[1:])
    if tag == CONSTRUCT:
        names = [_slot_name(s, t) for t in action[1]]
        src = (" (taking cubes back from " + ", ".join(_src_name(s, x) for x in action[2])
               + ")") if action[2] else ""
        return "Construct Modules: 1 cube each on " + ", ".join(names) + src if names else \
            "Construct Modules (final round: no cubes)"
    if tag == PLAN:
        lv = ("basic", "medium", "advanced")
        return "Plan Experiments: draw from the " + " and ".join(
            lv[d] for d in action[1:]) + " decks"
    if tag == LONG_STAY:
        return "Long Stay: 1 ISS material to the long-stay track, astronaut to long stay"
    if tag == INSTALL:
        return "Install Compartments: remove tokens from " + ", ".join(
            COMP_NAMES[t] for t in action[1]) + " compartments"
    if tag == OUTSIDE:
        how = "a new astronaut on a free crane" if action[2] else "the astronaut on a crane"
        return f"Outside Jobs: {how}, convert {action[1]} ISS materials to external"
    if tag == EXPERIMENT:
        e = st.exp_cards[action[1]]
        where = ", ".join(
            f"{COMP_NAMES[c >> 1]}{' (astronaut already there)' if c & 1 else ''}"
            for c in action[2])
        return (f"Conduct Experiments: {e.id} ({e.points} points, "
                f"{'long' if e.long else 'short'}-term) in {where}")
    if tag == CARGO:
        return f"cargo check: 1 material onto {padname(action[1])}"
    if tag == PASS:
        return "no extra action"
    if tag == RETRIEVE:
        return f"take back a cube from {_src_name(s, action[1])}"
    if tag == KEEP:
        kept = [st.exp_cards[e].id for i, e in enumerate(s.drawn) if action[1] >> i & 1]
        return "keep " + (", ".join(kept) if kept else "no experiment")
    if tag == COUNTDOWN:
        return f"countdown: lower {padname(action[1])}"
    if tag == XSPACE:
        src = "" if action[2] < 0 else f" (cube taken from {_slot_name(s, action[2])})"
        return f"extra-action cube on {ACTION_NAMES[action[1]]}{src}"
    if tag == GOAL:
        if action[1] < 0:
            return "take no goal before the countdown (wait for the end of the turn)"
        return f"take goal: {st.cards.goal_texts[action[1]]}"
    if tag == FPICK:
        c = action[1]
        if not 0 <= c < len(s.ctype):
            return repr(action)
        return (f"FEDOR takes the token on the {COMP_NAMES[s.ctype[c]]} compartment of "
                f"{_module_of(s, c)}")
    return repr(action)


def _module_of(s: Seen, c: int) -> str:
    """The docked module holding compartment ``c``, by name and printed number
    ("Dextre (#8)"; the number orders FEDOR's Install, Solo Mode)."""
    st = s.st
    number = s.cmod[c]
    for m in s.docked:
        if st.mod_number[m] == number:
            return f"{st.cards.modules[m].name} (#{number})"
    return f"module #{number}"


def _slot_name(s: Seen, slot: int) -> str:
    m = s.col[slot] if 0 <= slot < len(s.col) else -1
    return s.st.cards.modules[m].name if m >= 0 else f"slot {slot}"


def _src_name(s: Seen, src: int) -> str:
    if src < 4:
        return _slot_name(s, src)
    return f"the {ACTION_NAMES[src - 4]} extra-action space"
