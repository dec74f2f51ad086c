"""Three verdicts, one rule: how every comparison in balancelab is read.

A *question* (a study's focus option, one option of a sweep, the runs of a ``compare``)
defines a *family* of changes: the option's steps (neighbouring settings by default, every
pair when asked) within each setting of the other options, which are held fixed and never
compared with each other; one row per change for a two-sided game (the other side's change is
its mirror, apart from draws and capped games), one row per seat for seat games. Each change
gets one of three verdicts (:data:`RULE`, printed in every report):

* **raises** / **lowers** — the interval for the change, at the level Holm's step-down
  procedure tests it at in its family (Holm 1979), lies above / below 0;
* **equivalent within ±m** — not the above, and the two one-sided tests (TOST; Schuirmann
  1987) at the same family-wise level, Holm-corrected across the family, put the change
  inside ±m: the ``1 - 2α`` interval lies within (−m, +m);
* **inconclusive** — neither: more games are needed, and the report says about how many.

The interval printed beside a verdict is the one the verdict used (the Holm-level interval
for raises / lowers, the TOST interval for equivalent, the wider of the two for
inconclusive: it contains 0 and does not lie inside ±m), so a table can never contradict its
verdict. The p-values are those of the same intervals (the smallest
``1 - level`` at which the interval excludes the null), so Holm's adjusted p-value is below
``1 - level`` exactly when the verdict is raises or lowers.

Holm's levels: with the family's p-values sorted, the row of rank r (1 = smallest) is tested
at ``α / (m - r + 1)`` while every row before it was rejected; the first row that is not, and
every row after it, at that row's level. Rejected rows' intervals exclude 0 and the others'
contain it (duality of interval and p-value).

Planning: an inconclusive row names the games per setting that would decide it at 80% power
if it stayed at its estimate (:func:`games_to_decide`, under Bonferroni's ``α / m``) and the
smallest margin at which it would count as equivalent; :func:`games_for_change` gives the
games per setting that detect a change of D with 80% power under the family's correction
(Bonferroni's ``α / m``, the level of Holm's first step); :func:`detectable_change` the
smallest change detectable at the games played. :func:`family_error_text` states the
family's joint error bound in words.

A sequential decision (:func:`sequential_paired`, ``--decide``) reaches the same three
verdicts by sequential probability ratio tests on the paired games, looked at every
:data:`DECIDE_LOOK` games, so a run may stop as soon as every change is decided, at about
the cost of a chess engine tester's SPRT.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
from scipy import optimize, stats

from balancelab.analysis import stats as bstats

RAISES = "raises"
LOWERS = "lowers"
EQUIVALENT = "equivalent"
INCONCLUSIVE = "inconclusive"
VERDICTS = (RAISES, LOWERS, EQUIVALENT, INCONCLUSIVE)
#: Power the planning numbers are computed for.
POWER = 0.8
#: Equivalence margin per game, in win-rate units (0.02 = ±2 percentage points): a change
#: smaller than this is too small for a designer to act on.
MARGINS = {"odyssey": 0.02, "iss": 0.025, "obcy": 0.025}
#: Margin of a game without its own.
DEFAULT_MARGIN = 0.025
#: Equivalence margin of a game measure, in standard deviations of the measure's per-game
#: values in the "before" setting (a tenth of the spread is negligible).
MEASURE_MARGIN_SD = 0.1

#: The rule in words, stated once in every report that prints verdicts.
RULE = (
    "Verdicts: 'raises' / 'lowers' when the change's interval, at the level Holm's "
    "correction tests it at in its family, excludes 0; 'equivalent within ±m' when instead "
    "the two one-sided tests (TOST) at the same family-wise level put it inside ±m; "
    "'inconclusive' otherwise (with the games per setting that would decide it at 80% power "
    "under the family's correction, and the smallest margin at which it would count as "
    "equivalent). The interval printed beside a verdict is the one it used (for "
    "'inconclusive', the wider of the two, which contains 0 and does not lie inside ±m)."
)

#: The sequential rule in words (``--decide``), stated in place of :data:`RULE` after a stop.
SEQUENTIAL_RULE = (
    "Verdicts (sequential): 'raises' / 'lowers' when the test of no change against a change "
    "of +m / −m accepts the change; 'equivalent within ±m' when both accept no change; "
    "'inconclusive' when they had not decided by the game limit (with the smallest margin at "
    "which it would count as equivalent). A verdict is read at the look that decided it; "
    "the interval beside it is the fixed-sample one there, at Bonferroni's level."
)

IntervalFn: TypeAlias = Callable[[float], tuple[float, float]]


def margin_for(game: str | None) -> float:
    """The default equivalence margin of a game, in win-rate units."""
    return MARGINS.get(game or "", DEFAULT_MARGIN)


def _level(z: float) -> float:
    return float(2 * stats.norm.cdf(z) - 1)


_Z_MAX = 8.0  # a p-value of 1e-15: beyond it the level rounds to 1


def _crossing(bound: Callable[[float], float], target: float, start: float) -> float:
    """The z at which ``bound(level(z))`` reaches ``target``: ``bound`` starts at ``start``
    (the estimate, at level 0) and moves monotonically towards ``target`` as z grows; 0 when
    it starts at or past it (an estimate on the target up to rounding), ``_Z_MAX`` when it
    never reaches it."""
    def f(z: float) -> float:
        return bound(_level(z)) - target

    s0 = np.sign(start - target)
    f0 = f(1e-6)
    if s0 == 0 or f0 == 0 or np.sign(f0) != s0:
        return 0.0
    hi = 1.0
    while f(hi) * f0 > 0:
        hi *= 2
        if hi > _Z_MAX:
            return _Z_MAX
    return float(optimize.brentq(f, 1e-6 if hi == 1.0 else hi / 2, hi, xtol=1e-10))


def p_two_sided(interval: IntervalFn, estimate: float, null: float = 0.0) -> float:
    """The p-value of an interval for ``estimate == null``: ``1 - level`` at the level where
    the interval's nearer end reaches ``null`` (1 when the estimate equals it)."""
    if estimate == null:
        return 1.0
    side = 0 if estimate > null else 1
    z = _crossing(lambda lv: interval(lv)[side], null, estimate)
    return float(min(1.0, 2 * stats.norm.sf(z)))


def p_equivalence(interval: IntervalFn, estimate: float, margin: float) -> float:
    """TOST p-value for ``|change| < margin``: the larger one-sided p-value of the interval
    against ``-margin`` and ``+margin``. About 0.5 for an estimate on the margin (up to
    rounding: 40 games in 2,000 at ±2 points), rising towards 1 beyond it (there the
    one-sided p-value is ``Φ(z)`` at the level where the interval's nearer end reaches the
    margin)."""
    if estimate >= margin:
        return float(stats.norm.cdf(_crossing(lambda lv: interval(lv)[0], margin, estimate)))
    if estimate <= -margin:
        return float(stats.norm.cdf(_crossing(lambda lv: interval(lv)[1], -margin,
                                              estimate)))
    z_lo = _crossing(lambda lv: interval(lv)[0], -margin, estimate)
    z_hi = _crossing(lambda lv: interval(lv)[1], margin, estimate)
    return float(max(stats.norm.sf(z_lo), stats.norm.sf(z_hi)))


def holm_alphas(p_values: Sequence[float] | np.ndarray, alpha: float) -> np.ndarray:
    """The level Holm's step-down procedure tests each p-value at, in the input order (see
    the module docstring): ``p <= its alpha`` exactly for the rows Holm rejects."""
    p = np.asarray(p_values, dtype=float)
    m = p.size
    out = np.empty(m)
    order = np.argsort(p, kind="stable")
    current = alpha / m if m else alpha
    stopped = False
    for r, i in enumerate(order):
        if not stopped:
            current = alpha / (m - r)
            if p[i] > current:
                stopped = True
        out[i] = current
    return out


@dataclass(frozen=True)
class Decision:
    """One change's verdict and the numbers behind it.

    Attributes:
        verdict: one of :data:`VERDICTS`.
        lo, hi: the interval shown beside the verdict (the one it used).
        level: that interval's confidence level.
        diff_lo, diff_hi, diff_level: the Holm-level interval for the change.
        eq_lo, eq_hi, eq_level: the TOST interval (level ``1 - 2 α_eq``).
        p_value, p_holm: the interval's p-value for 0 and Holm's adjusted p-value.
        p_equivalence: TOST p-value (before Holm).
        games_to_decide: for an inconclusive change, about how many games per setting
            would decide it if the change stayed at its estimate (None otherwise, or when
            it cannot be said).
        detectable: the smallest change detectable with 80% power at the games played,
            under the family's correction.
        equivalent_within: the smallest margin at which the change would count as
            equivalent: the largest end of its TOST interval at Bonferroni's level
            ``1 - 2 α / m`` (the widest Holm's step-down may use).
        estimate, games_decided: a sequential decision's change and games at the look that
            decided it (NaN / None for fixed-sample decisions and undecided changes).
    """

    verdict: str
    lo: float
    hi: float
    level: float
    diff_lo: float
    diff_hi: float
    diff_level: float
    eq_lo: float
    eq_hi: float
    eq_level: float
    p_value: float
    p_holm: float
    p_equivalence: float
    games_to_decide: int | None
    detectable: float
    equivalent_within: float = float("nan")
    estimate: float = float("nan")
    games_decided: int | None = None


#: Beyond this many games per setting the report names no number (it would overflow the
#: reports' 64-bit columns: a measure that was constant in a tiny run has a margin of ~0).
MAX_GAMES_TO_DECIDE = 10**12


def _round_up(n: float) -> int:
    """Games rounded up to two significant figures (``12,345`` → ``13,000``)."""
    if not np.isfinite(n) or n <= 0:
        return 0
    mag = 10 ** max(0, int(np.floor(np.log10(n))) - 1)
    return int(np.ceil(n / mag) * mag)


def _power_difference(change: float, se: float, z: float) -> float:
    """Chance that an interval ``d ± z se`` excludes 0 when the true change is ``change``."""
    r = abs(change) / se
    return float(stats.norm.cdf(r - z) + stats.norm.cdf(-r - z))


def _power_equivalence(change: float, se: float, z: float, margin: float) -> float:
    """Chance that the TOST interval ``d ± z se`` lies inside ±margin when the true change is
    ``change`` (normal approximation)."""
    return float(max(0.0, stats.norm.cdf((margin - change) / se - z)
                     + stats.norm.cdf((margin + change) / se - z) - 1.0))


def _games_for_power(power_at: Callable[[float], float], n: int) -> float:
    """The games per setting at which ``power_at(games)`` reaches :data:`POWER` (inf when it
    does not below :data:`MAX_GAMES_TO_DECIDE`); ``power_at`` grows with the games."""
    def f(log_games: float) -> float:
        return power_at(float(np.exp(log_games))) - POWER

    lo, hi = np.log(max(n, 1)), np.log(MAX_GAMES_TO_DECIDE * 10.0)
    if f(lo) >= 0:
        return float(n)
    if f(hi) < 0:
        return float("inf")
    return float(np.exp(optimize.brentq(f, lo, hi, xtol=1e-6)))


def games_to_decide(change: float, se: float, games: int, family_size: int, margin: float,
                    level: float = bstats.LEVEL) -> int | None:
    """About how many games per setting would decide a change at 80% power if it stayed at
    its estimate, under the family's correction (Bonferroni's ``α / m``, the strictest level
    Holm's step-down may test a row at): the fewer of the games that would show it differs
    from 0 and the games that would show it inside ±margin.

    Args:
        change: the estimate (win-rate units, or the measure's).
        se: its standard error at ``games`` games per setting (> 0).
        games: games per setting played.
        family_size: changes in the family (>= 1).
        margin: the equivalence margin.
        level: family-wise confidence level.

    Returns:
        Games per setting, rounded up to two significant figures and more than ``games``;
        None when no run below :data:`MAX_GAMES_TO_DECIDE` would decide it.
    """
    if se <= 0 or games <= 0:
        return None
    alpha = 1.0 - level
    m = max(1, family_size)
    z_diff = float(stats.norm.ppf(1 - alpha / (2 * m)))
    z_eq = float(stats.norm.ppf(1 - alpha / m))

    def se_at(n: float) -> float:
        return se * float(np.sqrt(games / n))

    cands = []
    if change != 0:
        cands.append(_games_for_power(lambda n: _power_difference(change, se_at(n), z_diff),
                                      games))
    if abs(change) < margin:
        cands.append(_games_for_power(
            lambda n: _power_equivalence(change, se_at(n), z_eq, margin), games))
    need = min(cands, default=float("inf"))
    if not np.isfinite(need):
        return None
    out = _round_up(max(need, games + 1))
    return out if out <= MAX_GAMES_TO_DECIDE else None


def decide_family(estimates: Sequence[float], intervals: Sequence[IntervalFn],
                  games: Sequence[int], margins: Sequence[float] | float,
                  level: float = bstats.LEVEL) -> list[Decision]:
    """The verdicts of one family of changes (see the module docstring).

    An inconclusive row is printed with the wider of its Holm-level and TOST intervals: it
    contains 0 and does not lie inside ±margin, so the row can be checked against either
    test from what is printed.

    Args:
        estimates: each change's estimate.
        intervals: each change's interval as a function of the confidence level.
        games: games per setting behind each change (for the games needed and the detectable
            change).
        margins: the equivalence margin (one for all, or one per change), > 0.
        level: the family-wise confidence level (0.95: at most 5% chance of any wrong
            raises/lowers in the family, and of any wrong equivalent; see
            :func:`family_error_text`).

    Returns:
        One :class:`Decision` per change, in order.
    """
    m = len(estimates)
    if m == 0:
        return []
    alpha = 1.0 - level
    marg = [float(margins)] * m if isinstance(margins, (int, float)) else [float(x)
                                                                            for x in margins]
    p = np.array([p_two_sided(f, d) for f, d in zip(intervals, estimates, strict=True)])
    p_eq = np.array([p_equivalence(f, d, mg) for f, d, mg in
                     zip(intervals, estimates, marg, strict=True)])
    a_diff = holm_alphas(p, alpha)
    a_eq = holm_alphas(p_eq, alpha)
    p_holm = bstats.holm(p)
    z_power = float(stats.norm.ppf(POWER))
    z_bonf = float(stats.norm.ppf(1 - alpha / (2 * m)))
    z_raw = float(stats.norm.ppf(1 - alpha / 2))
    out = []
    for i in range(m):
        f, d, mg, n = intervals[i], float(estimates[i]), marg[i], int(games[i])
        dl = 1.0 - a_diff[i]
        el = 1.0 - 2 * a_eq[i]
        dlo, dhi = f(dl)
        elo, ehi = f(el)
        if dlo > 0:
            verdict = RAISES
        elif dhi < 0:
            verdict = LOWERS
        elif -mg < elo and ehi < mg:
            verdict = EQUIVALENT
        else:
            verdict = INCONCLUSIVE
        rlo, rhi = f(level)
        se = max(rhi - rlo, 0.0) / (2 * z_raw)
        need = games_to_decide(d, se, n, m, mg, level) if verdict == INCONCLUSIVE else None
        wlo, whi = f(1.0 - 2 * alpha / m)  # the widest TOST interval Holm may use
        if verdict == EQUIVALENT:
            lo, hi, lv = elo, ehi, el
        elif verdict == INCONCLUSIVE and el > dl:  # the TOST interval is the wider
            lo, hi, lv = elo, ehi, el
        else:
            lo, hi, lv = dlo, dhi, dl
        out.append(Decision(verdict, lo, hi, lv, dlo, dhi, dl, elo, ehi, el, float(p[i]),
                            float(p_holm[i]), float(p_eq[i]), need,
                            (z_bonf + z_power) * se, max(abs(wlo), abs(whi))))
    return out


def family_error_text(family_size: int, level: float = bstats.LEVEL,
                      sequential: bool = False) -> str:
    """The family's joint error bound in words.

    Holm's correction keeps the chance of any wrong 'raises' or 'lowers' within ``α``, and
    the Holm-corrected equivalence tests that of any wrong 'equivalent' within ``α``; a
    family may hold both kinds of change, so together at most ``2α`` (a family mixing no
    change and changes at the margin gives about 9% at ``α`` = 5%). A sequential decision
    (``--decide``, :func:`sequential_paired`) splits its errors the same way.

    Example: ``family_error_text(6)`` → ``'Across these 6 verdicts, the chance of at least
    one wrong verdict is at most 10%: at most 5% of a wrong 'raises' or 'lowers' and at most
    5% of a wrong 'equivalent'.'``
    """
    alpha = 100 * (1.0 - level)
    these = "this verdict" if family_size == 1 else f"these {family_size:,} verdicts"
    tail = (" The sequential test keeps these bounds although the run stopped on what it saw."
            if sequential else "")
    return (f"Across {these}, the chance of at least one wrong verdict is at most "
            f"{2 * alpha:g}%: at most {alpha:g}% of a wrong 'raises' or 'lowers' and at most "
            f"{alpha:g}% of a wrong 'equivalent'.{tail}")


def games_for_change(change: float, family_size: int, level: float = bstats.LEVEL,
                     variance: float = 0.5, power: float = POWER) -> int:
    """Games per setting to detect a change of ``change`` (win-rate units) with ``power``,
    at the family's Bonferroni level ``(1 - level) / family_size`` (two-sided).

    Args:
        change: the change to detect, > 0 (0.01 = one percentage point).
        family_size: changes in the question's family (>= 1).
        level: family-wise confidence level.
        variance: per-game variance of the difference of the two 0/1 outcomes; the default
            0.5 is the worst case (both rates 50%, no gain from pairing). Rates near 0 or 1
            and pairing need fewer games.
        power: the chance of detecting a change of that size.

    Raises:
        ValueError: a change outside (0, 1] or a family size below 1.
    """
    if not 0 < change <= 1:
        raise ValueError(f"--detect takes a change in win-rate units in (0, 1]: 0.01 means "
                         f"1 percentage point; got {change}")
    if family_size < 1:
        raise ValueError("the family needs at least one change")
    z = stats.norm.ppf(1 - (1 - level) / (2 * family_size)) + stats.norm.ppf(power)
    return int(np.ceil(z * z * variance / change**2))


def detectable_change(games: int, family_size: int, level: float = bstats.LEVEL,
                      variance: float = 0.5, power: float = POWER) -> float:
    """The smallest change (win-rate units) detectable with ``power`` at ``games`` per
    setting under the family's correction (the inverse of :func:`games_for_change`)."""
    z = stats.norm.ppf(1 - (1 - level) / (2 * max(1, family_size))) + stats.norm.ppf(power)
    return float(z * np.sqrt(variance / max(1, games)))


# -- sequential decision ---------------------------------------------------------------------

#: Games between two looks of the sequential test (the run may play past the look that
#: decided; the verdict is the look's).
DECIDE_LOOK = 100
SEQUENTIAL_METHOD = ("sequential probability ratio tests on the paired games (GSPRT, as chess "
                     "engine testers run them; Sobel & Wald 1949 for three verdicts), looked "
                     f"at every {DECIDE_LOOK} games, Bonferroni across the family")


def gsprt_llr(total: np.ndarray, discordant: np.ndarray, games: np.ndarray, change0: float,
              change1: float) -> np.ndarray:
    """Log-likelihood ratio of a change ``change1`` against ``change0`` from paired games,
    as chess engine testers compute it (fishtest's normal approximation of the generalized
    likelihood ratio): ``(c1 - c0) (2 S - (c0 + c1) n) / (2 v)``.

    Each game gives ``x = (b won) - (a won)`` in {-1, 0, +1}; the change is its mean.

    Args:
        total: ``S``, the sum of ``x`` over the games (int or float array).
        discordant: the games where exactly one of a and b won (the sum of ``x²``).
        games: ``n`` (broadcastable, > 0).
        change0, change1: the two changes compared, in win-rate units.

    Returns:
        Float array: the log-likelihood ratio. The variance ``v`` of ``x`` is estimated with
        one discordant game added (so that a run of concordant games is not read as
        certainty): ``max((D + 1) / (n + 2) - x̄², 1 / (n + 2))``.
    """
    s = np.asarray(total, dtype=float)
    d = np.asarray(discordant, dtype=float)
    n = np.asarray(games, dtype=float)
    mean = s / n
    var = np.maximum((d + 1) / (n + 2) - mean**2, 1 / (n + 2))
    return np.asarray((change1 - change0) * (2 * s - (change0 + change1) * n) / (2 * var))


def _first_stop(llr: np.ndarray, upper: float, lower: float) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``llr`` (paths × looks), the first look where a Wald SPRT stops and
    whether it accepted the change there (the number of looks and False when it never
    stops)."""
    hit = (llr >= upper) | (llr <= lower)
    idx = np.where(hit.any(axis=1), hit.argmax(axis=1), llr.shape[1])
    took = np.take_along_axis(llr, np.minimum(idx, llr.shape[1] - 1)[:, None], axis=1)[:, 0]
    return idx, (idx < llr.shape[1]) & (took >= upper)


def sequential_verdicts(total: np.ndarray, discordant: np.ndarray, looks: np.ndarray,
                        margin: float, level: float = bstats.LEVEL, family_size: int = 1
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The sequential verdicts of :func:`sequential_paired` for many paths at once.

    Args:
        total, discordant: per path and look (2-D, paths × looks), the sum of ``x = (b
            won) - (a won)`` and the discordant games up to the look.
        looks: the games at each look (1-D, increasing).
        margin: the equivalence margin (> 0).
        level: family-wise confidence level; family_size: changes in the family.

    Returns:
        (look index, verdict) per path: the look that decided (the last look when none did)
        and one of :data:`VERDICTS` (str array).
    """
    alpha = 1.0 - level
    a_side, beta = alpha / (2 * family_size), alpha / family_size
    upper, lower = float(np.log((1 - beta) / a_side)), float(np.log(beta / (1 - a_side)))
    s, d = np.atleast_2d(total), np.atleast_2d(discordant)
    i_up, up = _first_stop(gsprt_llr(s, d, looks, 0.0, margin), upper, lower)
    i_lo, low = _first_stop(gsprt_llr(s, d, looks, 0.0, -margin), upper, lower)
    last = looks.size - 1
    both_zero = (i_up <= last) & (i_lo <= last) & ~up & ~low
    raises = up & (~low | (i_up <= i_lo))
    lowers = low & ~raises
    verdict = np.where(raises, RAISES, np.where(lowers, LOWERS, np.where(
        both_zero, EQUIVALENT, INCONCLUSIVE)))
    at = np.where(raises, i_up, np.where(lowers, i_lo, np.where(
        both_zero, np.maximum(i_up, i_lo), last)))
    return at, verdict


def sequential_paired(outcomes: Sequence[tuple[np.ndarray, np.ndarray]],
                      margins: Sequence[float] | float, level: float = bstats.LEVEL,
                      look: int = DECIDE_LOOK) -> list[Decision]:
    """Sequential verdicts for a family of paired changes (``--decide``), at the cost of a
    chess engine tester's SPRT.

    For each change two Wald SPRTs (Sobel & Wald 1949) run on the paired games, looked at
    every ``look`` games: 0 against +margin and 0 against −margin (:func:`gsprt_llr`). The
    first to accept its margin gives ``raises`` / ``lowers``; both accepting 0 give
    ``equivalent within ±margin``; neither by the last look, ``inconclusive``. A decision is
    final: games after the look that decided it are not read.

    Error split, with α = ``1 - level`` and m changes: each SPRT's chance of accepting its
    margin when the change is 0 is at most ``α / (2 m)`` and of accepting 0 when the change
    is the margin at most ``α / m`` (Wald's boundaries ``log((1 - β) / a)`` and ``log(β /
    (1 - a))``; looking every ``look`` games only overshoots them). So across the family a
    wrong 'raises' or 'lowers' has at most α, a wrong 'equivalent' at most α: together at
    most 2α, as the fixed-sample verdicts (:func:`family_error_text`).

    Args:
        outcomes: per change, the two 0/1 (bool) arrays of the paired games in play order
            (a, then b), of one length.
        margins: the equivalence margin (one for all, or one per change), > 0.
        level: the family-wise confidence level.
        look: games between looks (the run's schedule: fixed before it starts).

    Returns:
        One :class:`Decision` per change; ``lo``/``hi`` the fixed-sample interval at the
        decision look at Bonferroni's level (``1 - α / m``; ``1 - 2α / m`` for equivalent:
        in the normal approximation a decision implies it excludes 0 or lies inside ±margin,
        as Wald's boundaries are wider than those levels' z); ``estimate`` and
        ``games_decided`` the change and the games at that look (all games when
        inconclusive); p-values NaN. Games past the last full look are read only for an
        inconclusive change's interval.

    Raises:
        ValueError: arrays of different lengths, or a look below 1.
    """
    m = len(outcomes)
    if m == 0:
        return []
    if look < 1:
        raise ValueError(f"the sequential test looks every >= 1 games; got {look}")
    alpha = 1.0 - level
    marg = [float(margins)] * m if isinstance(margins, (int, float)) else [float(x)
                                                                            for x in margins]
    out = []
    nan = float("nan")
    for (xa, xb), mg in zip(outcomes, marg, strict=True):
        a_arr, b_arr = np.asarray(xa, dtype=bool), np.asarray(xb, dtype=bool)
        if a_arr.shape != b_arr.shape or a_arr.ndim != 1 or a_arr.size == 0:
            raise ValueError("paired outcomes need two 1-D arrays of the same non-zero length")
        x = b_arr.astype(np.int64) - a_arr.astype(np.int64)
        looks = np.arange(look, x.size + 1, look)  # games past the last look are not read
        if looks.size:
            ats, verdicts_ = sequential_verdicts(np.cumsum(x)[looks - 1],
                                                 np.cumsum(x != 0)[looks - 1], looks, mg,
                                                 level, m)
            at, verdict = int(ats[0]), str(verdicts_[0])
        else:
            at, verdict = 0, INCONCLUSIVE
        n = int(looks[at]) if verdict != INCONCLUSIVE else x.size
        d = bstats.diff_paired(a_arr[:n], b_arr[:n])
        lv = 1.0 - (2 * alpha if verdict == EQUIVALENT else alpha) / m
        lo, hi = bstats.interval_at(d, lv)
        wlo, whi = bstats.interval_at(d, 1.0 - 2 * alpha / m)
        out.append(Decision(verdict, lo, hi, lv, lo, hi, lv, lo, hi, lv, nan, nan, nan,
                            None, nan, max(abs(wlo), abs(whi)), d.diff,
                            n if verdict != INCONCLUSIVE else None))
    return out
