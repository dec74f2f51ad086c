"""``balancelab study --file study.toml``: the Study dataclass as the file's schema; the
built-in studies are such files (issue 18 item 5)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.questions import inputs
from balancelab.questions import study as studies

runner = CliRunner()

SMALL = """
name = "crew-size"
game = "odyssey"
question = "2001: does a bigger crew win more often against HAL?"
focus = "crew"
measures = ["rounds"]

[grid]
crew = [2, 4]

[base]
hal_turn_every = 2
"""


def test_the_builtin_studies_are_the_packaged_toml_files() -> None:
    folder = resources.files("balancelab") / "data" / "studies"
    files = sorted(f.name for f in folder.iterdir() if f.name.endswith(".toml"))
    assert files == ["hal-difficulty.toml", "iss-shuttle-removal.toml", "queen-variants.toml"]
    for f in files:
        st = studies.load_study(Path(str(folder / f)))
        assert studies.STUDIES[st.name] == st and f == f"{st.name}.toml"
    hal = studies.STUDIES["hal-difficulty"]
    assert (hal.game, hal.grid, hal.focus, hal.measures) == (
        "odyssey", {"crew": [2, 3, 4], "hal_extra_turns": [-1, 0, 1]}, "hal_extra_turns",
        ("rounds", "disconnects"))
    assert studies.STUDIES["iss-shuttle-removal"].grid["remove_shuttles"] == [False, True]


@pytest.mark.parametrize(("text", "words"), [
    (SMALL.replace("focus =", "focuss ="), "unknown key 'focuss' (did you mean 'focus'?); "
     "valid keys: name, game, grid, question, base, focus, measures"),
    (SMALL.replace("[base]", "[options]"), "unknown key 'options'; valid keys: name, game"),
    (SMALL.replace('question = "2001: does a bigger crew win more often against HAL?"', ""),
     "missing key(s) question"),
    (SMALL.replace('focus = "crew"', 'focus = "hal_extra_turns"'),
     "focus must be one of the grid's options (crew)"),
    (SMALL.replace("crew = [2, 4]", "crew = 2"), "grid must be a table of option = [values…]"),
    (SMALL.replace('measures = ["rounds"]', 'measures = "rounds"'),
     "measures must be an array of measure names"),
    (SMALL.replace('name = "crew-size"', "name = 3"), "name must be a non-empty string"),
    (SMALL + "\n[grid\n", "not valid TOML"),
])
def test_a_bad_study_file_names_what_is_wrong(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "study.toml"
    path.write_text(text)
    with pytest.raises(inputs.StudyError) as exc:
        studies.load_study(path)
    assert str(exc.value).startswith(str(path)) and words in str(exc.value)
    res = runner.invoke(app, ["study", "--file", str(path)])
    assert res.exit_code == 1 and words in " ".join(res.output.split())


def test_a_study_whose_game_lacks_a_measure_or_option_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "study.toml"
    path.write_text(SMALL.replace('["rounds"]', '["rounds", "turns"]'))
    with pytest.raises(inputs.StudyError, match="odyssey records no measure 'turns'; its "
                       "measures: rounds, decisions"):
        studies.check_study(studies.load_study(path))
    path.write_text(SMALL.replace("crew = [2, 4]", "crews = [2, 4]").replace(
        'focus = "crew"', 'focus = "crews"'))
    res = runner.invoke(app, ["study", "--file", str(path), "--games", "5", "-q"])
    assert res.exit_code == 1 and "unknown option 'crews'" in res.output


def test_a_study_file_runs_like_a_builtin_study(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crew-size.toml").write_text(SMALL)
    res = runner.invoke(app, ["study", "--file", "crew-size.toml", "--games", "40",
                              "--jobs", "1", "-q", "--policy", "hal=random;crew=random"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert text.startswith("2001: does a bigger crew win more often against HAL?")
    assert "In short: 2 crewmembers → 4 crewmembers" in text
    folder = tmp_path / "runs" / "study-crew-size-seed0"
    facts = json.loads((folder / "study.json").read_text())
    assert facts["study"] == "crew-size" and facts["question"].startswith("2001: does")
    assert (folder / "report" / "report.md").exists()


def test_a_name_and_a_file_or_neither() -> None:
    res = runner.invoke(app, ["study", "hal-difficulty", "--file", "x.toml"])
    assert res.exit_code == 1 and "not both" in res.output
    res = runner.invoke(app, ["study"])
    assert res.exit_code == 1 and "or give --file study.toml" in res.output


def test_set_narrows_a_study_to_one_value_of_its_grid(tmp_path: Path) -> None:
    """Issue 28 item 2: ``study hal-difficulty --set crew=4`` asks the question at 4 crew only
    (it was refused: "--set crew is the study's own grid option; it cannot be fixed")."""
    out = tmp_path / "s"
    res = runner.invoke(app, ["study", "hal-difficulty", "--set", "crew=4", "--games", "30",
                              "--jobs", "1", "-q", "--out", str(out),
                              "--policy", "hal=random;crew=random"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert text.startswith("2001: how does each HAL difficulty step")
    assert "(here at 4 crewmembers only)" in text
    (run,) = [p for p in out.iterdir() if (p / "study.json").exists()]
    facts = json.loads((run / "study.json").read_text())
    assert facts["grid"] == {"crew": ["4"], "hal_extra_turns": ["-1", "0", "1"]}
    report = (out / "report" / "report.md").read_text()
    assert "at 4 crewmembers only" in report and "2 crewmembers" not in report


def test_narrowing_keeps_the_grid_values_and_refuses_the_focus() -> None:
    st = studies.narrowed(studies.STUDIES["hal-difficulty"], {"crew": "3", "lif_limit": 5})
    assert st.grid == {"crew": [3], "hal_extra_turns": [-1, 0, 1]}
    assert st.question.endswith("(here at 3 crewmembers only)")
    with pytest.raises(inputs.StudyError, match="what study 'hal-difficulty' asks about"):
        studies.narrowed(studies.STUDIES["hal-difficulty"], {"hal_extra_turns": "1"})


def test_study_help_keeps_its_bracketed_table_names() -> None:
    """Rich markup ate ``[grid]`` and ``[base]`` from ``study --help`` (issue 28 item 4)."""
    res = runner.invoke(app, ["study", "--help"], env={"COLUMNS": "200"})
    text = " ".join(res.output.split())
    assert "a [grid] table of option = [values]" in text and "a [base] table" in text
    assert "question, [grid], optional focus, measures, [base])" in text
