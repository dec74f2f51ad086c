"""The Python API (balancelab.simulate, Run, Report in Jupyter), the parquet files' metadata,
logging, and what a wheel ships (py.typed, LICENSE, one version)."""

from __future__ import annotations

import gc
import html
import importlib
import json
import logging
import os
import re
import subprocess
import sys
import tomllib
import types
import venv
import warnings
from pathlib import Path

import polars as pl
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import balancelab
from balancelab import analysis
from balancelab.cli import app
from balancelab.games import get_game
from balancelab.simulate.runs import RunError
from balancelab.simulate.worker import ROLES

ROOT = Path(__file__).resolve().parent.parent


def _files(path: Path, table: str = "games") -> list[Path]:
    return sorted((path / table).rglob("*.parquet"))


def test_simulate_in_memory_writes_the_bytes_the_cli_writes(tmp_path: Path) -> None:
    run = balancelab.simulate("odyssey", games=30, seed=3, jobs=1, crew=2)
    assert run.in_memory and run.game == "odyssey" and run.seed == 3
    assert run.games.height == 30
    assert run.games["crew"].unique().to_list() == [2]
    assert "in memory" in repr(run) and "30 of 30 games" in repr(run)
    out = tmp_path / run.path.name  # the same run name, so the same run_id column
    res = CliRunner().invoke(app, ["simulate", "odyssey", "--games", "30", "--seed", "3",
                                   "--crew", "2", "--jobs", "1", "--quiet", "--out", str(out)])
    assert res.exit_code == 0, res.output
    mine, cli = _files(run.path), _files(out)
    assert len(mine) == len(cli) > 1
    assert [f.read_bytes() for f in mine] == [f.read_bytes() for f in cli]


def test_win_rates_carry_wilson_intervals_and_drop_the_fixed_options() -> None:
    run = balancelab.simulate("odyssey", games=40, seed=1, jobs=1)
    wr = run.win_rates()
    assert wr["contender"].to_list() == ["hal", "crew"]
    assert "crew" not in wr.columns and "hal_extra_turns" not in wr.columns
    for r in wr.iter_rows(named=True):
        assert r["games"] == 40
        assert r["wins"] + r["draws"] + r["losses"] + r["capped"] == 40
        assert r["rate"] == pytest.approx(r["wins"] / 40)
        assert 0 <= r["lo"] <= r["rate"] <= r["hi"] <= 1
    wide = run.win_rates(level=0.99)
    assert (wide["hi"] - wide["lo"] >= wr["hi"] - wr["lo"]).all()
    assert wr["wins"].sum() == run.games.filter(pl.col("winner") != "").height
    assert run.seats is None  # odyssey has no seats table


def test_a_temporary_run_is_deleted_with_its_object_unless_saved(tmp_path: Path) -> None:
    run = balancelab.simulate("odyssey", games=8, seed=2, jobs=1)
    kept = run.save(tmp_path / "kept")
    assert not kept.in_memory and kept.games.equals(run.games)
    with pytest.raises(RunError, match="already exists"):
        run.save(tmp_path / "kept")
    path = run.path
    assert path.is_dir()
    del run
    gc.collect()
    assert not path.exists()
    assert balancelab.Run.open(tmp_path / "kept").games.height == 8


def test_out_writes_a_run_folder_that_is_read_back_not_played_again(tmp_path: Path,
                                                                    caplog) -> None:
    out = tmp_path / "run"
    first = balancelab.simulate("odyssey", games=20, seed=4, jobs=1, out=out)
    assert not first.in_memory and first.path == out and (out / "run.json").is_file()
    stamp = [f.stat().st_mtime_ns for f in _files(out)]
    with caplog.at_level(logging.INFO, logger="balancelab"):
        again = balancelab.simulate("odyssey", games=20, seed=4, jobs=1, out=out)
    assert [f.stat().st_mtime_ns for f in _files(out)] == stamp
    assert again.games.equals(first.games)
    assert any("already holds this finished run" in r.getMessage() for r in caplog.records)
    with pytest.raises(RunError, match="pass --resume"):
        balancelab.simulate("odyssey", games=40, seed=4, jobs=1, out=out)


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="valid games: iss, obcy, odyssey"):
        balancelab.simulate("chess")
    with pytest.raises(ValueError, match="unknown option 'crewz'"):
        balancelab.simulate("odyssey", games=5, crewz=3)
    with pytest.raises(RunError, match="jobs must be"):
        balancelab.simulate("odyssey", games=5, jobs=0)


def test_more_than_one_percent_capped_games_warn() -> None:
    with pytest.warns(RuntimeWarning, match="hit the round cap"):
        balancelab.simulate("odyssey", games=10, seed=1, jobs=1, max_rounds=5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        balancelab.simulate("odyssey", games=10, seed=1, jobs=1)


def test_report_has_a_short_repr_and_html_for_jupyter() -> None:
    rep = balancelab.simulate("odyssey", games=20, seed=1, jobs=1).report()
    assert isinstance(rep, balancelab.Report)
    text = repr(rep)
    assert len(text) < 2000
    assert rep.headline[0] in text and "plots>" in text
    assert "png" not in text and "\\x89" not in text
    page = rep._repr_html_()
    assert page.startswith('<div class="balancelab-report"><style>') and page.endswith("</div>")
    assert "<html" not in page and "<body" not in page
    assert page.count("data:image/png;base64,") == len(rep.images()) > 0
    assert html.escape(rep.headline[0].split(":")[0]) in page  # (the page escapes an apostrophe)
    # the style applies inside the report only, never to the notebook around it
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    selectors = [sel.strip() for rule in style.split("}") if "{" in rule
                 for sel in rule.split("{")[0].split(",")]
    assert selectors and all(sel.startswith(".balancelab-report") for sel in selectors)
    assert ".balancelab-report{font-family" in style and ".balancelab-report table{" in style


def test_parquet_metadata_names_each_column_role_and_the_rules_version() -> None:
    run = balancelab.simulate("iss", games=4, seed=1, jobs=1, players=2)
    game = get_game("iss")
    for table, f in (("games", _files(run.path)[0]), ("seats", _files(run.path, "seats")[0])):
        md = {k.decode(): v.decode() for k, v in pq.read_metadata(f).metadata.items()}
        assert md["balancelab.table"] == table
        assert md["balancelab.game"] == "iss"
        assert md["balancelab.rules_version"] == game.version
        roles = json.loads(md["balancelab.roles"])
        assert list(roles) == pq.read_schema(f).names  # every column, in order
        assert set(roles.values()) <= set(ROLES)
        assert pl.read_parquet_metadata(f)["balancelab.roles"] == md["balancelab.roles"]
    games = json.loads(pq.read_metadata(_files(run.path)[0]).metadata[b"balancelab.roles"])
    assert games["players"] == games["remove_shuttles"] == "option"
    assert games["policy_player"] == games["policies"] == "policy"
    assert (games["game_index"], games["seed"], games["winner"]) == ("key", "seed", "outcome")
    assert games["run_id"] == "label" and games["rounds"] == "measure"
    assert {c for c, r in games.items() if r == "option"} == set(
        analysis.option_columns(run.games))
    seats = json.loads(pq.read_metadata(_files(run.path, "seats")[0]).metadata[
        b"balancelab.roles"])
    assert run.seats is not None and run.seats.height == 4 * 2
    assert set(seats) <= set(run.seats.columns)
    assert (seats["seat"], seats["policy"], seats["score"]) == ("key", "policy", "measure")


def test_the_balancelab_logger_tells_resume_decisions_not_games(tmp_path: Path,
                                                                caplog) -> None:
    assert any(isinstance(h, logging.NullHandler)
               for h in logging.getLogger("balancelab").handlers)
    out = tmp_path / "run"
    with caplog.at_level(logging.DEBUG, logger="balancelab"):
        balancelab.simulate("odyssey", games=60, seed=1, jobs=1, out=out)
        n_first = len(caplog.records)
        caplog.clear()
        balancelab.simulate("odyssey", games=120, seed=1, jobs=1, out=out, resume=True)
    lines = [r.getMessage() for r in caplog.records]
    cg = json.loads((out / "run.json").read_text())["config"]["chunk_games"]
    assert 60 // cg >= 2
    assert n_first <= 2  # 60 games in several chunks: nothing per game or per chunk
    # the full chunks are kept; the last, partial one is played again with the new games
    kept, todo = 60 // cg, -(-120 // cg) - 60 // cg
    assert f"{out}: resuming: skipping {kept} chunk(s) already written, playing {todo}" in lines
    assert all(r.name.startswith("balancelab.") for r in caplog.records)


def test_import_balancelab_is_cheap() -> None:
    code = ("import sys, balancelab; print(sorted(m for m in ('polars', 'numpy', 'pyarrow', "
            "'matplotlib', 'joblib', 'balancelab.simulate.runs') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.stdout.strip() == "[]"


def test_the_public_api_is_declared_and_simulate_stays_callable() -> None:
    assert set(balancelab.__all__) == {"Report", "Run", "__version__", "simulate"}
    importlib.import_module("balancelab.simulate.runs")  # balancelab.simulate: the package
    assert isinstance(balancelab.simulate, types.ModuleType)

    run = balancelab.simulate("odyssey", games=3, seed=1, jobs=1)
    assert isinstance(run, balancelab.Run) and run.games.height == 3
    assert balancelab.simulate.runs.MANIFEST == "run.json"  # the package is still there


def test_one_version_a_license_and_py_typed() -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and meta["project"]["dynamic"] == ["version"]
    assert meta["tool"]["hatch"]["version"]["path"] == "balancelab/__init__.py"
    assert re.search(r'^__version__ = "\d+\.\d+\.\d+"$',
                     (ROOT / "balancelab" / "__init__.py").read_text(), re.M)
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert meta["project"]["license"] == {"text": "MIT"}
    assert (ROOT / "balancelab" / "py.typed").is_file()


def _docs_python_api() -> str:
    """The first python block of the docs' Python API page (the README shows the same)."""
    text = (ROOT / "docs" / "python-api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "the docs' Python API page has no python block"
    return blocks[0]


def test_the_docs_python_api_runs_as_written(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", _docs_python_api()], cwd=tmp_path,
                          capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    assert "crew" in done.stdout and "hal" in done.stdout


USER_SCRIPT = """import balancelab
run = balancelab.simulate("odyssey", games=100, seed=1)
print(run.win_rates())
"""


@pytest.mark.slow
def test_a_user_script_passes_mypy_strict_against_the_installed_wheel(tmp_path: Path) -> None:
    """Build the wheel (pure Python), install it in a fresh venv, and type-check a three-line
    user script with ``mypy --strict``: the wheel must ship py.typed and the API be typed."""
    import zipfile

    env = {**os.environ, "BALANCELAB_PURE_PYTHON": "1"}
    env.pop("PYTHONPATH", None)
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels),
                    str(ROOT)], check=True, env=env, capture_output=True)
    (wheel,) = wheels.glob("balancelab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "balancelab/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    venv.create(tmp_path / "venv", system_site_packages=True, with_pip=True)
    py = str(tmp_path / "venv" / "bin" / "python")
    subprocess.run([py, "-m", "pip", "install", "--no-deps", "-q", str(wheel)], check=True,
                   env=env, capture_output=True)
    where = subprocess.run([py, "-c", "import balancelab; print(balancelab.__file__)"],
                           env=env, cwd=tmp_path, capture_output=True, text=True, check=True)
    assert str(tmp_path / "venv") in where.stdout  # the wheel, not a checkout
    (tmp_path / "user.py").write_text(USER_SCRIPT)
    (tmp_path / "wrong.py").write_text(USER_SCRIPT.replace("print(run.win_rates())",
                                                           "n: int = run.win_rates()"))
    mypy = [py, "-m", "mypy", "--strict", "--cache-dir", str(tmp_path / "cache")]
    good = subprocess.run([*mypy, "user.py"], env=env, cwd=tmp_path, capture_output=True,
                          text=True)
    assert good.returncode == 0, good.stdout
    bad = subprocess.run([*mypy, "wrong.py"], env=env, cwd=tmp_path, capture_output=True,
                         text=True)
    assert bad.returncode == 1 and "DataFrame" in bad.stdout, bad.stdout


def test_a_dask_cluster_is_logged_and_plays_the_same_games(caplog) -> None:
    distributed = pytest.importorskip("dask.distributed")
    here = balancelab.simulate("odyssey", games=30, seed=5, jobs=1)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            caplog.at_level(logging.INFO, logger="balancelab"):
        there = balancelab.simulate("odyssey", games=30, seed=5, backend="dask",
                                    scheduler=cluster.scheduler_address)
    assert f"connecting to the dask scheduler {cluster.scheduler_address}" in [
        r.getMessage() for r in caplog.records]
    assert [f.read_bytes() for f in _files(there.path)] == [
        f.read_bytes() for f in _files(here.path)]
