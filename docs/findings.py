"""Regenerate docs/findings.md, the README's findings: ``python docs/findings.py`` (see
:mod:`balancelab.questions.findings`; ``--help`` for the options)."""

import sys

from balancelab.questions.findings import main

if __name__ == "__main__":
    sys.exit(main())
