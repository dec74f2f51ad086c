"""Numbers as a report prints them: proportions in percent with their intervals, differences
in points, p-values, counts, confidence levels and equivalence margins."""

from __future__ import annotations

import math
from typing import Any


def percent(x: float) -> str:
    """A proportion in percent without the sign: one decimal, two below 0.1% (so the upper
    bound of 0/n does not print as 0.0): ``0.4123`` → ``41.2``, ``0.00019`` → ``0.02``."""
    v = 100 * x
    return f"{v:.2f}" if 0 < v < 0.1 else f"{v:.1f}"


def pct(x: float | None) -> str:
    """``0.4123`` → ``41.2%``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{percent(x)}%"


def interval(lo: float, hi: float) -> str:
    """``[40.2, 42.2]`` (percent); ``[0.0, 0.02]`` for 0 of 20,000."""
    return f"[{percent(lo)}, {percent(hi)}]"


def points(d: float, lo: float, hi: float) -> str:
    """``+13.8 points [12.9, 14.7]``."""
    return f"{100 * d:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def pvalue(p: float) -> str:
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


def num(x: Any, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    return str(x)

def margin_text(margin: float, unit: str = "points") -> str:
    """``±2.0 points`` (win rates, in percentage points) or ``±0.45 turns`` (a measure)."""
    if unit == "points":
        return f"±{100 * margin:.1f} points"
    return f"±{margin:.2f} {unit}".rstrip()

def level_text(level: float) -> str:
    """``95%``, ``98.3%``, ``99.92%``: enough digits to tell the level."""
    v = 100 * level
    if abs(v - round(v)) < 1e-9:
        return f"{v:.0f}%"
    return f"{v:.2f}%" if v >= 99.5 else f"{v:.1f}%"
