"""The ``balancelab`` command line: a thin typer layer over the library.

Exit codes: 0 ok, 1 a domain error (unknown game, policy, option, bad value, not a run folder,
a damaged run folder, a disk that refuses a write), 2 a usage error (typer's own), 130
interrupted by Ctrl-C and 143 by SIGTERM (finished chunks kept; the message gives the command
that continues). Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from balancelab.cli_options import GameCommands

app = typer.Typer(
    name="balancelab",
    help=(
        "Monte Carlo balance answers for board games. Scripted players play thousands of "
        "games through rule-faithful engines (odyssey, iss, obcy); every game becomes a "
        "parquet row; reports give win rates with 95% confidence intervals.\n\n"
        "Start with: balancelab games, then balancelab simulate odyssey --games 20000."
    ),
    no_args_is_help=True,
    add_completion=True,  # --install-completion: game names, rule option choices, paths
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
console = Console()
err = Console(stderr=True)

F = TypeVar("F", bound=Callable[..., Any])


def _version(value: bool) -> None:
    if value:
        from balancelab import __version__, build

        console.print(f"balancelab {__version__} ({build.describe()})")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True,
                           help="Print the version and exit.")
    ] = False,
) -> None:
    """Monte Carlo balance answers for board games."""

GAME_OPTION_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True}


#: The largest --seed and --games (runs.plan.MAX_SEED, runs.plan.MAX_GAMES; checked by a test).
MAX_SEED = 2**63 - 1
MAX_GAMES = 1_000_000_000

#: Options several commands share, declared once.
Jobs = Annotated[int, typer.Option("--jobs", "-j", help="Workers; -1 = all cores.")]
Backend = Annotated[str, typer.Option(help="loky (default), sequential, threading or dask.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
PolicyOpts = Annotated[list[str] | None, typer.Option(
    "--policy", "-p", help="SIDE=POLICY or SEAT=POLICY, repeatable.")]
FixedOpts = Annotated[list[str] | None, typer.Option(
    "--set", help="A fixed rule option KEY=VALUE (repeatable).")]
#: How to continue the command being run if it is interrupted (set once a folder is written).
_CONTINUE: contextvars.ContextVar[str] = contextvars.ContextVar("continue_with", default="")
#: Set by the SIGTERM handler: the interruption was a SIGTERM (exit 143), not a Ctrl-C.
_TERMINATED: list[bool] = []
#: Set once an interruption has been told (by the line that says it, with the command that
#: continues): an interruption nobody told is told "interrupted" on the way out.
_TOLD: list[bool] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as an interruption: finished chunks are kept (exit 143)."""


def _note_if_pure_python() -> None:
    """One line on stderr when the engines run as pure Python (pip hides the install's
    warning; ``build.pure_python_note``)."""
    from balancelab import build

    note = build.pure_python_note()
    if note:
        err.print(note, markup=False, highlight=False, soft_wrap=True)


def _interrupted_exit() -> int:
    """The exit code of an interruption that has been told (130, or 143 for SIGTERM)."""
    _TOLD.append(True)
    return 143 if _TERMINATED else 130


def _error_line(exc: BaseException) -> str:
    """An exception as one line (a multi-line library message keeps its first line)."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and str(exc.filename) not in text:
        text += f": {exc.filename}"
    return text


def domain_errors(fn: F) -> F:
    """Turn the library's errors into a one-line message and exit code 1 (never a traceback);
    an interruption (Ctrl-C, SIGTERM) at any moment into one line with the command that
    continues, exit 130 (143 for SIGTERM)."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        token = _CONTINUE.set("")
        try:
            return fn(*args, **kwargs)
        except typer.Exit:  # a RuntimeError subclass: let exit codes (130) through
            raise
        except KeyboardInterrupt:
            hint = _CONTINUE.get()
            err.print(f"[yellow]interrupted[/]{escape('; continue with: ' + hint) if hint else ''}",
                      highlight=False, soft_wrap=True)
            raise typer.Exit(_interrupted_exit()) from None
        except (ValueError, RuntimeError, OSError, NotImplementedError, LookupError,
                ImportError) as exc:  # ImportError: a plug-in that cannot be loaded
            err.print(f"[bold red]error:[/] {escape(_error_line(exc))}", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(1) from None
        except Exception as exc:  # a library's own error type (polars, pyarrow, dask)
            err.print(f"[bold red]error:[/] {escape(type(exc).__name__)}: "
                      f"{escape(_error_line(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        finally:
            _CONTINUE.reset(token)

    return wrapper  # type: ignore[return-value]


def _continue_with_resume_flag() -> str:
    """The command line as typed, with --resume (how an interrupted sweep or study goes on)."""
    import shlex

    argv = [a for a in sys.argv[1:] if a not in ("--force", "--resume")]
    return "balancelab " + " ".join(shlex.quote(a) for a in argv) + " --resume"


def parse_game_args(args: list[str], sets: list[str]) -> dict[str, str | bool]:
    """Parse the extra ``--name value`` / ``--name=value`` / ``--flag`` and ``--set k=v`` args.

    A flag followed by nothing or by another ``--option`` means ``true``; ``--no-flag`` so
    means ``false`` (the form ``simulate``'s generated flags take: ``--no-grate-is-duct``).

    Raises:
        ValueError: a token that is not an option, or a ``--set`` without ``=``.
    """
    out: dict[str, str | bool] = {}
    i = 0
    while i < len(args):
        tok = args[i]
        if not tok.startswith("--") or tok == "--":
            raise ValueError(f"unexpected argument {tok!r}; game options look like --crew 3")
        name, eq, value = tok[2:].partition("=")
        if eq:
            out[name] = value
            i += 1
        elif i + 1 < len(args) and not (
            args[i + 1].startswith("--") and not _is_number(args[i + 1])
        ):
            out[name] = args[i + 1]
            i += 2
        elif name.startswith("no-"):
            out[name[3:]] = False
            i += 1
        else:
            out[name] = True
            i += 1
    for item in sets:
        key, eq, value = item.partition("=")
        if not eq:
            raise ValueError(f"--set takes key=value; got {item!r}")
        key, value = key.strip(), value.strip()
        if key.replace("-", "_") in {k.replace("-", "_") for k in out} and str(
                out.get(key, out.get(key.replace("_", "-")))).lower() != value.lower():
            raise ValueError(f"{key} is given twice, as --{key.replace('_', '-')} and as "
                             f"--set {key}={value}; give it once")
        out[key] = value
    return out


def _game_flags(ctx: typer.Context) -> list[str]:
    """The extra arguments (the game's rule options), after checking that none is a
    misspelling of the command's own flags (``--gmaes`` → ``did you mean --games?``).

    Raises:
        ValueError: a flag close to one of the command's own.
    """
    import difflib

    own = [o for p in ctx.command.params for o in p.opts if o.startswith("--")]
    for tok in ctx.args:
        flag = tok.partition("=")[0]
        if flag.startswith("--") and flag not in own:
            close = difflib.get_close_matches(flag, own, n=1, cutoff=0.75)
            if close and flag[2:].replace("-", "_") not in _rule_option_names():
                raise ValueError(f"unknown option {flag}; did you mean {close[0]}?")
    return list(ctx.args)


def _rule_option_names() -> set[str]:
    """Every rule option name of every game (a flag naming one is never a misspelling of a
    command's own flag: ``trace obcy --queen-variant roll`` is not ``--variant``)."""
    import dataclasses

    from balancelab.games import get_game, names

    return {f.name for name in names()
            for f in dataclasses.fields(get_game(name).options_type)}


def _is_number(tok: str) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def parse_policies(items: list[str]) -> dict[str, str]:
    """``side=spec`` or ``seat=spec`` items into a dict.

    Raises:
        ValueError: an item without ``=``, or a side or seat given two different policies.
    """
    out: dict[str, str] = {}
    for item in items:
        key, eq, spec = item.partition("=")
        if not eq or not spec:
            raise ValueError(
                f"--policy takes SIDE=POLICY (e.g. crew=default, hal=random); got {item!r}"
            )
        key, spec = key.strip(), spec.strip()
        if key in out and out[key] != spec:
            raise ValueError(f"--policy {key} is given twice ({out[key]} and {spec}); "
                             "give it once")
        out[key] = spec
    return out


def _progress_bar(quiet: bool) -> Any:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err,
        disable=quiet,
        transient=False,
    )


# -- games -----------------------------------------------------------------------------------


@app.command(short_help="List the games, or describe one: seats, options, policies.")
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
                            for n, e in sorted(entries.items())))
    console.print(p)


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

    _note_if_pure_python()
    g = get_game(game)
    values = _with_set(rule_values or {}, set_ or [])
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
    _CONTINUE.set(f"balancelab resume {path}")
    if not (force or resume) and holds_finished(config, path):
        err.print(f"{path} already holds these {games} games (same options, policies and "
                  "seed); showing them. Pass --force to play them again.")
    else:
        _run(config, path, jobs=jobs, backend=backend, scheduler=scheduler,
             resume=resume, force=force, quiet=quiet)
    _print_summary(path)


def _with_set(values: dict[str, Any], sets: list[str]) -> dict[str, Any]:
    """Rule options given as flags, with those given as ``--set key=value`` added.

    Raises:
        ValueError: an option given both ways with different values, or a ``--set`` without
            ``=``.
    """
    from balancelab.simulate.options import format_value

    out = dict(values)
    for key, value in parse_game_args([], sets).items():
        name = key.replace("-", "_")
        if name in out and format_value(out[name]).lower() != str(value).lower():
            raise ValueError(f"{name} is given twice, as --{name.replace('_', '-')} and as "
                             f"--set {key}={value}; give it once")
        out[name] = value
    return out


def _simulate_command(name: str) -> Any:
    """The generated ``simulate <name>`` command (see :mod:`balancelab.cli_options`)."""
    import re

    from balancelab.cli_options import game_command
    from balancelab.games import get_game

    doc = re.sub(r"\bGAME\b", name, _reflowed(simulate.__doc__ or ""), count=1)
    return game_command(get_game(name), simulate, help=doc)


_simulate_group = typer.Typer(
    cls=GameCommands, no_args_is_help=True, rich_markup_mode="rich",
    help="Play games of a game and write them to a run folder as parquet: one command per "
         "game (a plug-in game too), with the game's rule options as flags.\n\n"
         "Example: balancelab simulate odyssey --games 20000 --crew 3 --seed 7\n\n"
         "See a game's options: balancelab simulate odyssey --help")
GameCommands.command_for = staticmethod(_simulate_command)
app.add_typer(_simulate_group, name="simulate",
              short_help="Play games of a game and write them to a run folder as parquet.")


def _run(config: Any, path: Path, *, jobs: int, backend: str, scheduler: str | None,
         resume: bool, force: bool, quiet: bool) -> Any:
    from balancelab.simulate.runs import run
    from balancelab.simulate.runs.write import check_before_writing

    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
    check_before_writing(config, backend, scheduler)  # bad input: refused before the bar
    with _progress_bar(quiet) as bar:
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
        raise typer.Exit(_interrupted_exit())
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


@app.command(short_help="Complete an interrupted run, or extend a run with more games.")
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

    _CONTINUE.set(f"balancelab resume {run_dir}")
    config = resume_config(run_dir, games)
    _run(config, run_dir, jobs=jobs, backend=backend, scheduler=scheduler, resume=True,
         force=False, quiet=quiet)
    _print_summary(run_dir)


# -- trace -----------------------------------------------------------------------------------


@app.command(context_settings=GAME_OPTION_CONTEXT,
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
        options = g.options_type.from_strings(parse_game_args(_game_flags(ctx), set_ or []))
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


# -- analysis commands (report, compare, sweep, study) ---------------------------------------
# Owned by the analysis engineer. The lead's commands above use, from the analysis package:
#   balancelab.analysis.outcome_rates(run_dir) -> pl.DataFrame with columns
#       variant_label (str), outcome (str), count (int), games (int), rate, lo, hi (float,
#       Wilson 95%), one row per variant and outcome (every Game.outcomes value, plus "capped").
#   balancelab.reports.write_report(run_dirs: list[Path], out: Path | None) -> object with
#       .headline (str, plain words with numbers), .markdown (Path), .html (Path).


@app.command(short_help="Write a run's Markdown and HTML report; print its headline.")
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


PrecisionDiff = Annotated[float | None, typer.Option(
    help="Play in rounds until every change of the question (each step "
    "of the focus option) has its interval, at the level Holm's correction may print it at, "
    "within ±E (0.01 = ±1 percentage point).")]
Decide = Annotated[bool, typer.Option(
    help="Play in rounds until every change of the question is decided (raises, "
    "lowers or equivalent within ±margin) by sequential probability ratio tests on the "
    "paired games (as chess engine testers run them), looked at every 100 games.")]
Detect = Annotated[float | None, typer.Option(
    help="Before playing, print the games per setting needed to detect a change "
    "of D in win rate (0.01 = 1 percentage point) with 80% power under the question's "
    "correction; without --games, print only.")]
Margin = Annotated[float | None, typer.Option(
    help="Equivalence margin in win-rate units (0.02 = ±2 percentage points); "
    "default per game: odyssey 0.02, iss and obcy 0.025.")]
Pairs = Annotated[str | None, typer.Option(
    help="Compare the focus option's neighbouring settings (adjacent, the "
    "default) or every pair of settings (all).")]


@app.command(short_help="Compare runs: change in win rates and measures, with verdicts.")
@domain_errors
def compare(
    runs: Annotated[list[Path], typer.Argument(help="Two or more run folders; the first is "
                                                    "the baseline.")],
    out: Annotated[
        Path | None, typer.Option(help="Where to write the report (default: a folder "
                                  "compare-<first>-vs-<second> beside the first run).")
    ] = None,
    margin: Margin = None,
) -> None:
    """Compare runs against the first: each side's or seat's change in win rate (paired on
    the games both runs played from the same seed, whatever their sizes), one family with
    the three verdicts (raises / lowers, equivalent within the game's margin, inconclusive),
    and the correlation and games pairing saved.

    Example: balancelab simulate iss --players 4 --out runs/base, then the same with
    --remove-shuttles --out runs/removed, then balancelab compare runs/base runs/removed
    """
    from balancelab.questions.compare import compare as do_compare

    paths = do_compare(runs, out, margin)
    console.print(paths.headline, highlight=False, markup=False)
    console.print(f"Markdown: {paths.markdown}\nHTML: {paths.html}")


def _study_progress(quiet: bool) -> Any:
    """A progress bar and a callback for runs that grow in rounds."""
    bar = _progress_bar(quiet)
    task = bar.add_task("games", total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, progress


def _print_plan(game: str, grid: dict[str, Any], change: float, base: dict[str, Any],
                focus: str | None, pairs: str | None) -> None:
    """The --detect plan: games per setting for each question, in words."""
    from balancelab.questions import sweep as sweeps

    for q in sweeps.plan(game, grid, change, base=base, focus=focus, pairs=pairs):
        console.print(
            f"To detect a change of {100 * change:.1f} points in win rate with 80% power "
            f"among the {q['family_size']} changes of {q['option']} (Holm, 95%): about "
            f"{q['games']:,} games per setting (assuming win rates near 50% and no gain "
            f"from pairing; about {q['games_at_10']:,} at rates near 10% or 90%).",
            highlight=False, markup=False)


@app.command(context_settings=GAME_OPTION_CONTEXT,
             short_help="Play every combination of some rule options in one run, and report.")
@domain_errors
def sweep(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    grid: Annotated[
        list[str],
        typer.Option("--grid", "-g", help="OPTION=V1,V2,… (repeatable); every combination is "
                     "one variant of ONE run, paired by seed."),
    ],
    games: Annotated[
        int | None, typer.Option("--games", "-n", min=1,
                                 help="Games per variant (default 1000; with --precision, "
                                 "the first round).")
    ] = None,
    precision: Annotated[
        float | None,
        typer.Option(help="Play in rounds until every win rate's 95% Wilson interval (the "
                     "ones the report prints) is within ±E, in win-rate units (0.01 = ±1 "
                     "percentage point)."),
    ] = None,
    max_games: Annotated[
        int | None, typer.Option(min=1, help="Most games per variant a --precision, "
                                 "--precision-diff or --decide run may play (default "
                                 "200,000).")
    ] = None,
    precision_diff: PrecisionDiff = None,
    decide: Decide = False,
    detect: Detect = None,
    focus: Annotated[str | None, typer.Option(
        help="The --grid option whose steps are the question (default: each --grid option "
        "is its own question).")] = None,
    pairs: Pairs = None,
    margin: Margin = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", "-p", help="SIDE=POLICY or SEAT=POLICY, repeatable."),
    ] = None,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Fixed rule option KEY=VALUE.")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Run folder (default: runs/<game>-sweep-…).")
                   ] = None,
    resume: Annotated[bool, typer.Option(help="Complete or extend an existing sweep.")] = False,
    force: Annotated[bool, typer.Option(help="Replace an existing run folder.")] = False,
    quiet: Quiet = False,
) -> None:
    """Play every combination of the --grid options in one run and report it.

    Example: balancelab sweep odyssey --grid crew=2,3,4 --grid hal_extra_turns=-1,0,1
    --precision 0.01
    """
    from balancelab.questions import inputs
    from balancelab.questions import sweep as sweeps
    from balancelab.reports import write_report
    from balancelab.simulate.runs import RunConfig

    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
    g = inputs.load_game(game)
    base = parse_game_args(_game_flags(ctx), set_ or [])
    parsed = inputs.parse_grid(grid)
    pols = parse_policies(policy or [])
    variants = inputs.grid_variants(g, parsed, base)
    sweeps.check_sizes(games, precision, max_games, precision_diff, decide)
    if detect is not None:
        _print_plan(game, parsed, detect, base, focus, pairs)
        if games is None:
            return
    path = out or Path("runs") / RunConfig(game, variants, pols, seed, 1).default_run_name()
    _CONTINUE.set(_continue_with_resume_flag())
    bar, progress = _study_progress(quiet)
    with bar:
        res = sweeps.sweep(game, parsed, path, base=base, policies=pols, seed=seed,
                            games=games, precision=precision, precision_diff=precision_diff,
                            decide=decide, focus=focus, pairs=pairs, margin=margin,
                            max_games=max_games, jobs=jobs, force=force, resume=resume,
                            progress=progress)
    if res.interrupted:
        err.print(f"[yellow]interrupted:[/] finished chunks kept in {escape(str(path))}; "
                  f"continue with: {escape(_continue_with_resume_flag())}", soft_wrap=True)
        raise typer.Exit(_interrupted_exit())
    if res.reused:
        err.print(f"{path} already holds these {res.games:,} games per variant (same grid, "
                  "options, policies and seed); showing them. Pass --force to play them again.")
    for r in res.rounds:
        err.print(f"{r['games']:,} games per variant: widest interval ±"
                  f"{100 * r['max_half_width']:.2f} percentage points"
                  + (" (decided)" if decide and r.get("reached") else ""))
    paths = write_report([path])
    console.print(paths.headline, highlight=False, markup=False)
    console.print(f"Run: {path}\nMarkdown: {paths.markdown}\nHTML: {paths.html}")


@app.command(short_help="Run a named balance study and answer its question in words.")
@domain_errors
def study(
    name: Annotated[str | None, typer.Argument(help="hal-difficulty, queen-variants, "
                                                    "iss-shuttle-removal or skill-ladder "
                                                    "(or --file).")] = None,
    game: Annotated[str | None, typer.Argument(
        help="skill-ladder only: the game (odyssey, iss or obcy).")] = None,
    games: Annotated[
        int | None, typer.Option("--games", "-n", min=1,
                                 help="Games per variant (default 2000).")
    ] = None,
    precision: Annotated[
        float | None, typer.Option(help="Play until every win rate's 95% Wilson interval "
                                   "is within ±E (0.01 = ±1 percentage point) instead of a "
                                   "fixed --games.")
    ] = None,
    max_games: Annotated[int | None, typer.Option(
        min=1, help="Cap per variant for --precision, --precision-diff or --decide (default "
        "200,000).")] = None,
    precision_diff: PrecisionDiff = None,
    decide: Decide = False,
    detect: Detect = None,
    pairs: Pairs = None,
    margin: Margin = None,
    policy: Annotated[
        list[str] | None,
        typer.Option("--policy", "-p", help="A policy pairing SIDE=POLICY[;SIDE=POLICY] "
                     "(repeatable: each --policy is one pairing and one run; the verdicts "
                     "side by side). A study keeps one answer per pairing: re-running it "
                     "with another pairing adds that answer."),
    ] = None,
    policies_deprecated: Annotated[
        list[str] | None, typer.Option("--policies", hidden=True,
                                       help="Deprecated spelling of --policy."),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    out: Annotated[Path | None, typer.Option(help="Study folder (default: "
                                                  "runs/study-<name>-seed<seed>).")] = None,
    resume: Annotated[bool, typer.Option(help="Complete or extend an existing study.")] = False,
    force: Annotated[bool, typer.Option(help="Replace existing run folders.")] = False,
    set_: Annotated[
        list[str] | None,
        typer.Option("--set", help="Hold a rule option fixed in every variant, KEY=VALUE "
                     "(repeatable), e.g. hal_turn_every=2; one of the study's grid options "
                     "narrows the grid to that value (hal-difficulty --set crew=4: the "
                     "question at 4 crew only)."),
    ] = None,
    verdict_games: Annotated[int | None, typer.Option(
        min=1, help="skill-ladder: games per variant of the verdict runs (default: the "
        "game's ladder's).")] = None,
    budget_scale: Annotated[float, typer.Option(
        min=0.0001, help="skill-ladder: multiply the search rungs' budgets (iterations, "
        "playouts; 0.1 for a quick try).")] = 1.0,
    quiet: Quiet = False,
    file: Annotated[Path | None, typer.Option(
        "--file", "-f", dir_okay=False,
        help="A study described in a TOML file (keys: name, game, question, \\[grid], "
        "optional focus, measures, \\[base]), instead of a named one.")] = None,
) -> None:
    """Run a named study: the games it needs, a report per policy pairing, and a study
    report whose first lines answer the question in plain words with numbers.

    [bold]skill-ladder GAME[/] plays each side at rising skill (random, scripted, tuned,
    search, ismcts at two budgets, and the oracle, a cheat that sees every hand) against the other
    side's scripted default and its strongest fair rung, on paired seeds, and recomputes the
    game's key verdict at the top two fair rungs; --games sets games per rung (the default
    sizes take 3 to 4 minutes a game on 2 cores, compiled, and 13 for obcy; --games 50 for
    firmer rates).

    Example: balancelab study hal-difficulty --policy "crew=default" --policy
    "crew=search:rollouts=100" --set hal_turn_every=2

    Example: balancelab study skill-ladder obcy --games 10

    [bold]--file study.toml[/] runs your own study, described like the built-in ones
    (balancelab/data/studies/*.toml): name, game, question, a \\[grid] table of option =
    \\[values], and optionally focus (the grid option the question is about), measures and
    a \\[base] table of fixed options.

    Example: balancelab study --file my-study.toml --games 500"""
    from balancelab.questions import study as studies
    from balancelab.questions import sweep as sweeps

    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
    if name is not None and file is not None:
        raise ValueError(f"give a study name ({name}) or --file, not both")
    if name is None and file is None:
        raise ValueError("name a study (hal-difficulty, queen-variants, iss-shuttle-removal, "
                         "skill-ladder) or give --file study.toml")
    target: str | studies.Study = studies.load_study(file) if file is not None else str(name)
    if name == "skill-ladder":
        _skill_ladder(game, games=games, verdict_games=verdict_games, seed=seed, jobs=jobs,
                      out=out, force=force, resume=resume, budget_scale=budget_scale,
                      quiet=quiet)
        return
    if game is not None:
        raise ValueError(f"study {name} takes no game argument (got {game!r}); only "
                         "skill-ladder does")
    if policies_deprecated:
        err.print("[yellow]warning:[/] --policies is deprecated; use --policy (one pairing "
                  "per --policy, as before)", highlight=False)
    pairings = [*(policy or []), *(policies_deprecated or [])]
    st, _ = studies.check_study(target)
    sweeps.check_sizes(games, precision, max_games, precision_diff, decide)
    fixed = parse_game_args([], set_ or [])
    st = studies.narrowed(st, {k.replace("-", "_"): v for k, v in fixed.items()})
    if detect is not None:
        base = {**st.base, **{k: v for k, v in fixed.items() if k not in st.grid}}
        _print_plan(st.game, st.grid, detect, base, st.focus, pairs)
        if games is None:
            return
    _CONTINUE.set(_continue_with_resume_flag())
    bar, progress = _study_progress(quiet)
    with bar:
        res = studies.run_study(target, out, policies=pairings, seed=seed, games=games,
                                precision=precision, precision_diff=precision_diff,
                                decide=decide, pairs=pairs, margin=margin,
                                max_games=max_games, jobs=jobs, force=force, resume=resume,
                                progress=progress, fixed=fixed)
    if res.interrupted or res.report is None:
        err.print(f"[yellow]interrupted:[/] finished chunks kept in {escape(str(res.path))}; "
                  f"continue with: {escape(_continue_with_resume_flag())}", soft_wrap=True)
        raise typer.Exit(_interrupted_exit())
    console.print(res.report.headline, highlight=False, markup=False)
    console.print(f"Study: {res.path}\nMarkdown: {res.report.markdown}\n"
                  f"HTML: {res.report.html}")


def _skill_ladder(game: str | None, *, games: int | None, verdict_games: int | None,
                  seed: int, jobs: int, out: Path | None, force: bool, resume: bool,
                  budget_scale: float, quiet: bool) -> None:
    from balancelab.questions import ladder, rungs

    rungs.check_game(game)
    assert game is not None
    _CONTINUE.set(_continue_with_resume_flag())
    bar, progress = _study_progress(quiet)
    with bar:
        res = ladder.run_ladder(game, out, seed=seed, games=games, verdict_games=verdict_games,
                                budget_scale=budget_scale, jobs=jobs, force=force,
                                resume=resume, progress=progress)
    if res.interrupted:
        err.print(f"[yellow]interrupted:[/] finished chunks kept in {escape(str(res.path))}; "
                  f"continue with: {escape(_continue_with_resume_flag())}", soft_wrap=True)
        raise typer.Exit(_interrupted_exit())
    console.print(res.report.headline, highlight=False, markup=False)
    console.print(f"Study: {res.path}\nMarkdown: {res.report.markdown}\n"
                  f"HTML: {res.report.html}")


# -- balance and sensitivity (issue 14) ------------------------------------------------------


def _named_progress(quiet: bool) -> Any:
    """A progress bar that names the setting being played and the games left in it."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=err, disable=quiet, transient=False)
    task = bar.add_task("starting", total=None)

    def progress(label: str, done: int, total: int) -> None:
        bar.update(task, completed=done, total=total,
                   description=f"[bold]{escape(label)}[/]: {total - done:,} games left")

    return bar, progress


@app.command(context_settings=GAME_OPTION_CONTEXT,
             short_help="Find the setting of a rule that makes a game fair (or hits a target).")
@domain_errors
def balance(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    target: Annotated[str, typer.Option(
        "--target", "-t", help="SIDE=RATE or SEAT=RATE (crew=0.5), seats=equal, or "
        "MEASURE=VALUE (turns=40).")],
    knob: Annotated[list[str], typer.Option(
        "--knob", "-k", help="A rule option to move: OPTION=LO..HI or OPTION=V1,V2,… "
        "(repeatable: several knobs are searched with optuna).")],
    precision: Annotated[float, typer.Option(
        help="Confirm until the 95% interval is within ±E, in win-rate units (0.015 = ±1.5 "
        "percentage points; for a measure, a fraction of the target).")] = 0.015,
    batch: Annotated[int, typer.Option(min=10, help="Search games per look at a setting "
                                       "(and per optuna trial).")] = 400,
    trials: Annotated[int, typer.Option(min=1, help="Settings optuna proposes (several "
                                        "knobs).")] = 24,
    confirm: Annotated[int, typer.Option(min=1, help="Best settings confirmed on fresh seeds "
                                         "(several knobs).")] = 3,
    max_games: Annotated[int, typer.Option(min=1, help="Most confirmation games per "
                                           "setting.")] = 200_000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Search seed (confirmation: "
                                      "seed + 1,000,003).")] = 0,
    jobs: Jobs = -1,
    backend: Backend = "loky",
    policy: PolicyOpts = None,
    set_: FixedOpts = None,
    out: Annotated[Path | None, typer.Option(help="Balance folder (default: "
                                             "runs/balance-<game>-…).")] = None,
    force: Annotated[bool, typer.Option(help="Replace a folder holding another balance "
                                        "run.")] = False,
    quiet: Quiet = False,
) -> None:
    """Find which setting of a rule option (a knob) reaches a target: a side's or seat's win
    rate, equal seats, or a measure's mean; confirm it on fresh seeds to --precision and write
    a report whose first line is the answer.

    One knob: a noisy bisection on common seeds, ending with the two neighbouring settings
    that bracket the target. Several knobs: optuna proposes settings, the best few are
    confirmed. Running the same command again continues an interrupted run.

    Example: balancelab balance odyssey --crew 3 --target crew=0.5 --knob limit_lif=7..14
    """
    from balancelab.games import get_game
    from balancelab.questions import balance as bal

    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
    g = get_game(game)
    values = parse_game_args(_game_flags(ctx), set_ or [])
    base = g.options_type.from_strings(values)
    knobs = [bal.parse_knob(g.options_type, base, k) for k in knob]
    names = [k.name for k in knobs]
    if len(set(names)) < len(names):
        raise ValueError("a knob is given twice")
    fixed = {k.replace("-", "_") for k in values}
    clash = sorted(fixed & set(names))
    if clash:
        raise ValueError(f"{clash[0]} is given both as a --knob and as a fixed option")
    cfg = bal.BalanceConfig(game, base.changed() | {k: v for k, v in base.as_dict().items()
                                                    if k in fixed},
                            knobs, bal.parse_target(g, base, target),
                            parse_policies(policy or []), seed, precision, batch, trials,
                            confirm, max_games)
    from balancelab.simulate.executors import check_backend

    check_backend(backend, None)  # refused before the progress bar
    bar, progress = _named_progress(quiet)
    try:
        with bar:
            res = bal.balance(cfg, out, jobs=jobs, backend=backend, progress=progress,
                              force=force)
    except bal.Interrupted:
        path = out or cfg.default_folder()
        err.print(f"[yellow]interrupted:[/] finished chunks kept in {path}; continue with "
                  "the same command")
        raise typer.Exit(_interrupted_exit()) from None
    console.print("\n".join(res.headline), highlight=False, markup=False)
    assert res.report is not None
    console.print(f"Games: {res.games:,}\nFolder: {res.path}\nMarkdown: "
                  f"{res.report.markdown}\nHTML: {res.report.html}", highlight=False)


@app.command(context_settings=GAME_OPTION_CONTEXT,
             short_help="Which rule numbers and assumptions does the answer rest on?")
@domain_errors
def sensitivity(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    games: Annotated[int, typer.Option("--games", "-n", min=1,
                                       help="Games per setting (common seeds).")] = 1000,
    rate: Annotated[str | None, typer.Option(
        help="The side or seat whose win rate to follow (default: odyssey crew, obcy "
        "expedition, iss seat0).")] = None,
    study: Annotated[str | None, typer.Option(
        help="Also recompute this study's verdicts under every perturbation "
        "(hal-difficulty, queen-variants, iss-shuttle-removal).")] = None,
    only: Annotated[list[str] | None, typer.Option(
        "--only", help="Perturb only these options (repeatable).")] = None,
    data: Annotated[list[str] | None, typer.Option(
        "--data", help="Your own data file or folder (odyssey board TOML, iss card-table "
        "folder, obcy map JSON), tried besides the shipped alternatives (repeatable).")] = None,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Run seed.")] = 0,
    jobs: Jobs = -1,
    backend: Backend = "loky",
    policy: PolicyOpts = None,
    set_: FixedOpts = None,
    out: Annotated[Path | None, typer.Option(help="Run folder (default: "
                                             "runs/sensitivity-<game>-…).")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing run folder.")] = False,
    quiet: Quiet = False,
) -> None:
    """Move every rule number and assumed value of a game one step each way (assumed boards
    and card tables through named alternatives), all on common seeds, and report how much
    the headline win rate (and with --study a study's verdicts) moves: paired 95% intervals,
    Holm across rows, a tornado plot. Running the same command again continues an
    interrupted run.

    Example: balancelab sensitivity odyssey --crew 3
    """
    from balancelab.questions import sensitivity as sens

    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
    values = parse_game_args(_game_flags(ctx), set_ or [])
    bar, progress = _study_progress(quiet)
    with bar:
        res = sens.run(game, values, out, rate=rate, study=study, only=[
            o.replace("-", "_") for o in only or []], data=data or [],
            policies=parse_policies(policy or []), seed=seed, games=games, jobs=jobs,
            backend=backend, force=force, progress=progress)
    if res.interrupted:
        err.print(f"[yellow]interrupted:[/] finished chunks kept in {res.path}; continue "
                  "with the same command")
        raise typer.Exit(_interrupted_exit())
    console.print("\n".join(res.headline), highlight=False, markup=False)
    assert res.report is not None
    console.print(f"Games: {res.games:,}\nRun: {res.path}\nMarkdown: {res.report.markdown}"
                  f"\nHTML: {res.report.html}", highlight=False)


# -- bench -----------------------------------------------------------------------------------


@app.command(short_help="Measure speed (games/s per core, with all cores) and memory.")
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

    _note_if_pure_python()
    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
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


@app.command(short_help="Tune a scripted player's parameters against the other side (optuna).")
@domain_errors
def tune(
    game: Annotated[str, typer.Argument(help="odyssey, iss or obcy.")],
    side: Annotated[str, typer.Option(help="The side to tune (crew, hal, expedition, ...).")],
    policy: Annotated[str, typer.Option(help="Policy to tune (default: the side's).")] = "default",
    budget: Annotated[int, typer.Option(min=1, help="Games for the search in all.")] = 3000,
    trial_games: Annotated[int, typer.Option(min=1, help="Games per trial.")] = 200,
    fresh_games: Annotated[
        int, typer.Option(min=1, help="Fresh games for the before/after check, each.")] = 2000,
    seed: Annotated[int, typer.Option(min=0, max=MAX_SEED,
                                      help="Seed of the sampler and of the games.")] = 0,
    set_: Annotated[
        list[str] | None, typer.Option("--set", help="Rule option KEY=VALUE (repeatable).")
    ] = None,
    against: Annotated[
        list[str] | None,
        typer.Option(help="SIDE=POLICY to play against (default: the other sides' defaults).")
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Tune folder (default: tunes/<...>).")] = None,
    cap_penalty: Annotated[float, typer.Option(
        min=0.0, help="Wins a game stopped by the round cap costs in the search's objective "
        "(it is never a win).")] = 1.0,
    quiet: Quiet = False,
) -> None:
    """Tune POLICY's numeric parameters for SIDE against the other side's defaults.

    Every trial plays --trial-games games on the same seeds; optuna's TPE sampler (seeded)
    proposes the values; the first trial is POLICY's own values (a preset or parameters in
    the spec are the starting point). Resumable: the study lives in <out>/study.sqlite3; run
    the same command again to continue. The best set and the starting set are then played
    on --fresh-games fresh seeds. A trial scores its win rate less --cap-penalty for each
    game stopped by the round cap (a capped game is no win, and a set that merely stalls
    must not look as good as one that loses). Example: balancelab tune odyssey --side crew
    --budget 3000
    """
    from balancelab.questions import tune as T

    options = {k: v for k, v in parse_game_args([], set_ or []).items()}
    config = T.TuneConfig(game, side, policy, budget, trial_games, seed, options, fresh_games,
                          parse_policies(against or []), cap_penalty)
    folder = out or Path("tunes") / (f"{game}-{side}-{policy.replace(':', '_')}-seed{seed}"
                                     + "".join(f"-{k}{v}" for k, v in options.items())
                                     + "".join(f"-vs-{k}-{v.replace(':', '_')}"
                                               for k, v in config.against.items()))
    T.check(config)  # bad input: refused before the bar
    bar = _progress_bar(quiet)
    with bar:
        task = bar.add_task("games", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        result = T.tune(config, folder, progress=progress)
    for line in T.describe(config, result):
        console.print(line, highlight=False, soft_wrap=True)  # specs stay copyable
    console.print(f"  {folder}/result.json; {result.seconds:.0f} s", highlight=False)


def _reflow_help() -> None:
    """Join the lines of each paragraph of the commands' docstrings: typer's rich help keeps
    a paragraph's line breaks, so source-wrapped text would break mid-sentence on screen.
    Paragraphs (blank-line separated) stay apart; the terminal wraps each at its width."""
    for cmd in app.registered_commands:
        fn = cmd.callback
        if fn is not None and fn.__doc__:
            fn.__doc__ = _reflowed(fn.__doc__)


def _reflowed(doc: str) -> str:
    """A docstring with each paragraph on one line (see :func:`_reflow_help`)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


_reflow_help()


def _on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM stops a run like Ctrl-C: finished chunks kept, workers stopped, exit 143."""
    _TERMINATED.append(True)
    raise Terminated()


def _forget_caught_interrupt() -> None:
    """Clear CPython's "unhandled KeyboardInterrupt" flag once the command has handled it.

    CPython (since 3.8) sets that flag whenever a KeyboardInterrupt leaves code run by
    ``exec`` of a string, caught later or not; under ``python -m`` (``Py_RunMain`` reads the
    flag after taking the ``SystemExit`` code) the process then ends by SIGINT (exit -2)
    whatever ``sys.exit`` said. The console script and script files exit through
    ``Py_Exit`` and are not affected. Libraries ``exec`` strings as they are imported
    (``dataclasses`` writes each ``__init__`` and ``__repr__`` so), so a Ctrl-C during
    ``import dask.distributed`` ended a cleanly handled ``python -m balancelab`` run with -2
    after its "continue with" line (1 run in 40 at 1.0-2.5 s on the dask backend). Every
    ``exec`` of a string resets the flag first; an empty one leaves it cleared. A Ctrl-C
    that escapes the command unhandled still sets it again on its way out."""
    exec("")  # a constant empty string, run for its side effect above


def main() -> None:
    """Entry point of the ``balancelab`` console script and of ``python -m balancelab``:
    exit 0, 1 (an error), 2 (a usage error), 130/143 (interrupted) or a command's own
    code."""
    try:
        _dispatch()
    finally:
        _forget_caught_interrupt()


def _dispatch() -> None:
    """Run the command line; errors and interruptions become one line and an exit code."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if sys.platform != "win32":
        signal.signal(signal.SIGTERM, _on_sigterm)
    usage_error: type[Exception] = typer.BadParameter.__mro__[1]  # (typer's own click's)
    click_error: type[Exception] = typer.BadParameter.__mro__[2]
    try:
        rv = app(standalone_mode=False)
    except usage_error as exc:  # one line, exit 2 (typer would draw a panel)
        msg = exc.format_message()  # type: ignore[attr-defined]
        if not msg.strip():  # no arguments: the help was shown
            sys.exit(2)
        ctx = getattr(exc, "ctx", None)
        parts: list[str] = []
        while ctx is not None and ctx.parent is not None:
            parts.insert(0, ctx.info_name)
            ctx = ctx.parent
        cmd = " ".join(["balancelab", *parts])
        err.print(f"[bold red]error:[/] {escape(_error_line(Exception(msg)))}"
                  f" (see: {escape(cmd)} --help)", highlight=False, soft_wrap=True)
        sys.exit(2)
    except click_error as exc:
        msg = exc.format_message()  # type: ignore[attr-defined]
        err.print(f"[bold red]error:[/] {escape(_error_line(Exception(msg)))}",
                  highlight=False, soft_wrap=True)
        sys.exit(getattr(exc, "exit_code", 1))
    except (KeyboardInterrupt, typer.Abort):
        err.print("interrupted", highlight=False)
        sys.exit(_interrupted_exit())
    if rv in (130, 143) and not _TOLD:
        # typer turns a Ctrl-C outside the command (while the command line is parsed and
        # its game's modules imported) into exit 130 without a word
        err.print("interrupted", highlight=False)
        sys.exit(_interrupted_exit())
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
