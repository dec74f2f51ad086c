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
for raises / lowers / inconclusive, the TOST interval for equivalent), so a table can never
contradict its verdict. The p-values are those of the same intervals (the smallest
``1 - level`` at which the interval excludes the null), so Holm's adjusted p-value is below
``1 - level`` exactly when the verdict is raises or lowers.

Holm's levels: with the family's p-values sorted, the row of rank r (1 = smallest) is tested
at ``α / (m - r + 1)`` while every row before it was rejected; the first row that is not, and
every row after it, at that row's level. Rejected rows' intervals exclude 0 and the others'
contain it (duality of interval and p-value).

Planning: :func:`games_for_change` gives the games per setting that detect a change of D with
80% power under the family's correction (Bonferroni's ``α / m``, the level of Holm's first
step); :func:`detectable_change` the smallest change detectable at the games played.

A sequential decision (:func:`sequential_paired`) reads the same three verdicts off an
anytime-valid interval, so a run may stop as soon as every change is decided.
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
    "'inconclusive' otherwise (with the games per setting that would likely decide it). The "
    "interval printed beside a verdict is the one it used."
)

IntervalFn: TypeAlias = Callable[[float], tuple[float, float]]


def margin_for(game: str | None) -> float:
    """The default equivalence margin of a game, in win-rate units."""
    return MARGINS.get(game or "", DEFAULT_MARGIN)


def _level(z: float) -> float:
    return float(2 * stats.norm.cdf(z) - 1)


_Z_MAX = 8.0  # a p-value of 1e-15: beyond it the level rounds to 1


def _crossing(bound: Callable[[float], float], target: float) -> float:
    """The z at which ``bound(level(z))`` reaches ``target`` (``bound`` moves monotonically
    towards it as z grows); ``_Z_MAX`` when it never does."""
    def f(z: float) -> float:
        return bound(_level(z)) - target

    f0 = f(1e-6)
    if f0 == 0:
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
    z = _crossing(lambda lv: interval(lv)[side], null)
    return float(min(1.0, 2 * stats.norm.sf(z)))


def p_equivalence(interval: IntervalFn, estimate: float, margin: float) -> float:
    """TOST p-value for ``|change| < margin``: the larger one-sided p-value of the interval
    against ``-margin`` and ``+margin`` (1 when the estimate is outside the margin)."""
    if not -margin < estimate < margin:
        return 1.0
    z_lo = _crossing(lambda lv: interval(lv)[0], -margin)
    z_hi = _crossing(lambda lv: interval(lv)[1], margin)
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


#: Beyond this many games per setting the report names no number (it would overflow the
#: reports' 64-bit columns: a measure that was constant in a tiny run has a margin of ~0).
MAX_GAMES_TO_DECIDE = 10**12


def _round_up(n: float) -> int:
    """Games rounded up to two significant figures (``12,345`` → ``13,000``)."""
    if not np.isfinite(n) or n <= 0:
        return 0
    mag = 10 ** max(0, int(np.floor(np.log10(n))) - 1)
    return int(np.ceil(n / mag) * mag)


def decide_family(estimates: Sequence[float], intervals: Sequence[IntervalFn],
                  games: Sequence[int], margins: Sequence[float] | float,
                  level: float = bstats.LEVEL) -> list[Decision]:
    """The verdicts of one family of changes (see the module docstring).

    Args:
        estimates: each change's estimate.
        intervals: each change's interval as a function of the confidence level.
        games: games per setting behind each change (for the games needed and the detectable
            change).
        margins: the equivalence margin (one for all, or one per change), > 0.
        level: the family-wise confidence level (0.95: at most 5% chance of any wrong
            raises/lowers in the family, and of any wrong equivalent).

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
        need: int | None = None
        if verdict == INCONCLUSIVE and se > 0 and n > 0:
            z_d = float(stats.norm.ppf(1 - a_diff[i] / 2))
            z_e = float(stats.norm.ppf(1 - a_eq[i]))
            cands = []
            if abs(d) > 0:
                cands.append(n * (z_d * se / abs(d)) ** 2)
            if abs(d) < mg:
                cands.append(n * (z_e * se / (mg - abs(d))) ** 2)
            need = _round_up(max(min(cands), n + 1)) if cands else None
            if need is not None and need > MAX_GAMES_TO_DECIDE:
                need = None  # no run could decide it (a margin of ~0: a constant measure)
        lo, hi, lv = (elo, ehi, el) if verdict == EQUIVALENT else (dlo, dhi, dl)
        out.append(Decision(verdict, lo, hi, lv, dlo, dhi, dl, elo, ehi, el, float(p[i]),
                            float(p_holm[i]), float(p_eq[i]), need,
                            (z_bonf + z_power) * se))
    return out


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

SEQUENTIAL_METHOD = ("anytime-valid confidence sequences on the paired games (the share of "
                     "discordant games and which variant won them), Bonferroni across the "
                     "family")


def sequential_paired(tables: Sequence[tuple[int, int, int, int]], margins: Sequence[float]
                      | float, level: float = bstats.LEVEL,
                      tune_n: int = bstats.CS_TUNE_N) -> list[Decision]:
    """Anytime-valid verdicts for a family of paired changes (``--decide``), like a chess
    tester's SPRT on paired games: valid however often the run looks and stops.

    For one change with paired table ``(n11, n10, n01, n00)`` the change is
    ``δ = P(only b won) - P(only a won) = π (2q - 1)``, with ``π`` the share of discordant games
    and ``q`` the share of discordant games that b won. Confidence sequences
    (:func:`balancelab.analysis.stats.confidence_sequence`) for ``π`` over all games and for
    ``q`` over the discordant games, each at ``α / (2 m)``, bound δ at every n at once with
    probability ``>= 1 - α / m``; Bonferroni across the m changes. The verdict reads that
    interval: raises / lowers when it excludes 0, equivalent within ±m when it lies inside,
    inconclusive otherwise.

    Returns:
        One :class:`Decision` per table; ``lo``/``hi`` the anytime-valid interval (also in
        ``diff_*`` and ``eq_*``), p-values NaN (a sequence has none), ``detectable`` NaN.
    """
    m = len(tables)
    if m == 0:
        return []
    alpha = 1.0 - level
    marg = [float(margins)] * m if isinstance(margins, (int, float)) else [float(x)
                                                                            for x in margins]
    each = 1.0 - alpha / (2 * m)
    out = []
    for (n11, n10, n01, n00), mg in zip(tables, marg, strict=True):
        n = n11 + n10 + n01 + n00
        disc = n10 + n01
        pi_lo, pi_hi = bstats.confidence_sequence(disc, n, each, tune_n)
        q_lo, q_hi = bstats.confidence_sequence(n01, disc, each, tune_n)
        lo = min((2 * q_lo - 1) * pi_hi, (2 * q_lo - 1) * pi_lo)
        hi = max((2 * q_hi - 1) * pi_hi, (2 * q_hi - 1) * pi_lo)
        if lo > 0:
            verdict = RAISES
        elif hi < 0:
            verdict = LOWERS
        elif -mg < lo and hi < mg:
            verdict = EQUIVALENT
        else:
            verdict = INCONCLUSIVE
        lv = 1.0 - alpha / m
        nan = float("nan")
        out.append(Decision(verdict, lo, hi, lv, lo, hi, lv, lo, hi, lv, nan, nan, nan,
                            None, nan))
    return out
