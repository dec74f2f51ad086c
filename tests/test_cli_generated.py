"""``balancelab simulate GAME``: one command per game, generated from its RuleOptions
(issue 18 item 5): typed flags in --help, typer/click's own errors, shell completion, and a
command for a plug-in game too."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_env import NIM, REPO, write_dist_info
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.cli.options import flag
from balancelab.games import get_game

runner = CliRunner()
WIDE = {"COLUMNS": "300"}


def _help(game: str) -> str:
    res = runner.invoke(app, ["simulate", game, "--help"], env=WIDE)
    assert res.exit_code == 0, res.output
    return res.output


def _row(text: str, option: str) -> str:
    """The help table's row of a flag (its first line)."""
    return next(ln for ln in text.splitlines() if ln.lstrip("│ ").startswith(f"{option} "))


def test_odyssey_help_lists_its_rule_options_with_types_ranges_and_help() -> None:
    text = _help("odyssey")
    assert "Rule options (default: the rulebook's)" in text
    crew = _row(text, "--crew")
    assert "<2|3|4>" in crew and "number of crewmembers" in crew and "[default: (3)]" in crew
    revealed = _row(text, "--hal-revealed")
    assert "0<=x<=3" in revealed and "[default: (3)]" in revealed
    assert "--pod-strict" in _row(text, "--pod-strict") and "--no-pod-strict" in text
    assert "--games" in text and "--set" in text  # the command's own options stay


@pytest.mark.parametrize("game", ["odyssey", "iss", "obcy"])
def test_every_rule_option_has_its_flag(game: str) -> None:
    text = _help(game)
    for f in dataclasses.fields(get_game(game).options_type):
        assert f" {flag(f.name)} " in text, (game, f.name)
    assert "INTEGERS" in text if game != "odyssey" else "FILE" in text


@pytest.mark.parametrize(("args", "words"), [
    (["odyssey", "--crew", "5"], "Invalid value for '--crew': Value error, '5' is not one of "
     "'2', '3', '4'"),
    (["odyssey", "--hal-revealed", "x"], "Invalid value for '--hal-revealed'"),
    (["iss", "--hand-start", "1,9"], "'hand_start' of game 'iss' must be in [0, 4]"),
    (["odyssey", "--crewz", "3"], "No such option: --crewz"),
    (["chess"], "unknown game 'chess'; valid games: iss, obcy, odyssey"),
])
def test_a_bad_value_is_typers_usage_error(args: list[str], words: str) -> None:
    res = runner.invoke(app, ["simulate", *args, "--games", "2", "-q"], env=WIDE)
    assert res.exit_code == 2, res.output
    assert words in " ".join(res.output.replace("│", " ").split())


def test_flags_and_set_make_the_variant(tmp_path: Path) -> None:
    out = tmp_path / "run"
    res = runner.invoke(app, ["simulate", "odyssey", "--crew", "2", "--no-pod-strict",
                              "--set", "hal_extra_turns=1", "--games", "4", "--jobs", "1",
                              "-p", "hal=random", "-p", "crew=random", "--out", str(out),
                              "-q"], env=WIDE)
    assert res.exit_code == 0, res.output
    # the summary speaks the variant's words; the run records the options
    assert "2 crewmembers, HAL's extra opening turns: +1 (harder)" in " ".join(res.output.split())
    assert "crew=2,hal_extra_turns=1,pod_strict=false" in (out / "run.json").read_text()
    res = runner.invoke(app, ["simulate", "odyssey", "--crew", "2", "--set", "crew=3"])
    assert res.exit_code == 1 and "crew is given twice" in res.output


def test_a_plugin_game_gets_its_command(tmp_path: Path, monkeypatch) -> None:
    write_dist_info(tmp_path)
    monkeypatch.syspath_prepend(str(NIM))
    monkeypatch.syspath_prepend(str(tmp_path))
    text = _help("nim")
    assert "1<=x<=9" in _row(text, "--heaps") and "--no-misere" in text
    res = runner.invoke(app, ["simulate", "--help"], env=WIDE)
    assert "Nim (balancelab plug-in example)" in res.output


def _complete(words: str) -> list[str]:
    env = {**os.environ, "_BALANCELAB_COMPLETE": "complete_bash", "COMP_WORDS": words,
           "COMP_CWORD": str(len(words.split()) - (0 if words.endswith(" ") else 1)),
           "PYTHONPATH": str(REPO)}
    code = "import sys; sys.argv[0] = 'balancelab'; from balancelab.cli import main; main()"
    res = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, timeout=120)
    return res.stdout.split()


def test_shell_completion_offers_games_flags_and_choices() -> None:
    assert _complete("balancelab simulate o") == ["obcy", "odyssey"]
    assert _complete("balancelab simulate odyssey --crew ") == ["2", "3", "4"]
    assert "--fedor-choice" in _complete("balancelab simulate iss --fedor-c")
