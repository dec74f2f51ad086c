"""Replication: a change's verdict on independent seed blocks, pooled, with a heterogeneity test.

A finding replicates when it holds on fresh seeds. Games played from different run seeds are
independent *seed blocks* (a run's games are paired across its variants within a seed, never
across seeds). :func:`replicate` reads the question's changes (:func:`compare_variants`) on all
blocks pooled and on each block alone, and tests whether the blocks agree: Cochran's Q
(Cochran 1954) on the blocks' estimates weighted by their inverse variances, a chi-square with
``blocks - 1`` degrees of freedom. A change *holds* — may be stated as a headline — when the
pooled verdict decides it (raises, lowers or equivalent) and no block decides the opposite
(lowers against raises, raises or lowers against equivalent).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sst

from balancelab.analysis import stats, verdicts
from balancelab.analysis.frames import Source, games_frame
from balancelab.analysis.variants import compare_variants

#: What contradicts a pooled verdict in a block.
OPPOSITE = {
    verdicts.RAISES: {verdicts.LOWERS},
    verdicts.LOWERS: {verdicts.RAISES},
    verdicts.EQUIVALENT: {verdicts.RAISES, verdicts.LOWERS},
}
#: The columns that name a change (one row per change in every block).
KEY = ["family", "option", "value_a", "value_b", "context", "contender"]


def cochran_q(estimates: Sequence[float], ses: Sequence[float]) -> tuple[float, float]:
    """Cochran's Q for the agreement of independent estimates, and its chi-square p-value.

    Args:
        estimates: the blocks' estimates (at least two).
        ses: their standard errors (> 0; a zero is replaced by the smallest positive one, or
            the estimates are taken as agreeing when all are zero).

    Returns:
        (Q, p): ``Q = Σ w (d - d̄)²`` with ``w = 1 / se²`` and ``d̄`` the inverse-variance
        weighted mean; p from the chi-square with ``len - 1`` degrees of freedom (1.0 for
        identical estimates).

    Raises:
        ValueError: fewer than two estimates, or lengths that differ.
    """
    d = np.asarray(estimates, dtype=float)
    se = np.asarray(ses, dtype=float)
    if d.size < 2 or d.shape != se.shape:
        raise ValueError("Cochran's Q needs two or more estimates with one standard error each")
    if not (se > 0).any():
        return 0.0, 1.0 if np.ptp(d) == 0 else 0.0
    se = np.where(se > 0, se, se[se > 0].min())
    w = 1.0 / se**2
    mean = float(np.sum(w * d) / np.sum(w))
    q = float(np.sum(w * (d - mean) ** 2))
    return q, float(sst.chi2.sf(q, d.size - 1))


def seed_blocks(source: Source | Sequence[Source]) -> list[pl.DataFrame]:
    """The games of one or more runs, split into seed blocks (one per run seed), in seed
    order."""
    sources: list[Source] = (list(source) if isinstance(source, (list, tuple))
                             else [source])  # type: ignore[list-item]
    df = pl.concat([games_frame(s) for s in sources], how="diagonal_relaxed")
    return [g for _, g in sorted(df.partition_by("seed", as_dict=True).items())]


def replicate(source: Source | Sequence[Source], level: float = stats.LEVEL, *,
              focus: str | Sequence[str] | None = None, pairs: str | None = None,
              margin: float | None = None) -> pl.DataFrame:
    """A question's changes pooled over the seed blocks, each block's estimate and verdict,
    and whether the blocks agree.

    Args:
        source: a run folder or games frame holding two or more run seeds, or several of
            them (runs of one design from different seeds).
        level, focus, pairs, margin: as for :func:`compare_variants` (each block and the
            pool are read with the family's correction).

    Returns:
        One row per change: the :data:`KEY` columns, ``label_a``, ``margin``, ``diff``,
        ``lo``, ``hi``, ``verdict``, ``level_used``, ``n_a`` (pooled), ``blocks`` (Int64),
        ``block_seeds`` (list of Int64), ``block_diffs``, ``block_lo``, ``block_hi``
        (lists of Float64: each block's estimate and the interval its verdict used),
        ``block_verdicts`` (list of str), ``q`` and ``q_p`` (Cochran's Q and its p-value),
        ``holds`` (Boolean: the pooled verdict decides and no block decides the opposite).

    Raises:
        ValueError: fewer than two seed blocks.
    """
    blocks = seed_blocks(source)
    if len(blocks) < 2:
        raise ValueError("replication needs games from at least two run seeds (seed blocks); "
                         f"found {len(blocks)}")
    kw: dict[str, Any] = {"focus": focus, "pairs": pairs, "margin": margin}
    pooled = compare_variants(pl.concat(blocks, how="diagonal_relaxed"), level, **kw)
    per = [compare_variants(b, level, **kw) for b in blocks]
    z = float(sst.norm.ppf(0.5 + level / 2))
    seeds = [int(b["seed"][0]) for b in blocks]
    rows = []
    for r in pooled.iter_rows(named=True):
        found = [p.filter(*[pl.col(k) == r[k] for k in KEY if r[k] is not None]) for p in per]
        got = [f.row(0, named=True) for f in found if f.height]
        if len(got) < 2:
            q, q_p = float("nan"), float("nan")
        else:
            q, q_p = cochran_q([g["diff"] for g in got],
                               [(g["raw_hi"] - g["raw_lo"]) / (2 * z) for g in got])
        against = OPPOSITE.get(r["verdict"])
        holds = against is not None and not any(g["verdict"] in against for g in got)
        rows.append({**{k: r[k] for k in KEY}, "label_a": r["label_a"], "margin": r["margin"],
                     "diff": r["diff"], "lo": r["lo"],
                     "hi": r["hi"], "verdict": r["verdict"], "level_used": r["level_used"],
                     "n_a": r["n_a"], "blocks": len(got),
                     "block_seeds": [s for s, f in zip(seeds, found, strict=True) if f.height],
                     "block_diffs": [g["diff"] for g in got],
                     "block_lo": [g["lo"] for g in got], "block_hi": [g["hi"] for g in got],
                     "block_verdicts": [g["verdict"] for g in got], "q": q, "q_p": q_p,
                     "holds": holds})
    schema: dict[str, Any] = {
        **{k: pl.String for k in KEY}, "label_a": pl.String, "margin": pl.Float64,
        "diff": pl.Float64, "lo": pl.Float64,
        "hi": pl.Float64, "verdict": pl.String, "level_used": pl.Float64, "n_a": pl.Int64,
        "blocks": pl.Int64, "block_seeds": pl.List(pl.Int64),
        "block_diffs": pl.List(pl.Float64), "block_lo": pl.List(pl.Float64),
        "block_hi": pl.List(pl.Float64), "block_verdicts": pl.List(pl.String),
        "q": pl.Float64, "q_p": pl.Float64, "holds": pl.Boolean,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")
