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
played by :func:`balancelab.studies.sweep`; a finished run is reused when the study is run again.

Errors are :class:`balancelab.studies.StudyError` with one-line messages.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis, studies
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import render
from balancelab.reports import words as W
from balancelab.simulate import runner
from balancelab.simulate.worker import seat_assignment

#: The study's name on the command line.
NAME = "skill-ladder"


@dataclass(frozen=True)
class Rung:
    """One rung of a side's ladder.

    Attributes:
        name: the rung's name in reports (``scripted``, ``ismcts small``…).
        spec: the policy spec, or None for an empty slot (skipped).
        cheat: True for a policy that sees the true state (``oracle``).
    """

    name: str
    spec: str | None
    cheat: bool = False


@dataclass(frozen=True)
class Ladder:
    """A game's ladder: its rungs per side, its setting, its key verdict and default sizes.

    Attributes:
        game: game name.
        rungs: side → rungs, weakest first (THE table: edit it here).
        study: the study (:data:`balancelab.studies.STUDIES`) whose verdict is recomputed.
        grid: the verdict's grid of options (the study's, or the part the ladder can afford).
        base: rule options of every ladder game (the game's default setting unless named).
        games: default games per rung and opponent.
        verdict_games: default games per variant of the verdict runs.
        seat_game: True where all seats are one side (1998 ISS): a rung plays one seat.
        verdict: the key verdict in words.
    """

    game: str
    rungs: dict[str, list[Rung]]
    study: str
    grid: dict[str, list[Any]]
    games: int
    verdict_games: int
    verdict: str
    base: dict[str, Any] = field(default_factory=dict)
    seat_game: bool = False


def _search_rungs(flat: str, small: str, large: str) -> list[Rung]:
    """The searching rungs: ``search`` (flat Monte Carlo on paired worlds, leaving the
    scripted choice only on significant evidence, ``z=1``), ``ismcts`` at two budgets, and the
    oracle at the large one."""
    return [Rung("search", f"search:{flat},rollout=default,z=1"),
            Rung("ismcts small", f"ismcts:{small}"), Rung("ismcts large", f"ismcts:{large}"),
            Rung("oracle (CHEAT)", f"oracle:{large}", cheat=True)]


# THE TABLE OF RUNGS, per game and side. Budgets are iterations or playouts per decision
# (never seconds); the small rung is sized for <= 2 s a game on one core (odyssey, iss) and
# <= 10 s (obcy) (measured compiled, loaded: odyssey 0.4 s, iss 0.3 s, obcy 1.0 s). The Obcy
# expedition's search rung has 16 playouts, not 32: it decides every step of every character,
# and at 32 it took 11-34 core-seconds a game, which made the Obcy ladder 13.1 minutes (it is
# played in the runs against the strongest rung and in the verdict runs too). Default sizes
# (measured compiled, rules odyssey 3, iss 1.1, obcy 6, load 1.5-2.5): odyssey 2.7, iss 3.9
# and obcy 8.5 minutes on 2 cores.
# The tuned rung: `balancelab tune` (issue 13, section 1) found sets that beat the hand-set
# numbers for HAL (`hal_turn_every=2`), the Obcy expedition and (rules version 6) the Obcy
# ALIENS, and these became the defaults
# (`preset=classic` keeps the hand-set ones), so the "scripted" rung of those sides is the
# tuned player; no tuned set beat the 2001 crew's or the ISS player's defaults at the default
# setting. A `Rung("tuned", None)` is skipped; put a preset's spec there when one beats its
# side's default (`balancelab.policies.presets.tuned_spec`).
LADDERS: dict[str, Ladder] = {
    "odyssey": Ladder(
        "odyssey",
        {
            "hal": [Rung("random", "random"), Rung("scripted", "hal-pressure"),
                    Rung("tuned", None),  # the default is the tuned set
                    *_search_rungs("rollouts=32,depth=12", "iterations=16,depth=12",
                                    "iterations=48,depth=12")],
            "crew": [Rung("random", "random"), Rung("scripted", "crew-team"),
                     Rung("tuned", None),  # no tuned set beats the default
                     *_search_rungs("rollouts=32,depth=12", "iterations=16,depth=12",
                                    "iterations=48,depth=12")],
        },
        study="hal-difficulty", grid={"crew": [2, 3, 4], "hal_extra_turns": [-1, 0, 1]},
        games=16, verdict_games=4,
        verdict="the effect of each HAL difficulty step (extra opening turns) at 2, 3 and 4 crew",
    ),
    "iss": Ladder(
        "iss",
        {
            "player": [Rung("random", "random"), Rung("scripted", "builder"),
                       Rung("tuned", None),  # no tuned set beats the default
                       *_search_rungs("rollouts=32,depth=10", "iterations=16,depth=10",
                                      "iterations=48,depth=10")],
        },
        study="iss-shuttle-removal", grid={"remove_shuttles": [False, True]},
        games=30, verdict_games=20, seat_game=True,
        verdict="the effect of returning two shuttles to the box (Setup 7) on game "
        "length and on the seats' win rates, at 2 players",
    ),
    "obcy": Ladder(
        "obcy",
        {
            "expedition": [Rung("random", "random"), Rung("scripted", "dash"),
                           Rung("tuned", None),  # the default is the tuned set
                           *_search_rungs("rollouts=16,depth=8", "iterations=6,depth=8",
                                          "iterations=16,depth=8")],
            "aliens": [Rung("random", "random"), Rung("scripted", "hunter"),
                       Rung("tuned", None),  # the default is the tuned set (version 6)
                       *_search_rungs("rollouts=32,depth=8", "iterations=6,depth=8",
                                          "iterations=16,depth=8")],
        },
        study="queen-variants", grid={"queen_variant": ["roll", "tasks"]},
        games=8, verdict_games=6,
        verdict="Variant 1 (the Queen's die roll) against Variant 2 (3 tasks)",
    ),
}


def check_game(game: str | None) -> Ladder:
    """The ladder of ``game``.

    Raises:
        StudyError: no game named, or a game without a ladder (names the valid ones).
    """
    valid = ", ".join(sorted(LADDERS))
    if not game:
        raise studies.StudyError(f"study {NAME} needs a game: balancelab study {NAME} GAME "
                                 f"(one of {valid})")
    if game not in LADDERS:
        raise studies.StudyError(f"no skill ladder for game {game!r}; valid: {valid}")
    studies.load_game(game)
    return LADDERS[game]


def scaled(spec: str, factor: float) -> str:
    """``spec`` with its search budget (``iterations`` of ``ismcts`` and ``oracle``,
    ``rollouts`` of ``search``) multiplied by ``factor`` (at least 1); other specs unchanged.
    For quick trial runs (``--budget-scale``)."""
    from balancelab.policies.base import parse_spec

    name, params = parse_spec(spec)
    key = "rollouts" if name == "search" else "iterations"
    if key not in params or factor == 1.0:
        return spec
    params[key] = max(1, round(params[key] * factor))
    return name + ":" + ",".join(f"{k}={v}" for k, v in params.items())


def rungs(lad: Ladder, side: str, budget_scale: float = 1.0) -> list[Rung]:
    """The filled rungs of a side (empty slots left out), budgets scaled."""
    return [Rung(r.name, scaled(r.spec, budget_scale), r.cheat)
            for r in lad.rungs[side] if r.spec is not None]


def fair_rungs(lad: Ladder, side: str, budget_scale: float = 1.0) -> list[Rung]:
    """The side's filled non-cheating rungs, in table order (weakest first)."""
    return [r for r in rungs(lad, side, budget_scale) if not r.cheat]


@dataclass(frozen=True)
class Strongest:
    """A side's fair rungs ranked by their measured win rate against the other side's
    scripted default (:func:`rank_fair`), and why the first is the strongest.

    Attributes:
        order: the fair rungs, strongest measured first (equal rates: the higher table
            position first).
        why: one sentence naming the chosen rung, its win rate, the rungs it is not clearly
            stronger than (paired interval including 0) and any tie.
        notes: the clauses of ``why`` after the first (ties, overlaps, the table's top fair
            rung when another was chosen); empty when the choice is clear.
    """

    order: list[Rung]
    why: str
    notes: tuple[str, ...] = ()

    @property
    def top(self) -> Rung:
        return self.order[0]

    @property
    def second(self) -> Rung:
        """The second-strongest fair rung (the strongest when the side has one)."""
        return self.order[min(1, len(self.order) - 1)]


def rank_fair(fair: list[Rung], won: dict[str, list[bool]], *, against: str = "the other "
              "side's scripted default") -> Strongest:
    """Rank fair rungs by their measured win rate (``won``: rung name → per-game outcomes on
    the same seeds), not by their place in the table.

    Args:
        fair: the rungs, in table order (weakest first); each must be in ``won``.
        won: rung name → whether the side won each game (paired: game *i* of every rung is
            dealt alike).
        against: the opponent, in words (for ``why``).

    Returns:
        The ranking, the strongest first; an exact tie goes to the higher table position
        (and ``why`` says so). ``why`` also names every rung whose paired difference from the
        chosen one has a 95% interval that reaches 0 (the measurement cannot tell them apart).

    Raises:
        ValueError: no rungs, or a rung without outcomes.
    """
    if not fair:
        raise ValueError("no fair rungs to rank")
    missing = [r.name for r in fair if not won.get(r.name)]
    if missing:
        raise ValueError(f"no measured games for rung(s) {', '.join(missing)}")
    rate = {r.name: sum(won[r.name]) / len(won[r.name]) for r in fair}
    pos = {r.name: i for i, r in enumerate(fair)}
    order = sorted(fair, key=lambda r: (-rate[r.name], -pos[r.name]))
    top = order[0]
    k, n = sum(won[top.name]), len(won[top.name])
    lo, hi = (float(x) for x in stats.wilson(k, n))
    why = (f"{top.name} ({top.spec}), the highest measured win rate of the fair rungs "
           f"against {against}: {_pct(rate[top.name])} [{_pct(lo)}, {_pct(hi)}] "
           f"({k} of {n} games)")
    notes: list[str] = []
    ties = [r.name for r in order[1:] if rate[r.name] == rate[top.name]]
    if ties:
        notes.append(f"tied with {', '.join(ties)} (the tie goes to the rung higher in the "
                     "table)")
    close = []
    for r in order[1:]:
        if r.name in ties:
            continue
        d = stats.diff_paired(won[r.name], won[top.name])
        if d.lo <= 0.0:
            close.append(f"{r.name} (a lead of {_pts(d.diff, d.lo, d.hi)} points)")
    if close:
        notes.append("not clearly stronger than " + ", ".join(close)
                     + ": the paired 95% interval reaches 0")
    if top is not fair[-1]:
        notes.append(f"the table's top fair rung, {fair[-1].name}, measured "
                     f"{_pct(rate[fair[-1].name])}")
    return Strongest(order, "; ".join([why, *notes]) + ".", tuple(notes))


@dataclass
class LadderResult:
    """What :func:`run_ladder` wrote: the study folder, its report, the tables."""

    path: Path
    report: render.ReportPaths
    rates: pl.DataFrame
    stable: bool
    interrupted: bool = False


def _workers(jobs: int) -> int:
    import os

    return (os.cpu_count() or 1) if jobs < 0 else jobs


def _outcomes(lad: Ladder, path: Path, side: str, workers: int) -> tuple[list[bool], float]:
    """Per game (by game index) whether the laddered side or seat won, and the run's
    seconds of play per game (wall time × workers / games: core-seconds)."""
    df = runner.load_games(path).sort("game_index")
    winners = df.get_column("winner").to_list()
    if lad.seat_game:
        g = studies.load_game(lad.game)
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
    m = runner.read_manifest(path)
    used = min(workers, int(m.get("chunks_total", 1) or 1))
    per_game = float(m.get("wall_seconds", 0.0)) * used / max(1, len(won))
    return won, per_game


def _pairing(lad: Ladder, side: str, spec: str, opp: str) -> dict[str, str]:
    if lad.seat_game:
        g = studies.load_game(lad.game)
        seat0 = g.seats(g.options_type.from_strings(
            {k: str(v) for k, v in lad.base.items()}))[0]
        return {seat0: spec, side: opp}
    g = studies.load_game(lad.game)
    return {side: spec, **{s: opp for s in g.sides if s != side}}


def run_ladder(
    game: str,
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
    """Run the skill ladder of ``game`` and write its report (see the module docstring).

    Args:
        game: ``odyssey``, ``iss`` or ``obcy``.
        out: the study folder (default ``runs/study-skill-ladder-<game>-seed<seed>``).
        seed: run seed, shared by every run (paired games).
        games: games per rung and opponent (default: the ladder's).
        verdict_games: games per variant of the verdict runs (default: the ladder's).
        budget_scale: multiply the search rungs' budgets (iterations, playouts; quick trial runs).
        jobs, backend, force, resume: as for :func:`balancelab.studies.sweep` (``resume``
            completes the runs an interrupted ladder left unfinished).
        progress: called with (games written, total) after each chunk of each run.
        log: called with a line naming each run as it starts.

    Raises:
        StudyError: no ladder for the game, or bad sizes.
    """
    lad = check_game(game)
    n = games if games is not None else lad.games
    nv = verdict_games if verdict_games is not None else lad.verdict_games
    if n < 2 or nv < 1:
        raise studies.StudyError("--games must be at least 2 (paired differences need two "
                                 "games) and --verdict-games at least 1")
    if not budget_scale > 0:
        raise studies.StudyError(f"--budget-scale must be > 0; got {budget_scale}")
    folder = Path(out) if out is not None else Path("runs") / f"study-{NAME}-{game}-seed{seed}"
    folder.mkdir(parents=True, exist_ok=True)
    workers = _workers(jobs)
    if workers == 1:
        backend = "sequential"  # no worker pool for one worker
    sides = list(lad.rungs)
    say = log or (lambda _msg: None)

    def play(path: Path, pairing: dict[str, str], grid: dict[str, list[Any]], k: int,
             search: bool) -> studies.SweepResult:
        chunk = max(1, math.ceil(k / (4 * workers))) if search else None
        say(f"{path.name}: {studies.pairing_name(pairing)}")
        return studies.sweep(game, grid, path, base=lad.base, policies=pairing, seed=seed,
                             games=k, jobs=jobs, backend=backend, chunk_games=chunk,
                             force=force, resume=resume, progress=progress,
                             study={"study": NAME, "game": game, "pairing":
                                    studies.pairing_name(pairing)})

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
            pairing = _pairing(lad, side, r.spec, opp.spec)
            path = folder / studies._slug(studies.pairing_name(pairing))
            search = any(p.split(":")[0] in ("ismcts", "oracle", "search")
                         for p in pairing.values())
            res = play(path, pairing, {}, n, search)
            if res.interrupted:
                stopped = path
                return None
            won, per_game = _outcomes(lad, path, side, workers)
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
            return LadderResult(folder, render.write_report(stopped), pl.DataFrame(), False,
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
            return LadderResult(folder, render.write_report(stopped), pl.DataFrame(rows),
                                False, True)
    rates = pl.DataFrame(rows)
    # the key verdict at the top two fair rungs (as measured), every side at that rung
    verdict_runs: dict[str, Path] = {}
    for k, label in ((1, "second-strongest rungs"), (0, "strongest rungs")):
        pairing = {s: (chosen[s].second if k else chosen[s].top).spec or "" for s in sides}
        path = folder / ("verdict-" + ("top" if k == 0 else "second"))
        res = play(path, pairing, lad.grid, nv, True)
        if res.interrupted:
            return LadderResult(folder, render.write_report(path), rates, False, True)
        render.write_report(path)
        verdict_runs[f"{label} ({studies.pairing_name(pairing)})"] = path
    # the wall time of every run of the ladder (a resumed ladder counts its earlier sessions)
    seconds = max(time.perf_counter() - t0, sum(
        float(runner.read_manifest(m.parent).get("wall_seconds", 0.0) or 0.0)
        for m in sorted(folder.glob(f"*/{runner.MANIFEST}"))))
    rep, stable = build_report(lad, rates, verdict_runs, n, nv, seconds, chosen)
    studies._write_study(folder, {"study": NAME, "game": game, "seed": seed, "games": n,
                                  "verdict_games": nv, "budget_scale": budget_scale,
                                  "stable": stable, "rates": rates.to_dicts(),
                                  "strongest": {s: {"rung": c.top.name, "policy": c.top.spec,
                                                    "second": c.second.name, "why": c.why}
                                                for s, c in chosen.items()},
                                  "verdict_runs": {k: v.name for k, v in verdict_runs.items()}})
    return LadderResult(folder, render.write(rep, folder / "report"), rates, stable)


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


def _pts(d: float | None, lo: float | None, hi: float | None) -> str:
    if d is None or lo is None or hi is None:
        return "–"
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _change_words(game: str) -> pl.Expr:
    """The comparison's change in words (``HAL −1 (easier) → HAL 0``), as column ``change``."""
    return pl.struct("option", "value_a", "value_b").map_elements(
        lambda r: render.change_words(game, r["option"], r["value_a"], r["value_b"]),
        return_dtype=pl.String).alias("change")


def _held_fixed_words(game: str) -> pl.Expr:
    """The settings held fixed in words (``3 crew``; ``all settings`` when none), as column
    ``held fixed``."""
    return pl.col("context").map_elements(
        lambda c: W.variant(game, c) if c else "all settings",
        return_dtype=pl.String).alias("held fixed")


def verdict_rows(lad: Ladder, runs: dict[str, Path]) -> pl.DataFrame:
    """The key verdict's comparisons (win rates of every side or seat, and the study's
    measures) per verdict run, side by side, with ``agreement`` (:func:`agreement`).

    Returns:
        Columns ``change``, ``held fixed``, ``what``, then per run its verdict and
        difference, and ``agreement`` (str).
    """
    st = studies.STUDIES[lad.study]
    focus = st.focus
    parts: list[pl.DataFrame] = []
    for name, path in runs.items():
        df = analysis.games_frame(path)
        comp = analysis.compare_variants(df).join(
            render.adjacent_pairs(df), on=["option", "variant_a", "variant_b"], how="semi")
        if focus:
            comp = comp.filter(pl.col("option") == focus)
        win = comp.select(
            _change_words(lad.game), _held_fixed_words(lad.game),
            pl.col("contender").map_elements(lambda c: f"{hooks.word(lad.game, c)}'s win rate",
                                             return_dtype=pl.String).alias("what"),
            pl.struct("verdict", "significant").map_elements(
                lambda s: render.verdict_word(s["verdict"], s["significant"]),
                return_dtype=pl.String).alias(name),
            pl.struct("diff", "lo", "hi").map_elements(
                lambda s: render.points(s["diff"], s["lo"], s["hi"]),
                return_dtype=pl.String).alias(f"{name}: difference [95%]"),
        )
        keep = [m for m in st.measures if m in df.columns]
        if keep:
            mc = analysis.compare_measures(path, adjacent_only=True)
            mc = mc.filter(pl.col("measure").is_in(keep)
                           & (pl.col("option") == focus if focus else pl.lit(True)))
            meas = mc.select(
                _change_words(lad.game), _held_fixed_words(lad.game),
                pl.col("measure").map_elements(lambda m: f"mean {W.words(lad.game, m)}",
                                               return_dtype=pl.String).alias("what"),
                pl.struct("verdict", "significant").map_elements(
                    lambda s: render.verdict_word(s["verdict"], s["significant"]),
                    return_dtype=pl.String).alias(name),
                pl.struct("diff", "lo", "hi").map_elements(
                    lambda s: f"{s['diff']:+.2f} [{s['lo']:+.2f}, {s['hi']:+.2f}]",
                    return_dtype=pl.String).alias(f"{name}: difference [95%]"),
            )
            win = pl.concat([win, meas])
        parts.append(win)
    key = ["change", "held fixed", "what"]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged.join(p, on=key, how="full", coalesce=True, maintain_order="left")
    names = list(runs)
    return merged.with_columns(
        pl.concat_list([pl.col(c) for c in names]).map_elements(
            agreement, return_dtype=pl.String).alias("agreement"))


#: How a comparison's verdicts at the top two rungs agree (:func:`agreement`).
SAME, DECIDED_ONCE, CHANGES = "same", "decided at one rung only", "changes"


def agreement(verdicts: Sequence[str | None]) -> str:
    """Whether one comparison's verdicts at the rungs agree: :data:`SAME` (all alike),
    :data:`DECIDED_ONCE` (inconclusive at some rungs, one decided verdict at the others:
    nothing contradicts it, more games would tell) or :data:`CHANGES` (two different decided
    verdicts, e.g. raises at one rung and lowers or equivalent at the other; a comparison
    missing at a rung also counts as a change)."""
    if any(v is None for v in verdicts):
        return CHANGES
    kinds = set(verdicts)
    if len(kinds) == 1:
        return SAME
    decided = {v for v in kinds if v != "inconclusive"}
    return DECIDED_ONCE if len(decided) == 1 else CHANGES


def build_report(lad: Ladder, rates: pl.DataFrame, runs: dict[str, Path], n: int, nv: int,
                 seconds: float, chosen: dict[str, Strongest]) -> tuple[render.Report, bool]:
    """The ladder's report, and whether the verdict is stable across the top two rungs
    (``chosen``: each side's fair rungs as measured, :func:`rank_fair`)."""
    g = lad.game
    vt = verdict_rows(lad, runs)
    changed = vt.filter(pl.col("agreement") == CHANGES)
    once = vt.filter(pl.col("agreement") == DECIDED_ONCE)
    stable = changed.height == 0
    names = list(runs)
    headline = [f"Skill ladder of {studies.load_game(g).title}: each side at rising skill "
                f"({n} paired games per rung and opponent), and the key verdict — "
                f"{lad.verdict} — at the top two fair rungs ({nv} games per variant)."]
    for side in lad.rungs:
        sub = rates.filter((pl.col("side") == side)
                           & pl.col("opponent").str.starts_with("scripted default"))
        if sub.height == 0:
            continue
        best = sub.filter(pl.col("rung") == chosen[side].top.name).row(0, named=True)
        base = sub.filter(pl.col("rung") == "scripted").row(0, named=True)
        oracle = sub.filter(pl.col("cheat"))
        words = hooks.word(g, side)
        line = (f"{words[:1].upper()}{words[1:]}: scripted {_pct(base['rate'])}; the "
                f"strongest fair rung as measured, {best['rung']}, {_pct(best['rate'])} "
                f"[{_pct(best['lo'])}, "
                f"{_pct(best['hi'])}] against the other side's scripted default, "
                f"{_pts(best['gain'], best['gain_lo'], best['gain_hi'])} points over the "
                "scripted rung on the same seeds")
        if chosen[side].notes:
            line += " (" + "; ".join(chosen[side].notes) + ")"
        if oracle.height:
            o = oracle.row(0, named=True)
            line += (f"; the oracle (a cheat that sees every hand and the deck order) "
                     f"{_pct(o['rate'])} [{_pct(o['lo'])}, {_pct(o['hi'])}]")
        headline.append(line + ".")
    def listed(rows: pl.DataFrame) -> str:
        return "; ".join(
            f"{r['change']} at {r['held fixed']}, {r['what']}: "
            + ", ".join(f"{nm.split(' (')[0]} {r[nm] or '–'}" for nm in names)
            for r in rows.iter_rows(named=True))

    if stable and once.height == 0:
        headline.append("The verdict is stable across the top two rungs: every comparison of "
                        f"{lad.verdict} reads the same with every side at its strongest and at "
                        "its second-strongest fair rung.")
    elif stable:
        headline.append(
            "The verdict is stable across the top two rungs: no comparison reads differently "
            f"where both rungs decide it; {once.height} of {vt.height} are decided at one "
            f"rung and inconclusive at the other (more games would tell): {listed(once)}.")
    else:
        headline.append(f"It changes: {listed(changed)}.")
    warns = []
    if not stable:
        warns.append(f"The verdict changes between the top two rungs in {changed.height} of "
                     f"{vt.height} comparisons: it says more about the players than the rules.")
    if rates.height and bool(rates.get_column("cheat").any()):
        warns.append("CHEAT: the oracle rung sees the true state (every hand, the deck order); "
                     "its win rate is an upper bound, not a fair result.")
    table = rates.select(
        pl.col("side").map_elements(lambda s: hooks.word(g, s), return_dtype=pl.String)
        .alias("side"),
        "opponent", "rung", "policy", "games",
        pl.struct("rate", "lo", "hi").map_elements(
            lambda s: f"{_pct(s['rate'])} [{_pct(s['lo'])}, {_pct(s['hi'])}]",
            return_dtype=pl.String).alias("win rate [95%]"),
        pl.struct("diff", "diff_lo", "diff_hi").map_elements(
            lambda s: _pts(s["diff"], s["diff_lo"], s["diff_hi"]), return_dtype=pl.String)
        .alias("vs rung below, points [95%]"),
        pl.col("seconds_per_game").map_elements(lambda x: f"{x:.2f}", return_dtype=pl.String)
        .alias("s/game (core)"),
    )
    vtab = vt.drop("agreement").with_columns(
        vt.get_column("agreement").replace_strict(
            {SAME: "yes", DECIDED_ONCE: "decided at one rung only", CHANGES: "NO"},
            return_dtype=pl.String).alias("same at both rungs"))
    sections = [
        render.Section("The strongest fair rung of each side", [
            "Each side's strongest fair (non-cheating) rung is the one with the highest "
            "measured win rate against the other side's scripted default (not the rung "
            "highest in the table: more search is not always stronger). It is the opponent "
            "of the 'strongest fair' runs, and it and the runner-up play the verdict runs.",
            *(f"{hooks.word(g, side)}: {c.why}" for side, c in chosen.items()),
        ]),
        render.Section("Win rate per rung", [
            "Each rung of each side against the other side's scripted default and against its "
            "strongest fair rung, on the same seeds; the win rate with its 95% Wilson interval "
            "and the paired difference from the rung below (Newcombe's paired score "
            "interval). The oracle rung CHEATS (it sees the true state): an upper bound. "
            "Seconds per game are core-seconds (wall time × workers / games).",
            render.Table("Win rate per rung", table),
        ]),
        render.Section("The key verdict at the top two fair rungs", [
            f"{lad.verdict[:1].upper()}{lad.verdict[1:]}, with every side at its "
            "second-strongest and at its strongest "
            "fair rung (verdict words as in the study reports: raises or lowers only when "
            "the change survives Holm's correction). Full reports: "
            + ", ".join(f"{p.name}/report/report.md" for p in runs.values()) + ".",
            render.Table("Verdicts", vtab),
        ]),
    ]
    headline.append(f"Played in {seconds / 60:.1f} minutes (wall time of its runs).")
    return render.Report(f"balancelab study: {NAME} {g}", headline, warns, sections), stable
