"""``balancelab sensitivity``: how much does the answer rest on each rule number and assumption?

Every numeric rule option of a game (the rulebook's constants and the values we had to
assume) is moved one step each way: ±1 for an integer, ±10% for a large one (20 or more) or a
float, ±1 on every value of a list option (``strengths=5/5/4/5/5/6``). Assumed *readings* (a
true/false or a named choice marked ``assumed``) are tried at each other value. Assumed *data*
that is not a number (the Discovery board, ISS's card tables, Obcy's map) is tried through named
alternatives shipped in ``balancelab/data/alternatives/<game>/`` (each within every constraint
the rulebook states; see the note at the top of each file) and through the user's own files
(``--data FILE``). Key options (the setting: ``crew``, ``players``…) and what-if options are
held fixed.

All perturbations and the baseline are variants of ONE run (an ordinary runner run:
resumable, parallel, one folder): game *i* of every variant shares its seed, so each effect is
a paired difference (Newcombe's paired interval, McNemar's p-value) against the baseline,
with Holm's correction across all rows. With ``--study NAME`` every perturbation is played at
each value of the study's focus option too, and the study's verdicts (raises / lowers / no
detectable change along the focus option) are recomputed under each perturbation: the report
says whether they hold.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.questions.study import Study
from balancelab.reports import formatting, page, plots, sentences
from balancelab.reports import games as hooks
from balancelab.reports import words as W
from balancelab.simulate import runs
from balancelab.simulate.core import Game
from balancelab.simulate.options import OptionError, RuleOptions, format_value

#: The option through which each game takes a replacement data file (or folder).
DATA_OPTIONS: dict[str, str] = {"odyssey": "board_file", "iss": "data_dir", "obcy": "map_file"}
#: Integers at or above this move by ±10% instead of ±1.
LARGE = 20
GAMES = 1000


class SensitivityError(ValueError):
    """Bad input: an unknown option, contender or data file; or nothing to perturb."""


@dataclass(frozen=True)
class Perturbation:
    """One change of one assumption.

    Attributes:
        option: the option's name.
        change: ``"down"``, ``"up"``, or the alternative's name.
        value: the option's value under the change.
        base: its value in the baseline.
        source: ``rulebook: …``, ``assumed: …`` or ``data: …``.
        step: the step in words (``±1``, ``±10%``, ``each value ±1``, ``alternative``).
    """

    option: str
    change: str
    value: Any
    base: Any
    source: str
    step: str

    @property
    def label(self) -> str:
        if self.step in ("alternative", "reading"):
            return f"{self.option}: {self.change}"
        return f"{self.option}={format_value(self.value)}"


def alternatives(game: str) -> dict[str, str]:
    """The shipped alternatives of a game's assumed data: name → path (file or folder)."""
    root = resources.files("balancelab") / "data" / "alternatives" / game
    out: dict[str, str] = {}
    try:
        entries = sorted(root.iterdir(), key=lambda p: p.name)
    except (FileNotFoundError, NotADirectoryError):
        return out
    for p in entries:
        name = p.name.removesuffix(".toml").removesuffix(".json")
        out[name] = str(p)
    return out


def _step_int(v: int) -> tuple[int, str]:
    if abs(v) >= LARGE:
        return max(1, round(0.1 * abs(v))), "±10%"
    return 1, "±1"


def perturbations(game: Game, base: RuleOptions, *, only: Sequence[str] = (),
                  data: Sequence[str] = (), fixed: Sequence[str] = ()) -> list[Perturbation]:
    """Every one-step change of the game's rule numbers and assumptions around ``base``.

    Args:
        game: the game.
        base: the baseline options.
        only: restrict to these option names (empty = all).
        data: the user's own data files (or folders), tried besides the shipped alternatives.
        fixed: options to hold fixed (e.g. a study's grid).

    Raises:
        SensitivityError: an unknown name in ``only``, a ``data`` path that does not exist or
            for a game without a data option.
    """
    fields = {f.name: f for f in dataclasses.fields(base)}
    unknown = [n for n in only if n not in fields]
    if unknown:
        raise SensitivityError(f"unknown option {unknown[0]!r} for game {game.name!r}; "
                               f"balancelab games {game.name} lists them")
    out: list[Perturbation] = []
    data_opt = DATA_OPTIONS.get(game.name)
    for name, f in fields.items():
        if (only and name not in only) or name in fixed or name == data_opt:
            continue
        src = str(f.metadata.get("source", ""))
        if f.metadata.get("key") or src.startswith("what-if"):
            continue
        v = getattr(base, name)
        tries: list[tuple[str, Any, str]] = []
        if isinstance(v, bool):
            if src.startswith("assumed"):
                tries.append((format_value(not v), not v, "reading"))
        elif isinstance(v, int):
            if v == 0 and "0 = unlimited" in str(f.metadata.get("help", "")):
                continue  # 0 means no limit: one step from it is no small change
            d, word = _step_int(v)
            tries += [("down", v - d, word), ("up", v + d, word)]
        elif isinstance(v, float):
            dv = 0.1 * abs(v) or 0.1
            tries += [("down", v - dv, "±10%"), ("up", v + dv, "±10%")]
        elif isinstance(v, tuple) and v and all(isinstance(x, int) for x in v):
            lo, hi = f.metadata.get("low"), f.metadata.get("high")
            down = tuple(x - 1 if lo is None or x - 1 >= lo else x for x in v)
            up = tuple(x + 1 if hi is None or x + 1 <= hi else x for x in v)
            tries += [(c, t, "each value ±1") for c, t in (("down", down), ("up", up))
                      if t != v]
        elif isinstance(v, str) and f.metadata.get("choices") and src.startswith("assumed"):
            tries += [(c, c, "reading") for c in f.metadata["choices"] if c != v]
        for change, value, step in tries:
            try:
                base.replace(**{name: value})
            except OptionError:
                continue  # outside the allowed range: that direction is not tried
            out.append(Perturbation(name, change, value, v, src, step))
    if data and not data_opt:
        raise SensitivityError(f"{game.name} takes no data file (--data works for "
                               f"{', '.join(DATA_OPTIONS)})")
    if data_opt and not (only and data_opt not in only):
        alts = alternatives(game.name)
        for p in data:
            if not Path(p).exists():
                raise SensitivityError(f"--data: no file or folder at {p!r}")
            alts[f"your {Path(p).name}"] = str(Path(p).resolve())
        for alt, path in alts.items():
            try:
                base.replace(**{data_opt: path})
            except OptionError as exc:
                raise SensitivityError(f"--data {path}: {exc}") from None
            out.append(Perturbation(data_opt, alt, path, getattr(base, data_opt),
                                    "data: assumed (design notes)", "alternative"))
    if not out:
        raise SensitivityError("nothing to perturb with these options")
    return out


@dataclass
class SensitivityResult:
    path: Path
    headline: list[str]
    table: pl.DataFrame
    report: page.ReportPaths | None = None
    interrupted: bool = False
    games: int = 0


def headline_contender(game: Game, base: RuleOptions, rate: str | None) -> str:
    """The contender whose win rate the sensitivity follows (``--rate``; default the game's
    primary side, or the start player's seat).

    Raises:
        SensitivityError: an unknown contender.
    """
    team = len(game.sides) > 1
    valid = list(game.sides) if team else list(game.seats(base))
    if rate is None:
        prim = hooks.hook_for(game.name).primary
        if game.name == "odyssey":
            prim = "crew"  # the side the balance question is about
        return prim if prim is not None and prim in valid else str(valid[0])
    if rate not in valid:
        raise SensitivityError(f"unknown side or seat {rate!r}; valid: {', '.join(valid)}")
    return rate


def run(g: Game, base_values: dict[str, Any], out: Path | None = None, *,
        rate: str | None = None, study: Study | None = None, only: Sequence[str] = (),
        data: Sequence[str] = (), policies: dict[str, str] | None = None, seed: int = 0,
        games: int = GAMES, jobs: int = -1, backend: str = "loky", force: bool = False,
        progress: Callable[[int, int], None] | None = None) -> SensitivityResult:
    """Play every perturbation (and, with ``study``, every focus value) on common seeds and
    write the report.

    Args:
        g: the game (resolved from its name at the edge).
        base_values: the rule options held fixed, as given (``{"crew": "3"}``).
        study: a study of ``g`` (:func:`~balancelab.questions.study.check_study`) whose
            verdicts are recomputed under every perturbation.

    Raises:
        SensitivityError, OptionError, RunError: bad input.
    """
    focus: str | None = None
    base = g.options_type.from_strings(base_values)
    st = None
    focus_vals: list[Any] = [None]
    fixed: list[str] = []
    if study is not None:
        st = study
        if st.game != g.name:
            raise SensitivityError(f"study {st.name!r} is about {st.game}, not {g.name}")
        assert st.focus is not None
        focus = st.focus
        focus_vals = [g.options_type.from_strings({st.focus: str(v)}).as_dict()[st.focus]
                      for v in st.grid[st.focus]]
        fixed = list(st.grid)
        if st.focus in base_values:
            raise SensitivityError(f"{st.focus} is the study's focus option; it cannot be fixed")
        base = base.replace(**st.base) if st.base else base
    who = headline_contender(g, base, rate)
    perts = perturbations(g, base, only=only, data=data, fixed=fixed)
    variants: list[RuleOptions] = []
    index: list[tuple[int, Any]] = []  # (perturbation index or -1 for the baseline, focus)
    for pi in range(-1, len(perts)):
        for fv in focus_vals:
            o = base if pi < 0 else base.replace(**{perts[pi].option: perts[pi].value})
            if fv is not None and focus is not None:
                o = o.replace(**{focus: fv})
            variants.append(o)
            index.append((pi, fv))
    config = runs.RunConfig(g.name, variants, dict(policies or {}), seed, games)
    path = Path(out) if out is not None else Path("runs") / (
        f"sensitivity-{g.name}-{base.label().replace('=', '').replace(',', '-')}"
        + (f"-{st.name}" if st else "") + f"-seed{seed}")
    summary = runs.run(config, path, jobs=jobs, backend=backend, progress=progress,
                         force=force, resume=not force)
    if summary.interrupted:
        return SensitivityResult(path, [], pl.DataFrame(), interrupted=True)
    table, verdicts = analyse(path, g, perts, index, who, st.focus if st else None)
    headline = headline_lines(g, base, who, table, verdicts, games, st)
    rep = report(g, base, who, table, verdicts, headline, path, games, st)
    m = runs.read_manifest(path)
    return SensitivityResult(path, headline, table, rep, games=int(m["games_written"]))


def _wins(df: pl.DataFrame, who: str) -> dict[int, np.ndarray]:
    rows = analysis.contender_rows(df).filter(pl.col("contender") == who)
    out: dict[int, np.ndarray] = {}
    for (v,), part in rows.sort("variant", "game_index").group_by(["variant"],
                                                                   maintain_order=True):
        out[int(str(v))] = part.get_column("win").to_numpy().astype(bool)
    return out


def analyse(path: Path, g: Game, perts: list[Perturbation], index: list[tuple[int, Any]],
            who: str, focus: str | None) -> tuple[pl.DataFrame, pl.DataFrame | None]:
    """The effect of each perturbation on ``who``'s win rate (paired against the baseline at
    the same focus value, Holm across rows), and with a focus option the verdicts along it.

    Returns:
        (effects, verdicts). effects: one row per perturbation (and focus value): ``option``,
        ``change``, ``value``, ``base_value``, ``source``, ``step``, ``focus``, ``rate``
        (baseline), ``rate_b``, ``diff``, ``lo``, ``hi``, ``p_value``, ``p_holm``,
        ``significant``. verdicts (None without a focus): ``perturbation``, ``change``
        (``focus a → b``), ``diff``, ``lo``, ``hi``, ``verdict``, ``holds`` (same verdict as
        the baseline's).
    """
    df = analysis.games_frame(path)
    wins = _wins(df, who)
    where = {key: i for i, key in enumerate(index)}
    rows = []
    for (pi, fv), vi in where.items():
        if pi < 0:
            continue
        b = wins[where[(-1, fv)]]
        d = stats.diff_paired(b, wins[vi])
        p = perts[pi]
        rows.append({
            "option": p.option, "change": p.change, "value": format_value(p.value),
            "base_value": format_value(p.base), "source": p.source, "step": p.step,
            "focus": "" if fv is None else format_value(fv), "rate": d.p_a, "rate_b": d.p_b,
            "diff": d.diff, "lo": d.lo, "hi": d.hi, "p_value": d.p_value,
        })
    eff = pl.DataFrame(rows)
    eff = eff.with_columns(pl.Series("p_holm", stats.holm(eff.get_column("p_value").to_numpy())))
    eff = eff.with_columns((pl.col("p_holm") < 0.05).alias("significant"))
    if focus is None:
        return eff, None
    fvals = list(dict.fromkeys(fv for _, fv in index))
    vrows = []
    for pi in range(-1, len(perts)):
        for a, b in zip(fvals, fvals[1:], strict=False):
            d = stats.diff_paired(wins[where[(pi, a)]], wins[where[(pi, b)]])
            vrows.append({
                "perturbation": "baseline" if pi < 0 else perts[pi].label,
                "change": f"{focus} {format_value(a)} → {format_value(b)}",
                "diff": d.diff, "lo": d.lo, "hi": d.hi, "p_value": d.p_value,
            })
    ver = pl.DataFrame(vrows)
    # Holm within each perturbation: the study's own family (its comparisons along the focus
    # option), as the study would report it were that perturbation the rule
    ver = ver.with_columns(pl.col("p_value").map_batches(
        lambda p: pl.Series(stats.holm(p.to_numpy())), return_dtype=pl.Float64)
        .over("perturbation").alias("p_holm"))
    ver = ver.with_columns(pl.struct("lo", "hi", "p_holm").map_elements(
        lambda s: sentences.verdict_word(stats.verdict(s["lo"], s["hi"]), s["p_holm"] < 0.05),
        return_dtype=pl.String).alias("verdict"))
    basev = dict(ver.filter(pl.col("perturbation") == "baseline")
                 .select("change", "verdict").iter_rows())
    ver = ver.with_columns(pl.col("change").replace_strict(basev, return_dtype=pl.String)
                           .alias("baseline_verdict"))
    # a verdict holds when it still raises, still lowers, or still does neither
    ver = ver.with_columns((_category(pl.col("verdict")) == _category(pl.col("baseline_verdict")))
                           .alias("holds"))
    return eff, ver


def _category(col: pl.Expr) -> pl.Expr:
    return pl.when(col.is_in(["raises", "lowers"])).then(col).otherwise(pl.lit("neither"))


def _verdict_words(verdict: str, thing: str) -> str:
    """``raises the crew's win rate``, ``makes no detectable change to …``."""
    if verdict in ("raises", "lowers"):
        return f"{verdict} {thing}"
    if verdict.startswith("moves"):
        return f"moves {thing}, not significantly after Holm's correction"
    return f"makes no detectable change to {thing}"


def _pts(d: float, lo: float, hi: float) -> str:
    return f"{100 * d:+.1f} [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def _kind(source: str) -> str:
    return source.split(":", 1)[0].strip() or "rulebook"


def ranked(table: pl.DataFrame) -> pl.DataFrame:
    """One row per option: its largest effect (absolute), most moving first."""
    return (table.with_columns(pl.col("diff").abs().alias("_abs"))
            .sort("_abs", descending=True).unique("option", keep="first", maintain_order=True)
            .drop("_abs"))


def headline_lines(g: Game, base: RuleOptions, who: str, table: pl.DataFrame,
                   verdicts: pl.DataFrame | None, games: int, st: Any) -> list[str]:
    name = hooks.word(g.name, who)
    ctx = W.variant(g.name, base.label())  # "3 crewmembers, LIF limit: 5", not crew=3,…
    if st is not None and st.focus:  # the headline speaks of the base's own focus value
        table = table.filter(pl.col("focus") == format_value(getattr(base, st.focus)))
    t0 = table.row(0, named=True)
    top = ranked(table)
    sig = top.filter(pl.col("significant"))
    assumed = sig.filter(~pl.col("source").str.starts_with("rulebook"))
    lines = []

    def part(r: dict[str, Any]) -> str:
        per = "" if r["step"] in ("alternative", "reading") else " per step"
        what = (f"{r['option']} ({_kind(r['source'])}) {r['base_value']} → {r['value']}"
                if r["step"] not in ("alternative", "reading") else
                f"{r['option']} ({_kind(r['source'])}: {r['change']})")
        return f"{what}: {_pts(r['diff'], r['lo'], r['hi'])} points{per}"

    base_rate = formatting.pct(t0["rate"])
    rests = top.filter(~pl.col("source").str.starts_with("rulebook")).head(3).to_dicts()
    n_det = assumed.height
    if rests:
        lines.append(
            f"The answer ({name} {base_rate} at {ctx}) rests most on these assumptions (values "
            "the rulebook does not print): " + "; ".join(
                part(r) + ("" if r["significant"] else " (not detectable after Holm)")
                for r in rests)
            + (f"; {n_det} assumption{'s' if n_det != 1 else ''} "
               f"move{'s' if n_det == 1 else ''} it detectably."
               if n_det else "; none moves it detectably (Holm-corrected, 95%)."))
    if sig.height:
        lines.append(f"{name[0].upper() + name[1:]}'s win rate moves most with " + "; ".join(
            part(r) for r in sig.head(3).to_dicts()) + f" ({sig.height} of {top.height} "
            "options move it detectably).")
    else:
        lines.append(f"No option moves {name}'s win rate detectably by one step "
                     f"({games:,} games per setting, Holm-corrected).")
    if verdicts is not None and st is not None:
        for change, part_df in verdicts.group_by("change", maintain_order=True):
            bv = part_df.get_column("baseline_verdict")[0]
            broken = part_df.filter(~pl.col("holds"))
            head = (f"The study {st.name}'s verdict on {change[0]} (it "
                    f"{_verdict_words(bv, name + chr(39) + 's win rate')})")
            if broken.height == 0:
                lines.append(f"{head} holds under every perturbation tried "
                             f"({part_df.height - 1}).")
            else:
                lines.append(f"{head} changes under {broken.height} of {part_df.height - 1} "
                             "perturbations: " + "; ".join(
                                 f"{r['perturbation']} ({r['verdict'].split(' (')[0]}, "
                                 f"{_pts(r['diff'], r['lo'], r['hi'])} points)"
                                 for r in broken.head(6).to_dicts())
                             + (" …" if broken.height > 6 else "") + ".")
    return lines


def tornado(table: pl.DataFrame, who: str, n: int = 20) -> Any:
    """Horizontal bars per option: the change in win rate one step down and one step up (or
    each alternative), with 95% paired intervals, most moving at the top."""
    top = ranked(table).head(n)
    opts = top.get_column("option").to_list()
    fig = plots._fig(7.5, max(3.0, 0.32 * len(opts) + 1.2))
    ax = fig.add_subplot()
    ys = {o: len(opts) - 1 - i for i, o in enumerate(opts)}
    sub = table.filter(pl.col("option").is_in(opts))
    for r in sub.iter_rows(named=True):
        y = ys[r["option"]]
        color = (plots.COLORS[0] if r["change"] == "down" else plots.COLORS[1]
                 if r["change"] == "up" else plots.COLORS[2])
        ax.barh(y, 100 * r["diff"], color=color, alpha=0.6, height=0.6)
        ax.errorbar(100 * r["diff"], y, xerr=[[100 * (r["diff"] - r["lo"])],
                                              [100 * (r["hi"] - r["diff"])]],
                    color="#333", capsize=2, linewidth=0.8)
    ax.set_yticks([ys[o] for o in opts], [f"{o} ({_kind(s)})" for o, s in zip(
        opts, top.get_column("source").to_list(), strict=True)], fontsize=7)
    ax.axvline(0, color="#444", linewidth=0.8)
    ax.set_xlabel(f"change in {who}'s win rate, points\n(blue: one step down, red: one step "
                  "up, green: a reading or data alternative)")
    ax.set_title("Sensitivity (paired 95% intervals)")
    return fig


def report(g: Game, base: RuleOptions, who: str, table: pl.DataFrame,
           verdicts: pl.DataFrame | None, headline: list[str], path: Path, games: int,
           st: Any) -> page.ReportPaths:
    name = hooks.word(g.name, who)
    rows = table.with_columns(pl.col("diff").abs().alias("_a")).sort("_a", descending=True)
    eff = pl.DataFrame({
        "option": rows.get_column("option").to_list(),
        "source": rows.get_column("source").to_list(),
        "change": [f"{b} → {v}" if s not in ("alternative", "reading") else c
                   for b, v, s, c in zip(rows.get_column("base_value"), rows.get_column("value"),
                                         rows.get_column("step"), rows.get_column("change"),
                                         strict=True)],
        **({"at": rows.get_column("focus").to_list()} if verdicts is not None else {}),
        f"{name}'s win rate": [formatting.pct(x) for x in rows.get_column("rate_b")],
        "change, points [95%]": [_pts(d, lo, hi) for d, lo, hi in rows.select(
            "diff", "lo", "hi").iter_rows()],
        "p (Holm)": [formatting.pvalue(p) for p in rows.get_column("p_holm")],
        "detectable": ["yes" if s else "no" for s in rows.get_column("significant")],
    })
    blocks: list[str | page.Table | page.Image] = [
        f"Each row moves one option one step from the baseline ({base.label()}, {name} "
        f"{formatting.pct(table.row(0, named=True)['rate'])}), all on the same {games:,} games' "
        "seeds; the change is a paired difference with Newcombe's 95% interval; p-values "
        "are McNemar's, Holm-corrected across the rows.",
        page.Table("Effects", eff),
        page.figure("tornado.png", tornado(table, name),
                    "Tornado: the options that move the win rate most, one step each way."),
    ]
    sections = [page.Section("Effect of each assumption", blocks)]
    if verdicts is not None and st is not None:
        sections.append(page.Section(f"The study {st.name}'s verdicts", [page.Table(
            "Verdicts under each perturbation", pl.DataFrame({
                "perturbation": verdicts.get_column("perturbation").to_list(),
                "change": verdicts.get_column("change").to_list(),
                "difference [95%]": [_pts(d, lo, hi) for d, lo, hi in verdicts.select(
                    "diff", "lo", "hi").iter_rows()],
                "verdict": verdicts.get_column("verdict").to_list(),
                "same as baseline": ["yes" if h else "NO" for h in
                                     verdicts.get_column("holds")],
            }))]))
    alts = alternatives(g.name)
    if alts:
        sections.append(page.Section("Data alternatives", [
            "Shipped alternatives of the assumed data, each within the rulebook's constraints "
            "(its file says what it changes): " + ", ".join(f"{k} ({v})" for k, v in
                                                            alts.items()) + "."]))
    rep = page.Report(f"balancelab sensitivity: {g.name} at {base.label()}", headline, [],
                        sections)
    return page.write(rep, path / "report")
