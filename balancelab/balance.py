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

import dataclasses
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import polars as pl
from scipy import stats as sps

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import plots, render
from balancelab.reports import words as W
from balancelab.simulate import runner
from balancelab.simulate.options import OptionError, RuleOptions, format_value, parse_value

MANIFEST = "balance.json"
#: Run seed of the confirmation games = the search seed + this (fresh seeds, never searched).
CONFIRM_SEED_OFFSET = 1_000_003
#: Default precision: ±1.5 percentage points (win-rate units).
PRECISION = 0.015
#: Search games per look at a setting (the first batch), and per optuna trial.
BATCH = 400
#: Looks at one setting during the bisection (batch, 2×batch, 4×batch, ...).
SEARCH_LOOKS = 4
#: Most confirmation games per setting.
CONFIRM_MAX = 200_000
#: Settings confirmed after a several-knob search.
CONFIRM_BEST = 3
#: Trials of a several-knob search.
TRIALS = 24
#: Points of a float knob's ``lo..hi`` grid.
FLOAT_GRID = 11
LEVEL = 0.95


class BalanceError(ValueError):
    """Bad knob or target, or a balance folder that holds another question."""


class Unreachable(BalanceError):  # noqa: N818 - it is a finding, worded for the designer
    """No setting in the knob's range reaches the target (the message names the closest)."""


class Interrupted(RuntimeError):  # noqa: N818
    """Ctrl-C: the finished chunks are kept; the same command continues."""


# -- knobs and targets -------------------------------------------------------------------------


@dataclass(frozen=True)
class Knob:
    """An ordered rule option and the settings to search.

    Attributes:
        name: the option's name.
        values: the settings, in order (ints, floats, bools or strings).
        default: the rulebook's (or the assumed) default.
        source: the option's source (``rulebook: …``, ``assumed: …``, ``what-if: …``).
    """

    name: str
    values: tuple[Any, ...]
    default: Any
    source: str

    @property
    def what_if(self) -> bool:
        return self.source.startswith("what-if")

    def label(self, v: Any) -> str:
        return f"{self.name}={format_value(v)}"

    @property
    def spec(self) -> str:
        """The settings as typed: ``lo..hi`` for a run of consecutive integers, else a list."""
        v = self.values
        if len(v) > 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in v) and \
                list(v) == list(range(v[0], v[-1] + 1)):
            return f"{self.name}={v[0]}..{v[-1]}"
        return f"{self.name}={','.join(format_value(x) for x in v)}"

    def distance(self, v: Any) -> float:
        """How far ``v`` is from the rulebook's setting, in steps of this knob's range."""
        if v == self.default:
            return 0.0
        if _numeric(v) and _numeric(self.default):
            step = _step(self.values)
            return abs(float(v) - float(self.default)) / step
        if self.default in self.values:
            return float(abs(self.values.index(v) - self.values.index(self.default)))
        return float(len(self.values))


def _numeric(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _step(values: Sequence[Any]) -> float:
    nums = sorted(float(x) for x in values)
    gaps = [b - a for a, b in zip(nums, nums[1:], strict=False) if b > a]
    return min(gaps) if gaps else 1.0


def parse_knob(options_type: type[RuleOptions], base: RuleOptions, text: str) -> Knob:
    """``limit_lif=7..14`` or ``crew_talk=none,logic,open`` → a :class:`Knob`.

    Raises:
        BalanceError: no ``=``, an unknown option, an option that is neither numeric nor
            ordered, a reversed or empty range, or a value outside the option's allowed ones.
    """
    name, eq, spec = text.partition("=")
    name = name.strip().replace("-", "_")
    spec = spec.strip()
    if not eq or not name or not spec:
        raise BalanceError(f"--knob takes OPTION=LO..HI or OPTION=V1,V2,…; got {text!r}")
    fields = {f.name: f for f in dataclasses.fields(options_type)}
    if name not in fields:
        try:
            options_type.from_strings({name: "0"})
        except OptionError as exc:
            raise BalanceError(f"unknown knob: {exc}") from None
    f = fields[name]
    default = f.default
    choices = f.metadata.get("choices")
    ordered = isinstance(default, (int, float)) or choices is not None
    if isinstance(default, tuple) or not ordered:
        raise BalanceError(
            f"knob {name!r} is not numeric or ordered (its values are "
            f"{'lists' if isinstance(default, tuple) else 'free text'}); a knob is a number "
            "option (e.g. limit_lif=7..14) or one with a list of allowed values")
    values: list[Any]
    if ".." in spec:
        lo_s, _, hi_s = spec.partition("..")
        try:
            lo, hi = parse_value(options_type.GAME, f, lo_s), parse_value(options_type.GAME, f,
                                                                           hi_s)
        except OptionError as exc:
            raise BalanceError(f"--knob {text}: {exc}") from None
        if isinstance(lo, bool) or not _numeric(lo):
            if choices is None:
                raise BalanceError(f"--knob {text}: a range needs numbers")
            i, j = list(choices).index(lo), list(choices).index(hi)
            values = list(choices[i:j + 1])
        elif isinstance(default, float):
            values = [float(x) for x in np.linspace(float(lo), float(hi), FLOAT_GRID)]
        else:
            values = list(range(int(lo), int(hi) + 1))
        if not values or lo > hi:
            raise BalanceError(f"--knob {text}: the range is empty (low above high)")
    else:
        try:
            values = [parse_value(options_type.GAME, f, p) for p in spec.split(",") if p.strip()]
        except OptionError as exc:
            raise BalanceError(f"--knob {text}: {exc}") from None
        if len(set(values)) < len(values):
            raise BalanceError(f"--knob {text}: a value is given twice")
    for v in values:
        try:
            base.replace(**{name: v})
        except OptionError as exc:
            raise BalanceError(f"--knob {text} goes outside the allowed values: {exc}") from None
    return Knob(name, tuple(values), default, str(f.metadata.get("source", "")))


@dataclass(frozen=True)
class Target:
    """What a setting should reach.

    Attributes:
        kind: ``"rate"`` (a contender's win rate), ``"equal"`` (seats=equal) or ``"mean"``.
        name: the contender, ``"seats"``, or the measure.
        value: the target value (a rate in [0, 1], 0 for equal seats, a measure's mean).
        text: as the user wrote it.
    """

    kind: str
    name: str
    value: float
    text: str

    def tolerance(self, precision: float) -> float:
        """The half-width the confirmation must reach: ``precision`` for rates and gaps, a
        fraction ``precision`` of the target for a mean."""
        if self.kind == "mean" and self.value != 0:
            return precision * abs(self.value)
        return precision


def parse_target(game: Any, options: RuleOptions, text: str) -> Target:
    """``crew=0.5``, ``seat0=25%``, ``seats=equal`` or ``turns=40`` → a :class:`Target`.

    Raises:
        BalanceError: no ``=``, an unknown side, seat or measure (the message lists the valid
            ones), a rate outside [0, 1], or ``seats=equal`` for a team game.
    """
    name, eq, val = text.partition("=")
    name, val = name.strip(), val.strip()
    if not eq or not name or not val:
        raise BalanceError(f"--target takes SIDE=RATE, seats=equal or MEASURE=VALUE; got "
                           f"{text!r}")
    seats = list(game.seats(options))
    team = len(game.sides) > 1
    contenders = list(game.sides) if team else seats
    measures = ["rounds", "decisions", *game.measure_schema]
    if name == "seats":
        if val != "equal":
            raise BalanceError(f"--target seats takes 'equal'; got {text!r}")
        if team:
            raise BalanceError(f"seats=equal needs a game whose wins go to seats; in {game.name} "
                               f"they go to sides ({', '.join(game.sides)}): target a side's "
                               "rate, e.g. " + f"{game.sides[-1]}=0.5")
        if len(seats) < 2:
            raise BalanceError("seats=equal needs at least two seats")
        return Target("equal", "seats", 0.0, text)
    try:
        x = float(val[:-1]) / 100 if val.endswith("%") else float(val)
    except ValueError:
        raise BalanceError(f"--target {name} takes a number; got {val!r}") from None
    if name in contenders:
        if not 0.0 <= x <= 1.0:
            raise BalanceError(f"--target {text}: a win rate is in [0, 1] (or 0%..100%)")
        return Target("rate", name, x, text)
    if name in measures:
        return Target("mean", name, x, text)
    raise BalanceError(f"unknown target {name!r}; valid: {', '.join(contenders)} (win rate), "
                       + ("seats=equal, " if not team else "")
                       + f"or a measure's mean: {', '.join(measures)}")


# -- measuring a setting ---------------------------------------------------------------------


@dataclass
class Estimate:
    """A statistic's estimate on ``n`` games, with its interval at ``LEVEL``."""

    n: int
    est: float
    lo: float
    hi: float
    sd: float

    @property
    def half(self) -> float:
        return (self.hi - self.lo) / 2


def _mean_interval(x: np.ndarray, level: float) -> Estimate:
    n = int(x.size)
    m = float(x.mean()) if n else float("nan")
    sd = float(x.std(ddof=1)) if n > 1 else 0.0
    t = float(sps.t.ppf(0.5 + level / 2, max(n - 1, 1)))
    h = t * sd / math.sqrt(max(n, 1))
    return Estimate(n, m, m - h, m + h, sd)


def estimate_of(x: np.ndarray, binary: bool, level: float = LEVEL) -> Estimate:
    """Mean of per-game values ``x`` with a Wilson (``binary``) or t interval."""
    n = int(x.size)
    if binary:
        k = int(round(float(x.sum())))
        lo, hi = stats.wilson(k, n, level)
        p = k / n if n else float("nan")
        return Estimate(n, p, float(lo), float(hi), math.sqrt(max(p * (1 - p), 0.0)))
    return _mean_interval(x, level)


def seat_shares(df: pl.DataFrame) -> tuple[list[str], np.ndarray]:
    """Each seat's share of each game's win: 1 for the winner, 1/k to each of k seats sharing
    first place, 0 otherwise (capped games: 0).

    Returns:
        (seat names, float array games × seats in game order).
    """
    rows = analysis.contender_rows(df)
    seats = (rows.select("seat", "contender").unique().sort("seat")
             .get_column("contender").to_list())
    k = rows.group_by("variant", "game_index").agg(
        (pl.col("draw") & ~pl.col("capped")).sum().alias("_k"))
    rows = rows.join(k, on=["variant", "game_index"], how="left").with_columns(
        pl.when(pl.col("win")).then(1.0)
        .when(pl.col("draw") & ~pl.col("capped") & (pl.col("_k") > 0))
        .then(1.0 / pl.col("_k").cast(pl.Float64)).otherwise(0.0).alias("share"))
    wide = rows.pivot(on="contender", index="game_index", values="share",
                      aggregate_function="first").sort("game_index")
    return seats, wide.select(seats).to_numpy().astype(float)


@dataclass
class Measured:
    """What one setting's games say about the target.

    ``stat`` is the search statistic (the rate, the mean, or for seats=equal the start
    player's share minus the last seat's, which seat compensation moves monotonically);
    ``metric`` is what the answer reports (the rate, the mean, or the largest seat gap).
    """

    stat: Estimate
    metric: Estimate
    detail: dict[str, float] = field(default_factory=dict)


def measure(df: pl.DataFrame, target: Target, level: float = LEVEL) -> Measured:
    """The target's statistics on a games frame (one setting, games in order).

    Raises:
        BalanceError: the frame lacks the target's contender or measure.
    """
    if target.kind == "rate":
        rows = analysis.contender_rows(df).filter(pl.col("contender") == target.name)
        if rows.height == 0:
            raise BalanceError(f"no side or seat {target.name!r} in these games")
        x = rows.sort("game_index").get_column("win").cast(pl.Float64).to_numpy()
        e = estimate_of(x, True, level)
        return Measured(e, e)
    if target.kind == "mean":
        if target.name not in df.columns:
            raise BalanceError(f"these games have no measure {target.name!r}")
        col = df.sort("game_index").get_column(target.name).cast(pl.Float64).drop_nulls()
        e = estimate_of(col.to_numpy(), False, level)
        return Measured(e, e)
    names, sh = seat_shares(df)
    means = sh.mean(axis=0)
    signed = estimate_of(sh[:, 0] - sh[:, -1], False, level)
    i, j = int(np.argmax(means)), int(np.argmin(means))
    pairs = len(names) * (len(names) - 1) / 2
    gap = estimate_of(sh[:, i] - sh[:, j], False, 1 - (1 - level) / max(pairs, 1.0))
    detail = {n: float(m) for n, m in zip(names, means, strict=True)}
    detail["_hi_seat"], detail["_lo_seat"] = float(i), float(j)
    return Measured(signed, gap, detail)


# -- the balance run ---------------------------------------------------------------------------


@dataclass
class Point:
    """One setting measured on the search or the confirmation seeds."""

    setting: dict[str, Any]
    phase: str  # "search", "confirm"
    n: int
    est: float
    lo: float
    hi: float
    metric: float
    metric_lo: float
    metric_hi: float
    note: str = ""
    detail: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["setting"] = {k: _jsonable(v) for k, v in self.setting.items()}
        return d


def _jsonable(v: Any) -> Any:
    return v.item() if isinstance(v, np.generic) else v


@dataclass
class BalanceConfig:
    """Everything that fixes a balance run's answer."""

    game: str
    base: dict[str, Any]
    knobs: list[Knob]
    target: Target
    policies: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    precision: float = PRECISION
    batch: int = BATCH
    trials: int = TRIALS
    confirm: int = CONFIRM_BEST
    max_games: int = CONFIRM_MAX
    #: games per chunk of every run (default: the game's ``chunk_games`` / 8)
    chunk: int | None = None

    def identity(self) -> str:
        g = runner.get_game(self.game)
        d = {
            "game": self.game, "version": g.version,
            "base": {k: format_value(v) for k, v in sorted(self.base.items())},
            "knobs": [[k.name, [format_value(v) for v in k.values]] for k in self.knobs],
            "target": self.target.text, "policies": dict(sorted(self.policies.items())),
            "seed": self.seed, "precision": self.precision, "batch": self.batch,
            "trials": self.trials if len(self.knobs) > 1 else 0,
            "confirm": self.confirm if len(self.knobs) > 1 else 0,
            "max_games": self.max_games, "chunk": self.chunk,
        }
        return hashlib.sha1(json.dumps(d, sort_keys=True).encode()).hexdigest()[:8]

    def default_folder(self) -> Path:
        knobs = "-".join(k.name for k in self.knobs)
        ctx = "".join(f"-{k}{format_value(v)}" for k, v in sorted(self.base.items())
                      if k not in {kb.name for kb in self.knobs})
        tgt = _slug(self.target.text)
        return Path("runs") / f"balance-{self.game}{ctx}-{knobs}-{tgt}-seed{self.seed}"


def _slug(text: str) -> str:
    import re

    text = text.replace("=", "-").replace("%", "pct")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "x"


@dataclass
class BalanceResult:
    """What :func:`balance` found and wrote."""

    path: Path
    headline: list[str]
    recommended: dict[str, Any] | None
    points: list[Point]
    games: int
    report: render.ReportPaths | None = None
    unreachable: bool = False


#: progress(setting label, games done, games planned) for the current setting.
Progress: TypeAlias = Callable[[str, int, int], None]


class _Session:
    """One balance run: plays settings (resumably) and records every point."""

    def __init__(self, cfg: BalanceConfig, path: Path, *, jobs: int, backend: str,
                 progress: Progress | None, force: bool) -> None:
        self.cfg = cfg
        self.path = Path(path)
        self.jobs, self.backend, self.progress = jobs, backend, progress
        self.game = runner.get_game(cfg.game)
        self.base = self.game.options_type.from_strings(cfg.base)
        self.chunk = cfg.chunk or max(1, self.game.chunk_games // runner.MAX_SPLIT)
        self.points: list[Point] = []
        self.games_played = 0
        self.t0 = time.perf_counter()
        self._prepare(force)

    # -- folder and manifest -----------------------------------------------------------------
    def _prepare(self, force: bool) -> None:
        mf = self.path / MANIFEST
        if self.path.exists() and not mf.exists() and any(self.path.iterdir()):
            raise BalanceError(f"{str(self.path)!r} exists and is not a balance run; choose "
                               "another --out")
        if mf.exists():
            old = json.loads(mf.read_text())
            if force:
                shutil.rmtree(self.path)
            elif old.get("identity") != self.cfg.identity():
                raise BalanceError(
                    f"{str(self.path)!r} holds another balance run ({old.get('question')}); "
                    "choose another --out or pass --force to replace it")
        self.path.mkdir(parents=True, exist_ok=True)
        self.facts: dict[str, Any] = {
            "kind": "balance", "identity": self.cfg.identity(), "game": self.cfg.game,
            "game_version": self.game.version, "question": self.question(),
            "base": {k: format_value(v) for k, v in self.cfg.base.items()},
            "knobs": [{"name": k.name, "values": [_jsonable(v) for v in k.values],
                       "default": _jsonable(k.default), "source": k.source}
                      for k in self.cfg.knobs],
            "target": self.cfg.target.text, "policies": self.cfg.policies,
            "seed": self.cfg.seed, "confirm_seed": self.cfg.seed + CONFIRM_SEED_OFFSET,
            "precision": self.cfg.precision, "batch": self.cfg.batch,
            "method": "bisection" if len(self.cfg.knobs) == 1 else "optuna TPE",
            "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "complete": False,
        }
        self.save()

    def question(self) -> str:
        """The question in words: ``2001: A Space Odyssey: which limit of LIF (7 to 14) gives
        the crew a 50.0% win rate?``."""
        g = self.cfg.game
        knobs = " and ".join(f"{W.words(g, k.name)} ({format_value(k.values[0])} to "
                             f"{format_value(k.values[-1])})" for k in self.cfg.knobs)
        return f"{self.game.title}: which {knobs} gives {self.target_words()}?"

    def target_words(self) -> str:
        """The target in words: ``the crew a 50.0% win rate``, ``equal seats``, ``a mean
        turns of 40``."""
        t, g = self.cfg.target, self.cfg.game
        if t.kind == "rate":
            return f"{hooks.word(g, t.name)} a {render.pct(t.value)} win rate"
        if t.kind == "mean":
            return f"a mean {W.words(g, t.name)} of {t.value:g}"
        return "equal seats"

    def setting_words(self, setting: dict[str, Any]) -> str:
        """A setting in words (``3 tasks for the Queen``), as the game's words registry
        says it."""
        return W.variant(self.cfg.game, self.label(setting))

    def save(self, **extra: Any) -> None:
        self.facts.update(extra)
        self.facts["points"] = [p.to_json() for p in self.points]
        self.facts["games_played_this_session"] = self.games_played
        f = self.path / MANIFEST
        tmp = f.with_name(f.name + ".tmp")
        tmp.write_text(json.dumps(self.facts, indent=2, sort_keys=True, default=str) + "\n")
        os.replace(tmp, f)

    # -- playing -----------------------------------------------------------------------------
    def label(self, setting: dict[str, Any]) -> str:
        return ",".join(f"{k}={format_value(v)}" for k, v in setting.items())

    def games(self, setting: dict[str, Any], phase: str, n: int) -> pl.DataFrame:
        """The first ``n`` games of ``setting`` on the phase's seeds (played if missing)."""
        opts = self.base.replace(**setting)
        seed = self.cfg.seed + (CONFIRM_SEED_OFFSET if phase == "confirm" else 0)
        sub = self.path / phase / _slug(self.label(setting))
        planned = n
        if (sub / runner.MANIFEST).exists():
            m = runner.read_manifest(sub)
            planned = max(n, int(m["config"]["games"]))
            if m.get("complete") and int(m["config"]["games"]) >= n:
                return self._read(sub, n)
        config = runner.RunConfig(self.cfg.game, [opts], dict(self.cfg.policies), seed, planned,
                                  chunk_games=self.chunk)
        name = f"{self.label(setting)} ({phase})"

        def tick(done: int, total: int) -> None:
            if self.progress:
                self.progress(name, done, total)

        summary = runner.run(config, sub, jobs=self.jobs, backend=self.backend, progress=tick,
                             resume=True)
        self.games_played += summary.games_played
        if summary.interrupted:
            self.save()
            raise Interrupted(f"interrupted at {name}")
        return self._read(sub, n)

    @staticmethod
    def _read(sub: Path, n: int) -> pl.DataFrame:
        df = analysis.games_frame(sub)
        return df.filter(pl.col("game_index") < n)

    def measure(self, setting: dict[str, Any], phase: str, n: int,
                level: float = LEVEL) -> Measured:
        return measure(self.games(setting, phase, n), self.cfg.target, level)

    def record(self, setting: dict[str, Any], phase: str, m: Measured, note: str = "") -> Point:
        p = Point(dict(setting), phase, m.stat.n, m.stat.est, m.stat.lo, m.stat.hi,
                  m.metric.est, m.metric.lo, m.metric.hi, note, m.detail)
        self.points.append(p)
        self.save()
        return p

    # -- search: one knob ------------------------------------------------------------------------
    def classify(self, knob: Knob, i: int, alpha: float) -> tuple[int, Point]:
        """Play setting ``i`` in doubling batches until its side of the target is clear.

        Returns:
            (side, point): side −1 below the target, +1 above (0 never: an undecided setting
            is classified by its estimate).
        """
        setting = {knob.name: knob.values[i]}
        target = self.cfg.target.value
        half_goal = self.cfg.target.tolerance(self.cfg.precision) / 2
        for look in range(SEARCH_LOOKS):
            n = self.cfg.batch * 2 ** look
            a = alpha / 2 ** (look + 1)
            df = self.games(setting, "search", n)
            m = measure(df, self.cfg.target, 1 - a)
            ci95 = measure(df, self.cfg.target)
            if m.stat.lo > target or m.stat.hi < target:
                side = 1 if m.stat.lo > target else -1
                return side, self.record(setting, "search", ci95,
                                         f"{'above' if side > 0 else 'below'} the target")
            if ci95.stat.half <= half_goal:
                break
        side = 1 if ci95.stat.est >= target else -1
        return side, self.record(setting, "search", ci95,
                                 f"close to the target ({'above' if side > 0 else 'below'})")

    def search_one(self, knob: Knob) -> list[dict[str, Any]]:
        """Noisy bisection; the candidates (the bracketing neighbours) as settings.

        Raises:
            Unreachable: both ends of the range fall on the same side of the target.
        """
        m = len(knob.values)
        if m == 1:
            return [{knob.name: knob.values[0]}]
        steps = 2 + max(0, math.ceil(math.log2(max(m - 1, 1))))
        alpha = (1 - LEVEL) / steps
        s_lo, p_lo = self.classify(knob, 0, alpha)
        s_hi, p_hi = self.classify(knob, m - 1, alpha)
        if s_lo == s_hi and "close" not in p_lo.note and "close" not in p_hi.note:
            best = min((p_lo, p_hi), key=lambda p: abs(p.est - self.cfg.target.value))
            raise Unreachable(self.unreachable_message(best))
        a, b = 0, m - 1
        while b - a > 1:
            mid = (a + b) // 2
            side, _ = self.classify(knob, mid, alpha)
            if side == s_lo:
                a = mid
            else:
                b = mid
        return [{knob.name: knob.values[a]}, {knob.name: knob.values[b]}]

    def unreachable_message(self, best: Point) -> str:
        knobs = ", ".join(k.spec for k in self.cfg.knobs)
        self.save(complete=True, unreachable=True)
        return (f"no setting of {knobs} gives {self.target_words()}: the closest found is "
                f"{self.setting_words(best.setting)}, which gives {self.said(best)} "
                f"on {best.n:,} games; widen the range or choose another knob")

    # -- search: several knobs -------------------------------------------------------------------
    def objective(self, m: Measured) -> float:
        if self.cfg.target.kind == "equal":
            return abs(m.metric.est)
        scale = abs(self.cfg.target.value) if self.cfg.target.kind == "mean" else 1.0
        return abs(m.stat.est - self.cfg.target.value) / (scale or 1.0)

    def search_many(self) -> list[dict[str, Any]]:
        """optuna TPE (seeded) proposes settings; the best ``confirm`` settings by their
        latest search estimate are returned."""
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        knobs = self.cfg.knobs
        sampler = optuna.samplers.TPESampler(seed=self.cfg.seed, n_startup_trials=min(
            8, max(2, self.cfg.trials // 3)))
        study = optuna.create_study(direction="minimize", sampler=sampler)
        played: dict[tuple[Any, ...], int] = {}
        latest: dict[tuple[Any, ...], tuple[float, dict[str, Any], bool]] = {}
        for _ in range(self.cfg.trials):
            trial = study.ask()
            idx = [trial.suggest_int(k.name, 0, len(k.values) - 1) for k in knobs]
            setting = {k.name: k.values[i] for k, i in zip(knobs, idx, strict=True)}
            key = tuple(idx)
            n = played.get(key, 0) + self.cfg.batch
            played[key] = n
            m = self.measure(setting, "search", n)
            obj = self.objective(m)
            self.record(setting, "search", m, f"trial {trial.number}")
            latest[key] = (obj, setting, self.reaches_search(m))
            study.tell(trial, obj)
        # settings whose search interval holds the target first, closest to the rulebook
        # first; then the others, closest to the target first
        self.check_bracketed()
        ranked = sorted(latest.values(), key=lambda t: (
            (0, self.distance(t[1]), t[0]) if t[2] else (1, t[0], self.distance(t[1]))))
        return [s for _, s, _ in ranked[: self.cfg.confirm]]

    def check_bracketed(self) -> None:
        """Several knobs: the target must lie within the search's range of results.

        Raises:
            Unreachable: every setting tried is clearly on the same side of the target.
        """
        t = self.cfg.target
        pts = [p for p in self.points if p.phase == "search"]
        if t.kind == "equal" or not pts:
            return
        if all(p.lo > t.value for p in pts) or all(p.hi < t.value for p in pts):
            best = min(pts, key=lambda p: abs(p.est - t.value))
            raise Unreachable(self.unreachable_message(best))

    def check_confirmed(self, confirmed: list[Point]) -> None:
        """Several knobs: no confirmed setting reaches the target, and every setting played
        (search estimates, confirmations) lies on the same side of it.

        Raises:
            Unreachable: naming the confirmed setting closest to the target.
        """
        t = self.cfg.target
        if t.kind == "equal" or any(self.reaches(p) for p in confirmed):
            return
        signs = {p.est > t.value for p in self.points}
        if len(signs) == 1:
            best = min(confirmed, key=lambda p: abs(p.metric - t.value))
            self.save(wall_seconds=round(time.perf_counter() - self.t0, 2))
            raise Unreachable(self.unreachable_message(best))

    def reaches_search(self, m: Measured) -> bool:
        t = self.cfg.target
        tol = t.tolerance(self.cfg.precision)
        if t.kind == "equal":
            return m.metric.lo <= tol
        return m.metric.lo - tol <= t.value <= m.metric.hi + tol

    def distance(self, setting: dict[str, Any]) -> float:
        return sum(k.distance(setting[k.name]) for k in self.cfg.knobs)

    # -- confirmation ----------------------------------------------------------------------------
    def confirm(self, setting: dict[str, Any], sd_hint: float | None) -> Point:
        """Play ``setting`` on the fresh seeds until its 95% interval is within ±precision."""
        tol = self.cfg.target.tolerance(self.cfg.precision)
        z = float(sps.norm.ppf(0.5 + LEVEL / 2))
        if self.cfg.target.kind == "equal":
            pairs = len(self.game.seats(self.base)) * (len(self.game.seats(self.base)) - 1) / 2
            z = float(sps.norm.ppf(1 - (1 - LEVEL) / 2 / max(pairs, 1.0)))
        sd = sd_hint if sd_hint and sd_hint > 0 else 0.5
        n = self._round(max(self.chunk, math.ceil(1.1 * (z * sd / tol) ** 2)))
        while True:
            m = self.measure(setting, "confirm", n)
            if m.metric.half <= tol or n >= self.cfg.max_games:
                note = "" if m.metric.half <= tol else (
                    f"stopped at --max-games {self.cfg.max_games:,} before ±{self.tol_words()}")
                return self.record(setting, "confirm", m, note)
            n = self._round(min(self.cfg.max_games,
                                max(int(n * 1.25), math.ceil(n * 1.1 * (m.metric.half / tol)
                                                             ** 2))))

    def _round(self, n: int) -> int:
        return min(self.cfg.max_games, -(-n // self.chunk) * self.chunk)

    def tol_words(self) -> str:
        tol = self.cfg.target.tolerance(self.cfg.precision)
        if self.cfg.target.kind == "mean":
            return f"{tol:.3g}"
        return f"{100 * tol:.3g} points"

    def words(self, est: float, lo: float, hi: float) -> str:
        t = self.cfg.target
        if t.kind == "rate":
            return (f"{hooks.word(self.cfg.game, t.name)} {render.pct(est)} "
                    f"{render.interval(lo, hi)}")
        if t.kind == "mean":
            return f"a mean {W.words(self.cfg.game, t.name)} of {est:.3g} [{lo:.3g}, {hi:.3g}]"
        return (f"a largest seat gap of {100 * est:.1f} points [{100 * lo:.1f}, "
                f"{100 * hi:.1f}]")

    def said(self, p: Point) -> str:
        """A point's answer in words (its reported metric with the interval)."""
        return self.words(p.metric, p.metric_lo, p.metric_hi)

    def run(self) -> BalanceResult:
        cfg = self.cfg
        try:
            cands = self.search_one(cfg.knobs[0]) if len(cfg.knobs) == 1 else \
                self.search_many()
        except Unreachable:
            self.save(complete=True, unreachable=True,
                      wall_seconds=round(time.perf_counter() - self.t0, 2))
            raise
        sd = {self.label(p.setting): _sd_of(p, cfg.target) for p in self.points}
        confirmed = [self.confirm(s, sd.get(self.label(s))) for s in cands]
        default = {k.name: k.default for k in cfg.knobs}
        if default not in cands:
            base_pt = self.confirm(default, sd.get(self.label(default)))
        else:
            base_pt = next(p for p in confirmed if p.setting == default)
        if len(cfg.knobs) > 1:
            self.check_confirmed(confirmed + [base_pt])
        best = self.choose(confirmed)
        headline = self.headline(best, confirmed, base_pt)
        self.save(complete=True, recommended={k: _jsonable(v) for k, v in best.setting.items()},
                  headline=headline, wall_seconds=round(time.perf_counter() - self.t0, 2))
        games = _games_in(self.path / "search") + _games_in(self.path / "confirm")
        self.save(games=games)
        return BalanceResult(self.path, headline, best.setting, self.points, games)

    def reaches(self, p: Point) -> bool:
        t = self.cfg.target
        if t.kind == "equal":
            return p.metric_lo <= 0.0
        return p.metric_lo <= t.value <= p.metric_hi

    def choose(self, confirmed: list[Point]) -> Point:
        reached = [p for p in confirmed if self.reaches(p)]
        if reached:
            return min(reached, key=lambda p: (self.distance(p.setting),
                                               abs(p.metric - self.cfg.target.value)))
        return min(confirmed, key=lambda p: (abs(p.metric - self.cfg.target.value),
                                             self.distance(p.setting)))

    def context(self) -> str:
        keys = {f.name for f in dataclasses.fields(self.base) if f.metadata.get("key")}
        knobs = {k.name for k in self.cfg.knobs}
        parts = [f"{k}={format_value(v)}" for k, v in self.base.as_dict().items()
                 if k not in knobs and (k in keys or k in self.cfg.base)]
        return ",".join(parts)

    def headline(self, best: Point, confirmed: list[Point], base_pt: Point) -> list[str]:
        t = self.cfg.target
        ctx = self.context()
        whatif = [k.name for k in self.cfg.knobs if k.what_if]
        tag = (f" (what-if: {', '.join(W.words(self.cfg.game, k) for k in whatif)} is not "
               "in the rulebook)" if whatif else "")
        default_label = self.setting_words(base_pt.setting)
        ctx = W.variant(self.cfg.game, ctx) if ctx else ""
        first = (f"{self.setting_words(best.setting)} gives {self.said(best)}"
                 f"{' at ' + ctx if ctx else ''}; the rulebook's {default_label} gives "
                 f"{self.said(base_pt)}{tag}.")
        inside = self.reaches(best)
        goal = ("0 (equal seats)" if t.kind == "equal" else
                render.pct(t.value) if t.kind == "rate" else f"{t.value:g}")
        lines = [first,
                 f"The target {goal} lies {'inside' if inside else 'OUTSIDE'} its 95% interval "
                 f"({best.n:,} games on fresh seeds, interval within ±{self.tol_words()}"
                 f"{'' if not best.note else '; ' + best.note}).",
                 ]
        if len(self.cfg.knobs) == 1 and len(confirmed) == 2:
            a, b = confirmed
            lines.append(f"Neighbouring settings bracket the target: "
                         f"{self.setting_words(a.setting)} gives {self.said(a)}, "
                         f"{self.setting_words(b.setting)} gives "
                         f"{self.said(b)}.")
        elif len(confirmed) > 1:
            others = [p for p in confirmed if p is not best]
            lines.append("Also confirmed: " + "; ".join(
                f"{self.setting_words(p.setting)} gives {self.said(p)}"
                for p in others) + ".")
        if t.kind == "equal":
            seats = [k for k in best.detail if not k.startswith("_")]
            n_seats = len(seats)
            lines.append("Seat win shares there: " + ", ".join(
                f"{W.contender(self.cfg.game, s, n_seats)} {render.pct(best.detail[s])}"
                for s in seats) + " (a shared first place "
                "split between the seats that share it).")
        return lines


def _sd_of(p: Point, target: Target) -> float:
    if target.kind == "rate":
        return math.sqrt(max(p.metric * (1 - p.metric), 0.01 * 0.99))
    z = float(sps.t.ppf(0.5 + LEVEL / 2, max(p.n - 1, 1)))
    # the search statistic's interval is a plain 95% one (the largest seat gap's is widened)
    return max((p.hi - p.lo) / 2 / z * math.sqrt(p.n), 1e-6)


def _games_in(folder: Path) -> int:
    if not folder.is_dir():
        return 0
    total = 0
    for sub in folder.iterdir():
        if (sub / runner.MANIFEST).exists():
            total += int(runner.read_manifest(sub).get("games_written", 0))
    return total


def balance(cfg: BalanceConfig, path: Path | None = None, *, jobs: int = -1,
            backend: str = "loky", progress: Progress | None = None,
            force: bool = False) -> BalanceResult:
    """Find the knob setting that reaches the target, confirm it, and write the report.

    Args:
        cfg: the question (game, fixed options, knobs, target, seeds, sizes).
        path: the balance folder (default :meth:`BalanceConfig.default_folder`).
        jobs, backend: as for :func:`balancelab.simulate.runner.run`.
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
    folder = Path(path) if path is not None else cfg.default_folder()
    s = _Session(cfg, folder, jobs=jobs, backend=backend, progress=progress, force=force)
    try:
        res = s.run()
    except Unreachable as exc:
        res = BalanceResult(folder, [str(exc)], None, s.points,
                            _games_in(folder / "search") + _games_in(folder / "confirm"),
                            unreachable=True)
        s.save(games=res.games)
        res.report = write_balance_report(s, res)
        raise
    res.report = write_balance_report(s, res)
    return res


# -- report ----------------------------------------------------------------------------------


def _fmt_setting(game: str, setting: dict[str, Any]) -> str:
    """A setting in words: ``limit of LIF 9, 3 crewmembers``."""
    return W.variant(game, ",".join(f"{k}={format_value(v)}" for k, v in setting.items()))


def response_figure(s: _Session) -> Any:
    """Rate (or mean, or seat-share difference) against the knob, with 95% intervals: search
    points (seeds ``seed``) and confirmations (fresh seeds)."""
    fig = plots._fig(7.0, 4.2)
    ax = fig.add_subplot()
    knob = s.cfg.knobs[0]
    t = s.cfg.target
    rest = s.cfg.knobs[1:]

    def xpos(v: Any) -> float:
        return float(v) if _numeric(v) else float(knob.values.index(v))

    groups: dict[str, list[Point]] = {}
    for p in s.points:
        g = _fmt_setting(s.cfg.game, {k.name: p.setting[k.name] for k in rest}) if rest else ""
        groups.setdefault(f"{p.phase}|{g}", []).append(p)
    gnames = sorted({k.split("|")[1] for k in groups})
    for key, pts in sorted(groups.items()):
        phase, g = key.split("|")
        ci = gnames.index(g)
        last: dict[Any, Point] = {}
        for p in pts:
            last[p.setting[knob.name]] = p  # the most games at each setting
        xs = np.array([xpos(v) for v in last])
        order = np.argsort(xs)
        ys = np.array([p.est for p in last.values()])[order]
        lo = np.array([p.lo for p in last.values()])[order]
        hi = np.array([p.hi for p in last.values()])[order]
        xs = xs[order] + (0.08 if phase == "confirm" else 0.0)
        lab = ("confirmed on fresh seeds" if phase == "confirm" else "search (common seeds)")
        ax.errorbar(xs, ys, yerr=[ys - lo, hi - ys], fmt="o" if phase == "confirm" else "s",
                    color=plots.COLORS[ci % len(plots.COLORS)], capsize=3,
                    label=lab + (f", {g}" if g else ""),
                    linestyle="-" if phase == "search" and not rest else "none")
    ax.axhline(t.value, color="#444", linestyle="--", linewidth=1,
               label=f"target: {s.target_words()}")
    ax.axvline(xpos(knob.default), color="#999", linestyle=":", linewidth=1,
               label=f"rulebook: {W.setting(s.cfg.game, knob.name, knob.default)}")
    if not _numeric(knob.values[0]):
        ax.set_xticks(range(len(knob.values)), [format_value(v) for v in knob.values])
    elif len(knob.values) <= 16:
        ax.set_xticks([float(v) for v in knob.values], [format_value(v) for v in knob.values])
    ax.set_xlabel(W.label(s.cfg.game, knob.name) + (" (what-if)" if knob.what_if else ""))
    if t.kind == "rate":
        plots._pct_axis(ax)
        ax.set_ylabel(f"{hooks.word(s.cfg.game, t.name)}'s win rate")
    elif t.kind == "mean":
        ax.set_ylabel(f"mean {W.words(s.cfg.game, t.name)}")
    else:
        names = s.game.seats(s.base)
        n = len(names)
        ax.set_ylabel(f"{W.contender(s.cfg.game, names[0], n)} minus "
                      f"{W.contender(s.cfg.game, names[-1], n)} win share")
        plots._pct_axis(ax)
    ax.set_title("Response curve (95% intervals)")
    ax.legend(fontsize=7, loc="best")
    return fig


def write_balance_report(s: _Session, res: BalanceResult) -> render.ReportPaths:
    t = s.cfg.target
    rows = s.points

    def fmt(p: Point, which: str) -> str:
        if which == "metric":
            e, lo, hi = p.metric, p.metric_lo, p.metric_hi
        else:
            e, lo, hi = p.est, p.lo, p.hi
        if t.kind == "mean":
            return f"{e:.3g} [{lo:.3g}, {hi:.3g}]"
        return f"{render.pct(e)} {render.interval(lo, hi)}"

    metric_name = ("win rate of " + hooks.word(s.cfg.game, t.name) if t.kind == "rate" else
                   f"mean {W.words(s.cfg.game, t.name)}" if t.kind == "mean" else
                   "largest seat gap")
    seats = s.game.seats(s.base)
    stat_name = metric_name if t.kind != "equal" else (
        f"{W.contender(s.cfg.game, seats[0], len(seats))} minus "
        f"{W.contender(s.cfg.game, seats[-1], len(seats))}")
    conf = [p for p in rows if p.phase == "confirm"]
    search = [p for p in rows if p.phase == "search"]
    blocks: list[str | render.Table | render.Image] = []
    if conf:
        blocks.append(render.Table("Confirmation on fresh seeds", pl.DataFrame({
            "setting": [_fmt_setting(s.cfg.game, p.setting) for p in conf],
            "games": [f"{p.n:,}" for p in conf],
            f"{metric_name} [95%]": [fmt(p, "metric") for p in conf],
            "target inside": ["yes" if s.reaches(p) else "no" for p in conf],
            "steps from the rulebook": [f"{s.distance(p.setting):g}" for p in conf],
            "note": [p.note or "–" for p in conf],
        })))
    if search:
        blocks.append(render.Table("Search (common seeds)", pl.DataFrame({
            "step": [str(i + 1) for i in range(len(search))],
            "setting": [_fmt_setting(s.cfg.game, p.setting) for p in search],
            "games": [f"{p.n:,}" for p in search],
            f"{stat_name} [95%]": [fmt(p, "stat") for p in search],
            "decision": [p.note or "–" for p in search],
        })))
    if rows:
        blocks.append(render._img("response.png", response_figure(s),
                                  "The response curve: the target's statistic against the knob, "
                                  "95% intervals; search points share seeds, confirmations "
                                  "use fresh ones."))
    method = (
        "One knob: noisy bisection on common seeds (both ends first, then the middle of the "
        "bracket, each setting in doubling batches until its interval, Bonferroni-corrected "
        "over looks and steps, excludes the target). " if len(s.cfg.knobs) == 1 else
        f"Several knobs: optuna's TPE sampler (seed {s.cfg.seed}) proposed {s.cfg.trials} "
        f"settings, each playing {s.cfg.batch:,} more games on the common search seeds; the "
        f"best {s.cfg.confirm} were confirmed. ")
    method += (f"Confirmation: fresh seeds (run seed {s.cfg.seed + CONFIRM_SEED_OFFSET}), "
               f"until the 95% interval is within ±{s.tol_words()}. Among the confirmed "
               "settings whose interval holds the target, the one closest to the rulebook is "
               "recommended.")
    if t.kind == "equal":
        method += (" seats=equal: the search follows the first seat's win share minus the last "
                   "seat's (shared wins split); the answer reports the largest gap between any "
                   "two seats, its interval Bonferroni-widened over the seat pairs.")
    prov = render.Table("Provenance", pl.DataFrame({
        "item": ["question", "game", "fixed options", "policies", "search seed",
                 "confirmation seed", "games played (all sessions)", "folder"],
        "value": [s.question(), f"{s.cfg.game} (rules version {s.game.version})",
                  W.variant(s.cfg.game, s.context()) if s.context() else "defaults",
                  json.dumps(s.cfg.policies) if s.cfg.policies
                  else "defaults", str(s.cfg.seed), str(s.cfg.seed + CONFIRM_SEED_OFFSET),
                  f"{res.games:,}", str(s.path)],
    }))
    rep = render.Report(f"balancelab balance: {s.question()}", list(res.headline), [],
                        [render.Section("Settings played", blocks),
                         render.Section("Method", [method, prov])])
    return render.write(rep, s.path / "report")
