"""Build hook: compile the engines' hot paths with mypyc, and say so when it cannot.

The modules to compile are the ``include`` list under
``[tool.hatch.build.targets.wheel.hooks.custom]`` in ``pyproject.toml`` (and
``balancelab/build.py``'s ``COMPILED_MODULES``, tested equal). What an install does:

- ``BALANCELAB_PURE_PYTHON=1`` (any value but empty or ``0``): installs pure Python.
- No C compiler, or no Python headers (Debian: ``gcc python3-dev``): installs pure Python, with
  a warning (pip prints a build's warnings only with ``-v``; ``balancelab --version`` says
  ``pure Python`` and ``balancelab simulate``/``bench`` print a one-line note).
- Otherwise it compiles, and a failed compile fails the install, with the first error line,
  where the full output is, and the opt-out ``BALANCELAB_PURE_PYTHON=1``: a machine that can
  compile never gets the 1.5-3.5x slower engines silently.

hatch-mypyc compiles in the project folder and renames its ``pyproject.toml`` for as long as
that takes (so setuptools does not read it). This hook compiles a copy of the package in a
temporary folder instead: the checkout is never changed, except that an editable install puts
the compiled modules beside their sources (which is what it imports).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Mapping
from glob import glob
from pathlib import Path
from typing import Any

from hatch_mypyc.plugin import MypycBuildHook
from hatch_mypyc.utils import construct_setup_file

OPT_OUT = "BALANCELAB_PURE_PYTHON"


def opted_out(environ: Mapping[str, str]) -> bool:
    """True when the user asked for pure Python (``BALANCELAB_PURE_PYTHON`` set, not ``0``)."""
    return environ.get(OPT_OUT, "") not in ("", "0")


def missing_toolchain(environ: Mapping[str, str]) -> str | None:
    """Why this machine cannot compile C extensions for this Python (a phrase), or None.

    The compiler is ``$CC`` or the one this Python was built with (``sysconfig``'s ``CC``;
    ``cl`` on Windows, found only when on ``PATH``), as setuptools uses; the headers are
    ``Python.h`` in this Python's include folder."""
    configured = environ.get("CC") or sysconfig.get_config_var("CC") or "cl"
    compiler = configured.split()[0]
    if shutil.which(compiler) is None:
        return f"no C compiler ({compiler!r} not found)"
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").is_file():
        return f"no Python headers ({include / 'Python.h'} missing)"
    return None


_ERROR = re.compile(r"(?:^|\s)error:")


def first_error(output: str) -> str:
    """The first line of mypy's, the C compiler's or setuptools' output that reports an error
    (``...: error: ...``, ``fatal error: ...``), else the last line (a traceback's)."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if _ERROR.search(line):
            return line
    return lines[-1] if lines else "no output"


class CompileFailed(SystemExit):
    """The compile failed on a machine that can compile; the message says why and what to do.

    A SystemExit, so that the build's output (which pip shows without ``-v`` when a build
    fails) is this message alone, without a traceback; hatchling runs in pip's subprocess."""


class CompileIfPossible(MypycBuildHook):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        if opted_out(os.environ):
            self.app.display_info(f"balancelab: {OPT_OUT} is set; installing pure Python")
            return
        missing = missing_toolchain(os.environ)
        if missing is not None:
            self.app.display_warning(
                f"balancelab: {missing}, so the engines install as pure Python (same games, "
                "1.5-3.5x slower). Install a C compiler and the Python headers (Debian: gcc "
                "python3-dev) and reinstall for the compiled engines.")
            return
        self._workdir = tempfile.TemporaryDirectory(prefix="balancelab-mypyc-")
        built = self.compile_copy(Path(self._workdir.name))
        build_data["infer_tag"] = True
        build_data["pure_python"] = False
        if version == "editable":
            # the editable install imports the checkout: the compiled modules go beside their
            # sources (replacing the previous build's), as hatch-mypyc puts them
            self.clean([version])
            for source, relative in built.items():
                target = Path(self.root, relative)
                shutil.copyfile(source, target.with_name(target.name + ".new"))
                os.replace(target.with_name(target.name + ".new"), target)
            build_data["artifacts"].extend(self.artifact_patterns)
            build_data["force_include"].update(self.get_forced_inclusion_map())
        else:
            build_data["force_include"].update(built)

    def compile_copy(self, work: Path) -> dict[str, str]:
        """Compile a copy of the packages holding the ``include``d modules, in ``work``.

        Returns: compiled file (absolute path in ``work``) → its path in the wheel.
        Raises: CompileFailed with the first error line (the full output is kept in a log file).
        """
        tree = work / "tree"
        for top in sorted({Path(f).parts[0] for f in self.normalized_included_files}):
            shutil.copytree(Path(self.root, top), tree / top,
                            ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
        (work / "build").mkdir()
        (work / "tmp").mkdir()
        options = {**self.config_options, "target_dir": str(work / "build")}
        setup = work / "setup.py"
        setup.write_text(construct_setup_file(
            self.package_source, *self.config_mypy_args, *self.normalized_included_files,
            **options), encoding="utf-8")
        done = subprocess.run(
            [sys.executable, str(setup), "build_ext", "--inplace", "--build-lib",
             str(work / "build"), "--build-temp", str(work / "tmp")],
            cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
        if done.returncode:
            raise CompileFailed(self.failure_message(done.stdout))
        patterns = [*self.artifact_globs,
                    os.path.join(self.package_source, f"*__mypyc.*{self.compiled_extension}")]
        return {path: os.path.relpath(path, tree)
                for pattern in patterns for path in sorted(glob(str(tree / pattern)))}

    def failure_message(self, output: str) -> str:
        """What a failed compile tells the user: the first error, how many, where the full
        output is, and how to install pure Python instead."""
        fd, log = tempfile.mkstemp(prefix="balancelab-mypyc-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(output)
        errors = sum(1 for line in output.splitlines() if _ERROR.search(line))
        return (
            "balancelab: compiling the engines with mypyc failed:\n"
            f"  {first_error(output)}\n"
            f"  ({errors} error line(s) in all; the full output is in {log})\n"
            "This machine has a C compiler and the Python headers, so the compiled engines "
            "should build: please report this.\nTo install pure Python instead (the same games, "
            f"1.5-3.5x slower): {OPT_OUT}=1 pip install ...")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        """Remove the temporary copy (the wheel holds its compiled modules by now)."""
        workdir = getattr(self, "_workdir", None)
        if workdir is not None:
            workdir.cleanup()


def get_build_hook() -> type[CompileIfPossible]:
    """The hook hatchling loads (the module also imports hatch-mypyc's own class)."""
    return CompileIfPossible
