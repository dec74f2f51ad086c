"""The report's aggregations that read a million games lean (issue 30: 1.33 GB peak on
1,000,000 odyssey games, 422 MB after): each gives the numbers of the plain computation."""

from __future__ import annotations

import polars as pl
from polars.testing import assert_frame_equal

from balancelab.analysis import stats
from balancelab.analysis.frames import _sorted
from balancelab.reports.run_report import varying_measures

GAMES = pl.DataFrame({
    "variant": pl.Series([0, 0, 0, 1, 1, 1, 1], dtype=pl.Int32),
    "variant_label": ["crew=2"] * 3 + ["crew=3"] * 4,
    "game_index": [0, 1, 2, 0, 1, 2, 3],
    "winner": ["hal"] * 7,
    "end_reason": ["x"] * 7,
    "rounds": [3, 5, 9, 2, 2, 8, 10],
    "decisions": [30, 31, 32, 33, 34, 35, 36],
    "doors_closed": [1, 1, 1, 1, 1, 1, 1],
    "lif": [None, 2, 2, None, 2, 2, 2],
    "hand": [1, 2, 3, 1, 1, 1, 4],
})


def test_summaries_from_a_scan_equal_the_plain_ones() -> None:
    cols = ["rounds", "decisions", "hand"]
    by = ["variant", "variant_label"]
    lean = stats.summarize_many(GAMES.lazy(), cols, by)
    plain = stats.summarize_many(GAMES, cols, by)
    assert len(lean) == 3
    for a, b in zip(lean, plain, strict=True):
        assert_frame_equal(a, b)
    assert lean[0].get_column("median").to_list() == [5.0, 5.0]
    assert lean[0].get_column("variant_label").to_list() == ["crew=2", "crew=3"]
    seat = GAMES.with_columns(pl.col("winner").alias("seat_name"))  # another text key
    assert_frame_equal(stats.summarize_many(seat.lazy(), ["rounds"], ["variant", "seat_name"])[0],
                       stats.summarize(seat, "rounds", ["variant", "seat_name"]))


def test_a_measure_varies_when_two_of_its_values_differ() -> None:
    # rounds and decisions are the game's length, not measures; an all-equal or all-null
    # measure says nothing
    assert varying_measures(GAMES.lazy()) == ["hand"]
    assert varying_measures(GAMES.with_columns(pl.lit(None, pl.Int64).alias("hand")).lazy()) == []


def test_sorted_games_are_recognised_without_a_copy() -> None:
    assert _sorted(GAMES)
    assert not _sorted(GAMES.reverse())
    swapped = GAMES.with_columns(pl.Series("game_index", [0, 2, 1, 0, 1, 2, 3]))
    assert not _sorted(swapped)


def test_a_column_with_one_value_is_stored_once() -> None:
    from balancelab.analysis.frames import _constants_as_scalars
    df = GAMES.with_columns(pl.Series("crew", [3] * 7, dtype=pl.Int8),
                            pl.lit("hal-lif").cast(pl.Categorical).alias("policy_hal"))
    lean = _constants_as_scalars(df)
    assert_frame_equal(lean, df)  # the same values and dtypes, whatever the storage
    # a fixed option costs nothing per game; a column that varies or holds a null is kept
    assert lean.select("crew").estimated_size() < df.select("crew").estimated_size()
    assert lean.select("policy_hal").estimated_size() < df.select("policy_hal").estimated_size()
    for c in ("rounds", "lif", "game_index"):
        assert lean.select(c).estimated_size() == df.select(c).estimated_size()
