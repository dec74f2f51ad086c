"""``balancelab compare``: two or more runs against the first, with verdicts.

Errors are ValueError or RunError with one-line messages.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from balancelab.reports import compare_report, page


def compare(runs: Sequence[Path], out: Path | None = None, margin: float | None = None
            ) -> page.ReportPaths:
    """Compare two or more runs against the first and write the comparison report.

    Args:
        runs: run folders, the first the baseline.
        out: the report folder (default: its own ``compare-<a>-vs-<b>`` beside the first run,
            :func:`~balancelab.reports.compare_report.compare_folder`).
        margin: equivalence margin in win-rate units (default: the game's).

    Raises:
        ValueError: fewer than two runs, runs of different games, or a margin outside
            (0, 1). RunError: not a run.
    """
    if len(runs) < 2:
        raise ValueError("compare needs at least two run folders")
    if margin is not None and not 0 < margin < 1:
        raise ValueError(f"--margin is in win-rate units in (0, 1): 0.02 means ±2 "
                         f"percentage points; got {margin}")
    return compare_report.write_report([Path(r) for r in runs], out, margin=margin)
