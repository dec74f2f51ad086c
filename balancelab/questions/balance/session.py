"""One balance run (:class:`Session`): its configuration and folder, the settings it plays
(resumably, on common seeds), the bisection or optuna search and the confirmation."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeAlias

import polars as pl
from scipy import stats as sps

from balancelab import analysis
from balancelab.questions.balance.knobs import (
    BATCH,
    CONFIRM_BEST,
    CONFIRM_MAX,
    CONFIRM_SEED_OFFSET,
    LEVEL,
    MANIFEST,
    PRECISION,
    SEARCH_LOOKS,
    TRIALS,
    BalanceError,
    Interrupted,
    Knob,
    Target,
    Unreachable,
    parse_knob,
    parse_target,
)
from balancelab.questions.balance.measure import Measured, Point, jsonable, measure
from balancelab.reports import formatting, page
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.simulate import runs
from balancelab.simulate.core import Game
from balancelab.simulate.options import format_value
from balancelab.simulate.runs.plan import MAX_SPLIT


@dataclass
class BalanceConfig:
    """Everything that fixes a balance run's answer (``game`` resolved from its name at the
    edge; its name and rules version are what the run records)."""

    game: Game
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

    @classmethod
    def from_text(cls, game: Game, values: dict[str, Any], knobs: list[str], target: str,
                  **settings: Any) -> BalanceConfig:
        """The question as the command line gives it: fixed rule options as given
        (``{"crew": "3"}``), knobs (``["limit_lif=7..14"]``, :func:`parse_knob`) and a target
        (``"crew=0.5"``, :func:`parse_target`); ``settings`` are the other fields
        (``policies``, ``seed``, ``precision``…).

        Raises:
            BalanceError: a bad knob or target, a knob given twice or also held fixed.
            OptionError: a bad rule option.
        """
        base = game.options_type.from_strings(values)
        parsed = [parse_knob(game.options_type, base, k) for k in knobs]
        names = [k.name for k in parsed]
        if len(set(names)) < len(names):
            raise BalanceError("a knob is given twice")
        fixed = {k.replace("-", "_") for k in values}
        clash = sorted(fixed & set(names))
        if clash:
            raise BalanceError(f"{clash[0]} is given both as a --knob and as a fixed option")
        held = base.changed() | {k: v for k, v in base.as_dict().items() if k in fixed}
        return cls(game, held, parsed, parse_target(game, base, target), **settings)

    def identity(self) -> str:
        d = {
            "game": self.game.name, "version": self.game.version,
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
        return Path("runs") / f"balance-{self.game.name}{ctx}-{knobs}-{tgt}-seed{self.seed}"


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
    report: page.ReportPaths | None = None
    unreachable: bool = False


#: progress(setting label, games done, games planned) for the current setting.
Progress: TypeAlias = Callable[[str, int, int], None]


class Session:
    """One balance run: plays settings (resumably) and records every point."""

    def __init__(self, cfg: BalanceConfig, path: Path, *, jobs: int, backend: str,
                 progress: Progress | None, force: bool) -> None:
        self.cfg = cfg
        self.path = Path(path)
        self.jobs, self.backend, self.progress = jobs, backend, progress
        self.game = cfg.game
        self.base = self.game.options_type.from_strings(cfg.base)
        self.chunk = cfg.chunk or max(1, self.game.chunk_games // MAX_SPLIT)
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
            "kind": "balance", "identity": self.cfg.identity(), "game": self.cfg.game.name,
            "game_version": self.game.version, "question": self.question(),
            "base": {k: format_value(v) for k, v in self.cfg.base.items()},
            "knobs": [{"name": k.name, "values": [jsonable(v) for v in k.values],
                       "default": jsonable(k.default), "source": k.source}
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
        g = self.cfg.game.name
        knobs = " and ".join(f"{W.words(g, k.name)} ({format_value(k.values[0])} to "
                             f"{format_value(k.values[-1])})" for k in self.cfg.knobs)
        return f"{self.game.title}: which {knobs} gives {self.target_words()}?"

    def target_words(self) -> str:
        """The target in words: ``the crew a 50.0% win rate``, ``equal seats``, ``a mean
        turns of 40``."""
        t, g = self.cfg.target, self.cfg.game.name
        if t.kind == "rate":
            return f"{hooks.word(g, t.name)} a {formatting.pct(t.value)} win rate"
        if t.kind == "mean":
            return f"a mean {W.words(g, t.name)} of {t.value:g}"
        return "equal seats"

    def setting_words(self, setting: dict[str, Any]) -> str:
        """A setting in words (``3 tasks for the Queen``), as the game's words registry
        says it."""
        return W.variant(self.cfg.game.name, self.label(setting))

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
        if (sub / runs.MANIFEST).exists():
            m = runs.read_manifest(sub)
            planned = max(n, int(m["config"]["games"]))
            if m.get("complete") and int(m["config"]["games"]) >= n:
                return self._read(sub, n)
        config = runs.RunConfig(self.cfg.game.name, [opts], dict(self.cfg.policies), seed,
                                planned, chunk_games=self.chunk)
        name = f"{self.label(setting)} ({phase})"

        def tick(done: int, total: int) -> None:
            if self.progress:
                self.progress(name, done, total)

        summary = runs.run(config, sub, jobs=self.jobs, backend=self.backend, progress=tick,
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
        knobs = " and ".join(
            f"{W.words(self.cfg.game.name, k.name)} from {format_value(k.values[0])} to "
            f"{format_value(k.values[-1])}" for k in self.cfg.knobs)
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
            return (f"{hooks.word(self.cfg.game.name, t.name)} {formatting.pct(est)} "
                    f"{formatting.interval(lo, hi)}")
        if t.kind == "mean":
            return f"a mean {W.words(self.cfg.game.name, t.name)} of {est:.3g} [{lo:.3g}, {hi:.3g}]"
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
        self.save(complete=True, recommended={k: jsonable(v) for k, v in best.setting.items()},
                  headline=headline, wall_seconds=round(time.perf_counter() - self.t0, 2))
        games = games_in(self.path / "search") + games_in(self.path / "confirm")
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
        tag = (f" (what-if: {', '.join(W.words(self.cfg.game.name, k) for k in whatif)} is not "
               "in the rulebook)" if whatif else "")
        default_label = self.setting_words(base_pt.setting)
        ctx = W.variant(self.cfg.game.name, ctx) if ctx else ""
        first = (f"{self.setting_words(best.setting)} gives {self.said(best)}"
                 f"{' at ' + ctx if ctx else ''}; the rulebook ({default_label}) gives "
                 f"{self.said(base_pt)}{tag}.")
        inside = self.reaches(best)
        goal = ("0 (equal seats)" if t.kind == "equal" else
                formatting.pct(t.value) if t.kind == "rate" else f"{t.value:g}")
        lines = [first,
                 f"The target {goal} lies {'inside' if inside else 'OUTSIDE'} its 95% interval "
                 f"({best.n:,} games on fresh seeds, interval within ±{self.tol_words()}"
                 f"{'' if not best.note else '; ' + best.note}).",
                 ]
        jump = self.jump_lines(confirmed)
        if jump:
            lines += jump  # the neighbours in words, and what to add
        elif len(self.cfg.knobs) == 1 and len(confirmed) == 2:
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
                f"{W.contender(self.cfg.game.name, s, n_seats)} {formatting.pct(best.detail[s])}"
                for s in seats) + " (a shared first place "
                "split between the seats that share it).")
        return [*lines, self.next_command(best.setting)]

    def jump_lines(self, confirmed: list[Point]) -> list[str]:
        """For one whole-number knob whose two neighbouring settings both miss the target by
        more than the precision: the jump in words and the other whole-number options that
        could be added as a second knob (``[]`` otherwise)."""
        knob = self.cfg.knobs[0]
        if len(self.cfg.knobs) != 1 or len(confirmed) != 2 or self.cfg.target.kind == "equal" \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in knob.values):
            return []
        t, tol = self.cfg.target, self.cfg.target.tolerance(self.cfg.precision)
        if any(abs(p.metric - t.value) <= tol for p in confirmed):
            return []
        a, b = sorted(confirmed, key=lambda p: p.setting[knob.name])
        goal = formatting.pct(t.value) if t.kind == "rate" else f"{t.value:g}"
        lines = [f"The knob jumps between neighbours: {self.setting_words(a.setting)} gives "
                 f"{self.said(a)}, "
                 f"{self.setting_words(b.setting)} gives {self.said(b)}: no whole setting is "
                 f"within ±{self.tol_words()} of {goal}."]
        others = self.second_knobs()
        if others:
            g = self.cfg.game.name
            lines.append("A second knob can close the gap: add --knob with one of " + ", ".join(
                f"{o} ({W.words(g, o)}, rulebook {format_value(v)})" for o, v in others[:6])
                + (f" and {len(others) - 6} more (balancelab games {g} lists them)"
                   if len(others) > 6 else "") + ".")
        return lines

    def second_knobs(self) -> list[tuple[str, int]]:
        """The game's whole-number rule options that are neither this run's knobs nor held
        fixed nor key options (the setting itself): ``[(name, rulebook value), ...]``."""
        used = {k.name for k in self.cfg.knobs} | set(self.cfg.base)
        out = []
        for f in dataclasses.fields(self.base):
            v = f.default
            if f.name in used or f.metadata.get("key") or isinstance(v, bool) \
                    or not isinstance(v, int):
                continue
            out.append((f.name, v))
        return out

    def next_command(self, setting: dict[str, Any]) -> str:
        """The command that asks which assumptions move ``setting`` (``balancelab sensitivity
        … --at OPTION=V``, the fixed options and policies kept)."""
        parts = ["balancelab sensitivity", self.cfg.game.name]
        parts += [f"--at {k}={format_value(v)}" for k, v in setting.items()]
        parts += [f"--set {k}={format_value(v)}" for k, v in self.cfg.base.items()
                  if k not in setting]
        parts += [f"--policy {k}={v}" for k, v in self.cfg.policies.items()]
        return "Next, which assumptions move this setting: " + " ".join(parts)


def _sd_of(p: Point, target: Target) -> float:
    if target.kind == "rate":
        return math.sqrt(max(p.metric * (1 - p.metric), 0.01 * 0.99))
    z = float(sps.t.ppf(0.5 + LEVEL / 2, max(p.n - 1, 1)))
    # the search statistic's interval is a plain 95% one (the largest seat gap's is widened)
    return max((p.hi - p.lo) / 2 / z * math.sqrt(p.n), 1e-6)


def games_in(folder: Path) -> int:
    if not folder.is_dir():
        return 0
    total = 0
    for sub in folder.iterdir():
        if (sub / runs.MANIFEST).exists():
            total += int(runs.read_manifest(sub).get("games_written", 0))
    return total

