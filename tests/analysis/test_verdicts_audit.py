"""The statistics audit's findings (issue 26): the TOST at the margin, the interval printed
beside an inconclusive verdict, `compare`'s other side on the common games, seat tests as one
family, the family's joint error in words, planning at 80% power. (No fair share against a
bot: tests/analysis/test_analysis_frames.py.)"""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from coin_game import CoinOptions, install
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sst

from balancelab import analysis
from balancelab.analysis import stats, verdicts
from balancelab.simulate import runs


def _normal(d: float, se: float):
    def f(level: float) -> tuple[float, float]:
        h = float(sst.norm.ppf(0.5 + level / 2)) * se
        return d - h, d + h

    return f


# -- D1: an estimate on the margin ---------------------------------------------------------------


@pytest.mark.parametrize("k_a", [21, 304, 500])
def test_tost_p_of_an_estimate_on_the_margin_is_one_half(k_a: int):
    """40 more wins in 2,000 games at ±2 points: the estimate is the margin up to rounding
    (0.019999999999999997); the TOST p was 1.8e-14 instead of 0.5."""
    d = stats.diff_unpaired(k_a, 2000, k_a + 40, 2000)
    assert d.diff == pytest.approx(0.02, abs=1e-12)
    assert verdicts.p_equivalence(stats.interval_fn(d), d.diff, 0.02) == pytest.approx(0.5,
                                                                                       abs=1e-6)
    paired = stats.diff_paired(np.r_[np.ones(k_a), np.zeros(2000 - k_a)].astype(bool),
                               np.r_[np.ones(k_a + 40), np.zeros(1960 - k_a)].astype(bool))
    assert verdicts.p_equivalence(stats.interval_fn(paired), paired.diff, 0.02) == \
        pytest.approx(0.5, abs=1e-6)


def test_tost_p_grows_past_one_half_beyond_the_margin():
    f = _normal(0.03, 0.01)  # one standard error beyond +2 points
    assert verdicts.p_equivalence(f, 0.03, 0.02) == pytest.approx(sst.norm.cdf(1.0), rel=1e-6)
    assert verdicts.p_equivalence(_normal(0.01, 0.01), 0.01, 0.02) == pytest.approx(
        sst.norm.sf(1.0), rel=1e-6)


def test_a_row_on_the_margin_does_not_relax_the_others():
    """The row on the margin had TOST p 0.0003 and, first in Holm's order, relaxed the next
    row's level from α/2 to α: that row (TOST p 0.03) became 'equivalent'."""
    on = stats.diff_unpaired(304, 2000, 344, 2000)
    dec = verdicts.decide_family([on.diff, 0.004],
                                 [stats.interval_fn(on), _normal(0.004, 0.0085)], [2000, 2000],
                                 0.02)
    assert dec[0].p_equivalence == pytest.approx(0.5, abs=1e-6)
    assert dec[1].p_equivalence == pytest.approx(sst.norm.sf(0.016 / 0.0085), rel=1e-6)
    assert [x.verdict for x in dec] == ["inconclusive", "inconclusive"]


# -- D2: the interval printed beside a verdict is the one it used --------------------------------


def test_an_inconclusive_row_is_printed_with_an_interval_that_shows_it():
    """Two clear changes leave the third tested at 5% for a difference (a 95% interval,
    inside ±2 points) but at 5%/3 for equivalence (a 96.7% interval, reaching past +2): it
    was printed 'inconclusive' beside [−0.9, +1.9]."""
    dec = verdicts.decide_family([0.05, -0.05, 0.005],
                                 [_normal(0.05, 0.005), _normal(-0.05, 0.005),
                                  _normal(0.005, 0.0073)], [2000] * 3, 0.02)
    x = dec[2]
    assert x.verdict == "inconclusive"
    assert x.diff_level == pytest.approx(0.95) and x.diff_hi < 0.02  # inside the margin
    assert x.level == pytest.approx(1 - 2 * 0.05 / 3) and (x.lo, x.hi) == (x.eq_lo, x.eq_hi)
    assert x.lo <= 0 <= x.hi and x.hi >= 0.02


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.floats(-0.06, 0.06), st.floats(0.001, 0.03)), min_size=1,
                max_size=8), st.floats(0.005, 0.04))
def test_every_printed_interval_agrees_with_its_verdict(rows, margin):
    dec = verdicts.decide_family([d for d, _ in rows], [_normal(d, se) for d, se in rows],
                                 [1000] * len(rows), margin)
    for x in dec:
        inside = -margin < x.lo and x.hi < margin
        assert {"raises": x.lo > 0, "lowers": x.hi < 0, "equivalent": inside,
                "inconclusive": x.lo <= 0 <= x.hi and not inside}[x.verdict], x


# -- D3: compare's other side on the common games ------------------------------------------------


def test_compare_gives_the_other_side_on_the_games_both_runs_hold(tmp_path: Path):
    """Two runs of the same game from one seed, 200 and 500 games: identical on their first
    200, so both sides' changes are 0; the other side's was read off all 500 games."""
    install()
    for name, n in (("a", 200), ("b", 500)):
        runs.run(runs.RunConfig("coin", [CoinOptions(edge=450, draw=100)], seed=7,
                                    games=n), tmp_path / name, jobs=1, backend="sequential")
    comp = analysis.compare_runs([tmp_path / "a", tmp_path / "b"])
    row = comp.row(0, named=True)
    assert row["diff"] == 0.0 and row["games_left_out"] == 300
    assert row["other_diff"] == 0.0


# -- seats: one family across the variants; one test at two seats; no fair share against a bot ---


def _seat_games(n: int, seats: int, variants: int = 1, skew: int = 0) -> pl.DataFrame:
    """Equal seats (wins in turn); ``skew`` in a hundred of seat (k-1)'s wins go to seat 0."""
    rows = []
    for v in range(variants):
        for i in range(n):
            w = i % seats
            if w == seats - 1 and (i // seats) % 100 < skew:
                w = 0
            rows.append({"run_id": "r", "game": "fake", "game_version": "1",
                         "variant": v, "variant_label": f"v={v}", "v": v,
                         "policy_player": "p",
                         "policies": ";".join(f"seat{k}=p" for k in range(seats)),
                         "game_index": i, "seed": 1, "winner": f"seat{w}",
                         "end_reason": "score", "rounds": 10, "decisions": 50})
    return pl.DataFrame(rows).with_columns(pl.col("variant").cast(pl.Int32))


def test_seat_tests_are_one_family_across_the_variants():
    """Three variants of four seats: 12 seat tests in one family and the three chi-squares
    Holm-corrected (they were each tested at 5%: ~14% chance of a false 'not equal')."""
    sb = analysis.seat_balance(_seat_games(1200, 4, variants=3, skew=8))
    heads = sb.filter(pl.col("contender") == "all seats")
    assert heads["family_size"].to_list() == [3, 3, 3]
    assert heads["p_holm"].to_list() == pytest.approx(stats.holm(heads["p_value"].to_numpy()))
    seats = sb.filter(pl.col("contender") != "all seats")
    assert set(seats["family_size"]) == {12}
    # no seat is rejected: every row is tested at Holm's first level, α / 12
    assert seats["level_used"].min() >= 1 - 2 * 0.05 / 12 - 1e-12


def test_two_seats_are_one_test_not_two():
    """At two seats the first seat's share and the second's are one test: counted once by
    Holm, the second row its mirror."""
    sb = analysis.seat_balance(_seat_games(4000, 2))
    s0, s1 = (sb.filter(pl.col("contender") == c).row(0, named=True)
              for c in ("seat0", "seat1"))
    assert s0["family_size"] == 1
    assert s0["verdict"] == s1["verdict"] == "equivalent"
    assert s0["level_used"] == pytest.approx(1 - 2 * 0.05)  # one test: TOST at 1 - 2α
    assert (s1["lo"], s1["hi"]) == pytest.approx((-s0["hi"], -s0["lo"]))
    skewed = analysis.seat_balance(_seat_games(4000, 2, skew=20))
    v = dict(zip(skewed["contender"], skewed["verdict"], strict=True))
    assert v == {"all seats": "unequal", "seat0": "raises", "seat1": "lowers"}


# -- the family's joint error bound in words ------------------------------------------------------


def test_the_family_error_bound_in_words():
    assert verdicts.family_error_text(6) == (
        "Across these 6 verdicts, the chance of at least one wrong verdict is at most 10%: at "
        "most 5% of a wrong 'raises' or 'lowers' and at most 5% of a wrong 'equivalent'.")
    assert verdicts.family_error_text(1, sequential=True).startswith(
        "Across this verdict, the chance of at least one wrong verdict is at most 10%")
    assert verdicts.family_error_text(1, sequential=True).endswith(
        "The sequential test keeps these bounds although the run stopped on what it saw.")


# -- planning at 80% power under the family's correction -----------------------------------------


@pytest.mark.parametrize("family", [1, 6])
def test_games_to_decide_are_planned_at_80_percent_power(family: int):
    """A change of 1 point with a standard error of 1 point at 2,000 games, outside a ±0.5
    point margin: the games that would show it differ from 0 with 80% power at the family's
    Bonferroni level (the old number, 7,700 at one change, had 50%)."""
    need = verdicts.games_to_decide(0.01, 0.01, 2000, family, 0.005)
    assert need is not None
    z = sst.norm.ppf(1 - 0.05 / (2 * family))

    def power(n: float) -> float:
        r = 0.01 / (0.01 * np.sqrt(2000 / n))
        return float(sst.norm.cdf(r - z) + sst.norm.cdf(-r - z))

    assert 0.8 <= power(need) < 0.82 and power(need / 1.05) < 0.8
    if family == 1:
        assert need == pytest.approx(2000 * (1.96 + 0.8416) ** 2, rel=0.03)  # 2 figures


def test_games_to_decide_an_equivalence_at_80_percent_power():
    """No change, ±2 points, a standard error of 1.5 points at 1,000 games: TOST at α / m on
    each side succeeds 80% of the time at the games named."""
    need = verdicts.games_to_decide(0.0, 0.015, 1000, 2, 0.02)
    assert need is not None
    se = 0.015 * np.sqrt(1000 / need)
    z = sst.norm.ppf(1 - 0.05 / 2)
    power = 2 * sst.norm.cdf(0.02 / se - z) - 1
    assert 0.8 <= power < 0.82


def test_inconclusive_rows_name_the_margin_that_would_make_them_equivalent():
    dec = verdicts.decide_family([0.004, 0.03], [_normal(0.004, 0.012), _normal(0.03, 0.004)],
                                 [1000, 1000], 0.02)
    x = dec[0]
    assert x.verdict == "inconclusive"
    lo, hi = _normal(0.004, 0.012)(1 - 2 * 0.05 / 2)
    assert x.equivalent_within == pytest.approx(max(-lo, hi))
    again = verdicts.decide_family([0.004, 0.03], [_normal(0.004, 0.012), _normal(0.03, 0.004)],
                                   [1000, 1000], [x.equivalent_within * 1.001, 0.02])
    assert again[0].verdict == "equivalent"


# -- --decide: rounds of one step, the verdict of the look that decided --------------------------


def test_decide_adds_one_step_a_round_and_reads_the_look_that_decided(tmp_path: Path):
    """Red's edge 480 → 520 per mille, paired on the rules' dice (4% of games discordant):
    each round adds one step (it grew ×1.5, a quarter of --decide's games), and the verdict
    is the sequential test's at the look that decided."""
    from balancelab.questions import sweep as sweeps
    from balancelab.questions.inputs import load_game

    install()
    res = sweeps.sweep(load_game("coin"), {"edge": [480, 520]}, tmp_path / "d", decide=True,
                       games=200, max_games=20_000, jobs=1, chunk_games=100)
    sizes = [r["games"] for r in res.rounds]
    assert len(sizes) >= 2 and res.rounds[-1]["reached"]
    assert all(b - a == sweeps.DECIDE_STEP for a, b in zip(sizes, sizes[1:], strict=False))
    comp = analysis.compare_variants(tmp_path / "d", sequential=True)
    row = comp.row(0, named=True)
    assert row["verdict"] == "raises" and row["games_decided"] % verdicts.DECIDE_LOOK == 0
    assert sizes[-2] < row["games_decided"] <= sizes[-1]
    assert row["lo"] > 0


# -- the report's lines ----------------------------------------------------------------------------


def test_the_report_plans_at_80_percent_power_and_states_the_joint_error(tmp_path: Path):
    """A change too small for its games: the report names the games that would decide it
    at 80% power, the smallest margin that would make it equivalent, the smallest change
    the family detects and the family's joint error bound."""
    from balancelab.questions import sweep as sweeps
    from balancelab.questions.inputs import load_game
    from balancelab.reports import build_run_report, to_markdown

    install()
    sweeps.sweep(load_game("coin"), {"edge": [480, 520]}, tmp_path / "s", games=100, jobs=1)
    comp = analysis.compare_variants(tmp_path / "s")
    row = comp.row(0, named=True)
    assert row["verdict"] == "inconclusive" and row["equivalent_within"] > row["margin"]
    md = " ".join(to_markdown(build_run_report(tmp_path / "s")).split())
    assert (f"about {row['games_to_decide']:,} games per setting would decide it at 80% "
            f"power; it would count as equivalent within ±{100 * row['equivalent_within']:.1f}"
            " points") in md
    assert "the smallest change it detects with 80% power is about" in md
    assert ("Across this verdict, the chance of at least one wrong verdict is at most 10%: at "
            "most 5% of a wrong 'raises' or 'lowers' and at most 5% of a wrong 'equivalent'."
            ) in md
    assert "| equivalent within |" in md


def test_a_change_between_two_seat_settings_is_one_test():
    """Seat games: a change between 2-player settings is one test of the family (the second
    seat's change beside the first's), not two Holm counts; three seats stay three."""
    from balancelab.questions import sweep as sweeps

    two = analysis.compare_variants(_seat_games(1000, 2, variants=3, skew=10))
    assert two.height == 2 and set(two["contender"]) == {"seat0"}
    assert set(two["family_size"]) == {2} and set(two["other"]) == {"seat1"}
    # the second seat's change is beside it: seat 1 lost what seat 0 gained (no draws)
    assert two["other_diff"].to_list() == pytest.approx([-d for d in two["diff"]])
    three = analysis.compare_variants(_seat_games(900, 3, variants=2, skew=10))
    assert three.height == 3 and set(three["family_size"]) == {3}
    from balancelab.questions.inputs import load_game

    assert sweeps.plan(load_game("iss"), {"players": [2], "remove_shuttles": [False, True]}, 0.05,
                       focus="remove_shuttles")[0]["family_size"] == 1
