"""Peak memory of whole ``balancelab`` commands (driver + every child process), as a user runs them.

Usage::

    python -m benchmarks.command_memory --games 1000000            # simulate, then report
    python -m benchmarks.command_memory --games 200000 --jobs 2 --keep runs/mem

    python -m benchmarks.command_memory --games 1000000 --synthetic  # rows copied, not played

Each command is a fresh ``python -m balancelab ...`` process; a sampler adds up the resident
memory (RSS) of that process and all its descendants (loky workers, resource trackers) every
50 ms and keeps the peak. The target (issue 17): ``simulate`` and ``report`` of 1,000,000
odyssey games each under 400 MB. Not a timed test: minutes of CPU at 1,000,000 games.

``--synthetic`` measures the driver's side of a huge run without the hours of play: the
``simulate`` command runs in one process (``--backend sequential``) with the chunk player
replaced by one that returns the rows of chunk 0, played once for real, renumbered
(``game_index``) for every chunk. Everything the driver does (frames, parquet, checksums,
manifest, the closing summary) and the ``report`` command are then exactly as for a played
run of that size; workers (each ~60-80 MB, flat in the number of games) are not included.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any


def measure(cmd: list[str], interval: float = 0.05, env: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """Run ``cmd``; its exit code, seconds, and the peak RSS (MB) of it and its descendants."""
    import psutil

    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    peak = peak_driver = 0
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak, peak_driver
        try:
            root = psutil.Process(proc.pid)
        except psutil.NoSuchProcess:
            return
        while not stop.is_set():
            total = 0
            try:
                d = root.memory_info().rss
                total = d
                peak_driver = max(peak_driver, d)
                for ch in root.children(recursive=True):
                    try:
                        total += ch.memory_info().rss
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            peak = max(peak, total)
            stop.wait(interval)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    _, errout = proc.communicate()
    stop.set()
    th.join()
    return {"command": "balancelab " + " ".join(cmd[3:]), "exit": proc.returncode,
            "seconds": round(time.perf_counter() - t0, 1),
            "driver_peak_mb": round(peak_driver / 2**20), "total_peak_mb": round(peak / 2**20),
            "stderr_tail": errout.decode(errors="replace").strip().splitlines()[-1:]}


_SYNTHETIC = r"""
import sys
from balancelab.simulate import worker
from balancelab.simulate.runs import write

_cache = {}


def fake(game, options, specs, rotate, seed, start, stop, labels, driver_pid=0,
         registrations=()):
    if "t" not in _cache:
        _cache["t"] = worker.play_chunk(game, options, specs, rotate, seed, 0, stop - start,
                                        labels)
    games, seats, decisions, cpu = _cache["t"]
    n = stop - start
    out = {k: list(v[:n]) for k, v in games.items()}
    out["game_index"] = list(range(start, stop))
    return out, seats, decisions, cpu


write.play_chunk = fake
from balancelab.cli import main

sys.argv = ["balancelab", *sys.argv[1:]]
main()
"""


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="odyssey")
    ap.add_argument("--games", type=int, default=1_000_000)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", default=None, help="run folder to keep (default: a temporary one)")
    ap.add_argument("--json", default=None, help="write the figures to this file")
    ap.add_argument("--synthetic", action="store_true",
                    help="copy one played chunk's rows instead of playing (driver only)")
    a = ap.parse_args(argv)
    tmp = None
    if a.keep:
        run = Path(a.keep)
    else:
        tmp = tempfile.mkdtemp(prefix="balancelab-cmdmem-")
        run = Path(tmp) / "run"
    py = [sys.executable, "-m", "balancelab"]
    sim = [sys.executable, "-c", _SYNTHETIC] if a.synthetic else py
    backend = ["--backend", "sequential"] if a.synthetic else ["--jobs", str(a.jobs)]
    env = {**os.environ, "MPLBACKEND": "Agg"}
    rows = []
    try:
        for cmd in (
            [*sim, "simulate", a.game, "--games", str(a.games), "--seed", str(a.seed),
             *backend, "--out", str(run), "--quiet", "--force"],
            [*py, "report", str(run)],
        ):
            r = measure(cmd, env=env)
            rows.append(r)
            print(json.dumps(r), flush=True)
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=2) + "\n")


if __name__ == "__main__":
    main()
