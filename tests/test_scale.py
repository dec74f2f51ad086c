"""Scale: crash safety with real signals, disk errors, adaptive chunks, dask, and `bench`.

The crash tests start a real ``balancelab simulate`` process, signal it once some chunks are
written, and check that ``balancelab resume`` completes it to exactly the parquet bytes an
uninterrupted run writes (``run_id`` is the folder name, so both runs use the leaf ``run``).
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from typer.testing import CliRunner

from balancelab.cli import app
from balancelab.simulate import runs as runs_pkg
from balancelab.simulate.runs import (
    RunConfig,
    RunError,
    load_games,
    plan_chunks,
    read_manifest,
    run,
)
from balancelab.simulate.runs.plan import MAX_SPLIT, MIN_CHUNKS, auto_chunk_games

cli = CliRunner()
GAME = "odyssey"
RANDOM = {"hal": "random", "crew": "random"}
#: the crash-test run: many small chunks so that a signal lands mid-run
CRASH_ARGS = ["--games", "3000", "--chunk-games", "10", "--seed", "5",
              "--policy", "hal=random", "--policy", "crew=random"]


def _crash_config() -> RunConfig:
    return RunConfig(game=GAME, variants=[], policies=RANDOM, seed=5, games=3000,
                     chunk_games=10)


def _parquet(path: Path) -> dict[str, bytes]:
    """Every file of the dataset folders (games/, seats/), by relative path."""
    return {str(p.relative_to(path)): p.read_bytes()
            for table in ("games", "seats") for p in sorted((path / table).rglob("*"))
            if p.is_file()}


def _assert_clean(path: Path) -> None:
    """No staging leftovers, and nothing but chunk files in the dataset folders."""
    assert not (path / ".staging").exists()
    for rel in _parquet(path):
        assert Path(rel).name.startswith("chunk-") and rel.endswith(".parquet"), rel


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The parquet of the crash-test run played without interruption."""
    path = tmp_path_factory.mktemp("reference") / "run"
    run(_crash_config(), path, jobs=2)
    return _parquet(path)


def _start(out: Path, *extra: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "balancelab", "simulate", GAME, *CRASH_ARGS, "--jobs", "2",
         "--out", str(out), "--quiet", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
    )


def _wait_for_games(proc: subprocess.Popen[bytes], out: Path, at_least: int,
                    timeout: float = 60) -> int:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the run ended before it could be interrupted"
        try:
            written = json.loads((out / "run.json").read_text())["games_written"]
        except (OSError, ValueError, KeyError):
            written = 0
        if written >= at_least:
            return int(written)
        time.sleep(0.01)
    raise AssertionError("no chunk was written in time")


@pytest.fixture
def session_cleanup() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Kill what is left of each started session (orphaned loky workers) after the test."""
    procs: list[subprocess.Popen[bytes]] = []
    yield procs
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _resume(out: Path) -> None:
    res = subprocess.run(
        [sys.executable, "-m", "balancelab", "resume", str(out), "--jobs", "2", "--quiet"],
        capture_output=True, timeout=120,
    )
    assert res.returncode == 0, res.stderr.decode()


def test_sigkill_mid_run_then_resume_gives_identical_parquet(
    tmp_path: Path, reference: dict[str, bytes], session_cleanup: list[subprocess.Popen[bytes]]
) -> None:
    out = tmp_path / "run"
    proc = _start(out)
    session_cleanup.append(proc)
    _wait_for_games(proc, out, 50)
    os.kill(proc.pid, signal.SIGKILL)  # kill -9 the driver, mid-run
    proc.wait(timeout=10)
    m = read_manifest(out)
    assert 50 <= m["games_written"] < 3000 and m["complete"] is False
    for key in m["chunks_done"]:  # every chunk the manifest lists is on disk and readable
        c = int(key.split(":")[1])
        assert pl.read_parquet(out / "games" / "variant=0" / f"chunk-{c:06d}.parquet").height
    _resume(out)
    assert read_manifest(out)["complete"] is True
    _assert_clean(out)
    assert _parquet(out) == reference


def test_ctrl_c_keeps_finished_chunks_exits_130_and_resumes(
    tmp_path: Path, reference: dict[str, bytes], session_cleanup: list[subprocess.Popen[bytes]]
) -> None:
    out = tmp_path / "run"
    proc = _start(out)
    session_cleanup.append(proc)
    _wait_for_games(proc, out, 50)
    os.killpg(proc.pid, signal.SIGINT)  # what Ctrl-C in a terminal sends: the whole group
    _, stderr = proc.communicate(timeout=60)
    text = " ".join(stderr.decode().split())
    assert proc.returncode == 130, text
    # the run's own line ("finish with: …"), or, when the signal lands just outside the run
    # loop, the command's ("interrupted; continue with: …"): both name the command to finish
    assert (f"finish with: balancelab resume {out}" in text
            or f"continue with: balancelab resume {out}" in text), text
    # no traceback through balancelab's code, in the driver or in a worker's task; (rarely) a
    # loky worker that is still starting up when the signal reaches the group prints its
    # import traceback (runpy/joblib frames only): a known wart, see runner's worker start
    assert "balancelab/" not in text and "Traceback" not in text.split("interrupted:")[-1]
    m = read_manifest(out)
    assert 50 <= m["games_written"] < 3000 and m["complete"] is False
    _assert_clean(out)
    _resume(out)
    assert _parquet(out) == reference


def _enospc_after(monkeypatch: pytest.MonkeyPatch, ok_writes: int) -> None:
    """Make the disk 'fill up' after ``ok_writes`` parquet files: a partial file, then ENOSPC."""
    real = pl.DataFrame.write_parquet
    calls = {"n": 0}

    def write_parquet(self: pl.DataFrame, file: str | Path, **kw: object) -> None:
        calls["n"] += 1
        if calls["n"] > ok_writes:
            if isinstance(file, (str, Path)):
                Path(file).write_bytes(b"PAR1 half a chunk")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(self, file, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(pl.DataFrame, "write_parquet", write_parquet)


def test_full_disk_gives_a_clear_message_and_keeps_what_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "run"
    args = ["simulate", GAME, "--games", "100", "--chunk-games", "20", "--seed", "5",
            "--policy", "hal=random", "--policy", "crew=random", "--jobs", "1",
            "--out", str(out), "--quiet"]
    with monkeypatch.context() as mp:
        _enospc_after(mp, 2)
        res = cli.invoke(app, args)
    text = " ".join(res.output.split())
    assert res.exit_code == 1, res.output
    assert "No space left on device (ENOSPC)" in text and "Traceback" not in text
    assert "the 40 games already written are kept" in text
    assert f"balancelab resume {out}" in text
    m = read_manifest(out)
    assert m["chunks_done"] == ["0:0", "0:1"] and m["games_written"] == 40
    _assert_clean(out)
    assert sorted(_parquet(out)) == ["games/variant=0/chunk-000000.parquet",
                                     "games/variant=0/chunk-000001.parquet"]
    res = cli.invoke(app, ["resume", str(out), "--jobs", "1", "--quiet"])
    assert res.exit_code == 0, res.output
    ref = tmp_path / "ref" / "run"
    run(RunConfig(game=GAME, variants=[], policies=RANDOM, seed=5, games=100, chunk_games=20),
        ref, jobs=1, backend="sequential")
    assert _parquet(out) == _parquet(ref)


def test_unwritable_places_give_one_line_errors(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    res = cli.invoke(app, ["simulate", GAME, "--games", "5", "--jobs", "1", "--quiet",
                           "--out", str(blocker / "run")])
    assert res.exit_code == 1 and "cannot write the run folder" in res.output
    assert "Traceback" not in res.output
    # a folder with other things in it is never written into, nor deleted by --force
    other = tmp_path / "photos"
    other.mkdir()
    (other / "cat.jpg").write_bytes(b"meow")
    for extra in ([], ["--force"]):
        res = cli.invoke(app, ["simulate", GAME, "--games", "5", "--jobs", "1", "--quiet",
                               "--out", str(other), *extra])
        assert res.exit_code == 1 and "is not a balancelab run folder" in res.output
    assert sorted(p.name for p in other.iterdir()) == ["cat.jpg"]


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_read_only_folder_gives_a_clear_message(tmp_path: Path) -> None:
    out = tmp_path / "run"
    out.mkdir()
    out.chmod(0o555)
    try:
        with pytest.raises(RunError, match="Permission denied"):
            run(RunConfig(game=GAME, variants=[], games=5), out, jobs=1, backend="sequential")
    finally:
        out.chmod(0o755)


def test_manifest_of_another_rules_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "run"
    config = RunConfig(game=GAME, variants=[], policies=RANDOM, games=10, chunk_games=5)
    run(config, path, jobs=1, backend="sequential")
    m = json.loads((path / "run.json").read_text())
    m["game_version"] = "0-old"
    (path / "run.json").write_text(json.dumps(m))
    with pytest.raises(RunError, match="rules version '0-old'"):
        run(config, path, jobs=1, backend="sequential", resume=True)


# -- chunks ----------------------------------------------------------------------------------


def test_auto_chunk_size_is_a_function_of_the_configuration_only(
    monkeypatch: pytest.MonkeyPatch
) -> None:
    assert auto_chunk_games(1000, 1_000_000) == 1000
    assert auto_chunk_games(1000, 10_000) == 250
    assert auto_chunk_games(1000, 1000) == 125 == auto_chunk_games(1000, 5)
    for cg in (1, 7, 100, 500, 2000):
        for games in (1, 10, 333, 5000, 64_000, 10**6):
            size = auto_chunk_games(cg, games)
            assert max(1, cg // MAX_SPLIT) <= size <= cg
            assert size == cg or -(-games // (size * 2)) < MIN_CHUNKS
    first = RunConfig(game=GAME, variants=[], games=3000).chunk_games
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert RunConfig(game=GAME, variants=[], games=3000).chunk_games == first


def test_a_small_run_spreads_over_workers() -> None:
    config = RunConfig(game=GAME, variants=[], games=2000)
    assert config.chunk_auto
    assert config.chunk_games is not None
    assert len(plan_chunks(1, 2000, config.chunk_games)) >= 8


def test_extending_a_run_with_a_partial_last_chunk(tmp_path: Path) -> None:
    def config(games: int) -> RunConfig:
        return RunConfig(game=GAME, variants=[], policies=RANDOM, seed=2, games=games,
                         chunk_games=25)

    part, full = tmp_path / "part" / "run", tmp_path / "full" / "run"
    run(config(60), part, jobs=1, backend="sequential")  # chunk 2 holds games 50..59
    run(config(90), part, jobs=1, backend="sequential", resume=True)
    run(config(90), full, jobs=1, backend="sequential")
    assert _parquet(part) == _parquet(full)
    assert read_manifest(part)["games_written"] == 90
    assert load_games(part)["game_index"].to_list() == list(range(90))


def test_simulate_resume_extends_an_auto_chunked_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    base = ["simulate", GAME, "--seed", "4", "--policy", "hal=random", "--policy",
            "crew=random", "--jobs", "1", "--out", str(out), "--quiet"]
    assert cli.invoke(app, [*base, "--games", "40"]).exit_code == 0
    chunk = read_manifest(out)["config"]["chunk_games"]
    res = cli.invoke(app, [*base, "--games", "120", "--resume"])
    assert res.exit_code == 0, res.output
    m = read_manifest(out)
    assert m["config"]["chunk_games"] == chunk and m["games_written"] == 120
    fresh = tmp_path / "fresh" / "run"
    run(RunConfig(game=GAME, variants=[], policies=RANDOM, seed=4, games=120), fresh,
        jobs=1, backend="sequential")
    assert load_games(out).equals(load_games(fresh))  # same rows, whatever the chunking
    res = cli.invoke(app, [*base, "--games", "30", "--resume"])  # never shrinks a run
    assert res.exit_code == 1 and "would shrink it" in res.output
    assert read_manifest(out)["games_written"] == 120 and load_games(out).height == 120


def test_a_run_that_cannot_start_leaves_no_folder(tmp_path: Path) -> None:
    out = tmp_path / "run"
    for bad, message in ((["--policy", "crew=search:rollouts=abc"],
                          "parameter 'rollouts' takes an integer"),
                         (["--backend", "foo"], "unknown backend 'foo'")):
        res = cli.invoke(app, ["simulate", GAME, "--games", "10", "--out", str(out), *bad])
        assert res.exit_code == 1 and message in res.output
        assert not out.exists()


# -- dask ------------------------------------------------------------------------------------


def test_dask_cluster_writes_the_same_parquet_as_loky(tmp_path: Path) -> None:
    distributed = pytest.importorskip("dask.distributed")
    config = RunConfig(game=GAME, variants=[], policies=RANDOM, seed=9, games=120,
                       chunk_games=15)
    run(config, tmp_path / "loky" / "run", jobs=2)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        s = run(config, tmp_path / "dask" / "run", backend="dask",
                scheduler=cluster.scheduler_address)
        assert s.games_written == 120
        res = cli.invoke(app, ["resume", str(tmp_path / "dask" / "run"), "--games", "150",
                               "--backend", "dask", "--scheduler", cluster.scheduler_address,
                               "--quiet"])
        assert res.exit_code == 0, res.output
    run(dataclasses.replace(config, games=150), tmp_path / "loky" / "run", jobs=2, resume=True)
    assert _parquet(tmp_path / "dask" / "run") == _parquet(tmp_path / "loky" / "run")


def test_without_dask_the_message_names_the_extra(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # import fails
    res = cli.invoke(app, ["simulate", GAME, "--games", "5", "--backend", "dask", "--quiet",
                           "--out", str(tmp_path / "run")])
    assert res.exit_code == 1
    assert "pip install 'balancelab[dask]'" in res.output


def test_scheduler_needs_dask_and_an_unreachable_one_is_a_clear_error(tmp_path: Path) -> None:
    res = cli.invoke(app, ["simulate", GAME, "--games", "5", "--quiet", "--scheduler",
                           "tcp://127.0.0.1:1", "--out", str(tmp_path / "a")])
    assert res.exit_code == 1 and "--scheduler needs --backend dask" in res.output
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}), pytest.raises(
        RunError, match="cannot reach the dask scheduler"
    ):
        run(RunConfig(game=GAME, variants=[], games=5), tmp_path / "b", backend="dask",
            scheduler="tcp://127.0.0.1:1")


# -- bench -----------------------------------------------------------------------------------


def test_bench_prints_and_writes_every_figure(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from balancelab import games as games_mod

    real = games_mod.get_game

    def get_game(name: str) -> Any:
        if name == "obcy":
            raise ImportError("No module named 'balancelab.simulate.obcy'")
        return real(name)

    monkeypatch.setattr("balancelab.bench.suite.get_game", get_game)
    out = tmp_path / "bench.json"
    res = cli.invoke(app, ["bench", GAME, "obcy", "--seconds", "0.2", "--jobs", "2",
                           "--memory-games", "200", "--json", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "Throughput" in text and "obcy: not importable" in text
    data = json.loads(out.read_text())
    assert data["jobs"] == 2 and data["machine"]["cpus"] == os.cpu_count()
    ody, obcy = data["games"]
    assert obcy == {"game": "obcy", "available": False,
                    "error": "not importable: No module named 'balancelab.simulate.obcy'"}
    for label in ("default", "random"):
        single = ody["policies"][label]["single"]
        assert single["games"] > 0 and single["games_per_s"] > 0
        assert single["decisions_per_s"] == pytest.approx(
            single["decisions"] / single["seconds"], rel=0.01)
        sc = ody["policies"][label]["scaling"]
        assert sc["workers"] == 2 and sc["efficiency"] == pytest.approx(sc["speedup"] / 2)
    assert ody["search"]["copies_per_s"] > 0 and ody["search"]["rollouts_per_s"] > 0
    (mem,) = ody["memory"]
    assert mem["games"] == 200 and 10 < mem["driver_peak_mb"] <= mem["total_peak_mb"]


def test_bench_errors(monkeypatch: pytest.MonkeyPatch) -> None:
    res = cli.invoke(app, ["bench", "chess"])
    assert res.exit_code == 1 and "unknown game 'chess'" in res.output
    res = cli.invoke(app, ["bench", GAME, "--memory-games", "lots"])
    assert res.exit_code == 1 and "comma-separated numbers" in res.output
    res = cli.invoke(app, ["bench", GAME, "--json", "/nonexistent/dir/b.json"])
    assert res.exit_code == 1 and "does not exist" in res.output  # before measuring anything


def test_bench_anchor_prints_each_games_ratio(tmp_path: Path) -> None:
    pytest.importorskip("pyspiel")
    out = tmp_path / "bench.json"
    res = cli.invoke(app, ["bench", GAME, "--anchor", "--seconds", "0.2", "--jobs", "1",
                           "--memory-games", "0", "--json", str(out)])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())
    assert "Against the anchor: OpenSpiel hearts, random play from Python" in text
    data = json.loads(out.read_text())
    anchor = data["anchor"]
    assert anchor["samples"] == 4  # before and after each of the two one-worker measurements
    for label in ("default", "random"):
        single = data["games"][0]["policies"][label]["single"]
        steps = single["anchor_steps_per_s"]
        assert anchor["steps_per_s_min"] <= steps <= anchor["steps_per_s_max"]
        assert single["anchor_ratio"] == pytest.approx(single["decisions_per_s"] / steps)
        assert f"{single['anchor_ratio']:.2f}×" in text


def test_bench_anchor_is_the_mean_of_the_measurements_around() -> None:
    pytest.importorskip("pyspiel")
    from balancelab.bench import Anchor

    anchor = Anchor(seconds=0.01)
    rates = iter([200.0, 300.0])
    anchor.steps_per_s = lambda: next(rates)  # type: ignore[method-assign]
    got = anchor.around(lambda: {"decisions_per_s": 100.0, "games": 3})
    assert got == {"decisions_per_s": 100.0, "games": 3, "anchor_steps_per_s": 250.0,
                   "anchor_ratio": 0.4}


def test_bench_anchor_without_openspiel_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # import pyspiel raises ImportError
    res = cli.invoke(app, ["bench", GAME, "--anchor"])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.output
    assert 'OpenSpiel is not installed: pip install "balancelab[openspiel]"' in lines[0]


def test_bench_measures_iss_at_four_players_unless_set() -> None:
    from balancelab import bench as suite

    assert suite.SETTINGS["iss"] == {"players": "4"}
    (four,) = suite.variants("iss", suite.SETTINGS["iss"])
    assert four.players == 4 and suite.variants("odyssey", {}) == []
    one = suite.single_worker("iss", {}, games=3, options={"players": "4"})
    two = suite.single_worker("iss", {}, games=3, options={"players": "2"})
    assert one["decisions_per_game"] > two["decisions_per_game"]  # four players decide more
    res = cli.invoke(app, ["bench", "iss", "--set", "players=9"])
    assert res.exit_code == 1 and "players" in res.output and "Traceback" not in res.output


def test_runs_package_keeps_its_public_surface() -> None:
    for name in ("RunConfig", "run", "resume_config", "plan_chunks", "scan_games", "load_games",
                 "replay", "play_one"):
        assert name in runs_pkg.__all__ and hasattr(runs_pkg, name)
