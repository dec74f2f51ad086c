"""The benchmark suite behind ``balancelab bench`` (scaling scripts live in ``benchmarks/``).

For each game, with its default policies and with ``random`` on every side:

- **one worker**: games/s and decisions/s of :func:`~balancelab.simulate.worker.play_chunk`
  in this process (what one worker does: play the games into the chunk's plain columns; the
  driver builds the polars frames);
- **scaling**: the same run through :func:`~balancelab.simulate.runs.run` with one worker
  (``sequential``) and with all workers (``loky``), both writing parquet; speed-up is the ratio
  of wall times and efficiency the speed-up over the number of workers. The loky pool is
  started before timing (a real run pays ~1 s once for it);
- **memory** (default policies): peak RSS of a full run of N games in a fresh process — the
  driver's own peak (``ru_maxrss``) and the peak sum of driver + worker processes (sampled
  every 50 ms with psutil when installed);
- **search primitives**: ``State.copy()``/s on a mid-game state, random rollouts/s from it
  (copy, then uniformly random legal actions to the end), which bound a search policy, and
  ISMCTS iterations/s at the next decision (:func:`ismcts_rate`);
- **anchor** (``anchor=True``, ``balancelab bench --anchor``): OpenSpiel's hearts played at
  random from Python, in the same process, measured just before and just after each
  one-worker measurement (:class:`Anchor`); each game's decisions/s is then given as a ratio
  to the anchor's steps/s measured at the same moments, so that figures taken on different
  machines, or under different load, can be compared.

Decisions count the moves where a policy was asked (more than one legal action), as in the
games table's ``decisions`` column.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np

from balancelab import build
from balancelab.games import get_game
from balancelab.games import names as registered_games
from balancelab.simulate.core import Game, State, game_streams
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.runs import RunConfig, plan_chunks, run
from balancelab.simulate.worker import play_chunk

#: Rule options each game is measured with, unless ``--set`` says otherwise: 1998 ISS at four
#: players (its longest games, and the setting its speed target names); others at defaults.
SETTINGS: dict[str, dict[str, str]] = {"iss": {"players": "4"}}


def variants(game_name: str, options: dict[str, str] | None) -> list[RuleOptions]:
    """The one variant a measurement plays: ``options`` (rule option name → value), or the
    default options when empty.

    Raises:
        balancelab.simulate.options.OptionError: an unknown option or a bad value.
    """
    if not options:
        return []
    return [get_game(game_name).options_type.from_strings(options)]


#: Memory-run sizes of the quick default and of ``--full``.
QUICK_MEMORY_GAMES = (10_000,)
FULL_MEMORY_GAMES = (10_000, 100_000)

Log: TypeAlias = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def workers(jobs: int) -> int:
    """The number of workers ``jobs`` means (-1: all cores)."""
    return (os.cpu_count() or 1) if jobs < 0 else jobs


# -- the anchor ------------------------------------------------------------------------------

#: The pip command that installs the anchor (OpenSpiel), quoted in the error without it.
ANCHOR_INSTALL = 'pip install "balancelab[openspiel]"'


class Anchor:
    """The yardstick: OpenSpiel's hearts (C++) played by uniformly random players driven from
    Python, in this process.

    A step is one action applied: a card dealt, the passing direction, a card passed or
    played (about 115 a game, 53 of them the deal's chance outcomes). Each step reads the
    chance outcomes or the legal actions and draws one uniformly with a numpy Generator's
    ``integers``, as the ``random`` policy does (every chance event of hearts is uniform).

    Args:
        seconds: play for this long per :meth:`steps_per_s`.
        seed: the Generator's seed.

    Raises:
        RuntimeError: OpenSpiel (``pyspiel``) is not installed; the message names
            :data:`ANCHOR_INSTALL`.
    """

    name = "OpenSpiel hearts, random play from Python"

    def __init__(self, seconds: float = 0.5, seed: int = 0) -> None:
        try:
            import pyspiel
        except ImportError:
            raise RuntimeError("the anchor is OpenSpiel's hearts, and OpenSpiel is not "
                               f"installed: {ANCHOR_INSTALL}") from None
        self.game = pyspiel.load_game("hearts")
        self.seconds = seconds
        self.rng = np.random.default_rng(seed)
        #: every :meth:`steps_per_s` measured, in order
        self.samples: list[float] = []
        self._play(1)  # warm-up: the game's tables, the Generator

    def _play(self, games: int) -> int:
        """Play ``games`` games; the steps taken."""
        integers = self.rng.integers
        steps = 0
        for _ in range(games):
            state = self.game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    action = outcomes[int(integers(len(outcomes)))][0]
                else:
                    legal = state.legal_actions()
                    action = legal[int(integers(len(legal)))]
                state.apply_action(action)
                steps += 1
        return steps

    def steps_per_s(self) -> float:
        """Steps/s over whole games played for about :attr:`seconds` (recorded in
        :attr:`samples`)."""
        steps = 0
        t0 = time.perf_counter()
        while True:
            steps += self._play(4)
            elapsed = time.perf_counter() - t0
            if elapsed >= self.seconds:
                break
        rate = steps / elapsed
        self.samples.append(rate)
        return rate

    def around(self, measure: Callable[[], dict[str, Any]], rate: str = "decisions_per_s"
               ) -> dict[str, Any]:
        """``measure()``'s figures, measured between two anchor measurements, with
        ``anchor_steps_per_s`` (the mean of the two) and ``anchor_ratio`` (``figures[rate]``
        over it) added."""
        before = self.steps_per_s()
        figures = measure()
        steps = (before + self.steps_per_s()) / 2
        return {**figures, "anchor_steps_per_s": steps, "anchor_ratio": figures[rate] / steps}

    def summary(self) -> dict[str, Any]:
        """``{"name", "samples", "steps_per_s_min", "steps_per_s_max"}``."""
        return {"name": self.name, "samples": len(self.samples),
                "steps_per_s_min": min(self.samples, default=float("nan")),
                "steps_per_s_max": max(self.samples, default=float("nan"))}


def policy_sets(game: Game) -> dict[str, dict[str, str]]:
    """The two pairings the suite measures: the game's defaults and random on every side."""
    return {"default": {}, "random": dict.fromkeys(game.sides, "random")}


# -- one worker ------------------------------------------------------------------------------


def single_worker(game_name: str, policies: dict[str, str], *, seconds: float = 2.0,
                  games: int | None = None, seed: int = 0,
                  options: dict[str, str] | None = None) -> dict[str, Any]:
    """Games/s and decisions/s of one worker (this process) playing chunks.

    Args:
        game_name: the game.
        policies: side → policy spec ({} for the defaults).
        seconds: play chunks until this much time has passed (ignored when ``games`` is set).
        games: play exactly this many games.
        seed: run seed.
        options: rule options (name → value); None for the defaults.

    Returns:
        ``{"games", "seconds", "decisions", "games_per_s", "decisions_per_s",
        "decisions_per_game"}``.
    """
    config = RunConfig(game=game_name, variants=variants(game_name, options), policies=policies,
                       seed=seed, games=1)
    rules = config.variants[0]
    specs = config.seat_specs(rules)
    labels = {"run_id": "bench", "game": game_name, "game_version": config.game_obj.version,
              "variant_label": rules.label()}
    opts = rules.as_dict()
    play_chunk(game_name, opts, specs, config.rotate, seed, 10**9, 10**9 + 1, labels)  # warm-up
    done = decisions = 0
    batch = 1
    t0 = time.perf_counter()
    while True:
        n = batch if games is None else min(batch, games - done)
        if n <= 0:
            break
        _, _, d = play_chunk(game_name, opts, specs, config.rotate, seed, done, done + n, labels)
        done += n
        decisions += d
        elapsed = time.perf_counter() - t0
        if games is None and elapsed >= seconds:
            break
        batch = min(batch * 2, 1000)
    elapsed = time.perf_counter() - t0
    return {
        "games": done,
        "seconds": round(elapsed, 3),
        "decisions": decisions,
        "games_per_s": done / elapsed,
        "decisions_per_s": decisions / elapsed,
        "decisions_per_game": decisions / done,
    }


# -- scaling ---------------------------------------------------------------------------------


def scaling(game_name: str, policies: dict[str, str], games: int, *, jobs: int = -1,
            seed: int = 0, repeat: int = 2, options: dict[str, str] | None = None
            ) -> dict[str, Any]:
    """Wall time of the same run with one worker and with ``jobs`` workers (parquet written).

    Each is timed ``repeat`` times, interleaved, and the best time kept (the usual defence
    against other load on the machine; the figures still assume idle cores).

    Returns:
        ``{"games", "workers", "chunk_games", "seconds_1", "seconds_n", "games_per_s_1",
        "games_per_s_n", "speedup", "efficiency"}``.
    """
    n = workers(jobs)

    def config(g: int) -> RunConfig:
        return RunConfig(game=game_name, variants=variants(game_name, options),
                         policies=policies, seed=seed, games=g)

    with tempfile.TemporaryDirectory(prefix="balancelab-bench-") as tmp:
        # start the loky pool and import the game in every worker before timing
        run(config(max(2 * n, 4)), Path(tmp) / "warm", jobs=jobs)
        t1 = tn = float("inf")
        for k in range(repeat):
            t0 = time.perf_counter()
            run(config(games), Path(tmp) / f"one{k}", jobs=1, backend="sequential")
            t1 = min(t1, time.perf_counter() - t0)
            t0 = time.perf_counter()
            run(config(games), Path(tmp) / f"all{k}", jobs=jobs)
            tn = min(tn, time.perf_counter() - t0)
    speedup = t1 / tn
    return {
        "games": games,
        "workers": n,
        "chunk_games": config(games).chunk_games,
        "seconds_1": round(t1, 3),
        "seconds_n": round(tn, 3),
        "games_per_s_1": games / t1,
        "games_per_s_n": games / tn,
        "speedup": speedup,
        "efficiency": speedup / n,
    }


# -- memory ----------------------------------------------------------------------------------

_RUN_SCRIPT = """
import json, sys
from balancelab.simulate.runs import RunConfig, run
a = json.loads(sys.argv[1])
from balancelab.bench import variants
config = RunConfig(game=a["game"], variants=variants(a["game"], a["options"]),
                   policies=a["policies"], seed=a["seed"], games=a["games"],
                   chunk_games=a["chunk_games"])
s = run(config, a["out"], jobs=a["jobs"], backend=a["backend"])
assert s.games_written == a["games"], s
"""


def peak_memory(game_name: str, policies: dict[str, str], games: int, *, jobs: int = -1,
                backend: str = "loky", seed: int = 0, out: Path | None = None,
                chunk_games: int | None = None, interval: float = 0.05,
                options: dict[str, str] | None = None) -> dict[str, Any]:
    """Peak memory of a full run of ``games`` games played in a fresh Python process.

    The run is :func:`~balancelab.simulate.runs.run` itself (parquet written to ``out`` or a
    temporary folder, then deleted).

    Returns:
        ``{"games", "workers", "chunks", "seconds", "games_per_s", "driver_peak_mb"`` (the
        driver's peak RSS, sampled every ``interval`` seconds), ``"total_peak_mb"`` (peak
        sampled sum of driver + worker RSS),
        ``"workers_peak_mb"`` (peak sampled sum over workers), ``"driver_rss_quarter_mb"`` and
        ``"driver_rss_end_mb"`` (the driver's RSS a quarter into the run and at its end: equal
        when memory is flat)``}``; the sampled figures are None without psutil.

    Raises:
        RuntimeError: the run failed (its stderr is in the message).
    """
    try:
        import psutil
    except ImportError:  # pragma: no cover - psutil comes with dask[distributed]
        psutil = None
    with tempfile.TemporaryDirectory(prefix="balancelab-mem-") as tmp:
        target = out or Path(tmp) / "run"
        arg = json.dumps({"game": game_name, "policies": policies, "seed": seed, "games": games,
                          "jobs": jobs, "backend": backend, "out": str(target),
                          "chunk_games": chunk_games, "options": options or {}})
        chunks = len(plan_chunks(1, games, RunConfig(
            game=game_name, variants=variants(game_name, options), games=games,
            chunk_games=chunk_games).chunk_games or 1))
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _RUN_SCRIPT, arg],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        peak_total = peak_workers = 0
        trace: list[tuple[float, int]] = []  # (seconds, driver RSS)
        stop = threading.Event()

        def sample() -> None:
            nonlocal peak_total, peak_workers
            assert psutil is not None
            try:
                root = psutil.Process(proc.pid)
            except psutil.Error:
                return
            while not stop.is_set():
                try:
                    driver = root.memory_info().rss
                    kids = 0
                    for child in root.children(recursive=True):
                        try:
                            kids += child.memory_info().rss
                        except psutil.Error:
                            pass
                except psutil.Error:
                    return
                if driver:  # 0 once the process has exited
                    trace.append((time.perf_counter() - t0, driver))
                peak_total = max(peak_total, driver + kids)
                peak_workers = max(peak_workers, kids)
                stop.wait(interval)

        sampler = threading.Thread(target=sample, daemon=True) if psutil else None
        if sampler:
            sampler.start()
        assert proc.stderr is not None
        stderr = proc.stderr.read().decode(errors="replace")
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - t0
        stop.set()
        if sampler:
            sampler.join()
        if proc.returncode != 0:
            raise RuntimeError(f"the {games}-game {game_name} run failed: "
                               f"{stderr.strip().splitlines()[-1:] or proc.returncode}")
    mb = 1024 * 1024

    def rss_at(fraction: float) -> float | None:
        if not trace:
            return None
        t = fraction * trace[-1][0]
        return round(min(trace, key=lambda x: abs(x[0] - t))[1] / mb, 1)

    return {
        "games": games,
        "workers": workers(jobs),
        "chunks": chunks,
        "seconds": round(seconds, 2),
        "games_per_s": games / seconds,
        # sampled when psutil is there; else ru_maxrss (KiB on Linux), which also counts the
        # worker processes the driver waited for
        "driver_peak_mb": round(max(r for _, r in trace) / mb, 1) if trace
        else round(usage.ru_maxrss * 1024 / mb, 1),
        "total_peak_mb": round(peak_total / mb, 1) if psutil else None,
        "workers_peak_mb": round(peak_workers / mb, 1) if psutil else None,
        "driver_rss_quarter_mb": rss_at(0.25),
        "driver_rss_end_mb": rss_at(1.0),
    }


# -- search primitives -----------------------------------------------------------------------


def mid_game_state(game: Game, seed: int = 0, options: dict[str, str] | None = None) -> State:
    """A state about halfway through a game played with uniformly random actions (``options``:
    rule option name → value, None for the defaults)."""
    opts = game.options_type.from_strings(options or {})
    n_seats = len(game.seats(opts))
    rules, _ = game_streams(seed, 0, n_seats)
    rng = np.random.default_rng(seed)
    start = game.new_initial_state(opts, rules)
    probe = start.copy()
    steps = 0
    while not probe.is_terminal():
        legal = probe.legal_actions()
        probe._apply(legal[int(rng.integers(len(legal)))])
        steps += 1
    # replay the same actions on the start state for half the game (same rng, same choices)
    rng = np.random.default_rng(seed)
    state = start
    for _ in range(steps // 2):
        legal = state.legal_actions()
        state._apply(legal[int(rng.integers(len(legal)))])
    return state


def search_primitives(game_name: str, *, seconds: float = 1.0, seed: int = 0,
                      options: dict[str, str] | None = None) -> dict[str, Any]:
    """``State.copy()``/s and random rollouts/s from a mid-game state.

    Returns:
        ``{"copies_per_s", "rollouts_per_s", "rollout_steps_per_s", "steps_per_rollout"}``.
    """
    game = get_game(game_name)
    state = mid_game_state(game, seed, options)
    budget = seconds / 2
    copies = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget:
        for _ in range(100):
            state.copy()
        copies += 100
    t_copy = time.perf_counter() - t0
    rng = np.random.default_rng(seed + 1)
    rollouts = steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < budget:
        s = state.copy()
        while not s.is_terminal():
            legal = s.legal_actions()
            s._apply(legal[int(rng.integers(len(legal)))])
            steps += 1
        rollouts += 1
    t_roll = time.perf_counter() - t0
    return {
        "copies_per_s": copies / t_copy,
        "rollouts_per_s": rollouts / t_roll,
        "rollout_steps_per_s": steps / t_roll,
        "steps_per_rollout": steps / max(rollouts, 1),
        "ismcts_iterations_per_s": ismcts_rate(
            game, state, game.options_type.from_strings(options or {}), seconds=budget,
            seed=seed),
    }


#: The ISMCTS spec :func:`ismcts_rate` measures (the ladders' small rungs use depths 8-12).
ISMCTS_BENCH = {"iterations": 16, "depth": 10}


def ismcts_rate(game: Game, state: State, options: RuleOptions, *, seconds: float = 0.5,
                seed: int = 0) -> float:
    """ISMCTS iterations/s (determinize, select, expand, scripted rollout cut at depth 10,
    evaluate) at the first decision from ``state`` with more than one legal action, by the
    seat to move there (decisions of :data:`ISMCTS_BENCH` iterations, repeated until
    ``seconds`` have passed)."""
    from balancelab.policies.ismcts import IsmctsPolicy

    s = state.copy()
    while not s.is_terminal() and len(s.legal_actions()) == 1:
        s._apply(s.legal_actions()[0])
    if s.is_terminal():
        return float("nan")
    seat = s.current_seat
    view, legal = s.view(seat), s.legal_actions()
    done = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds or done == 0:
        pol = IsmctsPolicy(game, options, seat, np.random.default_rng(seed + done),
                           reuse=False, **ISMCTS_BENCH)
        pol.act(view, legal)
        done += pol.iterations_run
    return done / (time.perf_counter() - t0)


# -- adapters --------------------------------------------------------------------------------


def _states_of_random_games(game: Game, options: RuleOptions, count: int, seed: int
                            ) -> list[State]:
    """``count`` unfinished states met along random games (every state of each game)."""
    rng = np.random.default_rng(seed)
    out: list[State] = []
    k = 0
    while len(out) < count:
        s = game.new_initial_state(options, game_streams(seed, k, len(game.seats(options)))[0])
        k += 1
        while not s.is_terminal() and len(out) < count:
            out.append(s.copy())
            legal = s.legal_actions()
            s._apply(legal[int(rng.integers(len(legal)))])
    return out


def adapter_costs(game_name: str, *, seconds: float = 1.0, seed: int = 0, states: int = 200,
                  options: dict[str, str] | None = None) -> dict[str, Any]:
    """What the adapters cost per state, against one random engine decision, on ``states``
    states of random games (each measured fresh: no adapter has seen it before).

    - ``decision_us``: one decision of random players in the play loop (the seat's view, a
      uniform pick among the legal actions, the action applied, as ``decisions/s`` of the
      random pairing counts them: whole games, over the decisions with a choice),
      microseconds;
    - ``observe_us``: PettingZoo ``observe()`` of the seat to act (its view as a vector and
      the mask of legal ids); ``openspiel_us``: OpenSpiel ``legal_actions()`` plus
      ``observation_string()`` of the player to act;
    - ``observe_ratio`` and ``openspiel_ratio``: each over ``decision_us`` (the goal: at most
      10).

    The three are timed in CPU seconds of this process (other processes on a busy machine
    then show less), in turn, round after round, for ``seconds`` (after one untimed round that
    fills the adapters' tables); each keeps its fastest round. An adapter is None when its
    extra is not installed or the game has no action encoding.
    """
    game = get_game(game_name)
    opts = game.options_type.from_strings(options or {})
    sample = _states_of_random_games(game, opts, states, seed)
    timers: dict[str, Callable[[], float]] = {}

    from balancelab.policies.base import RandomPolicy
    from balancelab.simulate.play import play

    seats = len(game.seats(opts))

    def decide() -> float:  # seconds for len(sample) decisions
        spent = 0.0
        made = 0
        k = 0
        while made < len(sample):
            rules, streams = game_streams(seed, k, seats)
            pols = [RandomPolicy(game, opts, i, streams[i]) for i in range(seats)]
            t0 = time.process_time()
            made += play(game, opts, pols, rules).decisions
            spent += time.process_time() - t0
            k += 1
        return spent * len(sample) / made

    timers["decision"] = decide
    for name, make in (("observe", _observe_timer), ("openspiel", _openspiel_timer)):
        try:
            timers[name] = make(game, options or {}, sample, seed)
        except (ImportError, TypeError):  # the extra is missing; the game numbers no actions
            pass
    for timer in timers.values():
        timer()
    best = dict.fromkeys(timers, float("inf"))
    t_end = time.process_time() + seconds
    rounds = 0
    while rounds < 3 or time.process_time() < t_end:
        for name, timer in timers.items():
            best[name] = min(best[name], timer())
        rounds += 1
    per = {k: v / len(sample) * 1e6 for k, v in best.items()}
    out: dict[str, Any] = {"states": len(sample), "rounds": rounds,
                           "decision_us": per["decision"]}
    for name in ("observe", "openspiel"):
        us = per.get(name)
        out[f"{name}_us"] = us
        out[f"{name}_ratio"] = None if us is None else us / per["decision"]
    return out


def _observe_timer(game: Game, options: dict[str, str], sample: list[State], seed: int
                   ) -> Callable[[], float]:
    """Seconds for PettingZoo ``observe()`` of the seat to act on a copy of each state."""
    from balancelab.interop.pettingzoo import raw_env

    env = raw_env(game, **options)
    env.reset(seed=seed)
    agents = env.possible_agents

    def timer() -> float:
        copies = [s.copy() for s in sample]
        t0 = time.process_time()
        for c in copies:
            env.state = c
            env.observe(agents[c.current_seat])
        return time.process_time() - t0

    return timer


def _openspiel_timer(game: Game, options: dict[str, str], sample: list[State], seed: int
                     ) -> Callable[[], float]:
    """Seconds for OpenSpiel ``legal_actions()`` + ``observation_string()`` of the player to
    act on a new OpenSpiel state of each state."""
    from balancelab.interop import openspiel as bos

    spiel = bos.load(game, game.options_type.from_strings(options), rng_seed=seed)

    def timer() -> float:
        fresh = [bos.BalancelabState(spiel, s.copy()) for s in sample]
        t0 = time.process_time()
        for st in fresh:
            st.legal_actions()
            st.observation_string(st.current_player())
        return time.process_time() - t0

    return timer


# -- the suite -------------------------------------------------------------------------------


def bench_game(game_name: str, *, seconds: float = 2.0, games: int | None = None,
               jobs: int = -1, memory_games: Sequence[int] = QUICK_MEMORY_GAMES,
               memory_budget: float | None = 60.0, options: dict[str, str] | None = None,
               anchor: Anchor | None = None, log: Log = _quiet) -> dict[str, Any]:
    """Every figure of one game (see the module docstring).

    Args:
        game_name: the game.
        seconds: time per single-worker measurement, and the target length of the one-worker
            scaling run.
        games: play exactly this many games per single-worker measurement instead.
        jobs: workers for the parallel measurements (-1: all cores).
        memory_games: sizes of the memory runs (default policies); empty to skip.
        memory_budget: skip a memory run estimated to take longer than this many seconds
            (None: never skip).
        options: rule options (name → value); None for :data:`SETTINGS` (else the defaults).
        anchor: measure each one-worker figure between two anchor measurements
            (:meth:`Anchor.around`: ``anchor_steps_per_s`` and ``anchor_ratio`` added).
        log: progress messages.

    Returns:
        ``{"game", "available": True, "version", "setting", "policies": {set: {"single",
        "scaling"}}, "search", "memory": [...]}``, or ``{"game", "available": False,
        "error"}`` when the game cannot be imported (:func:`bench` also reports a game whose
        measurement raised as ``{"game", "available": True, "error": "failed: ..."}``).
    """
    try:
        game = get_game(game_name)
    except ImportError as exc:
        return {"game": game_name, "available": False, "error": f"not importable: {exc}"}
    if options is None:
        options = SETTINGS.get(game_name, {})
    setting = variants(game_name, options)
    out: dict[str, Any] = {"game": game_name, "available": True, "version": game.version,
                           "setting": setting[0].label() if setting else "defaults",
                           "chunk_games": game.chunk_games, "policies": {}, "memory": []}
    for label, pols in policy_sets(game).items():
        log(f"{game_name} [{label}]: one worker")

        def one(pols: dict[str, str] = pols) -> dict[str, Any]:
            return single_worker(game_name, pols, seconds=seconds, games=games,
                                 options=options)

        single = one() if anchor is None else anchor.around(one)
        n_games = max(int(single["games_per_s"] * seconds), 8 * workers(jobs))
        log(f"{game_name} [{label}]: {n_games} games with 1 and {workers(jobs)} workers")
        out["policies"][label] = {
            "single": single,
            "scaling": scaling(game_name, pols, n_games, jobs=jobs, options=options),
        }
    log(f"{game_name}: copies and rollouts")
    out["search"] = search_primitives(game_name, seconds=min(seconds, 2.0), options=options)
    log(f"{game_name}: the PettingZoo and OpenSpiel adapters")
    out["adapters"] = adapter_costs(game_name, seconds=min(seconds, 2.0), options=options)
    rate = out["policies"]["default"]["scaling"]["games_per_s_n"]
    for n in memory_games:
        estimate = n / rate
        if memory_budget is not None and estimate > memory_budget:
            out["memory"].append({"games": n, "skipped": f"~{estimate:.0f} s; use --full"})
            continue
        log(f"{game_name}: peak memory of a {n:,}-game run (~{estimate:.0f} s)")
        out["memory"].append(peak_memory(game_name, {}, n, jobs=jobs, options=options))
    return out


def machine() -> dict[str, Any]:
    """What the figures were measured on (``load_1min``: other work when the suite started)."""
    return {
        "cpus": os.cpu_count(),
        "load_1min": round(os.getloadavg()[0], 2),
        "python": platform.python_version(),
        "engine": build.describe(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }


def bench(game_names: Sequence[str] | None = None, *, seconds: float = 1.0,
          games: int | None = None, jobs: int = -1, full: bool = False,
          memory_games: Sequence[int] | None = None, options: dict[str, str] | None = None,
          anchor: bool = False, log: Log = _quiet) -> dict[str, Any]:
    """Run the suite on some games (default: every registered game).

    Args:
        full: memory runs of 10,000 and 100,000 games, never skipped for time.
        memory_games: explicit memory-run sizes (overrides ``full``'s).
        options: rule options (name → value) for every game measured, over :data:`SETTINGS`.
        anchor: measure the :class:`Anchor` around every one-worker measurement, for half of
            ``seconds`` each time (at least 0.25 s).

    Returns:
        ``{"machine": {...}, "jobs": workers, "games": [per-game dicts]}``, JSON-ready, and
        ``"anchor"`` (:meth:`Anchor.summary`) with ``anchor``.

    Raises:
        ValueError: an unknown game name.
        balancelab.simulate.options.OptionError: an option a game does not have, or a bad value.
        RuntimeError: ``anchor`` without OpenSpiel installed (before any measurement).
    """
    started = machine()  # load average before the suite adds its own
    names = list(game_names or registered_games())
    for name in names:
        if name not in registered_games():
            raise ValueError(f"unknown game {name!r}; valid games: "
                             f"{', '.join(registered_games())}")
    settings = {name: {**SETTINGS.get(name, {}), **(options or {})} for name in names}
    for name in names:
        variants(name, settings[name])  # a bad option fails here, before any measurement
    yardstick = Anchor(max(seconds / 2, 0.25)) if anchor else None
    if memory_games is None:
        memory_games = FULL_MEMORY_GAMES if full else QUICK_MEMORY_GAMES
    results = []
    for name in names:
        try:
            results.append(bench_game(name, seconds=seconds, games=games, jobs=jobs,
                                      memory_games=memory_games,
                                      memory_budget=None if full else 30.0,
                                      options=settings[name], anchor=yardstick, log=log))
        except Exception as exc:  # one broken engine must not hide the others' figures
            results.append({"game": name, "available": True,
                            "error": f"failed: {type(exc).__name__}: {exc}"})
    out = {"machine": started, "jobs": workers(jobs), "games": results}
    if yardstick is not None:
        out["anchor"] = yardstick.summary()
    return out


# -- presentation ----------------------------------------------------------------------------


def tables(results: dict[str, Any]) -> list[Any]:
    """Rich renderables of :func:`bench`'s results: speed and scaling, search primitives and
    memory, and a line per game that could not be imported."""
    from rich.table import Table
    from rich.text import Text

    n = results["jobs"]
    speed = Table("game", "policies", "games/s", "decisions/s", "dec/game",
                  f"games/s ×{n}", "speed-up", "eff.",
                  title=f"Throughput: 1 worker, then {n} workers "
                  f"({results['machine']['cpus']} cores; engine "
                  f"{results['machine'].get('engine', 'unknown')})")
    other = Table("game", "copy()/s", "rollouts/s", "steps/rollout", "ismcts it/s", "run games",
                  "driver MB", f"driver+{n}w MB", "run games/s",
                  title="Search primitives; peak memory of runs (default policies)")
    adapters = Table("game", "decision µs", "PettingZoo observe() µs", "×",
                     "OpenSpiel legal + string µs", "×",
                     title="Adapters: cost per fresh state against one random decision "
                     "(×: the multiple; goal ≤ 10; OpenSpiel: legal_actions() + "
                     "observation_string())")
    missing = []
    for g in results["games"]:
        if "error" in g:
            missing.append(Text(f"{g['game']}: {g['error']}", style="dim"))
            continue
        setting = g.get("setting", "defaults")
        name = g["game"] if setting == "defaults" else f"{g['game']} ({setting})"
        for label, r in g["policies"].items():
            s, sc = r["single"], r["scaling"]
            speed.add_row(name, label, f"{s['games_per_s']:,.0f}",
                          f"{s['decisions_per_s']:,.0f}", f"{s['decisions_per_game']:.1f}",
                          f"{sc['games_per_s_n']:,.0f}", f"{sc['speedup']:.2f}×",
                          f"{sc['efficiency']:.2f}")
        ad = g.get("adapters")
        if ad:
            cells = [f"{ad['decision_us']:.1f}"]
            for k in ("observe", "openspiel"):
                us = ad[f"{k}_us"]
                cells += ["not installed", ""] if us is None else [
                    f"{us:.1f}", f"{ad[f'{k}_ratio']:.1f}×"]
            adapters.add_row(name, *cells)
        sr = g["search"]
        first = [name, f"{sr['copies_per_s']:,.0f}", f"{sr['rollouts_per_s']:,.0f}",
                 f"{sr['steps_per_rollout']:.0f}",
                 f"{sr.get('ismcts_iterations_per_s', float('nan')):,.0f}"]
        mems = g["memory"] or [{"games": 0, "skipped": "not measured"}]
        for i, m in enumerate(mems):
            lead = first if i == 0 else [""] * 5
            if "skipped" in m:
                other.add_row(*lead, f"{m['games']:,}", f"[dim]skipped: {m['skipped']}[/]",
                              "", "")
                continue
            total = "n/a" if m["total_peak_mb"] is None else f"{m['total_peak_mb']:,.0f}"
            other.add_row(*lead, f"{m['games']:,}", f"{m['driver_peak_mb']:,.0f}", total,
                          f"{m['games_per_s']:,.0f}")
    anchored = anchor_table(results)
    notes = []
    m = results["machine"]
    if m.get("load_1min", 0) > 0.5 * (m["cpus"] or 1):
        notes.append(Text(
            f"note: the machine was busy when the suite started (load {m['load_1min']} on "
            f"{m['cpus']} cores); speed-ups and rates are lower than on idle cores.",
            style="yellow"))
    return [speed, *anchored, other, *([adapters] if adapters.row_count else []),
            *missing, *notes]


def anchor_table(results: dict[str, Any]) -> list[Any]:
    """The ratios to the anchor (a one-table list), or [] when it was not measured."""
    from rich.table import Table

    if "anchor" not in results:
        return []
    a = results["anchor"]
    table = Table("game", "policies", "decisions/s", "anchor steps/s", "ratio",
                  title=f"Against the anchor: {a['name']} (steps/s measured just before and "
                  f"after each of ours; {a['samples']} measurements, "
                  f"{a['steps_per_s_min']:,.0f}–{a['steps_per_s_max']:,.0f})")
    for g in results["games"]:
        if "error" in g:
            continue
        setting = g.get("setting", "defaults")
        name = g["game"] if setting == "defaults" else f"{g['game']} ({setting})"
        for label, r in g["policies"].items():
            s = r["single"]
            table.add_row(name, label, f"{s['decisions_per_s']:,.0f}",
                          f"{s['anchor_steps_per_s']:,.0f}", f"{s['anchor_ratio']:.2f}×")
    return [table]
