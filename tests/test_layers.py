"""The house's layers (docs/architecture.md): a module imports only from its own layer and the
layers below it, and the package root holds only the edge and the registry.

The import graph is :func:`test_import_cycles.import_graph`'s (every import counts: module
level, inside a function, under ``if TYPE_CHECKING:``).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_import_cycles import PACKAGE, import_graph  # noqa: E402

#: Each layer: the top-level names (a subpackage or a module of ``balancelab``) it holds.
#: ``""`` is the package itself (``balancelab/__init__.py``).
LAYERS: dict[str, set[str]] = {
    "base": {"build", "plugins"},
    "engine": {"simulate", "policies", "games", "testing"},
    "analysis": {"analysis"},
    "reports": {"reports"},
    "questions": {"questions"},
    "adapters": {"interop"},
    "tools": {"bench"},
    "edge": {"", "__main__", "api", "cli"},
}

#: What each layer may import besides itself.
MAY_IMPORT: dict[str, set[str]] = {
    "base": set(),
    "engine": {"base"},
    "analysis": {"base", "engine"},
    "reports": {"base", "engine", "analysis"},
    "questions": {"base", "engine", "analysis", "reports"},
    "adapters": {"base", "engine"},
    "tools": {"base", "engine", "adapters"},
    "edge": {"base", "engine", "analysis", "reports", "questions", "adapters", "tools"},
}

#: Imports across the layers on purpose, each with its reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("balancelab.simulate", "balancelab.api"):
        "the callable package: balancelab.simulate(...) forwards to api.simulate",
}


def layer_of(module: str) -> str:
    """The layer of a ``balancelab`` module (``balancelab.questions.sweep`` → ``questions``).

    Raises:
        KeyError: a top-level name no layer holds (a new one must be placed in a layer).
    """
    top = module.split(".")[1] if "." in module else ""
    for layer, names in LAYERS.items():
        if top in names:
            return layer
    raise KeyError(f"{module}: its top-level name {top!r} is in no layer of LAYERS")


def violations(graph: dict[str, set[str]]) -> list[str]:
    """Every import from a layer that may not import the other, as ``a -> b (la -> lb)``."""
    out = []
    for a, targets in sorted(graph.items()):
        la = layer_of(a)
        for b in sorted(targets):
            lb = layer_of(b)
            if lb != la and lb not in MAY_IMPORT[la] and (a, b) not in EXCEPTIONS:
                out.append(f"{a} -> {b} ({la} may not import {lb})")
    return out


def test_the_checker_catches_an_upward_import() -> None:
    """The checker itself: a runner that reads the reports, an analysis that asks a question
    and a question that prints through the command line are each refused."""
    graph = {
        "balancelab.simulate.runs.write": {"balancelab.reports.run_report",
                                           "balancelab.simulate.core"},
        "balancelab.analysis.stats": {"balancelab.questions.sweep"},
        "balancelab.questions.sweep": {"balancelab.cli", "balancelab.analysis"},
        "balancelab.cli": {"balancelab.questions.sweep"},
    }
    assert violations(graph) == [
        "balancelab.analysis.stats -> balancelab.questions.sweep (analysis may not import "
        "questions)",
        "balancelab.questions.sweep -> balancelab.cli (questions may not import edge)",
        "balancelab.simulate.runs.write -> balancelab.reports.run_report (engine may not import "
        "reports)",
    ]


def test_every_module_is_in_a_layer_and_imports_downward_only() -> None:
    found = violations(import_graph())
    assert found == [], "imports against the layers:\n" + "\n".join(found)


def test_every_exception_is_still_needed() -> None:
    graph = import_graph()
    stale = [f"{a} -> {b}" for a, b in EXCEPTIONS if b not in graph.get(a, set())]
    assert stale == [], f"exceptions no longer needed: {stale}"


def test_the_package_root_holds_only_the_edge_and_the_registry() -> None:
    """The questions live in ``balancelab/questions/``, the engines in ``simulate/``: the root
    holds the entry points (cli, api), the registry (games, plugins), the build check, the
    bench and the plug-in contract kit, nothing else (no module left at an old path)."""
    loose = {p.stem for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__", "__main__", "api", "build", "games", "plugins", "testing"}
