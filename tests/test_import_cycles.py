"""No import cycles in the package, and every game package has the same shape.

The import graph is read from the sources with ``ast``: every ``import`` counts, at module
level, inside a function (a lazy import) or under ``if TYPE_CHECKING:`` alike, since each says
that one module needs the other. ``from package import name`` is an edge to the submodule
when ``name`` is one, else to the package's ``__init__``; importing a submodule does not count
as importing its parent package.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "balancelab"


def _modules() -> dict[str, tuple[Path, str]]:
    """module name → (source file, the package its relative imports start from)."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
            package = ".".join(parts)
        else:
            package = ".".join(parts[:-1])
        out[".".join(parts)] = (path, package)
    return out


def import_graph() -> dict[str, set[str]]:
    """module → the package modules it imports (anywhere in its source)."""
    mods = _modules()

    def owner(name: str) -> str | None:  # the package module a dotted name lives in
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for mod, (path, package) in mods.items():
        targets: set[str | None] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(owner(a.name) for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join(up + ([node.module] if node.module else []))
                for a in node.names:
                    sub = f"{base}.{a.name}"
                    targets.add(sub if sub in mods else owner(base))
        graph[mod] = {t for t in targets if t is not None and t != mod}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_graph_sees_every_kind_of_import() -> None:
    """The checker itself: a lazy import and a TYPE_CHECKING import are edges (the game
    loop's type-only import of the policies, and the games' import of the contract)."""
    graph = import_graph()
    assert "balancelab.policies.base" in graph["balancelab.simulate.play"]  # TYPE_CHECKING
    assert "balancelab.games" in graph["balancelab.policies.base"]  # inside a function
    assert "balancelab.simulate.core" in graph["balancelab.simulate.iss.state"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycles() -> None:
    found = cycles(import_graph())
    assert found == [], "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


@pytest.mark.parametrize("game", ["odyssey", "iss", "obcy"])
def test_every_game_package_has_one_shape(game: str) -> None:
    """``rules`` (options, constants), ``state`` (State, View), ``game`` (the Game), ``text``
    (the words), ``evaluate`` (the search's estimate); the Game class lives in ``game``."""
    folder = PACKAGE / "simulate" / game
    for name in ("__init__", "rules", "state", "game", "text", "evaluate"):
        assert (folder / f"{name}.py").exists(), f"{game}/{name}.py missing"
    assert not (folder / "engine.py").exists()
    tree = ast.parse((folder / "game.py").read_text(encoding="utf-8"))
    classes = {n.name for n in tree.body if isinstance(n, ast.ClassDef)}
    assert any(c.endswith("Game") for c in classes), classes
