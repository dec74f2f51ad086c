"""Real processes and real signals (issue 17): workers die with their driver, Ctrl-C and
SIGTERM are clean at any moment, one writer per run folder, disk errors are one line.

Each test starts ``python -m balancelab`` in its own session (as a terminal would, Ctrl-C goes
to the whole process group), waits until the run has written something, then signals it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: Long enough that every signal lands mid-run, on any machine.
LONG = ["odyssey", "--games", "200000", "--seed", "3", "--quiet"]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env["MPLBACKEND"] = "Agg"
    env["COLUMNS"] = "200"
    return env


def _default_sigint(then: object = None) -> object:
    """A child's pre-exec step: SIGINT at its default action (a terminal's foreground process),
    then ``then``. A shell starting a background job without job control sets SIGINT to be
    ignored, and an ignored signal is inherited across exec: a Ctrl-C sent before the command
    installs its handler would be lost, whatever the command does."""

    def step() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if callable(then):
            then()

    return step


def _start(*args: str, preexec_fn: object = None) -> subprocess.Popen[str]:
    preexec_fn = _default_sigint(preexec_fn)
    return subprocess.Popen([sys.executable, "-m", "balancelab", *args], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=preexec_fn)  # type: ignore[arg-type]


def _wait_written(path: Path, proc: subprocess.Popen[str], games: int = 1,
                  timeout: float = 120) -> None:
    """Until the run's manifest records ``games`` games (the run is under way)."""
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        if proc.poll() is not None:
            raise AssertionError(f"the run ended early: {proc.communicate()}")
        try:
            if json.loads((path / "run.json").read_text())["games_written"] >= games:
                return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.1)
    raise AssertionError("the run wrote nothing in time")


def _wait_workers(proc: subprocess.Popen[str], n: int, timeout: float = 60) -> list[int]:
    """The pids of the driver's descendants once there are at least ``n``."""
    p = psutil.Process(proc.pid)
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        kids = [c.pid for c in p.children(recursive=True)]
        if len(kids) >= n:
            return kids
        time.sleep(0.1)
    raise AssertionError("the workers did not start")


def _all_gone(pids: list[int], timeout: float = 10) -> list[int]:
    """The pids still alive (zombies count as gone) after waiting up to ``timeout``."""
    t0 = time.monotonic()
    alive = pids
    while time.monotonic() - t0 < timeout:
        alive = []
        for pid in pids:
            try:
                if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                    alive.append(pid)
            except psutil.NoSuchProcess:
                pass
        if not alive:
            return []
        time.sleep(0.2)
    for pid in alive:  # do not leave them behind for the other tests
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return alive


def _no_traceback(text: str) -> None:
    assert "Traceback" not in text and "Error:" not in text.replace("error:", ""), text


WORKERS_MASKS = """
import os, signal
import joblib, psutil
from balancelab.simulate.executors import start_workers_deaf_to_ctrl_c

parallel = joblib.Parallel(n_jobs=2, return_as="generator")
start_workers_deaf_to_ctrl_c(parallel, 2, os.getpid())
workers = [p for p in psutil.Process().children(recursive=True)
           if "popen_loky_posix" in " ".join(p.cmdline())]
def blocked(pid):  # is SIGINT in the process's blocked-signal mask (from its birth)?
    line = next(x for x in open(f"/proc/{pid}/status") if x.startswith("SigBlk:"))
    return bool(int(line.split()[1], 16) >> (signal.SIGINT - 1) & 1)
driver_blocks = signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, set())
print(len(workers), all(blocked(p.pid) for p in workers), driver_blocks)
"""


def test_workers_start_with_ctrl_c_blocked_and_the_driver_hears_it() -> None:
    """Python 3.11's multiprocessing resource tracker, started by the first worker's launch,
    unblocks SIGINT in the driver: workers launched after it heard a Ctrl-C in their imports
    and printed a traceback (the runner starts the trackers before it blocks)."""
    done = subprocess.run([sys.executable, "-c", WORKERS_MASKS], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["2", "True", "False"], done.stdout


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_loky_workers_die_with_their_driver(tmp_path: Path, sig: int) -> None:
    out = tmp_path / "run"
    proc = _start("simulate", *LONG, "--jobs", "2", "--out", str(out))
    _wait_written(out, proc)
    kids = _wait_workers(proc, 2)
    os.kill(proc.pid, sig)
    _, err = proc.communicate(timeout=60)
    assert _all_gone(kids) == [], "workers outlived their driver"
    if sig == signal.SIGTERM:  # handled like Ctrl-C: chunks kept, the command to continue
        assert proc.returncode == 143
        assert f"balancelab resume {out}" in err
        _no_traceback(err)
    m = json.loads((out / "run.json").read_text())
    assert 0 < m["games_written"] < m["games_total"]


@pytest.mark.parametrize(("after", "backend"), [(0.0, "loky"), (0.4, "loky"), (1.0, "loky"),
                                              (1.5, "loky"), ("written", "loky"),
                                              (1.5, "dask")])
def test_ctrl_c_at_any_moment_is_clean(tmp_path: Path, after: float | str,
                                       backend: str) -> None:
    """At 1.5 s a local dask cluster is starting its workers (before the resource trackers
    were started first, 4 of 5 such runs printed a worker's traceback)."""
    if backend == "dask":
        pytest.importorskip("dask.distributed")
    out = tmp_path / "run"
    proc = _start("simulate", *LONG, "--jobs", "2", "--backend", backend, "--out", str(out))
    if after == "written":
        _wait_written(out, proc)
    else:
        time.sleep(float(after))
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: the whole process group
    _, err = proc.communicate(timeout=60)
    if "init_import_site" in err:  # CPython's own start-up, before any balancelab code ran
        pytest.skip("the signal landed while the interpreter imported its site packages")
    # -2: the signal arrived while the interpreter itself was starting, before any Python
    # ran (a shell shows that as exit status 130 too); nothing printed then
    assert proc.returncode == 130 or (proc.returncode == -signal.SIGINT and not err), err
    # no worker prints either: each starts with SIGINT blocked, its imports included
    _no_traceback(err)
    assert len(err.strip().splitlines()) <= 2, err
    if (out / "run.json").exists():
        assert "balancelab resume" in err


CAUGHT_IN_EXEC = """
from balancelab import cli

def app(standalone_mode):  # a Ctrl-C inside code a library runs by exec (dataclasses does)
    exec("raise KeyboardInterrupt")

cli.app = app
cli.main()
"""


def test_a_ctrl_c_raised_in_exec_code_still_exits_130(tmp_path: Path) -> None:
    """CPython marks a KeyboardInterrupt that leaves ``exec``'d code as unhandled and, under
    ``python -m``, ends the process by SIGINT (-2) after ``sys.exit(130)``; a Ctrl-C during
    ``import dask.distributed`` did that (1 run in 40 on the dask backend)."""
    (tmp_path / "caught_in_exec.py").write_text(CAUGHT_IN_EXEC)
    env = _env()
    env["PYTHONPATH"] = str(tmp_path) + os.pathsep + env["PYTHONPATH"]
    done = subprocess.run([sys.executable, "-m", "caught_in_exec"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stderr) == (130, "interrupted\n")


@pytest.mark.slow
def test_ctrl_c_then_resume_gives_the_uninterrupted_bytes(tmp_path: Path) -> None:
    args = ["odyssey", "--games", "3000", "--seed", "5", "--quiet"]
    full = tmp_path / "full" / "r"
    done = subprocess.run([sys.executable, "-m", "balancelab", "simulate", *args, "--jobs", "1",
                           "--out", str(full)], cwd=ROOT, env=_env(), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    part = tmp_path / "part" / "r"
    proc = _start("simulate", *args, "--jobs", "2", "--out", str(part))
    _wait_written(part, proc)
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode in (0, 130)
    res = subprocess.run([sys.executable, "-m", "balancelab", "resume", str(part), "--jobs",
                          "1", "--quiet"], cwd=ROOT, env=_env(), capture_output=True, text=True,
                         timeout=600)
    assert res.returncode == 0, res.stderr

    def files(p: Path) -> dict[str, bytes]:
        return {str(f.relative_to(p)): f.read_bytes() for f in sorted(p.rglob("*.parquet"))
                if "report" not in f.parts}

    assert files(part) == files(full)


def test_one_writer_per_run_folder_and_a_killed_writer_leaves_no_stuck_lock(
        tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = _start("simulate", *LONG, "--jobs", "1", "--out", str(out))
    _wait_written(out, first)
    for args in (["resume", str(out), "--jobs", "1", "-q"],
                 ["simulate", *LONG, "--jobs", "1", "--out", str(out), "--resume"],
                 ["simulate", *LONG, "--jobs", "1", "--out", str(out), "--force"]):
        second = subprocess.run([sys.executable, "-m", "balancelab", *args], cwd=ROOT,
                                env=_env(), capture_output=True, text=True, timeout=300)
        assert second.returncode == 1, second.stderr
        assert f"being written by another balancelab (process {first.pid})" in second.stderr
        assert len(second.stderr.strip().splitlines()) == 1
    assert first.poll() is None  # the first writer was not disturbed
    os.kill(first.pid, signal.SIGKILL)
    first.communicate(timeout=60)
    # the dead writer's lock file is still there, and is taken over
    assert (out / ".lock").exists()
    before = json.loads((out / "run.json").read_text())["games_written"]
    again = _start("resume", str(out), "--jobs", "1", "-q")
    _wait_written(out, again, games=before + 1)  # the new writer took the lock and plays
    os.kill(again.pid, signal.SIGKILL)
    again.communicate(timeout=60)


def _dask() -> bool:
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.slow
@pytest.mark.skipif(not _dask(), reason="needs dask.distributed")
def test_dask_ctrl_c_is_clean_and_its_workers_die_with_a_killed_driver(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = _start("simulate", *LONG, "--jobs", "2", "--backend", "dask", "--out", str(out))
    _wait_written(out, proc)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    _no_traceback(err)
    assert len(err.strip().splitlines()) <= 2, err
    assert "balancelab resume" in err
    # kill -9: the local cluster's worker processes go too
    proc = _start("resume", str(out), "--jobs", "2", "--backend", "dask", "-q")
    kids = _wait_workers(proc, 2)
    time.sleep(3)  # workers running chunks
    kids = [c.pid for c in psutil.Process(proc.pid).children(recursive=True)] or kids
    os.kill(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    assert _all_gone(kids, timeout=15) == []


@pytest.mark.slow
@pytest.mark.skipif(not _dask(), reason="needs dask.distributed")
def test_dask_starts_no_more_workers_than_chunks(tmp_path: Path) -> None:
    from balancelab.simulate import executors, runs

    seen: list[int] = []
    real = executors.use_backend

    def spy(backend: str, scheduler: str | None, jobs: int = -1,
            max_workers: int | None = None):  # type: ignore[no-untyped-def]
        seen.append(max_workers or 0)
        return real(backend, scheduler, jobs, max_workers)

    config = runs.RunConfig(game="odyssey", variants=[], games=8, chunk_games=2,
                              policies={"hal": "random", "crew": "random"})
    import unittest.mock

    with unittest.mock.patch.object(executors, "use_backend", spy):
        runs.run(config, tmp_path / "r", jobs=30, backend="dask")
    assert seen == [4]  # 4 chunks: a local cluster of 4 workers, not 30


def _can_mount() -> bool:
    if os.geteuid() != 0 or sys.platform != "linux":
        return False
    probe = Path("/tmp/balancelab-mount-probe")
    probe.mkdir(exist_ok=True)
    ok = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(probe)],
                        capture_output=True).returncode == 0
    if ok:
        subprocess.run(["umount", str(probe)], capture_output=True)
    return ok


@pytest.fixture
def small_disk(tmp_path: Path):  # type: ignore[no-untyped-def]
    if not _can_mount():
        pytest.skip("needs root and tmpfs mounts")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=96k", "tmpfs", str(mnt)], check=True)
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], capture_output=True)


def test_a_full_disk_is_one_line_with_the_path(small_disk: Path) -> None:
    out = small_disk / "run"
    res = subprocess.run([sys.executable, "-m", "balancelab", "simulate", "odyssey", "--games",
                          "3000", "--jobs", "1", "--quiet", "--out", str(out)], cwd=ROOT,
                         env=_env(), capture_output=True, text=True, timeout=600)
    assert res.returncode == 1, res.stderr
    _no_traceback(res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert "No space left on device (ENOSPC)" in lines[0] and str(out) in lines[0]
    assert f"balancelab resume {out}" in lines[0]


def test_a_read_only_disk_is_one_line_with_the_path(small_disk: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    out = small_disk / "run"
    res = subprocess.run([sys.executable, "-m", "balancelab", "simulate", "odyssey", "--games",
                          "10", "--jobs", "1", "--quiet", "--out", str(out)], cwd=ROOT,
                         env=_env(), capture_output=True, text=True, timeout=600)
    assert res.returncode == 1
    _no_traceback(res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Read-only file system (EROFS)" in lines[0], res.stderr
    assert str(out) in lines[0]


def test_a_folder_without_permission_is_one_line_with_the_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # root ignores permissions, so the refusal is the operating system's error, injected
    from typer.testing import CliRunner

    from balancelab.cli import app
    from balancelab.simulate.runs import write

    out = tmp_path / "run"

    def refuse(path: Path, data: object) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(write, "write_json_atomic", refuse)
    res = CliRunner().invoke(app, ["simulate", "odyssey", "--games", "10", "--jobs", "1",
                                   "--quiet", "--out", str(out)])
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and "Permission denied (EACCES)" in lines[0], res.output
    assert str(out) in lines[0] and res.exception is None or isinstance(res.exception,
                                                                       SystemExit)
    assert not out.exists()  # a rejected run leaves no folder


def test_a_ctrl_c_while_the_command_line_is_parsed_is_told(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A Ctrl-C while a game's command is being built (its modules imported: 1.0-1.5 s
    into ``simulate``) exits 130 with one line; typer exited 130 without a word (issue 30)."""
    from balancelab import cli
    from balancelab.cli.options import GameCommands

    def interrupted(name: str) -> object:
        raise KeyboardInterrupt

    monkeypatch.setattr(GameCommands, "command_for", staticmethod(interrupted))
    monkeypatch.setattr(cli, "_TOLD", [], raising=False)
    monkeypatch.setattr(sys, "argv", ["balancelab", "simulate", "odyssey", "--games", "5"])
    handlers = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(SystemExit) as exc:
            cli.main()
    finally:
        signal.signal(signal.SIGINT, handlers[0])
        signal.signal(signal.SIGTERM, handlers[1])
    assert exc.value.code == 130
    assert capsys.readouterr().err.strip() == "interrupted"
