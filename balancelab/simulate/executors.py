"""Where chunks are played: the joblib backends (loky, threading, sequential; dask on a local or
remote cluster), Ctrl-C kept from the workers (the driver alone handles it), and the driver's
bounded backlog of finished chunks (:func:`windowed`)."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from balancelab.simulate.errors import RunError
from balancelab.simulate.worker import worker_ready

#: Worker and cluster start (never per chunk or per game).
log = logging.getLogger(__name__)

BACKENDS = ("loky", "threading", "sequential", "dask")
#: Chunks dispatched per worker in one window (bounds the driver's backlog; see windowed).
WINDOW_PER_WORKER = 16

T = TypeVar("T")


def check_backend(backend: str, scheduler: str | None) -> None:
    """Refuse a backend that cannot run, before anything starts.

    Raises:
        RunError: an unknown backend, ``scheduler`` without the dask backend, or dask not
            installed.
    """
    if backend not in BACKENDS:
        raise RunError(f"unknown backend {backend!r}; valid: {', '.join(BACKENDS)}")
    if scheduler and backend != "dask":
        raise RunError("--scheduler needs --backend dask")
    if backend == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError:
            raise RunError(
                "--backend dask needs dask.distributed: pip install 'balancelab[dask]'"
            ) from None


@contextlib.contextmanager
def use_backend(backend: str, scheduler: str | None, jobs: int = -1,
             max_workers: int | None = None) -> Iterator[str]:
    """Enter the joblib backend; for dask, a client to ``scheduler`` or a local cluster.

    The local cluster has ``jobs`` single-threaded worker processes (all cores for -1), never
    more than ``max_workers`` (the chunks to play). Its workers start with SIGINT blocked
    (Ctrl-C is the driver's alone) and dask's own logging is silenced below errors, so an
    interrupted run prints no worker tracebacks. Workers only play chunks and send the frames
    back; the driver alone writes, so a remote cluster needs balancelab installed on its
    workers but no shared disk.

    Raises:
        RunError: an unknown backend, dask not installed, or the scheduler cannot be reached.
    """
    check_backend(backend, scheduler)
    if backend != "dask":
        yield backend
        return
    import joblib
    from dask.distributed import Client, LocalCluster

    quiet = [logging.getLogger(n) for n in ("distributed", "tornado", "asyncio", "bokeh")]
    levels = [lg.level for lg in quiet]
    for lg in quiet:
        lg.setLevel(logging.CRITICAL)
    cluster = None
    client = None
    try:
        try:
            with ctrl_c_kept_from_new_processes():
                if scheduler:
                    log.info("connecting to the dask scheduler %s", scheduler)
                    client = Client(scheduler, timeout=10)
                else:
                    cores = os.cpu_count() or 1
                    n = min(jobs, cores) if jobs > 0 else cores  # a local cluster: <= cores
                    if max_workers is not None:
                        n = max(1, min(n, max_workers))  # ... and <= chunks
                    log.info("starting a local dask cluster of %d worker(s)", n)
                    cluster = LocalCluster(processes=True, n_workers=n, threads_per_worker=1,
                                           dashboard_address=None,
                                           silence_logs=logging.CRITICAL)
                    client = Client(cluster)
                    # Ctrl-C is the driver's: a local worker would print asyncio tracebacks
                    client.run(_ignore_sigint)
        except (OSError, TimeoutError) as exc:
            if cluster is not None:
                cluster.close()
            raise RunError(f"cannot reach the dask scheduler {scheduler!r}: {exc}") from None
        with joblib.parallel_config(backend="dask"):
            yield "dask"
    finally:
        _close_quietly(client, cluster)
        for lg, level in zip(quiet, levels, strict=True):
            lg.setLevel(level)


def _ignore_sigint() -> None:
    """Run on each local dask worker (in its main thread): ignore SIGINT, and quiet dask's
    logging there too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for name in ("distributed", "tornado", "asyncio"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def _close_quietly(client: Any, cluster: Any) -> None:
    """Close a dask client and cluster; a second Ctrl-C or a shutdown error is swallowed
    (the workers also exit by themselves when the driver is gone)."""
    for obj in (client, cluster):
        if obj is None:
            continue
        try:
            obj.close()
        except (KeyboardInterrupt, Exception):  # noqa: BLE001 - closing after the run
            pass



@contextlib.contextmanager
def ctrl_c_kept_from_new_processes() -> Iterator[None]:
    """Block SIGINT in the driver while processes start: they inherit the blocked signal, so a
    Ctrl-C (sent by a terminal to the whole process group) does not interrupt one while it
    starts up and imports its libraries (it would print a traceback). The driver alone
    handles Ctrl-C; one pressed meanwhile reaches it when SIGINT is unblocked. Off the main
    thread (where signals are not delivered) it does nothing.

    The resource trackers are started first: starting multiprocessing's (on the first
    process's launch) unblocks SIGINT in the driver on Python 3.11 (it ends with
    ``SIG_UNBLOCK``, not the previous mask), so the processes launched after it would hear a
    Ctrl-C while they import their libraries."""
    import multiprocessing.resource_tracker

    from joblib.externals.loky.backend import resource_tracker as loky_tracker

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    multiprocessing.resource_tracker.ensure_running()
    loky_tracker.ensure_running()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def start_workers_deaf_to_ctrl_c(parallel: Any, n_jobs: int, driver: int) -> None:
    """Start the loky workers deaf to Ctrl-C (:func:`ctrl_c_kept_from_new_processes`); each
    also starts watching the driver (it exits when the driver dies). Off the main thread the
    workers start with the first chunks, as joblib starts them."""
    import joblib

    if threading.current_thread() is not threading.main_thread():
        return
    with ctrl_c_kept_from_new_processes():
        for _ in parallel(joblib.delayed(worker_ready)(driver) for _ in range(n_jobs)):
            pass


def joblib_parallel(backend: str, jobs: int, n_chunks: int) -> tuple[Any, int]:
    """The ``joblib.Parallel`` (results as a generator) of a backend entered with
    :func:`use_backend`, and its number of workers: ``jobs`` (-1: all cores), but never more
    than ``n_chunks`` nor than the cores (dask: the cluster's own); one for ``sequential``."""
    import joblib

    n_jobs = 1 if backend == "sequential" else jobs
    if backend != "dask":  # never more workers than chunks, nor than cores
        n_jobs = max(1, min(joblib.effective_n_jobs(n_jobs), n_chunks,
                            os.cpu_count() or 1))
    par = joblib.Parallel(
        n_jobs=n_jobs,
        backend=None if backend in ("dask",) else (
            "loky" if backend == "sequential" else backend),
        return_as="generator",
    )
    return par, n_jobs


def results(parallel: Any, backend: str, n_jobs: int, task: Callable[[T], Any],
            todo: Iterable[T], driver: int) -> Iterator[tuple[T, Any]]:
    """(item, result) of each of ``todo`` in order, ``task`` making its joblib call: loky's
    workers started first, deaf to Ctrl-C and watching the ``driver`` process
    (:func:`start_workers_deaf_to_ctrl_c`), then dispatched in windows (:func:`windowed`)."""
    import joblib

    if backend == "loky" and n_jobs > 1:
        start_workers_deaf_to_ctrl_c(parallel, n_jobs, driver)
    window = WINDOW_PER_WORKER * max(1, joblib.effective_n_jobs(n_jobs))
    return windowed(parallel, task, todo, window)


def windowed(parallel: Any, task: Callable[[T], Any], todo: Iterable[T],
             window: int) -> Iterator[tuple[T, Any]]:
    """(chunk, result) in order, dispatching at most ``window`` chunks per joblib call.

    joblib hands a worker its next task as soon as it finishes one, whether or not the driver
    has consumed the results; were the driver slower than the workers (tiny chunks, a large
    cluster), finished chunks would pile up in memory for the whole run. Windows bound that
    backlog by the number of workers, never by the number of games; the cost is a short tail
    at each window's end (~3% at 16 chunks per worker). ``todo`` is consumed lazily.
    """
    it = iter(todo)
    while True:
        part = list(itertools.islice(it, window))
        if not part:
            return
        outputs = parallel(task(c) for c in part)
        try:
            yield from zip(part, outputs, strict=True)
        finally:
            # joblib's generator would otherwise be closed by the garbage collector, which
            # prints a traceback when a Ctrl-C reaches its clean-up
            quietly_close(outputs)


def quietly_close(gen: Any) -> None:
    """Close a generator, swallowing a second Ctrl-C (or error) raised by its clean-up, and
    joblib's warning that the tasks in flight were cancelled (they were meant to be)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            gen.close()
        except (KeyboardInterrupt, Exception):  # noqa: BLE001 - interruption already handled
            pass

