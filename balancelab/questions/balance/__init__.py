"""``balancelab balance``: which setting of a rule makes a game fair (or hits a target)?

A *knob* is a rule option with an order (an integer or number range ``lo..hi``, or a list of
values ``a,b,c`` in the order given); a *target* is what the setting should reach:

* ``SIDE=RATE`` or ``SEAT=RATE`` (``crew=0.5``, ``seat0=25%``): a side's or seat's win rate;
* ``seats=equal``: every seat wins as often as every other (the largest gap between two seats'
  win shares, a shared first place split between the seats that share it, is 0);
* ``MEASURE=VALUE`` (``turns=40``, ``rounds=12``): a game measure's mean.

Method (issue 14):

* **One knob**: a noisy bisection that exploits monotonicity. Both ends of the range are
  played first (the target must lie between them, else :class:`Unreachable` names the closest
  setting); then the middle setting of the bracket is played in doubling batches
  (``batch``, 2×, 4× … games, at most :data:`SEARCH_LOOKS` looks) until its interval excludes
  the target (at level 1 − α/2^(look+1) per look, α = 0.05 / the number of bisection steps:
  Bonferroni over looks and steps), or until its 95% interval is within ±``precision``/2
  (then it is classified by its estimate). Every setting of the search plays the same games
  (seeds ``seed``, game *i* of every setting shares its shuffles and dice: common random
  numbers). An integer knob ends with the two neighbouring settings that bracket the target.
* **Several knobs**: optuna's seeded TPE sampler proposes settings (``trials`` of them); each
  proposal plays ``batch`` more games on the search seeds, so a setting proposed again is
  measured more precisely (optuna's objective is noisy; repeated proposals average it down).
  The best few settings (``confirm``) go on to confirmation.
* **Confirmation**: every candidate, and the rulebook's setting, is played on fresh seeds
  (run seed ``seed + CONFIRM_SEED_OFFSET``, never used by the search) in a number of games
  planned from the search's variance to reach ±``precision``, extended if the interval is still
  wider. Intervals: Wilson for a win rate, normal (t) for a mean or a gap of shares; the
  largest seat gap's interval is Bonferroni-widened over the seat pairs, so it covers every
  pair's gap at once. Among the candidates whose interval holds the target, the one closest to
  the rulebook is recommended; if none holds it, the one closest to the target.

A balance run is a folder: ``balance.json`` (the manifest: configuration, every point played,
the answer), ``search/<setting>/`` and ``confirm/<setting>/`` (ordinary runner runs, readable by
``balancelab report`` and polars), ``report/`` (Markdown, HTML, the response curve). It is
deterministic given its seed, so running the same command again after Ctrl-C or ``kill -9``
replays the decisions from the finished chunks and plays only what is missing.
"""

from __future__ import annotations

from pathlib import Path

from balancelab.questions.balance.knobs import (
    BalanceError,
    Interrupted,
    Knob,
    Target,
    Unreachable,
    parse_knob,
    parse_target,
)
from balancelab.questions.balance.report import write_balance_report
from balancelab.questions.balance.session import (
    BalanceConfig,
    BalanceResult,
    Progress,
    Session,
    games_in,
)
from balancelab.simulate.executors import check_backend
from balancelab.simulate.runs.folder import left_as_found

__all__ = ["BalanceConfig", "BalanceError", "BalanceResult", "Interrupted", "Knob", "Target",
           "Unreachable", "balance", "parse_knob", "parse_target"]


def balance(cfg: BalanceConfig, path: Path | None = None, *, jobs: int = -1,
            backend: str = "loky", progress: Progress | None = None,
            force: bool = False) -> BalanceResult:
    """Find the knob setting that reaches the target, confirm it, and write the report.

    Args:
        cfg: the question (game, fixed options, knobs, target, seeds, sizes).
        path: the balance folder (default :meth:`BalanceConfig.default_folder`).
        jobs, backend: as for :func:`balancelab.simulate.runs.run`.
        progress: called with (setting label, games done, games planned) after each chunk.
        force: replace a folder holding another balance run.

    Returns:
        A :class:`BalanceResult` with the report written to ``<path>/report``.

    Raises:
        Unreachable: no setting in the range reaches the target (the report is still
            written, with the closest setting found).
        Interrupted: Ctrl-C; the same call continues from the finished chunks.
        BalanceError, OptionError, PolicyError, RunError: bad input.
    """
    if not 0 < cfg.precision < 0.5:
        raise BalanceError(f"--precision is a half-width in win-rate units, in (0, 0.5): "
                           f"0.015 means ±1.5 percentage points; got {cfg.precision}")
    check_backend(backend, None)
    folder = Path(path) if path is not None else cfg.default_folder()
    with left_as_found(folder):  # refused before a game (a bad backend): no balance.json
        s = Session(cfg, folder, jobs=jobs, backend=backend, progress=progress, force=force)
        try:
            res = s.run()
        except Unreachable as exc:
            res = BalanceResult(folder, [str(exc)], None, s.points,
                                games_in(folder / "search") + games_in(folder / "confirm"),
                                unreachable=True)
            s.save(games=res.games)
            res.report = write_balance_report(s, res)
            raise
    res.report = write_balance_report(s, res)
    return res

