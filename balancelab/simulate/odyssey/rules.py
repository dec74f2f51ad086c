"""Rule options of *2001: A Space Odyssey, the board game*: every rulebook number, every assumed
reading, and the what-if options, as one frozen dataclass.

Sources: ``rulebook: <section>`` (../shared/rulebooks/odyssey-2001.txt), ``assumed: <reason>``
(our readings where the rulebook is silent or ambiguous: the source says which; the reasoning
is in ../shared/design/odyssey.md, section 1(c)), ``what-if: <meaning>`` (not in the rulebook;
for designers' questions).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from balancelab.simulate.options import OptionError, RuleOptions, option

#: the crewmembers, in the clockwise seat order used when they are drawn (Bowman always first)
CREWMEMBERS = ("bowman", "poole", "hunter", "kaminski", "whitehead")
TALK = ("none", "logic", "open")

# -- action ops -------------------------------------------------------------------------------
OP_END: Final = 0
OP_GIVE: Final = 1
OP_REPAIR: Final = 2
OP_OPEN: Final = 3
OP_CANCEL: Final = 4
OP_RECOVER: Final = 5
OP_DISCONNECT: Final = 6
OP_ASK: Final = 7
OP_MOVE: Final = 8
OP_HAL_PLAY: Final = 9
OP_TARGET: Final = 10
OP_SCAN: Final = 11
OP_REVEAL: Final = 12
OP_HAL_DISCARD: Final = 13
OP_LIMIT: Final = 14
OP_SCAN_DISCARD: Final = 15
OP_ASK_GIVE: Final = 16
OP_RECOVER_TAKE: Final = 17
REV: Final = 50  # added to a HAL card to mean "from the revealed row"
PAIR: Final = 32  # a hand-limit discard of two cards k1 <= k2 has argument PAIR + k1 * 32 + k2
OPS: Final = ("end+draw", "give", "repair", "open", "cancel", "recover", "disconnect", "ask",
              "move", "hal_play", "target", "scan", "reveal", "hal_discard", "limit_discard",
              "scan_discard", "ask_give", "recover_take")

# -- rule events (trace): tuples (code, *args) appended to State.log, worded in ``text`` -----
E_TURN: Final = 0
E_NO_CARD: Final = 1
E_NOTHING_TO_RECOVER: Final = 2
E_HAL_NO_CARD: Final = 3
E_OVER: Final = 4
E_HAL_RESHUFFLE: Final = 5
E_CREW_RESHUFFLE: Final = 6
E_RESTORED: Final = 8  # a repaired system works again: its tile flips back (REPAIR)
E_TARGET_HIT: Final = 9
E_TARGET_MISS: Final = 10
E_REPAIRED: Final = 11
E_MARKER: Final = 12
E_TERMINATED: Final = 13
E_SETUP: Final = 14
E_FIRST: Final = 15
E_HAL_DRAWS: Final = 16
E_HAL_TURN: Final = 17


@dataclass(frozen=True)
class OdysseyOptions(RuleOptions):
    """Options of the odyssey game. Construct with keywords; invalid values raise OptionError."""

    GAME: ClassVar[str] = "odyssey"

    # -- the key questions -------------------------------------------------------------------
    crew: int = option(3, source="rulebook: Overview (3-5 players = HAL + 2-4 crew)",
                       help="number of crewmembers (HAL is the other player)",
                       choices=(2, 3, 4), key=True)
    hal_extra_turns: int = option(0, source="rulebook: HAL Turn, Difficulty Levels",
                                  help="extra HAL opening turns: -1 easier, +1 harder",
                                  choices=(-1, 0, 1), key=True)
    crew_members: str = option(
        "random",
        source="assumed: players choose their colours (Crewmember Setup 10); we draw Bowman's "
               "companions at random from the rules' rng, or take a fixed list",
        help="'random' (Bowman + a random draw of the others) or a comma list starting with "
             "bowman, e.g. 'bowman,poole,hunter'")

    # -- setup -------------------------------------------------------------------------------
    opening_turns_2: int = option(4, source="rulebook: HAL Turn (table)",
                                  help="HAL opening turns with 2 crewmembers", low=0, high=20)
    opening_turns_3: int = option(3, source="rulebook: HAL Turn (table)",
                                  help="HAL opening turns with 3 crewmembers", low=0, high=20)
    opening_turns_4: int = option(2, source="rulebook: HAL Turn (table)",
                                  help="HAL opening turns with 4 crewmembers", low=0, high=20)
    hal_marker_start: int = option(6, source="rulebook: General Setup 2, HAL Setup 8",
                                   help="HAL Marker start = HAL hand size", low=4, high=12)
    hal_revealed: int = option(3, source="rulebook: HAL Setup 9",
                               help="HAL cards always face-up in front of the screen",
                               low=0, high=3)
    crew_start_hand: int = option(2, source="rulebook: Crewmember Setup 14",
                                  help="cards each crewmember draws at setup", low=0, high=6)

    # -- systems -----------------------------------------------------------------------------
    limit_grv: int = option(4, source="rulebook: System Tiles", help="GRV malfunction limit",
                            low=1, high=5)
    limit_mem: int = option(4, source="rulebook: System Tiles", help="MEM malfunction limit",
                            low=1, high=5)
    limit_com: int = option(4, source="rulebook: System Tiles", help="COM malfunction limit",
                            low=1, high=5)
    limit_lif: int = option(7, source="rulebook: System Tiles",
                            help="LIF malfunction limit (above the printed 7 is a what-if "
                            "longer tile, e.g. for balancelab balance)", low=1, high=16)
    systems_to_win: int = option(3, source="rulebook: End of the Game",
                                 help="terminated systems with which HAL wins", low=1, high=4)
    sequences_to_win: int = option(3, source="rulebook: End of the Game",
                                   help="Logic sequences with which the crew win", low=1, high=4)

    # -- crew turn ---------------------------------------------------------------------------
    move: int = option(2, source="rulebook: Crewmember Actions, MOVE",
                       help="spaces a crewmember may move", low=0, high=6)
    move_grv_terminated: int = option(1, source="rulebook: System Tiles (GRV)",
                                      help="spaces a crewmember may move with GRV terminated",
                                      low=0, high=6)
    hand_size: int = option(6, source="rulebook: Hand Size", help="crew hand size", low=1,
                            high=12)
    hand_size_mem_terminated: int = option(4, source="rulebook: Hand Size",
                                           help="crew hand size with MEM terminated", low=1,
                                           high=12)
    poole_hand_size: int = option(7, source="rulebook: Crewmember Special Abilities (Poole)",
                                  help="Poole's hand size", low=1, high=12)
    poole_hand_size_mem_terminated: int = option(
        5, source="rulebook: Crewmember Special Abilities (Poole)",
        help="Poole's hand size with MEM terminated", low=1, high=12)
    draw_picturephone: int = option(2, source="rulebook: Draw Cards",
                                    help="cards drawn at a Picturephone", low=0, high=6)
    draw_picturephone_com_terminated: int = option(
        1, source="rulebook: Draw Cards, System Tiles (COM)",
        help="cards drawn at a Picturephone with COM terminated", low=0, high=6)
    draw_at_system: int = option(
        1, source="assumed: the rulebook names no number for the GRV, MEM and COM spaces; we "
                  "draw 1",
        help="cards drawn at the GRV, MEM and COM spaces", low=0, high=6)
    kaminski_draw: int = option(1, source="rulebook: Crewmember Special Abilities (Kaminski)",
                                help="Kaminski's extra draw at POD BAY or THE HAL-9000 CORE",
                                low=0, high=6)
    specialist_repair: int = option(2, source="rulebook: Crewmember Special Abilities",
                                    help="malfunctions removed by a specialist's Repair card",
                                    low=1, high=4)
    sequence_length: int = option(3, source="rulebook: DISCONNECT",
                                  help="Logic cards in a sequence", low=2, high=4)
    third_sequence_guard: bool = option(
        True, source="rulebook: DISCONNECT (IMPORTANT: the second sequence must leave a third)",
        help="the second sequence must leave a possible third")

    # -- decks -------------------------------------------------------------------------------
    deck_grv: int = option(5, source="rulebook: HAL cards", help="GRV Malfunction cards",
                           low=0, high=12)
    deck_mem: int = option(5, source="rulebook: HAL cards", help="MEM Malfunction cards",
                           low=0, high=12)
    deck_com: int = option(5, source="rulebook: HAL cards", help="COM Malfunction cards",
                           low=0, high=12)
    deck_lif: int = option(8, source="rulebook: HAL cards", help="LIF Malfunction cards",
                           low=0, high=12)
    deck_target: int = option(2, source="rulebook: HAL cards", help="Target cards", low=0,
                              high=6)
    deck_scan: int = option(3, source="rulebook: HAL cards", help="Scan cards", low=0, high=6)
    deck_lipread: int = option(1, source="rulebook: HAL cards", help="Lipread cards", low=0,
                               high=3)
    deck_close_door: bool = option(True, source="rulebook: HAL cards (Close Door x1 per door)",
                                   help="one Close Door card per door in the HAL deck")
    deck_wild_repair: int = option(4, source="rulebook: Repair cards", help='"???" Repair cards',
                                   low=0, high=8)
    deck_typed_repair: int = option(2, source="rulebook: Repair cards",
                                    help="Repair cards of each system", low=0, high=6)
    deck_override: int = option(6, source="rulebook: OPEN DOOR", help="Manual Override cards",
                                low=0, high=12)
    deck_cancel: int = option(4, source="rulebook: CANCEL", help="Cancel cards", low=0, high=8)
    deck_recover: int = option(2, source="rulebook: RECOVER", help="Recover cards", low=0,
                               high=6)

    # -- assumed readings (design notes 1(c)) ------------------------------------------------
    pod_strict: bool = option(
        True, source="assumed: our reading of POD BAY (move or repair applies on the turn you "
                     "start on the POD and on the turn you enter it)",
        help="false: a crewmember who moves onto the POD may repair that turn")
    whitehead_remote_repair: bool = option(
        False, source="assumed: our reading of Whitehead's ability (he repairs where he stands)",
        help="true: Whitehead may repair any system from anywhere")
    lipread_disconnect_discard: bool = option(
        False, source="assumed: our reading (only CANCEL removes Lipread; LIPREAD CARD: "
                      "'continues until a crewmember plays a Cancel card') over DISCONNECT's "
                      "'discard 1 card of their choice (either revealed or not)'",
        help="true: HAL may discard its revealed Lipread after a Disconnect")
    lipread_null_play: bool = option(
        True, late=True,
        source="assumed: design note 9 (HAL may play a hidden Lipread as a null card); "
               "the rulebook's HAL Turn ('HAL plays 1 card') neither allows nor forbids "
               "it, and LIPREAD CARD gives the card no play effect",
        help="false: HAL may not play a hidden Lipread as a null card (unless it has no "
             "other card to play)")
    optional_draw: bool = option(
        True, source="assumed: our reading of 'you may draw' (any number from 0 to n cards)",
        help="false: a crewmember always draws the full number")
    board_file: str = option(
        "", source="assumed: the rulebook prints no board data; package data "
                   "balancelab/data/odyssey_board.toml (key: spaces)",
        help="path of a board TOML replacing the assumed Discovery Board ('' = built-in)",
        data="file")

    # -- what-if (not in the rulebook) -------------------------------------------------------
    hal_turn_every: int = option(
        1, source="what-if: crew turns per HAL turn (rulebook: 1, 'HAL takes 1 turn after each "
                  "crewmember')",
        help="crew turns between HAL turns after the opening", low=1, high=8)
    crew_talk: str = option(
        "none", source="what-if: how much the crew announce (HAL hears it; nothing under "
                       "Lipread); not in the rulebook",
        help="none | logic (Logic numbers held) | open (whole hands)", choices=TALK)
    max_rounds: int = option(
        400, source="what-if: hard cap on crew turns; a capped game ends with end_reason='cap' "
                    "and no winner",
        help="crew turns after which the game is stopped", low=1, high=100000)

    # -- cross-field checks ------------------------------------------------------------------
    def check(self) -> None:
        if self.opening_turns() < 0:
            raise OptionError("HAL's opening turns (table + hal_extra_turns) must be >= 0")
        if self.crew_members != "random":
            names = self.roster_fixed()
            if len(names) != self.crew:
                raise OptionError(
                    f"option 'crew_members' of game 'odyssey' must name {self.crew} "
                    f"crewmembers (crew={self.crew}); got {self.crew_members!r}")
            bad = [n for n in names if n not in CREWMEMBERS]
            if bad or len(set(names)) != len(names) or names[0] != "bowman":
                raise OptionError(
                    "option 'crew_members' of game 'odyssey' must be 'random' or distinct names "
                    f"from {', '.join(CREWMEMBERS)} starting with bowman; "
                    f"got {self.crew_members!r}")

    def opening_turns(self) -> int:
        """HAL's opening turns: the table value for ``crew`` plus ``hal_extra_turns``."""
        table = {2: self.opening_turns_2, 3: self.opening_turns_3, 4: self.opening_turns_4}
        return table[self.crew] + self.hal_extra_turns

    def roster_fixed(self) -> tuple[str, ...]:
        """The fixed roster named by ``crew_members`` (empty for ``random``)."""
        if self.crew_members == "random":
            return ()
        return tuple(p.strip().lower() for p in self.crew_members.replace("/", ",").split(",")
                     if p.strip())

    def limits(self) -> tuple[int, int, int, int]:
        """Malfunction limits in system order (GRV, MEM, COM, LIF)."""
        return (self.limit_grv, self.limit_mem, self.limit_com, self.limit_lif)
