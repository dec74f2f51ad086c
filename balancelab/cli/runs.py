"""The commands that play and read runs: ``games``, ``simulate GAME``, ``resume``, ``trace``,
``report``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from balancelab.cli.args import game_flags, parse_game_args, parse_policies, with_set
from balancelab.cli.common import (
    CONTINUE,
    GAME_OPTION_CONTEXT,
    MAX_GAMES,
    MAX_SEED,
    Jobs,
    Quiet,
    check_jobs,
    console,
    domain_errors,
    err,
    interrupted_exit,
    note_if_pure_python,
    progress_bar,
    reflowed,
)
from balancelab.cli.options import GameCommands

#: This module's commands (added to the app in :mod:`balancelab.cli`, in --help's order).
commands = typer.Typer()


@commands.command(short_help="List the games, or describe one: seats, options, policies.")
@domain_errors
def games(
    game: Annotated[str | None, typer.Argument(help="A game to describe in full.")] = None,
) -> None:
    """List the games (built-in and plug-ins), or describe one: seats, options with defaults
    and allowed values (and where each comes from), what every game records (each column in
    words, with its unit and meaning), and the policies each side can use.

    Example: balancelab games odyssey
    """
    from balancelab.games import get_game, names
    from balancelab.policies.base import entries_for
    from balancelab.policies.presets import presets_for
    from balancelab.reports import words as W
    from balancelab.simulate.options import describe

    if game is None:
        t = Table("game", "title", "sides", "key options")
        for name in names():
            try:
                g = get_game(name)
            except ImportError as exc:
                t.add_row(name, f"(not available: {exc})", "", "")
                continue
            keys = [d["name"] for d in describe(g.options_type)
                    if _is_key(g.options_type, d["name"])]
            t.add_row(name, g.title, ", ".join(g.sides), ", ".join(keys))
        console.print(t)
        console.print("Describe one with: balancelab games GAME")
        return
    g = get_game(game)
    opts = g.options_type()
    console.print(f"[bold]{g.name}[/] — {g.title} (rules version {g.version})")
    console.print("seats (default options): " + ", ".join(
        f"{s} ({W.contender(g.name, s, len(g.seats(opts)))})" for s in g.seats(opts)))
    t = Table("option", "default", "allowed", "meaning [source]")
    t.columns[0].no_wrap = True
    for d in describe(g.options_type):
        t.add_row(f"--{d['name'].replace('_', '-')}", d["default"], d["allowed"],
                  escape(f"{d['help']} [{d['source']}]"))
    console.print(t)
    m = Table("measure (column)", "in words", "unit", "meaning",
              title="What every game records (the games table; seats table: per seat)")
    m.columns[0].no_wrap = True
    for col in ("winner", "end_reason", "rounds", "decisions", *g.measure_schema,
                *[c for c in g.seat_schema if c != "seat"]):
        w = W.entry(g.name, col)
        m.add_row(col, w.words, w.unit, escape(w.meaning))
    console.print(m)
    p = Table("side", "default policy", "policies")
    for side in g.sides:
        entries = entries_for(g.name, side)
        p.add_row(side, g.default_policies[side],
                  "; ".join(f"{n}: {e.help}" if e.help else n
                            for n, e in sorted(entries.items()))
                  + "".join(f"; {n}:preset={k}" + (f" ({_gist(v.note)})" if v.note else "")
                            for n in sorted(entries)
                            for k, v in presets_for(g.name, n).items()))
    console.print(p)


def _gist(note: str) -> str:
    """A preset's note up to its first sentence or colon (the ``games`` table's words)."""
    import re

    return re.split(r"[.:] ", note, maxsplit=1)[0].rstrip(".")


def _is_key(options_type: Any, name: str) -> bool:
    import dataclasses

    return any(f.name == name and f.metadata.get("key") for f in dataclasses.fields(options_type))


# -- simulate --------------------------------------------------------------------------------

@domain_errors
def simulate(
    game: str,
    games: Annotated[int, typer.Option("--games", "-n", help="Games to play.", min=1,
                                       max=MAX_GAMES)] = 10000,
    seed: Annotated[int, typer.Option(help="Run seed: same seed, same parquet.", min=0,
                                      max=MAX_SEED)] = 0,
    jobs: Jobs = -1,
    policy: Annotated[
        list[str] | None,
        typer.Option(
            "--policy", "-p",
            help="SIDE=POLICY or SEAT=POLICY, repeatable: crew=default, hal=random, "
            "crew=search:rollouts=400.",
        ),
    ] = None,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Any rule option as KEY=VALUE (repeatable)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Run folder (default: runs/<game>-<options>-seed<seed>).")
    ] = None,
    resume: Annotated[
        bool, typer.Option(help="Complete (or extend to --games) an interrupted run.")
    ] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing run folder.")] = False,
    fixed_seats: Annotated[
        bool, typer.Option(help="Do not rotate differing policies through the seats.")
    ] = False,
    backend: Annotated[
        str, typer.Option(help="loky (default), sequential, threading or dask.")
    ] = "loky",
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address, e.g. tcp://host:8786.")
    ] = None,
    quiet: Quiet = False,
    chunk_games: Annotated[
        int | None,
        typer.Option(min=1, help="Games per chunk (default: from the game and --games; part "
                     "of the run's identity, never of the machine)."),
    ] = None,
    rule_values: dict[str, Any] | None = None,
) -> None:
    """Play GAMES games of GAME and write them to a run folder as parquet.

    Each game is its own command, with its rule options as flags (see: [bold]balancelab
    simulate GAME --help[/]), e.g. [bold]--crew 3 --hal-extra-turns 1[/] (odyssey),
    [bold]--players 3 --remove-shuttles[/] (iss), [bold]--queen-variant tasks[/] (obcy), or
    [bold]--set key=value[/].

    Example: balancelab simulate odyssey --games 20000 --crew 3 --hal-extra-turns 1 --seed 7
    """
    from balancelab.games import get_game
    from balancelab.simulate.runs import RunConfig, holds_finished

    note_if_pure_python()
    g = get_game(game)
    values = with_set(rule_values or {}, set_ or [])
    options = g.options_type.from_strings(values)
    config = RunConfig(
        game=game,
        variants=[options],
        policies=parse_policies(policy or []),
        seed=seed,
        games=games,
        rotate=not fixed_seats,
        chunk_games=chunk_games,
    )
    path = out or Path("runs") / config.default_run_name()
    CONTINUE.set(f"balancelab resume {path}")
    if not (force or resume) and holds_finished(config, path):
        err.print(f"{path} already holds these {games} games (same options, policies and "
                  "seed); showing them. Pass --force to play them again.")
    else:
        _run(config, path, jobs=jobs, backend=backend, scheduler=scheduler,
             resume=resume, force=force, quiet=quiet)
    _print_summary(path)


def _simulate_command(name: str) -> Any:
    """The generated ``simulate <name>`` command (see :mod:`balancelab.cli.options`)."""
    import re

    from balancelab.cli.options import game_command
    from balancelab.games import get_game

    doc = re.sub(r"\bGAME\b", name, reflowed(simulate.__doc__ or ""), count=1)
    return game_command(get_game(name), simulate, help=doc)


_simulate_group = typer.Typer(
    cls=GameCommands, no_args_is_help=True, rich_markup_mode="rich",
    help="Play games of a game and write them to a run folder as parquet: one command per "
         "game (a plug-in game too), with the game's rule options as flags.\n\n"
         "Example: balancelab simulate odyssey --games 20000 --crew 3 --seed 7\n\n"
         "See a game's options: balancelab simulate odyssey --help")
GameCommands.command_for = staticmethod(_simulate_command)
commands.add_typer(_simulate_group, name="simulate",
              short_help="Play games of a game and write them to a run folder as parquet.")


def _run(config: Any, path: Path, *, jobs: int, backend: str, scheduler: str | None,
         resume: bool, force: bool, quiet: bool) -> Any:
    from balancelab.simulate.runs import run
    from balancelab.simulate.runs.write import check_before_writing

    check_jobs(jobs)
    check_before_writing(config, backend, scheduler)  # bad input: refused before the bar
    with progress_bar(quiet) as bar:
        task = bar.add_task("games", total=config.games * len(config.variants))

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        summary = run(config, path, jobs=jobs, backend=backend, scheduler=scheduler,
                      progress=progress, force=force, resume=resume)
    for rel in summary.repaired:
        err.print(f"repaired: played {rel} again (it was missing, truncated or foreign)",
                  highlight=False, soft_wrap=True)
    if summary.set_aside:
        err.print(f"set aside {len(summary.set_aside)} stray file(s) not recorded by the run "
                  f"to {path / 'set-aside'}: {', '.join(summary.set_aside[:3])}",
                  highlight=False, soft_wrap=True)
    if summary.interrupted:
        err.print(
            f"[yellow]interrupted:[/] {summary.games_written:,} of {summary.games_total:,} "
            f"games kept in {escape(str(path))}; finish with: balancelab resume "
            f"{escape(str(path))}", soft_wrap=True
        )
        raise typer.Exit(interrupted_exit())
    n, total = summary.games_played, summary.games_written
    if n == 0:
        err.print(f"{path} already holds all {total:,} games; nothing to play")
    else:
        rate = n / max(summary.wall_seconds, 1e-9)
        held = f" (the run now holds {total:,})" if total != n else ""
        shown = f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"
        err.print(f"wrote {n:,} game{'s' if n != 1 else ''} to {path}{held} in "
                  f"{summary.wall_seconds:.1f} s, {shown} games/s")
    return summary


def _print_summary(path: Path) -> None:
    """Each outcome's rate with its Wilson 95% interval, per variant."""
    from balancelab.analysis import outcome_rates
    from balancelab.reports import words as W
    from balancelab.reports.formatting import interval, pct
    from balancelab.reports.sentences import capped_warning
    from balancelab.simulate.runs import read_manifest

    frame = outcome_rates(path)
    game = read_manifest(path, check=False)["game"]
    t = Table("variant", "outcome", "games", "rate", "95% CI (Wilson)")
    for r in frame.iter_rows(named=True):
        label, outcome = r["variant_label"], r["outcome"]
        t.add_row(W.variant(game, label), W.outcome(game, outcome, label),
                  f"{r['count']:,} / {r['games']:,}", pct(r["rate"]), interval(r["lo"], r["hi"]))
    console.print(t)

    capped = capped_warning(frame, game)
    if capped:
        err.print(f"[yellow]warning:[/] {escape(capped)}", highlight=False, soft_wrap=True)
    console.print(f"Report: balancelab report {path}")


@commands.command(short_help="Complete an interrupted run, or extend a run with more games.")
@domain_errors
def resume(
    run_dir: Annotated[Path, typer.Argument(help="The run folder to complete.")],
    games: Annotated[
        int | None, typer.Option("--games", "-n", help="Extend to this many games per variant.")
    ] = None,
    jobs: Jobs = -1,
    backend: Annotated[str, typer.Option(help="loky, sequential, threading or dask.")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address.")] = None,
    quiet: Quiet = False,
) -> None:
    """Complete an interrupted run (or extend it with --games), exactly as an uninterrupted
    run would have written it.

    Example: balancelab resume runs/odyssey-crew3-hal_extra_turns1-seed7 --games 40000
    """
    from balancelab.simulate.runs import resume_config

    CONTINUE.set(f"balancelab resume {run_dir}")
    config = resume_config(run_dir, games)
    _run(config, run_dir, jobs=jobs, backend=backend, scheduler=scheduler, resume=True,
         force=False, quiet=quiet)
    _print_summary(run_dir)


# -- trace -----------------------------------------------------------------------------------


@commands.command(context_settings=GAME_OPTION_CONTEXT,
                  short_help="Replay one game turn by turn in the rulebook's words.")
@domain_errors
def trace(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="A run folder, or a game name.")],
    index: Annotated[int, typer.Option("--index", "-i", help="Game index.", min=0,
                                       max=MAX_GAMES - 1)] = 0,
    variant: Annotated[int, typer.Option(help="Variant of a sweep run.", min=0)] = 0,
    seed: Annotated[int, typer.Option(help="Run seed (with a game name).", min=0,
                                      max=MAX_SEED)] = 0,
    policy: Annotated[
        list[str] | None, typer.Option("--policy", "-p", help="SIDE=POLICY (with a game name).")
    ] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="KEY=VALUE rule option.")] = None,
) -> None:
    """Replay one game turn by turn in the rulebook's words.

    From a run: [bold]balancelab trace runs/<run> --index 12[/] replays game 12 exactly.

    From a seed: [bold]balancelab trace odyssey --crew 3 --seed 7 --index 0[/].
    """
    from balancelab import games as registry
    from balancelab.games import get_game
    from balancelab.simulate.runs import RunConfig, play_one, replay_config

    out = Console(soft_wrap=True, highlight=False)

    # every error (options, policies, a run folder, an index out of range) before any output
    if source in registry.names():
        g = get_game(source)
        options = g.options_type.from_strings(parse_game_args(game_flags(ctx), set_ or []))
        config = RunConfig(game=source, variants=[options],
                           policies=parse_policies(policy or []), seed=seed, games=index + 1)
        variant = 0
    else:
        if ctx.args or policy or set_:
            raise ValueError("options and policies come from the run when tracing a run folder")
        if not Path(source).exists():
            raise ValueError(
                f"{source!r} is neither a game ({', '.join(registry.names())}) "
                "nor a run folder"
            )
        config = replay_config(Path(source), variant, index)
    said = [""]  # the last action's words: the same decision again is told "again"
    seat_words: list[str] = []  # the seats as the players call them, once a state is seen

    def on_step(state: Any, action: Any) -> None:
        if not seat_words:
            seat_words.extend(_trace_header(out, config, variant, index, state))
        events = state.events()
        _print_events(out, events)
        who, what = seat_words[state.current_seat], state.action_text(action)
        width = max(map(len, seat_words)) + 1
        # "HAL plays ..." needs no "HAL:" before it
        words = f"{'' if what.startswith(who + ' ') else who + ':':>{width}} {what}"
        again = " (again)" if words == said[0] and not events else ""
        said[0] = words
        out.print(escape(words + again))

    played = play_one(config, variant, index, on_step)
    if not seat_words:
        _trace_header(out, config, variant, index, played.state)
    _print_events(out, played.state.events())
    out.print(escape(_trace_result(config, variant, played)), style="bold")


def _trace_result(config: Any, variant: int, played: Any) -> str:
    """The last line of a trace: who won, how the game ended and its length, in the reports'
    words (``result: HAL won (three systems terminated) after 27 crew turns; 120
    decisions``)."""
    from balancelab.reports import words as w

    g, rec = config.game_obj.name, played.record
    label = config.variants[variant].label()
    if not rec.winner:
        won = "nobody won"
    elif rec.winner == "tie":
        won = "a shared win"
    else:
        won = f"{w.who(g, rec.winner, label)} won"
    how = w.value(g, "end_reason", rec.end_reason)
    return (f"result: {won} ({how}) after {rec.rounds} {w.words(g, 'rounds')}; "
            f"{played.decisions} decisions")


def _print_events(out: Console, events: list[str]) -> None:
    """Rule events under the actions, dimmed; round headers (``== ``) in bold and turn or
    phase headers (``-- ``) plain, both flush left."""
    for ev in events:
        if ev.startswith("== "):
            out.print(escape(ev), style="bold")
        elif ev.startswith("-- "):
            out.print(escape(ev))
        else:
            out.print(f"    {escape(ev)}", style="dim")


def _trace_header(out: Console, config: Any, variant: int, index: int,
                  state: Any) -> list[str]:
    """Game, options in words, seed, game index and who plays which seat; returns the seats
    as the players call them (``state.seat_name`` where a game names its seats per game, as
    2001's drawn crewmembers; else the reports' words: ``seat 1``, ``the solo player``)."""
    from balancelab.reports import words as w
    from balancelab.simulate.worker import seat_assignment

    g = config.game_obj
    options = config.variants[variant]
    seats = g.seats(options)
    sides = [g.side_of_seat(options, k) for k in range(len(seats))]
    specs = seat_assignment(config.seat_specs(options), sides, index, config.rotate)
    label = options.label()
    named = getattr(state, "seat_name", None)
    names = [named(k) if named else w.who(g.name, n, label).split(" (")[0]
             for k, n in enumerate(seats)]
    out.print(f"{g.title} (rules version {g.version}) — {w.variant(g.name, label)}, "
              f"seed {config.seed}, game {index}", style="bold")
    out.print("seats: " + "; ".join(f"{n} plays {spec}"
                                    for n, spec in zip(names, specs, strict=True)))
    return names


@commands.command(short_help="Write a run's Markdown and HTML report; print its headline.")
@domain_errors
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by simulate/sweep.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write the report (default: <run>/report).")
    ] = None,
) -> None:
    """Write a Markdown and a self-contained HTML report of a run, and print its headline.

    Example: balancelab report runs/odyssey-crew3-hal_extra_turns1-seed7
    """
    from balancelab.reports import write_report
    from balancelab.simulate.runs import read_manifest

    paths = write_report([run_dir], out)
    console.print(paths.headline, highlight=False, markup=False)
    m = read_manifest(run_dir)
    if not m.get("complete"):
        err.print(f"[yellow]Incomplete run:[/] {m['games_written']:,} of {m['games_total']:,} "
                  f"games written; finish with: balancelab resume {run_dir}")
    console.print(f"Markdown: {paths.markdown}\nHTML: {paths.html}")
