"""``python -m balancelab`` is the ``balancelab`` command.

A Ctrl-C while the command line's libraries are still being imported exits quietly (130): the
handler below stands until :func:`balancelab.cli.main` installs its own.
"""

import os
import signal
import sys


def _quit(signum: int, frame: object) -> None:
    sys.stderr.write("interrupted\n")
    os._exit(143 if signum == signal.SIGTERM else 130)


def run() -> None:
    """Import the command line and run it (the console script's entry point)."""
    signal.signal(signal.SIGINT, _quit)
    signal.signal(signal.SIGTERM, _quit)
    from balancelab.cli import main

    main()


if __name__ == "__main__":
    run()
