"""The suite: every figure of one game (:func:`bench_game`), of several (:func:`bench`), and the
machine they were measured on."""

from __future__ import annotations

import os
import platform
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from balancelab import build
from balancelab.bench.adapters import adapter_costs
from balancelab.bench.anchor import Anchor
from balancelab.bench.engine import scaling, single_worker
from balancelab.bench.memory import peak_memory
from balancelab.bench.search import search_primitives
from balancelab.bench.settings import (
    FULL_MEMORY_GAMES,
    QUICK_MEMORY_GAMES,
    SETTINGS,
    variants,
    workers,
)
from balancelab.games import get_game
from balancelab.games import names as registered_games
from balancelab.simulate.core import Game

Log: TypeAlias = Callable[[str], None]


def _quiet(_: str) -> None:
    pass


def policy_sets(game: Game) -> dict[str, dict[str, str]]:
    """The two pairings the suite measures: the game's defaults and random on every side."""
    return {"default": {}, "random": dict.fromkeys(game.sides, "random")}


def bench_game(game_name: str, *, seconds: float = 2.0, games: int | None = None,
               jobs: int = -1, memory_games: Sequence[int] = QUICK_MEMORY_GAMES,
               memory_budget: float | None = 60.0, options: dict[str, str] | None = None,
               anchor: Anchor | None = None, log: Log = _quiet) -> dict[str, Any]:
    """Every figure of one game (see :mod:`balancelab.bench`).

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
