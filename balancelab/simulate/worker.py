"""The worker side of a run: play a chunk of games into plain Python columns.

A runner worker (a loky process) imports this module, the game registry, the game's engine
and its policies, and nothing else of balancelab. None of them may import polars, pyarrow,
scipy or matplotlib: polars alone added ~30 MB to every worker's RSS (pyarrow would add ~25 MB
more), which kept a 1,000,000-game run on two workers above 400 MB (issue 6). A worker returns
plain lists, one per column, and the driver (:func:`balancelab.simulate.runs.tables.chunk_frame`)
builds the polars frames from them; ``tests/test_worker_imports.py`` holds the rule.

The tables' layouts (column names, order and :data:`~balancelab.simulate.core.ColumnType`) are
defined here, once, by :func:`games_columns` and :func:`seats_columns`; the runs map them to
polars dtypes (``runs.tables.games_schema``/``runs.tables.seats_schema``).
"""

from __future__ import annotations

import functools
import itertools
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

from balancelab import games, plugins
from balancelab.games import get_game
from balancelab.policies import base as policies
from balancelab.simulate.core import (
    ColumnType,
    Game,
    rules_stream,
    seat_generator,
    seat_key,
)
from balancelab.simulate.options import RuleOptions
from balancelab.simulate.play import PlayedGame, gc_paused, play

#: One table's chunk as plain Python: column name → one value per row, in table order.
Columns: TypeAlias = dict[str, list[Any]]

#: The label columns that open both tables (the run's and the variant's names).
LABEL_COLUMNS: dict[str, ColumnType] = {
    "run_id": "str",
    "game": "str",
    "game_version": "str",
    "variant_label": "str",
}


def games_columns(game: Game, options: RuleOptions) -> dict[str, ColumnType]:
    """The games table's layout: column name → type, in column order.

    The labels (:data:`LABEL_COLUMNS`), one column per rule option (typed by its value:
    ``bool``, int → ``i64``, float → ``f64``, else ``str``), ``policy_<side>`` per side,
    ``policies``, the columns every game has (``game_index`` … ``decisions``), then the game's
    ``measure_schema``.
    """
    opt: dict[str, ColumnType] = {}
    for k, v in options.columns().items():
        opt[k] = (
            "bool" if isinstance(v, bool)
            else "i64" if isinstance(v, int)
            else "f64" if isinstance(v, float)
            else "str"
        )
    return {
        **LABEL_COLUMNS,
        **opt,
        **{f"policy_{s}": "str" for s in game.sides},
        "policies": "str",
        "game_index": "i64",
        "seed": "i64",
        "winner": "str",
        "end_reason": "str",
        "rounds": "i32",
        "decisions": "i32",
        **game.measure_schema,
    }


def seats_columns(game: Game) -> dict[str, ColumnType]:
    """The seats table's layout (games with per-seat scores): column name → type, in order."""
    return {
        **LABEL_COLUMNS,
        "game_index": "i64",
        "seat_name": "str",
        "policy": "str",
        "seat": "i32",
        **{k: v for k, v in game.seat_schema.items() if k != "seat"},
    }


#: What a column of a run's tables holds, in the parquet files' key-value metadata
#: (:func:`column_roles`): ``label`` names the run, variant or seat; ``option`` is a rule
#: option; ``policy`` a policy spec; ``key`` identifies the row (game index, seat); ``seed``
#: the run seed; ``outcome`` who won and why the game ended; ``measure`` a number the game
#: measured.
ROLES = ("label", "option", "policy", "key", "seed", "outcome", "measure")


def column_roles(game: Game, options: RuleOptions | None = None) -> dict[str, str]:
    """Each column's role (one of :data:`ROLES`), in column order: the games table's for
    ``options``, the seats table's (:func:`seats_columns`) when ``options`` is None."""
    roles = {c: "label" for c in LABEL_COLUMNS}
    if options is None:
        roles.update({"game_index": "key", "seat_name": "label", "policy": "policy",
                      "seat": "key"})
        return {c: roles.get(c, "measure") for c in seats_columns(game)}
    roles.update({c: "option" for c in options.columns()})
    roles.update({f"policy_{s}": "policy" for s in game.sides})
    roles.update({"policies": "policy", "game_index": "key", "seed": "seed",
                  "winner": "outcome", "end_reason": "outcome"})
    return {c: roles.get(c, "measure") for c in games_columns(game, options)}


def seat_assignment(specs: Sequence[str], sides: Sequence[str], game_index: int,
                    rotate: bool) -> list[str]:
    """The policy spec of each seat in one game.

    With ``rotate``, the specs of the seats of each side are permuted: game *i* takes the
    ``i % n!``-th distinct permutation, so over ``n!`` consecutive games every permutation is
    played equally often. Identical specs make rotation a no-op.
    """
    if not rotate:
        return list(specs)
    out = list(specs)
    for side in dict.fromkeys(sides):
        idx = [i for i, s in enumerate(sides) if s == side]
        vals = [specs[i] for i in idx]
        if len(set(vals)) < 2:
            continue
        perms = list(itertools.permutations(vals))
        perm = perms[game_index % len(perms)]
        for i, v in zip(idx, perm, strict=True):
            out[i] = v
    return out


def worker_ready(driver_pid: int = 0) -> bool:
    """A no-op task: the driver runs one per worker to start them (see
    ``executors.start_workers_deaf_to_ctrl_c``); the worker starts watching its driver."""
    watch_driver(driver_pid)
    return True


#: Seconds between two looks at the driver (a worker outlives its driver by at most this).
WATCH_EVERY = 0.5
_watching: list[int] = []


def watch_driver(driver_pid: int) -> None:
    """In a worker process whose parent is the run's driver (a loky worker, a local dask
    cluster's worker), start a daemon thread that exits the process as soon as the driver is
    gone, however it went (kill -9, SIGTERM, a crash): the worker is then re-parented, so its
    parent pid changes. A no-op in the driver itself, on a remote dask worker (its parent is
    not the driver), or once started.
    """
    if not driver_pid or _watching or os.getpid() == driver_pid:
        return
    if os.getppid() != driver_pid:
        return
    _watching.append(driver_pid)

    def watch() -> None:
        while True:
            if os.getppid() != driver_pid:
                os._exit(0)  # the driver is gone: nobody will read this worker's results
            time.sleep(WATCH_EVERY)

    threading.Thread(target=watch, name="balancelab-watch-driver", daemon=True).start()


def _leave_ctrl_c_to_the_driver() -> None:
    """In a worker process, ignore SIGINT: Ctrl-C in a terminal reaches the whole process
    group, and the driver alone handles it (keeps the finished chunks, stops the workers).
    A worker caught between two tasks would otherwise print a traceback."""
    if (multiprocessing.parent_process() is not None
            and threading.current_thread() is threading.main_thread()):
        signal.signal(signal.SIGINT, signal.SIG_IGN)


def play_chunk(
    game_name: str,
    options_dict: dict[str, Any],
    specs: list[str],
    rotate: bool,
    seed: int,
    start: int,
    stop: int,
    labels: dict[str, Any],
    driver_pid: int = 0,
    registrations: tuple[plugins.Registration, ...] = (),
) -> tuple[Columns, Columns | None, int, float]:
    """Play games ``[start, stop)`` of one variant (runs in a worker).

    Returns:
        (games columns, seats columns or None when the game has no seats table, decisions
        made, CPU seconds this call took in its process: ``time.process_time``, so a loaded
        machine does not inflate it as it does wall time). Each columns dict holds one
        list per column of :func:`games_columns` /
        :func:`seats_columns`, in that order, with ``stop - start`` values (one per seat and
        game for the seats): Python ``str``/``int``/``bool``/``float``, ``None`` for a value
        the game did not report (or a label not given). The driver turns them into frames
        with :func:`balancelab.simulate.runs.tables.chunk_frame`.

    ``driver_pid``: the driver's process id; a worker process started by it exits when it
    dies (:func:`watch_driver`). ``registrations``: the games and policies the driver's user
    code registered (:func:`balancelab.plugins.shipment`), replayed here once per process;
    installed plug-ins (entry points) are found by the worker itself.
    """
    cpu0 = time.process_time()
    _leave_ctrl_c_to_the_driver()
    watch_driver(driver_pid)
    plugins.install(registrations, {"game": games.register, "policy": policies.register})
    game = get_game(game_name)
    options = game.options_type.from_strings(options_dict)
    seat_names = game.seats(options)
    sides = [game.side_of_seat(options, i) for i in range(len(seat_names))]
    games_cols: Columns = {name: [] for name in games_columns(game, options)}
    seats_cols: Columns | None = (
        {name: [] for name in seats_columns(game)} if game.seat_schema else None
    )
    opt_cols = options.columns()
    total_decisions = 0
    with gc_paused():
        for i in range(start, stop):
            assigned = seat_assignment(specs, sides, i, rotate)
            played = play_game(game, options, assigned, seed, i)
            rec = played.record
            total_decisions += played.decisions
            row: dict[str, Any] = {
                **labels,
                **opt_cols,
                **side_policy_columns(game, sides, assigned),
                "policies": ";".join(f"{n}={s}" for n, s in zip(seat_names, assigned, strict=True)),
                "game_index": i,
                "seed": seed,
                "winner": rec.winner,
                "end_reason": rec.end_reason,
                "rounds": rec.rounds,
                "decisions": played.decisions,
                **rec.measures,
            }
            _append_row(games_cols, row)
            if seats_cols is None:
                continue
            for sr in rec.seat_rows:
                k = sr["seat"]
                _append_row(seats_cols, {
                    **labels,
                    "game_index": i,
                    "seat_name": seat_names[k],
                    "policy": assigned[k],
                    **sr,
                })
    return games_cols, seats_cols, total_decisions, time.process_time() - cpu0


def _append_row(columns: Columns, row: dict[str, Any]) -> None:
    """Append one row to its table's columns (a column the row lacks gets None)."""
    for name, col in columns.items():
        col.append(row.get(name))


def side_policy_columns(game: Game, sides: Sequence[str], assigned: Sequence[str]
                        ) -> dict[str, str]:
    """``policy_<side>``: the side's spec when all its seats share it, else ``mixed``."""
    out = {}
    for side in game.sides:
        specs = {a for s, a in zip(sides, assigned, strict=True) if s == side}
        out[f"policy_{side}"] = specs.pop() if len(specs) == 1 else ("mixed" if specs else "")
    return out


def play_game(
    game: Game,
    options: RuleOptions,
    assigned: Sequence[str],
    seed: int,
    game_index: int,
    on_step: Callable[..., None] | None = None,
) -> PlayedGame:
    """Game ``game_index`` of a run seeded ``seed``, with one resolved policy spec per seat."""
    pols = seat_policies(game, options, assigned, seed, game_index)
    return play(game, options, pols, rules_stream(seed, game_index), on_step=on_step)


def seat_policies(
    game: Game,
    options: RuleOptions,
    assigned: Sequence[str],
    seed: int,
    game_index: int,
) -> list[policies.Policy]:
    """The policies of game ``game_index`` of a run seeded ``seed``, one per seat.

    Each gets its seat's Generator lazily (made only if the policy draws: most scripted
    policies never do) from the seat's one-way key (:func:`seat_key`), computed here, so that
    neither the run seed nor the game index is reachable from a policy.
    """
    return [
        policies.build(game, options, k, spec,
                       functools.partial(seat_generator, seat_key(seed, game_index, k)))
        for k, spec in enumerate(assigned)
    ]
