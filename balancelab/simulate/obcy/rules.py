"""Obcy rule options and constants, and the rule data (characters, items, missions) of
:mod:`~balancelab.simulate.obcy.data`.

Every number of the rulebook and every ASSUMED value of ``design/obcy.md`` is a field of
:class:`ObcyOptions`; the data defaults live in ``balancelab/data/obcy_*.toml``, each marked
``source = "rulebook: …"`` or ``"assumed: …"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from balancelab.simulate.obcy.data import (  # noqa: F401  (the rule data, re-exported)
    _ITEMS,
    CHARACTERS_DATA,
    COMBAT_DATA,
    MISSIONS_DATA,
)
from balancelab.simulate.options import OptionError, RuleOptions, option

#: Character names in engine index order.
CHARACTER_NAMES: tuple[str, ...] = tuple(c["name"] for c in CHARACTERS_DATA)
RIPLEY: Final = 0
BISHOP: Final = 1
GORMAN: Final = 2
HICKS: Final = 3
HUDSON: Final = 4
VASQUEZ: Final = 5

# -- item codes (pocket contents) -------------------------------------------------------------
SUIT: Final = 0
FUEL: Final = 1
DISK: Final = 2
COMP: Final = 3
CHARGE: Final = 4
MED: Final = 5
GRENADE: Final = 6
PISTOL: Final = 7
CARBINE: Final = 8
FLAMER: Final = 9
#: An ammo clip holding k charges is ``CLIP0 + k``.
CLIP0: Final = 10
CLIP_FULL_MAX: Final = 30  # codes CLIP0..CLIP0+clip_charges
EMPTY: Final = -1
ITEM_NAMES = {
    SUIT: "space suit",
    FUEL: "fuel can",
    DISK: "floppy disk",
    COMP: "spare component",
    CHARGE: "explosive charge",
    MED: "medical pack",
    GRENADE: "grenade",
    PISTOL: "pistol",
    CARBINE: "carbine",
    FLAMER: "flamethrower",
}
WEAPONS = (PISTOL, CARBINE, FLAMER)
_ITEM_BY_WORD = {
    "suit": SUIT,
    "fuel": FUEL,
    "disk": DISK,
    "spare_component": COMP,
    "charge": CHARGE,
    "medical_pack": MED,
    "grenade": GRENADE,
    "pistol": PISTOL,
    "carbine": CARBINE,
    "flamethrower": FLAMER,
}
#: Items whose number is limited (tokens set aside when used or lost); the rest are unlimited.
LIMITED = (SUIT, FUEL, DISK, CHARGE, MED, GRENADE, PISTOL, CARBINE, FLAMER)


def item_name(code: int) -> str:
    """The rulebook's name of an item code (clips show their charges)."""
    if code >= CLIP0:
        return f"ammo clip ({code - CLIP0})"
    return ITEM_NAMES[code]


def starting_items(full_clip: int) -> tuple[tuple[int, ...], ...]:
    """Each character's starting pockets as item codes (a clip starts full)."""
    out = []
    for c in CHARACTERS_DATA:
        out.append(tuple(full_clip if w == "clip" else _ITEM_BY_WORD[w] for w in c["items"]))
    return tuple(out)


#: Per character: the weapon codes (and GRENADE) it may use.
WEAPON_USE: tuple[frozenset[int], ...] = tuple(
    frozenset(_ITEM_BY_WORD[w] for w in c["weapons"]) for c in CHARACTERS_DATA
)


def _i(name: str) -> Any:
    return _ITEMS[name]["value"]


def _s(name: str) -> str:
    return str(_ITEMS[name]["source"])


@dataclass(frozen=True)
class ObcyOptions(RuleOptions):
    """Rule options of Obcy. Key options: ``queen_variant``, ``queen_tasks``."""

    GAME = "obcy"

    queen_variant: str = option(
        "tasks",
        source="rulebook: 8. The ALIEN QUEEN (players choose Variant 1 or 2)",
        help="roll: Variant 1 (fight the Queen by a die roll against the points); "
        "tasks: Variant 2 (the Queen dies after queen_tasks tasks)",
        choices=("roll", "tasks"),
        key=True,
    )
    queen_tasks: int = option(
        3,
        source="rulebook: 8. Variant 2 (example: 3 tasks)",
        help="tasks needed to kill the Queen in Variant 2",
        low=1,
        high=20,
        key=True,
    )
    max_rounds: int = option(
        80,
        source="assumed: the rules set no limit; a cap that stops stalled games",
        help="game rounds after which a stalled game is stopped (no winner)",
        low=1,
        high=10000,
    )
    action_points: int = option(
        6, source="rulebook: 3. Action Points", help="action points per character per phase",
        low=1, high=20,
    )
    pockets: int = option(
        3, source="rulebook: 2.2 Pockets", help="pockets (items carried) per character",
        low=1, high=10,
    )
    strengths: tuple[int, ...] = option(
        tuple(int(c["strength"]) for c in CHARACTERS_DATA),
        source="assumed: package data balancelab/data/obcy_characters.toml (key: strength; "
               "Hicks 5 is the rulebook's, the others are not printed)",
        help="starting strength of Ripley, Bishop, Gorman, Hicks, Hudson, Vasquez",
        low=1,
        high=20,
    )
    transporter_range: int = option(
        10, source="rulebook: 4.2 Transporter", help="spaces per phase of the transporter",
        low=1, high=50,
    )
    fuel_phases: int = option(
        3, source="rulebook: 4.2 Transporter", help="phases of movement per fuel can",
        low=1, high=20,
    )
    passage_len: int = option(
        _i("passage_len"), source=_s("passage_len"),
        help="spaces on the passage track (IN .. OUT)", low=2, high=10,
    )
    alien_move: int = option(
        4, source="rulebook: 9.2 Movement of the ALIENS", help="spaces an ALIEN may move",
        low=1, high=10,
    )
    alien_max_strength: int = option(
        4, source="rulebook: 9. The ALIENS", help="greatest strength of one ALIEN",
        low=1, high=10,
    )
    duct_multiplier: int = option(
        2, source="rulebook: 9.2 (strength in a ventilation duct counts double)",
        help="strength multiplier of an ALIEN standing in a duct", low=1, high=5,
    )
    grate_is_duct: bool = option(
        True,
        source="assumed: the rulebook does not say whether a grate counts as duct (9.2)",
        help="a duct grate counts as duct (strength x2, metamorphosis)",
    )
    hatch_die: int = option(
        6, source="rulebook: 9.1 Hatching (one six-sided die)",
        help="sides of the hatching die", low=1, high=20,
    )
    hatching_held_space: str = option(
        "closed",
        source="assumed: no hatching on a space holding a character; "
        "the rulebook (9.1) does not say",
        help="closed: no ALIEN hatches on a hatching space where a character stands (if "
        "characters hold all five, they hatch there anyway: 9.1 hatching takes place in "
        "every phase); open: ALIENS may hatch on a held space, and must leave it in their "
        "movement",
        choices=("closed", "open"),
    )
    hatch_onto_older: bool = option(
        True,
        source="assumed: our reading of hatching next to older ALIENS; "
        "the rulebook (9.1, 9.2) does not say",
        help="new ALIENS may hatch on a hatching space where an ALIEN of an earlier phase "
        "stands (false: only on spaces free of older ALIENS, unless every hatching space "
        "holds one)",
    )
    max_open_missions: int = option(
        3, source="rulebook: 7. Carrying Out Missions", help="uncompleted tasks drawn at once",
        low=1, high=20,
    )
    discard_impossible_missions: bool = option(
        True,
        source="assumed: the rulebook (7.) does not say what happens to a task that cannot be done",
        help="a task that can no longer be completed is discarded without a point",
    )
    clear_mission_when_drawn: bool = option(
        True, late=True,
        source="assumed: design note 24 checks M13 'at the end of an Expedition phase after "
               "it was drawn', read as including the phase it is drawn in (rulebook 7. says "
               "no more)",
        help="M13 (no ALIEN near computer 1) may be completed at the end of the Expedition "
             "phase it is drawn in; false: only at the end of a later one",
    )
    airlock_stand_exits: bool = option(
        False, late=True,
        source="assumed: a character that re-entered through an airlock may stand on it; "
               "rule 4.3 read literally ('When a character stands on a space marked as an "
               "airlock, it is moved onto the passage track') sends it out again",
        help="a character that ends its action standing on an airlock (after re-entering "
             "through it) goes out again onto the passage track (rule 4.3 read literally)",
    )
    alien_token_limit: int = option(
        0,
        source="assumed: the box's 72 ALIEN tokens treated as unlimited",
        help="most ALIENS on the board at once (0 = unlimited)",
        low=0, high=1000,
    )
    crt_offset: int = option(
        4,
        source="assumed: package data balancelab/data/obcy_combat.toml (key: rows; the "
               "rulebook's COMBAT RESULT values are not public)",
        help="shift of the COMBAT RESULT columns (4 = the table as printed in the data)",
        low=-10, high=20,
    )
    mission_radius: int = option(
        3, source="assumed: package data balancelab/data/obcy_missions.toml (M13)",
        help="M13: spaces kept clear of ALIENS",
        low=0, high=20,
    )
    mission_kills: int = option(
        3, source="assumed: package data balancelab/data/obcy_missions.toml (M14)",
        help="M14: kills in one phase",
        low=1, high=20,
    )
    mission_grenade_kills: int = option(
        2, source="assumed: package data balancelab/data/obcy_missions.toml (M17)",
        help="M17: kills by one grenade",
        low=1, high=10,
    )
    suit_limit: int = option(_i("suit_limit"), source=_s("suit_limit"),
                             help="space suits", low=0, high=50)
    fuel_limit: int = option(_i("fuel_limit"), source=_s("fuel_limit"),
                             help="fuel cans", low=0, high=50)
    disk_limit: int = option(_i("disk_limit"), source=_s("disk_limit"),
                             help="floppy disks in the game at once", low=0, high=50)
    charge_limit: int = option(_i("charge_limit"), source=_s("charge_limit"),
                               help="explosive charges", low=0, high=50)
    medpack_limit: int = option(_i("medpack_limit"), source=_s("medpack_limit"),
                                help="medical packs (incl. Bishop's)", low=0, high=50)
    grenade_limit: int = option(_i("grenade_limit"), source=_s("grenade_limit"),
                                help="grenades (incl. Hicks's)", low=0, high=50)
    pistol_limit: int = option(_i("pistol_limit"), source=_s("pistol_limit"),
                               help="pistols (incl. starting ones)", low=0, high=50)
    carbine_limit: int = option(_i("carbine_limit"), source=_s("carbine_limit"),
                                help="carbines (incl. starting ones)", low=0, high=50)
    flamethrower_limit: int = option(_i("flamethrower_limit"), source=_s("flamethrower_limit"),
                                     help="flamethrowers (incl. Vasquez's)", low=0, high=50)
    pistol_range: int = option(_i("pistol_range"), source=_s("pistol_range"),
                               help="pistol range", low=1, high=6)
    pistol_firepower: int = option(_i("pistol_firepower"), source=_s("pistol_firepower"),
                                   help="pistol firepower", low=0, high=20)
    carbine_range: int = option(_i("carbine_range"), source=_s("carbine_range"),
                                help="carbine range", low=1, high=6)
    carbine_firepower: int = option(_i("carbine_firepower"), source=_s("carbine_firepower"),
                                    help="carbine firepower", low=0, high=20)
    flamethrower_range: int = option(_i("flamethrower_range"), source=_s("flamethrower_range"),
                                     help="flamethrower range", low=1, high=6)
    flamethrower_firepower: int = option(
        _i("flamethrower_firepower"), source=_s("flamethrower_firepower"),
        help="flamethrower firepower", low=0, high=20,
    )
    clip_charges: int = option(_i("clip_charges"), source=_s("clip_charges"),
                               help="charges in a full ammo clip", low=1, high=20)
    grenade_range: int = option(_i("grenade_range"), source=_s("grenade_range"),
                                help="grenade throwing distance", low=1, high=6)
    map_file: str = option(
        "", source="assumed: the rulebook's map is not public; package data "
                   "balancelab/data/obcy_map.json",
        help="path of a map JSON replacing the assumed base map ('' = built-in; "
             "alternatives in balancelab/data/alternatives/obcy/)",
        data="file")

    def check(self) -> None:
        if self.map_file:
            from balancelab.simulate.obcy import maps

            try:
                maps.load(self.map_file)
            except (maps.MapError, OSError) as exc:
                raise OptionError(f"option 'map_file' of game 'obcy': {exc}") from None
        if len(self.strengths) != 6:
            raise OptionError(
                f"option 'strengths' of game 'obcy' needs 6 values (Ripley, Bishop, Gorman, "
                f"Hicks, Hudson, Vasquez); got {len(self.strengths)}"
            )
        starts = starting_items(CLIP0 + self.clip_charges)
        for c, items in enumerate(starts):
            if len(items) > self.pockets:
                raise OptionError(
                    f"option 'pockets' of game 'obcy' must hold {CHARACTER_NAMES[c]}'s "
                    f"{len(items)} starting items; got {self.pockets}"
                )
        for code, name in ((PISTOL, "pistol_limit"), (CARBINE, "carbine_limit"),
                           (FLAMER, "flamethrower_limit"), (GRENADE, "grenade_limit"),
                           (MED, "medpack_limit")):
            held = sum(items.count(code) for items in starts)
            if getattr(self, name) < held:
                raise OptionError(
                    f"option {name!r} of game 'obcy' must be at least {held} "
                    f"(the starting items); got {getattr(self, name)}"
                )

    def limits(self) -> dict[int, int]:
        """Item code → token limit for the limited items."""
        return {
            SUIT: self.suit_limit, FUEL: self.fuel_limit, DISK: self.disk_limit,
            CHARGE: self.charge_limit, MED: self.medpack_limit, GRENADE: self.grenade_limit,
            PISTOL: self.pistol_limit, CARBINE: self.carbine_limit,
            FLAMER: self.flamethrower_limit,
        }

    def weapon_stats(self) -> dict[int, tuple[int, int]]:
        """Weapon code → (range, firepower)."""
        return {
            PISTOL: (self.pistol_range, self.pistol_firepower),
            CARBINE: (self.carbine_range, self.carbine_firepower),
            FLAMER: (self.flamethrower_range, self.flamethrower_firepower),
        }
