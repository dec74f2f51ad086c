"""Peak memory of a full run played in a fresh Python process: the driver's peak and the peak
sum of driver + worker processes (sampled with psutil when installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from balancelab.bench.settings import variants, workers
from balancelab.simulate.runs import RunConfig, plan_chunks

_RUN_SCRIPT = """
import json, sys
from balancelab.simulate.runs import RunConfig, run
a = json.loads(sys.argv[1])
from balancelab.bench.settings import variants
config = RunConfig(game=a["game"], variants=variants(a["game"], a["options"]),
                   policies=a["policies"], seed=a["seed"], games=a["games"],
                   chunk_games=a["chunk_games"])
s = run(config, a["out"], jobs=a["jobs"], backend=a["backend"])
assert s.games_written == a["games"], s
"""


def peak_memory(game_name: str, policies: dict[str, str], games: int, *, jobs: int = -1,
                backend: str = "loky", seed: int = 0, out: Path | None = None,
                chunk_games: int | None = None, interval: float = 0.05,
                options: dict[str, str] | None = None) -> dict[str, Any]:
    """Peak memory of a full run of ``games`` games played in a fresh Python process.

    The run is :func:`~balancelab.simulate.runs.run` itself (parquet written to ``out`` or a
    temporary folder, then deleted).

    Returns:
        ``{"games", "workers", "chunks", "seconds", "games_per_s", "driver_peak_mb"`` (the
        driver's peak RSS, sampled every ``interval`` seconds), ``"total_peak_mb"`` (peak
        sampled sum of driver + worker RSS),
        ``"workers_peak_mb"`` (peak sampled sum over workers), ``"driver_rss_quarter_mb"`` and
        ``"driver_rss_end_mb"`` (the driver's RSS a quarter into the run and at its end: equal
        when memory is flat)``}``; the sampled figures are None without psutil.

    Raises:
        RuntimeError: the run failed (its stderr is in the message).
    """
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with dask[distributed]
        psutil = None
    with tempfile.TemporaryDirectory(prefix="balancelab-mem-") as tmp:
        target = out or Path(tmp) / "run"
        arg = json.dumps({"game": game_name, "policies": policies, "seed": seed, "games": games,
                          "jobs": jobs, "backend": backend, "out": str(target),
                          "chunk_games": chunk_games, "options": options or {}})
        chunks = len(plan_chunks(1, games, RunConfig(
            game=game_name, variants=variants(game_name, options), games=games,
            chunk_games=chunk_games).chunk_games or 1))
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _RUN_SCRIPT, arg],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak_total = peak_workers = 0
        trace: list[tuple[float, int]] = []  # (seconds, driver RSS)
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak_total, peak_workers
            assert psutil is not None
            try:
                root = psutil.Process(proc.pid)
            except psutil.Error:
                return
            while not stop.is_set():
                try:
                    driver = root.memory_info().rss
                    kids = 0
                    for child in root.children(recursive=True):
                        try:
                            kids += child.memory_info().rss
                        except psutil.Error:
                            pass
                except psutil.Error:
                    return
                if driver:  # 0 once the process has exited
                    trace.append((time.perf_counter() - t0, driver))
                peak_total = max(peak_total, driver + kids)
                peak_workers = max(peak_workers, kids)
                stop.wait(interval)

        sampler = threading.Thread(target=sample, daemon=True) if psutil else None
        if sampler:
            sampler.start()
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        stop.set()
        if sampler:
            sampler.join()
        if proc.returncode != 0:
            raise RuntimeError(f"the {games}-game {game_name} run failed: "
                               f"{stderr.strip().splitlines()[-1:] or proc.returncode}")
    mb = 1024 * 1024

    def rss_at(fraction: float) -> float | None:
        if not trace:
            return None
        t = fraction * trace[-1][0]
        return round(min(trace, key=lambda x: abs(x[0] - t))[1] / mb, 1)

    return {
        "games": games,
        "workers": workers(jobs),
        "chunks": chunks,
        "seconds": round(seconds, 2),
        "games_per_s": games / seconds,
        # sampled when psutil is there; else ru_maxrss (KiB on Linux), which also counts the
        # worker processes the driver waited for
        "driver_peak_mb": round(max(r for _, r in trace) / mb, 1) if trace
        else round(usage.ru_maxrss * 1024 / mb, 1),
        "total_peak_mb": round(peak_total / mb, 1) if psutil else None,
        "workers_peak_mb": round(peak_workers / mb, 1) if psutil else None,
        "driver_rss_quarter_mb": rss_at(0.25),
        "driver_rss_end_mb": rss_at(1.0),
    }
