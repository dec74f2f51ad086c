"""A study's policy pairings side by side (issue 28 item 3): "the verdict changes with the
policies" only where two pairings decided a change in different ways; a pairing that left a
change inconclusive is named with the games that would decide it."""

from __future__ import annotations

import polars as pl

from balancelab.questions.study import agreement, decided


def _table(a: list[str], b: list[str], games_b: list[int | None]) -> pl.DataFrame:
    rows = [{"A": x, "B": y, "A games": None, "B games": g}
            for x, y, g in zip(a, b, games_b, strict=True)]
    df = pl.DataFrame(rows, schema={"A": pl.String, "B": pl.String, "A games": pl.Int64,
                                    "B games": pl.Int64})
    holds = [x == y for x, y in zip(a, b, strict=True)]
    disagree = [len(decided(r, ["A", "B"])) > 1 for r in df.iter_rows(named=True)]
    return df.with_columns(pl.Series("holds", holds), pl.Series("disagree", disagree))


def test_decided_verdicts_ignore_inconclusive_and_the_margin() -> None:
    assert decided({"A": "raises", "B": "inconclusive"}, ["A", "B"]) == {"raises"}
    assert decided({"A": "equivalent within ±2.0 points",
                    "B": "equivalent within ±2.6 points"}, ["A", "B"]) == {"equivalent"}
    assert decided({"A": "raises", "B": "lowers"}, ["A", "B"]) == {"raises", "lowers"}


def test_an_inconclusive_pairing_beside_a_decided_one_is_undecided_not_a_change() -> None:
    """The 40-game pairing inconclusive beside a decided one: it was printed as "The verdict
    changes with the policies", replacing the headline."""
    vt = _table(["lowers", "lowers"], ["inconclusive", "lowers"], [3200, None])
    said, moved = agreement(vt, ["A", "B"])
    assert not moved
    assert said == ("The verdicts agree wherever both pairings decide; 1 of 2 comparisons "
                    "undecided with policies B (about 3,200 games per setting would decide "
                    "it).")


def test_two_decided_verdicts_that_differ_change_with_the_policies() -> None:
    vt = _table(["lowers", "raises"], ["raises", "raises"], [None, None])
    said, moved = agreement(vt, ["A", "B"])
    assert moved
    assert said.startswith("The verdict changes with the policies in 1 of 2 comparisons, "
                           "each decided both ways")


def test_the_same_verdicts_hold() -> None:
    vt = _table(["lowers"], ["lowers"], [None])
    assert agreement(vt, ["A", "B"]) == (
        "The verdicts hold across all 2 policy pairings (A, B).", False)
