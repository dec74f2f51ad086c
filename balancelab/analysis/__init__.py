"""Analysis of runs: win rates with intervals, variant comparisons, sweeps, summaries.

Every function takes a run folder (``runs/<run>``) or a polars games frame and returns a
polars DataFrame with documented columns — the same numbers the reports and the CLI print::

    from balancelab import analysis
    analysis.win_rates("runs/odyssey-crew3-seed7")        # side / seat win rates, Wilson 95%
    analysis.compare_variants("runs/odyssey-sweep-…")      # each question's changes, verdicts
    analysis.seat_balance("runs/iss-…")                    # are the seats equal?
    analysis.compare_runs(["runs/a", "runs/b"])            # run against run
    analysis.replicate(["runs/a-seed1", "runs/a-seed2"])   # pooled, per seed block, Cochran's Q
"""

from balancelab.analysis import verdicts
from balancelab.analysis.frames import (
    games_frame,
    measure_columns,
    option_columns,
    seats_frame,
    sides,
    swept_options,
    varying_options,
)
from balancelab.analysis.replication import cochran_q, replicate
from balancelab.analysis.stats import (
    Difference,
    confidence_sequence,
    diff_paired,
    diff_unpaired,
    holm,
    summarize,
    verdict,
    wilson,
)
from balancelab.analysis.sweeps import heat_grid, precision_status, sweep_table
from balancelab.analysis.variants import (
    compare_measures,
    compare_run_measures,
    compare_runs,
    compare_variants,
    rate_difference_within,
    variant_pairs,
)
from balancelab.analysis.winrates import (
    contender_rows,
    end_reasons,
    fair_shares,
    length_summary,
    measure_summary,
    outcome_rates,
    policy_rates,
    seat_balance,
    seat_score_summary,
    win_rates,
    winner_margin,
)

__all__ = [
    "Difference", "cochran_q", "compare_measures", "compare_run_measures", "compare_runs",
    "compare_variants", "confidence_sequence", "contender_rows", "diff_paired", "diff_unpaired",
    "end_reasons", "fair_shares", "games_frame", "heat_grid", "holm", "length_summary",
    "measure_columns", "measure_summary", "option_columns", "outcome_rates", "policy_rates",
    "precision_status", "rate_difference_within", "replicate", "seat_balance",
    "seat_score_summary", "seats_frame", "sides", "summarize", "sweep_table", "swept_options",
    "variant_pairs", "varying_options", "verdict", "verdicts", "wilson", "win_rates",
    "winner_margin",
]
