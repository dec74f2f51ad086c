"""The benchmark suite behind ``balancelab bench`` (scaling scripts live in ``benchmarks/``).

For each game, with its default policies and with ``random`` on every side:

- **one worker**: games/s and decisions/s of :func:`~balancelab.simulate.worker.play_chunk`
  in this process (what one worker does: play the games into the chunk's plain columns; the
  driver builds the polars frames);
- **scaling**: the same run through :func:`~balancelab.simulate.runs.run` with one worker
  (``sequential``) and with all workers (``loky``), both writing parquet; speed-up is the ratio
  of wall times and efficiency the speed-up over the number of workers. The loky pool is
  started before timing (a real run pays ~1 s once for it);
- **memory** (default policies): peak RSS of a full run of N games in a fresh process — the
  driver's own peak (``ru_maxrss``) and the peak sum of driver + worker processes (sampled
  every 50 ms with psutil when installed);
- **search primitives**: ``State.copy()``/s on a mid-game state, random rollouts/s from it
  (copy, then uniformly random legal actions to the end), which bound a search policy, and
  ISMCTS iterations/s at the next decision (:func:`ismcts_rate`);
- **anchor** (``anchor=True``, ``balancelab bench --anchor``): OpenSpiel's hearts played at
  random from Python, in the same process, measured just before and just after each
  one-worker measurement (:class:`Anchor`); each game's decisions/s is then given as a ratio
  to the anchor's steps/s measured at the same moments, so that figures taken on different
  machines, or under different load, can be compared.

Decisions count the moves where a policy was asked (more than one legal action), as in the
games table's ``decisions`` column.

One module a job: :mod:`.settings` (what each game is measured with), :mod:`.engine` (one
worker, scaling), :mod:`.memory`, :mod:`.search` (copies, rollouts, ISMCTS), :mod:`.adapters`
(PettingZoo and OpenSpiel costs), :mod:`.anchor`, :mod:`.suite` (every figure of a game, of
several, and the machine) and :mod:`.tables` (the results as rich tables).
"""

from balancelab.bench.adapters import adapter_costs
from balancelab.bench.anchor import ANCHOR_INSTALL, Anchor
from balancelab.bench.engine import scaling, single_worker
from balancelab.bench.memory import peak_memory
from balancelab.bench.search import ISMCTS_BENCH, ismcts_rate, mid_game_state, search_primitives
from balancelab.bench.settings import (
    FULL_MEMORY_GAMES,
    QUICK_MEMORY_GAMES,
    SETTINGS,
    variants,
    workers,
)
from balancelab.bench.suite import Log, bench, bench_game, machine, policy_sets
from balancelab.bench.tables import anchor_table, tables

__all__ = [
    "ANCHOR_INSTALL",
    "FULL_MEMORY_GAMES",
    "ISMCTS_BENCH",
    "QUICK_MEMORY_GAMES",
    "SETTINGS",
    "Anchor",
    "Log",
    "adapter_costs",
    "anchor_table",
    "bench",
    "bench_game",
    "ismcts_rate",
    "machine",
    "mid_game_state",
    "peak_memory",
    "policy_sets",
    "scaling",
    "search_primitives",
    "single_worker",
    "tables",
    "variants",
    "workers",
]
