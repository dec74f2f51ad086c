"""Rule options and constants of *1998 ISS* (rulebook: ../shared/rulebooks/iss-1998.txt).

Every number the rulebook prints and every ASSUMED number of the design notes
(../shared/design/iss.md, 2(c)/2(d)) is a field of :class:`IssOptions`, so a user who owns the
game can replace an assumption with the printed value (``--set countdowns=1,1,2,2,2,1,2,1``).
Card, module, shuttle and FEDOR-deck tables live in ``balancelab/data/iss_*.toml``
(``data_dir`` points at a replacement copy).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Final

from balancelab.simulate.options import OptionError, RuleOptions, option

# -- the eight action cards (Earth 0-3, ISS 4-7) -----------------------------------------------
TRAIN: Final = 0
LOAD: Final = 1
CONSTRUCT: Final = 2
PLAN: Final = 3
LONG_STAY: Final = 4
INSTALL: Final = 5
OUTSIDE: Final = 6
EXPERIMENT: Final = 7
ACTION_NAMES = (
    "Train Astronauts",
    "Load Material",
    "Construct Modules",
    "Plan Experiments",
    "Long Stay",
    "Install Compartments",
    "Outside Jobs",
    "Conduct Experiments",
)
EARTH_ACTIONS = (TRAIN, LOAD, CONSTRUCT, PLAN)
ISS_ACTIONS = (LONG_STAY, INSTALL, OUTSIDE, EXPERIMENT)

# -- the other decisions' tags (the action encoding: ``state``) and the turn's phases -----------
CARGO: Final = 10
PASS: Final = 11
RETRIEVE: Final = 12
KEEP: Final = 13
COUNTDOWN: Final = 14
XSPACE: Final = 15
GOAL: Final = 16
FPICK: Final = 17

# phases
P_CARGO: Final = 0
P_EXTRA: Final = 1
P_RETRIEVE: Final = 2
P_ACTION: Final = 3
P_KEEP: Final = 4
P_COUNTDOWN: Final = 5
P_XSPACE: Final = 6
P_GOAL: Final = 7
P_FPICK: Final = 8
P_OVER: Final = 9

# -- rule events (trace): told by ``IssState._tell`` only while tracing, worded by ``text`` ----
E_ROUND: Final = 0  # a round begins (start player)
E_TURN: Final = 1  # a player's turn begins
E_FORCED: Final = 2  # an action taken because it was the only one (the action)
E_LAUNCH: Final = 3  # a shuttle launches (shuttle card)
E_DOCK: Final = 4  # a module docks (module card)
E_EXTRA_WON: Final = 5  # a player wins an extra action at a launch
E_TRIGGER: Final = 6  # the last shuttle of a nation is placed (nation)
E_FINAL: Final = 7  # the final round begins
E_GOAL: Final = 8  # a player takes a goal card (player, goal)
E_OVER: Final = 9  # the game ends (final scores)
E_FEDOR_FLIP: Final = 10  # FEDOR flips its action card (action)
E_FEDOR_EXTRA: Final = 11  # FEDOR's extra action after a launch (action)
E_FEDOR_RESHUFFLE: Final = 12  # FEDOR flips the reshuffle card
E_FEDOR_FAILED: Final = 13  # FEDOR cannot perform its action (action)
E_FEDOR_CUBES: Final = 14  # FEDOR's module preparation (module slot, cubes)
E_FEDOR_COUNTDOWN: Final = 15  # FEDOR lowers a countdown (pad, by)
E_FEDOR_LOAD: Final = 16  # FEDOR loads a new shuttle (pad, astronauts, materials)
E_FEDOR_DONE: Final = 17  # FEDOR performed its action (action)

# -- compartment types ------------------------------------------------------------------------
LAB: Final = 0
SW: Final = 1
LS: Final = 2
CRANE: Final = 3
COMM: Final = 4
ANY: Final = 5
COMP_CODES = ("LAB", "SW", "LS", "CRANE", "COMM", "?")
COMP_NAMES = ("laboratory", "space walk", "long stay", "crane", "communication", "any")

# -- nations / shuttle types ------------------------------------------------------------------
RUSSIA: Final = 0
USA: Final = 1
NATIONS = ("russia", "usa")
SHUTTLE_TYPES = ("Soyuz", "Progress", "Endeavour", "Atlantis", "Discovery")

# -- goal kinds (index = goal card id) ---------------------------------------------------------
GOAL_KINDS = (
    "experiments",
    "advanced",
    "astronauts_on_shuttles",
    "materials_on_shuttles",
    "cubes_on_module",
    "tokens",
    "long_stay",
    "external",
    "shuttles",
    "one_of_each",
)

FEDOR_CHOICES = ("human", "first", "random")
#: when a goal may be taken in your turn (rulebook: Goals, "once per turn"; see ``goal_timing``)
GOAL_TIMINGS = ("end_of_turn", "before_countdown", "either")
#: What the what-if ``start_bonus`` gives the later seats.
START_BONUS_KINDS = ("points", "cubes")


@dataclass(frozen=True)
class IssOptions(RuleOptions):
    """Rule options of *1998 ISS*. See the package docstring for the table of options."""

    GAME: ClassVar[str] = "iss"

    # key questions
    players: int = option(
        2, source="rulebook: Components (1-4 players), Solo Mode", low=1, high=4, key=True,
        help="number of players; 1 = solo against FEDOR",
    )
    remove_shuttles: bool = option(
        False, source="rulebook: Setup 7 (recommended for first games)", key=True,
        help="return one random Russian and one random US shuttle card to the box",
    )
    # solo
    fedor_choice: str = option(
        "human", source="assumed: Solo Mode says only 'choose the one you prefer' (who chooses "
                        "is not stated)",
        choices=FEDOR_CHOICES,
        help="who picks FEDOR's installation token when it can take only one of a module's two: "
        "the human seat (a decision), the first printed compartment, or at random",
    )
    solo_start: str = option(
        "random", source="assumed: Solo Mode does not say who starts",
        choices=("random", "player", "fedor"), help="start player in solo mode",
    )
    fedor_astronauts: int = option(
        4, source="rulebook: Solo Mode Setup", low=1, high=5, help="astronauts FEDOR uses")
    fedor_iss_start: int = option(
        6, source="rulebook: Solo Mode Setup", low=0, high=8, help="FEDOR's start ISS material")
    fedor_ext_start: int = option(
        2, source="rulebook: Solo Mode Setup", low=0, high=8,
        help="FEDOR's start external material")
    fedor_soyuz_astronauts: int = option(
        1, source="rulebook: Solo Mode Setup", low=0, high=4,
        help="astronauts FEDOR puts on each new Soyuz")
    fedor_cargo: int = option(
        3, source="rulebook: Solo Mode Setup", low=0, high=9,
        help="materials FEDOR puts on each new non-Soyuz shuttle")
    fedor_tries: int = option(
        3, source="rulebook: FEDOR's Turn, Conduct experiments (read as cards: 2(c)15)",
        low=1, high=10, help="experiment cards FEDOR tries per experiment action")
    fedor_outside_max: int = option(
        3, source="assumed: Solo Mode gives no limit; FEDOR converts at most 3", low=1, high=8,
        help="most ISS materials FEDOR converts in Outside Jobs")
    fedor_retrieve: str = option(
        "bottom", source="assumed: 'the lowest module' read as the bottom of the column",
        choices=("bottom", "top"),
        help="which module FEDOR takes a cube back from when its reserve is empty")
    fedor_extra_recall: bool = option(
        False,
        source="assumed: rulebook ambiguity, Solo Mode Launch 4 (an extra action 'flips over a "
        "FEDOR card and performs it normally': with or without the recall of FEDOR's Turn 1)",
        help="FEDOR's extra action after a launch first recalls its astronauts to Unity "
        "(long stay included), as on its own turn; default: no recall, the card only")
    # components and setup
    astronauts: int = option(
        5, source="rulebook: Setup 12 (5 astronauts per player)", low=1, high=9,
        help="astronauts per player")
    cubes: int = option(
        8, source="rulebook: Setup 12 (8 action cubes)", low=3, high=20,
        help="action cubes per player")
    material_tokens: int = option(
        9, source="rulebook: Setup 12 (9 material tokens)", low=1, high=30,
        help="material tokens per player")
    token_value: int = option(
        2, source="rulebook: Load Material (a token flips to show 2 materials)", low=1, high=4,
        help="materials one token can represent")
    iss_start: int = option(
        2, source="rulebook: Setup 12b", low=0, high=8, help="start ISS material (non-starters)")
    iss_start_first: int = option(
        1, source="rulebook: Setup 12b", low=0, high=8,
        help="start ISS material of the start player")
    ext_start: int = option(
        1, source="rulebook: Setup 12c", low=0, high=8, help="start external material")
    module_row: int = option(
        4, source="rulebook: Setup 4 (four modules face up)", low=4, high=4,
        help="modules face up in the column (fixed: one per action row)")
    goals_offered: int = option(
        4, source="rulebook: Setup 9 (four goals)", low=0, high=10, help="goal cards on offer")
    hand_start: tuple[int, ...] = option(
        (1, 1, 0), source="rulebook: Setup 10 (a basic and a medium experiment)", low=0, high=4,
        help="experiments dealt per level (basic, medium, advanced)")
    # tracks
    iss_max: int = option(
        8, source="rulebook: Launch 3 (limit of eight materials)", low=1, high=20,
        help="top of the ISS material track")
    ext_max: int = option(
        8, source="assumed: the board is not printed in the rulebook; the ITS pieces read as "
                  "symmetric", low=1, high=20,
        help="top of the external material track")
    long_stay_points: tuple[int, ...] = option(
        (0, 1, 3, 5, 8, 11, 14, 18, 22), source="assumed: the rulebook does not print the "
                                                "long-stay track's points",
        low=0, high=100, help="points of long-stay levels 0..max (its length sets the max)")
    # actions
    countdowns: tuple[int, ...] = option(
        (1, 1, 2, 2, 2, 1, 2, 1),
        source="assumed: the action cards are not printed in the rulebook (Plan Experiments 2 "
        "is its Player Turn example)",
        low=0, high=9,
        help="countdown of Train, Load, Construct, Plan, Long Stay, Install, Outside, Experiment")
    load_materials: int = option(
        2, source="rulebook: Load Material", low=1, high=6, help="materials per Load action")
    construct_cubes: int = option(
        2, source="rulebook: Construct Modules", low=1, high=6,
        help="cubes distributed by Construct Modules")
    plan_draw: int = option(
        2, source="rulebook: Plan Experiments (two, from different decks)", low=1, high=3,
        help="experiments drawn by Plan Experiments")
    hand_max: int = option(
        4, source="rulebook: Plan Experiments", low=1, high=10, help="most experiments in hand")
    install_max: int = option(
        2, source="rulebook: Install Compartments", low=1, high=6,
        help="astronauts (tokens) per Install action")
    outside_max: int = option(
        3, source="rulebook: Outside Jobs (one, two or three)", low=1, high=8,
        help="most materials converted by Outside Jobs")
    extra_actions_per_turn: int = option(
        1, source="assumed: Player Turn step 2 speaks of one extra action", low=0, high=8,
        help="extra-action cubes a player may use per turn")
    # launch pads: countdown start for Soyuz, Progress, Endeavour, Atlantis, Discovery
    pad_small: tuple[int, ...] = option(
        (5, 4, 4, 5, 4), source="assumed: the launch pads (side A) are not printed in the "
                                "rulebook", low=1,
        high=9, help="countdown start S/P/E/A/D on the 1-2 player side")
    pad_large: tuple[int, ...] = option(
        (7, 5, 6, 7, 6), source="assumed: the launch pads (side B) are not printed in the "
                                "rulebook", low=1,
        high=9, help="countdown start S/P/E/A/D on the 3-4 player side")
    pad_large_from: int = option(
        3, source="assumed: Setup names the pad sides without a player count; side B from 3 "
                  "players", low=1, high=5,
        help="player count from which the large launch-pad side is used")
    # goals (values at 2 / 3 / 4 players)
    goal_timing: str = option(
        "end_of_turn",
        source="assumed: rulebook ambiguity, Goals ('once per turn, if you meet a goal's "
        "requirements, you can take one'; no step of the turn is named)",
        choices=GOAL_TIMINGS,
        help="when in your turn a goal may be taken (once per turn): at the end of your turn, "
        "after any launch and extra actions; after your action, before the countdown and any "
        "launch; or either (before the countdown, or wait for the end of the turn)")
    goal_points: int = option(5, source="rulebook: Endgame", low=0, high=20,
                              help="points per goal card")
    goal_experiments: tuple[int, ...] = option(
        (5, 4, 4), source="rulebook: Goals", low=0, high=20, help="experiments, at 2/3/4 players")
    goal_advanced: tuple[int, ...] = option(
        (3, 2, 2), source="rulebook: Goals", low=0, high=20,
        help="advanced experiments, at 2/3/4 players")
    goal_astronauts: tuple[int, ...] = option(
        (4, 4, 3), source="rulebook: Goals", low=0, high=20,
        help="astronauts on the shuttles, at 2/3/4 players")
    goal_materials: tuple[int, ...] = option(
        (7, 7, 7), source="rulebook: Goals", low=0, high=40,
        help="materials on the shuttles, at 2/3/4 players")
    goal_cubes: tuple[int, ...] = option(
        (6, 6, 6), source="rulebook: Goals", low=0, high=20,
        help="cubes on one module, at 2/3/4 players")
    goal_tokens: tuple[int, ...] = option(
        (7, 6, 5), source="rulebook: Goals", low=0, high=20,
        help="installation tokens, at 2/3/4 players")
    goal_long_stay: tuple[int, ...] = option(
        (5, 4, 3), source="rulebook: Goals", low=0, high=20,
        help="long-stay level, at 2/3/4 players")
    goal_external: tuple[int, ...] = option(
        (6, 6, 6), source="rulebook: Goals", low=0, high=20,
        help="external materials, at 2/3/4 players")
    goal_shuttles: tuple[int, ...] = option(
        (4, 4, 3), source="rulebook: Goals", low=0, high=20,
        help="shuttle cards, at 2/3/4 players")
    # scoring
    token_points: int = option(2, source="rulebook: Endgame", low=0, high=20,
                               help="points per installation token")
    external_points: int = option(1, source="rulebook: Endgame", low=0, high=20,
                                  help="points per external material")
    set_points: tuple[int, ...] = option(
        (2, 3, 5, 8, 12), source="rulebook: Endgame", low=0, high=100,
        help="points for 1..5 different shuttle types")
    unperformed_penalty: int = option(
        1, source="rulebook: Endgame", low=0, high=20, help="minus points per experiment in hand")
    # what-if: seat compensation (issue 14)
    start_bonus: int = option(
        0, source="what-if: not in the rulebook; compensation for the seat order (Setup 11-12: "
        "the start player begins, with 1 ISS material instead of 2)", low=0, high=20,
        help="the k-th seat after the start player gets k × the start bonus in extra points (or "
        "action cubes, see --start-bonus-kind) at setup; 0 = the rulebook")
    start_bonus_kind: str = option(
        "points", source="what-if: what start_bonus gives (not in the rulebook)",
        choices=START_BONUS_KINDS,
        help="the start bonus as end-of-game points or as extra action cubes in the reserve")
    # engine
    max_turns: int = option(
        300, source="what-if: safety cap on turns; a game stopped there ends with reason 'cap'",
        low=1, high=100000, help="turn cap")
    data_dir: str = option(
        "", source="what-if: a directory with replacement iss_*.toml card tables",
        help="directory of iss_*.toml card data ('' = the package's)", data="dir")

    def check(self) -> None:
        """Cross-field validation.

        Raises:
            OptionError: a tuple option of the wrong length.
        """
        lengths = {
            "countdowns": 8, "pad_small": 5, "pad_large": 5, "set_points": 5, "hand_start": 3,
            "goal_experiments": 3, "goal_advanced": 3, "goal_astronauts": 3,
            "goal_materials": 3, "goal_cubes": 3, "goal_tokens": 3, "goal_long_stay": 3,
            "goal_external": 3, "goal_shuttles": 3,
        }
        for name, n in lengths.items():
            if len(getattr(self, name)) != n:
                raise OptionError(f"option {name!r} of game 'iss' needs {n} values; "
                                  f"got {len(getattr(self, name))}")
        if len(self.long_stay_points) < 2:
            raise OptionError("option 'long_stay_points' of game 'iss' needs at least 2 values")
        if sum(self.hand_start) > self.hand_max:
            raise OptionError("option 'hand_start' of game 'iss' deals more than hand_max")

    def seat_bonus(self, p: int, start: int) -> int:
        """What-if compensation of player ``p`` when ``start`` is the start player: its
        position after the start player in turn order times ``start_bonus`` (0 in solo mode:
        FEDOR's seat is not compensated; 0 at the rulebook's default)."""
        if self.players < 2 or self.start_bonus == 0:
            return 0
        return ((p - start) % self.players) * self.start_bonus

    def goal_needs(self) -> tuple[int, ...]:
        """Threshold of each goal card (index = goal id) at this player count (solo: 2p values).

        Returns:
            10 ints in :data:`GOAL_KINDS` order.
        """
        k = min(max(self.players, 2), 4) - 2
        return (
            self.goal_experiments[k], self.goal_advanced[k], self.goal_astronauts[k],
            self.goal_materials[k], self.goal_cubes[k], self.goal_tokens[k],
            self.goal_long_stay[k], self.goal_external[k], self.goal_shuttles[k], 1,
        )
