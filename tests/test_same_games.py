"""The same seed plays the same games, release after release, unless a rule changed.

Each case pins a hash of (game index, winner, end reason, rounds, decisions) of a few games
played by the runner's worker. Speed work (compiling, caches, data layout) must leave every
hash as it is; a change of rules or of a scripted policy changes some, and then the game's
``version`` is bumped and the hashes here are updated in the same commit, saying why.
"""

from __future__ import annotations

import hashlib

import pytest

from balancelab.games import get_game
from balancelab.simulate.runner import RunConfig
from balancelab.simulate.worker import play_chunk

CASES = [
    # game, rule options, policies, games, hash
    ("odyssey", {}, {}, 60, "bd218094ea8ff014"),
    ("odyssey", {"crew": "4", "crew_talk": "logic"}, {"hal": "hal-spread"}, 40,
     "a05418bf61ce3d7e"),
    ("odyssey", {"crew": "2"}, {"hal": "random", "crew": "random"}, 40, "8ce42f2e085e5899"),
    ("iss", {"players": "4"}, {}, 30, "150ec791dc9bd9d8"),
    ("iss", {"players": "1"}, {}, 30, "9c6e967093838f22"),
    ("iss", {"players": "2"}, {"player": "random"}, 30, "63b682d499fba1ce"),
    ("obcy", {}, {}, 12, "75054b338d3f00e6"),
    ("obcy", {"queen_variant": "tasks"}, {"aliens": "random"}, 6, "084260a35e47849a"),
]


@pytest.mark.parametrize(("game", "sets", "policies", "n", "want"), CASES)
def test_the_same_seed_plays_the_same_games(game: str, sets: dict[str, str],
                                            policies: dict[str, str], n: int,
                                            want: str) -> None:
    g = get_game(game)
    options = g.options_type.from_strings(sets)
    specs = RunConfig(game=game, variants=[options], policies=policies, games=n
                      ).seat_specs(options)
    cols, _, _ = play_chunk(game, options.as_dict(), specs, True, 2001, 0, n, {})
    rows = list(zip(*(cols[c] for c in ("game_index", "winner", "end_reason", "rounds",
                                         "decisions")), strict=True))
    assert len(rows) == n
    assert hashlib.sha256(repr(rows).encode()).hexdigest()[:16] == want
