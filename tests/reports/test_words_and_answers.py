"""Words, not column names; the answer first (issue 16).

Every column of every built-in game has its words; a report of a small run of each game
never shows an internal column name; the ISS study opens with the README's findings table;
HTML pages have no literal backticks and link the run reports.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import polars as pl
import pytest

from balancelab.games import get_game
from balancelab.questions import study as studies
from balancelab.questions import sweep as sweeps
from balancelab.questions.inputs import load_game
from balancelab.reports import words as W
from balancelab.reports import write_report
from balancelab.reports.answer import fits_two_lines
from balancelab.reports.page import inline_html
from balancelab.reports.run_report import varying_measures
from balancelab.simulate.worker import games_columns, seats_columns

BUILT_IN = ["iss", "obcy", "odyssey"]

#: names the issue found in reports, and other internal names a designer should not meet
FORBIDDEN = ("hal_extra_turns", "seat0", "seat1", "tie_break", "shuttles_removed",
             "extra_actions_won", "PICTUREPHONE_1", "hal_draw_left", "hal_played_lipread",
             "remove_shuttles", "queen_variant", "variant_label", "end_reason", "players=",
             "crew=", "lif_terminated", "last_shuttle", "returned_to_ship")


@pytest.mark.parametrize("name", BUILT_IN)
def test_every_column_of_every_game_has_words(name: str) -> None:
    g = get_game(name)
    opts = set(g.options_type().columns())
    cols = [c for c in games_columns(g, g.options_type()) if c not in opts]
    cols += list(seats_columns(g)) if g.seat_schema else []
    assert W.missing(name, cols) == []  # a new measure needs its words here
    for c in cols:
        w = W.entry(name, c)
        assert w.words and w.words != c or "_" not in c, c
        assert w.meaning, c
    for o in opts:  # every rule option at least its help line
        assert W.meaning(name, o), o
    for outcome in g.outcomes:
        assert W.contender(name, outcome) != outcome or outcome in ("draw", ""), outcome


def test_words_lookups() -> None:
    assert W.label("iss", "winning_score") == "winning score (points)"
    assert W.label("iss", "turns") == "turns"  # the unit is not repeated
    assert W.unit("odyssey", "disconnects") == "disconnects"
    assert W.who("iss", "seat0", "players=1,remove_shuttles=false") == \
        "the solo player (against FEDOR)"
    assert W.who("iss", "seat0", "players=3") == "seat 1 (start player)"
    assert W.contender("odyssey", "crew") == "the crew"
    assert W.variant("odyssey", "crew=3,hal_extra_turns=1") == \
        "3 crewmembers, HAL's extra opening turns: +1 (harder)"
    # the rulebook's level reads as a count of turns, not as a score ("HAL 0")
    assert W.variant("odyssey", "crew=3,hal_extra_turns=0") == \
        "3 crewmembers, HAL's extra opening turns: 0"
    # the die-roll variant uses no task count: it is not named
    assert W.variant("obcy", "queen_variant=roll,queen_tasks=3") == "Variant 1 (die roll)"
    assert W.variant("obcy", "queen_variant=tasks,queen_tasks=3") == \
        "Variant 2 (tasks), 3 tasks for the Queen"
    assert W.variant("iss", "default") == "the rulebook's rules"
    assert W.value("iss", "end_reason", "last_shuttle") == \
        "the last shuttle of a nation was placed"
    assert W.value("obcy", "end_reason", "cap") == "stopped by the round cap"
    assert W.setting("odyssey", "hal_turn_every", 2) == "crew turns per HAL turn: 2"
    # a label holding a number and its value kept apart (issue 28 item 4)
    assert W.setting("odyssey", "opening_turns_3", 10) == "HAL's opening turns at 3 crew: 10"
    assert W.split_label("crew=3,crew_members=bowman,poole,hunter") == [
        "crew=3", "crew_members=bowman,poole,hunter"]


def test_inline_html_escapes_and_links() -> None:
    text = "Replay it (`balancelab trace RUN --index N`) or read [the report](x/report.md) <b>"
    out = inline_html(text)
    assert "`" not in out and "<code>balancelab trace RUN --index N</code>" in out
    assert '<a href="x/report.html">the report</a>' in out and "&lt;b&gt;" in out
    out = inline_html("[x/report.md](x/report.md)")
    assert out == '<a href="x/report.html">x/report.html</a>'  # named as the page it opens


def test_measures_that_never_vary_are_left_out() -> None:
    df = pl.DataFrame({"winner": ["a"] * 4, "decisions": [1, 2, 3, 4], "turns": [3, 4, 5, 6],
                       "lipread": [0, 0, 0, 0], "fedor": [None, None, None, None]},
                      schema_overrides={"fedor": pl.Int16})
    assert varying_measures(df) == ["turns"]


def _small_run(game: str, grid: dict[str, list[object]], path: Path, games: int) -> Path:
    sweeps.sweep(load_game(game), grid, path, games=games, jobs=1, seed=2)
    return path


@pytest.fixture(scope="module")
def small_reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, str]]:
    root = tmp_path_factory.mktemp("words")
    runs = {
        "odyssey": _small_run("odyssey", {"hal_extra_turns": [-1, 0]}, root / "a", 12),
        "iss": _small_run("iss", {"players": [1, 3], "remove_shuttles": [False, True]},
                          root / "b", 8),
        "obcy": _small_run("obcy", {"queen_variant": ["roll", "tasks"]}, root / "c", 4),
    }
    out = {}
    for g, path in runs.items():
        paths = write_report(path, root / f"rep-{g}")
        out[g] = (paths.markdown.read_text(), paths.html.read_text())
    return out


@pytest.mark.parametrize("name", BUILT_IN)
def test_no_report_shows_an_internal_column_name(small_reports, name: str) -> None:
    md, page = small_reports[name]
    g = get_game(name)
    internal = [c for c in (*g.measure_schema, *g.seat_schema) if "_" in c]
    for text in (md, page):
        shown = [x for x in (*FORBIDDEN, *internal) if x in text]
        assert shown == [], shown
    assert "`" not in page  # code is <code>, not literal backticks
    assert "{&quot;" not in page and '{"' not in md  # no raw JSON in the provenance


@pytest.mark.parametrize("name", BUILT_IN)
def test_a_report_opens_with_the_question_and_its_answer(small_reports, name: str) -> None:
    md, page = small_reports[name]
    lines = md.splitlines()
    # the question is the page's title (issue 28 item 4), the run under it
    assert lines[0].startswith("# ") and lines[0].endswith("?")
    assert lines[2].startswith("_") and "report of run" in lines[2]
    assert f"<title>{lines[0][2:]}".replace("'", "&#x27;") in page
    assert lines[4].startswith("In short: ")
    assert fits_two_lines(lines[4].removeprefix("In short: "))  # two lines at most
    assert lines[6] == "**The answer**" and lines[8].startswith("| ")
    assert md.index("**The answer**") < md.index("## Details")
    # in HTML everything but the answer is collapsed
    assert page.index("The answer") < page.index("<details>")
    assert page.count("<details>") >= 5 and "<h2>Details</h2>" in page
    # provenance: the options that differ between variants, the others once
    assert "Variants: the options that differ, and the players" in md
    assert md.count("Every other rule option") == 1
    if name == "obcy":  # the study asks whether the chances are equal: part of the answer
        assert md.index("**Equal chances? The expedition against the ALIENS**") < \
            md.index("## Details")


def test_the_iss_study_opens_with_the_findings_table(tmp_path: Path) -> None:
    """The README's findings table (turns, launches, winning score before → after per
    player count, and the seats' verdicts) is the study page's first table."""
    res = studies.run_study(*studies.check_study("iss-shuttle-removal"), tmp_path / "st",
                            games=12, jobs=1, blocks=1)
    assert res.report is not None
    md = res.report.markdown.read_text()
    lines = md.splitlines()
    assert lines[0].startswith("# 1998 ISS: what does returning one Russian and one US")
    assert lines[2] == "_balancelab study iss-shuttle-removal_"
    short = lines[4]
    assert short.startswith("In short: All shuttles → 2 shuttles removed: ")
    assert len(textwrap.wrap(short, 80)) <= 2  # two lines of a terminal at most
    first = lines.index("**The answer**")
    assert lines[first + 2] == ("| players | turns | launches | winning score (points) | "
                                "win rates |")
    rows = lines[first + 4:first + 8]
    assert [r.split(" | ")[0] for r in rows] == [
        "| solo (against FEDOR)", "| 2 players", "| 3 players", "| 4 players"]
    cell = re.compile(r"^\d+\.\d+ → \d+\.\d+ \([+-]\d+\.\d+ \[[+-]\d+\.\d+, [+-]\d+\.\d+\]\)")
    for r in rows:
        cells = r.strip("| ").split(" | ")
        assert all(cell.match(c) for c in cells[1:4]), r
        assert re.match(r"^(raises|lowers|inconclusive|equivalent)", cells[4]), r
    # the same numbers as the run report's differences in measures
    run_md = (res.runs["default"] / "report" / "report.md").read_text()
    turns2 = rows[1].split(" | ")[1]
    before, after = map(float, re.findall(r"\d+\.\d+", turns2)[:2])
    full = re.search(r"\| 2 players \| turns \| ([\d.]+) \| ([\d.]+) \|", run_md)
    assert full and (round(float(full[1]), 1), round(float(full[2]), 1)) == (before, after)
    page = res.report.html.read_text()
    assert '<a href="../default/report/report.html">' in page  # a link, not plain text
    assert "`" not in page
    head = res.report.headline.splitlines()
    assert head[0].startswith("1998 ISS: what does") and head[1] == short


def test_the_solo_player_is_not_called_the_start_player() -> None:
    """ISS solo draws its start player (Solo Mode): its seat is "the solo player", never
    "seat 1 (start player)" (issue 28 item 4)."""
    from balancelab.reports.tables import _column_contender

    solo = pl.DataFrame({"variant_label": ["players=1,remove_shuttles=false",
                                           "players=1,remove_shuttles=true"]})
    assert _column_contender("iss", "seat0", solo) == "the solo player (against FEDOR)"
    mixed = pl.DataFrame({"variant_label": ["players=1", "players=3"]})
    assert _column_contender("iss", "seat0", mixed) == "seat 1"
    three = pl.DataFrame({"variant_label": ["players=3"]})
    assert _column_contender("iss", "seat0", three) == "seat 1 (start player)"


def test_a_sweep_opens_with_its_decided_measures_and_names_what_is_held() -> None:
    """Issue 28 item 1: a sweep's answer opens with the game's length and every decided
    measure (not only the win rates), leaves out a measure that only repeats the option,
    and its question names the settings every variant shares ("at 3 players")."""
    from balancelab.reports.run_report import fixed_words, mirrors, opening_measures

    mc = pl.DataFrame({"measure": ["rounds", "turns", "winning_margin", "shuttles_removed",
                                   "launches"],
                       "verdict": ["lowers", "lowers", "inconclusive", "raises",
                                   "equivalent"]})
    df = pl.DataFrame({"variant": [0, 0, 1, 1], "shuttles_removed": [0, 0, 1, 1],
                       "turns": [40, 45, 36, 38],
                       "variant_label": ["players=3,remove_shuttles=false"] * 2
                       + ["players=3,remove_shuttles=true"] * 2})
    skip = mirrors(df, ["shuttles_removed", "turns"])
    assert skip == {"shuttles_removed"}
    assert opening_measures(mc, skip) == ["rounds", "turns", "launches"]
    assert fixed_words("iss", df, ["remove_shuttles"]) == "3 players"
