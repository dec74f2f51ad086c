"""Known values and coverage of the statistics in balancelab.analysis.stats."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    # Newcombe's corrected phi: AD - BC = 24 exceeds n/2 = 10, so phi = (24 - 10) / sqrt(A)
    phi = (6 * 6 - 2 * 6 - 10) / np.sqrt(8 * 12 * 12 * 8)
    lo = 0.2 - np.sqrt((0.6 - lb) ** 2 - 2 * phi * (0.6 - lb) * (ua - 0.4) + (ua - 0.4) ** 2)
    hi = 0.2 + np.sqrt((ub - 0.6) ** 2 - 2 * phi * (ub - 0.6) * (0.4 - la) + (0.4 - la) ** 2)
    assert (d.lo, d.hi) == pytest.approx((lo, hi))
    assert d.lo < 0 < d.hi and stats.verdict(d.lo, d.hi) == "inconclusive"


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


def test_paired_interval_on_newcombes_published_example():
    """Newcombe (1998, Stat Med 17:2635), worked in Altman et al., Statistics with Confidence
    (2000) p. 52: 7 pairs both positive, 25 only the first, 2 only the second, 68 neither;
    difference 0.2255, published 95% interval 0.133 to 0.318 (the uncorrected phi gives
    0.1353 to 0.3169)."""
    first = np.array([1] * 7 + [1] * 25 + [0] * 2 + [0] * 68, dtype=bool)
    second = np.array([1] * 7 + [0] * 25 + [1] * 2 + [0] * 68, dtype=bool)
    d = stats.diff_paired(second, first)
    assert d.diff == pytest.approx(23 / 102)
    assert round(d.lo, 3) == 0.133 and round(d.hi, 3) == 0.318
    assert stats.newcombe_phi(7, 25, 2, 68) == pytest.approx(
        (7 * 68 - 25 * 2 - 51) / np.sqrt(32 * 70 * 9 * 93))
    # the corrected phi is 0 for a weak positive association (0 <= AD - BC <= n/2)
    assert stats.newcombe_phi(1, 1, 1, 2) == 0.0
    assert stats.interval_at(d, 0.95) == pytest.approx((d.lo, d.hi))


@pytest.mark.stat
def test_paired_interval_covers_when_nearly_all_pairs_agree():
    """Coverage of the paired interval at n = 50 and 200 over a grid of agreement rates (50%
    to 99% of pairs with the same outcome), win rates 2%-50%, and discordant pairs split
    evenly or 3:1: at least 0.93 everywhere (nominal 0.95). 4,000 simulated tables per
    setting (fixed seed, so the test is deterministic; the standard error of a coverage of
    0.95 is 0.0034). Without Newcombe's phi correction the worst setting covers 0.76.
    Known limit: when EVERY discordant pair favours one side and there are only one or two of
    them (n = 200, 1% discordant), coverage dips to about 0.88."""
    rng = np.random.default_rng(15)
    for n in (50, 200):
        for agree in (0.5, 0.8, 0.9, 0.95, 0.98, 0.99):
            for pa in (0.02, 0.1, 0.3, 0.5):
                for shift in (0.0, 0.5):
                    disc = 1 - agree
                    p10 = disc * (1 - shift) / 2
                    p01 = disc - p10
                    p11, p00 = pa - p10, 1 - pa - p01
                    if p11 < 0 or p00 < 0:
                        continue
                    true = p01 - p10
                    tabs = rng.multinomial(n, [p11, p10, p01, p00], size=4000)
                    lo, hi = stats.paired_interval(*tabs.T, 0.95)
                    cover = np.mean((lo <= true + 1e-12) & (true - 1e-12 <= hi))
                    assert cover >= 0.93, (n, agree, pa, shift, cover)


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 10**9), frac=st.floats(0, 1), edge=st.sampled_from([0, 1, 2, None]))
def test_confidence_sequence_never_fails(n: int, frac: float, edge: int | None):
    """Any 0 <= k <= n <= 10⁹ gives an interval around k/n (it crashed on 0/n and n/n above
    about 20,000 games and on rates below about 1e-4)."""
    k = min(n, int(frac * n)) if edge is None else (min(edge, n) if frac < 0.5
                                                    else max(0, n - edge))
    lo, hi = stats.confidence_sequence(k, n)
    assert 0.0 <= lo <= hi <= 1.0
    if n:
        assert lo <= k / n <= hi
        assert (lo == 0.0) == (k == 0) or lo < 1e-30
        assert (hi == 1.0) == (k == n) or hi > 1 - 1e-15


def test_confidence_sequence_at_the_audits_crash():
    # sweep ... --precision 0.01 --games 21000 reached 0 of 21,000 crew wins and crashed
    lo, hi = stats.confidence_sequence(0, 21_000)
    assert lo == 0.0 and 0 < hi < 5e-4
    lo, hi = stats.confidence_sequence(21_000, 21_000)
    assert hi == 1.0 and 1 - 5e-4 < lo < 1


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
