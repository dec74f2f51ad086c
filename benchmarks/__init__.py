"""Scaling scripts beside the benchmark suite (``balancelab bench``, in balancelab.bench).

- :mod:`balancelab.bench` — per game: games/s and decisions/s on one worker, speed-up and
  efficiency with all workers, peak memory (driver + workers) of full runs, State.copy()/s and
  random rollouts/s from a mid-game state.
- ``python -m benchmarks.flat_memory`` — peak driver and worker memory of long odyssey runs
  (100k vs 1M games) to check that memory does not grow with the number of games.
- ``python -m benchmarks.profile GAME`` — a cProfile of one worker's chunk, hottest first.
"""
