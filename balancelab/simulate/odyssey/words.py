"""The words of 2001: A Space Odyssey's columns (see :mod:`balancelab.reports.words`): sides,
measures, end reasons and the key options' settings, in the rulebook's terms (GRV gravity,
MEM memory, COM communications, LIF life support)."""

from __future__ import annotations

from balancelab.simulate.words import Words

_SYS = {"grv": "gravity (GRV)", "mem": "memory (MEM)", "com": "communications (COM)",
        "lif": "life support (LIF)"}


def _per_system(prefix: str, words: str, unit: str, meaning: str) -> dict[str, Words]:
    return {f"{prefix}_{k}": Words(f"{words}: {v}", unit, f"{meaning} on {v}")
            for k, v in _SYS.items()}


WORDS: dict[str, Words] = {
    "winner": Words("winner", "", "HAL or the crew", {"hal": "HAL", "crew": "the crew",
                                                     "": "nobody (round cap)"}),
    "end_reason": Words("how the game ended", "", "End of the Game",
                        {"lif_terminated": "life support (LIF) terminated",
                         "three_systems_terminated": "three systems terminated",
                         "third_sequence": "the crew completed the third Logic sequence",
                         "hal_cannot_play": "HAL could not play",
                         "cap": "stopped by the round cap"}),
    "rounds": Words("crew turns", "crew turns", "crew turns taken"),
    # the key options and the what-ifs
    "crew": Words("crewmembers", "crewmembers", "number of crewmembers (HAL is the other "
                  "player)", {"2": "2 crewmembers", "3": "3 crewmembers",
                              "4": "4 crewmembers"}),
    "hal_extra_turns": Words("HAL's extra opening turns", "turns",
                             "Difficulty Levels: −1 easier, +1 harder",
                             {"-1": "HAL's extra opening turns: −1 (easier)",
                              "0": "HAL's extra opening turns: 0",
                              "1": "HAL's extra opening turns: +1 (harder)"}),
    "hal_turn_every": Words("crew turns per HAL turn", "turns", "what-if: HAL plays after "
                            "every k-th crew turn (rulebook: 1)"),
    "crew_talk": Words("crew announcements", "", "what-if: what the crew announce (HAL hears "
                       "it)"),
    "crew_members": Words("crewmembers chosen", "", "random, or a fixed roster"),
    # rule constants and assumed readings a balance or sensitivity run moves most often
    **{f"opening_turns_{n}": Words(f"HAL's opening turns at {n} crew", "turns",
                                   f"HAL Turn (table): HAL's turns in a row before the first "
                                   f"crew turn with {n} crewmembers") for n in (2, 3, 4)},
    "limit_lif": Words("LIF limit", "Malfunction cards", "System Tiles: Life Support "
                       "[LIF] Limit = 7 (above 7 a what-if longer tile)"),
    "limit_grv": Words("GRV limit", "Malfunction cards", "System Tiles: Gravity [GRV] "
                       "Limit = 4"),
    "limit_mem": Words("MEM limit", "Malfunction cards", "System Tiles: Memory [MEM] "
                       "Limit = 4"),
    "limit_com": Words("COM limit", "Malfunction cards", "System Tiles: Communication "
                       "[COM] Limit = 4"),
    "sequence_length": Words("Logic cards per sequence", "cards", "Disconnect: 3 Logic "
                             "cards that form a sequence"),
    "sequences_to_win": Words("sequences to win", "sequences", "End of the Game: the "
                              "third Logic sequence wins"),
    "draw_picturephone": Words("cards drawn at a Picturephone", "cards",
                               "COM operational: draw 2 at Picturephone"),
    "draw_at_system": Words("cards drawn at a system space", "cards",
                            "assumed: cards drawn at the GRV, MEM and COM spaces"),
    "whitehead_remote_repair": Words("Whitehead repairs from anywhere", "",
                                     "assumed reading of Whitehead's ability",
                                     {"true": "Whitehead repairs from anywhere",
                                      "false": "Whitehead repairs at the system"}),
    "pod_strict": Words("POD strict", "", "assumed reading: may a crewmember who moves "
                        "onto the POD repair that turn",
                        {"false": "repair on arriving at the POD",
                         "true": "no repair on arriving at the POD"}),
    # measures
    "crew_names": Words("crewmembers in play", "", "who played, in seat order"),
    "first_crewmember": Words("first crewmember", "", "the crewmember who took the first "
                              "turn"),
    "systems_terminated": Words("systems terminated", "systems", "ship systems HAL "
                                "terminated"),
    "terminated_systems": Words("which systems were terminated", "", "the terminated "
                                "systems"),
    **_per_system("malfunctions", "malfunctions at the end", "cards", "malfunction cards "
                  "standing at the end"),
    "disconnects": Words("disconnects", "disconnects", "times the crew disconnected HAL"),
    "hal_marker": Words("HAL's Logic marker", "", "HAL's position on the Logic track at the "
                        "end"),
    "malfunctions_played": Words("malfunctions played", "cards", "malfunction cards HAL "
                                 "played"),
    "malfunctions_repaired": Words("malfunctions repaired", "cards", "malfunction cards the "
                                   "crew repaired"),
    **_per_system("played", "malfunctions played", "cards", "malfunction cards HAL played"),
    **_per_system("repaired", "malfunctions repaired", "cards", "malfunction cards the crew "
                  "repaired"),
    "hal_draw_left": Words("cards left in HAL's draw pile", "cards", "HAL's draw pile at the "
                           "end"),
    "hal_reshuffles": Words("HAL reshuffles", "reshuffles", "times HAL's discard was "
                            "reshuffled"),
    "crew_reshuffles": Words("crew reshuffles", "reshuffles", "times the crew's discard was "
                             "reshuffled"),
    "doors_closed": Words("doors closed", "doors", "doors HAL closed"),
    "doors_opened": Words("doors opened", "doors", "doors the crew opened (Manual Override)"),
    "hal_played_door": Words("Door cards HAL played", "cards", "HAL's Door cards played"),
    "hal_played_target": Words("Target cards HAL played", "cards", "HAL's Target cards "
                               "played"),
    "hal_played_scan": Words("Scan cards HAL played", "cards", "HAL's Scan cards played"),
    "hal_played_lipread": Words("Lipread cards HAL played", "cards", "HAL's Lipread cards "
                                "played"),
    "target_hits": Words("Target hits", "hits", "Targets that named a card the crewmember "
                         "held"),
    "cancels": Words("Cancels played", "cards", "Cancel cards the crew played"),
    "recovers": Words("Recovers played", "cards", "Recover cards the crew played"),
    "gives": Words("cards given", "cards", "cards crewmembers gave each other"),
    "hal_turns": Words("HAL turns", "turns", "turns HAL took"),
}
