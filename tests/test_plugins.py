"""Plug-ins: games and policies from entry points and from user code, in every worker."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import polars as pl
import pytest
from plugin_env import NIM, REPO, nim_env, write_dist_info

from balancelab import games, plugins
from balancelab.policies import base

HAS_DASK = importlib.util.find_spec("dask") is not None and \
    importlib.util.find_spec("distributed") is not None


def _cli(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "balancelab", *args], env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=600)


def test_builtin_games_are_entry_points_of_balancelab() -> None:
    eps = {ep.name: ep.value for ep in plugins.entry_points(plugins.GAMES_GROUP)}
    assert {k: eps[k] for k in ("odyssey", "iss", "obcy")} == {
        "odyssey": "balancelab.simulate.odyssey:GAME",
        "iss": "balancelab.simulate.iss:GAME",
        "obcy": "balancelab.simulate.obcy:GAME",
    }
    pols = {ep.name: ep.value for ep in plugins.entry_points(plugins.POLICIES_GROUP)}
    assert pols["odyssey"] == "balancelab.policies.odyssey"
    assert games.get_game("odyssey").name == "odyssey"


def test_unknown_game_lists_the_registered_ones() -> None:
    with pytest.raises(games.UnknownGameError, match="valid games: .*iss, obcy, odyssey"):
        games.get_game("chess")


def test_a_bad_import_path_names_it() -> None:
    with pytest.raises(plugins.PluginError, match="no_such_module"):
        games.register("no_such_module:GAME")
    with pytest.raises(plugins.PluginError, match="not a balancelab Game"):
        games.register("balancelab.simulate.core:rules_stream")


def test_the_example_game_is_found_by_its_entry_points(tmp_path, monkeypatch) -> None:
    write_dist_info(tmp_path)
    monkeypatch.syspath_prepend(str(NIM))
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "nim" in games.names()
    g = games.get_game("nim")
    assert g.title.startswith("Nim")
    # both forms of a policies entry point: a module that registers, and a Policy class
    assert {"nim-sum", "nim-first-legal", "random"} <= set(base.available("nim", "first"))
    assert "nim-first-legal" not in base.available("odyssey", "hal")


@pytest.mark.parametrize("backend", ["loky", pytest.param("dask", marks=pytest.mark.skipif(
    not HAS_DASK, reason="dask is an optional extra: pip install 'balancelab[dask]'"))])
def test_the_example_game_runs_through_simulate_in_workers(tmp_path, backend) -> None:
    env = nim_env(tmp_path / "site")
    res = _cli(["simulate", "nim", "--games", "400", "--jobs", "2", "--chunk-games", "100",
                "--backend", backend, "--seed", "3", "--out", "run", "-q",
                "-p", "second=nim-first-legal"], env, tmp_path)
    assert res.returncode == 0, res.stderr
    df = pl.read_parquet(tmp_path / "run" / "games" / "**" / "*.parquet")
    assert df.height == 400 and set(df["policy_second"]) == {"nim-first-legal"}
    assert set(df["winner"]) <= {"first", "second"}
    manifest = json.loads((tmp_path / "run" / "run.json").read_text())
    assert len(manifest["chunks_done"]) == 4 and manifest["complete"]
    if backend == "loky":  # the same games whatever the workers: the sequential backend agrees
        seq = _cli(["simulate", "nim", "--games", "400", "--jobs", "1", "--chunk-games", "100",
                    "--backend", "sequential", "--seed", "3", "--out", "seq", "-q",
                    "-p", "second=nim-first-legal"], env, tmp_path)
        assert seq.returncode == 0, seq.stderr
        other = pl.read_parquet(tmp_path / "seq" / "games" / "**" / "*.parquet")
        cols = ["game_index", "winner", "rounds"]
        assert df.select(cols).sort("game_index").equals(other.select(cols).sort("game_index"))


#: A user's script: a policy and a game registered from ``__main__``, run under loky workers
#: (issue 18: the policy failed with ``KeyError: 'first-legal'``, the game with
#: UnknownGameError, as workers started with a fresh registry).
_SCRIPT = """
import sys
from pathlib import Path
import polars as pl
from balancelab import games
from balancelab.policies.base import Policy, register
from balancelab.simulate import runs

class FirstLegal(Policy):
    name = "first-legal"
    def act(self, view, legal):
        return legal[0]

def main():
    register("first-legal", FirstLegal, help="the first legal action")
    sys.path.insert(0, sys.argv[2])
    import nim_game
    games.register(nim_game.NimGame)              # a game class, not an entry point
    games.register("nim_game:GAME", name="nim2")  # a game by import path, loaded at first use
    for game, opts in (("odyssey", {}), ("nim2", {"heaps": 2})):
        g = games.get_game(game)
        config = runs.RunConfig(game=game, variants=[g.options_type.from_strings(opts)],
                                  policies={s: "first-legal" for s in g.sides}, seed=1,
                                  games=8, chunk_games=2)
        out = Path(sys.argv[1]) / game
        runs.run(config, out, jobs=2, backend=sys.argv[3])
        df = pl.read_parquet(out / "games" / "**" / "*.parquet")
        print(game, df.height, sorted(set(df["policies"])))

if __name__ == "__main__":  # dask's local cluster starts its workers by importing this
    main()
"""


@pytest.mark.parametrize("backend", ["loky", pytest.param("dask", marks=pytest.mark.skipif(
    not HAS_DASK, reason="dask is an optional extra"))])
def test_registrations_from_user_code_reach_the_workers(tmp_path, backend) -> None:
    script = tmp_path / "user.py"
    script.write_text(textwrap.dedent(_SCRIPT))
    env = {**nim_env(tmp_path / "no-site"), "PYTHONPATH": str(REPO)}  # nim not installed
    res = subprocess.run([sys.executable, str(script), str(tmp_path), str(NIM), backend],
                         env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-3000:]
    lines = res.stdout.strip().splitlines()
    assert lines[0].startswith("odyssey 8 ['hal=first-legal;bowman=first-legal;")
    assert lines[1] == "nim2 8 ['first=first-legal;second=first-legal']"


def test_a_game_without_a_round_cap_shows_no_capped_row(tmp_path, monkeypatch) -> None:
    """The outcomes of a game without a round cap (Nim) have no "stopped by the round cap" row;
    a game with one (``Game.round_cap``) shows it even at 0 (issue 30)."""
    from balancelab.analysis import outcome_rates
    from balancelab.simulate.runs import RunConfig, run

    write_dist_info(tmp_path)
    monkeypatch.syspath_prepend(str(NIM))
    monkeypatch.syspath_prepend(str(tmp_path))
    run(RunConfig(game="nim", variants=[], games=20), tmp_path / "nim", jobs=1,
        backend="sequential")
    assert outcome_rates(tmp_path / "nim").get_column("outcome").to_list() == ["first",
                                                                               "second"]
    run(RunConfig(game="odyssey", variants=[], games=4), tmp_path / "ody", jobs=1,
        backend="sequential")
    rows = outcome_rates(tmp_path / "ody").select("outcome", "count").rows()
    assert rows[-1] == ("capped", 0) and len(rows) == 3


def test_a_plugin_game_naming_a_missing_module_is_one_line(tmp_path) -> None:
    """``simulate`` and ``trace`` of a game whose entry point names a missing module: one
    line, exit 1, nothing written (issue 30 G2: a 49-69-line traceback)."""
    import os

    info = tmp_path / "site" / "bad-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bad\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[balancelab.games]\nnim2 = no_such_module_xyz:GAME\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO)])}
    work = tmp_path / "work"
    work.mkdir()
    for args in (["simulate", "nim2", "--games", "5", "-q"], ["trace", "nim2"]):
        res = _cli(args, env, work)
        lines = res.stderr.strip().splitlines()
        assert res.returncode == 1 and len(lines) == 1, res.stderr
        assert lines[0].startswith("error: cannot load entry point 'nim2'")
        assert "No module named 'no_such_module_xyz'" in lines[0]
        assert list(work.iterdir()) == []
