"""The ``balancelab`` command line: a thin typer layer over the library.

Each command parses its arguments (names of games, studies, policies into the library's
objects), calls the library and prints what it returns: :mod:`~balancelab.cli.runs` (games,
simulate, resume, trace, report), :mod:`~balancelab.cli.questions` (compare, sweep, study,
balance, sensitivity), :mod:`~balancelab.cli.bench`, :mod:`~balancelab.cli.tune`; what they
share is in :mod:`~balancelab.cli.common` and :mod:`~balancelab.cli.args`, a game's rule
options as flags in :mod:`~balancelab.cli.options`.

Exit codes: 0 ok, 1 a domain error (unknown game, policy, option, bad value, not a run folder,
a damaged run folder, a disk that refuses a write), 2 a usage error (typer's own), 130
interrupted by Ctrl-C and 143 by SIGTERM (finished chunks kept; the message gives the command
that continues). Every error is one line on stderr, never a traceback.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import Any

import typer
from rich.markup import escape

from balancelab.cli import bench, questions, runs, tune
from balancelab.cli.args import parse_game_args, parse_policies
from balancelab.cli.common import (
    TERMINATED,
    TOLD,
    Terminated,
    app,
    err,
    error_line,
    interrupted_exit,
    reflowed,
)

__all__ = ["app", "main", "parse_game_args", "parse_policies"]

for _module in (runs, questions, bench, tune):  # the order ``--help`` lists the commands in
    app.registered_commands += _module.commands.registered_commands
    app.registered_groups += _module.commands.registered_groups


def _reflow_help() -> None:
    """Join the lines of each paragraph of the commands' docstrings: typer's rich help keeps
    a paragraph's line breaks, so source-wrapped text would break mid-sentence on screen.
    Paragraphs (blank-line separated) stay apart; the terminal wraps each at its width."""
    for cmd in app.registered_commands:
        fn = cmd.callback
        if fn is not None and fn.__doc__:
            fn.__doc__ = reflowed(fn.__doc__)


_reflow_help()


def _on_sigterm(signum: int, frame: Any) -> None:
    """SIGTERM stops a run like Ctrl-C: finished chunks kept, workers stopped, exit 143."""
    TERMINATED.append(True)
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
        err.print(f"[bold red]error:[/] {escape(error_line(Exception(msg)))}"
                  f" (see: {escape(cmd)} --help)", highlight=False, soft_wrap=True)
        sys.exit(2)
    except click_error as exc:
        msg = exc.format_message()  # type: ignore[attr-defined]
        err.print(f"[bold red]error:[/] {escape(error_line(Exception(msg)))}",
                  highlight=False, soft_wrap=True)
        sys.exit(getattr(exc, "exit_code", 1))
    except (KeyboardInterrupt, typer.Abort):
        err.print("interrupted", highlight=False)
        sys.exit(interrupted_exit())
    if rv in (130, 143) and not TOLD:
        # typer turns a Ctrl-C outside the command (while the command line is parsed and
        # its game's modules imported) into exit 130 without a word
        err.print("interrupted", highlight=False)
        sys.exit(interrupted_exit())
    sys.exit(rv if isinstance(rv, int) else 0)


if __name__ == "__main__":
    main()
