"""``--decide`` at the cost of a chess engine tester's SPRT (issue 26), by simulation: paired
games as (b won) − (a won) in {−1, 0, +1}, numpy only, no engine games."""

import numpy as np
import pytest

from balancelab.analysis import verdicts

MARGIN, DISCORDANT, ALPHA = 0.03, 0.3, 0.05
LOOKS = 200  # 20,000 games at most: no path reaches it


def _decide(rng: np.random.Generator, change: float, paths: int) -> tuple[np.ndarray, np.ndarray]:
    """Games used and verdicts of :func:`verdicts.sequential_verdicts` (one change, looked
    at every DECIDE_LOOK games)."""
    look = verdicts.DECIDE_LOOK
    probs = [DISCORDANT / 2 + change / 2, DISCORDANT / 2 - change / 2, 1 - DISCORDANT]
    c = rng.multinomial(look, probs, size=(paths, LOOKS))
    total = np.cumsum(c[..., 0] - c[..., 1], axis=1)
    disc = np.cumsum(c[..., 0] + c[..., 1], axis=1)
    looks = np.arange(1, LOOKS + 1) * look
    at, verdict = verdicts.sequential_verdicts(total, disc, looks, MARGIN, 1 - ALPHA)
    return looks[at], verdict


def _fishtest(rng: np.random.Generator, change: float, paths: int) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """Games used by fishtest-style SPRTs checked after every game: 0 against +margin
    (Wald's bounds at α/2 and β = α; fishtest's normal approximation with the sample
    variance). Returns the games of that one-sided test alone, and of the pair with its
    mirror against −margin giving the same three verdicts (raises / lowers when one accepts
    its margin, equivalent when both accept 0). A path that never stops counts the horizon."""
    a, b = ALPHA / 2, ALPHA
    up, lo = np.log((1 - b) / a), np.log(b / (1 - a))
    horizon = LOOKS * verdicts.DECIDE_LOOK
    stop = {+1: np.full(paths, horizon), -1: np.full(paths, horizon)}
    took = {+1: np.zeros(paths, dtype=bool), -1: np.zeros(paths, dtype=bool)}
    s, d = np.zeros(paths), np.zeros(paths)
    block = 1000
    for start in range(0, horizon, block):
        u = rng.random((paths, block))
        x = np.where(u < DISCORDANT / 2 + change / 2, 1, np.where(u < DISCORDANT, -1, 0))
        ss = s[:, None] + np.cumsum(x, axis=1)
        dd = d[:, None] + np.cumsum(x != 0, axis=1)
        n = start + np.arange(1, block + 1)
        var = dd / n - (ss / n) ** 2
        for sign in (+1, -1):
            with np.errstate(divide="ignore", invalid="ignore"):
                llr = np.where(var > 0, sign * MARGIN * (2 * ss - sign * MARGIN * n)
                               / (2 * var), 0.0)
            hit = (llr >= up) | (llr <= lo)
            first = hit.argmax(axis=1)
            new = (stop[sign] == horizon) & hit.any(axis=1)
            stop[sign][new] = start + first[new] + 1
            took[sign][new] = llr[new, first[new]] >= up
        s, d = ss[:, -1], dd[:, -1]
    both = np.where(took[+1], stop[+1], np.where(took[-1], stop[-1],
                                                 np.maximum(stop[+1], stop[-1])))
    return stop[+1], both


@pytest.mark.stat
def test_decide_costs_about_what_a_chess_testers_sprt_costs():
    """Mean games of ``--decide`` (one change, looked at every 100 games, α = 5%, margin ±3
    points, 30% of games discordant) against fishtest-style SPRTs checked after every game at
    the same error rates, over 2,000 and 1,000 simulated runs (fixed seed: deterministic).

    Seen: at no change 3,210 games against 2,820 for the fishtest pair (1.14×), at half the
    margin 4,430 against 3,860 (1.15×), at the margin 2,440 against 2,260 (1.08×). The
    one-sided fishtest test alone (0 against +3 points: it rules out only one side) needs
    1,870, 3,700 and 2,250: ``equivalent`` must rule out both sides, so it costs 1.7× that
    at no change. Errors: wrong 'raises' or 'lowers' at no change 2.8% (at most 5%), wrong
    'equivalent' at the margin 3.8% (at most 5%)."""
    rng = np.random.default_rng(2626)
    for change in (0.0, MARGIN / 2, MARGIN):
        games, verdict = _decide(rng, change, 2000)
        ref_one, ref_both = _fishtest(rng, change, 1000)
        assert games.mean() <= 1.2 * ref_both.mean(), (change, games.mean(), ref_both.mean())
        if change == MARGIN:
            assert games.mean() <= 1.2 * ref_one.mean()
            assert np.mean(verdict == verdicts.EQUIVALENT) <= ALPHA
            assert np.mean(verdict == verdicts.LOWERS) == 0
        if change == 0:
            assert np.mean((verdict == verdicts.RAISES) | (verdict == verdicts.LOWERS)) <= ALPHA
            assert np.mean(verdict == verdicts.EQUIVALENT) >= 0.95


def test_sequential_paired_reads_the_first_look_that_decides():
    """One pair of paths: the verdict and its look are those of the vectorised test; the
    games after that look are not read; the printed interval agrees with the verdict."""
    rng = np.random.default_rng(7)
    a = rng.random(5000) < 0.45
    b = np.where(rng.random(5000) < 0.3, ~a, a) | (rng.random(5000) < 0.06)
    (dec,) = verdicts.sequential_paired([(a, b)], 0.03)
    x = b.astype(int) - a.astype(int)
    looks = np.arange(100, 5001, 100)
    at, verdict = verdicts.sequential_verdicts(np.cumsum(x)[looks - 1],
                                               np.cumsum(x != 0)[looks - 1], looks, 0.03)
    assert dec.verdict == verdict[0] == "raises"
    assert dec.games_decided == looks[at[0]] < 5000
    n = dec.games_decided
    assert dec.estimate == pytest.approx(x[:n].mean())
    assert dec.lo > 0 and dec.level == pytest.approx(0.95)
    (later,) = verdicts.sequential_paired([(np.r_[a, np.ones(3000, bool)],
                                            np.r_[b, np.zeros(3000, bool)])], 0.03)
    assert (later.verdict, later.games_decided) == (dec.verdict, n)
