"""balancelab: Monte Carlo answers to board-game balance questions.

Scripted players play thousands of games through rule-faithful engines; every game becomes a
parquet row; analysis and reports give win rates with confidence intervals and compare rule
variants. See the README for the command line, and ``balancelab.analysis`` for the Python API.
"""

__version__ = "0.1.0"

from balancelab.build import warn_if_stale as _warn_if_stale

_warn_if_stale()
