"""``python -m balancelab`` is the ``balancelab`` command.

A Ctrl-C while the command line's libraries are still being imported exits quietly (130): the
handler :func:`balancelab._quit`, installed as the package is imported, stands until
:func:`balancelab.cli.main` installs its own.
"""

from balancelab import _quiet_interrupts


def run() -> None:
    """Import the command line and run it (the console script's entry point)."""
    _quiet_interrupts()
    from balancelab.cli import main

    main()


if __name__ == "__main__":
    run()
