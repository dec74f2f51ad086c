"""Build hook: compile the engines' hot paths with mypyc when this machine can.

The hook is hatch-mypyc's, with one difference: when compiling fails (no C compiler, no Python
headers), the install goes on as pure Python (same source, same games, 1.5-3.5x slower)
with a warning, instead of failing. ``BALANCELAB_PURE_PYTHON=1`` skips compiling. The modules
to compile are the ``include`` list under ``[tool.hatch.build.targets.wheel.hooks.custom]`` in
``pyproject.toml`` (and ``balancelab/build.py``'s ``COMPILED_MODULES``, tested equal).
"""

from __future__ import annotations

import os
from typing import Any

from hatch_mypyc.plugin import MypycBuildHook


class CompileIfPossible(MypycBuildHook):  # type: ignore[misc]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("BALANCELAB_PURE_PYTHON", "") not in ("", "0"):
            self.app.display_info("balancelab: BALANCELAB_PURE_PYTHON is set; not compiling")
            return
        try:
            super().initialize(version, build_data)
        except Exception as exc:  # noqa: BLE001 - any compile failure falls back to Python
            reason = str(exc).strip().splitlines()
            tail = reason[-1] if reason else type(exc).__name__
            self.app.display_warning(
                "balancelab: compiling the engines with mypyc failed, so they install as pure "
                f"Python (same results, 1.5-3.5x slower). Last line: {tail}. Install a C "
                "compiler and the Python headers (Debian: gcc python3-dev) and reinstall for "
                "the compiled engines.")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """A regular wheel carries its compiled modules: remove the copies hatch-mypyc built
        in the source tree, so that code run from the checkout is never an old build. (An
        editable install imports them from the tree, and keeps them.)"""
        if version == "standard":
            self.clean([version])


def get_build_hook() -> type[CompileIfPossible]:
    """The hook hatchling loads (the module also imports hatch-mypyc's own class)."""
    return CompileIfPossible
