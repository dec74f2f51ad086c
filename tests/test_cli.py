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
    # the named parameter sets are listed with their policies, in a few words
    res = runner.invoke(app, ["games", "iss"], terminal_width=200)
    words = " ".join(res.output.replace("│", " ").split())  # the cell's lines, joined
    assert "search:preset=fast (the fast strong ISS player, 0.2 core-seconds a game)" in words


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "odyssey", "--set", "crew=5"], "must be one of 2, 3, 4; got 5"),
        (["simulate", "odyssey", "--set", "crewz=3"], "unknown option 'crewz'"),
        (["simulate", "odyssey", "--policy", "hal=genius"], "unknown policy 'genius'"),
        (["simulate", "odyssey", "--policy", "pilot=random"], "unknown side or seat 'pilot'"),
        (["simulate", "odyssey", "--jobs", "0"], "--jobs must be"),
        (["games", "chess"], "unknown game 'chess'"),
        (["trace", "nowhere"], "neither a game"),
        (["sweep", "odyssey", "--grid", "crew=2,3", "--gams", "9"], "did you mean --games?"),
        (["simulate", "odyssey", "--set", "zzz=3"],
         "unknown option 'zzz' for game 'odyssey'; balancelab games odyssey lists its"),
        (["resume", "."], "is not a balancelab run"),
    ],
)
def test_bad_input_gives_one_line_errors(args: list[str], message: str, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # an empty working folder ("resume ." must find no run there)
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
    # the summary in words: who wins, not the column values
    assert "HAL" in res.output and "the crew" in res.output and "95% CI" in res.output
    assert "hal_extra_turns" not in res.output.split("Report:")[0]
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


def _all_option_flags() -> list[tuple[str, str, bool]]:
    """(game, option, whether any string is a valid value) for every rule option."""
    import dataclasses

    from balancelab.games import get_game, names

    return [(g, f.name, f.type in (str, "str") and not f.metadata.get("choices"))
            for g in names()
            for f in dataclasses.fields(get_game(g).options_type)]


@pytest.mark.parametrize("command", ["trace"])  # simulate: tests/test_cli_generated.py
def test_every_rule_option_flag_reaches_the_game(command: str) -> None:
    # issue 12 item 14: every game flag ``simulate`` takes, ``trace`` takes (trace refused
    # --queen-variant as a misspelling of its own --variant). A bad value makes the game's
    # own check answer (a free-text option: an unknown side does, after the options were
    # read): the flag got through the command's parsing to the rule options, and nothing ran.
    for game, name, free in _all_option_flags():
        flag = "--" + name.replace("_", "-")
        args = [command, game, flag, "x" if free else "bogus!"]
        if free:
            args += ["--policy", "nosuch=x"]
        res = runner.invoke(app, args)
        text = " ".join(res.output.split())
        assert res.exit_code == 1, (game, name, res.output)
        assert "unknown option" not in text, (game, name, text)
        assert f"option '{name}' of game '{game}'" in text or (
            free and "unknown side or seat 'nosuch'" in text), (game, name, text)


def test_trace_obcy_queen_variant_roll() -> None:
    res = runner.invoke(app, ["trace", "obcy", "--queen-variant", "roll", "--seed", "3"])
    assert res.exit_code == 0, res.output
    assert "Variant 1 (die roll)" in res.output.splitlines()[0] and "result:" in res.output


def test_tune_refuses_a_bad_side_before_its_progress_bar(tmp_path: Path) -> None:
    res = runner.invoke(app, ["tune", "obcy", "--side", "nobody", "--out", str(tmp_path / "t")])
    assert res.exit_code == 1, res.output
    assert res.output.strip() == (
        "error: unknown side 'nobody' for 'obcy'; valid: expedition, aliens")
    assert not (tmp_path / "t").exists()
