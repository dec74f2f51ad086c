"""The compiled (mypyc) build and the pure-Python source play identical games."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from balancelab import build

ROOT = Path(__file__).resolve().parent.parent

#: (game, options, policy specs per side, games): every compiled policy and engine is played.
CASES = [
    ("odyssey", {"crew": "3"}, {}, 12),
    ("odyssey", {"crew": "2", "hal_extra_turns": "1"}, {"hal": "hal-lif", "crew": "crew-rush"}, 6),
    ("iss", {"players": "4"}, {}, 4),
    ("iss", {"players": "1"}, {}, 4),
    ("iss", {"players": "3"}, {"player": "shuttler"}, 3),
    ("obcy", {}, {}, 3),
    ("obcy", {"queen_variant": "tasks"}, {"expedition": "squad", "aliens": "ambush"}, 2),
]

SCRIPT = """
import json, sys
from balancelab.games import get_game
from balancelab.simulate.runs import RunConfig
from balancelab.simulate.worker import play_game
out = []
for game, opts, pols, n in json.loads(sys.argv[1]):
    options = get_game(game).options_type.from_strings(opts)
    config = RunConfig(game=game, variants=[options], policies=pols, seed=11, games=n)
    options = config.variants[0]
    specs = config.seat_specs(options)
    for i in range(n):
        p = play_game(config.game_obj, options, specs, 11, i)
        r = p.record
        out.append([game, i, r.winner, r.end_reason, r.rounds, p.decisions,
                    sorted((k, repr(v)) for k, v in r.measures.items())])
print(json.dumps(out))
"""


def _play(cwd: Path, pythonpath: Path | None) -> list:
    """The CASES played in a fresh interpreter (``-c`` puts ``cwd`` first on sys.path)."""
    env = {**os.environ}
    if pythonpath is not None:
        env["PYTHONPATH"] = str(pythonpath)
    done = subprocess.run([sys.executable, "-c", SCRIPT, json.dumps(CASES)], env=env, cwd=cwd,
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _hook_config() -> dict:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]


def test_compiled_modules_are_the_build_hooks_list() -> None:
    include = _hook_config()["include"]
    assert [p.removesuffix(".py").replace("/", ".") for p in include] == list(
        build.COMPILED_MODULES)


def test_no_compiled_module_is_stale() -> None:
    assert build.stale() == []


@pytest.mark.skipif(not any(build.compiled().values()), reason="this install is pure Python")
def test_compiled_and_pure_python_play_the_same_games(tmp_path: Path) -> None:
    pure = tmp_path / "src"
    shutil.copytree(ROOT / "balancelab", pure / "balancelab",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    probe = subprocess.run(
        [sys.executable, "-c", "import balancelab.simulate.odyssey.state as s; print(s.__file__)"],
        env={**os.environ, "PYTHONPATH": str(pure)}, cwd=tmp_path, capture_output=True,
        text=True, check=True)
    assert probe.stdout.strip().endswith(".py")  # the copy really is pure Python
    compiled = _play(tmp_path, None)
    assert len(compiled) == sum(c[3] for c in CASES)
    assert _play(tmp_path, pure) == compiled



def test_pure_python_note(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "compiled", lambda: dict.fromkeys(build.COMPILED_MODULES, False))
    note = build.pure_python_note({})
    assert note is not None and note.startswith("note: the engines run as pure Python")
    assert "BALANCELAB_PURE_PYTHON=1 hides this note" in note
    assert build.pure_python_note({"BALANCELAB_PURE_PYTHON": "0"}) == note
    assert build.pure_python_note({"BALANCELAB_PURE_PYTHON": "1"}) is None
    monkeypatch.setattr(build, "compiled", lambda: dict.fromkeys(build.COMPILED_MODULES, True))
    assert build.pure_python_note({}) is None


@pytest.mark.parametrize("hidden", [False, True])
def test_simulate_says_on_stderr_when_it_runs_pure_python(
        hidden: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from balancelab.cli import app

    monkeypatch.setattr(build, "compiled", lambda: dict.fromkeys(build.COMPILED_MODULES, False))
    monkeypatch.setenv("BALANCELAB_PURE_PYTHON", "1" if hidden else "")
    res = CliRunner().invoke(app, ["simulate", "odyssey", "--games", "2", "--jobs", "1",
                                   "--quiet", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    notes = [line for line in res.stderr.splitlines() if line.startswith("note: the engines")]
    assert notes == ([] if hidden else [build.pure_python_note({})])  # one line, unwrapped
    assert "pure Python" not in res.stdout


def test_the_builds_type_check_passes(tmp_path: Path) -> None:
    """mypy as the build runs it (its arguments, no config file, no installed packages), on
    the modules it compiles and what they import: a failure here fails `pip install` (after
    minutes of compiling); the developers' mypy (the test extra) is the build's version."""
    config = _hook_config()
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    pins = {r.split("==")[0]: r for r in config["dependencies"]}
    assert pins["mypy"] in project["project"]["optional-dependencies"]["test"]
    empty = tmp_path / "mypy.ini"
    empty.write_text("[mypy]\n")
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(empty), "--no-incremental",
         *config["mypy-args"], *config["include"]],
        cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout[-3000:]
