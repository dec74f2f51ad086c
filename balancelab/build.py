"""Which modules the install compiled to C with mypyc, and a check that none is stale.

The engines' hot paths (the shared game loop, the three games' engines, their scripted
players and FEDOR) are plain, type-annotated Python that ``pip install`` compiles with mypyc
(``hatch_build.py``, configured in ``pyproject.toml``). The compiled and the pure-Python code
are the same source and give identical games (``tests/test_build.py``); the compiled code is
3-11x faster. ``BALANCELAB_PURE_PYTHON=1 pip install .`` installs pure Python, and so
does a machine without a C compiler or the Python headers; a compile that fails on a machine
that has them fails the install (``hatch_build.py``).

This module imports nothing of the package, so ``import balancelab`` can check it cheaply.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

#: Modules compiled by the build hook; must equal its ``include`` list (tested).
COMPILED_MODULES = (
    "balancelab.simulate.core",
    "balancelab.simulate.play",
    "balancelab.policies.base",
    "balancelab.simulate.odyssey.cards",
    "balancelab.simulate.odyssey.state",
    "balancelab.policies.odyssey.shared",
    "balancelab.policies.odyssey.hal",
    "balancelab.policies.odyssey.crew",
    "balancelab.policies.odyssey.discards",
    "balancelab.simulate.iss.state",
    "balancelab.simulate.iss.fedor",
    "balancelab.policies.iss",
    "balancelab.simulate.obcy.board",
    "balancelab.simulate.obcy.state",
    "balancelab.policies.obcy.tables",
    "balancelab.policies.obcy.tactics",
    "balancelab.policies.obcy.expedition",
    "balancelab.policies.obcy.aliens",
    "balancelab.interop.observation",
    "balancelab.simulate.seeding",
    "balancelab.simulate.encoding",
    "balancelab.simulate.odyssey.evaluate",
    "balancelab.simulate.odyssey.determinize",
    "balancelab.simulate.iss.evaluate",
    "balancelab.simulate.iss.determinize",
    "balancelab.simulate.obcy.evaluate",
    "balancelab.simulate.obcy.determinize",
    "balancelab.policies.search",
    "balancelab.policies.ismcts",
)

_ROOT = Path(__file__).resolve().parent.parent


def _paths(module: str) -> tuple[Path, list[Path]]:
    """(source file, compiled extension files found beside it)."""
    source = _ROOT.joinpath(*module.split(".")).with_suffix(".py")
    stem = source.with_suffix("")
    exts = [stem.with_name(stem.name + s) for s in EXTENSION_SUFFIXES]
    return source, [p for p in exts if p.exists()]


def compiled() -> dict[str, bool]:
    """Module name → True when a compiled extension sits beside its source (and so is the
    one Python imports)."""
    return {m: bool(_paths(m)[1]) for m in COMPILED_MODULES}


def describe() -> str:
    """One line for ``--version`` and ``bench``: ``compiled with mypyc, 9/9 modules`` or
    ``pure Python``."""
    done = sum(compiled().values())
    if done == 0:
        return "pure Python"
    return f"compiled with mypyc, {done}/{len(COMPILED_MODULES)} modules"


def pure_python_note(environ: Mapping[str, str] = os.environ) -> str | None:
    """The one line ``balancelab simulate`` and ``bench`` print on stderr when no engine is
    compiled (pip hides the install's warning), or None: compiled, or the user set
    ``BALANCELAB_PURE_PYTHON`` (to anything but ``0``), as for a pure-Python install."""
    if any(compiled().values()) or environ.get("BALANCELAB_PURE_PYTHON", "") not in ("", "0"):
        return None
    return ("note: the engines run as pure Python (3-11x slower than compiled): reinstall "
            "on a machine with a C compiler and the Python headers (Debian: gcc python3-dev) "
            "to compile them; BALANCELAB_PURE_PYTHON=1 hides this note")


#: A source this much newer than its compiled module was edited after the build (an install
#: writes the two a moment apart, in either order).
STALE_AFTER_SECONDS = 2.0


def stale() -> list[str]:
    """Compiled modules of a source checkout (an editable install) whose source was edited
    after they were built: Python would run the old compiled code. Always empty for an
    installed wheel, whose files are never edited."""
    if not (_ROOT / "pyproject.toml").exists():
        return []
    out = []
    for m in COMPILED_MODULES:
        source, exts = _paths(m)
        if exts and source.exists() and source.stat().st_mtime > STALE_AFTER_SECONDS + max(
                e.stat().st_mtime for e in exts):
            out.append(m)
    return out


def warn_if_stale() -> None:
    """Warn (once, at import) when an edited source is shadowed by its old compiled module."""
    old = stale()
    if old:
        warnings.warn(
            f"balancelab: {', '.join(old)} changed after it was compiled, and the old compiled "
            "code is what runs; re-run `pip install -e .` in the checkout (or delete the .so "
            "files beside them to run pure Python)", stacklevel=3)
