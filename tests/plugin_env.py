"""The example plug-in game (examples/nim_game) made importable and discoverable without
installing it: its source directory on the path, and a ``.dist-info`` holding the entry points
its own ``pyproject.toml`` declares (what ``pip install examples/nim_game`` would write)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NIM = REPO / "examples" / "nim_game"


def write_dist_info(site: Path) -> Path:
    """Write ``nim_game-<version>.dist-info`` into ``site`` from the example's pyproject."""
    project = tomllib.loads((NIM / "pyproject.toml").read_text())["project"]
    info = site / f"nim_game-{project['version']}.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n")
    lines = []
    for group, entries in project["entry-points"].items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in entries.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
    return info


def nim_env(site: Path) -> dict[str, str]:
    """An environment for a subprocess (and its workers) that sees the nim plug-in."""
    write_dist_info(site)
    path = [str(site), str(NIM), str(REPO), os.environ.get("PYTHONPATH", "")]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
