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

import _signal  # the C module: ``signal`` itself takes a while to import (its enums)
import os as _os
import sys as _sys


def _quit(signum: int, frame: object) -> None:
    """A Ctrl-C (or SIGTERM) while the command line is still being imported: one line and
    exit 130 (143), no traceback."""
    _os.write(2, b"interrupted\n")  # unbuffered: os._exit flushes nothing
    _os._exit(143 if signum == _signal.SIGTERM else 130)


def _quiet_interrupts() -> None:
    """Stand :func:`_quit` for SIGINT and SIGTERM until :func:`balancelab.cli.main` installs
    its own handlers."""
    _signal.signal(_signal.SIGINT, _quit)
    _signal.signal(_signal.SIGTERM, _quit)


# ``python -m balancelab`` (argv[0] is "-m" while the package is imported) and the console
# script import this package before any of their code runs: quiet from here on. A library
# user's ``import balancelab`` keeps its own handlers.
if _sys.argv[:1] == ["-m"] or _os.path.basename(_sys.argv[0] if _sys.argv else "") in (
        "balancelab", "balancelab.exe"):
    _quiet_interrupts()

import logging  # noqa: E402
from typing import TYPE_CHECKING, Any  # noqa: E402

from balancelab.api import Run, simulate  # noqa: E402
from balancelab.build import warn_if_stale as _warn_if_stale  # noqa: E402

if TYPE_CHECKING:
    from balancelab.reports.page import Report

__version__ = "0.1.0"

__all__ = ["Report", "Run", "__version__", "simulate"]

logging.getLogger(__name__).addHandler(logging.NullHandler())


def __getattr__(name: str) -> Any:
    """``balancelab.Report`` without importing the reports (and matplotlib) up front."""
    if name == "Report":
        from balancelab.reports.page import Report

        return Report
    raise AttributeError(f"module 'balancelab' has no attribute {name!r}")


_warn_if_stale()
