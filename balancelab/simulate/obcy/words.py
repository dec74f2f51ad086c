"""The words of Obcy's columns (see :mod:`balancelab.reports.words`): sides, measures, end
reasons and the key options' settings, in the rulebook's terms."""

from __future__ import annotations

from balancelab.simulate.obcy.rules import CHARACTER_NAMES
from balancelab.simulate.words import Words

WORDS: dict[str, Words] = {
    "winner": Words("winner", "", "the expedition, the ALIENS or a draw",
                    {"expedition": "the expedition", "aliens": "the ALIENS", "draw": "draw",
                     "": "nobody (round cap)"}),
    "end_reason": Words("how the game ended", "", "11. End of the Game",
                        {"returned_to_ship": "the expedition returned to the ship",
                         "expedition_wiped_out": "the expedition was wiped out",
                         "draw_all_died_after_queen": "all died after the Queen was killed",
                         "cap": "stopped by the round cap"}),
    "rounds": Words("rounds", "rounds", "game rounds (an EXPEDITION and an ALIENS phase "
                    "each)"),
    # the key options
    "queen_variant": Words("how the Queen is killed", "", "10. the ALIEN QUEEN",
                           {"roll": "Variant 1 (die roll)", "tasks": "Variant 2 (tasks)"}),
    "queen_tasks": Words("tasks to kill the Queen (Variant 2)", "tasks",
                         "tasks needed to kill the Queen in Variant 2",
                         {str(n): f"{n} task{'s' if n != 1 else ''} for the Queen"
                          for n in range(1, 11)}, only_when=("queen_variant", "tasks")),
    # measures
    "tasks_completed": Words("tasks completed", "tasks", "mission tasks the expedition "
                             "completed"),
    "points_at_end": Words("points at the end", "points", "the expedition's points"),
    "queen_fights": Words("fights with the Queen", "fights", "times the expedition fought "
                          "the Queen"),
    "queen_killed": Words("Queen killed", "", "the ALIEN QUEEN was killed"),
    "queen_round": Words("round the Queen died", "round", "the round the Queen was killed "
                         "(−1: never)"),
    "hatching_after_queen": Words("hatching after the Queen", "", "ALIENS still hatched "
                                  "after the Queen died"),
    "survivors": Words("survivors", "characters", "characters alive at the end"),
    "characters_killed": Words("characters killed", "characters", "characters the ALIENS "
                               "killed"),
    "aliens_hatched": Words("ALIENS hatched", "ALIENS", "ALIENS that hatched"),
    "alien_strength_hatched": Words("strength hatched", "strength", "the hatched ALIENS' "
                                    "strength, added up"),
    "aliens_killed": Words("ALIENS killed", "ALIENS", "ALIENS the expedition killed"),
    "aliens_merged": Words("ALIENS merged", "ALIENS", "metamorphoses: ALIENS merged into a "
                           "stronger one"),
    "aliens_on_board": Words("ALIENS on the board at the end", "ALIENS", "ALIENS left"),
    "missions_drawn": Words("mission cards drawn", "cards", "mission cards drawn"),
    "missions_discarded": Words("mission cards discarded", "cards", "tasks discarded without "
                                "a point"),
    "shots_fired": Words("shots fired", "shots", "pistol, carbine and flamethrower shots"),
    "grenades_thrown": Words("grenades thrown", "grenades", "grenades thrown"),
    "charges_used": Words("explosive charges used", "charges", "explosive charges used"),
    "transporter_moves": Words("transporter moves", "moves", "phases of transporter "
                               "movement"),
    "airlock_exits": Words("airlock exits", "exits", "characters who left through an "
                           "airlock"),
    **{f"alive_{n.lower()}": Words(f"{n} alive at the end", "", f"{n} survived")
       for n in CHARACTER_NAMES},
}
