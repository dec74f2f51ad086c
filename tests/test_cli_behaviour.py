"""Issue 16's behaviour fixes through the CLI: the capped-games warning of simulate, one answer
per policy pairing in a study, compare's own folder and its warnings, one --policy spelling."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancelab.cli import app

runner = CliRunner()


def _ok(args: list[str]) -> str:
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return " ".join(res.output.split())


def _simulate(game: str, out: Path, *args: str) -> str:
    return _ok(["simulate", game, *args, "--jobs", "1", "--quiet", "--out", str(out)])


def test_simulate_warns_when_more_than_one_percent_of_games_are_capped(tmp_path: Path) -> None:
    text = _simulate("odyssey", tmp_path / "capped", "--games", "20", "--max-rounds", "5")
    assert "warning: Capped games: more than 1.0% of games hit the round cap (100.0% at " \
        "3 crewmembers, HAL's extra opening turns: 0, max rounds: 5)" in text
    text = _simulate("odyssey", tmp_path / "plain", "--games", "20")
    assert "round cap" in text and "Capped games" not in text  # 0/20 capped: no warning
    res = runner.invoke(app, ["resume", str(tmp_path / "capped"), "--games", "25", "--jobs",
                              "1", "--quiet"])
    assert res.exit_code == 0 and "round cap (100.0% at" in " ".join(res.output.split())


def test_a_study_keeps_one_answer_per_policy_pairing(tmp_path: Path) -> None:
    out = tmp_path / "study"
    base = ["study", "queen-variants", "--jobs", "1", "--quiet", "--out", str(out)]
    _ok([*base, "--games", "4"])
    text = _ok([*base, "--games", "2", "--policy", "aliens=random"])
    facts = json.loads((out / "study.json").read_text())
    assert facts["runs"] == {"default": "default", "aliens=random": "aliens-random"}
    assert (facts["study"], facts["seed"], facts["fixed"]) == ("queen-variants", 0, {})
    # the study's answer covers both pairings, each with its own games
    assert "policy pairings (default, aliens=random)" in " ".join(text.split())
    page = (out / "report" / "report.md").read_text()
    assert "With policies default:" in page and "With policies aliens=random:" in page
    assert "(4 games)" in page and "(2 games)" in page
    # a pairing's answer is not replaced by a smaller run without --force
    before = (out / "default" / "run.json").read_text()
    res = runner.invoke(app, [*base, "--games", "2"])
    assert res.exit_code == 1
    assert "plans 4 games per variant; --games 2 would shrink it" in " ".join(res.output.split())
    assert (out / "default" / "run.json").read_text() == before
    # nor are a study's answers mixed with another seed's
    res = runner.invoke(app, [*base, "--games", "2", "--seed", "3"])
    assert res.exit_code == 1
    assert "with seed 0, not 3" in " ".join(res.output.split())
    assert json.loads((out / "study.json").read_text())["runs"] == facts["runs"]


def test_study_spells_policy_like_every_command_and_keeps_policies_hidden(tmp_path: Path
                                                                         ) -> None:
    res = runner.invoke(app, ["study", "--help"])
    assert res.exit_code == 0
    assert "--policy" in res.output and "--policies" not in res.output
    # the deprecated spelling still parses (and says so) before the study's own checks
    out = ["--out", str(tmp_path / "study"), "--games", "2", "--quiet"]
    res = runner.invoke(app, ["study", "queen-variants", "--policies", "aliens=genius", *out])
    text = " ".join(res.output.split())
    assert res.exit_code == 1 and "--policies is deprecated; use --policy" in text
    assert "unknown policy 'genius'" in text
    res = runner.invoke(app, ["study", "queen-variants", "-p", "aliens=genius", *out])
    assert res.exit_code == 1 and "deprecated" not in res.output
    assert "unknown policy 'genius'" in " ".join(res.output.split())


def test_compare_writes_its_own_folder_and_warns_about_other_games(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    _simulate("iss", runs / "three", "--players", "3", "--games", "6")
    _simulate("iss", runs / "solo", "--players", "1", "--games", "6")
    _simulate("iss", runs / "removed", "--players", "3", "--remove-shuttles", "--games", "4")
    _simulate("iss", runs / "both", "--players", "3", "--remove-shuttles", "--games", "6",
              "--goals-offered", "3")
    text = _ok(["compare", str(runs / "three"), str(runs / "solo")])
    assert "Warning: solo is a game of 1 seat and three of 3" in text
    assert (runs / "compare-three-vs-solo" / "report.html").is_file()
    text = _ok(["compare", str(runs / "three"), str(runs / "removed")])
    assert "is a game of" not in text  # the same seats
    assert "Warning: removed holds 4 games per setting and three 6: only the games both " \
        "played from the same seed are paired" in text
    assert "rule options" not in text  # one rule option differs: the compared one
    text = _ok(["compare", str(runs / "three"), str(runs / "both")])
    assert "Warning: both differs from three in 2 rule options (remove_shuttles false → " \
        "true; goals_offered 4 → 3)" in text
    # each comparison keeps its own report; the first is not overwritten
    assert {p.name for p in runs.iterdir() if p.name.startswith("compare-")} == {
        "compare-three-vs-solo", "compare-three-vs-removed", "compare-three-vs-both"}
    assert not (runs / "three" / "compare").exists()
    assert "solo" in (runs / "compare-three-vs-solo" / "report.md").read_text()


def test_an_interruption_names_the_kept_folder_as_typed(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """A run folder whose name holds brackets is printed as it is (not read as markup), with
    how the question goes on; the exit is the interruption's."""
    from balancelab.cli import common

    monkeypatch.setattr(common, "TOLD", [])  # the console script's record stays untouched
    for command, how in (("balancelab sweep iss --resume", ": balancelab sweep iss --resume"),
                         (None, " the same command")):
        with common.err.capture() as cap:
            code = common.kept_and_exit(Path("runs/[bold]x[/]"), command).exit_code
        assert code in (130, 143)
        assert cap.get().strip() == (f"interrupted: finished chunks kept in runs/[bold]x[/]; "
                                     f"continue with{how}")
