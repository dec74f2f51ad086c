"""The skill-ladder study behind ``balancelab study skill-ladder GAME``.

Every answer balancelab gives is conditional on its players. The ladder plays each side of a
game at rising skill and says whether the game's key verdict survives stronger players:

1. **Rungs** (:data:`LADDERS`, the one table of rungs per game and side): ``random``, the
   scripted default, the tuned scripted player, ``search`` (flat Monte Carlo on paired
   worlds, ``z=1``), ``ismcts`` at two budgets, and ``oracle`` (a
   CHEAT that sees every hand and the deck order: an upper bound, never a fair result).
2. **Win rates**: each rung plays against the other side's scripted default and then against
   the other side's strongest non-cheating rung, on the same seeds (game *i* of every run deals
   the same cards and rolls the same dice), with 95% Wilson intervals, and the paired difference
   between each rung and the rung below it (Newcombe's paired score interval). A side's
   strongest fair rung is the one with the highest *measured* win rate against the other
   side's scripted default (:func:`rank_fair`), not the one highest in the table: more search
   is not always stronger (Obcy's ALIENS on ``ismcts`` measured weaker than ``hunter``). The
   report names the rung chosen and why (ties, rungs it is not clearly stronger than).
   In 1998 ISS, whose seats are all on one side, a rung plays one seat (rotated through the
   seats) against the scripted default or the strongest rung at the other seats.
3. **The key verdict** (the game's study: 2001's HAL difficulty per crew count, ISS's shuttle
   removal on length and seats, Obcy's Variant 1 against Variant 2) is recomputed with every
   side at its strongest and at its second-strongest non-cheating rung (as measured), and the
   report says
   whether it holds ("the verdict is stable across the top two rungs") or how it changes.

Everything is an ordinary run folder under the study folder (``report`` and polars read them),
played by :func:`balancelab.questions.sweep.sweep`; a finished run is reused when the study is
run again.

Errors are :class:`balancelab.questions.inputs.StudyError` with one-line messages.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from balancelab.analysis import stats
from balancelab.questions.inputs import StudyError, pairing_name, slug
from balancelab.questions.ladder_report import build_report
from balancelab.questions.rungs import (
    NAME,
    Ladder,
    Rung,
    Strongest,
    check_game,
    fair_rungs,
    rank_fair,
    rungs,
)
from balancelab.questions.sweep import SweepResult, sweep, write_study
from balancelab.reports import compare_report, page
from balancelab.reports import games as hooks
from balancelab.simulate.core import Game
from balancelab.simulate.runs import MANIFEST, load_games, read_manifest
from balancelab.simulate.worker import seat_assignment


@dataclass
class LadderResult:
    """What :func:`run_ladder` wrote: the study folder, its report, the tables."""

    path: Path
    report: page.ReportPaths
    rates: pl.DataFrame
    stable: bool
    interrupted: bool = False


def _workers(jobs: int) -> int:
    import os

    return (os.cpu_count() or 1) if jobs < 0 else jobs


def _outcomes(lad: Ladder, g: Game, path: Path, side: str, workers: int
              ) -> tuple[list[bool], float]:
    """Per game (by game index) whether the laddered side or seat won, and the run's
    seconds of play per game (wall time × workers / games: core-seconds)."""
    df = load_games(path).sort("game_index")
    winners = df.get_column("winner").to_list()
    if lad.seat_game:
        opts = g.options_type.from_strings({k: str(v) for k, v in lad.base.items()})
        seats = g.seats(opts)
        sides = [g.side_of_seat(opts, i) for i in range(len(seats))]
        marks = ["rung"] + ["other"] * (len(seats) - 1)
        won = []
        for i, w in zip(df.get_column("game_index").to_list(), winners, strict=True):
            at = seat_assignment(marks, sides, int(i), True).index("rung")
            won.append(w == seats[at])
    else:
        won = [w == side for w in winners]
    m = read_manifest(path)
    used = min(workers, int(m.get("chunks_total", 1) or 1))
    per_game = float(m.get("wall_seconds", 0.0)) * used / max(1, len(won))
    return won, per_game


def _pairing(lad: Ladder, g: Game, side: str, spec: str, opp: str) -> dict[str, str]:
    if lad.seat_game:
        seat0 = g.seats(g.options_type.from_strings(
            {k: str(v) for k, v in lad.base.items()}))[0]
        return {seat0: spec, side: opp}
    return {side: spec, **{s: opp for s in g.sides if s != side}}


def run_ladder(
    g: Game,
    out: Path | None = None,
    *,
    seed: int = 0,
    games: int | None = None,
    verdict_games: int | None = None,
    budget_scale: float = 1.0,
    jobs: int = -1,
    backend: str = "loky",
    force: bool = False,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] | None = None,
) -> LadderResult:
    """Run the skill ladder of game ``g`` and write its report (see the module docstring).

    Args:
        g: the game (one with a ladder: ``odyssey``, ``iss`` or ``obcy``).
        out: the study folder (default ``runs/study-skill-ladder-<game>-seed<seed>``).
        seed: run seed, shared by every run (paired games).
        games: games per rung and opponent (default: the ladder's).
        verdict_games: games per variant of the verdict runs (default: the ladder's).
        budget_scale: multiply the search rungs' budgets (iterations, playouts; quick trial runs).
        jobs, backend, force, resume: as for :func:`balancelab.questions.sweep.sweep` (``resume``
            completes the runs an interrupted ladder left unfinished).
        progress: called with (games written, total) after each chunk of each run.
        log: called with a line naming each run as it starts.

    Raises:
        StudyError: no ladder for the game, or bad sizes.
    """
    lad = check_game(g.name)
    game = g.name
    n = games if games is not None else lad.games
    nv = verdict_games if verdict_games is not None else lad.verdict_games
    if n < 2 or nv < 1:
        raise StudyError("--games must be at least 2 (paired differences need two "
                         "games) and --verdict-games at least 1")
    if not budget_scale > 0:
        raise StudyError(f"--budget-scale must be > 0; got {budget_scale}")
    folder = Path(out) if out is not None else Path("runs") / f"study-{NAME}-{game}-seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    workers = _workers(jobs)
    if workers == 1:
        backend = "sequential"  # no worker pool for one worker
    sides = list(lad.rungs)
    say = log or (lambda _msg: None)

    def play(path: Path, pairing: dict[str, str], grid: dict[str, list[Any]], k: int,
             search: bool) -> SweepResult:
        chunk = max(1, math.ceil(k / (4 * workers))) if search else None
        say(f"{path.name}: {pairing_name(pairing)}")
        return sweep(g, grid, path, base=lad.base, policies=pairing, seed=seed,
                     games=k, jobs=jobs, backend=backend, chunk_games=chunk,
                     force=force, resume=resume, progress=progress,
                     study={"study": NAME, "game": game, "pairing":
                            pairing_name(pairing)})

    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()

    stopped: Path | None = None  # the run an interrupt stopped

    def other(side: str) -> str:
        return next((s for s in sides if s != side), side)

    def climb(side: str, opp_name: str, opp: Rung) -> dict[str, list[bool]] | None:
        """Every rung of ``side`` against ``opp``; rung name → outcomes (None: interrupted)."""
        nonlocal stopped
        assert opp.spec is not None
        prev: list[bool] | None = None
        scripted: list[bool] | None = None
        out: dict[str, list[bool]] = {}
        for r in rungs(lad, side, budget_scale):
            assert r.spec is not None
            pairing = _pairing(lad, g, side, r.spec, opp.spec)
            path = folder / slug(pairing_name(pairing))
            search = any(p.split(":")[0] in ("ismcts", "oracle", "search")
                         for p in pairing.values())
            res = play(path, pairing, {}, n, search)
            if res.interrupted:
                stopped = path
                return None
            won, per_game = _outcomes(lad, g, path, side, workers)
            out[r.name] = won
            lo, hi = (float(x) for x in stats.wilson(sum(won), len(won)))
            row: dict[str, Any] = {
                "side": side, "opponent": f"{opp_name} ({opp.spec})", "rung": r.name,
                "policy": r.spec, "cheat": r.cheat, "games": len(won),
                "wins": sum(won), "rate": sum(won) / len(won), "lo": lo, "hi": hi,
                "seconds_per_game": per_game, "run": path.name,
                "diff": None, "diff_lo": None, "diff_hi": None,
                # paired gain over the side's scripted rung (same opponent, same seeds)
                "gain": None, "gain_lo": None, "gain_hi": None,
            }
            if prev is not None:
                d = stats.diff_paired(prev, won)
                row.update(diff=d.diff, diff_lo=d.lo, diff_hi=d.hi)
            if r.name == "scripted":
                scripted = won
            if scripted is not None:
                d = stats.diff_paired(scripted, won)
                row.update(gain=d.diff, gain_lo=d.lo, gain_hi=d.hi)
            rows.append(row)
            prev = won
        return out

    # 1. every rung against the other side's scripted default; each side's strongest fair rung
    #    is the one that measured best there (not the table's top: a search rung may be weaker)
    chosen: dict[str, Strongest] = {}
    for side in sides:
        opp = rungs(lad, other(side), budget_scale)[1]
        won = climb(side, "scripted default", opp)
        if won is None:
            assert stopped is not None
            return LadderResult(folder, compare_report.write_report(stopped), pl.DataFrame(), False,
                                True)
        against = f"the scripted default of {hooks.word(game, other(side))} ({opp.spec})"
        if lad.seat_game:
            against = f"the scripted default ({opp.spec}) at the other seats"
        chosen[side] = rank_fair(fair_rungs(lad, side, budget_scale), won, against=against)
        say(f"{side}: strongest fair rung {chosen[side].why}")
    # 2. every rung against the other side's measured strongest fair rung
    for side in sides:
        if climb(side, "strongest fair", chosen[other(side)].top) is None:
            assert stopped is not None
            return LadderResult(folder, compare_report.write_report(stopped), pl.DataFrame(rows),
                                False, True)
    rates = pl.DataFrame(rows)
    # the key verdict at the top two fair rungs (as measured), every side at that rung
    verdict_runs: dict[str, Path] = {}
    for k, label in ((1, "second-strongest rungs"), (0, "strongest rungs")):
        pairing = {s: (chosen[s].second if k else chosen[s].top).spec or "" for s in sides}
        path = folder / ("verdict-" + ("top" if k == 0 else "second"))
        res = play(path, pairing, lad.grid, nv, True)
        if res.interrupted:
            return LadderResult(folder, compare_report.write_report(path), rates, False, True)
        compare_report.write_report(path)
        verdict_runs[f"{label} ({pairing_name(pairing)})"] = path
    # the wall time of every run of the ladder (a resumed ladder counts its earlier sessions)
    seconds = max(time.perf_counter() - t0, sum(
        float(read_manifest(m.parent).get("wall_seconds", 0.0) or 0.0)
        for m in sorted(folder.glob(f"*/{MANIFEST}"))))
    rep, stable = build_report(lad, g, rates, verdict_runs, n, nv, seconds, chosen)
    write_study(folder, {"study": NAME, "game": game, "seed": seed, "games": n,
                                  "verdict_games": nv, "budget_scale": budget_scale,
                                  "stable": stable, "rates": rates.to_dicts(),
                                  "strongest": {s: {"rung": c.top.name, "policy": c.top.spec,
                                                    "second": c.second.name, "why": c.why}
                                                for s, c in chosen.items()},
                                  "verdict_runs": {k: v.name for k, v in verdict_runs.items()}})
    return LadderResult(folder, page.write(rep, folder / "report"), rates, stable)
