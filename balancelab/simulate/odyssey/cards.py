"""Integer-coded cards of the two 36-card decks (rulebook: Contents, HAL Actions, Repair cards).

Cards of one kind are identical, so a card is its kind: a small int. Hands are count vectors
(``list[int]`` indexed by kind) or lists of kinds; piles are lists of kinds (top = end).

HAL deck (36): GRV/MEM/COM Malfunction x5 each, LIF Malfunction x8, Close Door 1..7 x1 each,
Target x2, Scan x3, Lipread x1.

Crew deck (36): "???" Repair x4, MEM/COM/GRV/LIF Repair x2 each, Manual Override x6, Cancel x4,
Recover x2, Logic Terminal 1..12 x1 each.
"""

from __future__ import annotations

from typing import Final

# -- systems (index order used everywhere: malfunction counts, limits) -------------------------
GRV: Final = 0
MEM: Final = 1
COM: Final = 2
LIF: Final = 3
SYSTEMS: Final = ("GRV", "MEM", "COM", "LIF")
SYSTEM_NAMES: Final = ("Gravity", "Memory", "Communication", "Life Support")

# -- HAL cards --------------------------------------------------------------------------------
H_GRV: Final = 0  # Malfunction at system k has kind k
H_MEM: Final = 1
H_COM: Final = 2
H_LIF: Final = 3
H_DOOR1: Final = 4  # Close Door d (1..7) has kind H_DOOR1 + d - 1
H_TARGET: Final = 11
H_SCAN: Final = 12
H_LIPREAD: Final = 13
N_HAL_KINDS: Final = 14


def hal_door(door: int) -> int:
    """The kind of the Close Door card of door ``door`` (1..7)."""
    return H_DOOR1 + door - 1


def hal_card_name(kind: int) -> str:
    """The card's name as printed (``"COM Malfunction"``, ``"Close Door 3"``)."""
    if kind < 4:
        return f"{SYSTEMS[kind]} Malfunction"
    if kind < H_TARGET:
        return f"Close Door {kind - H_DOOR1 + 1}"
    return ("Target", "Scan", "Lipread")[kind - H_TARGET]


# -- crew cards -------------------------------------------------------------------------------
C_WILD: Final = 0  # "???" Repair
C_REPAIR_MEM: Final = 1
C_REPAIR_COM: Final = 2
C_REPAIR_GRV: Final = 3
C_REPAIR_LIF: Final = 4
C_OVERRIDE: Final = 5  # Manual Override (open a door)
C_CANCEL: Final = 6
C_RECOVER: Final = 7
C_LOGIC1: Final = 8  # Logic Terminal n (1..12) has kind C_LOGIC1 + n - 1
N_CREW_KINDS: Final = 20
LOGIC_KINDS: Final = tuple(range(C_LOGIC1, C_LOGIC1 + 12))

#: the system a typed Repair card repairs (kind -> system), "???" maps to -1
REPAIR_SYSTEM: Final = {C_WILD: -1, C_REPAIR_MEM: MEM, C_REPAIR_COM: COM, C_REPAIR_GRV: GRV,
                 C_REPAIR_LIF: LIF}
#: the typed Repair card of each system (system -> kind)
SYSTEM_REPAIR: Final = {GRV: C_REPAIR_GRV, MEM: C_REPAIR_MEM, COM: C_REPAIR_COM, LIF: C_REPAIR_LIF}
REPAIR_KINDS: Final = (C_WILD, C_REPAIR_MEM, C_REPAIR_COM, C_REPAIR_GRV, C_REPAIR_LIF)


def logic(n: int) -> int:
    """The kind of Logic Terminal card ``n`` (1..12)."""
    return C_LOGIC1 + n - 1


def crew_card_name(kind: int) -> str:
    """The card's name as printed (``"COM Repair"``, ``"Logic 7"``)."""
    if kind >= C_LOGIC1:
        return f"Logic {kind - C_LOGIC1 + 1}"
    return ("??? Repair", "MEM Repair", "COM Repair", "GRV Repair", "LIF Repair",
            "Manual Override", "Cancel", "Recover")[kind]


def hal_deck(grv: int, mem: int, com: int, lif: int, doors: int, target: int, scan: int,
             lipread: int) -> list[int]:
    """The HAL deck as a list of kinds, unshuffled (rulebook: HAL cards)."""
    out = [H_GRV] * grv + [H_MEM] * mem + [H_COM] * com + [H_LIF] * lif
    out += [hal_door(d) for d in range(1, doors + 1)]
    out += [H_TARGET] * target + [H_SCAN] * scan + [H_LIPREAD] * lipread
    return out


def crew_deck(wild: int, typed: int, override: int, cancel: int, recover: int) -> list[int]:
    """The crew deck as a list of kinds, unshuffled (rulebook: Repair cards, Crewmember Actions).

    ``typed`` is the number of each of the four typed Repair cards; Logic 1..12 once each.
    """
    out = [C_WILD] * wild
    for k in (C_REPAIR_MEM, C_REPAIR_COM, C_REPAIR_GRV, C_REPAIR_LIF):
        out += [k] * typed
    out += [C_OVERRIDE] * override + [C_CANCEL] * cancel + [C_RECOVER] * recover
    out += list(LOGIC_KINDS)
    return out
