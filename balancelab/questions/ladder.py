"""The skill-ladder study behind ``balancelab study skill-ladder GAME``.

Every answer balancelab gives is conditional on its players. The ladder plays each side of a
game at rising skill, ranks the side's rungs by measurement, and says whether the game's key
verdict survives stronger players:

1. **Rungs** (:data:`~balancelab.questions.rungs.LADDERS`, the one table of rungs per game and
   side): ``random``, the scripted default, the tuned scripted player, ``search`` (flat Monte
   Carlo on paired worlds, ``z=1``), ``ismcts`` at two budgets, and ``oracle`` (a CHEAT that
   sees every hand and the deck order: a reference, never ranked); with ``openspiel=True``
   also OpenSpiel's IS-MCTS bot (:data:`~balancelab.questions.rungs.OUTSIDE`).
2. **The screen** (seed block 1): every rung plays the same deals against the other side's
   scripted default (the common opponent; in 1998 ISS, whose seats are all on one side, the
   rung plays one seat, rotated, against the scripted default at the others). After each
   round the leader (highest win rate) is compared with every rung on their common deals
   (Newcombe's paired interval at a Bonferroni level over rungs and rounds,
   :func:`~balancelab.questions.rungs.screen_level`); a rung decided below the leader is
   dropped, one within ±5 points is settled, the others play twice as many games in the next
   round, cheapest first, while the side's budget of core-seconds (measured on the rungs' own
   games) allows.
3. **The confirmation** (seed block 2, fresh deals, never the screen's): the leader, the
   runner-up and the scripted default play as many games as the screen's lead needs (capped
   by the budget). The leader is named the strongest fair rung only when its paired lead over
   the runner-up is decided there (95%); otherwise the ladder says it is a tie and keeps the
   scripted default if it is one of the two, else the cheaper.
4. **The key verdict** (2001's HAL difficulty per crew count, ISS's shuttle removal, Obcy's
   Variant 1 against Variant 2) is recomputed with every side at its kept rung and at the
   other of its top two, and the report says whether it holds ("the verdict is stable across
   the top two rungs") or how it changes.

The budget: ``minutes`` (the ladder's, 10 unless given) × 60 × workers core-seconds, 90% of
it shared among the sides (two thirds for the screen, the rest and what the screen left for
the confirmation), the verdict runs after. Game sizes follow the measured speed, so another
machine may play more or fewer games; every game is reproducible from (seed, game index), and
a ladder run again in its folder reuses its runs.

Everything is an ordinary run folder under the study folder (``report`` and polars read them);
a finished run is reused when the study is run again.

Errors are :class:`balancelab.questions.inputs.StudyError` with one-line messages.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import polars as pl

from balancelab.questions.inputs import StudyError, grid_variants, pairing_name, slug
from balancelab.questions.ladder_report import build_report
from balancelab.questions.rungs import (
    DROPPED,
    NAME,
    REFERENCE,
    SCREEN_ROUNDS,
    SCRIPTED,
    Ladder,
    Look,
    Rung,
    SideRanking,
    check_game,
    confirm,
    confirm_games,
    plan_round,
    rungs,
    runner_up,
    screen_level,
    screen_look,
)
from balancelab.questions.strongest import side_won
from balancelab.questions.sweep import SweepResult, block_seeds, sweep, write_study
from balancelab.reports import compare_report, page
from balancelab.simulate import runs
from balancelab.simulate.core import Game
from balancelab.simulate.errors import RunError
from balancelab.simulate.runs import MANIFEST, core_seconds_per_game, read_manifest

#: Share of the budget for the sides' screens and confirmations (the rest: the verdict runs).
SIDES_SHARE = 0.9
#: Share of a side's budget for its screen (the rest, and what the screen left: confirmation).
SCREEN_SHARE = 2 / 3
#: Games per chunk of a run with a searching player (small: the workers share few games),
#: and of the others.
SEARCH_CHUNK, SCRIPTED_CHUNK = 2, 16


@dataclass
class LadderResult:
    """What :func:`run_ladder` wrote: the study folder, its report, the tables."""

    path: Path
    report: page.ReportPaths
    rates: pl.DataFrame
    stable: bool
    interrupted: bool = False
    rankings: dict[str, SideRanking] = field(default_factory=dict)


def _workers(jobs: int) -> int:
    import os

    return (os.cpu_count() or 1) if jobs < 0 else jobs


def _outcomes(lad: Ladder, g: Game, path: Path, side: str, k: int) -> list[bool]:
    """Whether the laddered side or seat won each of the run's first ``k`` games (by game
    index)."""
    return side_won(g, path, side, lad.seat_game)[:k]


def _pairing(lad: Ladder, g: Game, side: str, spec: str, opp: str) -> dict[str, str]:
    if lad.seat_game:
        seat0 = g.seats(g.options_type.from_strings(
            {k: str(v) for k, v in lad.base.items()}))[0]
        return {seat0: spec, side: opp}
    return {side: spec, **{s: opp for s in g.sides if s != side}}


#: The policies whose games are slow (small chunks spread them over the workers).
SEARCHERS = ("ismcts", "oracle", "search", "openspiel-ismcts")


def _searching(pairing: dict[str, str]) -> bool:
    return any(p.split(":")[0] in SEARCHERS for p in pairing.values())


def _finished_games(config: runs.RunConfig, path: Path) -> int:
    """The games of a finished, intact run of ``config``'s design at ``path`` (any size);
    0 when there is none."""
    if not (path / MANIFEST).exists():
        return 0
    try:
        m = read_manifest(path, check=False)
        old = replace(config, games=int(m["config"]["games"]))
    except (RunError, KeyError, ValueError, TypeError):
        return 0
    return old.games if runs.holds_finished(old, path) else 0


def run_ladder(
    g: Game,
    out: Path | None = None,
    *,
    seed: int = 0,
    games: int | None = None,
    verdict_games: int | None = None,
    budget_scale: float = 1.0,
    minutes: float | None = None,
    openspiel: bool = False,
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
        seed: the seed of the screen's and the verdict runs' deals; the confirmation's fresh
            deals come from seed block 2 of it
            (:func:`~balancelab.questions.sweep.block_seeds`).
        games: games per rung of the screen's first round (default: the ladder's); also the
            least a confirmation plays.
        verdict_games: games per variant of the verdict runs (default: the ladder's).
        budget_scale: multiply the search rungs' budgets (iterations, playouts; quick trials).
        minutes: the time budget in wall minutes on ``jobs`` workers (default: the ladder's);
            the first round of the screen and the least confirmation are played whatever it
            is.
        openspiel: add the outside rung, OpenSpiel's IS-MCTS bot (needs the ``openspiel``
            extra).
        jobs, backend, force, resume: as for :func:`balancelab.simulate.runs.run` (``resume``
            completes or extends the runs an earlier ladder left).
        progress: called with (games written, total) after each chunk of each run.
        log: called with a line naming each run as it starts.

    Raises:
        StudyError: no ladder for the game, bad sizes, or ``openspiel`` without pyspiel.
    """
    lad = check_game(g.name)
    game = g.name
    n0 = games if games is not None else lad.games
    nv = verdict_games if verdict_games is not None else lad.verdict_games
    mins = minutes if minutes is not None else lad.minutes
    if n0 < 2 or nv < 1:
        raise StudyError("--games must be at least 2 (paired differences need two "
                         "games) and --verdict-games at least 1")
    if not budget_scale > 0:
        raise StudyError(f"--budget-scale must be > 0; got {budget_scale}")
    if not mins >= 0:
        raise StudyError(f"--minutes must be >= 0; got {mins}")
    if openspiel:
        from balancelab.questions.rungs import check_openspiel

        check_openspiel()
    folder = Path(out) if out is not None else Path("runs") / f"study-{NAME}-{game}-seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    workers = _workers(jobs)
    if workers == 1:
        backend = "sequential"  # no worker pool for one worker
    sides = list(lad.rungs)
    say = log or (lambda _msg: None)
    variants = grid_variants(g, {}, lad.base)
    screen_seed, confirm_seed = block_seeds(seed, 2)
    budget = mins * 60.0 * workers
    side_budget = SIDES_SHARE * budget / len(sides)
    touched: set[Path] = set()
    t0 = time.perf_counter()

    class Stopped(Exception):
        def __init__(self, path: Path) -> None:
            self.path = path

    def other(side: str) -> str:
        return next((s for s in sides if s != side), side)

    def play_rung(side: str, r: Rung, run_seed: int, k: int, where: str
                  ) -> tuple[list[bool], float, float]:
        """The rung's first ``k`` games against the other side's scripted default (reusing
        or extending the run): outcomes, core-seconds a game (the workers' CPU time over the
        run's games: what a game costs on one core, whatever the load), wall seconds played
        now."""
        opp = rungs(lad, other(side))[1]
        assert r.spec is not None and opp.spec is not None
        pairing = _pairing(lad, g, side, r.spec, opp.spec)
        path = folder / (where + slug(pairing_name(pairing)))
        chunk = SEARCH_CHUNK if _searching(pairing) else SCRIPTED_CHUNK
        config = runs.RunConfig(game, variants, pairing, run_seed, k, True, chunk)
        had = _finished_games(config, path)
        wall = 0.0
        if had < k:
            say(f"{path.name}: {pairing_name(pairing)}, {k} games")
            ours = path in touched
            res = runs.run(config, path, jobs=jobs, backend=backend, progress=progress,
                           force=force and not ours, resume=resume or ours, planned=ours)
            if res.interrupted:
                raise Stopped(path)
            wall = float(res.wall_seconds)
            write_study(path, {"study": NAME, "game": game, "pairing": pairing_name(pairing),
                               "stage": "confirmation" if where else "screen"})
        touched.add(path)
        m = read_manifest(path, check=False)
        per_game = core_seconds_per_game(m)
        if per_game is None:  # a run written before runs recorded their CPU time
            used = min(workers, int(m.get("chunks_total", 1) or 1))
            per_game = float(m.get("wall_seconds", 0.0)) * used / max(1, int(m["games_written"]))
        return _outcomes(lad, g, path, side, k), per_game, wall

    def screen(side: str) -> SideRanking:
        all_rungs = rungs(lad, side, budget_scale, outside=openspiel)
        fair = [r for r in all_rungs if not r.cheat]
        won: dict[str, list[bool]] = {}
        cost: dict[str, float] = {}
        spent = wall = 0.0
        for r in all_rungs:  # round 1: every rung, the table's order
            won[r.name], cost[r.name], w = play_rung(side, r, screen_seed, n0, "")
            spent += cost[r.name] * n0
            wall += w
        level = screen_level(len(fair))
        rounds = [n0]
        dropped: set[str] = set()
        looks = screen_look(fair, won, cost, dropped, level)
        while len(rounds) < SCREEN_ROUNDS:
            plan = plan_round(looks, SCREEN_SHARE * side_budget - spent)
            if not plan:
                break
            for name in sorted(plan, key=lambda nm: (nm != looks[0].rung.name, cost[nm])):
                r = next(x for x in fair if x.name == name)
                before = len(won[name])
                won[name], cost[name], w = play_rung(side, r, screen_seed, plan[name], "")
                spent += cost[name] * (plan[name] - before)
                wall += w
            rounds.append(max(plan.values()))
            dropped |= {lk.rung.name for lk in looks if lk.status == DROPPED}
            looks = screen_look(fair, won, cost, dropped, level)
        refs = [Look(r, REFERENCE, tuple(won[r.name]), cost[r.name])
                for r in all_rungs if r.cheat]
        lead, second = looks[0], runner_up(looks)
        left = side_budget - spent
        per_game = lead.cost + (second.cost if second is not lead else 0.0)
        affordable = int(left / per_game) if per_game > 0 else n0
        k = confirm_games(lead, second, n0, affordable)
        trio = [lead.rung, *([second.rung] if second is not lead else [])]
        scripted = next((r for r in fair if r.name == SCRIPTED), None)
        if scripted is not None and scripted not in trio:
            trio.append(scripted)
        fresh: dict[str, list[bool]] = {}
        for r in trio:
            fresh[r.name], c, w = play_rung(side, r, confirm_seed, k, "confirm-")
            spent += c * k
            wall += w
        conf = confirm(lead.rung, second.rung, fresh, cost, scripted)
        return SideRanking(side, [*looks, *refs], rounds, conf, k, (screen_seed, confirm_seed),
                           spent, wall, cost)

    def play(path: Path, pairing: dict[str, str], grid: dict[str, list[Any]], k: int
             ) -> SweepResult:
        chunk = max(1, math.ceil(k / (4 * workers))) if _searching(pairing) else None
        say(f"{path.name}: {pairing_name(pairing)}")
        return sweep(g, grid, path, base=lad.base, policies=pairing, seed=seed,
                     games=k, jobs=jobs, backend=backend, chunk_games=chunk,
                     force=force, resume=resume, progress=progress,
                     study={"study": NAME, "game": game, "pairing": pairing_name(pairing)})

    ranked: dict[str, SideRanking] = {}
    try:
        for side in sides:
            ranked[side] = screen(side)
    except Stopped as stop:
        return LadderResult(folder, compare_report.write_report(stop.path), pl.DataFrame(),
                            False, True, ranked)
    # the key verdict with every side at its kept rung and at the other of its top two
    verdict_runs: dict[str, Path] = {}
    for k, label in ((1, "second-strongest rungs"), (0, "strongest rungs")):
        pairing = {s: (ranked[s].confirmation.other if k else ranked[s].confirmation.kept
                       ).spec or "" for s in sides}
        path = folder / ("verdict-" + ("top" if k == 0 else "second"))
        res = play(path, pairing, lad.grid, nv)
        if res.interrupted:
            return LadderResult(folder, compare_report.write_report(path), pl.DataFrame(),
                                False, True, ranked)
        compare_report.write_report(path)
        verdict_runs[f"{label} ({pairing_name(pairing)})"] = path
    # the wall time of every run of the ladder (a resumed ladder counts its earlier sessions)
    seconds = max(time.perf_counter() - t0, sum(
        float(read_manifest(m.parent).get("wall_seconds", 0.0) or 0.0)
        for m in sorted(folder.glob(f"*/{MANIFEST}"))))
    rep, stable, rates = build_report(lad, g, ranked, verdict_runs, n0, nv, seconds)
    write_study(folder, {
        "study": NAME, "game": game, "seed": seed, "games": n0, "verdict_games": nv,
        "budget_scale": budget_scale, "minutes": mins, "openspiel": openspiel,
        "stable": stable, "seconds": round(seconds, 1), "rates": rates.to_dicts(),
        "seeds": {"screen": screen_seed, "confirmation": confirm_seed},
        "strongest": {s: _facts(r) for s, r in ranked.items()},
        "verdict_runs": {k: v.name for k, v in verdict_runs.items()}})
    return LadderResult(folder, page.write(rep, folder / "report"), rates, stable,
                        rankings=ranked)


def _facts(r: SideRanking) -> dict[str, Any]:
    """A side's ranking for ``study.json``."""
    c = r.confirmation
    return {"rung": c.strongest.name if c.strongest else None, "decided": c.strongest is not None,
            "kept": c.kept.name, "policy": c.kept.spec, "second": c.other.name,
            "lead": c.lead.name, "runner_up": c.second.name, "confirm_games": r.confirm_games,
            "diff": [c.diff.diff, c.diff.lo, c.diff.hi], "equivalent": c.equivalent,
            "rounds": r.rounds, "core_seconds": round(r.core_seconds, 1),
            "seconds": round(r.seconds, 1),
            "dropped": [lk.rung.name for lk in r.looks if lk.status == DROPPED]}
