"""The Python API: play a run from a notebook or a script and read its answers.

::

    import balancelab
    run = balancelab.simulate("odyssey", games=2000, seed=1, crew=3)
    run.win_rates()   # polars DataFrame: each side's win rate with its Wilson 95% interval
    run.games         # polars DataFrame: one row per game
    run.report()      # the report; Jupyter displays it as HTML

A run without ``out=`` is played into a temporary folder that is deleted when the
:class:`Run` is garbage-collected (or the interpreter exits); ``run.save(folder)`` keeps it.
With ``out=`` the run is an ordinary run folder, the one ``balancelab simulate --out`` writes
(the same seed gives the same parquet bytes), readable later with :meth:`Run.open`.

This module imports nothing heavy at import time, so ``import balancelab`` stays cheap; the
runner, polars and the reports are imported when a run is played or read.
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tempfile

    import polars as pl

    from balancelab.reports.page import Report

log = logging.getLogger(__name__)

__all__ = ["Run", "simulate"]


class Run:
    """A run folder, read from Python.

    Attributes:
        path: the run folder (a temporary one for a run played without ``out=``).
        manifest: the run's ``run.json`` (validated), a dict.
    """

    def __init__(self, path: str | os.PathLike[str],
                 temporary: tempfile.TemporaryDirectory[str] | None = None) -> None:
        """Read the run folder ``path`` (use :func:`simulate` or :meth:`open` instead).

        Raises:
            RunError: not a run folder, or an invalid or edited manifest.
        """
        from balancelab.simulate.runs import read_manifest

        self.path = Path(path)
        self._temporary = temporary  # deleted with this object
        self.manifest: dict[str, Any] = read_manifest(self.path)
        self._games: pl.DataFrame | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Run:
        """An existing run folder (written by ``balancelab simulate`` or ``sweep``).

        Raises:
            RunError: not a run folder, or an invalid or edited manifest.
        """
        return cls(path)

    @property
    def game(self) -> str:
        """The game's name (``odyssey``, ``iss``, ``obcy``)."""
        return str(self.manifest["game"])

    @property
    def seed(self) -> int:
        """The run seed."""
        return int(self.manifest["config"]["seed"])

    @property
    def in_memory(self) -> bool:
        """True for a run in a temporary folder (deleted with this object)."""
        return self._temporary is not None

    @property
    def games(self) -> pl.DataFrame:
        """The games table: one row per game, sorted by (variant, game_index).

        Columns: the labels (``run_id``, ``game``, ``game_version``, ``variant_label``), one
        column per rule option, ``policy_<side>`` and ``policies``, ``game_index``, ``seed``,
        ``winner`` (``""`` for a game stopped by the round cap), ``end_reason``, ``rounds``,
        ``decisions``, the game's measures, and ``variant`` (Int32). Each parquet file's
        key-value metadata names every column's role
        (:func:`~balancelab.simulate.runs.tables.parquet_metadata`).
        """
        if self._games is None:
            from balancelab.analysis import games_frame

            self._games = games_frame(self.path)
        return self._games

    @property
    def seats(self) -> pl.DataFrame | None:
        """The seats table (one row per game and seat, with each seat's score; iss), sorted
        by (variant, game_index, seat); None for a game without one."""
        from balancelab.analysis import seats_frame

        return seats_frame(self.path)

    def win_rates(self, level: float = 0.95) -> pl.DataFrame:
        """Each side's (or seat's) win rate per variant, with its Wilson interval.

        Returns:
            Columns ``variant``, ``variant_label``, the option columns that differ between
            variants (none for one variant), ``contender``, ``seat`` (-1 for a side),
            ``games``, ``wins``, ``draws``, ``losses``, ``capped`` (Int64), ``rate``, ``lo``,
            ``hi`` (Float64 in [0, 1]: the Wilson interval at ``level``) and ``fair_share``;
            :func:`balancelab.analysis.win_rates` keeps every option column.
        """
        from balancelab import analysis

        fixed = set(analysis.option_columns(self.games)) - set(
            analysis.varying_options(self.games))
        rates = analysis.win_rates(self.path, level)
        return rates.drop([c for c in rates.columns if c in fixed])

    def outcome_rates(self, level: float = 0.95) -> pl.DataFrame:
        """Each outcome's rate per variant (every outcome, draws and ``capped`` included),
        with its Wilson interval; see :func:`balancelab.analysis.outcome_rates`."""
        from balancelab import analysis

        return analysis.outcome_rates(self.path, level)

    def report(self) -> Report:
        """The run's report (answers, warnings, tables, plots); Jupyter shows it as HTML.

        ``balancelab.reports.write(run.report(), folder)`` writes it as Markdown and HTML.
        """
        from balancelab.reports import build_run_report

        return build_run_report(self.path)

    def save(self, out: str | os.PathLike[str]) -> Run:
        """Copy the run folder to ``out`` (a new folder) and return the run there.

        Raises:
            RunError: ``out`` already exists.
        """
        import shutil

        from balancelab.simulate.runs import RunError
        from balancelab.simulate.runs.folder import LOCK

        dest = Path(out)
        if dest.exists():
            raise RunError(f"{str(dest)!r} already exists; choose a new folder")
        shutil.copytree(self.path, dest, ignore=shutil.ignore_patterns(LOCK))
        return Run(dest)

    def __repr__(self) -> str:
        m = self.manifest
        where = "in memory" if self.in_memory else str(self.path)
        return (f"<balancelab.Run {m['game']} {m['label']}: {m['games_written']:,} of "
                f"{m['games_total']:,} games, seed {self.seed}, {where}>")


def simulate(
    game: str,
    *,
    games: int = 1000,
    seed: int = 0,
    policies: Mapping[str, str] | None = None,
    out: str | os.PathLike[str] | None = None,
    jobs: int = -1,
    backend: str = "loky",
    scheduler: str | None = None,
    rotate: bool = True,
    resume: bool = False,
    force: bool = False,
    **options: Any,
) -> Run:
    """Play ``games`` games of ``game`` and return the :class:`Run`.

    The Python form of ``balancelab simulate``: the same configuration and seed give the
    same games and the same parquet bytes.

    Args:
        game: ``odyssey``, ``iss`` or ``obcy``.
        games: games to play (1 to 1,000,000,000).
        seed: the run seed (0 to 2**63 - 1): one seed fixes the run.
        policies: side or seat name → policy spec (``{"hal": "random"}``,
            ``{"crew": "search:rollouts=200"}``); sides not named play their default.
        out: the run folder to write; None plays into a temporary folder deleted with the
            returned :class:`Run` (``run.save(folder)`` keeps it). A folder that already holds
            this finished run is read, not played again.
        jobs: worker processes (-1: all cores); never changes the results.
        backend: ``loky`` (default), ``sequential``, ``threading`` or ``dask``.
        scheduler: with ``dask``, a scheduler's address (``tcp://host:8786``); None starts a
            local cluster.
        rotate: rotate differing policies through a side's seats.
        resume: complete or extend (to ``games``) the run already in ``out``.
        force: replace the run already in ``out``.
        **options: rule options, e.g. ``crew=3, hal_extra_turns=1`` (``balancelab games
            GAME`` lists them with their defaults and allowed values).

    Returns:
        The finished :class:`Run`. More than 1% of games stopped by the round cap gives a
        ``RuntimeWarning`` (they count as neither win nor loss).

    Raises:
        UnknownGameError: an unknown game (the message lists the games).
        OptionError: an unknown rule option or a bad value (naming the valid ones).
        PolicyError: an unknown side, seat, policy or policy parameter.
        RunError: bad ``games``/``seed``/``jobs``/``backend``/``out``/``scheduler`` or a
            true/false argument that is not a bool, or ``out`` holds another run (without
            ``force``) or this run unfinished (without ``resume``).
        KeyboardInterrupt: interrupted; the finished chunks of ``out`` are kept.

    Every argument is checked before anything is written: a refused call leaves no folder.
    """
    import tempfile

    from balancelab.games import get_game
    from balancelab.simulate.runs import RunConfig, holds_finished, run

    _check_arguments(game=game, games=games, seed=seed, policies=policies, out=out, jobs=jobs,
                     backend=backend, scheduler=scheduler, rotate=rotate, resume=resume,
                     force=force)
    g = get_game(game)
    config = RunConfig(game=game, variants=[g.options_type.from_values(options)],
                       policies=dict(policies or {}), seed=seed, games=games, rotate=rotate)
    temporary = None
    if out is None:
        temporary = tempfile.TemporaryDirectory(prefix="balancelab-")
        path = Path(temporary.name) / config.default_run_name()
    else:
        path = Path(out)
    if not (force or resume) and holds_finished(config, path):
        log.info("%s already holds this finished run; reading it", path)
    else:
        summary = run(config, path, jobs=jobs, backend=backend, scheduler=scheduler,
                      force=force, resume=resume)
        if summary.interrupted:
            raise KeyboardInterrupt
    result = Run(path, temporary)
    _warn_capped(result)
    return result


def _check_arguments(*, game: Any, games: Any, seed: Any, policies: Any, out: Any, jobs: Any,
                     backend: Any, scheduler: Any, rotate: Any, resume: Any,
                     force: Any) -> None:
    """Refuse an argument of :func:`simulate` of the wrong type, in one line naming it.

    Raises:
        PolicyError: ``policies`` is not a mapping of names to specs.
        RunError: any other argument of the wrong type, or ``jobs`` out of range.
    """
    from balancelab.policies.errors import PolicyError
    from balancelab.simulate.errors import RunError

    def what(v: Any) -> str:
        return f"{v!r} ({type(v).__name__})"

    def whole(v: Any) -> bool:
        import numbers

        return isinstance(v, numbers.Integral) and not isinstance(v, bool)

    if not isinstance(game, str):
        raise RunError(f"game must be a game's name (a str); got {what(game)}")
    for name, v in (("games", games), ("seed", seed)):
        if not whole(v):
            raise RunError(f"{name} must be a whole number (an int); got {what(v)}")
    if not whole(jobs) or jobs == 0 or jobs < -1:
        raise RunError(f"jobs must be -1 (all cores) or at least 1 (an int); got {what(jobs)}")
    if policies is not None and not (
            isinstance(policies, Mapping)
            and all(isinstance(k, str) and isinstance(v, str) for k, v in policies.items())):
        raise PolicyError("policies must map a side or seat to a policy spec, e.g. "
                          f"{{'hal': 'random'}}; got {what(policies)}")
    if out is not None and not isinstance(out, (str, os.PathLike)):
        raise RunError(f"out must be a folder (a str or Path) or None; got {what(out)}")
    if not isinstance(backend, str):
        raise RunError(f"backend must be a backend's name (a str); got {what(backend)}")
    if scheduler is not None and not isinstance(scheduler, str):
        raise RunError(f"scheduler must be an address (a str) or None; got {what(scheduler)}")
    for name, v in (("rotate", rotate), ("resume", resume), ("force", force)):
        if not isinstance(v, bool):
            raise RunError(f"{name} must be True or False; got {what(v)}")


def _warn_capped(run: Run) -> None:
    """A RuntimeWarning when more than 1% of a variant's games hit the round cap."""
    from balancelab.reports.sentences import capped_warning

    text = capped_warning(run.outcome_rates(), run.game)
    if text:
        warnings.warn(text, RuntimeWarning, stacklevel=3)
