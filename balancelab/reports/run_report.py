"""The report of one run: the question, the answer (a compact table and a plot), then under
"Details" every answer in words, the tables (every rate with its interval, named by level and
method), the plots and the run's provenance."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

import polars as pl

from balancelab import analysis
from balancelab.analysis import stats
from balancelab.reports import games as hooks
from balancelab.reports import plots
from balancelab.reports import words as W
from balancelab.reports.answer import answer_blocks, short_answer
from balancelab.reports.formatting import pct
from balancelab.reports.page import Image, Report, Section, Table, figure
from balancelab.reports.sentences import (
    REPLICATION_RULE,
    and_words,
    comparison_sentence,
    family_sentence,
    measure_sentence,
    not_replicated_sentence,
    pairing_sentence,
    possessive,
    replication_sentence,
    seat_sentences,
    second_look_sentence,
    stopping_sentence,
    variant_sentence,
    warnings_for,
)
from balancelab.reports.tables import (
    as_text,
    comparison_table,
    end_reasons_table,
    measure_comparison_table,
    outcomes_table,
    policy_table,
    rates_answer,
    rates_table,
    seat_table,
    worded,
)
from balancelab.simulate import runs

#: File written by studies into a run folder (precision rounds, study name).
STUDY_FILE = "study.json"
MAX_HEADLINE_VARIANTS = 12
#: The title of the section that reads the question on the run's seed blocks.
REPLICATION = "Replication on independent seed blocks"


def varying_measures(games: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """The game's measures that take more than one value in the run (a measure that never
    varies says nothing and is left out of the tables); read lazily from a scan."""
    lf = games.lazy()
    cols = analysis.frames.measure_columns(pl.DataFrame(schema=lf.collect_schema()))
    if not cols:
        return []
    # a measure varies when its smallest and largest values differ: two numbers per column,
    # streamed (counting distinct values held every column of a million games at once)
    lo = lf.select(pl.col(c).drop_nulls().min() for c in cols)
    hi = lf.select(pl.col(c).drop_nulls().max() for c in cols)
    both = pl.concat([lo, hi], how="vertical_relaxed").collect(engine="streaming")
    return [c for c in cols if both.get_column(c).n_unique() > 1]

def provenance(manifest: dict[str, Any], study: dict[str, Any] | None) -> Section:
    """Where the numbers come from, as readable tables: the run, the options that differ
    between its variants (with each variant's players), and every rule option once."""
    cfg = manifest.get("config", {})
    game = str(manifest.get("game", ""))
    variants = manifest.get("variants", [])
    asked = cfg.get("policies", {}) or {}
    rows = [
        ("run", str(manifest.get("run_id", ""))),
        ("game", f"{game} (rules version {manifest.get('game_version', '')})"),
        ("run seed", str(cfg.get("seed", ""))),
        ("games per variant", f"{cfg.get('games', 0):,}"),
        ("games written", f"{manifest.get('games_written', 0):,} of "
                          f"{manifest.get('games_total', 0):,}"
                          + ("" if manifest.get("complete") else " (incomplete run)")),
        ("players asked for", ", ".join(f"{W.contender(game, k)}: {v}" for k, v in
                                        sorted(asked.items())) or "the defaults"),
        ("seats rotated among equal players", "yes" if cfg.get("rotate") else "no"),
        ("games per chunk file", str(cfg.get("chunk_games", ""))),
        ("configuration id", str(manifest.get("identity", ""))),
        ("versions", ", ".join(f"{k} {v}" for k, v in sorted(manifest.get("versions",
                                                                            {}).items()))),
    ]
    if study:
        if study.get("study"):
            rows.append(("study", f"{study['study']}: {study.get('question', '')}"))
        if study.get("focus"):
            rows.append(("the question's option", W.words(game, str(study["focus"]))))
        if study.get("measures"):
            rows.append(("the question's measures",
                         ", ".join(W.words(game, m) for m in study["measures"])))
        if study.get("grid"):
            rows.append(("grid", "; ".join(
                f"{W.words(game, k)}: "
                + ", ".join(W.setting(game, k, v.lower() if v in ("True", "False") else v)
                            for v in vs) for k, vs in study["grid"].items())))
        for k in ("pairing", "pairs", "margin", "stop", "target"):
            if study.get(k) is not None:
                rows.append((k, str(study[k])))
    t = pl.DataFrame({"item": [r[0] for r in rows], "value": [r[1] for r in rows]},
                     schema={"item": pl.String, "value": pl.String})
    opts = [dict(v.get("options", {})) for v in variants]
    names = list(opts[0]) if opts else []
    differ = [k for k in names if len({W.fmt(o.get(k)) for o in opts}) > 1]
    vt = pl.DataFrame({
        **({} if differ else {"variant": [W.variant(game, v["label"]) for v in variants]}),
        **{W.label(game, k): [W.setting(game, k, o.get(k)) for o in opts] for k in differ},
        "players per seat": [
            ", ".join(f"{W.contender(game, s_, len(v['seats']))}: {p}"
                      for s_, p in zip(v["seats"], v["policies"], strict=False))
            for v in variants],
    })
    same = [k for k in names if k not in differ]
    ot = pl.DataFrame({
        "option": [f"--{k.replace('_', '-')}" for k in same],
        "value": [W.fmt(opts[0][k]) for k in same],
        "meaning": [W.meaning(game, k) for k in same],
    }, schema={"option": pl.String, "value": pl.String, "meaning": pl.String})
    return Section("Provenance", [
        "Every game can be replayed from the run seed and its game number "
        "(`balancelab trace RUN --index N`).",
        Table("Run", t), Table("Variants: the options that differ, and the players", vt),
        Table("Every other rule option (the same in every variant)", ot),
    ])


def read_study(path: Path) -> dict[str, Any] | None:
    f = Path(path) / STUDY_FILE
    if not f.is_file():
        return None
    data: dict[str, Any] = json.loads(f.read_text())
    return data

def block_runs(path: Path, study: dict[str, Any] | None = None) -> list[Path]:
    """The run folders of a run's independent seed blocks: the run itself, then each block
    its ``study.json`` records (``blocks``, written by a sweep of several blocks) that
    exists beside it."""
    path = Path(path)
    facts = study if study is not None else (read_study(path) or {})
    more = [path.parent / str(b["folder"]) for b in facts.get("blocks") or []]
    return [path, *[b for b in more if (b / runs.MANIFEST).is_file()]]


def question_games(path: Path) -> tuple[Path | pl.DataFrame, int]:
    """The games a run's question is read on, and the number of seed blocks: the run
    folder itself (1), or the games of all its seed blocks in one frame
    (:func:`block_runs`; pairing stays within a seed)."""
    blocks = block_runs(path)
    if len(blocks) == 1:
        return Path(path), 1
    return pl.concat([analysis.games_frame(b) for b in blocks],
                     how="diagonal_relaxed"), len(blocks)


def build_run_report(path: Path, level: float = stats.LEVEL) -> Report:
    """Analyse one run folder into a :class:`Report`: the question, the answer (a compact
    table, a plot), then the details.

    Raises:
        RunError: not a run folder, or no games written.
    """
    path = Path(path)
    manifest = runs.read_manifest(path)
    study = read_study(path)
    # with who shared first place (one shared-win rule); in compact storage, the per-game
    # measures only where comparisons between variants need them (a sweep)
    multi = len(manifest.get("variants") or []) != 1
    df = analysis.frames.compact_games_frame(path, per_game_measures=multi)
    seats = analysis.seats_frame(path)
    game = str(manifest["game"])
    hook = hooks.hook_for(game)
    rates = analysis.sweep_table(df, level)
    outs = analysis.outcome_rates(df, level)
    vary = analysis.frames.swept_options(df)
    n_var = df.get_column("variant").n_unique()
    st = study or {}
    focus = st.get("focus") if st.get("focus") in vary else None
    margin = st.get("margin")
    team = analysis.frames.is_team_game(df)
    # summaries and the length histogram read the run folder lazily, column by column
    scan = runs.scan_games(path)
    varying = varying_measures(scan)
    source, n_blocks = question_games(path) if n_var > 1 else (df, 1)
    pooled = df if n_blocks == 1 else source
    sequential = bool(st.get("decide")) and n_blocks == 1
    comps = analysis.compare_variants(pooled, level, focus=focus, pairs=st.get("pairs"),
                                      margin=margin, sequential=sequential) \
        if n_var > 1 else None
    rep = analysis.replicate(pooled, level, focus=focus, pairs=st.get("pairs"),
                             margin=margin) if n_blocks > 1 else None
    wanted = [m for m in st.get("measures", []) if m in df.columns] or None
    mcomps = analysis.compare_measures(pooled, wanted or ["rounds", *varying], level,
                                       focus=focus,
                                       pairs=st.get("pairs")) if n_var > 1 else None
    sb = analysis.seat_balance(df, level, margin)
    extra = hooks.extra_sections(game, df, seats)
    prim = hook.primary or (rates.get_column("contender")[0] if team else None)

    headline: list[str] = []
    if n_var <= MAX_HEADLINE_VARIANTS:
        for (v,), sub in sorted(rates.partition_by("variant", as_dict=True).items()):
            headline.append(variant_sentence(sub, outs.filter(pl.col("variant") == v), game))
    if comps is not None and comps.height:
        for r in comps.head(24).iter_rows(named=True):
            headline.append(comparison_sentence(r, game))
        if focus and wanted and mcomps is not None:
            for r in mcomps.iter_rows(named=True):
                headline.append(measure_sentence(r, game))
        headline.extend(family_sentence(comps, game))
    if sb.height and n_var <= MAX_HEADLINE_VARIANTS:
        headline.extend(seat_sentences(sb, game))
    for s in extra:
        headline.extend(s.headline)
    stop = stopping_sentence(st)
    if stop:
        headline.append(stop)
    warns = warnings_for(rates, outs, game)
    looks = [e for b in ([path] if n_blocks == 1 else block_runs(path, st))
             for e in runs.read_manifest(b, check=False).get("extensions") or []
             if not e.get("planned")]
    if looks:
        warns.append(second_look_sentence(looks))
    if manifest.get("cheats"):
        warns.insert(0, f"CHEAT: {', '.join(manifest['cheats'])} sees the true state (every "
                     "hand, and the deck order unless it says sees=hands), not its seat's "
                     "view. Its win rate is an upper bound on what a player could do, not a "
                     "fair result.")

    # the answer: the question's changes (a sweep), else who wins at each variant
    title = game_title(game)
    if comps is not None and comps.height:
        mine = comps.filter(pl.col("contender") == prim) if team and prim else comps
        shown = ([m for m in wanted if m in varying or m == "rounds"] if wanted
                 else opening_measures(mcomps, mirrors(df, varying)))
        opts = and_words([W.words(game, o) for o in ([focus] if focus else vary)])
        says_length = " and to the game's length" if "rounds" in shown else ""
        held = fixed_words(game, df, vary)
        question = str(st.get("question") or f"{title}: what does changing {opts} do to who "
                       f"wins{says_length}{', at ' + held if held else ''}?")
        short = short_answer(game, mine, mcomps, shown, team)
        answer = answer_blocks(game, mine, mcomps, shown, team)
        if rep is not None:
            theirs = rep.filter(pl.col("contender") == prim) if team and prim else rep
            against = theirs.filter(~pl.col("holds") & (pl.col("verdict") != "inconclusive"))
            if against.height:  # no headline that a seed block contradicts
                short = not_replicated_sentence(against.to_dicts(), game, n_blocks)
                warns.append(short)
    else:
        question = str(st.get("question") or f"{title}: who wins, and how often?")
        short = headline[0] if n_var == 1 and headline else ""
        answer = [Table("The answer", rates_answer(rates, outs, game), f"Win rates with "
                        f"{int(level * 100)}% Wilson intervals."),
                  figure("winrates.png", plots.winrates(worded(rates, game)),
                       "Win rate per variant with 95% intervals.")]

    for s in extra:  # a game's own part of the answer (Obcy: the rulebook's equal chances)
        if s.answer:
            answer[1:1] = [Table(t, as_text(f, game)) for t, f in s.tables]
    sections: list[Section] = [Section("Every answer in words", list(headline))]
    if rep is not None:
        sections.append(Section(REPLICATION, [
            f"The run played its design in {n_blocks} independent seed blocks (the run and "
            f"{and_words([b.name for b in block_runs(path, st)[1:]])}, each from its own "
            "seed). The comparisons between variants in this report are pooled over the "
            "blocks (the win rates and seats are the first block's). " + REPLICATION_RULE,
            *[replication_sentence(r, game) for r in rep.iter_rows(named=True)],
        ]))
    sec = Section("Win rates", [
        f"Win rate of each side or seat per variant, with {int(level * 100)}% Wilson score "
        "intervals. Draws and capped games are kept apart: wins + draws + losses + capped = "
        "games. A shared win (seats tied for first place on points and experiments) is a "
        "draw for the seats that shared it and a loss for the others: nobody's win. The fair "
        "share counts it the same way: the share of games with a sole winner over the "
        "possible winners.",
        Table("Win rates", rates_table(rates, game)),
        *([] if comps is None or not comps.height else [
            figure("winrates.png", plots.winrates(worded(rates, game)),
                 "Win rate per variant with 95% intervals.")]),
        Table("How games ended", outcomes_table(outs, game)),
        figure("outcomes.png", plots.outcomes(worded(outs, game)), "Share of games by outcome."),
    ])
    pol = analysis.policy_rates(df, level)
    if pol.get_column("policy").n_unique() > 1 or not team:
        sec.blocks.append(Table("Win rate by policy", policy_table(pol, game)))
    sections.append(sec)
    if sb.height:
        sections.append(Section("Are the seats equal?", [
            "Each seat against the rest: its win rate against its fair share, tested on "
            "its share of the games a seat won alone (Wilson interval), Holm and the "
            "equivalence tests across the seats of every variant as one family (at two "
            "seats one test: the second seat's row mirrors the first); all seats at once: "
            "Pearson's chi-square test of equal shares, Holm's correction across the "
            "variants. No fair share where a bot can win (FEDOR in solo). "
            + analysis.verdicts.RULE + " " + analysis.verdicts.family_error_text(
                int(sb.filter(pl.col("contender") != "all seats")["family_size"][0])),
            Table("Seats against their fair share", seat_table(sb, game)),
        ]))

    if comps is not None:
        method = (analysis.verdicts.SEQUENTIAL_METHOD + "; the interval beside each verdict "
                  "is the fixed-sample one at the look that decided, at Bonferroni's level"
                  ) if sequential else (
            "Newcombe's paired score interval where games share seeds, else Newcombe's hybrid "
            "score")
        cs = Section("Comparisons between variants", [
            "Each change of an option between neighbouring settings (every pair with --pairs "
            "all), the others held fixed; the difference of the side's or seat's win rate "
            f"(after − before) by {method}. " + (analysis.verdicts.SEQUENTIAL_RULE
                                                if sequential else analysis.verdicts.RULE),
            *family_sentence(comps, game),
            pairing_sentence(comps) if comps.height else "",
            Table("Differences in win rate", comparison_table(comps, game)),
        ])
        prim_c = prim or rates.get_column("contender")[0]
        pw = W.contender(game, prim_c)
        lab = {o: W.label(game, o) for o in vary}
        wr = rates.with_columns(pl.col("contender").replace_strict(
            {c: W.contender(game, c) for c in rates.get_column("contender").unique()},
            return_dtype=pl.String)).rename(lab)
        for i, opt in enumerate(vary):
            others = [o for o in vary if o != opt]
            by = lab[others[0]] if len(others) == 1 else None
            if len(others) <= 1:
                cs.blocks.append(figure(f"vs-{opt.replace('_', '-')}.png",
                                      plots.winrate_vs_option(wr, lab[opt], pw, by),
                                      f"{possessive(W.contender(game, prim_c))} win rate "
                                      f"against {W.words(game, opt)}."))
            if i == 0 and len(vary) == 2:
                grid = analysis.heat_grid(rates, vary[1], vary[0], prim_c).rename(
                    {vary[0]: lab[vary[0]]})
                cs.blocks.append(figure("heatmap.png",
                                      plots.heatmap(grid, lab[vary[1]], lab[vary[0]], pw),
                                      f"{possessive(W.contender(game, prim_c))} win rate over "
                                      f"{W.words(game, vary[0])} × {W.words(game, vary[1])}."))
        mc = mcomps
        if mc is not None and mc.height:
            cs.blocks.append("Changes in game length and the game's measures (difference "
                             "of means, paired t interval where games share seeds, else "
                             "Welch), each question's measures one family; a measure is "
                             f"equivalent within ±{analysis.verdicts.MEASURE_MARGIN_SD} of its "
                             "standard deviation (in its units in the verdict). Measures "
                             "that never vary in the run are left out:")
            cs.blocks.extend(family_sentence(mc, game, "mean"))
            cs.blocks.append(Table("Differences in measures",
                                   measure_comparison_table(mc, game)))
        sections.append(cs)

    length = analysis.length_summary(scan)
    er = analysis.end_reasons(scan)
    sections.append(Section("Game length and end reasons", [
        "Rounds and decisions per game (mean, sd, median, 95th percentile).",
        Table("Game length", as_text(length.drop("variant"), game)),
        figure("rounds.png", plots.distribution(_worded_scan(scan, game), "rounds", "Game length",
                                              xlabel=W.label(game, "rounds")),
             "Distribution of game length."),
        Table("End reasons", end_reasons_table(er, game)),
    ]))
    meas = analysis.measure_summary(scan).filter(pl.col("measure").is_in(varying))
    if meas.height:
        ms = Section("The game's measures", [
            "Each measure the game records that varies in the run, per variant.",
            Table("Measures", as_text(meas.drop("variant"), game)),
        ])
        sections.append(ms)
    for s in extra:
        blocks: list[str | Table | Image] = list(s.paragraphs)
        blocks += [Table(t, as_text(f, game)) for t, f in s.tables]
        if s.title == "Scores" and seats is not None and "score" in seats.columns:
            blocks.append(figure("scores.png", plots.score_boxes(_worded_seats(seats, game)),
                               "Score by seat."))
            wm = analysis.winner_margin(df, seats)
            if wm.height:
                wm = wm.join(df.select("variant", "variant_label").unique(), on="variant")
                blocks.append(figure("margin.png",
                                   plots.distribution(worded(wm, game), "margin",
                                                      "Winner's margin",
                                                      xlabel="points ahead of the runner-up"),
                                   "Distribution of the winner's margin."))
        sections.append(Section(s.title, blocks))
    if study and study.get("rounds"):
        rt = pl.DataFrame(study["rounds"]).select(
            pl.col("games").map_elements(lambda x: f"{x:,}", return_dtype=pl.String),
            pl.col("max_half_width").map_elements(pct, return_dtype=pl.String)
            .alias("widest ± (the stopping rule's interval)"),
        )
        sections.append(Section("Stopping rounds", [stopping_sentence(study),
                                                    Table("Rounds", rt)]))
    sections.append(provenance(manifest, study))
    return Report(f"{title}: report of run {manifest.get('run_id', path.name)}", headline,
                  warns, sections, question, short, answer)


def mirrors(df: pl.DataFrame, measures: list[str]) -> set[str]:
    """The measures that only repeat the variant's options (one value within every variant,
    as ISS's ``shuttles_removed``): a change in them is the option itself, not an answer."""
    if not measures or "variant" not in df.columns:
        return set()
    n = df.group_by("variant").agg(pl.col(m).n_unique() for m in measures
                                   if m in df.columns)
    return {c for c in n.columns if c != "variant" and int(n.get_column(c).max()) <= 1}  # type: ignore[arg-type]


def opening_measures(mcomps: pl.DataFrame | None, skip: Collection[str] = ()) -> list[str]:
    """The measures a sweep's answer opens with (its question declares none): the game's
    length (rounds), then every measure with a change decided either way or equivalent, in
    the game's order, less ``skip`` (issue 28: a sweep's clearest results were left in
    Details)."""
    if mcomps is None or not mcomps.height:
        return []
    measures = mcomps.get_column("measure").unique(maintain_order=True).to_list()
    decided = set(mcomps.filter(pl.col("verdict") != analysis.verdicts.INCONCLUSIVE)
                  .get_column("measure").to_list())
    return [m for m in measures if m == "rounds" or (m in decided and m not in skip)]


def fixed_words(game: str, df: pl.DataFrame, vary: list[str]) -> str:
    """The settings every variant of a run shares, in words (``3 players``): the question
    line names them."""
    label = str(df.get_column("variant_label").cast(pl.String)[0])
    same = [p for p in W.split_label(label) if p.partition("=")[0] not in vary]
    return W.variant(game, ",".join(same)) if same else ""


def game_title(game: str) -> str:
    try:
        from balancelab.games import get_game

        return str(get_game(game).title)
    except (ImportError, ValueError):
        return game


def _worded_scan(scan: pl.LazyFrame, game: str) -> pl.LazyFrame:
    """The games scan with its variant labels in words (for the length histogram)."""
    labels = scan.select(pl.col("variant_label").cast(pl.String).unique()).collect()
    mapping = {v: W.variant(game, v) for v in labels.get_column("variant_label").to_list()}
    return scan.with_columns(pl.col("variant_label").cast(pl.String)
                             .replace_strict(mapping, return_dtype=pl.String))


def _worded_seats(seats: pl.DataFrame, game: str) -> pl.DataFrame:
    """The seats table with its seat names and variant labels in words."""
    pairs = seats.select("seat_name", "variant_label").unique()
    mapping = {(a, b): W.who(game, a, b) for a, b in pairs.iter_rows()}
    return seats.with_columns(
        pl.struct("seat_name", "variant_label").map_elements(
            lambda r: mapping[(r["seat_name"], r["variant_label"])], return_dtype=pl.String)
        .alias("seat_name"),
        pl.col("variant_label").map_elements(lambda v: W.variant(game, v),
                                             return_dtype=pl.String))
