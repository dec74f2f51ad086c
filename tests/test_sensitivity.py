"""balancelab sensitivity (issue 14): perturbations, the shipped data alternatives within the
rulebook's constraints, effects with paired intervals and Holm, study verdicts, the CLI."""

from __future__ import annotations

import sys
import tomllib
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).parent / "analysis"))

from coin_game import install  # noqa: E402

from balancelab.games import get_game  # noqa: E402
from balancelab.questions import sensitivity as S  # noqa: E402
from balancelab.questions.study import STUDIES  # noqa: E402
from balancelab.simulate.iss.cards import load_cards  # noqa: E402
from balancelab.simulate.odyssey.board import load_board  # noqa: E402


@pytest.fixture(autouse=True)
def _coin() -> None:
    install()


def test_perturbations_of_odyssey() -> None:
    g = get_game("odyssey")
    base = g.options_type.from_strings({"crew": "3"})
    ps = S.perturbations(g, base)
    by = {(p.option, p.change): p for p in ps}
    assert by[("limit_lif", "down")].value == 6 and by[("limit_lif", "up")].value == 8
    assert by[("draw_at_system", "up")].value == 2
    assert ("draw_at_system", "down") in by  # 0 is allowed
    assert by[("pod_strict", "false")].step == "reading"  # an assumed reading is flipped
    names = {p.option for p in ps}
    assert not names & {"crew", "hal_extra_turns", "hal_turn_every", "crew_talk", "max_rounds"}
    assert "third_sequence_guard" not in names  # a rulebook true/false is not a perturbation
    alts = {p.change for p in ps if p.option == "board_file"}
    assert alts == {"board-mem-com-swapped", "board-open-edge-at-core"}
    # hal_marker_start 6 within 4..12; a range edge drops that direction
    low = g.options_type.from_strings({"crew": "3", "limit_lif": "1"})
    assert ("limit_lif", "down") not in {(p.option, p.change)
                                         for p in S.perturbations(g, low)}


def test_large_numbers_move_ten_percent_and_lists_each_value() -> None:
    g = get_game("iss")
    ps = {(p.option, p.change): p for p in S.perturbations(g, g.options_type())}
    assert ps[("long_stay_points", "up")].value == (1, 2, 4, 6, 9, 12, 15, 19, 23)
    # each value one step, where the option's range allows (0 stays 0)
    assert ps[("long_stay_points", "down")].value == (0, 0, 2, 4, 7, 10, 13, 17, 21)
    assert ps[("long_stay_points", "down")].step == "each value ±1"
    assert ps[("fedor_choice", "first")].step == "reading"
    assert {p.change for p in ps.values() if p.option == "data_dir"} == {
        "experiments-flatter", "modules-reshuffled", "shuttles-smaller"}
    assert S._step_int(40) == (4, "±10%") and S._step_int(7) == (1, "±1")


def test_bad_input() -> None:
    g = get_game("odyssey")
    with pytest.raises(S.SensitivityError, match="unknown option 'limt_lif'"):
        S.perturbations(g, g.options_type(), only=["limt_lif"])
    with pytest.raises(S.SensitivityError, match="no file or folder"):
        S.perturbations(g, g.options_type(), data=["/nonexistent/board.toml"])
    obcy = get_game("obcy")
    # 0 = unlimited is not a number one step from 1
    assert "alien_token_limit" not in {p.option for p in S.perturbations(obcy, obcy.options_type())}
    # obcy takes a map file (map_file): this test file is not one
    with pytest.raises(S.SensitivityError, match="map file .* is not JSON"):
        S.perturbations(obcy, obcy.options_type(), data=[__file__])


# -- the shipped alternatives keep the rulebook's constraints -----------------------------------


def _dist(board, closed: int = 0) -> list[int]:  # type: ignore[no-untyped-def]
    return list(board.distances(closed)[board.start])


@pytest.mark.parametrize("name", sorted(S.alternatives("odyssey")))
def test_odyssey_board_alternatives_keep_the_constraints(name: str) -> None:
    b = load_board(S.alternatives("odyssey")[name])
    built = load_board("")
    assert b.names == built.names and b.edges != built.edges
    ix = b.index
    # POD hangs off POD BAY behind Door 7 (design notes 1(b))
    assert b.door_spaces[7] == (ix("POD_BAY"), ix("POD"))
    # the Core 3 steps from the start
    assert _dist(b)[b.core] == 3
    # the rulebook's Door 3 example: Dave on PICTUREPHONE_1, Door 3 closed, reaches
    # PICTUREPHONE_2, POD BAY and POD within 2 steps, but not GRV
    d = b.distances(1 << 3)[ix("PICTUREPHONE_1")]
    assert {b.names[i] for i in range(len(d)) if 0 < d[i] <= 2} >= {
        "PICTUREPHONE_2", "POD_BAY", "POD"}
    assert d[ix("GRV")] > 2
    # no single door cuts POD BAY from the Core
    for door in range(1, 8):
        assert _dist(b, 1 << door)[b.core] < 99


@pytest.mark.parametrize("name", sorted(S.alternatives("iss")))
def test_iss_card_alternatives_load_and_keep_the_constraints(name: str) -> None:
    path = Path(S.alternatives("iss")[name])
    assert (path / "ALTERNATIVE.txt").read_text().strip()
    load_cards(str(path))  # the engine reads it
    mods = tomllib.loads((path / "iss_modules.toml").read_text())["module"]
    supply = Counter(c for m in mods for c in m["compartments"])
    assert supply == {"LAB": 7, "SW": 7, "LS": 6, "CRANE": 5, "COMM": 5}  # design notes 2(d)
    assert [m["compartments"] for m in mods if m.get("initial")] == [
        ["LS", "LS"], ["LAB", "LAB"], ["CRANE", "CRANE"]]
    sh = tomllib.loads((path / "iss_shuttles.toml").read_text())["shuttle"]
    assert sum(s["module"] for s in sh) == 8 and sum(s["replacement"] for s in sh) == 4
    by = {s["id"]: s for s in sh}
    assert not by["RU1"]["materials"] and by["RU4"]["module"]  # rulebook facts
    assert by["US1"]["materials"] and by["US5"]["materials"]


# -- a run ----------------------------------------------------------------------------------------


def test_a_sensitivity_run_on_the_toy(tmp_path: Path) -> None:
    # coin: red wins (edge + bonus)/1000; draw and cap take from blue, so blue's rate moves
    res = S.run(get_game("coin"), {"edge": "300", "draw": "100"}, tmp_path / "s", rate="blue",
                games=600, backend="sequential")
    t = res.table
    assert set(t.get_column("option")) == {"draw", "cap"}
    row = t.filter((pl.col("option") == "draw") & (pl.col("change") == "up")).row(0, named=True)
    assert row["value"] == "110"  # 100 moves by ±10%
    assert row["rate"] == pytest.approx(t.row(0, named=True)["rate"])
    assert (t.get_column("p_holm") >= t.get_column("p_value")).all()
    assert "coin" in res.report.markdown.read_text()  # type: ignore[union-attr]
    assert (tmp_path / "s" / "report" / "tornado.png").exists()
    # the same command again plays nothing and says the same
    again = S.run(get_game("coin"), {"edge": "300", "draw": "100"}, tmp_path / "s", rate="blue",
                  games=600, backend="sequential")
    assert again.headline == res.headline


def test_cli_sensitivity_end_to_end(tmp_path: Path) -> None:
    from balancelab.cli import app

    r = CliRunner().invoke(app, ["sensitivity", "coin", "--edge", "400", "--games", "200",
                                 "--backend", "sequential", "--out", str(tmp_path / "c"), "-q"])
    assert r.exit_code == 0, r.output
    assert "red's win rate" in r.output or "red" in r.output.splitlines()[0]
    r = CliRunner().invoke(app, ["sensitivity", "coin", "--rate", "green", "--games", "10",
                                 "--backend", "sequential", "--out", str(tmp_path / "d"), "-q"])
    assert r.exit_code == 1 and r.output.startswith("error: unknown side or seat 'green'")


def test_study_verdicts_under_each_perturbation(tmp_path: Path) -> None:
    res = S.run(get_game("odyssey"), {"crew": "3"}, tmp_path / "h", study=STUDIES["hal-difficulty"],
                only=["limit_lif"], games=40, backend="sequential")
    t = res.table
    assert set(t.get_column("focus")) == {"-1", "0", "1"}  # every focus value, paired
    assert t.height == 6  # limit_lif 6 and 8 at three difficulties
    text = " ".join(res.headline)
    assert "The study hal-difficulty's verdict on hal_extra_turns -1 → 0" in text
    assert "perturbation" in text
    with pytest.raises(S.SensitivityError, match="focus option"):
        S.run(get_game("odyssey"), {"hal_extra_turns": "1"}, tmp_path / "x",
              study=STUDIES["hal-difficulty"],
              games=10, backend="sequential")


def test_the_headline_gives_the_setting_in_words(tmp_path: Path) -> None:
    res = S.run(get_game("odyssey"), {"crew": "3"}, tmp_path / "w",
                only=["whitehead_remote_repair"],
                games=20, backend="sequential")
    text = " ".join(res.headline)
    assert "(the crew " in text
    assert " at 3 crewmembers, HAL's extra opening turns: 0) rests most on" in text
    assert "crew=3" not in text


def test_cli_sensitivity_runs_at_the_setting_given(tmp_path: Path) -> None:
    from balancelab.cli import app

    r = CliRunner().invoke(app, ["sensitivity", "coin", "--edge", "400", "--at", "bonus=100",
                                 "--only", "draw", "--games", "200", "--backend", "sequential",
                                 "--out", str(tmp_path / "a"), "-q"])
    assert r.exit_code == 0, r.output
    # the baseline is the setting given (red wins (400 + 100)/1000 of the games), not edge alone
    assert "(red 5" in r.output.splitlines()[0] or "(red 4" in r.output.splitlines()[0]
    assert "bonus: 100" in r.output.splitlines()[0]
    r = CliRunner().invoke(app, ["sensitivity", "coin", "--at", "bonus", "--games", "10",
                                 "--backend", "sequential", "--out", str(tmp_path / "b"), "-q"])
    assert r.exit_code == 1 and r.output.startswith("error: --at takes OPTION=VALUE")
