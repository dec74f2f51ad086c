"""Tune a scripted player's numeric parameters with optuna (``balancelab tune``).

One side's policy plays against the other side's defaults. Each optuna trial proposes a value
for every numeric parameter the policy declares (:attr:`Policy.param_ranges`: integers,
floats; conventions given as booleans and names are left as they are) and plays a block of
games on the *common* seeds of the study (game *i* of every trial deals the same cards and
rolls the same dice: trials are compared on paired games). The TPE sampler is seeded from
``--seed``, so a study replays identically.

Storage: an optuna RDB study in ``<folder>/study.sqlite3`` (SQLite through SQLAlchemy):
stopping and calling ``tune`` again with the same folder continues the study where it
stopped; the configuration is kept in ``<folder>/tune.json`` and must match.

The objective of a trial is its win rate less a penalty for the games stopped by the round
cap: ``(wins - cap_penalty * capped) / games``. A capped game is already not a win (its
result is "no winner", a loss for every side), but a set that turns losses into capped games
would cost nothing, and the round cap is the simulator's safeguard, not a rule: a game the
rulebook would go on playing says nothing about who wins it. So each capped game also costs
``cap_penalty`` wins (default 1: a capped game undoes a win). The penalty steers the search
only; the answers printed are win rates, with the capped share beside them.

At the end the best parameters (by the objective over the tuning seeds) and the starting
parameters (the policy's defaults) are both played on FRESH seeds (a different run seed,
never used in tuning): the win rates, their Wilson intervals, the paired difference and the
capped shares are printed, so the selection's optimism does not leak into the answer.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from balancelab.policies import base as policies
from balancelab.simulate.core import Game, rules_stream, seat_stream
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.play import play

#: run seed of the fresh seeds used for the before/after comparison: ``seed + FRESH``
FRESH = 1_000_003
#: ``GameRecord.end_reason`` of a game stopped by the round cap
CAP = "cap"


class TuneError(ValueError):
    """A bad tuning request: unknown side, a policy with nothing to tune, a mismatched
    folder."""


def side_wins(game: Game, options: RuleOptions, side: str, spec: str, games: int, seed: int,
              start: int = 0, opponents: dict[str, str] | None = None,
              progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Play games ``start .. start+games-1`` of run seed ``seed`` with every seat of ``side``
    on ``spec`` and the other sides on their defaults (or ``opponents``).

    A game of one side (1998 ISS: every seat a ``player``) puts ``spec`` in one seat, seat
    ``i % seats`` in game *i* (rotated), the side's default (or ``opponents[side]``) in the
    others, and counts a win when that seat wins.

    Returns:
        bool array of shape (games,): True where ``side`` (or the tuned seat) won.

    Raises:
        PolicyError: a bad spec.
    """
    return side_games(game, options, side, spec, games, seed, start, opponents, progress)[0]


def side_games(game: Game, options: RuleOptions, side: str, spec: str, games: int, seed: int,
               start: int = 0, opponents: dict[str, str] | None = None,
               progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`side_wins` with the games stopped by the round cap.

    Returns:
        (won, capped): bool arrays of shape (games,); ``capped`` is True where the game
        ended by the round cap (``end_reason == "cap"``, no winner).

    Raises:
        PolicyError: a bad spec.
    """
    opponents = opponents or {}
    seats = game.seats(options)
    solo = len(set(game.side_of_seat(options, k) for k in range(len(seats)))) == 1
    specs = []
    for k in range(len(seats)):
        s = game.side_of_seat(options, k)
        specs.append(policies.resolve(game, s, spec if s == side and not solo
                                      else opponents.get(s, "default")))
    mine = policies.resolve(game, side, spec)
    out = np.zeros(games, dtype=bool)
    capped = np.zeros(games, dtype=bool)
    for i in range(games):
        gi = start + i
        assigned = list(specs)
        if solo:
            assigned[gi % len(seats)] = mine
        pols = [policies.build(game, options, k, sp, functools.partial(seat_stream, seed, gi, k))
                for k, sp in enumerate(assigned)]
        rec = play(game, options, pols, rules_stream(seed, gi)).record
        out[i] = rec.winner == (seats[gi % len(seats)] if solo else side)
        capped[i] = rec.end_reason == CAP
        if progress is not None:
            progress(1)
    return out, capped


def objective_value(won: np.ndarray, capped: np.ndarray, cap_penalty: float) -> float:
    """A trial's objective: ``(wins - cap_penalty * capped games) / games`` (module
    docstring). ``won`` and ``capped`` are bool arrays of one shape; 0.0 for no games."""
    if not len(won):
        return 0.0
    return float(won.mean() - cap_penalty * capped.mean())


@dataclass
class TuneConfig:
    """What a tuning study is: recorded in ``tune.json`` (:meth:`record`); a resumed study must
    match it. ``game`` is resolved from its name at the edge."""

    game: Game
    side: str
    policy: str
    budget: int
    games_per_trial: int
    seed: int
    options: dict[str, Any] = field(default_factory=dict)
    fresh_games: int = 0
    #: side → spec of the opponents (default: each other side's default policy)
    against: dict[str, str] = field(default_factory=dict)
    #: wins a game stopped by the round cap costs in the objective (module docstring; >= 0)
    cap_penalty: float = 1.0

    @property
    def trials(self) -> int:
        return max(1, self.budget // self.games_per_trial)

    def default_folder(self) -> Path:
        """``tunes/<game>-<side>-<policy>-seed<seed>[-<option><value>…][-vs-<side>-<policy>…]``."""
        return Path("tunes") / (
            f"{self.game.name}-{self.side}-{self.policy.replace(':', '_')}-seed{self.seed}"
            + "".join(f"-{k}{v}" for k, v in self.options.items())
            + "".join(f"-vs-{k}-{v.replace(':', '_')}" for k, v in self.against.items()))

    def record(self) -> dict[str, Any]:
        """The study as ``tune.json`` holds it (the game by name)."""
        return {f.name: (self.game.name if f.name == "game" else getattr(self, f.name))
                for f in fields(self)}


@dataclass
class TuneResult:
    """The outcome: the best parameters and the before/after check on fresh seeds."""

    params: dict[str, Any]
    spec: str
    default_spec: str
    trials: int
    before: tuple[float, float, float]  # rate, low, high (Wilson 95%)
    after: tuple[float, float, float]
    diff: tuple[float, float, float]  # after - before, paired interval
    fresh_games: int
    seconds: float
    #: share of the fresh games stopped by the round cap: rate, low, high (Wilson 95%)
    capped_before: tuple[float, float, float] = (0.0, 0.0, 0.0)
    capped_after: tuple[float, float, float] = (0.0, 0.0, 0.0)


def search_space(game: Game, side: str, policy: str) -> dict[str, tuple[Any, float, float]]:
    """The tunable parameters of ``policy``: name → (default, low, high), from its
    ``param_ranges``.

    Raises:
        TuneError: the policy declares no tunable parameter.
        PolicyError: unknown policy for the side.
    """
    spec = policies.resolve(game, side, policy)
    name, _ = policies.parse_spec(spec)
    factory = policies.entries_for(game.name, side)[name].factory
    defaults = getattr(factory, "params", {})
    ranges = getattr(factory, "param_ranges", {})
    if not ranges:
        raise TuneError(f"policy {name!r} has no tunable parameters; tunable policies declare "
                        "param_ranges (see balancelab games GAME)")
    return {k: (defaults[k], float(lo), float(hi)) for k, (lo, hi) in ranges.items()}


def _spec(policy: str, params: dict[str, Any]) -> str:
    if not params:
        return policy
    return policy + ":" + ",".join(f"{k}={_fmt(v)}" for k, v in sorted(params.items()))


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def check(config: TuneConfig) -> None:
    """Refuse a bad tuning request before any game is played (the command line calls it
    before its progress bar).

    Raises:
        TuneError: an unknown side, a negative cap penalty, an ``against`` side that is not
            another side, or a policy with nothing to tune.
        ValueError: a bad rule option, policy or preset (their own one-line errors).
    """
    _prepare(config)


def _prepare(config: TuneConfig) -> tuple[
        Game, RuleOptions, dict[str, str], str, str, dict[str, Any],
        dict[str, tuple[Any, float, float]]]:
    """The checked request: (game, rule options, the other sides' policy specs, the policy's
    full spec and name, its starting values (a preset expanded), the parameters to tune with
    their (default, low, high))."""
    game = config.game
    if config.side not in game.sides:
        raise TuneError(f"unknown side {config.side!r} for {game.name!r}; valid: "
                        f"{', '.join(game.sides)}")
    if not 0.0 <= config.cap_penalty < float("inf"):
        raise TuneError(f"the cap penalty must be a number >= 0; got {config.cap_penalty!r}")
    options = game.options_type.from_strings({k: str(v) for k, v in config.options.items()})
    for s in config.against:
        if s not in game.sides or (s == config.side and len(game.sides) > 1):
            raise TuneError(f"--against names a side to play against: one of "
                            f"{', '.join(x for x in game.sides if x != config.side)}; got {s!r}")
    against = {s: policies.resolve(game, s, sp) for s, sp in config.against.items()}
    base_spec = policies.resolve(game, config.side, config.policy)
    name, fixed = policies.parse_spec(base_spec)
    start = dict(fixed)  # the starting point: the spec's values (a preset expanded)
    if policies.PRESET_KEY in start:
        from balancelab.policies.presets import preset_params

        start = {**preset_params(game.name, name, str(start.pop(policies.PRESET_KEY))),
                 **start}
    return (game, options, against, base_spec, name, start,
            search_space(game, config.side, name))


def tune(config: TuneConfig, folder: Path, *,
         progress: Callable[[int, int], None] | None = None) -> TuneResult:
    """Run (or resume) a tuning study in ``folder`` and check its winner on fresh seeds.

    Args:
        config: the study.
        folder: holds ``tune.json`` and ``study.sqlite3`` (optuna RDB storage).
        progress: called with (games played, games planned) as games finish.

    Returns:
        The :class:`TuneResult` (also written to ``folder/result.json``).

    Raises:
        TuneError: the folder holds a different study; a bad side or policy.
    """
    import optuna

    t0 = time.perf_counter()
    game, options, against, base_spec, name, start, tuned = _prepare(config)
    first = {k: (start[k] if k in start else v[0]) for k, v in tuned.items()}
    space = tuned
    fixed = {k: v for k, v in start.items() if k not in tuned}
    folder.mkdir(parents=True, exist_ok=True)
    cfg_path = folder / "tune.json"
    if cfg_path.exists():
        old = json.loads(cfg_path.read_text())
        old.setdefault("cap_penalty", 0.0)  # a study from before the penalty had none
        if old != config.record():
            raise TuneError(f"{folder} holds another tuning study ({old}); use another --out "
                            "or the same arguments")
    else:
        cfg_path.write_text(json.dumps(config.record(), indent=1))
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{folder / 'study.sqlite3'}"
    study = optuna.create_study(
        study_name="tune", storage=storage, direction="maximize", load_if_exists=True,
        sampler=optuna.samplers.TPESampler(seed=config.seed, n_startup_trials=8),
    )
    n = config.games_per_trial
    total = config.trials * n + 2 * config.fresh_games
    done_trials = [t for t in study.trials if t.state == optuna.trial.TrialState.COMPLETE]
    played = len(done_trials) * n
    if progress:
        progress(played, total)
    if not done_trials:  # the first trial is the policy's own defaults
        study.enqueue_trial(first, skip_if_exists=True)

    def tick(k: int) -> None:
        nonlocal played
        played += k
        if progress and played % 25 == 0:
            progress(played, total)

    def objective(trial: Any) -> float:
        params = dict(fixed)
        for k, (default, lo, hi) in space.items():
            if isinstance(default, int) and not isinstance(default, bool):
                params[k] = trial.suggest_int(k, int(lo), int(hi))
            else:
                params[k] = trial.suggest_float(k, lo, hi)
        won, capped = side_games(game, options, config.side, _spec(name, params), n,
                                 config.seed, opponents=against, progress=tick)
        trial.set_user_attr("win_rate", float(won.mean()))
        trial.set_user_attr("capped", float(capped.mean()))
        return objective_value(won, capped, config.cap_penalty)

    for _ in range(config.trials - len(done_trials)):
        study.optimize(objective, n_trials=1)
        if progress:
            progress(played, total)
    best = study.best_trial
    spec = _spec(name, {**fixed, **{k: best.params[k] for k in space}})
    params = policies.parse_spec(spec)[1]  # the values as played (rounded in the spec)
    fresh = config.seed + FRESH
    m = config.fresh_games
    a, a_cap = side_games(game, options, config.side, base_spec, m, fresh, opponents=against,
                          progress=tick)
    b, b_cap = side_games(game, options, config.side, spec, m, fresh, opponents=against,
                          progress=tick)
    if progress:
        progress(total, total)
    from balancelab.analysis.stats import diff_paired, wilson

    def rate(x: np.ndarray) -> tuple[float, float, float]:
        lo, hi = wilson(int(x.sum()), len(x))
        return float(x.mean()), float(lo), float(hi)

    d = diff_paired(a, b)
    result = TuneResult(params, spec, base_spec, len(study.trials), rate(a), rate(b),
                        (d.diff, d.lo, d.hi), m, time.perf_counter() - t0, rate(a_cap),
                        rate(b_cap))
    (folder / "result.json").write_text(json.dumps(asdict(result), indent=1))
    return result


def describe(config: TuneConfig, result: TuneResult) -> list[str]:
    """The result in words, for the terminal."""
    b, a, d = result.before, result.after, result.diff
    where = ", ".join(f"{k}={v}" for k, v in config.options.items()) or "the default setting"
    vs = ", ".join(f"{s}={sp}" for s, sp in config.against.items()) or "the defaults"
    lines = [
        f"{config.game.name} {config.side} ({where}), {result.trials} trials of "
        f"{config.games_per_trial} games against {vs}, seed {config.seed}:",
        f"  tuned: {result.spec}",
        f"  win rate on {result.fresh_games} fresh games: {_pct(b)} with {result.default_spec}"
        f" -> {_pct(a)} tuned; change {d[0]:+.1%} [{d[1]:+.1%}, {d[2]:+.1%}] (paired 95%)",
    ]
    cb, ca = result.capped_before, result.capped_after
    if cb[0] or ca[0]:
        lines.append(f"  games stopped by the round cap: {_pct(cb)} -> {_pct(ca)} (each cost "
                     f"{config.cap_penalty:g} win(s) in the search's objective)")
    return lines


def _pct(r: Sequence[float]) -> str:
    return f"{r[0]:.1%} [{r[1]:.1%}, {r[2]:.1%}]"
