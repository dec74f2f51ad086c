"""Words, not column names: what every column of a run's tables means, in the designer's words.

Each game declares the words of its own columns next to its schema, as
``Game.words: dict[str, Words]`` (its measures, seat-table columns, the rule options a study
or sweep varies, and the values that need words: seats, end reasons, option settings). The
columns every game shares (``winner``, ``end_reason``, ``rounds`` …) are declared here in
:data:`COMMON`. A game plug-in supplies its own ``words`` the same way; nothing else is needed.

Look-ups, used by reports, plots, ``balancelab games`` and the README::

    label(game, column)  -> "winning score (points)"   axis labels, table headers
    unit(game, column)   -> "points"
    meaning(game, column)-> one line
    value(game, column, v) -> "the last shuttle of a nation was placed"
    contender(game, name, n_seats) -> "seat 1 (start player)", "you, against FEDOR"
    setting(game, option, v) -> "2 players", "shuttles removed"

A column without declared words falls back to its name with spaces (and, for a rule option,
its help line as meaning: a ``--set`` option keeps a name the user can type back);
:func:`missing` lists such columns, and a test keeps it empty for every measure and seat
column of every built-in game.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from balancelab.simulate.options import format_value
from balancelab.simulate.words import Words

#: The columns every game's tables have (see ``simulate.worker.games_columns``).
COMMON: dict[str, Words] = {
    "run_id": Words("run", "", "the run folder's id"),
    "game": Words("game", "", "the game's registry name"),
    "game_version": Words("rules version", "", "the engine's rules version"),
    "variant_label": Words("variant", "", "the rule options that differ from the defaults"),
    "variant": Words("variant number", "", "the variant's index in the run"),
    "policies": Words("players", "", "the policy (scripted player) of every seat"),
    "game_index": Words("game number", "", "replay it with balancelab trace RUN --index N"),
    "seed": Words("game seed", "", "the seed of the game's shuffles and dice"),
    "winner": Words("winner", "", "who won the game",
                    {"": "nobody (stopped by the round cap)", "draw": "draw",
                     "tie": "shared win"}),
    "end_reason": Words("how the game ended", "", "the end condition that stopped the game",
                        {"cap": "stopped by the round cap", "": "–"}),
    "rounds": Words("rounds", "rounds", "completed game rounds"),
    "decisions": Words("decisions", "decisions",
                       "choices the players made (forced moves not counted)"),
    "first_seats": Words("seats sharing first place", "", "the seats tied for the win"),
    "seat_name": Words("seat", "", "the seat's name"),
    "seat": Words("seat", "", "the seat's position (0 = first)"),
    "policy": Words("player", "", "the policy (scripted player) of the seat"),
}


def _game_words(game: str) -> Mapping[str, Words]:
    try:
        from balancelab.games import get_game

        return get_game(game).words
    except (ImportError, ValueError, AttributeError):
        return {}


def _option_field(game: str, column: str) -> Any:
    try:
        import dataclasses

        from balancelab.games import get_game

        for f in dataclasses.fields(get_game(game).options_type):
            if f.name == column:
                return f
    except (ImportError, ValueError, AttributeError, TypeError):
        pass
    return None


def declared(game: str, column: str) -> Words | None:
    """The words declared for ``column`` (the game's, then :data:`COMMON`, then a
    ``policy_<side>`` column's), or None."""
    w = _game_words(game).get(column) or COMMON.get(column)
    if w is not None:
        return w
    if column.startswith("policy_"):
        side = column[len("policy_"):]
        return Words(f"{contender(game, side)}'s player", "",
                     f"the policy (scripted player) of {contender(game, side)}")
    return None


def entry(game: str, column: str) -> Words:
    """The words of ``column`` of ``game``'s tables; a fallback (the name with spaces, a rule
    option's help line as its meaning) when none are declared."""
    w = declared(game, column)
    if w is not None:
        return w
    f = _option_field(game, column)
    help_line = str(f.metadata.get("help", "")) if f is not None else ""
    return Words(column.replace("_", " "), "", help_line)


def words(game: str, column: str) -> str:
    """``"winning score"``."""
    return entry(game, column).words


def unit(game: str, column: str) -> str:
    """``"points"`` (``""`` when the column has none)."""
    return entry(game, column).unit


def meaning(game: str, column: str) -> str:
    """One line: what the column means."""
    return entry(game, column).meaning


def label(game: str, column: str) -> str:
    """Words with the unit, for axis labels and headers: ``"winning score (points)"``,
    ``"turns"`` (a unit that repeats the words is left out)."""
    w = entry(game, column)
    return f"{w.words} ({w.unit})" if w.unit and w.unit not in w.words else w.words


def value(game: str, column: str, v: Any) -> str:
    """A value of ``column`` in words (``end_reason`` ``"last_shuttle"`` → ``"the last
    shuttle of a nation was placed"``); booleans print ``yes``/``no``; other values as
    they are."""
    text = fmt(v)
    w = entry(game, column)
    if text in w.values:
        return w.values[text]
    common = COMMON.get(column)
    if common is not None and text in common.values:
        return common.values[text]
    if isinstance(v, bool):
        return "yes" if v else "no"
    return text.replace("_", " ") if column == "end_reason" else text


def contender(game: str, name: str, n_seats: int | None = None) -> str:
    """A side or seat in words: ``"HAL"``, ``"seat 1 (start player)"``, and for a game of
    one seat its own words (``"you, against FEDOR"``)."""
    w = _game_words(game).get("winner") or COMMON["winner"]
    if n_seats is not None and f"{name}/{n_seats}" in w.values:
        return w.values[f"{name}/{n_seats}"]
    if name in w.values:
        return w.values[name]
    return COMMON["winner"].values.get(name, name)


def setting(game: str, option: str, v: Any) -> str:
    """An option's setting in words: ``"2 players"``, ``"shuttles removed"``; else
    ``"<words>: <value>"`` (``"HAL's opening turns at 3 crew: 10"``: the label and the value
    kept apart, so that a number in the words never reads as the value)."""
    text = fmt(v)
    w = entry(game, option)
    if text in w.values:
        return w.values[text]
    return f"{w.words}: {text}"


def missing(game: str, columns: list[str]) -> list[str]:
    """The columns without declared words (for tests: a new column needs its words)."""
    return [c for c in columns if declared(game, c) is None]


def fmt(v: Any) -> str:
    """A value as the tables print it (:func:`balancelab.simulate.options.format_value`)."""
    return format_value(v)


def variant(game: str, label: str) -> str:
    """A variant label in words: ``"players=2,remove_shuttles=true"`` → ``"2 players, 2
    shuttles removed"``; ``"default"`` → ``"the rulebook's rules"``. An option that does not
    apply under the label's other settings (:attr:`Words.only_when`) is left out."""
    if label in ("", "default"):
        return "the rulebook's rules"
    pieces = [piece.partition("=") for piece in split_label(label)]
    given = {k: v for k, eq, v in pieces if eq}
    parts = []
    for k, eq, v in pieces:
        cond = entry(game, k).only_when if eq else None
        if cond is not None and cond[0] in given and given[cond[0]] != cond[1]:
            continue  # it does not apply under this setting ("3 tasks" with the die roll)
        parts.append(setting(game, k, v) if eq else k)
    return ", ".join(parts)


def split_label(label: str) -> list[str]:
    """``"a=1,b=x,y"`` → ``["a=1", "b=x,y"]``: a comma starts a new option only where an
    ``=`` follows before the next comma."""
    out: list[str] = []
    for part in label.split(","):
        if out and "=" not in part:
            out[-1] += "," + part
        else:
            out.append(part)
    return [p for p in out if p]


@functools.lru_cache(maxsize=256)
def seat_count(game: str, label: str) -> int | None:
    """How many seats play at a variant label (None when the game or label is unknown)."""
    try:
        from balancelab.games import get_game

        g = get_game(game)
        pairs = dict(p.partition("=")[::2] for p in split_label(label) if "=" in p)
        return len(g.seats(g.options_type.from_strings(pairs)))
    except Exception:  # noqa: BLE001 - words are a courtesy: an unknown label has none
        return None


def who(game: str, name: str, label: str = "") -> str:
    """:func:`contender` at a variant label (its number of seats read from the label)."""
    return contender(game, name, seat_count(game, label) if label else None)


def outcome(game: str, name: str, label: str = "") -> str:
    """An outcome of an outcome-rates table in words: :func:`who`, and ``capped`` (the games
    stopped by the round cap) as ``"stopped by the round cap"``."""
    return "stopped by the round cap" if name == "capped" else who(game, name, label)
