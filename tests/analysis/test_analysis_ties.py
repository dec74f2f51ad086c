"""A shared win (1998 ISS tie-break) is a draw only for the seats that shared first place."""

from pathlib import Path

import polars as pl

from balancelab import analysis
from balancelab.games import get_game
from balancelab.simulate import runs


def test_ties_count_as_draws_only_for_the_tied_seats(tmp_path: Path) -> None:
    g = get_game("iss")
    cfg = runs.RunConfig("iss", [g.options_type(players=3)], seed=4, games=300)
    path = tmp_path / "iss3"
    runs.run(cfg, path, jobs=1, backend="sequential")
    seats = runs.load_seats(path)
    games = runs.load_games(path)
    ties = games.filter(pl.col("winner") == "tie").select("variant", "game_index")
    assert ties.height > 0
    tied = seats.join(ties, on=["variant", "game_index"]).filter(pl.col("rank") == 1)
    assert tied.height < 3 * ties.height  # some ties leave a seat out
    rates = analysis.win_rates(path)
    assert rates["draws"].sum() == tied.height
    assert (rates["wins"] + rates["draws"] + rates["losses"] + rates["capped"]
            == rates["games"]).all()
    per_seat = tied.group_by("seat").len().sort("seat")["len"].to_list()
    assert rates.sort("seat")["draws"].to_list() == per_seat
