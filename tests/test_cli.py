"""The command line through typer's CliRunner: happy paths and one-line errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancelab.cli import app

runner = CliRunner()


def test_help_lists_every_command() -> None:
    res = runner.invoke(app, ["--help"])
    assert res.exit_code == 0
    for cmd in ("games", "simulate", "resume", "trace", "report"):
        assert cmd in res.output


def test_games_lists_and_describes() -> None:
    res = runner.invoke(app, ["games"])
    assert res.exit_code == 0 and "odyssey" in res.output
    res = runner.invoke(app, ["games", "odyssey"])
    assert res.exit_code == 0
    assert "--hal-extra-turns" in res.output and "rulebook" in res.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "chess"], "unknown game 'chess'; valid games: iss, obcy, odyssey"),
        (["simulate", "odyssey", "--crew", "5"], "must be one of 2, 3, 4; got 5"),
        (["simulate", "odyssey", "--crewz", "3"], "unknown option 'crewz'"),
        (["simulate", "odyssey", "--policy", "hal=genius"], "unknown policy 'genius'"),
        (["simulate", "odyssey", "--policy", "pilot=random"], "unknown side or seat 'pilot'"),
        (["simulate", "odyssey", "--jobs", "0"], "--jobs must be"),
        (["games", "chess"], "unknown game 'chess'"),
        (["trace", "nowhere"], "neither a game"),
        (["simulate", "odyssey", "--gmaes", "10"], "unknown option --gmaes; did you mean --games?"),
        (["sweep", "odyssey", "--grid", "crew=2,3", "--gams", "9"], "did you mean --games?"),
        (["simulate", "odyssey", "--zzz", "3"],
         "unknown option 'zzz' for game 'odyssey'; balancelab games odyssey lists its"),
        (["resume", "."], "is not a balancelab run"),
    ],
)
def test_bad_input_gives_one_line_errors(args: list[str], message: str) -> None:
    res = runner.invoke(app, args)
    assert res.exit_code == 1, res.output
    assert message in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_simulate_then_trace_a_game(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = runner.invoke(app, ["simulate", "odyssey", "--games", "40", "--crew", "3",
                              "--hal-extra-turns", "1", "--seed", "7", "--jobs", "1",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 0, res.output
    assert "hal" in res.output and "crew" in res.output and "95% CI" in res.output
    assert (out / "run.json").exists()
    res = runner.invoke(app, ["simulate", "odyssey", "--games", "40", "--crew", "3",
                              "--hal-extra-turns", "1", "--seed", "7", "--jobs", "1",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 0 and "already holds these 40 games" in " ".join(res.output.split())
    assert "95% CI" in res.output
    res = runner.invoke(app, ["simulate", "odyssey", "--games", "60", "--crew", "3",
                              "--hal-extra-turns", "1", "--seed", "7", "--jobs", "1",
                              "--out", str(out), "--quiet"])
    assert res.exit_code == 1 and "--resume" in res.output
    res = runner.invoke(app, ["trace", str(out), "--index", "3"])
    assert res.exit_code == 0, res.output
    assert "result:" in res.output
