"""The report comparing runs against the first (paired where they share seeds), and
:func:`write_report`, which writes a run's report or a comparison's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import words as W
from balancelab.reports.answer import answer_blocks, short_answer
from balancelab.reports.formatting import num
from balancelab.reports.page import Image, Report, ReportPaths, Section, Table, write
from balancelab.reports.run_report import (
    build_run_report,
    game_title,
    provenance,
    read_study,
    varying_measures,
)
from balancelab.reports.sentences import (
    REPLICATION_RULE,
    and_words,
    comparison_sentence,
    family_sentence,
    pairing_sentence,
    replication_sentence,
    warnings_for,
)
from balancelab.reports.tables import comparison_table, measure_comparison_table, rates_table
from balancelab.simulate import runs


def write_report(run_dirs: list[Path] | Path, out: Path | None = None,
                 level: float = stats.LEVEL, margin: float | None = None) -> ReportPaths:
    """Report one run (or compare several) and write it.

    Args:
        run_dirs: one run folder (a report of that run) or several (a comparison report of
            each against the first, see :func:`build_compare_report`).
        out: output folder (default ``<first run>/report`` for one run,
            :func:`compare_folder` for several).
        level: confidence level.
        margin: equivalence margin of a comparison report (default: the game's).

    Raises:
        RunError: a folder that is not a run, or a run with no games.
    """
    dirs = [Path(run_dirs)] if isinstance(run_dirs, (str, Path)) else [Path(d) for d in run_dirs]
    if not dirs:
        raise ValueError("report needs at least one run folder")
    if len(dirs) == 1:
        rep = build_run_report(dirs[0], level)
        return write(rep, out or dirs[0] / "report")
    rep = build_compare_report(dirs, level, margin)
    return write(rep, out or compare_folder(dirs))


def compare_folder(dirs: list[Path]) -> Path:
    """A comparison's own folder, beside the first run: ``compare-<a>-vs-<b>`` (the runs'
    folder names; ``compare-<a>-vs-<n>-runs-<hash>`` when that name would be long), so that
    comparing other runs never overwrites it."""
    import hashlib
    import re

    names = [re.sub(r"[^A-Za-z0-9_.=-]+", "-", Path(d).resolve().name) for d in dirs]
    name = "compare-" + "-vs-".join(names)
    if len(name) > 120:
        digest = hashlib.sha1("\0".join(str(Path(d).resolve()) for d in dirs).encode())
        name = f"compare-{names[0]}-vs-{len(dirs) - 1}-runs-{digest.hexdigest()[:8]}"
    return Path(dirs[0]).parent / name


def run_differences(manifests: list[dict[str, Any]], names: list[str]) -> list[str]:
    """Warnings for runs compared with the first that differ in more than one rule option,
    in their seats (a 3-player run against a solo one) or in their numbers of games."""
    out = []
    base = manifests[0]
    for name, m in zip(names[1:], manifests[1:], strict=True):
        for vb in m["variants"]:
            va = next((v for v in base["variants"] if v["label"] == vb["label"]),
                      base["variants"][0] if len(base["variants"]) == 1 else None)
            if va is None:
                continue
            opts = [f"{k} {W.fmt(va['options'].get(k))} → {W.fmt(v)}"
                    for k, v in vb["options"].items() if va["options"].get(k) != v]
            if va["seats"] != vb["seats"]:
                na, nb = len(va["seats"]), len(vb["seats"])
                out.append(f"{name} is a game of {nb} seat{'s' if nb != 1 else ''} and "
                           f"{names[0]} of {na}" + (" (other seats)" if na == nb else "")
                           + ": its win rates are those of another game, not the effect of "
                           "a rule change.")
            elif len(opts) > 1:
                out.append(f"{name} differs from {names[0]} in {len(opts)} rule options "
                           f"({'; '.join(opts)}): a change in win rate cannot be put down to "
                           "one of them.")
        ga, gb = base["config"]["games"], m["config"]["games"]
        if ga != gb:
            paired = (" only the games both played from the same seed are paired"
                      if base["config"]["seed"] == m["config"]["seed"]
                      else " they share no seed, so no game is paired")
            out.append(f"{name} holds {gb:,} games per setting and {names[0]} {ga:,}:{paired}.")
    return out


def replication_section(frames: list[pl.DataFrame], game: str, level: float,
                        margin: float | None) -> list[Section]:
    """Runs of one design (several variants; same options, policies and version) from
    different seeds are independent seed blocks of one question: its changes pooled, each
    block's estimate and Cochran's Q (:func:`balancelab.analysis.replicate`); none
    otherwise."""
    labels = [sorted(f["variant_label"].unique().to_list()) for f in frames]
    seeds = [set(f["seed"].unique().to_list()) for f in frames]
    same = all(lab == labels[0] for lab in labels) and len(labels[0]) > 1 and all(
        analysis.variants.describe_difference(frames[0], f)
        == "nothing in options, policies or version" for f in frames[1:])
    if not same or len(set().union(*seeds)) < 2 or sum(len(x) for x in seeds) != len(
            set().union(*seeds)):
        return []
    rep = analysis.replicate(frames, level, margin=margin)
    return [Section("Replication on independent seed blocks", [
        "The runs play one design from different seeds: each is an independent seed block "
        "of the same question (verdicts as in the comparison). " + REPLICATION_RULE,
        *[replication_sentence(r, game) for r in rep.iter_rows(named=True)],
    ])]


def build_compare_report(dirs: list[Path], level: float = stats.LEVEL,
                         margin: float | None = None) -> Report:
    """A report comparing runs against the first (paired where they share seeds).

    Raises:
        RunError: a folder that is not a run. ValueError: runs of different games.
    """
    manifests = [runs.read_manifest(d) for d in dirs]
    names = [str(m.get("run_id", d.name)) for m, d in zip(manifests, dirs, strict=True)]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    frames = [analysis.games_frame(d) for d in dirs]
    game = str(manifests[0]["game"])
    comp = analysis.compare_runs(frames, names, level, margin)
    mc = analysis.compare_run_measures(frames, names, level=level)
    headline = [comparison_sentence(r, game) for r in comp.iter_rows(named=True)]
    moved: dict[tuple[str, str], list[str]] = {}
    for r in mc.filter(pl.col("verdict").is_in(["raises", "lowers"])).iter_rows(named=True):
        moved.setdefault((r["value_b"], r["label_b"]), []).append(
            f"{r['verdict']} mean {W.words(game, r['measure'])} ({num(r['mean_a'])} → "
            f"{num(r['mean_b'])})")
    for (run_b, label), what in moved.items():
        at = (f" at {W.variant(game, label)}" if label != "default"
              and len(set(comp["label_b"])) > 1 else "")
        headline.append(f"Run {run_b} against {names[0]}{at}: {'; '.join(what)}.")
    if comp.height:
        headline.extend(family_sentence(comp, game))
        headline.append(pairing_sentence(comp))
    team = analysis.frames.is_team_game(frames[0])
    shown = ["rounds", *dict.fromkeys(
        r["measure"] for r in mc.filter(pl.col("verdict").is_in(["raises", "lowers"])
                                        & (pl.col("measure") != "rounds")).iter_rows(named=True)
    )][:3]
    question = (f"{game_title(game)}: how do {and_words(names[1:])} differ from "
                f"{names[0]} in who wins and in the game's length?")
    short = short_answer(game, comp, mc, shown, team)
    answer = answer_blocks(game, comp, mc, shown, team)
    warns = run_differences(manifests, names)
    blocks: list[str | Table | Image] = []
    for name, f in zip(names, frames, strict=True):
        rates = analysis.win_rates(f, level)
        outs = analysis.outcome_rates(f, level)
        warns += [f"{name}: {w}" for w in warnings_for(rates, outs, game)]
        blocks.append(Table(f"Win rates: {name}", rates_table(rates, game)))
    varying = set().union(*(varying_measures(f) for f in frames)) | {"rounds", "decisions"}
    mc_shown = mc.filter(pl.col("measure").is_in(sorted(varying)))
    measure_blocks: list[str | Table | Image] = [
        f"Game length and the game's measures, each run against {names[0]} (difference of "
        "means, paired t interval where the runs share games, else Welch), one family; "
        "measures that never vary are left out:",
        Table("Differences in measures", measure_comparison_table(mc_shown, game))]
    sections = [
        Section("Every answer in words", list[str | Table | Image](headline)),
        Section("Comparison", [
            f"Each run against {names[0]}: the difference of the side's or seat's win rate, "
            "paired on the games both runs played from the same seeds (same-seed runs of any "
            "sizes), else unpaired; the runs are one family. " + analysis.verdicts.RULE,
            *([pairing_sentence(comp)] if comp.height else []),
            Table("Differences in win rate", comparison_table(comp, game)),
            *(measure_blocks if mc.height else []),
        ]),
        *replication_section(frames, game, level, margin),
        Section("Win rates per run", blocks),
        *[Section(f"Provenance: {n}", provenance(m, read_study(d)).blocks)
          for n, m, d in zip(names, manifests, dirs, strict=True)],
    ]
    return Report(f"balancelab comparison: {' vs '.join(names)}", headline, warns, sections,
                  question, short, answer)
