"""Reports: printed aggregates match the raw parquet, same data gives the same bytes."""

import re
from pathlib import Path

import pyarrow.dataset as ds
import pytest
from coin_game import install
from typer.testing import CliRunner

from balancelab.questions import inputs
from balancelab.questions import sweep as sweeps
from balancelab.questions.inputs import load_game
from balancelab.reports import words as W
from balancelab.reports import write_report


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    install()
    path = tmp_path_factory.mktemp("runs") / "coin-report"
    sweeps.sweep(load_game("coin"), {"edge": [450, 990], "cap": [0, 30]}, path, base={"draw": 20},
                  games=500, jobs=1, seed=11)
    return path


def test_report_numbers_equal_raw_parquet(run_dir: Path, tmp_path: Path):
    paths = write_report([run_dir], tmp_path / "rep")
    md = paths.markdown.read_text()
    table = ds.dataset(run_dir / "games", format="parquet", partitioning="hive").to_table(
        columns=["variant_label", "winner"]).to_pylist()
    counts: dict[tuple[str, str], int] = {}
    totals: dict[str, int] = {}
    for r in table:  # the report names a variant in words: "edge: 450, cap: 0, draw: 20"
        label = W.variant("coin", r["variant_label"])
        counts[(label, r["winner"])] = counts.get((label, r["winner"]), 0) + 1
        totals[label] = totals.get(label, 0) + 1
    printed = re.findall(r"^\| ([^|]+) \| (red|blue) \| ([\d,]+) / ([\d,]+) \| ([\d.]+)%",
                         md, re.M)
    assert len(printed) == 16  # the win-rate table and the outcomes table, 8 rows each
    for label, side, wins, games, rate in printed:
        k = counts.get((label, side), 0)
        assert int(wins.replace(",", "")) == k
        assert int(games.replace(",", "")) == totals[label]
        assert float(rate) == pytest.approx(round(100 * k / totals[label], 1))
    assert "Warning.** Ceiling" in md and "bonus" in md  # the coin game's what-if option
    assert "Capped games" in md
    assert "data:image/png;base64," in paths.html.read_text()


def test_same_data_same_bytes(run_dir: Path, tmp_path: Path):
    a = write_report([run_dir], tmp_path / "a")
    b = write_report([run_dir], tmp_path / "b")
    assert a.markdown.read_bytes() == b.markdown.read_bytes()
    assert a.html.read_bytes() == b.html.read_bytes()
    assert [p.read_bytes() for p in a.figures] == [p.read_bytes() for p in b.figures]
    assert a.figures and "heatmap.png" in {p.name for p in a.figures}


def test_html_is_self_contained(run_dir: Path, tmp_path: Path):
    page = write_report([run_dir], tmp_path / "h").html.read_text()
    assert "<script" not in page and 'src="http' not in page and "<link" not in page


def test_cli_report_compare_and_study_errors(run_dir: Path, tmp_path: Path):
    from balancelab.cli import app

    runner = CliRunner()
    res = runner.invoke(app, ["report", str(run_dir), "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    said = " ".join(res.output.split())
    assert "what does changing edge and cap do to who wins" in said  # the question
    assert "In short: Each change: " in said and "red's win rate" in said
    res = runner.invoke(app, ["report", str(tmp_path / "nowhere")])
    assert res.exit_code == 1 and "error" in res.output
    res = runner.invoke(app, ["compare", str(run_dir), str(run_dir), "--out",
                              str(tmp_path / "cmp")])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["study", "no-such-study"])
    assert res.exit_code == 1 and "valid studies" in res.output
    a_file = tmp_path / "snip.py"
    a_file.write_text("x = 1\n")
    res = runner.invoke(app, ["report", str(run_dir), "--out", str(a_file)])
    said = " ".join(res.output.split())  # rich wraps long paths at the console width
    assert res.exit_code == 1 and "is a file" in said and a_file.read_text() == "x = 1\n"


def test_study_focus_keeps_the_headline_on_the_studied_option(tmp_path: Path):
    from balancelab.reports import run_report

    install()
    path = tmp_path / "focus"
    sweeps.sweep(load_game("coin"), {"edge": [450, 990], "cap": [0, 30]}, path, games=300, jobs=1,
                  seed=5, study={"study": "t", "question": "q?", "pairing": "default",
                                 "focus": "edge", "measures": ["rounds"]})
    head = run_report.build_run_report(path).headline
    comps = [h for h in head if "→" in h]
    assert comps, head
    assert all("edge: 450 → 990" in h for h in comps)  # no line along `cap`
    assert all("cap: 0" in h or "cap: 30" in h for h in comps)  # held fixed, in words
    means = [h for h in comps if "mean rounds" in h]
    assert len(means) == 2  # one per value of cap, with its paired interval
    assert all("interval" in h for h in means)


def test_percent_formatting_keeps_small_bounds_visible():
    from balancelab.reports.formatting import interval, pct

    assert pct(0.4123) == "41.2%"
    assert interval(0.0, 0.00019) == "[0.0, 0.02]"  # 0 of 20,000: the bound is not 0.0
    assert interval(0.402, 0.422) == "[40.2, 42.2]"
    assert pct(float("nan")) == "–"


def test_a_verdict_is_printed_beside_the_interval_it_used() -> None:
    """The sentence used to say "moves … (not significant after Holm's correction)" beside an
    interval that excluded 0 (+1.4 [+0.5, +2.3]); now the interval printed is the Holm-level
    one its verdict read, with its level."""
    from balancelab.reports.sentences import comparison_sentence

    row = {"contender": "crew", "context": "", "option": "crew_talk", "value_a": "logic",
           "value_b": "none", "verdict": "inconclusive", "rate_a": 0.862, "n_a": 500,
           "rate_b": 0.814, "n_b": 500, "paired": True, "diff": -0.048,
           "lo": -0.101, "hi": 0.004, "level_used": 0.9875, "margin": 0.02,
           "games_to_decide": 1300}
    text = comparison_sentence(row, "odyssey")
    assert "is inconclusive for the crew's win rate" in text
    assert "-4.8 points [-10.1, +0.4], 98.8% interval" in text
    assert "about 1,300 games per setting would decide it" in text
    assert "moves" not in text and "significant" not in text
    text = comparison_sentence({**row, "verdict": "lowers", "hi": -0.005}, "odyssey")
    assert " lowers the crew's win rate from 86.2% to 81.4% (-4.8 points [-10.1, -0.5]" in text
    text = comparison_sentence({**row, "verdict": "equivalent", "diff": 0.001, "lo": -0.012,
                                "hi": 0.014, "level_used": 0.95}, "odyssey")
    assert "leaves the crew's win rate equivalent within ±2.0 points" in text


def test_the_ceiling_hint_names_only_what_ifs_the_run_has_not_set() -> None:
    import polars as pl

    from balancelab.reports.sentences import warnings_for

    def hint(label: str) -> str:
        rates = pl.DataFrame({"variant_label": [label], "contender": ["hal"], "rate": [0.99]})
        outcomes = pl.DataFrame({"variant_label": [label], "outcome": ["hal"], "rate": [0.99]})
        (text,) = warnings_for(rates, outcomes, "odyssey")
        return text

    assert ("options crew turns per HAL turn (--hal-turn-every), crew announcements "
            "(--crew-talk) move") in hint("crew=3,hal_extra_turns=1")
    only = hint("crew=3,hal_extra_turns=0,hal_turn_every=2")
    assert "options crew announcements (--crew-talk) move" in only
    assert "--hal-turn-every" not in only
    assert "stronger policies" in hint("crew=3,hal_turn_every=2,crew_talk=open")


def test_report_tables_speak_words_not_column_names(run_dir: Path, tmp_path: Path):
    md = write_report([run_dir], tmp_path / "words").markdown.read_text()
    lines = md.splitlines()
    headers = [h for h, below in zip(lines, lines[1:], strict=False)
               if below.startswith("|---")]
    assert headers and not any(raw in h for h in headers
                               for raw in ("variant_label", "contender", "end_reason",
                                           "fair_share", "| lo |", "| hi |"))
    # end reasons: games per reason add up to each variant's games, shares in percent
    rows = re.findall(r"^\| (edge: \d+, [^|]+) \| [^|]+ \| [^|]+ \| ([\d,]+) \| ([\d.]+)% \|$",
                      md, re.M)
    per_variant: dict[str, int] = {}
    for label, games, _share in rows:
        per_variant[label] = per_variant.get(label, 0) + int(games.replace(",", ""))
    assert per_variant and set(per_variant.values()) == {500}


def test_every_table_and_sentence_words_a_verdict_alike():
    """Three verdicts, one rule: raises / lowers, equivalent within ±m, inconclusive."""
    from balancelab.reports.formatting import level_text
    from balancelab.reports.sentences import verdict_word

    assert verdict_word("raises") == "raises" and verdict_word("lowers", True) == "lowers"
    assert verdict_word("equivalent", None, 0.025) == "equivalent within ±2.5 points"
    assert verdict_word("equivalent", None, 0.43, "turns") == "equivalent within ±0.43 turns"
    assert verdict_word("inconclusive") == "inconclusive"
    assert [level_text(x) for x in (0.95, 0.98333, 0.99917)] == ["95%", "98.3%", "99.92%"]


def test_a_measure_a_variant_does_not_record_is_not_compared():
    import polars as pl

    from balancelab import analysis

    n = 30
    rows = []
    for v, players in ((0, 1), (1, 2)):
        for i in range(n):
            rows.append({"variant": v, "variant_label": f"players={players}",
                         "players": players,
                         "policy_player": "p", "policies": "seat0=p", "game_index": i,
                         "seed": 1, "winner": "seat0", "end_reason": "x", "rounds": 10 + i % 3,
                         "decisions": 5, "fedor_score": float(i) if players == 1 else None})
    df = pl.DataFrame(rows)
    mc = analysis.compare_measures(df, ["rounds", "fedor_score"])
    assert mc["measure"].to_list() == ["rounds"]
    assert mc["significant"].dtype == pl.Boolean


def test_compare_reports_the_measures_a_rule_change_moves(tmp_path: Path):
    """Two ISS runs, without and with the shuttle removal, on the same seeds: the removal
    shortens the game, and compare says so (paired difference of mean turns)."""
    import polars as pl

    from balancelab import analysis
    from balancelab.simulate.runs import RunConfig, run

    paths = []
    for name, removed in (("base", False), ("removed", True)):
        opts = inputs.load_game("iss").options_type.from_strings(
            {"players": "2", "remove_shuttles": str(removed).lower()})
        run(RunConfig(game="iss", variants=[opts], games=40, seed=3), tmp_path / name,
            jobs=1)
        paths.append(tmp_path / name)
    mc = analysis.compare_run_measures(paths)
    turns = mc.filter(pl.col("measure") == "turns").row(0, named=True)
    assert turns["paired"] and turns["n_a"] == turns["n_b"] == 40
    assert turns["diff"] < 0 and turns["verdict"] == "lowers" and turns["significant"]
    rep = write_report(paths, tmp_path / "cmp")
    assert "In short: Run removed against base: lowers " in rep.headline  # the answer first
    assert "turns (-" in rep.headline
    md = rep.markdown.read_text()
    assert "| run | what differs | rounds | turns |" in md  # the answer's table
    assert "| removed against base | all shuttles → 2 shuttles removed |" in md
    assert "lowers mean turns" in md and "**Differences in measures**" in md
    # each comparison report says what pairing saved
    assert "Pairing (the same seeds on both sides): the two outcomes correlate at r =" in md
    assert "fewer games than independent samples" in md


def test_what_differs_names_only_the_seats_whose_player_changed() -> None:
    from balancelab.reports.sentences import context_words

    ctx = ("queen_variant roll→tasks; policies expedition=dash;aliens=hunter→"
           "expedition=dash;aliens=ismcts:bias=1,iterations=64")
    assert context_words("obcy", ctx) == (
        "Variant 1 (die roll) → Variant 2 (tasks); "
        "player of the ALIENS: hunter → ismcts:bias=1,iterations=64")
    both = "policies crew=crew-team;hal=hal-pressure→crew=oracle;hal=search"
    assert context_words("odyssey", both) == ("player of the crew: crew-team → oracle; "
                                              "player of HAL: hal-pressure → search")
    mixed = "policies a=x | a=y→a=z"  # several player sets on a side: shown whole
    assert context_words("obcy", mixed).startswith("players ")
