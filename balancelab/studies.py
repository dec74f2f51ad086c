"""Sweeps, comparisons and the one-command studies behind ``balancelab sweep|compare|study``.

* :func:`sweep` plays every combination of the grid options in ONE run (one variant each; the
  runner partitions by variant and plays game *i* of every variant from the same seed, so
  differences between variants are paired). It can play in rounds, extending the run
  (``runner.run(..., resume=True)``) until a stopping rule holds: ``precision`` (every
  printed 95% Wilson interval within ±E: a width-only rule, so the intervals keep their
  level), ``precision_diff`` (every change of the question within ±E at the level Holm may
  print it at) or ``decide`` (every change decided — raises, lowers or equivalent — by
  anytime-valid intervals, :func:`balancelab.analysis.verdicts.sequential_paired`). The
  rounds are recorded in ``<run>/study.json`` and shown in the report.
* :func:`plan` gives the games per setting a question needs to detect a change (``--detect``).
* :func:`compare` reports two or more runs against the first.
* :func:`run_study` runs a named study (:data:`STUDIES`) once per policy pairing, writes each
  pairing's run and report, and a study report with the verdicts side by side.

Errors are :class:`StudyError` (a RuntimeError) or ValueError with one-line messages.
"""

from __future__ import annotations

import dataclasses
import difflib
import itertools
import json
import os
import re
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import render
from balancelab.reports import words as W
from balancelab.simulate import runner
from balancelab.simulate.core import Game
from balancelab.simulate.options import RuleOptions

#: Games of the first precision round, per variant.
PRECISION_START = 1000
#: Games per variant after which a precision run stops even if the target is not reached.
PRECISION_MAX = 200_000


class StudyError(RuntimeError):
    """A study or sweep cannot run (engine missing, bad grid, bad policy pairing)."""


@dataclass(frozen=True)
class Study:
    """A named question: a game, a grid of options, and the question in words."""

    name: str
    game: str
    grid: dict[str, list[Any]]
    question: str
    base: dict[str, Any] = field(default_factory=dict)
    #: The option whose effect the question asks about: the headline compares along it only.
    focus: str | None = None
    #: Game measures whose change along ``focus`` the headline reports (mean, 95% interval).
    measures: tuple[str, ...] = ()


def study_from_mapping(data: Mapping[str, Any], where: str) -> Study:
    """A :class:`Study` from a mapping of its fields (a parsed TOML file).

    Raises:
        StudyError: an unknown key (the message names the valid ones), a missing key, or a
            value of the wrong kind; the message starts with ``where``.
    """
    fields = dataclasses.fields(Study)
    valid = [f.name for f in fields]
    for key in data:
        if key not in valid:
            close = difflib.get_close_matches(key, valid, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise StudyError(f"{where}: unknown key {key!r}{hint}; valid keys: "
                             f"{', '.join(valid)}")
    missing = [f.name for f in fields if f.name not in data
               and f.default is dataclasses.MISSING
               and f.default_factory is dataclasses.MISSING]
    if missing:
        raise StudyError(f"{where}: missing key(s) {', '.join(missing)}; a study needs "
                         "name, game, question and a [grid] table")

    def kind(key: str, ok: bool, words: str) -> None:
        if not ok:
            raise StudyError(f"{where}: {key} must be {words}; got {data[key]!r}")

    for key in ("name", "game", "question"):
        kind(key, isinstance(data[key], str) and bool(data[key].strip()), "a non-empty string")
    grid, base = data["grid"], data.get("base", {})
    kind("grid", isinstance(grid, Mapping) and bool(grid) and all(
        isinstance(v, list) and v for v in grid.values()),
        "a table of option = [values…] (each a non-empty array)")
    kind("base", isinstance(base, Mapping), "a table of option = value")
    focus = data.get("focus")
    kind("focus", focus is None or (isinstance(focus, str) and focus in grid),
         f"one of the grid's options ({', '.join(grid)})")
    measures = data.get("measures", [])
    kind("measures", isinstance(measures, list) and all(isinstance(m, str) for m in measures),
         "an array of measure names")
    return Study(name=data["name"], game=data["game"], grid=dict(grid),
                 question=data["question"], base=dict(base), focus=focus,
                 measures=tuple(measures))


def load_study(path: Path | str) -> Study:
    """The study described by a TOML file (the fields of :class:`Study`; the built-in
    studies are such files, in ``balancelab/data/studies/``).

    Raises:
        StudyError: the file cannot be read, is not TOML, or does not describe a study.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StudyError(f"cannot read the study file {str(path)!r}: "
                         f"{exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise StudyError(f"{path}: not valid TOML: {exc}") from None
    return study_from_mapping(data, str(path))


def _builtin_studies() -> dict[str, Study]:
    from importlib import resources

    folder = resources.files("balancelab") / "data" / "studies"
    found = sorted((f for f in folder.iterdir() if f.name.endswith(".toml")),
                   key=lambda f: f.name)
    out: dict[str, Study] = {}
    for f in found:
        st = study_from_mapping(tomllib.loads(f.read_text(encoding="utf-8")),
                                f"built-in study {f.name}")
        out[st.name] = st
    return out


#: The built-in studies, by name: the TOML files of ``balancelab/data/studies/``, read as
#: ``balancelab study --file`` reads a user's.
STUDIES: dict[str, Study] = _builtin_studies()


# -- helpers ---------------------------------------------------------------------------------


def load_game(name: str) -> Game:
    """The game, or a clear StudyError when its engine cannot be imported yet.

    Raises:
        StudyError: the engine module is missing or broken.
        UnknownGameError: not a game name.
    """
    from balancelab.games import get_game

    try:
        return get_game(name)
    except ImportError as exc:
        raise StudyError(
            f"the {name!r} engine is not available in this installation ({exc}); "
            f"this needs the {name} game, which is not built yet"
        ) from None


def parse_grid(items: Sequence[str]) -> dict[str, list[str]]:
    """``["crew=2,3,4", "hal_extra_turns=-1,0,1"]`` → ``{"crew": ["2","3","4"], …}``.

    Raises:
        ValueError: an item without ``=`` or without values, or an option given twice.
    """
    out: dict[str, list[str]] = {}
    for item in items:
        key, eq, vals = item.partition("=")
        key = key.strip().replace("-", "_")
        values = [v.strip() for v in vals.split(",") if v.strip()]
        if not eq or not key or not values:
            raise ValueError(f"--grid takes OPTION=V1,V2,…; got {item!r}")
        if key in out:
            raise ValueError(f"--grid option {key!r} given twice")
        out[key] = values
    return out


def grid_variants(game: Game, grid: Mapping[str, Sequence[Any]], base: dict[str, Any] | None = None
                  ) -> list[RuleOptions]:
    """Every combination of the grid (first option slowest), on top of ``base`` options.

    Raises:
        OptionError: an unknown option or a bad value (the message names the valid ones).
    """
    base = dict(base or {})
    names = list(grid)
    clash = sorted(set(names) & {k.replace("-", "_") for k in base})
    if clash:
        raise ValueError(f"option {clash[0]!r} is both fixed and in --grid")
    out = []
    for combo in itertools.product(*(grid[n] for n in names)):
        out.append(game.options_type.from_strings({**base, **dict(zip(names, combo,
                                                                       strict=True))}))
    labels = [v.label() for v in out]
    if len(set(labels)) < len(labels):
        raise ValueError("the grid repeats a variant (a value listed twice?)")
    return out


def parse_pairing(text: str, game: Game) -> dict[str, str]:
    """One policy pairing: ``"hal=random;crew=default"`` (``,`` also separates sides).

    A comma separates sides only where the next piece starts with a side or seat name and
    ``=``, so policy parameters (``search:rollouts=200,depth=40``) survive.

    Raises:
        ValueError: a piece that is not SIDE=POLICY.
    """
    names = set(game.sides)
    try:
        names |= set(game.seats(game.options_type()))
    except Exception:  # noqa: BLE001 - seat names are a convenience only
        pass
    pieces: list[str] = []
    for chunk in re.split(r"[;\s]+", text.strip()):
        for part in chunk.split(","):
            if not part:
                continue
            head = part.partition("=")[0].strip()
            if pieces and ("=" not in part or head not in names):
                pieces[-1] += "," + part
            else:
                pieces.append(part)
    out = {}
    for p in pieces:
        key, eq, spec = p.partition("=")
        if not eq or not spec.strip():
            raise ValueError(f"--policy takes SIDE=POLICY[;SIDE=POLICY…]; got {text!r}")
        out[key.strip()] = spec.strip()
    return out


def pairing_name(pairing: dict[str, str]) -> str:
    """``{"hal": "random", "crew": "default"}`` → ``crew=default;hal=random`` (``default``
    for the empty pairing)."""
    return ";".join(f"{k}={v}" for k, v in sorted(pairing.items())) or "default"


def _slug(text: str) -> str:
    """A folder name for a pairing; no ``=`` (polars would read it as a hive partition)."""
    text = text.replace("=", "-").replace(";", "_")
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-") or "default"


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


#: Growth of a ``decide`` run per round (anytime-valid: any schedule keeps it valid).
DECIDE_GROWTH = 1.5


def sweep(
    game: str,
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
) -> SweepResult:
    """Play every combination of ``grid`` in one run (paired across variants by seed).

    Args:
        game: game name.
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
        decide: extend until every change of the question is decided by anytime-valid
            intervals (raises, lowers or equivalent within ±margin).
        focus, pairs, margin: the question (see
            :func:`balancelab.analysis.compare_variants`), recorded for the report.
        max_games: the most games per variant a growing run may play (default
            :data:`PRECISION_MAX`); only with a stopping rule.
        jobs, backend, rotate, chunk_games, force, resume: as for :func:`runner.run`.
        progress: called with (games written, total) after each chunk.
        study: extra facts recorded in ``<run>/study.json``.

    Returns:
        A :class:`SweepResult`.

    Raises:
        StudyError: the engine is missing, two stopping rules, or ``max_games`` without a
            stopping rule or below ``games``. OptionError / PolicyError / RunError / ValueError:
            bad input.
    """
    rule = _rule(precision, precision_diff, decide)
    cap = check_sizes(games, precision, max_games, precision_diff, decide)
    g = load_game(game)
    variants = grid_variants(g, grid, base)
    if focus is not None and focus not in grid:
        raise ValueError(f"--focus {focus!r} is not a --grid option; grid: {', '.join(grid)}")
    if margin is not None and not 0 < margin < 1:
        raise ValueError(f"--margin is in win-rate units in (0, 1): 0.02 means ±2 "
                         f"percentage points; got {margin}")
    n = games if games is not None else (PRECISION_START if rule else 1000)
    config = runner.RunConfig(game, variants, dict(policies or {}), seed, n, rotate, chunk_games)
    path = Path(path)
    facts = dict(study or {})
    facts["grid"] = {k: [str(v) for v in vs] for k, vs in grid.items()}
    for k, v in (("focus", focus), ("pairs", pairs), ("margin", margin)):
        if v is not None:
            facts[k] = v
    if decide:
        facts["decide"] = True
    rounds: list[dict[str, Any]] = []
    if rule is None and not (force or resume) and runner.holds_finished(config, path):
        _write_study(path, facts)  # the question (focus, pairs, margin) may be asked anew
        return SweepResult(path, config.games, rounds, reused=True)
    first = True
    target = precision if precision is not None else precision_diff
    while True:
        summary = runner.run(config, path, jobs=jobs, backend=backend, progress=progress,
                             force=force and first, resume=resume or not first)
        first = False
        if summary.interrupted:
            return SweepResult(path, config.games, rounds, True)
        if rule is None:
            _write_study(path, facts)
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
        _write_study(path, facts)
        if reached or config.games >= cap:
            return SweepResult(path, config.games, rounds)
        assert config.chunk_games is not None
        if rule == "decide":
            want = -(-int(config.games * DECIDE_GROWTH) // config.chunk_games) \
                * config.chunk_games
            config.games = min(max(want, config.games + config.chunk_games), cap)
        else:
            config.games = _next_games(config.games, widest, float(target or 1),
                                       config.chunk_games, cap)


def _rule(precision: float | None, precision_diff: float | None, decide: bool) -> str | None:
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
    rule = _rule(precision, precision_diff, decide)
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


def plan(game: str, grid: Mapping[str, Sequence[Any]], change: float, *,
         base: dict[str, Any] | None = None, focus: str | None = None,
         pairs: str | None = None, level: float = stats.LEVEL) -> list[dict[str, Any]]:
    """Games per setting each question needs to detect a change of ``change`` (win-rate
    units) with 80% power under its family's correction, before playing (``--detect``).

    A question is the focus option (default: every grid option, each its own): its steps
    (neighbouring values, or every pair with ``pairs="all"``) within each setting of the
    other options; one change per step for two-sided games, one per seat for seat games.

    Returns:
        One dict per question: ``option``, ``family_size``, ``games`` (worst case: rates
        near 50%, no gain from pairing), ``games_at_10`` (win rates near 10% or 90%).

    Raises:
        StudyError / OptionError / ValueError: bad game, grid, focus or change.
    """
    from balancelab.analysis import verdicts

    g = load_game(game)
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
            seats = 1 if team else len(g.seats(v))
            size += steps * seats
        size = max(1, size)
        out.append({"option": opt, "family_size": size,
                    "games": verdicts.games_for_change(change, size, level),
                    "games_at_10": verdicts.games_for_change(change, size, level, 0.18)})
    return out


def _write_study(path: Path, facts: dict[str, Any]) -> None:
    f = Path(path) / render.STUDY_FILE
    tmp = f.with_name(f.name + ".tmp")
    tmp.write_text(json.dumps(facts, indent=2, sort_keys=True) + "\n")
    os.replace(tmp, f)


# -- compare -------------------------------------------------------------------------------------


def compare(runs: Sequence[Path], out: Path | None = None, margin: float | None = None
            ) -> render.ReportPaths:
    """Compare two or more runs against the first and write the comparison report.

    Args:
        runs: run folders, the first the baseline.
        out: the report folder (default: its own ``compare-<a>-vs-<b>`` beside the first run,
            :func:`~balancelab.reports.render.compare_folder`).
        margin: equivalence margin in win-rate units (default: the game's).

    Raises:
        ValueError: fewer than two runs, runs of different games, or a margin outside
            (0, 1). RunError: not a run.
    """
    if len(runs) < 2:
        raise ValueError("compare needs at least two run folders")
    if margin is not None and not 0 < margin < 1:
        raise ValueError(f"--margin is in win-rate units in (0, 1): 0.02 means ±2 "
                         f"percentage points; got {margin}")
    return render.write_report([Path(r) for r in runs], out, margin=margin)


# -- studies -------------------------------------------------------------------------------------


def check_study(name: str | Study) -> tuple[Study, Game]:
    """The study (a built-in's name, or a :class:`Study`, e.g. from :func:`load_study`) and
    its game.

    Raises:
        StudyError: unknown study, its game's engine cannot be imported, or a measure the
            game does not record.
        UnknownGameError: the study's game is not registered.
    """
    if isinstance(name, Study):
        st = name
    elif name not in STUDIES:
        raise StudyError(f"unknown study {name!r}; valid studies: {', '.join(sorted(STUDIES))}")
    else:
        st = STUDIES[name]
    g = load_game(st.game)
    known = ["rounds", "decisions", *g.measure_schema]
    for m in st.measures:
        if m not in known:
            raise StudyError(f"study {st.name!r}: {g.name} records no measure {m!r}; its "
                             f"measures: {', '.join(known)}")
    return st, g


@dataclass
class StudyResult:
    """What :func:`run_study` wrote."""

    path: Path
    runs: dict[str, Path]
    #: None when the study was interrupted before a run had games to report
    report: render.ReportPaths | None
    interrupted: bool = False


def run_study(
    name: str | Study,
    out: Path | None = None,
    *,
    policies: Sequence[str] = (),
    seed: int = 0,
    games: int | None = None,
    precision: float | None = None,
    precision_diff: float | None = None,
    decide: bool = False,
    pairs: str | None = None,
    margin: float | None = None,
    max_games: int | None = None,
    jobs: int = -1,
    backend: str = "loky",
    force: bool = False,
    resume: bool = False,
    progress: Callable[[int, int], None] | None = None,
    fixed: dict[str, Any] | None = None,
) -> StudyResult:
    """Run a named study once per policy pairing and write its report.

    Args:
        name: a key of :data:`STUDIES`, or a :class:`Study` (:func:`load_study`).
        out: the study folder (default ``runs/study-<name>-seed<seed>``); each pairing's run is
            a sub-folder, an ordinary run that ``report`` and polars can read.
        policies: policy pairings, each ``"SIDE=POLICY;SIDE=POLICY"``; none = the defaults.
        seed, games, precision, precision_diff, decide, pairs, margin, max_games, jobs,
            backend, force, resume: as for :func:`sweep` (``games`` defaults to 2000 per
            variant without a stopping rule); the question's focus is the study's.
        fixed: rule options held fixed for every variant (``{"hal_turn_every": 2}``), e.g. a
            what-if that moves a game off the ceiling; they may not be the study's grid options.

    The study folder keeps one answer per policy pairing: the pairings it already answers
    (``<out>/study.json``) stay in its report beside the ones asked now, and a pairing's run
    is replaced only with ``force`` (which also starts the study's record over).

    Raises:
        StudyError: unknown study, its game's engine cannot be imported, sizes that
            contradict each other (see :func:`sweep`), or a folder holding another study or
            this one with another seed or other fixed options (without ``force``).
        RunError: a pairing's run folder holds a run of another size (without ``resume`` or
            ``force``).
    """
    rule = _rule(precision, precision_diff, decide)
    check_sizes(games, precision, max_games, precision_diff, decide)
    st, g = check_study(name)
    name = st.name
    pairings = [parse_pairing(p, g) for p in policies] or [{}]
    names = [pairing_name(p) for p in pairings]
    if len(set(names)) < len(names):
        raise ValueError("the same policy pairing is given twice")
    fixed = dict(fixed or {})
    clash = sorted({k.replace("-", "_") for k in fixed} & set(st.grid))
    if clash:
        raise StudyError(f"--set {clash[0]} is the study's own grid option; it cannot be fixed")
    base = {**st.base, **{k.replace("-", "_"): v for k, v in fixed.items()}}
    g.options_type.from_strings(base)  # validate before playing
    tag = "".join(f"-{_slug(f'{k}{v}')}" for k, v in sorted(fixed.items()))
    folder = Path(out) if out is not None else Path("runs") / f"study-{name}{tag}-seed{seed}"
    setting = {"study": name, "seed": seed, "fixed": {k: str(v) for k, v in sorted(
        fixed.items())}}
    runs = _kept_answers(folder, setting, force)
    folder.mkdir(parents=True, exist_ok=True)
    n = games if games is not None else (None if rule else 2000)
    for pname, pairing in zip(names, pairings, strict=True):
        path = folder / _slug(pname)
        res = sweep(st.game, st.grid, path, base=base, policies=pairing, seed=seed, games=n,
                    precision=precision, precision_diff=precision_diff, decide=decide,
                    focus=st.focus, pairs=pairs, margin=margin, max_games=max_games,
                    jobs=jobs, backend=backend, force=force, resume=resume, progress=progress,
                    study={"study": name, "question": st.question, "pairing": pname,
                           "focus": st.focus, "measures": list(st.measures)})
        runs[pname] = path
        if res.interrupted:  # nothing to report yet is not an error: the study resumes
            return StudyResult(folder, runs, None, True)
        render.write_report(path)
        _write_study(folder, {**setting, "question": st.question,
                              "runs": {k: v.name for k, v in runs.items()}})
    rep = build_study_report(st, runs)
    return StudyResult(folder, runs, render.write(rep, folder / "report"))


def _kept_answers(folder: Path, setting: dict[str, Any], force: bool) -> dict[str, Path]:
    """The pairings a study folder already answers (pairing → run folder), kept beside the
    ones asked now: a study holds one answer per policy pairing. ``force`` starts the
    study's record over.

    Raises:
        StudyError: the folder holds another study, or this study with another seed or other
            fixed options (without ``force``).
    """
    facts = render.read_study(folder)
    if force or not facts or "runs" not in facts:
        return {}
    for key, value in setting.items():
        if key in facts and facts[key] != value:
            raise StudyError(
                f"{str(folder)!r} holds the answers of study {facts.get('study')!r} with "
                f"{key} {facts[key]!r}, not {value!r}; choose another --out, or pass --force "
                "to start it over")
    return {pname: folder / sub for pname, sub in facts["runs"].items()
            if (folder / sub / runner.MANIFEST).is_file()}


def _question(path: Path, st: Study | None) -> dict[str, Any]:
    """The question's settings recorded in a run's study.json (focus, pairs, margin,
    decide), with the study's focus as the default."""
    facts = render.read_study(path) or {}
    return {"focus": facts.get("focus", st.focus if st else None), "pairs": facts.get("pairs"),
            "margin": facts.get("margin"), "sequential": bool(facts.get("decide"))}


def verdict_table(runs: dict[str, Path], contenders: Sequence[str] | None = None,
                  st: Study | None = None) -> pl.DataFrame:
    """Verdicts per change of the question (rows) and policy pairing (columns).

    The changes, their family and its Holm correction are each run report's
    (:func:`balancelab.analysis.compare_variants` with the question recorded in the run's
    study.json); the verdict words are :func:`render.verdict_word`'s and each difference is
    printed with the interval its verdict used, so the study and run reports say the same
    thing.

    Returns:
        Columns: ``option``, ``value_a``, ``value_b``, ``context``, ``contender``, then per
        pairing ``<pairing>`` (verdict), ``<pairing> diff`` (difference with the interval
        and its level) and ``<pairing> games`` (games per setting that would decide an
        inconclusive change, or null), and ``holds`` (bool: the same verdict under every
        pairing).
    """
    key = ["option", "value_a", "value_b", "context", "contender"]
    merged: pl.DataFrame | None = None
    for pname, path in runs.items():
        q = _question(path, st)
        comp = analysis.compare_variants(path, focus=q["focus"], pairs=q["pairs"],
                                         margin=q["margin"], sequential=q["sequential"])
        if contenders is not None:
            comp = comp.filter(pl.col("contender").is_in(list(contenders)))
        rows = comp.to_dicts()
        part = comp.select(*key).with_columns(
            pl.Series(pname, [render.verdict_word(r["verdict"], None, r["margin"])
                              for r in rows], dtype=pl.String),
            pl.Series(f"{pname} diff", [f"{render.points(r['diff'], r['lo'], r['hi'])} "
                                        f"({render.level_text(r['level_used'])})"
                                        for r in rows], dtype=pl.String),
            pl.Series(f"{pname} games", [r["games_to_decide"] for r in rows],
                      dtype=pl.Int64),
        )
        merged = part if merged is None else merged.join(part, on=key, how="full",
                                                         coalesce=True, maintain_order="left")
    assert merged is not None
    cols = list(runs)
    holds = merged.select(
        pl.concat_list([pl.col(c) for c in cols]).list.n_unique().eq(1).alias("holds"))
    return merged.with_columns(holds)


def build_study_report(st: Study, runs: dict[str, Path]) -> render.Report:
    """The study's page: its question, "In short", the answer table of each policy pairing
    (the run reports' own) with a link to each run's full report, then under "Details" the
    verdicts side by side, every answer in words and each pairing's win rates."""
    hook = hooks.hook_for(st.game)
    first = next(iter(runs.values()))
    df0 = runner.load_games(first)
    team = analysis.frames.is_team_game(df0)
    prim = hook.primary if hook.primary else (analysis.sides(df0)[0] if team else None)
    # the study's question is about its focus option; the others set the scene
    vt = verdict_table(runs, [prim] if prim else None, st)
    many = len(runs) > 1
    headline: list[str] = []
    warns: list[str] = []
    answer: list[str | render.Table | render.Image] = []
    details: list[render.Section] = []
    shorts: list[str] = []
    for i, (pname, path) in enumerate(runs.items()):
        rep = render.build_run_report(path)
        shorts.append(rep.short)
        link = (f"The full report of the run: [{path.name}/report/report.md]"
                f"(../{path.name}/report/report.md) (run folder {path.name}).")
        for b in rep.answer:
            if isinstance(b, render.Table):
                answer.append(render.Table(f"{b.title} with policies {pname}" if many
                                           else b.title, b.frame, b.note))
            elif isinstance(b, render.Image) and i == 0:  # one plot: the first pairing's
                answer.append(render.Image(f"{_slug(pname)}-{b.name}", b.png,
                                           b.caption + (f" Policies {pname}." if many else "")))
        answer.append(link)
        if many:
            headline.append(f"With policies {pname}:")
        headline.extend(rep.headline)
        warns.extend(f"[{pname}] {w}" if many else w for w in rep.warnings)
        details.append(render.Section(
            f"Win rates with policies {pname}" if many else "Win rates",
            [link, *[b for s in rep.sections if s.title == "Win rates" for b in s.blocks
                     if isinstance(b, render.Table)][:1]],
        ))
    short = shorts[0] if shorts else ""
    if many:
        changed = vt.filter(~pl.col("holds"))
        if changed.height == 0:
            held = (f"The verdicts hold across all {len(runs)} policy pairings "
                    f"({', '.join(runs)}).")
            headline.append(held)
            short = f"{short} {held}" if render.fits_two_lines(f"{short} {held}") else held
        else:
            rows = "; ".join(
                f"{render.change_words(st.game, r['option'], r['value_a'], r['value_b'])} at "
                f"{W.variant(st.game, r['context']) if r['context'] else 'all settings'} for "
                f"{W.who(st.game, r['contender'], r['context'] or '')}: "
                + ", ".join(f"{p} {r[p]}" for p in runs)
                for r in changed.iter_rows(named=True))
            moved = (f"The verdict changes with the policies in {changed.height} of "
                     f"{vt.height} comparisons (see the tables).")
            headline.append(moved)
            short = moved
            warns.append(f"Verdict changes with the policies used: {rows}. A verdict that "
                         "depends on the players says more about the players than the rules.")
    rows_v = vt.to_dicts()
    table = pl.DataFrame({
        "change": [render.change_words(st.game, r["option"], r["value_a"], r["value_b"])
                   for r in rows_v],
        "held fixed": [W.variant(st.game, r["context"]) if r["context"] else "–"
                       for r in rows_v],
        "side / seat": [W.who(st.game, r["contender"], r["context"] or "") for r in rows_v],
        **{k: v for p in runs for k, v in (
            (p if many else "verdict", [r[p] or "–" for r in rows_v]),
            (f"{p}: difference [interval (level)]" if many
             else "difference [interval (level)]", [r[f"{p} diff"] or "–" for r in rows_v]),
            (f"{p}: games to decide" if many else "games to decide",
             [f"{r[f'{p} games']:,}" if r[f"{p} games"] else "–" for r in rows_v]))},
        **({"same under every pairing": ["yes" if r["holds"] else "NO" for r in rows_v]}
           if many else {}),
    })
    what = W.words(st.game, st.focus) if st.focus else "each option"
    sections = [
        render.Section("Verdicts side by side", [
            f"Each change of {what}, per policy pairing: the difference in win rate with "
            "the interval its verdict used (and that interval's level) and the verdict"
            + (", and whether it holds under every pairing. " if many else ". ")
            + analysis.verdicts.RULE,
            render.Table("Verdicts", table),
        ]),
        render.Section("Every answer in words", list[str | render.Table | render.Image](
            headline)),
        *details,
    ]
    return render.Report(f"balancelab study {st.name}", headline, warns, sections,
                         st.question, short, answer)
