"""The rulebook's words for *1998 ISS* actions and rule events (for ``trace`` and errors).

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
    E_DOCK,
    E_EXTRA_WON,
    E_FEDOR_COUNTDOWN,
    E_FEDOR_CUBES,
    E_FEDOR_DONE,
    E_FEDOR_EXTRA,
    E_FEDOR_FAILED,
    E_FEDOR_FLIP,
    E_FEDOR_LOAD,
    E_FEDOR_RESHUFFLE,
    E_FINAL,
    E_FORCED,
    E_GOAL,
    E_LAUNCH,
    E_OVER,
    E_ROUND,
    E_TRIGGER,
    E_TURN,
    EXPERIMENT,
    FPICK,
    GOAL,
    INSTALL,
    KEEP,
    LOAD,
    LONG_STAY,
    NATIONS,
    OUTSIDE,
    PASS,
    PLAN,
    RETRIEVE,
    SHUTTLE_TYPES,
    TRAIN,
    XSPACE,
)
from balancelab.simulate.iss.words import WORDS


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
    @property
    def np(self) -> int: ...
    @property
    def fedor(self) -> int: ...
    @property
    def solo(self) -> bool: ...


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
    @property
    def sp(self) -> int: ...
    @property
    def final(self) -> bool: ...
    @property
    def turns(self) -> int: ...
    @property
    def end_reason(self) -> str: ...
    @property
    def done(self) -> Sequence[Sequence[int]]: ...
    @property
    def tok(self) -> Sequence[int]: ...
    @property
    def ext(self) -> Sequence[int]: ...
    @property
    def ls(self) -> Sequence[int]: ...

    def score_parts(self, p: int) -> dict[str, int]: ...


def action_text(s: Seen, action: Any) -> str:
    """One action in the rulebook's words (``Train Astronauts: 1 astronaut onto the Soyuz``)."""
    st = s.st
    try:
        tag = action[0]
    except (TypeError, IndexError):
        return repr(action)

    def padname(r: int) -> str:
        return _pad_name(s, r)

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


def player_name(s: Seen, p: int) -> str:
    """A player as the reports name it: ``seat 1`` … (1-based, ``seat 1`` the start player),
    ``the solo player`` in Solo Mode, or ``FEDOR``."""
    if p == s.st.fedor:
        return "FEDOR"
    return "the solo player" if s.st.solo else f"seat {p + 1}"


#: the score parts in the rulebook's words (Endgame), in ``score_parts`` order
_PARTS = {"tokens": "installation tokens", "external": "external", "long_stay": "long stay",
          "goals": "goals", "shuttles": "shuttle set", "experiments": "experiments",
          "penalties": "unperformed experiments", "start_bonus": "start bonus"}


def final_scores(s: Seen) -> str:
    """Every player's score with its parts (rulebook: Endgame), best first."""
    st = s.st
    rows = sorted(((s.score_parts(p), p) for p in range(st.np)),
                  key=lambda x: -x[0]["score"])
    return "final scores: " + "; ".join(
        f"{player_name(s, p)} {parts['score']} ("
        + ", ".join(f"{_PARTS[k]} {v}" for k, v in parts.items() if k != "score" and v)
        + ")" for parts, p in rows)


def event_text(s: Seen, code: int, a: Any, b: int, c: int) -> str:
    """One rule event in words, told while it happens (``IssState._tell``: the state is the
    one the event happened in)."""
    st = s.st
    if code == E_ROUND:
        final = " (the final round)" if s.final else ""
        return f"== round {s.turns // st.np + 1}{final}: {player_name(s, s.sp)} starts"
    if code == E_TURN:
        return f"-- {player_name(s, a)}'s turn"
    if code == E_FORCED:
        return f"{player_name(s, b)} (the only choice): {action_text(s, a)}"
    if code == E_LAUNCH:
        return f"the {SHUTTLE_TYPES[st.sh_type[a]]} ({st.cards.shuttles[a].id}) launches"
    if code == E_DOCK:
        return f"module {st.cards.modules[a].name} docks"
    if code == E_EXTRA_WON:
        return f"{player_name(s, a)} wins an extra action"
    if code == E_TRIGGER:
        nation = "Russian" if NATIONS[a] == "russia" else "US"
        return f"the last {nation} shuttle is placed: the end is triggered"
    if code == E_FINAL:
        return "the final round follows: no cubes in modules, no countdown"
    if code == E_GOAL:
        return f"{player_name(s, a)} takes goal: {st.cards.goal_texts[b]}"
    if code == E_OVER:
        how = WORDS["end_reason"].values.get(s.end_reason, s.end_reason)
        return f"== game over: {how}; " + final_scores(s)
    if code == E_FEDOR_FLIP:
        return f"FEDOR flips {ACTION_NAMES[a]}"
    if code == E_FEDOR_EXTRA:
        return f"FEDOR's extra action: it flips {ACTION_NAMES[a]}"
    if code == E_FEDOR_RESHUFFLE:
        again = " again" if a else ""
        return f"FEDOR flips the reshuffle card{again}: all its cards are reshuffled"
    if code == E_FEDOR_FAILED:
        return f"FEDOR cannot perform {ACTION_NAMES[a]}"
    if code == E_FEDOR_DONE:
        f = st.fedor
        if a == INSTALL:
            k = s.tok[f]
            return f"FEDOR installs: it holds {k} installation token{'s' if k > 1 else ''}"
        if a == OUTSIDE:
            return f"FEDOR works outside: {s.ext[f]} on its external track"
        if a == LONG_STAY:
            return f"FEDOR's astronauts stay long: {s.ls[f]} on its long-stay track"
        if a == EXPERIMENT and s.done[f]:
            e = st.exp_cards[s.done[f][-1]]
            return f"FEDOR performs {e.id} ({e.points} points)"
        return f"FEDOR performs {ACTION_NAMES[a]}"
    if code == E_FEDOR_CUBES:
        why = "its action failed: " if b == 2 else ""
        return (f"module preparation: {why}FEDOR places {b} cube{'s' if b > 1 else ''} on "
                f"{_slot_name(s, a)}")
    if code == E_FEDOR_LOAD:
        what = f"{b} astronaut{'s' if b > 1 else ''}" if b else f"{c} materials"
        return f"FEDOR loads {what} onto the {SHUTTLE_TYPES[st.sh_type[s.pad[a]]]}"
    if code == E_FEDOR_COUNTDOWN:
        return f"FEDOR's next card lowers the countdown of {_pad_name(s, a)} by {b}"
    return repr((code, a, b, c))


def _pad_name(s: Seen, r: int) -> str:
    c = s.pad[r] if 0 <= r < 2 else -1
    if c >= 0:
        return f"the {SHUTTLE_TYPES[s.st.sh_type[c]]}"
    return ("the Russian shuttle", "the US shuttle")[r] if 0 <= r < 2 else "?"
