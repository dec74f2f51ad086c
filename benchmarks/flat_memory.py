"""Does a run's memory grow with its number of games? Peak RSS of long runs, side by side.

Usage::

    python -m benchmarks.flat_memory                       # odyssey, 100,000 vs 1,000,000 games
    python -m benchmarks.flat_memory --games 10000,100000 --policy random
    python -m benchmarks.flat_memory --games 20000 --chunk-games 10   # 2,000 chunks, fast

Each run is a fresh process running :func:`balancelab.simulate.runs.run` with all cores.
Workers are stateless between chunks (apart from capped policy caches) and import neither
polars nor pyarrow (~30 MB each); the driver holds at most a few chunks' columns and frames
plus the manifest (one short key per finished chunk), so the driver's peak should not depend
on the number of games; ``--chunk-games`` small reproduces a long run's chunk count in
seconds.
The target (issue 6): a 1,000,000-game odyssey run under 400 MB (driver + workers).
"""

from __future__ import annotations

import argparse
import json

from rich.console import Console
from rich.table import Table

from balancelab.bench import peak_memory


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="odyssey")
    ap.add_argument("--games", default="100000,1000000", help="comma-separated run sizes")
    ap.add_argument("--policy", choices=("default", "random"), default="default")
    ap.add_argument("--chunk-games", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=-1)
    ap.add_argument("--json", default=None, help="write the figures to this file")
    a = ap.parse_args(argv)
    pols: dict[str, str] = {}
    if a.policy == "random":
        from balancelab.games import get_game

        pols = dict.fromkeys(get_game(a.game).sides, "random")
    t = Table("games", "chunks", "seconds", "games/s", "driver peak MB",
              "driver RSS at 1/4 MB", "driver RSS at end MB", "driver+workers peak MB",
              title=f"{a.game} ({a.policy} policies): memory against run length")
    rows = []
    for n in (int(x) for x in a.games.split(",")):
        r = peak_memory(a.game, pols, n, jobs=a.jobs, chunk_games=a.chunk_games)
        rows.append(r)
        t.add_row(f"{n:,}", f"{r['chunks']:,}", f"{r['seconds']:,.1f}",
                  f"{r['games_per_s']:,.0f}", f"{r['driver_peak_mb']:.0f}",
                  f"{r['driver_rss_quarter_mb']}", f"{r['driver_rss_end_mb']}",
                  f"{r['total_peak_mb']}")
    Console().print(t)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
