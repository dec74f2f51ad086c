"""``python -m balancelab`` is the ``balancelab`` command."""

from balancelab.cli import main

main()
