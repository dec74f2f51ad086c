"""Action and decision codes of Obcy.

An action is a tuple of small ints whose first element is an opcode below. A *decision* code
says what the current seat is deciding (exposed in the view as ``view.decision``).
"""

from __future__ import annotations

# -- opcodes (first element of an action tuple) -------------------------------------------------
T_MOVE = 1  # (T_MOVE, space): drive the transporter (4.2)
T_STAY = 2  # (T_STAY,): the transporter does not move
ACT = 3  # (ACT, c): character c starts its actions (a rider leaves the transporter)
END_PHASE = 4  # (END_PHASE,): the expedition ends its phase
MOVE = 5  # (MOVE, space): walk to space along a shortest legal path (1 AP per space)
PICK = 6  # (PICK, item): pick up an item here (from the floor first, else the store)
DROP = 7  # (DROP, item): drop an item here
GIVE = 8  # (GIVE, item, c): pass an item to an adjacent character
HEAL = 9  # (HEAL, c): Bishop uses a medical pack on an adjacent character
READ = 10  # (READ,): read a mission from a disk at a computer
CHARGE = 11  # (CHARGE, space): collapse an adjacent corridor space
SHOOT = 12  # (SHOOT, alien_id, weapon, shots)
GRENADE = 13  # (GRENADE, target, n1, n2): hit target and neighbours n1, n2 (-1 = none)
BOARD = 14  # (BOARD,): climb into the fuelled transporter (ends the character's actions)
END_ACT = 15  # (END_ACT,): the character ends its actions
REENTER = 16  # (REENTER, k): leave the passage track through airlock k (1..5)
QUEEN = 17  # (QUEEN,): declare a fight with the ALIEN QUEEN (Variant 1)
NO_QUEEN = 18  # (NO_QUEEN,): do not fight now
RETREAT = 19  # (RETREAT, space): end the retreat on this space
HATCH = 20  # (HATCH, strength, k): a new ALIEN on hatching space k (0..4)
HATCH_END = 21  # (HATCH_END,): hatch no more this phase
A_MOVE = 22  # (A_MOVE, space): move the current ALIEN there (its own space = stay)
A_TARGET = 23  # (A_TARGET, c): the current ALIEN attacks character c

# -- decisions (what the current seat is deciding) ----------------------------------------------
D_TRANSPORT = 0
D_PICK = 1
D_CHAR = 2
D_QUEEN = 3
D_RETREAT = 4
D_HATCH = 5
D_ALIEN_MOVE = 6
D_ALIEN_TARGET = 7
D_OVER = 8
DECISION_NAMES = (
    "transporter", "choose character", "character actions", "Queen fight", "retreat",
    "hatching", "ALIEN movement", "ALIEN attack target", "over",
)

# -- character states ------------------------------------------------------------------------------
ON_BOARD, ABOARD, TRACK, DEAD = 0, 1, 2, 3
