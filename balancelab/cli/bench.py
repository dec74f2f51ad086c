"""``balancelab bench``: speed and memory, printed as tables."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from balancelab.cli.args import parse_game_args
from balancelab.cli.common import check_jobs, console, domain_errors, err, note_if_pure_python

#: This module's commands (added to the app in :mod:`balancelab.cli`, in --help's order).
commands = typer.Typer()


@commands.command(short_help="Measure speed (games/s per core, with all cores) and memory.")
@domain_errors
def bench(
    game: Annotated[
        list[str] | None, typer.Argument(help="Games to measure (default: every game).")
    ] = None,
    games: Annotated[
        int | None,
        typer.Option("--games", "-n", min=1,
                     help="Games per one-worker measurement (default: as many as --seconds "
                     "allows)."),
    ] = None,
    seconds: Annotated[
        float, typer.Option(min=0.1, help="Seconds per one-worker measurement.")
    ] = 1.0,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Workers for the parallel runs; -1 = all cores.")
    ] = -1,
    full: Annotated[
        bool,
        typer.Option(help="Peak memory of 10,000- and 100,000-game runs (default: 10,000, "
                     "skipped if over ~30 s)."),
    ] = False,
    memory_games: Annotated[
        str | None,
        typer.Option(help="Comma-separated sizes of the memory runs, e.g. 10000,1000000; "
                     "0 to skip them."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write every figure to this JSON file.")
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="A rule option KEY=VALUE for every game measured "
                     "(repeatable), e.g. --set players=2 for iss."),
    ] = None,
    anchor: Annotated[
        bool,
        typer.Option(help="Also measure OpenSpiel's hearts, played at random from Python, "
                     "before and after each one-worker measurement, and print each game's "
                     "decisions/s as a ratio to its steps/s (needs pip install "
                     "\"balancelab[openspiel]\")."),
    ] = False,
) -> None:
    """Measure each game with its default policies and with random: games/s and decisions/s
    on one worker, speed-up and efficiency with all workers, peak memory (driver + workers)
    of full runs, and State.copy()/s and random rollouts/s from a mid-game state.

    Games play their default rules, except 1998 ISS at four players (its longest games);
    [bold]--set[/] changes that.

    The quick default takes one to two minutes on 2 idle cores; [bold]--full[/] adds
    100,000-game memory runs (minutes). Figures assume idle cores: the table warns when the
    machine was busy. Scripts for longer studies (source tree): benchmarks/flat_memory.py and
    benchmarks/profile.py.

    [bold]--anchor[/] measures a yardstick in the same process, interleaved with the games:
    OpenSpiel's hearts (C++) played at random from Python; each game's decisions/s is
    printed as a ratio to its steps/s.

    Example: balancelab bench odyssey --seconds 3 --json bench.json
    """
    import json

    from balancelab import bench as suite

    note_if_pure_python()
    check_jobs(jobs)
    sizes = None
    if memory_games is not None:
        try:
            sizes = [int(x.replace("_", "")) for x in memory_games.split(",") if x.strip()]
        except ValueError:
            raise ValueError(
                f"--memory-games takes comma-separated numbers; got {memory_games!r}"
            ) from None
        sizes = [n for n in sizes if n > 0]
    if json_out is not None and not json_out.resolve().parent.is_dir():
        raise ValueError(f"--json: the folder {str(json_out.parent)!r} does not exist")
    s = suite
    with err.status("benchmarking…") as status:
        results = s.bench(game or None, seconds=seconds, games=games, jobs=jobs, full=full,
                          memory_games=sizes,
                          options={k: str(v) for k, v in parse_game_args([], set_ or []).items()},
                          anchor=anchor, log=lambda msg: status.update(msg))
    for table in s.tables(results):
        console.print(table)
    if json_out is not None:
        json_out.write_text(json.dumps(results, indent=2) + "\n")
        err.print(f"wrote {json_out}")
