"""The build hook (hatch_build.py), driven by hatchling with the compile faked: a machine that
can compile gets the compiled engines or a failed install saying why; one that cannot (or a
user who opts out) gets pure Python; the checkout is never changed by a regular build."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import zipfile
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from typing import Any

import pytest

from balancelab import build

ROOT = Path(__file__).resolve().parent.parent


hatchling_wheel = pytest.importorskip("hatchling.builders.wheel")  # the test extra has them
pytest.importorskip("hatch_mypyc")
# hatch-mypyc's include patterns use pathspec's old name for gitignore patterns
pytestmark = pytest.mark.filterwarnings("ignore:GitWildMatchPattern:DeprecationWarning")
EXT = EXTENSION_SUFFIXES[0]


def _hook_module() -> Any:
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


hook = _hook_module()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the project (no compiled files) to build."""
    root = tmp_path / "project"
    root.mkdir()
    for name in ("pyproject.toml", "hatch_build.py", "README.md", ".gitignore"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "balancelab", root / "balancelab",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    return root


class FakeMypyc:
    """Stands in for ``python setup.py build_ext --inplace``: records what the compile saw and
    writes an empty "compiled" file for each module, or fails with ``output``."""

    def __init__(self, project: Path, output: str = "", returncode: int = 0) -> None:
        self.project, self.output, self.returncode = project, output, returncode
        self.calls: list[dict[str, Any]] = []

    def __call__(self, args: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        cwd = Path(kw.get("cwd") or os.getcwd())
        self.calls.append({"cwd": cwd, "pyproject": sorted(
            p.name for p in self.project.iterdir() if p.name.startswith("pyproject"))})
        if not self.returncode and "cwd" in kw:
            for m in build.COMPILED_MODULES:
                (cwd / (m.replace(".", "/") + EXT)).write_bytes(b"")
            (cwd / f"0123abcd__mypyc{EXT}").write_bytes(b"")
        return subprocess.CompletedProcess(args, self.returncode, self.output)


@pytest.fixture
def can_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("BALANCELAB_PURE_PYTHON", raising=False)
    monkeypatch.setattr(hook, "missing_toolchain", lambda environ: None)


def _build(project: Path, out: Path, monkeypatch: pytest.MonkeyPatch, fake: FakeMypyc) -> Path:
    """Build a regular wheel of ``project`` with hatchling, the compile replaced by ``fake``."""
    monkeypatch.setattr(subprocess, "run", fake)
    builder = hatchling_wheel.WheelBuilder(str(project))
    return Path(next(iter(builder.build(directory=str(out), versions=["standard"]))))


def _files(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*") if "__pycache__" not in p.parts}


def test_the_build_compiles_a_copy_and_never_moves_pyproject(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, can_compile: None) -> None:
    before = _files(project)
    fake = FakeMypyc(project)
    wheel = _build(project, tmp_path / "dist", monkeypatch, fake)
    assert len(fake.calls) == 1
    assert fake.calls[0]["pyproject"] == ["pyproject.toml"]  # in place while compiling
    assert project not in [fake.calls[0]["cwd"], *fake.calls[0]["cwd"].parents]
    assert _files(project) == before  # the checkout is untouched
    assert not wheel.name.endswith("py3-none-any.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {m.replace(".", "/") + EXT for m in build.COMPILED_MODULES} <= names
    assert f"0123abcd__mypyc{EXT}" in names
    assert not fake.calls[0]["cwd"].exists()  # the copy is removed


def test_an_editable_build_puts_the_compiled_modules_beside_the_sources(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, can_compile: None) -> None:
    fake = FakeMypyc(project)
    monkeypatch.setattr(subprocess, "run", fake)
    (project / ("balancelab/simulate/core" + EXT)).write_bytes(b"old build")
    builder = hatchling_wheel.WheelBuilder(str(project))
    custom = builder.get_build_hooks(str(tmp_path))["custom"]
    build_data: dict[str, Any] = {"artifacts": [], "force_include": {}}
    custom.initialize("editable", build_data)
    custom.finalize("editable", build_data, "")
    assert fake.calls[0]["pyproject"] == ["pyproject.toml"]
    for m in build.COMPILED_MODULES:
        assert (project / (m.replace(".", "/") + EXT)).read_bytes() == b""
    assert build_data["pure_python"] is False
    assert list(build_data["force_include"].values()) == [f"0123abcd__mypyc{EXT}"]


MYPY_OUTPUT = """running build_ext
frames.py:26: note: Recommendation: use TypeAlias
frames.py:29: error: Variable "frames.Source" is not valid as a type  [valid-type]
frames.py:40: error: Variable "frames.Source" is not valid as a type  [valid-type]
frames.py:40: note: See https://mypy.readthedocs.io/en/stable/common_issues.html
"""


def test_a_failed_compile_on_a_machine_that_can_compile_fails_the_build_saying_why(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, can_compile: None) -> None:
    fake = FakeMypyc(project, MYPY_OUTPUT, returncode=1)
    with pytest.raises(SystemExit) as caught:  # (hatchling loads its own copy of the hook)
        _build(project, tmp_path / "dist", monkeypatch, fake)
    assert type(caught.value).__name__ == "CompileFailed"
    message = str(caught.value)
    assert message.startswith(
        "balancelab: compiling the engines with mypyc failed:\n"
        '  frames.py:29: error: Variable "frames.Source" is not valid as a type  [valid-type]\n'
        "  (2 error line(s) in all; the full output is in ")
    assert message.endswith("BALANCELAB_PURE_PYTHON=1 pip install ...")
    log = Path(re.search(r"the full output is in (\S+)\)", message)[1])  # type: ignore[index]
    assert log.read_text() == MYPY_OUTPUT
    log.unlink()
    assert not (tmp_path / "dist").exists() or not list((tmp_path / "dist").iterdir())


@pytest.mark.parametrize("why", ["opt-out", "no compiler"])
def test_pure_python_without_compiling_when_asked_or_unable(
        why: str, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if why == "opt-out":
        monkeypatch.setenv("BALANCELAB_PURE_PYTHON", "1")
    else:
        monkeypatch.delenv("BALANCELAB_PURE_PYTHON", raising=False)
        monkeypatch.setattr(hook.shutil, "which", lambda name: None)
    fake = FakeMypyc(project)
    wheel = _build(project, tmp_path / "dist", monkeypatch, fake)
    assert fake.calls == []
    assert wheel.name.endswith("py3-none-any.whl")


def test_missing_toolchain_names_what_is_missing(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    found = {"gcc": "/usr/bin/gcc", "clang": "/usr/bin/clang"}
    monkeypatch.setattr(hook.shutil, "which", found.get)
    monkeypatch.setattr(hook.sysconfig, "get_config_var", lambda name: "gcc -pthread")
    monkeypatch.setattr(hook.sysconfig, "get_paths", lambda: {"include": str(tmp_path)})
    assert hook.missing_toolchain({"CC": "icx -O2"}) == "no C compiler ('icx' not found)"
    assert hook.missing_toolchain({}) == f"no Python headers ({tmp_path / 'Python.h'} missing)"
    (tmp_path / "Python.h").write_text("")
    assert hook.missing_toolchain({}) is None
    assert hook.missing_toolchain({"CC": "clang"}) is None
    monkeypatch.setattr(hook.sysconfig, "get_config_var", lambda name: "cc")
    assert hook.missing_toolchain({}) == "no C compiler ('cc' not found)"


def test_first_error_skips_notes_and_falls_back_to_the_last_line() -> None:
    assert hook.first_error(MYPY_OUTPUT).startswith("frames.py:29: error:")
    assert hook.first_error("x.c:1:10: fatal error: Python.h: No such file or directory\n"
                            "error: command '/usr/bin/gcc' failed") == (
        "x.c:1:10: fatal error: Python.h: No such file or directory")
    assert hook.first_error("Traceback (most recent call last):\n  ...\n"
                            "ModuleNotFoundError: No module named 'mypyc'\n") == (
        "ModuleNotFoundError: No module named 'mypyc'")


def test_opted_out() -> None:
    assert [hook.opted_out(e) for e in ({}, {"BALANCELAB_PURE_PYTHON": ""},
            {"BALANCELAB_PURE_PYTHON": "0"}, {"BALANCELAB_PURE_PYTHON": "1"})] == [
        False, False, False, True]
