"""Measuring a setting against a balance target: estimates with their intervals, seat win
shares, and the points a balance run records."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as sps

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.questions.balance.knobs import LEVEL, BalanceError, Target

# -- measuring a setting ---------------------------------------------------------------------


@dataclass
class Estimate:
    """A statistic's estimate on ``n`` games, with its interval at ``LEVEL``."""

    n: int
    est: float
    lo: float
    hi: float
    sd: float

    @property
    def half(self) -> float:
        return (self.hi - self.lo) / 2


def _mean_interval(x: np.ndarray, level: float) -> Estimate:
    n = int(x.size)
    m = float(x.mean()) if n else float("nan")
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    t = float(sps.t.ppf(0.5 + level / 2, max(n - 1, 1)))
    h = t * sd / math.sqrt(max(n, 1))
    return Estimate(n, m, m - h, m + h, sd)


def estimate_of(x: np.ndarray, binary: bool, level: float = LEVEL) -> Estimate:
    """Mean of per-game values ``x`` with a Wilson (``binary``) or t interval."""
    n = int(x.size)
    if binary:
        k = int(round(float(x.sum())))
        lo, hi = stats.wilson(k, n, level)
        p = k / n if n else float("nan")
        return Estimate(n, p, float(lo), float(hi), math.sqrt(max(p * (1 - p), 0.0)))
    return _mean_interval(x, level)


def seat_shares(df: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """Each seat's share of each game's win: 1 for the winner, 1/k to each of k seats sharing
    first place, 0 otherwise (capped games: 0).

    Returns:
        (seat names, float array games × seats in game order).
    """
    rows = analysis.contender_rows(df)
    seats = (rows.select("seat", "contender").unique().sort("seat")
             .get_column("contender").to_list())
    k = rows.group_by("variant", "game_index").agg(
        (pl.col("draw") & ~pl.col("capped")).sum().alias("_k"))
    rows = rows.join(k, on=["variant", "game_index"], how="left").with_columns(
        pl.when(pl.col("win")).then(1.0)
        .when(pl.col("draw") & ~pl.col("capped") & (pl.col("_k") > 0))
        .then(1.0 / pl.col("_k").cast(pl.Float64)).otherwise(0.0).alias("share"))
    wide = rows.pivot(on="contender", index="game_index", values="share",
                      aggregate_function="first").sort("game_index")
    return seats, wide.select(seats).to_numpy().astype(float)


@dataclass
class Measured:
    """What one setting's games say about the target.

    ``stat`` is the search statistic (the rate, the mean, or for seats=equal the start
    player's share minus the last seat's, which seat compensation moves monotonically);
    ``metric`` is what the answer reports (the rate, the mean, or the largest seat gap).
    """

    stat: Estimate
    metric: Estimate
    detail: dict[str, float] = field(default_factory=dict)


def measure(df: pl.DataFrame, target: Target, level: float = LEVEL) -> Measured:
    """The target's statistics on a games frame (one setting, games in order).

    Raises:
        BalanceError: the frame lacks the target's contender or measure.
    """
    if target.kind == "rate":
        rows = analysis.contender_rows(df).filter(pl.col("contender") == target.name)
        if rows.height == 0:
            raise BalanceError(f"no side or seat {target.name!r} in these games")
        x = rows.sort("game_index").get_column("win").cast(pl.Float64).to_numpy()
        e = estimate_of(x, True, level)
        return Measured(e, e)
    if target.kind == "mean":
        if target.name not in df.columns:
            raise BalanceError(f"these games have no measure {target.name!r}")
        col = df.sort("game_index").get_column(target.name).cast(pl.Float64).drop_nulls()
        e = estimate_of(col.to_numpy(), False, level)
        return Measured(e, e)
    names, sh = seat_shares(df)
    means = sh.mean(axis=0)
    signed = estimate_of(sh[:, 0] - sh[:, -1], False, level)
    i, j = int(np.argmax(means)), int(np.argmin(means))
    pairs = len(names) * (len(names) - 1) / 2
    gap = estimate_of(sh[:, i] - sh[:, j], False, 1 - (1 - level) / max(pairs, 1.0))
    detail = {n: float(m) for n, m in zip(names, means, strict=True)}
    detail["_hi_seat"], detail["_lo_seat"] = float(i), float(j)
    return Measured(signed, gap, detail)


# -- the balance run ---------------------------------------------------------------------------


@dataclass
class Point:
    """One setting measured on the search or the confirmation seeds."""

    setting: dict[str, Any]
    phase: str  # "search", "confirm"
    n: int
    est: float
    lo: float
    hi: float
    metric: float
    metric_lo: float
    metric_hi: float
    note: str = ""
    detail: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["setting"] = {k: jsonable(v) for k, v in self.setting.items()}
        return d


def jsonable(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v

