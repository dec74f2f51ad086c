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
import math
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
    GameRecord,
    rules_stream,
    seat_generator,
    seat_keys,
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


#: The columns every game has, between the policies and the game's measures.
GAME_COLUMNS: dict[str, ColumnType] = {
    "game_index": "i64",
    "seed": "i64",
    "winner": "str",
    "end_reason": "str",
    "rounds": "i32",
    "decisions": "i32",
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
        **GAME_COLUMNS,
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
    out = list(specs)
    if not rotate:
        return out
    for idx, perms in _rotations(specs, sides):
        perm = perms[game_index % len(perms)]
        for i, v in zip(idx, perm, strict=True):
            out[i] = v
    return out


def _rotations(specs: Sequence[str], sides: Sequence[str]
               ) -> list[tuple[list[int], list[tuple[str, ...]]]]:
    """(its seats, the permutations of their specs) for each side whose seats do not all
    share a spec: what :func:`seat_assignment` rotates."""
    out = []
    for side in dict.fromkeys(sides):
        idx = [i for i, s in enumerate(sides) if s == side]
        vals = [specs[i] for i in idx]
        if len(set(vals)) >= 2:
            out.append((idx, list(itertools.permutations(vals))))
    return out


def rotation_period(specs: Sequence[str], sides: Sequence[str], rotate: bool) -> int:
    """The period of :func:`seat_assignment` in the game index (1 without rotation)."""
    if not rotate:
        return 1
    return math.lcm(*(len(perms) for _, perms in _rotations(specs, sides)))


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
    period = rotation_period(specs, sides, rotate)
    seatings: dict[int, _Seating] = {}  # game index % period → that games' seating
    seating_of: list[_Seating] = []
    records: list[GameRecord] = []
    decisions: list[int] = []
    with gc_paused():
        for i in range(start, stop):
            seating = seatings.get(i % period)
            if seating is None:
                seating = seatings[i % period] = _Seating(
                    game, options, seat_names, sides, seat_assignment(specs, sides, i, rotate))
            played = play(game, options, seating.policies(seed, i), rules_stream(seed, i))
            seating_of.append(seating)
            records.append(played.record)
            decisions.append(played.decisions)
        total_decisions = sum(decisions)
        games_cols = _games_table(game, options, labels, seed, range(start, stop), seating_of,
                                  records, decisions)
        seats_cols = (_seats_table(game, labels, seat_names, range(start, stop), seating_of,
                                   records)
                      if game.seat_schema else None)
    return games_cols, seats_cols, total_decisions, time.process_time() - cpu0


class _Seating:
    """One assignment of policy specs to the seats, as a chunk plays it: the policies'
    builders and its values of the games table's policy columns (a chunk has one, or a few
    when the seats rotate; each is made once)."""

    def __init__(self, game: Game, options: RuleOptions, seat_names: Sequence[str],
                 sides: Sequence[str], assigned: list[str]) -> None:
        self.assigned = assigned
        self.builders = _builders(game, options, assigned)
        self.columns: dict[str, str] = {
            **side_policy_columns(game, sides, assigned),
            "policies": ";".join(f"{n}={s}" for n, s in zip(seat_names, assigned, strict=True)),
        }

    def policies(self, seed: int, game_index: int) -> list[policies.Policy]:
        """The policies of game ``game_index`` of a run seeded ``seed`` (:func:`seat_policies`)."""
        return _seat_policies(self.builders, seed, game_index)


def _games_table(game: Game, options: RuleOptions, labels: dict[str, Any], seed: int,
                 indices: range, seating_of: list[_Seating], records: list[GameRecord],
                 decisions: list[int]) -> Columns:
    """The games table's columns of a chunk's games (see :func:`play_chunk`): each row holds
    what ``{**labels, **options, **policy columns, **GAME_COLUMNS, **measures}`` holds."""
    n = len(records)
    first = seating_of[0].columns if seating_of else {}
    per_row: dict[str, Callable[[], list[Any]]] = {
        **{c: functools.partial(_same_or_each, c, seating_of) for c in first},
        "game_index": lambda: list(indices),
        "seed": lambda: [seed] * n,
        "winner": lambda: [r.winner for r in records],
        "end_reason": lambda: [r.end_reason for r in records],
        "rounds": lambda: [r.rounds for r in records],
        "decisions": lambda: decisions,
    }
    return _table(games_columns(game, options), n, {**labels, **options.columns()}, per_row,
                  [r.measures for r in records])


def _same_or_each(column: str, seating_of: list[_Seating]) -> list[str]:
    """A policy column's values: one value repeated when the chunk has one seating."""
    first = seating_of[0]
    if all(s is first for s in seating_of):
        return [first.columns[column]] * len(seating_of)
    return [s.columns[column] for s in seating_of]


def _seats_table(game: Game, labels: dict[str, Any], seat_names: Sequence[str],
                 indices: range, seating_of: list[_Seating], records: list[GameRecord]
                 ) -> Columns:
    """The seats table's columns of a chunk's games: one row per seat row a game reported,
    holding what ``{**labels, "game_index", "seat_name", "policy", **seat row}`` holds."""
    rows = [(i, seating, row) for i, seating, rec in zip(indices, seating_of, records,
                                                         strict=True)
            for row in rec.seat_rows]
    per_row: dict[str, Callable[[], list[Any]]] = {
        "game_index": lambda: [i for i, _, _ in rows],
        "seat_name": lambda: [seat_names[row["seat"]] for _, _, row in rows],
        "policy": lambda: [seating.assigned[row["seat"]] for _, seating, row in rows],
    }
    return _table(seats_columns(game), len(rows), labels, per_row, [row for _, _, row in rows])


def _table(layout: dict[str, ColumnType], n: int, same: dict[str, Any],
           per_row: dict[str, Callable[[], list[Any]]], reported: list[dict[str, Any]]
           ) -> Columns:
    """A table's columns, in ``layout``'s order, of ``n`` rows: row *r* holds what
    ``{**same, **per_row's r-th values, **reported[r]}`` holds (``None`` where it holds
    nothing). Built a column at a time, not a row at a time: that costs a fraction."""
    out: Columns = {}
    for c in layout:
        if c in per_row:
            out[c] = per_row[c]()
        elif c in same:
            out[c] = [same[c]] * n
        else:  # a value every row may report: dict.get by a C loop (map), not a Python one
            out[c] = list(map(dict.get, reported, itertools.repeat(c, n)))
    # a row may also report a value of a column filled above: it wins (rare: look per row)
    given = {c for c in layout if c in per_row or c in same}
    for r, row in enumerate(reported):
        if not given.isdisjoint(row):
            for c in given.intersection(row):
                out[c][r] = row[c]
    return out


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
    policies never do) from the seat's one-way key (:func:`~balancelab.simulate.core.seat_key`),
    computed here, so that neither the run seed nor the game index is reachable from a policy.
    """
    return _seat_policies(_builders(game, options, assigned), seed, game_index)


def _builders(game: Game, options: RuleOptions, assigned: Sequence[str]
              ) -> list[Callable[[policies.RngSource], policies.Policy]]:
    """One policy builder per seat (:func:`balancelab.policies.base.builder`)."""
    return [policies.builder(game, options, k, spec) for k, spec in enumerate(assigned)]


def _seat_policies(builders: list[Callable[[policies.RngSource], policies.Policy]],
                   seed: int, game_index: int) -> list[policies.Policy]:
    """:func:`seat_policies` from the seats' builders."""
    keys = seat_keys(seed, game_index, len(builders))
    return [make(functools.partial(seat_generator, key))
            for make, key in zip(builders, keys, strict=True)]
