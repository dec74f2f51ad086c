"""balancelab: Monte Carlo answers to board-game balance questions.

Scripted players play thousands of games through rule-faithful engines; every game becomes a
parquet row; analysis and reports give win rates with confidence intervals and compare rule
variants. See the README for the command line. The Python API::

    import balancelab
    run = balancelab.simulate("odyssey", games=2000, seed=1, crew=3)   # a Run
    run.win_rates()                                                    # polars, Wilson 95%

and ``balancelab.analysis`` for every table the reports use. Log records go to the
``balancelab`` logger (resume decisions, cluster start, skipped chunks; nothing per game),
which has a NullHandler: configure ``logging`` to see them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from balancelab.api import Run, simulate
from balancelab.build import warn_if_stale as _warn_if_stale

if TYPE_CHECKING:
    from balancelab.reports.render import Report

__version__ = "0.1.0"

__all__ = ["Report", "Run", "__version__", "simulate"]

logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    """``balancelab.Report`` without importing the reports (and matplotlib) up front."""
    if name == "Report":
        from balancelab.reports.render import Report

        return Report
    raise AttributeError(f"module 'balancelab' has no attribute {name!r}")


_warn_if_stale()
