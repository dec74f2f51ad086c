"""Named studies behind ``balancelab study``: a game, a grid of options and the question in
words, answered once per policy pairing.

* :class:`Study` and :func:`load_study` (a TOML file; the built-in ones are
  :data:`STUDIES`, the files of ``balancelab/data/studies/``).
* :func:`run_study` runs a study once per policy pairing (each an ordinary
  :func:`~balancelab.questions.sweep.sweep` run), writes each pairing's run and report, and a
  study report with the verdicts side by side.

Errors are :class:`~balancelab.questions.inputs.StudyError` (a RuntimeError) or ValueError
with one-line messages.
"""

from __future__ import annotations

import dataclasses
import difflib
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.questions.inputs import StudyError, load_game, pairing_name, parse_pairing, slug
from balancelab.questions.sweep import check_blocks, check_sizes, stopping_rule, sweep, write_study
from balancelab.reports import compare_report, formatting, page, run_report, sentences
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.reports.answer import fits_two_lines
from balancelab.reports.run_report import REPLICATION
from balancelab.simulate.core import Game
from balancelab.simulate.runs import MANIFEST, load_games
from balancelab.simulate.runs.folder import left_as_found


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
    report: page.ReportPaths | None
    interrupted: bool = False


def run_study(
    st: Study,
    g: Game,
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
    blocks: int = 2,
) -> StudyResult:
    """Run a named study once per policy pairing and write its report.

    Args:
        st, g: the study and its game, as :func:`check_study` resolves them (a built-in
            study's name, or a :class:`Study` from :func:`load_study`).
        out: the study folder (default ``runs/study-<name>-seed<seed>``); each pairing's run is
            a sub-folder, an ordinary run that ``report`` and polars can read.
        policies: policy pairings, each ``"SIDE=POLICY;SIDE=POLICY"``; none = the defaults.
        fixed: rule options held fixed for every variant (``{"hal_turn_every": 2}``), e.g. a
            what-if that moves a game off the ceiling; one of the study's grid options other
            than its focus narrows the grid to that value (``{"crew": 4}``: the question at 4
            crew only, see :func:`narrowed`).
        blocks: independent seed blocks each pairing plays (see :func:`sweep`; default 2):
            the report states a change in its headline only where it holds on the blocks
            pooled and no block decides the opposite.

    The other arguments (``seed``, ``games``, ``precision``, ``precision_diff``, ``decide``,
    ``pairs``, ``margin``, ``max_games``, ``jobs``, ``backend``, ``force``, ``resume``) are as
    for :func:`sweep` (``games`` defaults to 2000 per variant without a stopping rule); the
    question's focus is the study's.

    The study folder keeps one answer per policy pairing: the pairings it already answers
    (``<out>/study.json``) stay in its report beside the ones asked now, and a pairing's run
    is replaced only with ``force`` (which also starts the study's record over).

    Raises:
        StudyError: ``g`` is not the study's game, sizes that contradict each other (see
            :func:`sweep`), the study's focus option fixed, or a folder holding another study
            or this one with another seed or other fixed options (without ``force``).
        RunError: a pairing's run folder holds a run of another size (without ``resume`` or
            ``force``).
    """
    rule = stopping_rule(precision, precision_diff, decide)
    check_sizes(games, precision, max_games, precision_diff, decide)
    check_blocks(blocks)
    if g.name != st.game:
        raise StudyError(f"study {st.name!r} is about {st.game}, not {g.name}")
    name = st.name
    pairings = [parse_pairing(p, g) for p in policies] or [{}]
    names = [pairing_name(p) for p in pairings]
    if len(set(names)) < len(names):
        raise ValueError("the same policy pairing is given twice")
    fixed = {k.replace("-", "_"): v for k, v in (fixed or {}).items()}
    st = narrowed(st, fixed)
    base = {**st.base, **{k: v for k, v in fixed.items() if k not in st.grid}}
    g.options_type.from_strings(base)  # validate before playing
    tag = "".join(f"-{slug(f'{k}{v}')}" for k, v in sorted(fixed.items()))
    folder = Path(out) if out is not None else Path("runs") / f"study-{name}{tag}-seed{seed}"
    setting = {"study": name, "seed": seed, "fixed": {k: str(v) for k, v in sorted(
        fixed.items())}}
    runs = _kept_answers(folder, setting, force)
    with left_as_found(folder):  # a pairing refused by its sweep leaves no empty folder
        return _run_pairings(st, g, folder, setting, runs, names, pairings, base=base, seed=seed,
                             games=games if games is not None else (None if rule else 2000),
                             precision=precision, precision_diff=precision_diff,
                             decide=decide, pairs=pairs, margin=margin, max_games=max_games,
                             jobs=jobs, backend=backend, force=force, resume=resume,
                             progress=progress, blocks=blocks)


def _run_pairings(st: Study, g: Game, folder: Path, setting: dict[str, Any],
                  runs: dict[str, Path], names: list[str], pairings: list[dict[str, str]], *,
                  base: dict[str, Any],
                  seed: int, games: int | None, precision: float | None,
                  precision_diff: float | None, decide: bool, pairs: str | None,
                  margin: float | None, max_games: int | None, jobs: int, backend: str,
                  force: bool, resume: bool, progress: Callable[[int, int], None] | None,
                  blocks: int = 2) -> StudyResult:
    """:func:`run_study` once its input is checked: each pairing's sweep, then the report."""
    name = st.name
    folder.mkdir(parents=True, exist_ok=True)
    n = games
    for pname, pairing in zip(names, pairings, strict=True):
        path = folder / slug(pname)
        res = sweep(g, st.grid, path, base=base, policies=pairing, seed=seed, games=n,
                    precision=precision, precision_diff=precision_diff, decide=decide,
                    focus=st.focus, pairs=pairs, margin=margin, max_games=max_games,
                    jobs=jobs, backend=backend, force=force, resume=resume, progress=progress,
                    blocks=blocks, study={"study": name, "question": st.question, "pairing": pname,
                           "focus": st.focus, "measures": list(st.measures)})
        runs[pname] = path
        if res.interrupted:  # nothing to report yet is not an error: the study resumes
            return StudyResult(folder, runs, None, True)
        compare_report.write_report(path)
        write_study(folder, {**setting, "question": st.question,
                              "runs": {k: v.name for k, v in runs.items()}})
    rep = build_study_report(st, runs)
    return StudyResult(folder, runs, page.write(rep, folder / "report"))


def narrowed(st: Study, fixed: Mapping[str, Any]) -> Study:
    """The study with each of its grid options named in ``fixed`` narrowed to that one value
    (``hal-difficulty`` with ``{"crew": 4}``: the HAL difficulty steps at 4 crew only); the
    question says so (`` (here at 4 crewmembers only)``). Options outside the grid are left
    to the caller (they are held fixed as a base).

    Raises:
        StudyError: ``fixed`` names the study's focus option (the question asks how it
            changes things, so it cannot be one value).
    """
    mine = {k: v for k, v in fixed.items() if k in st.grid}
    if not mine:
        return st
    if st.focus in mine:
        raise StudyError(
            f"--set {st.focus} is what study {st.name!r} asks about (its focus, "
            f"{', '.join(map(W.fmt, st.grid[st.focus]))}); to play one value use balancelab "
            f"simulate {st.game} --set {st.focus}=V")
    grid = {k: ([_as_grid_value(vs, mine[k])] if k in mine else list(vs))
            for k, vs in st.grid.items()}
    where = " and ".join(W.setting(st.game, k, v) for k, v in mine.items())
    return dataclasses.replace(st, grid=grid, question=f"{st.question} (here at {where} only)")


def _as_grid_value(values: Sequence[Any], v: Any) -> Any:
    """``v`` (as typed on the command line, ``"4"``) as the grid's own value when it is one
    (``4``), else unchanged (the game's options validate it)."""
    return next((x for x in values if W.fmt(x) == W.fmt(v)), v)


def _kept_answers(folder: Path, setting: dict[str, Any], force: bool) -> dict[str, Path]:
    """The pairings a study folder already answers (pairing → run folder), kept beside the
    ones asked now: a study holds one answer per policy pairing. ``force`` starts the
    study's record over.

    Raises:
        StudyError: the folder holds another study, or this study with another seed or other
            fixed options (without ``force``).
    """
    facts = run_report.read_study(folder)
    if force or not facts or "runs" not in facts:
        return {}
    for key, value in setting.items():
        if key in facts and facts[key] != value:
            raise StudyError(
                f"{str(folder)!r} holds the answers of study {facts.get('study')!r} with "
                f"{key} {facts[key]!r}, not {value!r}; choose another --out, or pass --force "
                "to start it over")
    return {pname: folder / sub for pname, sub in facts["runs"].items()
            if (folder / sub / MANIFEST).is_file()}


def _question(path: Path, st: Study | None) -> dict[str, Any]:
    """The question's settings recorded in a run's study.json (focus, pairs, margin,
    decide), with the study's focus as the default."""
    facts = run_report.read_study(path) or {}
    return {"focus": facts.get("focus", st.focus if st else None), "pairs": facts.get("pairs"),
            "margin": facts.get("margin"), "sequential": bool(facts.get("decide"))}


def verdict_table(runs: dict[str, Path], contenders: Sequence[str] | None = None,
                  st: Study | None = None) -> pl.DataFrame:
    """Verdicts per change of the question (rows) and policy pairing (columns).

    The changes, their family and its Holm correction are each run report's
    (:func:`balancelab.analysis.compare_variants` with the question recorded in the run's
    study.json); the verdict words are :func:`~balancelab.reports.sentences.verdict_word`'s
    and each difference is printed with the interval its verdict used, so the study and run
    reports say the same thing.

    Returns:
        Columns: ``option``, ``value_a``, ``value_b``, ``context``, ``contender``, then per
        pairing ``<pairing>`` (verdict), ``<pairing> diff`` (difference with the interval
        and its level) and ``<pairing> games`` (games per setting that would decide an
        inconclusive change, or null), ``holds`` (bool: the same verdict under every
        pairing) and ``disagree`` (bool: two pairings decided the change, one way each: the
        verdict changes with the policies; a change inconclusive under a pairing is not a
        disagreement, only undecided there).
    """
    key = ["option", "value_a", "value_b", "context", "contender"]
    merged: pl.DataFrame | None = None
    for pname, path in runs.items():
        q = _question(path, st)
        source, n_blocks = run_report.question_games(path)
        comp = analysis.compare_variants(source, focus=q["focus"], pairs=q["pairs"],
                                         margin=q["margin"],
                                         sequential=q["sequential"] and n_blocks == 1)
        if contenders is not None:
            comp = comp.filter(pl.col("contender").is_in(list(contenders)))
        rows = comp.to_dicts()
        part = comp.select(*key).with_columns(
            pl.Series(pname, [sentences.verdict_word(r["verdict"], None, r["margin"])
                              for r in rows], dtype=pl.String),
            pl.Series(f"{pname} diff", [f"{formatting.points(r['diff'], r['lo'], r['hi'])} "
                                        f"({formatting.level_text(r['level_used'])})"
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
    disagree = pl.Series("disagree", [len(decided(r, cols)) > 1
                                      for r in merged.iter_rows(named=True)], dtype=pl.Boolean)
    return merged.with_columns(holds.to_series(), disagree)


def decided(row: Mapping[str, Any], pairings: Sequence[str]) -> set[str]:
    """The distinct decided verdicts of one change across policy pairings (``{"raises",
    "lowers"}``; ``equivalent`` whatever its margin); an inconclusive or missing one adds
    nothing."""
    out = {str(row[p]).split()[0] for p in pairings if row.get(p)}
    return out - {analysis.verdicts.INCONCLUSIVE}


def agreement(vt: pl.DataFrame, pairings: Sequence[str]) -> tuple[str, bool]:
    """What the policy pairings say together, and whether the verdict changes with them:
    every verdict the same ("The verdicts hold across all 2 policy pairings"); some change
    decided one way under one pairing and another way under another ("The verdict changes
    with the policies in 1 of 6 comparisons, each decided both ways"); else the verdicts
    agree where both decide and :func:`undecided_note` names the pairing that left some
    inconclusive and the games that would decide them.
    """
    changed = vt.filter(pl.col("disagree")).height
    if changed:
        return (f"The verdict changes with the policies in {changed} of {vt.height} "
                "comparisons, each decided both ways (see the tables).", True)
    if vt.filter(~pl.col("holds")).height == 0:
        return (f"The verdicts hold across all {len(pairings)} policy pairings "
                f"({', '.join(pairings)}).", False)
    return undecided_note(vt, pairings), False


def undecided_note(vt: pl.DataFrame, pairings: Sequence[str]) -> str:
    """Where the verdicts differ only because a pairing left a change inconclusive: which
    pairing, how many changes and the games per setting that would decide them (``""`` when
    none)."""
    parts = []
    for p in pairings:
        rows = vt.filter(~pl.col("holds") & ~pl.col("disagree")
                         & (pl.col(p) == analysis.verdicts.INCONCLUSIVE))
        if rows.height == 0:
            continue
        need = rows[f"{p} games"].drop_nulls()
        more = (f"about {int(need.max()):,} games per setting would decide "  # type: ignore[arg-type]
                f"{'it' if rows.height == 1 else 'them'}" if need.len() == rows.height
                else "more games would decide them")
        parts.append(f"{rows.height} of {vt.height} comparisons undecided with policies {p} "
                     f"({more})")
    if not parts:
        return ""
    return ("The verdicts agree wherever both pairings decide; " + "; ".join(parts) + ".")


def build_study_report(st: Study, runs: dict[str, Path]) -> page.Report:
    """The study's page: its question, "In short", the answer table of each policy pairing
    (the run reports' own) with a link to each run's full report, then under "Details" the
    verdicts side by side, every answer in words, each pairing's replication on its seed
    blocks (pooled verdict, each block's estimate, Cochran's Q) and its win rates."""
    hook = hooks.hook_for(st.game)
    first = next(iter(runs.values()))
    df0 = load_games(first)
    team = analysis.frames.is_team_game(df0)
    prim = hook.primary if hook.primary else (analysis.sides(df0)[0] if team else None)
    # the study's question is about its focus option; the others set the scene
    vt = verdict_table(runs, [prim] if prim else None, st)
    many = len(runs) > 1
    headline: list[str] = []
    warns: list[str] = []
    answer: list[str | page.Table | page.Image] = []
    details: list[page.Section] = []
    shorts: list[str] = []
    for i, (pname, path) in enumerate(runs.items()):
        rep = run_report.build_run_report(path)
        shorts.append(rep.short)
        link = (f"The full report of the run: [{path.name}/report/report.md]"
                f"(../{path.name}/report/report.md) (run folder {path.name}).")
        for b in rep.answer:
            if isinstance(b, page.Table):
                answer.append(page.Table(f"{b.title} with policies {pname}" if many
                                           else b.title, b.frame, b.note))
            elif isinstance(b, page.Image) and i == 0:  # one plot: the first pairing's
                answer.append(page.Image(f"{slug(pname)}-{b.name}", b.png,
                                           b.caption + (f" Policies {pname}." if many else "")))
        answer.append(link)
        if many:
            headline.append(f"With policies {pname}:")
        headline.extend(rep.headline)
        warns.extend(f"[{pname}] {w}" if many else w for w in rep.warnings)
        details.extend(page.Section(f"{s.title} with policies {pname}" if many else s.title,
                                    s.blocks)
                       for s in rep.sections if s.title == REPLICATION)
        details.append(page.Section(
            f"Win rates with policies {pname}" if many else "Win rates",
            [link, *[b for s in rep.sections if s.title == "Win rates" for b in s.blocks
                     if isinstance(b, page.Table)][:1]],
        ))
    short = shorts[0] if shorts else ""
    if many:
        said, moved = agreement(vt, list(runs))
        headline.append(said)
        if moved:
            short = said
            changed = vt.filter(pl.col("disagree"))
            rows = "; ".join(
                f"{sentences.change_words(st.game, r['option'], r['value_a'], r['value_b'])} at "
                f"{W.variant(st.game, r['context']) if r['context'] else 'all settings'} for "
                f"{W.who(st.game, r['contender'], r['context'] or '')}: "
                + ", ".join(f"{p} {r[p]}" for p in runs)
                for r in changed.iter_rows(named=True))
            warns.append(f"Verdict changes with the policies used: {rows}. A verdict that "
                         "depends on the players says more about the players than the rules.")
        elif fits_two_lines(f"{short} {said}"):
            short = f"{short} {said}"
        elif vt.filter(~pl.col("holds")).height == 0:
            short = said
    rows_v = vt.to_dicts()
    table = pl.DataFrame({
        "change": [sentences.change_words(st.game, r["option"], r["value_a"], r["value_b"])
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
        **({"same under every pairing": [
            "yes" if r["holds"] else "NO" if r["disagree"] else "undecided under one"
            for r in rows_v]} if many else {}),
    })
    what = W.words(st.game, st.focus) if st.focus else "each option"
    sections = [
        page.Section("Verdicts side by side", [
            f"Each change of {what}, per policy pairing: the difference in win rate with "
            "the interval its verdict used (and that interval's level) and the verdict"
            + (", and whether it holds under every pairing. " if many else ". ")
            + analysis.verdicts.RULE,
            page.Table("Verdicts", table),
        ]),
        page.Section("Every answer in words", list[str | page.Table | page.Image](
            headline)),
        *details,
    ]
    return page.Report(f"balancelab study {st.name}", headline, warns, sections,
                         st.question, short, answer)
