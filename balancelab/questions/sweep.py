"""``balancelab sweep``: every combination of some rule options in ONE run, grown in rounds
until a stopping rule holds.

* :func:`sweep` plays every combination of the grid options in one run (one variant each; the
  runner partitions by variant and plays game *i* of every variant from the same seed, so
  differences between variants are paired). It can play in rounds, extending the run
  (``runs.run(..., resume=True)``) until a stopping rule holds: ``precision`` (every
  printed 95% Wilson interval within ±E: a width-only rule, so the intervals keep their
  level), ``precision_diff`` (every change of the question within ±E at the level Holm may
  print it at) or ``decide`` (every change decided — raises, lowers or equivalent — by
  sequential probability ratio tests on the paired games, looked at every
  :data:`~balancelab.analysis.verdicts.DECIDE_LOOK` games,
  :func:`balancelab.analysis.verdicts.sequential_paired`; each round adds one chunk). The
  rounds are recorded in ``<run>/study.json`` and shown in the report.
* :func:`plan` gives the games per setting a question needs to detect a change (``--detect``).

Errors are :class:`~balancelab.questions.inputs.StudyError` (a RuntimeError) or ValueError
with one-line messages.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from balancelab import analysis
from balancelab.analysis import stats, verdicts
from balancelab.questions.inputs import StudyError, grid_variants
from balancelab.reports import run_report
from balancelab.simulate import runs
from balancelab.simulate.core import Game
from balancelab.simulate.options import RuleOptions

#: Games of the first precision round, per variant.
PRECISION_START = 1000
#: Games per variant after which a precision run stops even if the target is not reached.
PRECISION_MAX = 200_000


# -- sweep -------------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """What :func:`sweep` did: the run folder, games per variant, precision rounds."""

    path: Path
    games: int
    rounds: list[dict[str, Any]]
    interrupted: bool = False
    #: the folder already held exactly this finished run (fixed size): nothing was played
    reused: bool = False


def _next_games(n: int, half_width: float, target: float, chunk: int, cap: int) -> int:
    """Games per variant for the next round: scale by (width / target)², at least ×1.25."""
    want = int(n * max(1.25, min(4.0, 1.1 * (half_width / target) ** 2)))
    want = -(-want // chunk) * chunk
    return min(max(want, n + chunk), cap)


#: Games a ``decide`` round adds, at least: a few of the sequential test's looks (it reads
#: every look, whatever the rounds; a round only bounds the games played past the look that
#: decided).
DECIDE_STEP = 5 * verdicts.DECIDE_LOOK


def sweep(
    game: Game,
    grid: Mapping[str, Sequence[Any]],
    path: Path,
    *,
    base: dict[str, Any] | None = None,
    policies: dict[str, str] | None = None,
    seed: int = 0,
    games: int | None = None,
    precision: float | None = None,
    precision_diff: float | None = None,
    decide: bool = False,
    focus: str | None = None,
    pairs: str | None = None,
    margin: float | None = None,
    max_games: int | None = None,
    jobs: int = -1,
    backend: str = "loky",
    rotate: bool = True,
    chunk_games: int | None = None,
    force: bool = False,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    study: dict[str, Any] | None = None,
    blocks: int = 1,
) -> SweepResult:
    """Play every combination of ``grid`` in one run (paired across variants by seed).

    Args:
        game: the game (resolved from its name at the edge: :func:`load_game`).
        grid: option → values; every combination becomes a variant.
        path: the run folder.
        base: options fixed for every variant.
        policies: side/seat → policy spec.
        seed: run seed.
        games: games per variant (fixed-size mode; the first round's size with a stopping
            rule).
        precision: target half-width E (e.g. 0.01): extend the run in rounds until every
            variant's 95% Wilson interval of every side's / seat's win rate is within ±E
            (the intervals the report prints; a width-only rule keeps their level).
        precision_diff: target half-width E for the question's changes: extend until each
            change's interval, at the Bonferroni level of its family, is within ±E.
        decide: extend until every change of the question is decided (raises, lowers or
            equivalent within ±margin) by sequential probability ratio tests on the paired
            games (:func:`balancelab.analysis.verdicts.sequential_paired`).
        focus, pairs, margin: the question (see
            :func:`balancelab.analysis.compare_variants`), recorded for the report.
        max_games: the most games per variant a growing run may play (default
            :data:`PRECISION_MAX`); only with a stopping rule.
        jobs, backend, rotate, chunk_games, force, resume: as for
            :func:`~balancelab.simulate.runs.run`.
        progress: called with (games written, total) after each chunk.
        study: extra facts recorded in ``<run>/study.json``.
        blocks: independent seed blocks (1 to :data:`MAX_BLOCKS`): block 1 is the run at
            ``path`` from ``seed`` (the same parquet as a one-block sweep); block k >= 2 is a
            run of the same design at :func:`block_folder` from :func:`block_seeds`'s k-th
            seed, played at the first block's final size once its stopping rule (if any) has
            stopped. The blocks are recorded in ``<run>/study.json`` (``blocks``) and the
            report reads the question pooled over them, each block's estimate and Cochran's Q
            (:func:`balancelab.analysis.replicate`).

    Returns:
        A :class:`SweepResult`.

    Raises:
        StudyError: two stopping rules, or ``max_games`` without a
            stopping rule or below ``games``. OptionError / PolicyError / RunError / ValueError:
            bad input.
    """
    rule = stopping_rule(precision, precision_diff, decide)
    cap = check_sizes(games, precision, max_games, precision_diff, decide)
    check_blocks(blocks)
    variants = grid_variants(game, grid, base)
    if focus is not None and focus not in grid:
        raise ValueError(f"--focus {focus!r} is not a --grid option; grid: {', '.join(grid)}")
    if margin is not None and not 0 < margin < 1:
        raise ValueError(f"--margin is in win-rate units in (0, 1): 0.02 means ±2 "
                         f"percentage points; got {margin}")
    n = games if games is not None else (PRECISION_START if rule else 1000)
    config = runs.RunConfig(game.name, variants, dict(policies or {}), seed, n, rotate,
                            chunk_games)
    path = Path(path)
    facts = dict(study or {})
    facts["grid"] = {k: [str(v) for v in vs] for k, vs in grid.items()}
    for k, v in (("focus", focus), ("pairs", pairs), ("margin", margin)):
        if v is not None:
            facts[k] = v
    if decide:
        facts["decide"] = True
    seeds = block_seeds(seed, blocks)
    if blocks > 1:
        facts["blocks"] = [{"folder": block_folder(path, k).name, "seed": s}
                           for k, s in enumerate(seeds[1:], start=2)]
    rounds: list[dict[str, Any]] = []
    if rule is None and not (force or resume) and runs.holds_finished(config, path):
        if not _play_blocks(config, path, seeds, jobs=jobs, backend=backend,
                            progress=progress, force=force, resume=resume):
            return SweepResult(path, config.games, rounds, True)
        write_study(path, facts)  # the question (focus, pairs, margin) may be asked anew
        return SweepResult(path, config.games, rounds, reused=True)
    first = True
    target = precision if precision is not None else precision_diff
    while True:
        summary = runs.run(config, path, jobs=jobs, backend=backend, progress=progress,
                             force=force and first, resume=resume or not first,
                             planned=not first)
        first = False
        if summary.interrupted:
            return SweepResult(path, config.games, rounds, True)
        if rule is None:
            if not _play_blocks(config, path, seeds, jobs=jobs, backend=backend,
                                progress=progress, force=force, resume=resume):
                return SweepResult(path, config.games, rounds, True)
            write_study(path, facts)
            return SweepResult(path, config.games, rounds)
        q_focus = focus or facts.get("focus")
        q_pairs = pairs or facts.get("pairs")
        if rule == "precision":
            widest = float(analysis.precision_status(path)["half_width"].max())  # type: ignore[arg-type]
            reached = widest <= float(target or 0)
        elif rule == "precision-diff":
            st = analysis.sweeps.difference_status(path, focus=q_focus, pairs=q_pairs)
            widest = float(st["half_width"].max()) if st.height else 0.0  # type: ignore[arg-type]
            reached = widest <= float(target or 0)
        else:
            comp = analysis.compare_variants(path, focus=q_focus, pairs=q_pairs,
                                             margin=margin, sequential=True)
            half = ((comp["hi"] - comp["lo"]) / 2).to_list()
            widest = float(max(half)) if half else 0.0
            reached = bool((comp["verdict"] != "inconclusive").all())
        rounds.append({"games": config.games, "max_half_width": round(widest, 6),
                       "reached": reached})
        facts.update({"stop": rule, "rounds": rounds})
        if target is not None:
            facts.update({"target": target, "precision": target})
        write_study(path, facts)
        if reached or config.games >= cap:
            if not _play_blocks(config, path, seeds, jobs=jobs, backend=backend,
                                progress=progress, force=force, resume=resume):
                return SweepResult(path, config.games, rounds, True)
            return SweepResult(path, config.games, rounds)
        assert config.chunk_games is not None
        if rule == "decide":
            step = -(-DECIDE_STEP // config.chunk_games) * config.chunk_games
            config.games = min(config.games + step, cap)
        else:
            config.games = _next_games(config.games, widest, float(target or 1),
                                       config.chunk_games, cap)


def default_folder(game: Game, variants: Sequence[RuleOptions], policies: dict[str, str],
                   seed: int) -> Path:
    """A sweep's run folder when none is given: ``runs/<game>-sweep-…-seed<seed>`` (the
    runner's name for a run of these variants, policies and seed)."""
    return Path("runs") / runs.RunConfig(game.name, list(variants), policies, seed,
                                         1).default_run_name()


#: The most seed blocks a sweep or study may play.
MAX_BLOCKS = 20


def check_blocks(blocks: int) -> None:
    """Refuse a number of seed blocks outside 1 to :data:`MAX_BLOCKS`.

    Raises:
        ValueError: in one line.
    """
    if isinstance(blocks, bool) or not isinstance(blocks, int) or not 1 <= blocks <= MAX_BLOCKS:
        raise ValueError(f"--blocks is the number of independent seed blocks, 1 to "
                         f"{MAX_BLOCKS}; got {blocks!r}")


def block_seeds(seed: int, blocks: int) -> list[int]:
    """The run seed of each seed block: block 1 plays from ``seed`` itself (so a sweep's
    first block is the run a one-block sweep writes), block k >= 2 from the k-th child of
    ``numpy.random.SeedSequence(seed).spawn(blocks)`` (a 63-bit int from its state):
    independent of each other and of ``seed``'s games, and the same on every machine.

    Returns:
        ``blocks`` ints in [0, 2**63).
    """
    import numpy as np

    kids = np.random.SeedSequence(seed).spawn(blocks)[1:]
    return [seed, *(int(k.generate_state(1, np.uint64)[0]) >> 1 for k in kids)]


def block_folder(path: Path, k: int) -> Path:
    """Seed block ``k`` (>= 2) of the run at ``path``: ``<path>-block<k>``, beside it."""
    path = Path(path)
    return path.parent / f"{path.name}-block{k}"


def _play_blocks(config: runs.RunConfig, path: Path, seeds: Sequence[int], *, jobs: int,
                 backend: str, progress: Callable[[int, int], None] | None, force: bool,
                 resume: bool) -> bool:
    """Play seed blocks 2.. of the run at ``path`` (its design and size, another seed
    each); False when interrupted."""
    for k, s in enumerate(seeds[1:], start=2):
        cfg = runs.RunConfig(config.game, config.variants, config.policies, s, config.games,
                             config.rotate, None if config.chunk_auto else config.chunk_games)
        where = block_folder(path, k)
        if not force and runs.holds_finished(cfg, where):
            continue
        summary = runs.run(cfg, where, jobs=jobs, backend=backend, progress=progress,
                           force=force, resume=resume)
        if summary.interrupted:
            return False
    return True


def stopping_rule(precision: float | None, precision_diff: float | None,
                  decide: bool) -> str | None:
    """The stopping rule asked for (None: a fixed number of games)."""
    asked = [name for name, on in (("precision", precision is not None),
                                   ("precision-diff", precision_diff is not None),
                                   ("decide", decide)) if on]
    if len(asked) > 1:
        raise StudyError(f"choose one stopping rule: --{asked[0]} or --{asked[1]}")
    return asked[0] if asked else None


def check_sizes(games: int | None, precision: float | None, max_games: int | None,
                precision_diff: float | None = None, decide: bool = False) -> int:
    """The cap of a growing run; a cap without a stopping rule, or below the first round's
    ``games`` (default :data:`PRECISION_START`), is an error (it would be silently ignored or
    passed).

    Raises:
        StudyError: two stopping rules, or a cap that contradicts the sizes.
        ValueError: a precision target outside (0, 0.5).
    """
    rule = stopping_rule(precision, precision_diff, decide)
    for target in (precision, precision_diff):
        if target is not None:
            stats.precision_tune_n(target)  # validates the target
    if max_games is None:
        return PRECISION_MAX
    if rule is None:
        raise StudyError("--max-games caps a --precision, --precision-diff or --decide run; "
                         "without one, --games sets the number of games")
    first = games if games is not None else PRECISION_START
    if first > max_games:
        raise StudyError(f"the first round of a --{rule} run plays {first:,} games per "
                         f"variant (--games), more than --max-games {max_games:,}")
    return max_games


def plan(g: Game, grid: Mapping[str, Sequence[Any]], change: float, *,
         base: dict[str, Any] | None = None, focus: str | None = None,
         pairs: str | None = None, level: float = stats.LEVEL) -> list[dict[str, Any]]:
    """Games per setting each question needs to detect a change of ``change`` (win-rate
    units) with 80% power under its family's correction, before playing (``--detect``).

    A question is the focus option (default: every grid option, each its own): its steps
    (neighbouring values, or every pair with ``pairs="all"``) within each setting of the
    other options; one change per step for two-sided games and two-seat settings, one per
    seat for seat games of three or more seats.

    Returns:
        One dict per question: ``option``, ``family_size``, ``games`` (worst case: rates
        near 50%, no gain from pairing), ``games_at_10`` (win rates near 10% or 90%).

    Raises:
        StudyError / OptionError / ValueError: bad game, grid, focus or change.
    """
    from balancelab.analysis import verdicts

    variants = grid_variants(g, grid, base)
    names = list(grid)
    opts = [focus] if focus else names
    if focus is not None and focus not in grid:
        raise ValueError(f"--focus {focus!r} is not a --grid option; grid: {', '.join(grid)}")
    team = len(g.sides) >= 2
    out = []
    for opt in opts:
        k = len(grid[opt])
        steps = k - 1 if pairs != "all" else k * (k - 1) // 2
        size = 0
        for v in variants:
            if str(getattr(v, opt)) != str(variants[0].__getattribute__(opt)):
                continue  # one variant per stratum of the other options
            n_seats = len(g.seats(v))
            seats = 1 if team or n_seats == 2 else n_seats  # two seats: one test
            size += steps * seats
        size = max(1, size)
        out.append({"option": opt, "family_size": size,
                    "games": verdicts.games_for_change(change, size, level),
                    "games_at_10": verdicts.games_for_change(change, size, level, 0.18)})
    return out


def write_study(path: Path, facts: dict[str, Any]) -> None:
    f = Path(path) / run_report.STUDY_FILE
    tmp = f.with_name(f.name + ".tmp")
    tmp.write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, f)

