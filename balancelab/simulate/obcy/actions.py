"""Action and decision codes of Obcy.

An action is a tuple of small ints whose first element is an opcode below. A *decision* code
says what the current seat is deciding (exposed in the view as ``view.decision``).
"""

from __future__ import annotations

from typing import Final

# -- opcodes (first element of an action tuple) -------------------------------------------------
T_MOVE: Final = 1  # (T_MOVE, space): drive the transporter (4.2)
T_STAY: Final = 2  # (T_STAY,): the transporter does not move
ACT: Final = 3  # (ACT, c): character c starts its actions (a rider leaves the transporter)
END_PHASE: Final = 4  # (END_PHASE,): the expedition ends its phase
MOVE: Final = 5  # (MOVE, space): walk to space along a shortest legal path (1 AP per space)
PICK: Final = 6  # (PICK, item): pick up an item here (from the floor first, else the store)
DROP: Final = 7  # (DROP, item): drop an item here
GIVE: Final = 8  # (GIVE, item, c): pass an item to an adjacent character
HEAL: Final = 9  # (HEAL, c): Bishop uses a medical pack on an adjacent character
READ: Final = 10  # (READ,): read a mission from a disk at a computer
CHARGE: Final = 11  # (CHARGE, space): collapse an adjacent corridor space
SHOOT: Final = 12  # (SHOOT, alien_id, weapon, shots)
GRENADE: Final = 13  # (GRENADE, target, n1, n2): hit target and neighbours n1, n2 (-1 = none)
BOARD: Final = 14  # (BOARD,): climb into the fuelled transporter (ends the character's actions)
END_ACT: Final = 15  # (END_ACT,): the character ends its actions
REENTER: Final = 16  # (REENTER, k): leave the passage track through airlock k (1..5)
QUEEN: Final = 17  # (QUEEN,): declare a fight with the ALIEN QUEEN (Variant 1)
NO_QUEEN: Final = 18  # (NO_QUEEN,): do not fight now
RETREAT: Final = 19  # (RETREAT, space): end the retreat on this space
HATCH: Final = 20  # (HATCH, strength, k): a new ALIEN on hatching space k (0..4)
HATCH_END: Final = 21  # (HATCH_END,): hatch no more this phase
A_MOVE: Final = 22  # (A_MOVE, space): move the current ALIEN there (its own space = stay)
A_TARGET: Final = 23  # (A_TARGET, c): the current ALIEN attacks character c
A_PICK: Final = 24  # (A_PICK, alien_id): this ALIEN moves next (9.2 sets no order)

# -- decisions (what the current seat is deciding) ----------------------------------------------
D_TRANSPORT: Final = 0
D_PICK: Final = 1
D_CHAR: Final = 2
D_QUEEN: Final = 3
D_RETREAT: Final = 4
D_HATCH: Final = 5
D_ALIEN_MOVE: Final = 6
D_ALIEN_TARGET: Final = 7
D_OVER: Final = 8
D_ALIEN_PICK: Final = 9
DECISION_NAMES = (
    "transporter", "choose character", "character actions", "Queen fight", "retreat",
    "hatching", "ALIEN movement", "ALIEN attack target", "over", "which ALIEN moves next",
)

# -- character states ------------------------------------------------------------------------------
ON_BOARD: Final = 0
ABOARD: Final = 1
TRACK: Final = 2
DEAD: Final = 3
