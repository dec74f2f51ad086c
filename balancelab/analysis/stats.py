"""Statistics for win rates: intervals, differences, multiple comparisons, stopping rules.

Everything here works on counts or 0/1 arrays (numpy), so it serves any game. Methods:

==============================  ====================================================================
:func:`wilson`                   Wilson score interval for one proportion (Wilson 1927). Exact at
                                 the edges: 0/n has lower bound 0, n/n upper bound 1.
:func:`diff_unpaired`            difference of two independent proportions: Newcombe's hybrid
                                 score interval (Newcombe 1998, *Stat Med* 17:873, method 10) and
                                 the pooled two-proportion z-test p-value.
:func:`diff_paired`              difference of two proportions measured on the same games (common
                                 random numbers): Newcombe's paired hybrid score interval (Newcombe
                                 1998, *Stat Med* 17:2635, method 10, with its corrected phi,
                                 :func:`newcombe_phi`; vectorised: :func:`paired_interval`) and
                                 McNemar's exact (conditional binomial) p-value.
:func:`interval_at`              a difference's interval at another level (Holm's and TOST's
                                 levels, :mod:`balancelab.analysis.verdicts`).
:func:`holm`                     Holm's step-down adjustment of p-values (Holm 1979).
:func:`confidence_sequence`      an anytime-valid confidence sequence for a Bernoulli rate: Robbins'
                                 beta-binomial mixture martingales (Robbins 1970; Howard, Ramdas,
                                 McAuliffe & Sekhon 2021, *Ann Stat* 49:1055, sec. 3), inverted
                                 with Ville's inequality. Valid at every sample size at once, so a
                                 run may stop on anything it shows (``--decide``); any
                                 0 <= k <= n <= 10⁹.
:func:`summarize`                mean, sd, median, p95 of a numeric column.
==============================  ====================================================================

All intervals are two-sided with ``level`` (default 0.95).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl
from scipy import optimize, special, stats

LEVEL = 0.95
#: Method names written next to intervals in tables and reports.
WILSON = "Wilson score"
NEWCOMBE = "Newcombe hybrid score"
NEWCOMBE_PAIRED = "Newcombe paired hybrid score"
CS_METHOD = "beta-binomial mixture confidence sequence (Robbins 1970; Howard et al. 2021)"


def _z(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1); got {level}")
    return float(stats.norm.ppf(0.5 + level / 2.0))


def wilson(k: int | np.ndarray, n: int | np.ndarray, level: float = LEVEL
           ) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval for proportions ``k / n``.

    Args:
        k: successes (int or int array).
        n: trials (same shape as ``k``); ``n == 0`` gives the uninformative [0, 1].
        level: confidence level.

    Returns:
        (lower, upper) float arrays of ``k``'s shape, within [0, 1]; the lower bound is exactly 0
        at ``k == 0`` and the upper bound exactly 1 at ``k == n``.

    Raises:
        ValueError: ``k`` outside [0, n] or a bad level.
    """
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError("successes must lie in [0, trials]")
    z = _z(level)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n_arr > 0, k_arr / np.where(n_arr > 0, n_arr, 1), 0.5)
        denom = 1.0 + z * z / np.where(n_arr > 0, n_arr, 1)
        centre = (p + z * z / (2 * np.where(n_arr > 0, n_arr, 1))) / denom
        half = (z / denom) * np.sqrt(
            p * (1 - p) / np.where(n_arr > 0, n_arr, 1)
            + z * z / (4 * np.where(n_arr > 0, n_arr, 1) ** 2)
        )
    lo = np.clip(centre - half, 0.0, 1.0)
    hi = np.clip(centre + half, 0.0, 1.0)
    lo = np.where(k_arr == 0, 0.0, lo)
    hi = np.where(k_arr == n_arr, 1.0, hi)
    lo = np.where(n_arr == 0, 0.0, lo)
    hi = np.where(n_arr == 0, 1.0, hi)
    return lo, hi


@dataclass(frozen=True)
class Difference:
    """A difference of two proportions ``p_b - p_a`` with its interval and p-value.

    Attributes:
        p_a, p_b: the two proportions.
        diff: ``p_b - p_a``.
        lo, hi: the interval for ``diff`` at ``level``.
        p_value: two-sided p-value for ``diff == 0`` (McNemar exact when paired, pooled z-test
            when unpaired).
        n_a, n_b: sample sizes (games).
        paired: True when both were measured on the same games.
        method: the interval's method.
        level: the confidence level.
        table: the counts behind the interval, so :func:`interval_at` can give it at any
            level: paired ``(n11, n10, n01, n00)`` (both won, only a, only b, neither),
            unpaired ``(k_a, n_a, k_b, n_b)``.
    """

    p_a: float
    p_b: float
    diff: float
    lo: float
    hi: float
    p_value: float
    n_a: int
    n_b: int
    paired: bool
    method: str
    level: float
    table: tuple[int, int, int, int] = (0, 0, 0, 0)

    @property
    def correlation(self) -> float:
        """Paired: the phi correlation of the two outcomes over the games (0 when a margin is
        empty); unpaired: 0."""
        if not self.paired:
            return 0.0
        n11, n10, n01, n00 = self.table
        margins = float(n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
        return 0.0 if margins == 0 else float((n11 * n00 - n10 * n01) / np.sqrt(margins))

    @property
    def games_saved(self) -> float:
        """Paired: the share of games pairing saved against two independent samples of the
        same size for the same precision, ``1 - var(paired) / var(unpaired)`` =
        ``2 cov / (var_a + var_b)`` per game (negative when the outcomes anti-correlate);
        unpaired: 0."""
        if not self.paired:
            return 0.0
        n11, n10, n01, n00 = self.table
        n = n11 + n10 + n01 + n00
        pa, pb = (n11 + n10) / n, (n11 + n01) / n
        var = pa * (1 - pa) + pb * (1 - pb)
        cov = n11 / n - pa * pb
        return 0.0 if var == 0 else float(2 * cov / var)


def _unpaired_interval(k_a: int, n_a: int, k_b: int, n_b: int, level: float
                       ) -> tuple[float, float]:
    """Newcombe's hybrid score interval (method 10) for ``k_b/n_b - k_a/n_a``."""
    pa, pb = k_a / n_a, k_b / n_b
    la, ua = (float(x) for x in wilson(k_a, n_a, level))
    lb, ub = (float(x) for x in wilson(k_b, n_b, level))
    d = pb - pa
    lo = d - float(np.sqrt((pb - lb) ** 2 + (ua - pa) ** 2))
    hi = d + float(np.sqrt((ub - pb) ** 2 + (pa - la) ** 2))
    return max(-1.0, lo), min(1.0, hi)


def newcombe_phi(n11: Any, n10: Any, n01: Any, n00: Any) -> np.ndarray:
    """Newcombe's (1998, *Stat Med* 17:2635, method 10) corrected phi of paired 2×2 tables.

    With ``B = n11 n00 - n10 n01`` and ``A`` the product of the four margins: ``(B - n/2) /
    sqrt(A)`` when ``B > n/2``, ``0`` when ``0 <= B <= n/2``, ``B / sqrt(A)`` when ``B < 0``;
    0 when a margin is empty. The ``n/2`` is the continuity correction that keeps the
    interval from being too narrow when nearly all pairs agree.

    Args:
        n11, n10, n01, n00: counts (ints or int arrays of one shape): both won, only a, only
            b, neither.

    Returns:
        Float array of the counts' shape.
    """
    c11, c10, c01, c00 = (np.asarray(x, dtype=float) for x in (n11, n10, n01, n00))
    n = c11 + c10 + c01 + c00
    a = (c11 + c10) * (c01 + c00) * (c11 + c01) * (c10 + c00)
    b = c11 * c00 - c10 * c01
    c = np.where(b > n / 2, b - n / 2, np.where(b < 0, b, 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(np.where(a > 0, c / np.sqrt(np.where(a > 0, a, 1.0)), 0.0))


def paired_interval(n11: Any, n10: Any, n01: Any, n00: Any, level: float = LEVEL
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Newcombe's paired hybrid score interval (method 10, phi corrected by
    :func:`newcombe_phi`) for ``P(b) - P(a)``, vectorised over tables.

    Args:
        n11, n10, n01, n00: counts (ints or int arrays of one shape, ``n > 0``): both won,
            only a, only b, neither.
        level: confidence level.

    Returns:
        (lower, upper) float arrays of the counts' shape, within [-1, 1].
    """
    c11, c10, c01, c00 = (np.asarray(x, dtype=float) for x in (n11, n10, n01, n00))
    n = c11 + c10 + c01 + c00
    pa, pb = (c11 + c10) / n, (c11 + c01) / n
    la, ua = wilson(c11 + c10, n, level)
    lb, ub = wilson(c11 + c01, n, level)
    phi = newcombe_phi(c11, c10, c01, c00)
    d = pb - pa
    lo = d - np.sqrt(np.maximum(0.0, (pb - lb) ** 2 - 2 * phi * (pb - lb) * (ua - pa)
                                + (ua - pa) ** 2))
    hi = d + np.sqrt(np.maximum(0.0, (ub - pb) ** 2 - 2 * phi * (ub - pb) * (pa - la)
                                + (pa - la) ** 2))
    return np.maximum(-1.0, lo), np.minimum(1.0, hi)


def _paired_interval(n11: int, n10: int, n01: int, n00: int, level: float
                     ) -> tuple[float, float]:
    lo, hi = paired_interval(n11, n10, n01, n00, level)
    return float(lo), float(hi)


def interval_at(d: Difference, level: float) -> tuple[float, float]:
    """The interval of a :class:`Difference` at another confidence ``level`` (same method).

    Raises:
        ValueError: a bad level.
    """
    _z(level)
    if d.paired:
        return _paired_interval(*d.table, level)
    return _unpaired_interval(*d.table, level)


def interval_fn(d: Difference) -> Callable[[float], tuple[float, float]]:
    """``level -> interval_at(d, level)``."""
    def f(level: float) -> tuple[float, float]:
        return interval_at(d, level)

    return f


def diff_unpaired(k_a: int, n_a: int, k_b: int, n_b: int, level: float = LEVEL) -> Difference:
    """Difference ``k_b/n_b - k_a/n_a`` of two independent proportions.

    Interval: Newcombe's hybrid score (method 10), built from the two Wilson intervals; it stays
    within [-1, 1] and behaves at 0/n and n/n. p-value: pooled two-proportion z-test.

    Raises:
        ValueError: an empty sample or counts outside [0, n].
    """
    if n_a <= 0 or n_b <= 0:
        raise ValueError("both samples need at least one game")
    pa, pb = k_a / n_a, k_b / n_b
    lo, hi = _unpaired_interval(k_a, n_a, k_b, n_b, level)
    d = pb - pa
    pooled = (k_a + k_b) / (n_a + n_b)
    se = np.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    p = 1.0 if se == 0 else float(2 * stats.norm.sf(abs(d) / se))
    return Difference(pa, pb, d, lo, hi, min(1.0, p), n_a, n_b, False, NEWCOMBE, level,
                      (int(k_a), int(n_a), int(k_b), int(n_b)))


def diff_paired(x_a: Sequence[bool] | np.ndarray, x_b: Sequence[bool] | np.ndarray,
                level: float = LEVEL) -> Difference:
    """Difference ``mean(x_b) - mean(x_a)`` of two 0/1 outcomes measured on the same games.

    Args:
        x_a, x_b: 0/1 (or bool) arrays of equal length, element *i* from the same game seed.
        level: confidence level.

    Interval: Newcombe's paired hybrid score (method 10) with its corrected phi
    (:func:`newcombe_phi`); on Newcombe's published example (Altman et al., *Statistics with
    Confidence*, 2000, p. 52: 7 both, 25 only b, 2 only a, 68 neither) it gives
    [0.133, 0.318]. p-value: McNemar's exact test (binomial on the discordant pairs; 1.0 when
    there are none).

    Raises:
        ValueError: arrays of different or zero length.
    """
    a = np.asarray(x_a, dtype=bool)
    b = np.asarray(x_b, dtype=bool)
    if a.shape != b.shape or a.ndim != 1 or a.size == 0:
        raise ValueError("paired outcomes need two 1-D arrays of the same non-zero length")
    n = int(a.size)
    n11 = int(np.sum(a & b))
    n10 = int(np.sum(a & ~b))  # a won, b did not
    n01 = int(np.sum(~a & b))
    n00 = n - n11 - n10 - n01
    pa, pb = (n11 + n10) / n, (n11 + n01) / n
    lo, hi = _paired_interval(n11, n10, n01, n00, level)
    disc = n10 + n01
    p = 1.0 if disc == 0 else float(stats.binomtest(n01, disc, 0.5).pvalue)
    return Difference(pa, pb, pb - pa, lo, hi, min(1.0, p), n, n, True, NEWCOMBE_PAIRED,
                      level, (n11, n10, n01, n00))


def holm(p_values: Sequence[float] | np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (family-wise error control), in the input order.

    Example: ``holm([0.01, 0.04, 0.03]) == [0.03, 0.06, 0.06]``.
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    if m == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    adj_sorted = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adj_sorted, 1.0)
    return out


def verdict(lo: float, hi: float, eq_lo: float | None = None, eq_hi: float | None = None,
            margin: float | None = None) -> str:
    """One of the three verdicts (:mod:`balancelab.analysis.verdicts`) from intervals for a
    difference: ``raises`` (``lo > 0``), ``lowers`` (``hi < 0``), ``equivalent`` (the
    equivalence interval ``[eq_lo, eq_hi]`` lies within ``±margin``), else ``inconclusive``.
    Without a margin, a change whose interval contains 0 is ``inconclusive``."""
    if lo > 0:
        return "raises"
    if hi < 0:
        return "lowers"
    if margin is not None and eq_lo is not None and eq_hi is not None and \
            -margin < eq_lo and eq_hi < margin:
        return "equivalent"
    return "inconclusive"


# -- anytime-valid confidence sequence ---------------------------------------------------------

#: Sample size at which the confidence sequence is tuned to be tightest, unless told otherwise.
CS_TUNE_N = 10_000
#: Concentration of the local mixing Beta, as a fraction of the tuning sample size.
CS_LOCAL_FRACTION = 0.1


def cs_log_martingale(k: np.ndarray | float, n: np.ndarray | float, p: float | np.ndarray,
                      tune_n: int = CS_TUNE_N) -> np.ndarray:
    """log of the mixture martingale behind :func:`confidence_sequence`, for H0: rate = ``p``.

    ``M_n(p) = 1/2 U_n(p) + 1/2 L_n(p)`` where each part is a beta-binomial mixture likelihood
    ratio ``B(a + k, b + n - k) / B(a, b) / (p^k (1 - p)^(n - k))`` (Robbins 1970): ``U`` mixes
    over a uniform Beta(1, 1), ``L`` over a Beta centred on ``p`` with concentration
    ``0.1 * tune_n`` (tight near the tuning size, as the tuned normal mixture of Howard et al.
    2021, sec. 3.5, but adapting to the Bernoulli variance). Each is a non-negative martingale
    with mean 1 under H0, hence so is ``M``; Ville's inequality gives
    ``P(sup_n M_n(p) >= 1/alpha) <= alpha``.

    Args:
        k, n: successes and trials (scalars or broadcastable arrays).
        p: the null rate(s), in (0, 1).
        tune_n: the sample size the sequence is tuned for (fixed before seeing data).
    """
    k_arr = np.asarray(k, dtype=float)
    n_arr = np.asarray(n, dtype=float)
    p_arr = np.asarray(p, dtype=float)
    null = special.xlogy(k_arr, p_arr) + special.xlog1py(n_arr - k_arr, -p_arr)
    uniform = special.betaln(1 + k_arr, 1 + n_arr - k_arr) - null
    m = CS_LOCAL_FRACTION * tune_n
    a, b = p_arr * m, (1 - p_arr) * m
    local = special.betaln(a + k_arr, b + n_arr - k_arr) - special.betaln(a, b) - null
    return np.asarray(np.logaddexp(uniform, local) - np.log(2.0))


def confidence_sequence(k: float, n: int, level: float = LEVEL,
                        tune_n: int = CS_TUNE_N) -> tuple[float, float]:
    """Anytime-valid interval for a Bernoulli rate after ``k`` successes in ``n`` trials.

    Unlike a Wilson interval, this one may be looked at after every game and the run stopped
    on what it shows: with probability at least ``level`` it covers the true rate at every
    ``n`` simultaneously (see :func:`cs_log_martingale`). The price of optional stopping: it is
    about 1.7 times as wide as Wilson near ``tune_n`` games. ``k`` may be a sum of values in
    [0, 1] (not only 0/1): the Bernoulli likelihood ratio is a supermartingale for any
    [0, 1]-bounded variable of that mean (convexity), so the sequence stays valid.

    Args:
        k, n: successes (or the sum of [0, 1] values) and trials; any ``0 <= k <= n``
            (tested to n = 10⁹).
        level: confidence level.
        tune_n: the sample size the sequence is tuned for; fix it before looking at data.

    Returns:
        (lower, upper) in [0, 1]: the interval around ``k / n`` where ``M_n(p) < 1 / (1 -
        level)``; lower is 0 at k = 0 and upper is 1 at k = n.

    Raises:
        ValueError: ``k`` outside [0, n] or a bad level.
    """
    if not 0 <= k <= n:
        raise ValueError("successes must lie in [0, trials]")
    _z(level)
    if n == 0:
        return 0.0, 1.0
    if k > n / 2:  # the martingale is symmetric in (p, k) <-> (1 - p, n - k); small rates
        lo, hi = confidence_sequence(n - k, n, level, tune_n)  # are resolved more finely
        return 1.0 - hi, 1.0 - lo
    thresh = float(np.log(1.0 / (1.0 - level)))

    def h(t: float) -> float:  # in log-odds, so that rates near 0 and 1 are resolved
        return float(cs_log_martingale(k, n, float(special.expit(t)), tune_n)) - thresh

    # The martingale at the maximum-likelihood rate is at most 1 (below the threshold); at
    # k = 0 or k = n a rate a hundredth of a game from the edge is as good.
    edge = 0.01 / (n + 1)
    centre = float(special.logit(min(max(k / n, edge), 1.0 - edge)))
    return _cs_side(h, centre, -1.0, k == 0), _cs_side(h, centre, 1.0, k == n)


def _cs_side(h: Callable[[float], float], centre: float, sign: float, at_edge: bool) -> float:
    """One end of the confidence sequence: the first log-odds from ``centre`` in direction
    ``sign`` where ``h`` crosses 0 (bracketed by doubling steps), as a rate."""
    if at_edge:
        return 0.0 if sign < 0 else 1.0
    step = 0.5
    while h(centre + sign * step) <= 0:
        step *= 2.0
        if abs(centre + sign * step) > 80.0:  # beyond 1e-35 of the edge
            return 0.0 if sign < 0 else 1.0
    lo_t, hi_t = sorted((centre, centre + sign * step))
    t = optimize.brentq(h, lo_t, hi_t, xtol=1e-13, rtol=1e-13)
    return float(special.expit(t))


def precision_tune_n(half_width: float) -> int:
    """The tuning size for a ``--precision`` target: about where ±``half_width`` is reached."""
    if not 0 < half_width < 0.5:
        raise ValueError(f"precision is a half-width in win-rate units, in (0, 0.5): 0.01 means "
                         f"±1 percentage point; got {half_width}")
    return int(np.ceil(2.25 / half_width**2))


# -- summaries ---------------------------------------------------------------------------------


def summarize_many(frame: pl.DataFrame | pl.LazyFrame, columns: Sequence[str],
                   by: Sequence[str] = ()) -> list[pl.DataFrame]:
    """:func:`summarize` of each column; a LazyFrame is aggregated one column at a time
    (only ``by`` and that column are read; text group columns as
    Categorical while they are grouped on, ``variant_label`` joined to ``variant`` after)."""
    frame = frame.lazy()  # a frame the same way as a scan: the same numbers to the last digit
    schema = frame.collect_schema()
    text = [b for b in by if schema[b] == pl.String]
    plain = [b for b in by if b != "variant_label"]
    if "variant_label" in text and "variant" in plain:
        # the label names its variant: grouped on ``variant``, the label joined after
        # (grouping a million label strings cost 75 MB)
        labels = frame.group_by(plain).agg(pl.col("variant_label").first()).collect(
            engine="streaming")
        return [df.join(labels, on=plain).select(*by, *[c for c in df.columns if c not in by])
                .sort(plain) for df in summarize_many(frame.select(*plain, *columns), columns,
                                                      plain)]
    keys = [pl.col(b).cast(pl.Categorical) if b in text else pl.col(b) for b in by]
    # one column at a time, aggregated straight from the scan: a million games' columns are
    # never all in memory (the in-memory engine: the streaming one's sd differs in the last
    # digit from the frame's)
    return [_summary_query(frame.select(*keys, c), c, by).collect()
            .with_columns(pl.col(text).cast(pl.String)) for c in columns]


def summarize(frame: pl.DataFrame | pl.LazyFrame, column: str, by: Sequence[str] = ()
              ) -> pl.DataFrame:
    """Mean, sd, median and 95th percentile of a numeric column, per group.

    A LazyFrame is aggregated without loading more than ``column`` and ``by``.

    Returns:
        Columns: ``*by``, ``measure`` (str, the column name), ``n`` (non-null values), ``mean``,
        ``sd`` (sample, ddof 1), ``median``, ``p95`` (linear interpolation), ``min``, ``max``
        (all Float64). Sorted by ``by``.
    """
    if isinstance(frame, pl.LazyFrame):
        return _summary_query(frame.select(*by, column), column, by).collect()
    return _summary_query(frame.lazy(), column, by).collect()


def _summary_query(frame: pl.LazyFrame, column: str, by: Sequence[str]) -> pl.LazyFrame:
    # cast once: each aggregation casting its own copy held several copies of a million games
    frame = frame.with_columns(pl.col(column).cast(pl.Float64))
    col = pl.col(column)
    aggs = [
        pl.lit(column).alias("measure"),
        col.count().cast(pl.Int64).alias("n"),
        col.mean().alias("mean"),
        col.std(ddof=1).alias("sd"),
        col.median().alias("median"),
        col.quantile(0.95, interpolation="linear").alias("p95"),
        col.min().alias("min"),
        col.max().alias("max"),
    ]
    if by:
        return frame.group_by(list(by)).agg(aggs).sort(list(by))
    return frame.select(aggs)
