"""Where does one worker spend its time? A cProfile of a chunk of games, hottest first.

Usage::

    python -m benchmarks.profile odyssey                   # default policies, 300 games
    python -m benchmarks.profile odyssey --policy random --games 1000 --sort cumulative
    python -m benchmarks.profile iss --set players=4 --out /tmp/iss.prof   # for snakeviz

The profile covers exactly what a worker runs (:func:`balancelab.simulate.worker.play_chunk`:
the games, the policies and the chunk's plain columns; the driver builds the polars frames).

cProfile sees Python functions only: with the engines compiled (``balancelab --version``), the
compiled modules' functions are invisible to it. Profile a pure-Python install
(``BALANCELAB_PURE_PYTHON=1 pip install -e .``) to see them in Python terms, or the compiled
code itself with ``valgrind --tool=callgrind`` (instruction counts per C function, repeatable
on a busy machine; see ``benchmarks/README.md``).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

from balancelab.games import get_game
from balancelab.simulate.runs import RunConfig
from balancelab.simulate.worker import play_chunk


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--policy", choices=("default", "random"), default="default")
    ap.add_argument("--set", action="append", default=[], help="rule option KEY=VALUE")
    ap.add_argument("--sort", default="tottime", help="pstats sort key (tottime, cumulative)")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--out", default=None, help="also dump the raw profile here")
    ap.add_argument("--no-cprofile", action="store_true",
                    help="only play the games (under an outside profiler: valgrind, perf)")
    ap.add_argument("--warm-up", type=int, default=1,
                    help="games played first, unmeasured (imports, the engines' caches)")
    a = ap.parse_args(argv)
    game = get_game(a.game)
    options = game.options_type.from_strings(dict(kv.split("=", 1) for kv in a.set))
    pols = dict.fromkeys(game.sides, "random") if a.policy == "random" else {}
    config = RunConfig(game=a.game, variants=[options], policies=pols, games=a.games)
    specs = config.seat_specs(options)
    labels = {"run_id": "profile", "game": a.game, "game_version": game.version,
              "variant_label": options.label()}
    args = (a.game, options.as_dict(), specs, True, 0)
    play_chunk(*args, 10**9, 10**9 + a.warm_up, labels)  # warm-up: imports, caches
    t0 = time.perf_counter()
    play_chunk(*args, 0, a.games, labels)
    plain = time.perf_counter() - t0
    if a.no_cprofile:
        print(f"{a.games} games of {a.game} ({a.policy}): {a.games / plain:,.0f} games/s")
        return
    prof = cProfile.Profile()
    prof.enable()
    _, _, decisions, _ = play_chunk(*args, 0, a.games, labels)
    prof.disable()
    print(f"{a.games} games of {a.game} ({a.policy}): {a.games / plain:,.0f} games/s, "
          f"{decisions / plain:,.0f} decisions/s without the profiler")
    from balancelab import build

    if any(build.compiled().values()):
        print(f"note: {build.describe()}: cProfile does not see inside the compiled modules "
              "(see this script's docstring)")
    stats = pstats.Stats(prof).strip_dirs().sort_stats(a.sort)
    stats.print_stats(a.top)
    if a.out:
        prof.dump_stats(a.out)


if __name__ == "__main__":
    main()
