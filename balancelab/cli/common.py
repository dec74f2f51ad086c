"""What every command shares: the typer app, the consoles, the options several commands
take, one-line errors and interruptions, progress bars."""

from __future__ import annotations

import contextvars
import functools
import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.markup import escape

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
CONTINUE: contextvars.ContextVar[str] = contextvars.ContextVar("continue_with", default="")
#: Set by the SIGTERM handler: the interruption was a SIGTERM (exit 143), not a Ctrl-C.
TERMINATED: list[bool] = []
#: Set once an interruption has been told (by the line that says it, with the command that
#: continues): an interruption nobody told is told "interrupted" on the way out.
TOLD: list[bool] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM, handled as an interruption: finished chunks are kept (exit 143)."""


def note_if_pure_python() -> None:
    """One line on stderr when the engines run as pure Python (pip hides the install's
    warning; ``build.pure_python_note``)."""
    from balancelab import build

    note = build.pure_python_note()
    if note:
        err.print(note, markup=False, highlight=False, soft_wrap=True)


def interrupted_exit() -> int:
    """The exit code of an interruption that has been told (130, or 143 for SIGTERM)."""
    TOLD.append(True)
    return 143 if TERMINATED else 130


def kept_and_exit(path: object, command: str | None = None) -> typer.Exit:
    """Tell that an interrupted question kept its finished chunks in ``path`` and how it goes
    on (``command``, or the same command when None); return the exit to raise (130, or 143
    for SIGTERM). The path and the command are printed as typed, never read as markup."""
    how = f": {command}" if command is not None else " the same command"
    err.print(f"[yellow]interrupted:[/] finished chunks kept in {escape(str(path))}; "
              f"continue with{escape(how)}", highlight=False, soft_wrap=True)
    return typer.Exit(interrupted_exit())


def error_line(exc: BaseException) -> str:
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
        token = CONTINUE.set("")
        try:
            return fn(*args, **kwargs)
        except typer.Exit:  # a RuntimeError subclass: let exit codes (130) through
            raise
        except KeyboardInterrupt:
            hint = CONTINUE.get()
            err.print(f"[yellow]interrupted[/]{escape('; continue with: ' + hint) if hint else ''}",
                      highlight=False, soft_wrap=True)
            raise typer.Exit(interrupted_exit()) from None
        except (ValueError, RuntimeError, OSError, NotImplementedError, LookupError,
                ImportError) as exc:  # ImportError: a plug-in that cannot be loaded
            err.print(f"[bold red]error:[/] {escape(error_line(exc))}", highlight=False,
                      soft_wrap=True)
            raise typer.Exit(1) from None
        except Exception as exc:  # a library's own error type (polars, pyarrow, dask)
            err.print(f"[bold red]error:[/] {escape(type(exc).__name__)}: "
                      f"{escape(error_line(exc))}", highlight=False, soft_wrap=True)
            raise typer.Exit(1) from None
        finally:
            CONTINUE.reset(token)

    return wrapper  # type: ignore[return-value]


def continue_with_resume_flag() -> str:
    """The command line as typed, with --resume (how an interrupted sweep or study goes on)."""
    import shlex

    argv = [a for a in sys.argv[1:] if a not in ("--force", "--resume")]
    return "balancelab " + " ".join(shlex.quote(a) for a in argv) + " --resume"


def progress_bar(quiet: bool) -> Any:
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


def study_progress(quiet: bool) -> Any:
    """A progress bar and a callback for runs that grow in rounds."""
    bar = progress_bar(quiet)
    task = bar.add_task("games", total=None)

    def progress(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    return bar, progress


def named_progress(quiet: bool) -> Any:
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


def reflowed(doc: str) -> str:
    """A docstring with each paragraph on one line (see :func:`_reflow_help`)."""
    return "\n\n".join(" ".join(p.split()) for p in inspect.cleandoc(doc).split("\n\n"))


def check_jobs(jobs: int) -> None:
    """``--jobs``: -1 (all cores) or at least 1.

    Raises:
        ValueError: any other number.
    """
    if jobs == 0 or jobs < -1:
        raise ValueError(f"--jobs must be -1 (all cores) or at least 1; got {jobs}")
