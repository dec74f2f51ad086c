"""The engine's rates: games/s and decisions/s of one worker playing chunks in this process,
and the wall time of the same run with one worker and with all workers (speed-up, efficiency)."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path
from typing import Any

from balancelab.bench.settings import variants, workers
from balancelab.simulate.runs import RunConfig, run
from balancelab.simulate.worker import play_chunk

# -- one worker ------------------------------------------------------------------------------


def single_worker(game_name: str, policies: dict[str, str], *, seconds: float = 2.0,
                  games: int | None = None, seed: int = 0,
                  options: dict[str, str] | None = None) -> dict[str, Any]:
    """Games/s and decisions/s of one worker (this process) playing chunks.

    Args:
        game_name: the game.
        policies: side → policy spec ({} for the defaults).
        seconds: play chunks until this much time has passed (ignored when ``games`` is set).
        games: play exactly this many games.
        seed: run seed.
        options: rule options (name → value); None for the defaults.

    Returns:
        ``{"games", "seconds", "decisions", "games_per_s", "decisions_per_s",
        "decisions_per_game"}``.
    """
    config = RunConfig(game=game_name, variants=variants(game_name, options), policies=policies,
                       seed=seed, games=1)
    rules = config.variants[0]
    specs = config.seat_specs(rules)
    labels = {"run_id": "bench", "game": game_name, "game_version": config.game_obj.version,
              "variant_label": rules.label()}
    opts = rules.as_dict()
    play_chunk(game_name, opts, specs, config.rotate, seed, 10**9, 10**9 + 1, labels)  # warm-up
    done = decisions = 0
    batch = 1
    t0 = time.perf_counter()
    while True:
        n = batch if games is None else min(batch, games - done)
        if n <= 0:
            break
        _, _, d, _ = play_chunk(game_name, opts, specs, config.rotate, seed, done, done + n, labels)
        done += n
        decisions += d
        elapsed = time.perf_counter() - t0
        if games is None and elapsed >= seconds:
            break
        batch = min(batch * 2, 1000)
    elapsed = time.perf_counter() - t0
    return {
        "games": done,
        "seconds": round(elapsed, 3),
        "decisions": decisions,
        "games_per_s": done / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_game": decisions / done,
    }


# -- scaling ---------------------------------------------------------------------------------


def scaling(game_name: str, policies: dict[str, str], games: int, *, jobs: int = -1,
            seed: int = 0, repeat: int = 2, options: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """Wall time of the same run with one worker and with ``jobs`` workers (parquet written).

    Each is timed ``repeat`` times, interleaved, and the best time kept (the usual defence
    against other load on the machine; the figures still assume idle cores).

    Returns:
        ``{"games", "workers", "chunk_games", "seconds_1", "seconds_n", "games_per_s_1",
        "games_per_s_n", "speedup", "efficiency"}``.
    """
    n = workers(jobs)

    def config(g: int) -> RunConfig:
        return RunConfig(game=game_name, variants=variants(game_name, options),
                         policies=policies, seed=seed, games=g)

    with tempfile.TemporaryDirectory(prefix="balancelab-bench-") as tmp:
        # start the loky pool and import the game in every worker before timing
        run(config(max(2 * n, 4)), Path(tmp) / "warm", jobs=jobs)
        t1 = tn = float("inf")
        for k in range(repeat):
            t0 = time.perf_counter()
            run(config(games), Path(tmp) / f"one{k}", jobs=1, backend="sequential")
            t1 = min(t1, time.perf_counter() - t0)
            t0 = time.perf_counter()
            run(config(games), Path(tmp) / f"all{k}", jobs=jobs)
            tn = min(tn, time.perf_counter() - t0)
    speedup = t1 / tn
    return {
        "games": games,
        "workers": n,
        "chunk_games": config(games).chunk_games,
        "seconds_1": round(t1, 3),
        "seconds_n": round(tn, 3),
        "games_per_s_1": games / t1,
        "games_per_s_n": games / tn,
        "speedup": speedup,
        "efficiency": speedup / n,
    }
