"""The words lookups reports and plots use, from the one registry
:mod:`balancelab.simulate.words` (each game declares its words next to its schema as
``Game.words``): ``label(game, column)`` → ``"winning score (points)"``, ``unit(game, column)``
→ ``"points"``, ``who(game, contender, variant_label)`` → ``"seat 1 (start player)"``,
``variant(game, variant_label)`` → ``"2 players, 2 shuttles removed"``."""

from balancelab.simulate.words import (
    Words,
    contender,
    entry,
    label,
    meaning,
    setting,
    unit,
    value,
    variant,
    who,
    words,
)

__all__ = ["Words", "contender", "entry", "label", "meaning", "setting", "unit", "value",
           "variant", "who", "words"]
