"""Known values and coverage of the statistics in balancelab.analysis.stats."""

import numpy as np
import pytest

from balancelab.analysis import stats


def test_wilson_known_values_at_the_edges():
    lo, hi = stats.wilson(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    lo, hi = stats.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = stats.wilson(5, 10)
    assert (lo, hi) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    lo, hi = stats.wilson(np.array([0, 3]), np.array([0, 3]))
    assert list(lo) == [0.0, pytest.approx(0.4385, abs=1e-4)] and list(hi) == [1.0, 1.0]


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        stats.wilson(11, 10)


def test_holm_known_values():
    assert stats.holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert stats.holm([0.5, 0.001, 0.02, 0.9]) == pytest.approx([1.0, 0.004, 0.06, 1.0])
    assert stats.holm([]).size == 0


def test_paired_difference_on_a_hand_made_table():
    # 2x2 table over 20 games: both win 6, only a 2, only b 6, neither 6.
    a = np.array([1] * 6 + [1] * 2 + [0] * 6 + [0] * 6, dtype=bool)
    b = np.array([1] * 6 + [0] * 2 + [1] * 6 + [0] * 6, dtype=bool)
    d = stats.diff_paired(a, b)
    assert d.paired and d.p_a == pytest.approx(0.4) and d.p_b == pytest.approx(0.6)
    assert d.diff == pytest.approx(0.2)
    # McNemar exact: 6 of 8 discordant pairs favour b, two-sided binomial p = 0.2890625
    assert d.p_value == pytest.approx(0.2890625)
    # Newcombe (1998) method 10 for this table, computed by hand from the Wilson limits
    la, ua = stats.wilson(8, 20)
    lb, ub = stats.wilson(12, 20)
    phi = (6 * 6 - 2 * 6) / np.sqrt(8 * 12 * 12 * 8)
    lo = 0.2 - np.sqrt((0.6 - lb) ** 2 - 2 * phi * (0.6 - lb) * (ua - 0.4) + (ua - 0.4) ** 2)
    hi = 0.2 + np.sqrt((ub - 0.6) ** 2 - 2 * phi * (ub - 0.6) * (0.4 - la) + (0.4 - la) ** 2)
    assert (d.lo, d.hi) == pytest.approx((lo, hi))
    assert d.lo < 0 < d.hi and stats.verdict(d.lo, d.hi) == "no detectable change"


def test_paired_is_narrower_than_unpaired_when_outcomes_correlate():
    rng = np.random.default_rng(0)
    u = rng.random(2000)
    a, b = u < 0.40, u < 0.45
    p = stats.diff_paired(a, b)
    q = stats.diff_unpaired(int(a.sum()), 2000, int(b.sum()), 2000)
    assert p.diff == pytest.approx(q.diff)
    assert p.hi - p.lo < 0.5 * (q.hi - q.lo)
    assert stats.verdict(p.lo, p.hi) == "raises"


def test_unpaired_difference_known_values():
    d = stats.diff_unpaired(56, 70, 48, 80)
    # Newcombe (1998) example: 56/70 - 48/80 = 0.2, method 10 CI 0.0524 to 0.3339
    assert -d.diff == pytest.approx(0.2)
    assert (-d.hi, -d.lo) == pytest.approx((0.0524, 0.3339), abs=1e-4)


def test_confidence_sequence_edges_and_width():
    assert stats.confidence_sequence(0, 100)[0] == 0.0
    assert stats.confidence_sequence(100, 100)[1] == 1.0
    lo, hi = stats.confidence_sequence(5000, 10_000)
    wlo, whi = stats.wilson(5000, 10_000)
    assert lo < wlo < 0.5 < whi < hi
    assert (hi - lo) < 2.0 * (whi - wlo)
    # the endpoints are where the martingale crosses 1/alpha
    assert float(stats.cs_log_martingale(5000, 10_000, lo)) == pytest.approx(np.log(20),
                                                                              abs=1e-6)


@pytest.mark.stat
def test_confidence_sequence_covers_at_every_look():
    """Simulated coin flips: the true rate must stay inside the sequence at EVERY n.

    The miss rate is at most 5% by Ville's inequality (in practice far less). With 600 paths
    per rate the assertion (observed miss rate <= 5%) fails falsely with probability below
    1e-3 even if the true miss rate were exactly 5% (binomial tail at 600 paths, fixed seed:
    the test is deterministic). Repeatedly looking at Wilson intervals misses far more often,
    which the second assertion shows.
    """
    rng = np.random.default_rng(20240601)
    n_paths, horizon = 600, 3000
    ns = np.arange(1, horizon + 1)
    for p in (0.1, 0.5, 0.93):
        flips = rng.random((n_paths, horizon)) < p
        k = np.cumsum(flips, axis=1)
        log_m = stats.cs_log_martingale(k, ns[None, :], p)
        miss = np.any(log_m >= np.log(20), axis=1).mean()
        assert miss <= 0.05, (p, miss)
        looks = ns[ns >= 30]
        lo, hi = stats.wilson(k[:, looks - 1], looks[None, :])
        wilson_miss = np.any((p < lo) | (p > hi), axis=1).mean()
        assert wilson_miss > 2 * max(miss, 0.05)


def test_summarize_columns():
    import polars as pl

    df = pl.DataFrame({"g": [0, 0, 0, 1], "x": [1, 2, 3, 10]})
    s = stats.summarize(df, "x", by=["g"])
    assert s.columns == ["g", "measure", "n", "mean", "sd", "median", "p95", "min", "max"]
    row = s.row(0, named=True)
    assert row["mean"] == 2.0 and row["sd"] == 1.0 and row["median"] == 2.0
    assert row["p95"] == pytest.approx(2.9)
