"""The words of one column of a run's tables (:class:`Words`), which each game declares next to
its schema as ``Game.words``; the look-ups that reports, plots and ``balancelab games`` use are
in :mod:`balancelab.reports.words` (this module imports nothing of the package, so the engine
contract can name it)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Words:
    """The words of one column.

    Attributes:
        words: the column in words (``"winning score"``), lower case unless a proper name.
        unit: its unit (``"points"``, ``"turns"``, ``"games"``; ``""`` for a yes/no or text).
        meaning: one line a designer can follow (rulebook terms).
        values: a value's words (as the value prints: ``"true"``, ``"2"``, ``"seat0"``).
            For seats whose words depend on how many seats play, ``"seat0/1"`` is the words
            of ``seat0`` in a game of one seat.
        only_when: for a rule option that matters only under another option's value,
            ``(option, value)`` (``("queen_variant", "tasks")``): a variant's words leave it
            out when that option is set otherwise.
    """

    words: str
    unit: str = ""
    meaning: str = ""
    values: Mapping[str, str] = field(default_factory=dict)
    only_when: tuple[str, str] | None = None
