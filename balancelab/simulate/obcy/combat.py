"""The COMBAT RESULT table (rulebook: 6. Combat; 10. Attack by the ALIENS).

The table is package data (``balancelab/data/obcy_combat.toml``, assumed: design/obcy.md 3(d)),
read attacker-versus-defender: the same table serves a character shooting an ALIEN and ALIENS
attacking a character.
"""

from __future__ import annotations

from typing import Final

from balancelab.simulate.obcy.rules import COMBAT_DATA

NONE: Final = 0
ATTACKER: Final = 1
DEFENDER: Final = 2


def _parse(cell: str) -> tuple[int, int, int]:
    if cell == "-":
        return (NONE, 0, 0)
    side = ATTACKER if cell[0] == "A" else DEFENDER
    loss, retreat = cell[1:].split("/")
    return (side, int(loss), int(retreat))


COLUMNS: tuple[int, ...] = tuple(COMBAT_DATA["columns"])
COL_MIN, COL_MAX = COLUMNS[0], COLUMNS[-1]
#: TABLE[die - 1][attack - COL_MIN] = (side, strength lost, spaces retreated).
TABLE: tuple[tuple[tuple[int, int, int], ...], ...] = tuple(
    tuple(_parse(c) for c in row) for row in COMBAT_DATA["rows"]
)


def combat_result(attack: int, die: int, offset: int = 4) -> tuple[int, int, int]:
    """Look up the COMBAT RESULT table.

    Args:
        attack: attack strength (effectiveness minus the defender's strength).
        die: the die roll, 1..6.
        offset: ``crt_offset`` option; 4 reads the table as printed, other values shift the
            column (a what-if knob).

    Returns:
        ``(side, loss, retreat)``: side is NONE, ATTACKER or DEFENDER (who loses ``loss``
        strength points and retreats ``retreat`` spaces).
    """
    col = attack + offset - 4
    if col < COL_MIN:
        col = COL_MIN
    elif col > COL_MAX:
        col = COL_MAX
    return TABLE[die - 1][col - COL_MIN]


def result_text(res: tuple[int, int, int]) -> str:
    """A result in words: ``defender loses 1, retreats 1``."""
    side, loss, retreat = res
    if side == NONE:
        return "no effect"
    who = "attacker" if side == ATTACKER else "defender"
    return f"{who} loses {loss}, retreats {retreat}"
