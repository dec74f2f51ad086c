"""The skill-ladder study (``balancelab study skill-ladder GAME``): the table of rungs, a tiny
ladder end to end through the command line, reproducible, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.policies import base
from balancelab.questions import ladder_report
from balancelab.questions import rungs as ladder_rungs
from balancelab.questions.inputs import load_game
from balancelab.questions.study import STUDIES

cli = CliRunner()


@pytest.mark.parametrize("game", sorted(ladder_rungs.LADDERS))
def test_every_rung_is_a_valid_policy_and_the_oracle_is_the_only_cheat(game: str) -> None:
    lad = ladder_rungs.LADDERS[game]
    g = load_game(game)
    assert lad.study in STUDIES and set(lad.grid) <= set(STUDIES[lad.study].grid)
    for side, rungs in lad.rungs.items():
        names = [r.name for r in rungs]
        assert names[:3] == ["random", "scripted", "tuned"]  # the tuned slot is kept
        assert rungs[1].spec == g.default_policies[side]
        for r in rungs:
            if r.spec is not None:
                base.resolve(g, side, r.spec)
            assert r.cheat == (r.spec is not None and r.spec.startswith("oracle"))
        fair = ladder_rungs.fair_rungs(lad, side)
        assert fair and not any(r.cheat for r in fair)


def test_budget_scale_scales_the_search_budget_only() -> None:
    assert ladder_rungs.scaled("ismcts:iterations=40,depth=8", 0.1) == "ismcts:iterations=4,depth=8"
    assert ladder_rungs.scaled("ismcts:iterations=4,depth=8", 0.01) == "ismcts:iterations=1,depth=8"
    assert ladder_rungs.scaled("search:rollouts=32,depth=8,z=1", 0.25) == (
        "search:rollouts=8,depth=8,z=1")
    assert ladder_rungs.scaled("builder", 0.1) == "builder"


def _ladder(out: Path, games: int = 2, *more: str) -> dict:
    res = cli.invoke(app, ["study", "skill-ladder", "iss", "--games", str(games),
                           "--verdict-games", "1", "--budget-scale", "0.1", "--jobs", "1",
                           "--quiet", "--out", str(out), *more])
    assert res.exit_code == 0, res.output
    assert "Skill ladder of" in res.output
    assert ("the verdict is stable across the top two rungs" in res.output.lower()
            or "It changes:" in res.output)
    return json.loads((out / "study.json").read_text())


def test_a_tiny_ladder_runs_end_to_end_and_is_reproducible(tmp_path: Path) -> None:
    a = _ladder(tmp_path / "a")
    b = _ladder(tmp_path / "b")
    keep = ("side", "opponent", "rung", "policy", "games", "wins", "diff")
    assert [{k: r[k] for k in keep} for r in a["rates"]] == [
        {k: r[k] for k in keep} for r in b["rates"]]
    rungs = [r["rung"] for r in a["rates"] if r["opponent"].startswith("scripted")]
    assert rungs == ["random", "scripted", "search", "ismcts small", "ismcts large",
                     "oracle (CHEAT)"]
    md = (tmp_path / "a" / "report" / "report.md").read_text()
    assert "CHEAT" in md and "Win rate per rung" in md
    # the verdict table speaks the rulebook's words, not the option and measure columns
    assert "2 shuttles removed" in md
    for internal in ("remove_shuttles", "tie_break", "mean turns_", "seat0"):
        assert internal not in md, internal
    assert a["stable"] in (True, False)


def test_resume_completes_or_extends_the_ladders_runs(tmp_path: Path) -> None:
    """An interrupted or smaller ladder goes on with ``--resume`` (the runs it left keep their
    games); without it the command says how to go on, in one line."""
    _ladder(tmp_path, 2)
    res = cli.invoke(app, ["study", "skill-ladder", "iss", "--games", "3", "--verdict-games",
                           "1", "--budget-scale", "0.1", "--jobs", "1", "--quiet",
                           "--out", str(tmp_path)])
    assert res.exit_code == 1 and "--resume" in res.output
    a = _ladder(tmp_path, 3, "--resume")
    assert {r["games"] for r in a["rates"]} == {3}


@pytest.mark.parametrize(("args", "message"), [
    (["study", "skill-ladder"], "needs a game"),
    (["study", "skill-ladder", "chess"], "no skill ladder for game 'chess'"),
    (["study", "hal-difficulty", "odyssey"], "takes no game argument"),
])
def test_errors_are_one_line(args: list[str], message: str) -> None:
    res = cli.invoke(app, args)
    assert res.exit_code == 1
    assert message in res.output


def _toy_rungs() -> list[ladder_rungs.Rung]:
    return [ladder_rungs.Rung("random", "random"), ladder_rungs.Rung("scripted", "hunter"),
            ladder_rungs.Rung("ismcts small", "ismcts:iterations=6"),
            ladder_rungs.Rung("ismcts large", "ismcts:iterations=16")]


def test_the_strongest_fair_rung_is_the_one_measured_best_not_the_tables_top() -> None:
    """Obcy's ALIENS measured weaker on ismcts large than on the scripted hunter: the scripted
    rung is then the side's strongest (the opponent of the 'strongest fair' runs), the
    runner-up is ismcts small, and the reason names the table's top rung and the overlap."""
    n = 40
    won = {"random": [i < 2 for i in range(n)],          # 5%
           "scripted": [i < 30 for i in range(n)],       # 75%
           "ismcts small": [i < 26 for i in range(n)],   # 65%, inside the scripted games
           "ismcts large": [i < 10 for i in range(n)]}   # 25%
    got = ladder_rungs.rank_fair(_toy_rungs(), won, against="the expedition's scripted default")
    assert [r.name for r in got.order] == ["scripted", "ismcts small", "ismcts large",
                                          "random"]
    assert got.top.spec == "hunter" and got.second.name == "ismcts small"
    assert got.why.startswith("scripted (hunter), the highest measured win rate of the fair "
                              "rungs against the expedition's scripted default: 75.0% [")
    assert "(30 of 40 games)" in got.why
    # 26 of the 30 scripted wins again: a paired lead of 10 points, its interval reaches 0
    assert ("not clearly stronger than ismcts small (a lead of +10.0 [-0.6, +20.7] points)"
            in got.why)
    assert "ismcts large (a lead" not in got.why  # 50 points: clearly weaker
    assert "the table's top fair rung, ismcts large, measured 25.0%" in got.why
    assert got.notes and "tied" not in got.why


def test_a_clear_top_rung_has_no_notes_and_a_tie_goes_up_the_table() -> None:
    n = 60
    clear = {"random": [False] * n, "scripted": [i < 10 for i in range(n)],
             "ismcts small": [i < 12 for i in range(n)],
             "ismcts large": [i < 40 for i in range(n)]}
    got = ladder_rungs.rank_fair(_toy_rungs(), clear)
    assert got.top.name == "ismcts large" and got.notes == ()
    assert got.why.endswith("(40 of 60 games).")
    tie = {**clear, "ismcts small": [i < 40 for i in range(n)]}
    got = ladder_rungs.rank_fair(_toy_rungs(), tie)
    assert [r.name for r in got.order[:2]] == ["ismcts large", "ismcts small"]
    assert "tied with ismcts small (the tie goes to the rung higher in the table)" in got.why
    one = ladder_rungs.rank_fair(_toy_rungs()[1:2], {"scripted": [True, False]})
    assert one.top is one.second
    with pytest.raises(ValueError, match="no measured games for rung"):
        ladder_rungs.rank_fair(_toy_rungs(), {"scripted": [True]})


def test_a_verdict_changes_only_where_both_rungs_decide_it_differently() -> None:
    """Inconclusive at one rung and decided at the other is no contradiction (fewer games or
    noisier players decide less); raises against lowers or equivalent is a change."""
    assert ladder_report.agreement(["lowers", "lowers"]) == ladder_report.SAME
    assert ladder_report.agreement(["inconclusive", "inconclusive"]) == ladder_report.SAME
    assert ladder_report.agreement(["inconclusive", "lowers"]) == ladder_report.DECIDED_ONCE
    assert ladder_report.agreement(["equivalent", "inconclusive"]) == ladder_report.DECIDED_ONCE
    assert ladder_report.agreement(["raises", "lowers"]) == ladder_report.CHANGES
    assert ladder_report.agreement(["equivalent", "lowers"]) == ladder_report.CHANGES
    assert ladder_report.agreement(["raises", None]) == ladder_report.CHANGES
