"""The three verdicts, their families, seats against their fair share, planning and the
stopping rules (issue 15)."""

from pathlib import Path

import numpy as np
import polars as pl
import pytest
from coin_game import install
from scipy import stats as sst

from balancelab import analysis
from balancelab.analysis import stats, verdicts
from balancelab.questions import study as studies
from balancelab.questions import sweep as sweeps
from balancelab.questions.inputs import load_game


def _normal(d: float, se: float):
    def f(level: float) -> tuple[float, float]:
        h = float(sst.norm.ppf(0.5 + level / 2)) * se
        return d - h, d + h

    return f


def test_holm_levels_step_down_and_stop():
    # sorted p: 0.001 (tested at .05/4), 0.012 (.05/3), 0.03 (.05/2 = .025: not rejected,
    # so it and every later row are tested at .025)
    a = verdicts.holm_alphas([0.03, 0.001, 0.5, 0.012], 0.05)
    assert a == pytest.approx([0.025, 0.0125, 0.025, 0.05 / 3])
    p = np.array([0.03, 0.001, 0.5, 0.012])
    assert ((p <= a) == (stats.holm(p) < 0.05)).all()


def test_three_verdicts_from_one_rule():
    n = [2000] * 4
    dec = verdicts.decide_family(
        [0.03, -0.03, 0.001, 0.01],
        [_normal(0.03, 0.005), _normal(-0.03, 0.005), _normal(0.001, 0.004),
         _normal(0.01, 0.02)], n, 0.025)
    assert [d.verdict for d in dec] == ["raises", "lowers", "equivalent", "inconclusive"]
    # the interval shown is the one the verdict used: Holm's level for raises/lowers, the
    # TOST interval (1 - 2 alpha) for equivalent
    assert dec[0].level == pytest.approx(1 - 0.05 / 4) and dec[0].lo > 0
    eq = dec[2]
    assert eq.level == pytest.approx(1 - 2 * 0.05 / 4)  # first in its TOST family
    assert -0.025 < eq.lo and eq.hi < 0.025 and (eq.lo, eq.hi) == (eq.eq_lo, eq.eq_hi)
    inc = dec[3]
    assert inc.lo <= 0 <= inc.hi and inc.games_to_decide is not None
    assert inc.games_to_decide > 2000
    # the games needed would decide it: at that n the same estimate is decided
    se_then = 0.02 * np.sqrt(2000 / inc.games_to_decide)
    again = verdicts.decide_family([0.03, -0.03, 0.001, 0.01],
                                   [_normal(0.03, 0.005), _normal(-0.03, 0.005),
                                    _normal(0.001, 0.004), _normal(0.01, se_then * 0.999)],
                                   n, 0.025)
    assert again[3].verdict != "inconclusive"


def test_p_values_are_the_intervals_own():
    f = _normal(0.02, 0.01)
    p = verdicts.p_two_sided(f, 0.02)
    assert p == pytest.approx(2 * sst.norm.sf(2.0), rel=1e-6)
    lo, _ = f(1 - p)
    assert lo == pytest.approx(0.0, abs=1e-9)


def test_planning_numbers():
    # 80% power, two-sided 5%: (1.96 + 0.84)^2 * 0.5 / 0.01^2 = 39,245 games
    assert verdicts.games_for_change(0.01, 1) == pytest.approx(39_245, abs=5)
    assert verdicts.games_for_change(0.01, 6) > verdicts.games_for_change(0.01, 1)
    n = verdicts.games_for_change(0.028, 1, variance=0.2)
    assert verdicts.detectable_change(n, 1, variance=0.2) == pytest.approx(0.028, rel=0.01)
    with pytest.raises(ValueError, match="0.01 means 1 percentage point"):
        verdicts.games_for_change(1.5, 1)
    q = sweeps.plan(load_game("odyssey"), studies.STUDIES["hal-difficulty"].grid, 0.01,
                     focus="hal_extra_turns")
    assert q == [{"option": "hal_extra_turns", "family_size": 6,
                  "games": verdicts.games_for_change(0.01, 6),
                  "games_at_10": verdicts.games_for_change(0.01, 6, variance=0.18)}]
    iss = sweeps.plan(load_game("iss"), studies.STUDIES["iss-shuttle-removal"].grid, 0.025,
                       focus="remove_shuttles")
    assert iss[0]["family_size"] == 9  # 1 + 1 + 3 + 4 seats (two seats are one test)


def test_detect_prints_the_plan_without_playing(tmp_path: Path):
    from typer.testing import CliRunner

    from balancelab.cli import app

    res = CliRunner().invoke(app, ["study", "hal-difficulty", "--detect", "0.01", "--out",
                                   str(tmp_path / "s")])
    assert res.exit_code == 0, res.output
    assert "among the 6 changes of hal_extra_turns" in " ".join(res.output.split())
    assert not (tmp_path / "s").exists()


def test_paired_difference_reports_what_pairing_saved():
    a = np.array([1] * 6 + [1] * 2 + [0] * 6 + [0] * 6, dtype=bool)
    b = np.array([1] * 6 + [0] * 2 + [1] * 6 + [0] * 6, dtype=bool)
    d = stats.diff_paired(a, b)
    assert d.correlation == pytest.approx((36 - 12) / np.sqrt(8 * 12 * 12 * 8))
    # 2 cov / (var_a + var_b) = 2 (0.3 - 0.24) / (0.24 + 0.24)
    assert d.games_saved == pytest.approx(0.25)
    u = stats.diff_unpaired(8, 20, 12, 20)
    assert u.correlation == 0.0 and u.games_saved == 0.0


def _seat_games(n: int, shared: float, capped: float = 0.0) -> pl.DataFrame:
    """Four equal seats (wins in turn), a share of shared wins and of capped games."""
    rows = []
    k_shared, k_cap = round(n * shared), round(n * capped)
    for i in range(n):
        winner = ("tie" if i < k_shared else "" if i < k_shared + k_cap
                  else f"seat{i % 4}")
        rows.append({"run_id": "r", "game": "fake", "game_version": "1",
                     "variant_label": "players=4", "players": 4, "policy_player": "p",
                     "policies": "seat0=p;seat1=p;seat2=p;seat3=p", "game_index": i,
                     "seed": 1, "winner": winner,
                     "end_reason": "cap" if winner == "" else "score",
                     "rounds": 10, "decisions": 50})
    return pl.DataFrame(rows)


def test_fair_share_counts_shared_wins_as_win_rates_do():
    """With 5.1% shared wins, four equal seats each win 23.7%: 25% made every seat look
    below its share."""
    df = _seat_games(4000, 0.051)
    assert analysis.fair_shares(df)["fair_share"][0] == pytest.approx(0.949 / 4)
    sb = analysis.seat_balance(df)
    assert sb["contender"].to_list() == ["all seats", "seat0", "seat1", "seat2", "seat3"]
    seats = sb.filter(pl.col("contender") != "all seats")
    assert seats["fair_share"].to_list() == pytest.approx([0.23725] * 4)
    assert set(seats["verdict"]) == {"equivalent"}  # within ±2.5 points of the fair share
    assert sb["verdict"][0] == "equivalent" and sb["p_value"][0] > 0.99


def test_an_unequal_seat_is_found():
    df = _seat_games(4000, 0.05).with_columns(  # seat3 loses a third of its wins to seat0
        pl.when((pl.col("winner") == "seat3") & (pl.col("game_index") % 3 == 0))
        .then(pl.lit("seat0")).otherwise(pl.col("winner")).alias("winner"))
    sb = analysis.seat_balance(df)
    v = dict(zip(sb["contender"], sb["verdict"], strict=True))
    assert v["all seats"] == "unequal" and v["seat0"] == "raises" and v["seat3"] == "lowers"
    r0 = sb.filter(pl.col("contender") == "seat0").row(0, named=True)
    assert r0["lo"] > 0 and r0["level_used"] < 0.99


def test_seat_rows_even_when_every_game_was_capped():
    df = _seat_games(200, 0.0, capped=1.0)
    rates = analysis.win_rates(df)
    assert rates["contender"].to_list() == ["seat0", "seat1", "seat2", "seat3"]
    assert (rates["capped"] == 200).all() and (rates["wins"] == 0).all()
    assert analysis.seat_balance(df).height == 0  # no sole winner: nothing to test


def test_iss_report_counts_a_shared_win_as_a_draw_only_for_the_tied_seats(tmp_path: Path):
    from balancelab.games import get_game
    from balancelab.reports.run_report import build_run_report
    from balancelab.simulate import runs

    g = get_game("iss")
    path = tmp_path / "iss4"
    runs.run(runs.RunConfig("iss", [g.options_type(players=4)], seed=3, games=120), path,
               jobs=1, backend="sequential")
    rep = build_run_report(path)
    table = next(b for s in rep.sections for b in s.blocks
                 if getattr(b, "title", "") == "Win rates")
    draws = [int(x) for x in table.frame["draws"].to_list()]
    expected = analysis.win_rates(path).sort("seat")["draws"].to_list()
    ties = int((runs.load_games(path)["winner"] == "tie").sum())
    assert ties > 0 and draws == expected and sum(draws) < 4 * ties
    assert any(s.title == "Are the seats equal?" for s in rep.sections)


@pytest.mark.stat
def test_sequential_decision_is_valid_however_often_it_looks():
    """Paired games with no true change (δ = 0; 8% discordant), looked at every 50 games up to
    5,000: the share of paths on which the anytime-valid interval for which variant won the
    discordant games ever excludes 1/2 — the only way --decide can say raises or lowers
    wrongly — stays within its 2.5% (α / 2 for one change; Ville's inequality). 2,000 paths,
    fixed seed: deterministic; a true 2.5% would exceed 3.5% with probability < 0.2%."""
    rng = np.random.default_rng(1515)
    paths, horizon = 2000, 5000
    disc = rng.random((paths, horizon)) < 0.08
    b_won = rng.random((paths, horizon)) < 0.5
    looks = np.arange(50, horizon + 1, 50) - 1
    n_disc = np.cumsum(disc, axis=1)[:, looks]
    n01 = np.cumsum(disc & b_won, axis=1)[:, looks]
    log_m = stats.cs_log_martingale(n01, n_disc, 0.5)
    wrong = np.any(log_m >= np.log(1 / 0.025), axis=1).mean()
    assert wrong <= 0.035, wrong


def test_decide_stops_when_every_change_is_decided(tmp_path: Path):
    install()
    res = sweeps.sweep(load_game("coin"), {"edge": [300, 700]}, tmp_path / "dec", decide=True,
                        games=250, max_games=4000, jobs=1)
    assert res.rounds[-1]["reached"] and res.games < 4000
    comp = analysis.compare_variants(tmp_path / "dec", sequential=True)
    assert set(comp["verdict"]) == {"raises"} and comp["lo"][0] > 0
    assert comp["method"][0] == verdicts.SEQUENTIAL_METHOD
    from balancelab.reports.run_report import build_run_report

    head = " ".join(build_run_report(tmp_path / "dec").headline)
    assert "Sequential decision (--decide)" in head and "sequential probability ratio" in head
    assert "Fixed-sample: every other number in this report" in head


def test_precision_diff_stops_on_the_question_changes(tmp_path: Path):
    install()
    res = sweeps.sweep(load_game("coin"), {"edge": [450, 550]}, tmp_path / "pd",
                       precision_diff=0.02,
                        games=250, jobs=1)
    assert res.rounds[-1]["reached"] and len(res.rounds) >= 2
    st = analysis.sweeps.difference_status(tmp_path / "pd")
    assert st["half_width"].max() <= 0.02


@pytest.mark.stat
def test_precision_stopping_on_wilson_widths_keeps_their_coverage():
    """The --precision rule (rounds of :func:`sweeps._next_games` from 1,000 games until the
    95% Wilson interval is within ±E) looks only at the width, so the interval printed at the
    stop keeps its level: coverage >= 0.93 at win rates 2%-50% and E = 1-2 points (4,000
    simulated runs each, fixed seed; the standard error of 0.95 is 0.0034). It needs 2.8-3.6x
    fewer games than stopping on the anytime-valid sequence."""
    rng = np.random.default_rng(2015)
    runs = 4000
    for p in (0.02, 0.1, 0.3, 0.5):
        for target in (0.01, 0.02):
            n = np.full(runs, sweeps.PRECISION_START)
            k = rng.binomial(n, p)
            done = np.zeros(runs, dtype=bool)
            for _ in range(40):
                lo, hi = stats.wilson(k, n)
                half = (hi - lo) / 2
                done |= half <= target
                if done.all():
                    break
                for i in np.flatnonzero(~done):
                    new = sweeps._next_games(int(n[i]), float(half[i]), target, 250,
                                              sweeps.PRECISION_MAX)
                    k[i] += rng.binomial(new - n[i], p)
                    n[i] = new
            lo, hi = stats.wilson(k, n)
            cover = np.mean((lo <= p) & (p <= hi))
            assert cover >= 0.93, (p, target, cover)


def test_a_measure_constant_in_a_tiny_run_names_no_games_to_decide():
    """2 games a setting of a measure that did not vary: a margin of ~0 (1e-12) asked for
    ~1e27 games, which overflowed the report's 64-bit column (the skill ladder's verdict
    runs crashed); beyond MAX_GAMES_TO_DECIDE the report names no number."""
    (dec,) = verdicts.decide_family([0.0], [_normal(0.0, 0.6)], [2], 1e-12)
    assert dec.verdict == "inconclusive" and dec.games_to_decide is None
    (ok,) = verdicts.decide_family([0.0], [_normal(0.0, 0.6)], [2], 0.25)
    assert ok.games_to_decide is not None and ok.games_to_decide <= verdicts.MAX_GAMES_TO_DECIDE
