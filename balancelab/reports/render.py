"""Reports: Markdown and one self-contained HTML page from the analysis frames.

A report opens with its headline answers in plain words with numbers, then any warnings, then
tables (every rate with its interval, named by level and method) and plots, and ends with the
run's provenance. Same data → same bytes: nothing time-dependent is written (no dates, no wall
times), tables and figures are built in a fixed order, PNGs carry no ``Software`` metadata.

Layout written to ``<out>/`` (default ``<run>/report/``)::

    report.md      Markdown, images referenced as files next to it
    report.html    one page, images inline (base64), no network
    *.png          the figures
"""

from __future__ import annotations

import base64
import html
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import plots
from balancelab.simulate import runner

#: Share of games above which a side is "at the ceiling".
CEILING = 0.95
#: Share of capped games above which the report warns.
CAPPED_WARN = 0.01
#: File written by studies into a run folder (precision rounds, study name).
STUDY_FILE = "study.json"
MAX_HEADLINE_VARIANTS = 12


# -- the document model ------------------------------------------------------------------------


@dataclass
class Table:
    title: str
    frame: pl.DataFrame  # already formatted: every column a string
    note: str = ""


@dataclass
class Image:
    name: str
    png: bytes
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[str | Table | Image] = field(default_factory=list)


@dataclass
class Report:
    """A report before rendering."""

    title: str
    headline: list[str]
    warnings: list[str]
    sections: list[Section]

    def images(self) -> list[Image]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Image)]


@dataclass
class ReportPaths:
    """Where a report was written, and its headline (printed by the CLI)."""

    headline: str
    markdown: Path
    html: Path
    figures: list[Path]


# -- formatting --------------------------------------------------------------------------------


def percent(x: float) -> str:
    """A proportion in percent without the sign: one decimal, two below 0.1% (so the upper
    bound of 0/n does not print as 0.0): ``0.4123`` → ``41.2``, ``0.00019`` → ``0.02``."""
    v = 100 * x
    return f"{v:.2f}" if 0 < v < 0.1 else f"{v:.1f}"


def pct(x: float | None) -> str:
    """``0.4123`` → ``41.2%``."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return f"{percent(x)}%"


def interval(lo: float, hi: float) -> str:
    """``[40.2, 42.2]`` (percent); ``[0.0, 0.02]`` for 0 of 20,000."""
    return f"[{percent(lo)}, {percent(hi)}]"


def points(d: float, lo: float, hi: float) -> str:
    """``+13.8 points [12.9, 14.7]``."""
    return f"{100 * d:+.1f} points [{100 * lo:+.1f}, {100 * hi:+.1f}]"


def pvalue(p: float) -> str:
    if p < 0.001:
        return "< 0.001"
    return f"{p:.3f}"


def num(x: Any, digits: int = 2) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return f"{x:,}"
    if isinstance(x, float):
        return f"{x:,.{digits}f}"
    return str(x)


#: column names of the analysis frames as a report's table headers
HEADERS = {"variant_label": "variant", "contender": "side / seat", "end_reason": "end reason",
           "fair_share": "fair share", "count": "games", "n": "games", "p95": "95th pct",
           "seat_name": "seat", "p_value": "p", "lo": "95% low", "hi": "95% high"}


def _strings(df: pl.DataFrame) -> pl.DataFrame:
    """Every value as text (:func:`num`), headers in words (:data:`HEADERS`; a column keeps
    its own name when its word is taken)."""
    out: dict[str, list[str]] = {}
    for c in df.columns:
        word = HEADERS.get(c, c)
        out[word if word not in out and word not in df.columns else c] = [
            num(v) for v in df.get_column(c).to_list()]
    return pl.DataFrame(out)


# -- tables ----------------------------------------------------------------------------------


def rates_table(rates: pl.DataFrame, game: str) -> pl.DataFrame:
    """The win-rate table as printed: counts, rate with Wilson interval, draws, losses, cap."""
    seat_game = bool((rates.get_column("seat") >= 0).any())
    return pl.DataFrame({
        "variant": rates.get_column("variant_label").to_list(),
        "side / seat": [hooks.word(game, c) for c in rates.get_column("contender").to_list()],
        "wins / games": [f"{w:,} / {n:,}" for w, n in rates.select("wins", "games").iter_rows()],
        "win rate [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                                  rates.select("rate", "lo", "hi").iter_rows()],
        "draws": [f"{x:,}" for x in rates.get_column("draws").to_list()],
        "losses": [f"{x:,}" for x in rates.get_column("losses").to_list()],
        "capped": [f"{x:,}" for x in rates.get_column("capped").to_list()],
        **({"fair share": [pct(x) for x in rates.get_column("fair_share").to_list()]}
           if seat_game else {}),
    })


def policy_table(pol: pl.DataFrame, game: str) -> pl.DataFrame:
    """Win rate by policy (``analysis.policy_rates``) as printed: counts, rate with its
    interval, and the fair share where seats compete."""
    fair = pol.get_column("fair_share").to_list()
    return pl.DataFrame({
        "variant": pol.get_column("variant_label").to_list(),
        "side / seat": [hooks.word(game, c) for c in pol.get_column("contender").to_list()],
        "policy": pol.get_column("policy").to_list(),
        "wins / games": [f"{w:,} / {n:,}" for w, n in pol.select("wins", "games").iter_rows()],
        "win rate [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                                  pol.select("rate", "lo", "hi").iter_rows()],
        **({"fair share": [pct(x) for x in fair]} if any(x is not None for x in fair)
           else {}),  # seat games only
    })


def end_reasons_table(er: pl.DataFrame, game: str) -> pl.DataFrame:
    """End reasons (``analysis.end_reasons``) as printed: games and share per reason."""
    return pl.DataFrame({
        "variant": er.get_column("variant_label").to_list(),
        "winner": [hooks.word(game, w) for w in er.get_column("winner").to_list()],
        "end reason": [hooks.word(game, r).replace("_", " ")
                       for r in er.get_column("end_reason").to_list()],
        "games": [f"{c:,}" for c in er.get_column("count").to_list()],
        "share": [pct(x) for x in er.get_column("share").to_list()],
    })


def outcomes_table(out: pl.DataFrame, game: str) -> pl.DataFrame:
    return pl.DataFrame({
        "variant": out.get_column("variant_label").to_list(),
        "outcome": [hooks.word(game, o) for o in out.get_column("outcome").to_list()],
        "games": [f"{c:,} / {n:,}" for c, n in out.select("count", "games").iter_rows()],
        "share [95% Wilson]": [f"{pct(r)} {interval(lo, hi)}" for r, lo, hi in
                               out.select("rate", "lo", "hi").iter_rows()],
    })


def _change(r: dict[str, Any]) -> str:
    """What a comparison changes; for two runs, what differs between them."""
    if r["option"] == "run":
        return f"{r['context']} ({r['value_a']} → {r['value_b']})" if r["context"] else (
            f"{r['value_a']} → {r['value_b']}")
    return f"{r['option']} {r['value_a']} → {r['value_b']}"


def _fixed(r: dict[str, Any]) -> str:
    return "–" if r["option"] == "run" else (r["context"] or "–")


def adjacent_pairs(df: pl.DataFrame) -> pl.DataFrame:
    """The pairs of variants at neighbouring settings of one option (``analysis.variant_pairs``
    with ``adjacent_only``): columns ``option`` (str), ``variant_a``, ``variant_b`` (Int32)."""
    rows = [(o, a, b) for o, a, b, _ in analysis.variant_pairs(df, adjacent_only=True)]
    return pl.DataFrame(rows, schema={"option": pl.String, "variant_a": pl.Int32,
                                      "variant_b": pl.Int32}, orient="row")


def verdict_verb(verdict: str, significant: bool) -> str:
    """The verb of a verdict: ``raises``/``lowers`` only for a change whose interval excludes
    0 *and* that survives Holm's correction across its table; ``moves`` for one whose
    interval excludes 0 but not the correction; else the verdict (``no detectable change``)."""
    if verdict in ("raises", "lowers") and not significant:
        return "moves"
    return verdict


def verdict_word(verdict: str, significant: bool) -> str:
    """A verdict as every table reports it: :func:`verdict_verb`, with ``moves`` spelt out as
    ``moves (not significant after Holm)``."""
    verb = verdict_verb(verdict, significant)
    return "moves (not significant after Holm)" if verb == "moves" else verb


def comparison_table(comp: pl.DataFrame, game: str) -> pl.DataFrame:
    return pl.DataFrame({
        "change": [_change(r) for r in comp.iter_rows(named=True)],
        "held fixed": [_fixed(r) for r in comp.iter_rows(named=True)],
        "side / seat": [hooks.word(game, c) for c in comp.get_column("contender").to_list()],
        "before": [pct(x) for x in comp.get_column("rate_a").to_list()],
        "after": [pct(x) for x in comp.get_column("rate_b").to_list()],
        "difference [95%]": [points(d, lo, hi) for d, lo, hi in
                             comp.select("diff", "lo", "hi").iter_rows()],
        "p": [pvalue(p) for p in comp.get_column("p_value").to_list()],
        "p (Holm)": [pvalue(p) for p in comp.get_column("p_holm").to_list()],
        "paired": ["yes" if p else "no" for p in comp.get_column("paired").to_list()],
        "verdict": [verdict_word(v, s) for v, s in comp.select("verdict", "significant")
                    .iter_rows()],
    })


def measure_comparison_table(mc: pl.DataFrame) -> pl.DataFrame:
    return pl.DataFrame({
        "change": [_change(r) for r in mc.iter_rows(named=True)],
        "held fixed": [_fixed(r) for r in mc.iter_rows(named=True)],
        "measure": mc.get_column("measure").to_list(),
        "before (mean)": [num(x) for x in mc.get_column("mean_a").to_list()],
        "after (mean)": [num(x) for x in mc.get_column("mean_b").to_list()],
        "difference [95%]": [f"{d:+.2f} [{lo:+.2f}, {hi:+.2f}]" for d, lo, hi in
                             mc.select("diff", "lo", "hi").iter_rows()],
        "p (Holm)": [pvalue(p) for p in mc.get_column("p_holm").to_list()],
        "verdict": [verdict_word(v, s) for v, s in mc.select("verdict", "significant")
                    .iter_rows()],
    })


# -- sentences -------------------------------------------------------------------------------


def _wilson_text(rate: float, n: int) -> str:
    lo, hi = stats.wilson(round(rate * n), n)
    return interval(float(lo), float(hi))


def comparison_sentence(r: dict[str, Any], game: str) -> str:
    """"At crew=3, hal_extra_turns 0 → 1 raises HAL's win rate from … to …; the difference …"."""
    who = hooks.word(game, r["contender"])
    at = f"At {r['context']}, " if r.get("context") and r["option"] != "run" else ""
    if r["option"] == "run":
        change = f"run {r['value_b']} against {r['value_a']} ({r['context']})"
    else:
        change = f"{r['option']} {r['value_a']} → {r['value_b']}"
    verb = verdict_verb(r["verdict"], r["significant"])
    body = (f"{change} {verb} {who}'s win rate from {pct(r['rate_a'])} "
            f"{_wilson_text(r['rate_a'], r['n_a'])} to "
            f"{pct(r['rate_b'])} "
            f"{_wilson_text(r['rate_b'], r['n_b'])}")
    if r["verdict"] == "no detectable change":
        body = (f"{change} makes no detectable change to {who}'s win rate "
                f"({pct(r['rate_a'])} → {pct(r['rate_b'])})")
    sig = ("is significant" if r["significant"] else
           "is not significant after Holm's correction")
    pair = "paired" if r["paired"] else "unpaired"
    sent = (f"{at}{body}; the difference, {points(r['diff'], r['lo'], r['hi'])} ({pair}), "
            f"{sig} (Holm p {pvalue(r['p_holm'])}).")
    if at:
        return sent
    return f"Changing {sent}" if r["option"] != "run" else sent[0].upper() + sent[1:]


def measure_sentence(r: dict[str, Any]) -> str:
    """"At players=3, remove_shuttles false → true lowers mean turns from 45.7 to 37.6: …"."""
    at = f"At {r['context']}, " if r.get("context") else ""
    verb = verdict_verb(r["verdict"], r["significant"])
    change = f"{r['option']} {r['value_a']} → {r['value_b']}"
    if r["verdict"] == "no detectable change":
        body = (f"{change} makes no detectable change to mean {r['measure']} "
                f"({r['mean_a']:.2f} → {r['mean_b']:.2f})")
    else:
        body = (f"{change} {verb} mean {r['measure']} from {r['mean_a']:.2f} to "
                f"{r['mean_b']:.2f}")
    pair = "paired" if r["paired"] else "unpaired"
    sig = ("significant" if r["significant"] else "not significant after Holm's correction")
    sent = (f"{at}{body}; the difference, {r['diff']:+.2f} [{r['lo']:+.2f}, {r['hi']:+.2f}] "
            f"({pair}, 95%), is {sig} (Holm p {pvalue(r['p_holm'])}).")
    return sent if at else f"Changing {sent}"


def variant_sentence(rates: pl.DataFrame, outcomes: pl.DataFrame, game: str) -> str:
    """One variant's result in words: every contender's rate with its interval."""
    label = rates.get_column("variant_label")[0]
    n = int(rates.get_column("games")[0])
    parts = []
    for r in rates.iter_rows(named=True):
        fair = f" (fair share {pct(r['fair_share'])})" if r["seat"] >= 0 else ""
        who = hooks.word(game, r["contender"])
        verb = "win" if who.endswith("ALIENS") else "wins"
        parts.append(f"{who} {verb} {pct(r['rate'])} "
                     f"{interval(r['lo'], r['hi'])}{fair}")
    extra = []
    for r in outcomes.iter_rows(named=True):
        if r["outcome"] in ("draw", "tie", "capped") and r["count"] > 0:
            extra.append(f"{r['outcome']} {pct(r['rate'])}")
    tail = f"; {', '.join(extra)}" if extra else ""
    return f"At {label} ({n:,} games): {', '.join(parts)}{tail}."


# -- building a run report -------------------------------------------------------------------


def _img(name: str, fig: Any, caption: str) -> Image:
    return Image(name, plots.png_bytes(fig), caption)


def _provenance(manifest: dict[str, Any], study: dict[str, Any] | None) -> Section:
    cfg = manifest.get("config", {})
    rows = [
        ("run", manifest.get("run_id", "")),
        ("game", f"{manifest.get('game', '')} (version {manifest.get('game_version', '')})"),
        ("seed", str(cfg.get("seed", ""))),
        ("games per variant", f"{cfg.get('games', '')}"),
        ("games written", f"{manifest.get('games_written', '')} of "
                          f"{manifest.get('games_total', '')}"
                          + ("" if manifest.get("complete") else " (incomplete run)")),
        ("policies asked for", json.dumps(cfg.get("policies", {}), sort_keys=True) or "{}"),
        ("seat rotation", str(cfg.get("rotate", ""))),
        ("chunk size", str(cfg.get("chunk_games", ""))),
        ("configuration id", manifest.get("identity", "")),
        ("versions", ", ".join(f"{k} {v}" for k, v in sorted(manifest.get("versions",
                                                                            {}).items()))),
    ]
    if study:
        rows.append(("study", json.dumps({k: v for k, v in study.items() if k != "rounds"},
                                         sort_keys=True)))
    t = pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]})
    vt = pl.DataFrame({
        "variant": [str(v["variant"]) for v in manifest.get("variants", [])],
        "label": [v["label"] for v in manifest.get("variants", [])],
        "seats": [", ".join(f"{s}={p}" for s, p in zip(v["seats"], v["policies"], strict=False))
                  for v in manifest.get("variants", [])],
        "options": [", ".join(f"{k}={_optval(x)}" for k, x in v["options"].items())
                    for v in manifest.get("variants", [])],
    })
    return Section("Provenance", [
        "Every game can be replayed from the run seed and its game index "
        "(`balancelab trace <run> --index i`).",
        Table("Run", t), Table("Variants (options and policy per seat)", vt),
    ])


def _optval(x: Any) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, (list, tuple)):
        return "/".join(map(str, x))
    return str(x)


def read_study(path: Path) -> dict[str, Any] | None:
    f = Path(path) / STUDY_FILE
    if not f.is_file():
        return None
    data: dict[str, Any] = json.loads(f.read_text())
    return data


def warnings_for(rates: pl.DataFrame, outcomes: pl.DataFrame, game: str) -> list[str]:
    """Ceiling and capped-games warnings, in words."""
    out = []
    top = rates.filter(pl.col("rate") > CEILING)
    if top.height:
        where = "; ".join(f"{hooks.word(game, r['contender'])} {pct(r['rate'])} at "
                          f"{r['variant_label']}" for r in top.iter_rows(named=True))
        labels = list(top.get_column("variant_label"))
        # what-if options these variants do not set already (a label names non-defaults)
        opts = [o for o in hooks.what_if_options(game)
                if not any(f"{o}=" in label for label in labels)]
        hint = (f" The what-if options {', '.join(opts)} move the game off the ceiling; "
                "re-run with them to compare rules where the numbers have room to move."
                if opts else " Consider stronger policies for the losing side or a rule "
                "change that gives the numbers room to move.")
        out.append(f"Ceiling: one side wins more than {pct(CEILING)} ({where}). A comparison "
                   f"at the ceiling says little about the rules.{hint}")
    capped = outcomes.filter((pl.col("outcome") == "capped") & (pl.col("rate") > CAPPED_WARN))
    if capped.height:
        where = "; ".join(f"{pct(r['rate'])} at {r['variant_label']}"
                          for r in capped.iter_rows(named=True))
        out.append(f"Capped games: more than {pct(CAPPED_WARN)} of games hit the round cap "
                   f"({where}). They count as neither win nor loss; a policy may be stalling.")
    return out


def build_run_report(path: Path, level: float = stats.LEVEL) -> Report:
    """Analyse one run folder into a :class:`Report`.

    Raises:
        RunError: not a run folder, or no games written.
    """
    path = Path(path)
    manifest = runner.read_manifest(path)
    study = read_study(path)
    df = runner.load_games(path)
    seats = analysis.seats_frame(path)
    game = str(manifest["game"])
    hook = hooks.hook_for(game)
    rates = analysis.sweep_table(df, level)
    outs = analysis.outcome_rates(df, level)
    vary = analysis.frames.swept_options(df)
    n_var = df.get_column("variant").n_unique()
    comps = analysis.compare_variants(df, level) if n_var > 1 else None
    # one family of measure comparisons (one Holm correction) for the table and the headline
    mcomps = analysis.compare_measures(df, level=level, adjacent_only=True) if n_var > 1 \
        else None
    extra = hooks.extra_sections(game, df, seats)

    headline: list[str] = []
    if n_var <= MAX_HEADLINE_VARIANTS:
        for (v,), sub in sorted(rates.partition_by("variant", as_dict=True).items()):
            headline.append(variant_sentence(sub, outs.filter(pl.col("variant") == v), game))
    if comps is not None and comps.height:
        prim = hook.primary if hook.primary in set(comps["contender"]) else None
        if prim is None and analysis.frames.is_team_game(df):
            prim = comps.get_column("contender")[0]
        key = comps.join(adjacent_pairs(df), on=["option", "variant_a", "variant_b"],
                         how="semi")
        if prim is not None:
            key = key.filter(pl.col("contender") == prim)
        focus = (study or {}).get("focus")
        if focus:
            key = key.filter(pl.col("option") == focus)
        for r in key.head(24).iter_rows(named=True):
            headline.append(comparison_sentence(r, game))
        wanted = [m for m in (study or {}).get("measures", []) if m in df.columns]
        if focus and wanted and mcomps is not None:
            for r in mcomps.filter((pl.col("option") == focus)
                                   & pl.col("measure").is_in(wanted)).iter_rows(named=True):
                headline.append(measure_sentence(r))
    for s in extra:
        headline.extend(s.headline)
    if study and study.get("rounds"):
        last = study["rounds"][-1]
        headline.append(
            f"Precision: stopped at {last['games']:,} games per variant, when every variant's "
            f"anytime-valid 95% interval was within ±{pct(last['max_half_width'])} (target "
            f"±{pct(study['precision'])}; {len(study['rounds'])} rounds: "
            f"{', '.join(format(r['games'], ',') for r in study['rounds'])} games)."
            + ("" if last["max_half_width"] <= study["precision"] else
               " The target was NOT reached before the game limit.")
        )
    warns = warnings_for(rates, outs, game)
    if manifest.get("cheats"):
        warns.insert(0, f"CHEAT: {', '.join(manifest['cheats'])} sees the true state (every "
                     "hand, the deck order), not its seat's view. Its win rate is an upper "
                     "bound on what a player could do, not a fair result.")

    sections: list[Section] = []
    sec = Section("Win rates", [
        f"Win rate of each side or seat per variant, with {int(level * 100)}% Wilson score "
        "intervals. Draws and capped games are kept apart: wins + draws + losses + capped = "
        "games.",
        Table("Win rates", rates_table(rates, game)),
        _img("winrates.png", plots.winrates(rates), "Win rate per variant with 95% intervals."),
        Table("How games ended", outcomes_table(outs, game)),
        _img("outcomes.png", plots.outcomes(outs), "Share of games by outcome."),
    ])
    pol = analysis.policy_rates(df, level)
    if pol.get_column("policy").n_unique() > 1 or not analysis.frames.is_team_game(df):
        sec.blocks.append(Table("Win rate by policy", policy_table(pol, game)))
    sections.append(sec)

    if comps is not None:
        cs = Section("Comparisons between variants", [
            "Each pair of variants that differ in one option; the difference of each side's "
            "win rate (after − before) with a 95% interval — paired (Newcombe's paired score "
            "interval, McNemar p) where games share seeds, else unpaired (Newcombe's hybrid "
            "score, z-test p) — and Holm's correction across the "
            f"{comps.height} comparisons. The verdict reads the interval only.",
            Table("Differences in win rate", comparison_table(comps, game)),
        ])
        if comps.height:
            cs.blocks.append(_img("differences.png", plots.differences(comps),
                                  "Differences in win rate with 95% intervals."))
        prim = hook.primary or rates.get_column("contender")[0]
        for i, opt in enumerate(vary):
            others = [o for o in vary if o != opt]
            by = others[0] if len(others) == 1 else None
            if len(others) <= 1:
                cs.blocks.append(_img(f"vs-{opt}.png",
                                      plots.winrate_vs_option(rates, opt, prim, by),
                                      f"{hooks.word(game, prim)} win rate against {opt}."))
            if i == 0 and len(vary) == 2:
                grid = analysis.heat_grid(rates, vary[1], vary[0], prim)
                cs.blocks.append(_img("heatmap.png",
                                      plots.heatmap(grid, vary[1], vary[0], prim),
                                      f"{hooks.word(game, prim)} win rate over {vary[0]} × "
                                      f"{vary[1]}."))
        mc = mcomps
        if mc is not None and mc.height:
            cs.blocks.append("Changes in game length and the game's measures between "
                             "neighbouring settings (difference of means, paired t interval "
                             "where games share seeds, else Welch), Holm across rows:")
            cs.blocks.append(Table("Differences in measures", measure_comparison_table(mc)))
        sections.append(cs)

    length = analysis.length_summary(df)
    er = analysis.end_reasons(df)
    sections.append(Section("Game length and end reasons", [
        "Rounds and decisions per game (mean, sd, median, 95th percentile).",
        Table("Game length", _strings(length.drop("variant"))),
        _img("rounds.png", plots.distribution(df, "rounds", "Game length (rounds)"),
             "Distribution of game length."),
        Table("End reasons", end_reasons_table(er, game)),
    ]))
    meas = analysis.measure_summary(df)
    if meas.height:
        ms = Section("The game's measures", [
            "Each measure the game records, per variant.",
            Table("Measures", _strings(meas.drop("variant"))),
        ])
        sections.append(ms)
    for s in extra:
        blocks: list[str | Table | Image] = list(s.paragraphs)
        blocks += [Table(t, _strings(f)) for t, f in s.tables]
        if s.title == "Scores" and seats is not None and "score" in seats.columns:
            blocks.append(_img("scores.png", plots.score_boxes(seats), "Score by seat."))
            wm = analysis.winner_margin(df, seats)
            if wm.height:
                wm = wm.join(df.select("variant", "variant_label").unique(), on="variant")
                blocks.append(_img("margin.png",
                                   plots.distribution(wm, "margin", "Winner's margin"),
                                   "Distribution of the winner's margin."))
        sections.append(Section(s.title, blocks))
    if study and study.get("rounds"):
        rt = pl.DataFrame(study["rounds"]).select(
            pl.col("games").map_elements(lambda x: f"{x:,}", return_dtype=pl.String),
            pl.col("max_half_width").map_elements(pct, return_dtype=pl.String)
            .alias("widest ± (anytime-valid 95%)"),
        )
        sections.append(Section("Precision rounds", [
            f"The run was extended in rounds until every variant's {stats.CS_METHOD} was "
            f"within ±{pct(study['precision'])} (looking repeatedly at a Wilson interval would "
            "not be valid).", Table("Rounds", rt),
        ]))
    sections.append(_provenance(manifest, study))
    title = f"balancelab report: {manifest.get('run_id', path.name)}"
    return Report(title, headline, warns, sections)


# -- rendering -------------------------------------------------------------------------------


def _md_table(t: Table) -> str:
    cols = t.frame.columns
    esc = [c.replace("|", "\\|") for c in cols]
    lines = [f"**{t.title}**", "", "| " + " | ".join(esc) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    for row in t.frame.iter_rows():
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def to_markdown(report: Report) -> str:
    """The report as Markdown; figures referenced as ``<name>.png`` next to the file."""
    out = [f"# {report.title}", "", "## Answers", ""]
    out += [f"- {h}" for h in report.headline] or ["- (no games)"]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- **Warning.** {w}" for w in report.warnings]
    for s in report.sections:
        out += ["", f"## {s.title}", ""]
        for b in s.blocks:
            if isinstance(b, Table):
                out += [_md_table(b), ""]
            elif isinstance(b, Image):
                out += [f"![{b.caption}]({b.name})", ""]
            else:
                out += [b, ""]
    return "\n".join(out).rstrip() + "\n"


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:2em auto;
padding:0 1em;color:#222;line-height:1.45}
table{border-collapse:collapse;margin:.5em 0 1.2em;font-size:.85em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f2f2f2} .answers li{margin:.3em 0} .warn{background:#fff4e5;border-left:4px solid
#f0a000;padding:.5em 1em;margin:.5em 0} figure{margin:1em 0} figcaption{font-size:.85em;color:#555}
img{max-width:100%}
""".strip()


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (images inline as base64, no network)."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body>",
           f"<h1>{e(report.title)}</h1>", "<h2>Answers</h2>", '<ul class="answers">']
    out += [f"<li>{e(h)}</li>" for h in report.headline]
    out.append("</ul>")
    if report.warnings:
        out.append("<h2>Warnings</h2>")
        out += [f'<div class="warn"><strong>Warning.</strong> {e(w)}</div>'
                for w in report.warnings]
    for s in report.sections:
        out.append(f"<h2>{e(s.title)}</h2>")
        for b in s.blocks:
            if isinstance(b, Table):
                out.append(f"<h3>{e(b.title)}</h3><table><thead><tr>"
                           + "".join(f"<th>{e(c)}</th>" for c in b.frame.columns)
                           + "</tr></thead><tbody>")
                for row in b.frame.iter_rows():
                    out.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>")
                out.append("</tbody></table>")
                if b.note:
                    out.append(f"<p>{e(b.note)}</p>")
            elif isinstance(b, Image):
                data = base64.b64encode(b.png).decode("ascii")
                out.append(f'<figure><img alt="{e(b.caption)}" '
                           f'src="data:image/png;base64,{data}">'
                           f"<figcaption>{e(b.caption)}</figcaption></figure>")
            else:
                out.append(f"<p>{e(b)}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(report: Report, out: Path) -> ReportPaths:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out``.

    Raises:
        ValueError: ``out`` exists and is not a folder.
        OSError: the folder cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{str(out)!r} is a file; --out takes a folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    for img in report.images():
        p = out / img.name
        p.write_bytes(img.png)
        figs.append(p)
    md = out / "report.md"
    md.write_text(to_markdown(report), encoding="utf-8")
    page = out / "report.html"
    page.write_text(to_html(report), encoding="utf-8")
    head = "\n".join(report.headline + [f"Warning: {w}" for w in report.warnings])
    return ReportPaths(head, md, page, figs)


def write_report(run_dirs: list[Path] | Path, out: Path | None = None,
                 level: float = stats.LEVEL) -> ReportPaths:
    """Report one run (or compare several) and write it.

    Args:
        run_dirs: one run folder (a report of that run) or several (a comparison report of
            each against the first, see :func:`build_compare_report`).
        out: output folder (default ``<first run>/report`` for one run,
            ``<first run>/compare`` for several).
        level: confidence level.

    Raises:
        RunError: a folder that is not a run, or a run with no games.
    """
    dirs = [Path(run_dirs)] if isinstance(run_dirs, (str, Path)) else [Path(d) for d in run_dirs]
    if not dirs:
        raise ValueError("report needs at least one run folder")
    if len(dirs) == 1:
        rep = build_run_report(dirs[0], level)
        return write(rep, out or dirs[0] / "report")
    rep = build_compare_report(dirs, level)
    return write(rep, out or dirs[0] / "compare")


def build_compare_report(dirs: list[Path], level: float = stats.LEVEL) -> Report:
    """A report comparing runs against the first (paired where they share seeds).

    Raises:
        RunError: a folder that is not a run. ValueError: runs of different games.
    """
    manifests = [runner.read_manifest(d) for d in dirs]
    names = [str(m.get("run_id", d.name)) for m, d in zip(manifests, dirs, strict=True)]
    if len(set(names)) < len(names):
        names = [str(d) for d in dirs]
    frames = [runner.load_games(d) for d in dirs]
    game = str(manifests[0]["game"])
    comp = analysis.compare_runs(frames, names, level)
    mc = analysis.compare_run_measures(frames, names, level=level)
    headline = [comparison_sentence(r, game) for r in comp.iter_rows(named=True)]
    moved: dict[tuple[str, str], list[str]] = {}
    for r in mc.filter(pl.col("significant") & pl.col("verdict").is_in(["raises", "lowers"])
                       ).iter_rows(named=True):
        moved.setdefault((r["value_b"], r["label_b"]), []).append(
            f"{r['verdict']} mean {r['measure']} ({num(r['mean_a'])} → {num(r['mean_b'])})")
    for (run_b, label), what in moved.items():
        at = f" at {label}" if label != "default" and len(set(comp["label_b"])) > 1 else ""
        headline.append(f"Run {run_b} against {names[0]}{at}: {'; '.join(what)} "
                        "(Holm-significant changes of the game's measures).")
    warns: list[str] = []
    blocks: list[str | Table | Image] = []
    for name, f in zip(names, frames, strict=True):
        rates = analysis.win_rates(f, level)
        outs = analysis.outcome_rates(f, level)
        warns += [f"{name}: {w}" for w in warnings_for(rates, outs, game)]
        blocks.append(Table(f"Win rates: {name}", rates_table(rates, game)))
    measure_blocks: list[str | Table | Image] = [
        f"Game length and the game's measures, each run against {names[0]} (difference of "
        "means, paired t interval where the runs share seeds, else Welch), Holm across rows:",
        Table("Differences in measures", measure_comparison_table(mc))]
    sections = [
        Section("Comparison", [
            f"Each run against {names[0]}: the difference of each side's win rate with a 95% "
            "interval (paired where the runs share seeds and game indices, else unpaired), "
            f"Holm's correction across the {comp.height} comparisons; verdict from the "
            "interval only.",
            Table("Differences in win rate", comparison_table(comp, game)),
            *([_img("differences.png", plots.differences(comp),
                    "Differences in win rate with 95% intervals.")] if comp.height else []),
            *(measure_blocks if mc.height else []),
        ]),
        Section("Win rates per run", blocks),
        *[Section(f"Provenance: {n}", _provenance(m, read_study(d)).blocks)
          for n, m, d in zip(names, manifests, dirs, strict=True)],
    ]
    return Report(f"balancelab comparison: {' vs '.join(names)}", headline, warns, sections)
