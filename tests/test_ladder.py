"""The skill-ladder study (``balancelab study skill-ladder GAME``): the table of rungs, a tiny
ladder end to end through the command line, reproducible, and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancelab import ladder
from balancelab.cli import app
from balancelab.policies import base
from balancelab.studies import STUDIES

cli = CliRunner()


@pytest.mark.parametrize("game", sorted(ladder.LADDERS))
def test_every_rung_is_a_valid_policy_and_the_oracle_is_the_only_cheat(game: str) -> None:
    lad = ladder.LADDERS[game]
    g = ladder.studies.load_game(game)
    assert lad.study in STUDIES and set(lad.grid) <= set(STUDIES[lad.study].grid)
    for side, rungs in lad.rungs.items():
        names = [r.name for r in rungs]
        assert names[:3] == ["random", "scripted", "tuned"]  # the tuned slot is kept
        assert rungs[1].spec == g.default_policies[side]
        for r in rungs:
            if r.spec is not None:
                base.resolve(g, side, r.spec)
            assert r.cheat == (r.spec is not None and r.spec.startswith("oracle"))
        assert not ladder.strongest(lad, side).cheat


def test_budget_scale_scales_iterations_only() -> None:
    assert ladder.scaled("ismcts:iterations=40,depth=8", 0.1) == "ismcts:iterations=4,depth=8"
    assert ladder.scaled("ismcts:iterations=4,depth=8", 0.01) == "ismcts:iterations=1,depth=8"
    assert ladder.scaled("builder", 0.1) == "builder"


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
    assert rungs == ["random", "scripted", "ismcts small", "ismcts large", "oracle (CHEAT)"]
    md = (tmp_path / "a" / "report" / "report.md").read_text()
    assert "CHEAT" in md and "Win rate per rung" in md
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
