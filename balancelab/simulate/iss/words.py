"""The words of 1998 ISS's columns (see :mod:`balancelab.reports.words`): seats, measures,
the seats table, end reasons and the key options' settings, in the rulebook's terms."""

from __future__ import annotations

from balancelab.simulate.words import Words

_SEATS = {"seat0": "seat 1 (start player)", "seat1": "seat 2", "seat2": "seat 3",
          "seat3": "seat 4", "seat0/1": "the solo player (against FEDOR)", "fedor": "FEDOR",
          "tie": "shared win"}

WORDS: dict[str, Words] = {
    # who and how
    "winner": Words("winner", "", "the seat with most points (ties: most experiments), FEDOR "
                    "in solo, or a shared win", _SEATS),
    "end_reason": Words("how the game ended", "", "Endgame: the last shuttle of a nation was "
                        "placed, then a final round",
                        {"last_shuttle": "the last shuttle of a nation was placed",
                         "cap": "stopped by the turn cap"}),
    "rounds": Words("rounds", "rounds", "completed rounds (every player one turn; FEDOR "
                    "counts as a player in solo)"),
    # the key options
    "players": Words("players", "players", "number of players; 1 = solo against FEDOR",
                     {"1": "solo (against FEDOR)", "2": "2 players", "3": "3 players",
                      "4": "4 players"}),
    "remove_shuttles": Words("shuttle removal (Setup 7)", "",
                             "one Russian and one US shuttle card returned to the box",
                             {"false": "all shuttles", "true": "2 shuttles removed"}),
    "start_bonus": Words("start bonus for later seats", "points",
                         "what-if: the k-th seat after the start player gets k × this"),
    # measures of a game
    "turns": Words("turns", "turns", "player turns played (FEDOR's included in solo)"),
    "launches_russia": Words("Russian launches", "launches", "Russian shuttles launched"),
    "launches_usa": Words("US launches", "launches", "US shuttles launched"),
    "launches": Words("launches", "launches", "shuttles launched, both nations"),
    "tie_break": Words("won on the tie-break", "", "the top score was shared and most "
                       "experiments decided the winner"),
    "shared_win": Words("shared win", "", "seats tied on points and experiments shared the "
                        "win"),
    "winning_score": Words("winning score", "points", "the winner's points at the end"),
    "winning_margin": Words("winner's margin", "points", "the winner's points minus the "
                            "runner-up's (0 for a shared win)"),
    "end_nation": Words("nation that ended the game", "", "whose last shuttle was placed",
                        {"russia": "Russia", "usa": "USA", "": "–"}),
    "shuttles_removed": Words("shuttles removed", "", "one Russian and one US shuttle card "
                              "were returned to the box (Setup 7)"),
    "modules_docked": Words("modules docked", "modules", "modules docked to the ISS after "
                            "the first three"),
    "goals_taken": Words("goal cards taken", "cards", "goal cards taken by all players"),
    "extra_actions_won": Words("extra actions after launches", "actions",
                               "extra actions taken after a launch, all players"),
    "fedor_score": Words("FEDOR's score", "points", "FEDOR's points at the end (solo)"),
    "fedor_experiments": Words("FEDOR's experiments", "experiments",
                               "experiments FEDOR performed (solo)"),
    # the seats table
    "score": Words("score", "points", "the seat's points at the end (Endgame)"),
    "tokens": Words("points from installation tokens", "points", "installation tokens × "
                    "their points"),
    "external": Words("points from external material", "points", "external material × its "
                      "points"),
    "long_stay": Words("points from long stay", "points", "the long-stay track's points"),
    "goals": Words("points from goal cards", "points", "goal cards × their points"),
    "shuttles": Words("points from shuttle sets", "points", "points for different shuttle "
                      "types"),
    "experiments": Words("points from experiments", "points", "the performed experiments' "
                         "points"),
    "penalties": Words("penalty for unperformed experiments", "points",
                       "minus points per experiment left in hand"),
    "n_experiments": Words("experiments performed", "experiments", "experiments the seat "
                           "performed"),
    "n_shuttles": Words("shuttle cards", "cards", "shuttle cards the seat holds at the end"),
    "won": Words("won", "", "the seat won alone"),
    "rank": Words("place", "", "1 = first (shared places tie)"),
}
