"""Run the documentation's example commands and write their output where the pages include it.

Every example output on the docs site is produced here, from small runs with fixed seeds, so it
cannot go stale: ``python docs/gen_examples.py`` (re)writes ``docs/examples/NAME.txt`` for
each example below, and ``python docs/gen_examples.py --check`` fails, naming the examples and
showing the difference, when a committed output differs from what the code prints now.
``.ci/run`` runs ``--check --write`` before ``mkdocs build --strict``: the site it builds shows
what the code prints, and a committed copy that lags is named as a warning. The pages include
the files with pymdownx.snippets (``--8<-- "docs/examples/NAME.txt"``).

Each example runs in one fresh temporary folder of its own (its run folders are relative,
``runs/…``), with the same terminal width, no colour and the pure-Python note hidden; only
what depends on the machine is normalised: wall times and speeds ("in 9.9 s, 40 games/s" →
"in … s"), and the progress bars are left out (they go to the terminal, not to the page).
``--only NAME`` runs the named examples only.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "examples"
WIDTH = 80


@dataclass(frozen=True)
class Example:
    """One transcript: ``steps`` run in order in one folder; ``shown`` steps are printed as
    ``$ balancelab …`` with their output, the others only prepare (``hidden``); ``head`` and
    ``tail`` keep the first and last lines of the last step's output (``...`` between)."""

    name: str
    steps: tuple[str, ...]
    hidden: tuple[str, ...] = ()
    head: int = 0
    tail: int = 0
    files: tuple[tuple[str, str], ...] = ()  # (name, text) written into the folder first
    page: str = ""  # instead of steps: run the first ```python block of this docs page
    report: tuple[str, int] = ("", 0)  # then show the first lines of this file the steps wrote



def page_block(page: str, lang: str) -> str:
    """The first ``lang`` code block of the docs page ``page`` (relative to ``docs/``)."""
    blocks = re.findall(rf"```{lang}\n(.*?)```", (ROOT / "docs" / page).read_text(), re.S)
    if not blocks:
        raise SystemExit(f"docs/{page} has no {lang} block")
    return str(blocks[0])


# the study file the study page shows, run as shown
CREW_SIZE_TOML = page_block("questions/study.md", "toml")

EXAMPLES: tuple[Example, ...] = (
    Example("python-api", (), page="python-api.md"),
    Example("simulate", ("simulate odyssey --games 2000 --crew 3 --hal-extra-turns 1 --seed 7",
                         "report runs/odyssey-crew3-hal_extra_turns1-seed7")),
    Example("games", ("games",)),
    Example("games-odyssey", ("games odyssey",)),
    Example("games-iss", ("games iss",)),
    Example("games-obcy", ("games obcy",)),
    Example("trace", ("trace iss --players 1 --seed 3",), head=24, tail=2),
    Example("resume", ("resume runs/r --games 600",),
            hidden=("simulate odyssey --crew 2 --games 300 --seed 1 --out runs/r -q",)),
    Example("bad-input", ("simulate odyssey --crew 5", "simulate odyssey --crw 3",
                          "simulate odyssey --set crew=5", "simulate chess",
                          "simulate obcy --policy expedition=squad:spread=2.5",
                          "simulate odyssey --seed 9223372036854775808",
                          "report runs/nothing",
                          "simulate odyssey -n 10 --policy crew=crew-team:lif_alarm=9",
                          "simulate odyssey -n 10 --policy hal=hal-pressure:preset=best")),
    Example("study-file", ("study --file crew-size.toml --games 300 --jobs 2 -q",
                           "study --file bad.toml"),
            files=(("crew-size.toml", CREW_SIZE_TOML),
                   ("bad.toml", CREW_SIZE_TOML.replace("focus =", "focuss =")))),
    Example("study-detect", ("study hal-difficulty --detect 0.01",)),
    Example("study-queen", ("study queen-variants --games 200 --out runs/st -q",
                            "study queen-variants --games 20 --out runs/st "
                            '--policy "aliens=random" -q',
                            "study queen-variants --games 20 --out runs/st -q",
                            "study queen-variants --games 20 --out runs/st --seed 3 -q")),
    Example("sweep", ("sweep iss --set players=3 --grid remove_shuttles=false,true --games 150 "
                      "--out runs/sw -q",), report=("runs/sw/report/report.md", 24)),
    Example("compare", ("compare runs/iss-3p runs/iss-3p-removed",
                        "compare runs/iss-3p runs/iss-solo"),
            hidden=("simulate iss --players 3 --games 300 --seed 5 --out runs/iss-3p -q",
                    "simulate iss --players 3 --remove-shuttles --games 300 --seed 5 "
                    "--out runs/iss-3p-removed -q",
                    "simulate iss --players 1 --games 300 --seed 5 --out runs/iss-solo -q")),
    Example("simulate-help", ("simulate odyssey --help",)),
    Example("balance", ("balance obcy --target expedition=0.3 --knob queen_tasks=2..4 "
                        "--batch 100 --precision 0.08 --max-games 400",)),
    Example("sensitivity", ("sensitivity obcy --games 60 --only map_file",)),
    Example("skill-ladder", ("study skill-ladder odyssey --games 4 --verdict-games 4 "
                             "--budget-scale 0.1 --minutes 0",)),
    Example("tune", ("tune odyssey --side hal --budget 200 --trial-games 40 --fresh-games 200 "
                     "--seed 1 --set hal_turn_every=2",)),
)

PROGRESS = re.compile(r"━.*\d+/\d+|^\s*$")
MACHINE_DEPENDENT = (
    # (a speed may wrap onto the next line: "in 9.9 s, 44\ngames/s")
    (re.compile(r" in \d[\d.,]* ?(s|seconds|minutes?|min)\b(,\s+[\d,.]+\s+games/s)?"), " in …"),
    (re.compile(r"\b(Played|played) in \d[\d.,]* (s|seconds|minutes?)"), r"\1 in …"),
    (re.compile(r"; \d[\d.,]* ?(s|minutes?)$", re.M), "; …"),  # tune's closing wall time
    (re.compile(r"/\S*/balancelab-[a-z0-9_]+/"), "/tmp/balancelab-…/"),  # a temporary folder
)


def _normalise(text: str) -> str:
    lines = [ln.rstrip() for ln in text.splitlines() if not PROGRESS.search(ln)]
    out = "\n".join(lines)
    for pattern, repl in MACHINE_DEPENDENT:
        out = pattern.sub(repl, out)
    return out


def _output(args: list[str], folder: str) -> tuple[int, str]:
    """Run ``python ARGS`` in ``folder`` as a user's terminal would, 80 columns wide: the
    exit code and what it printed (stdout and stderr in the order printed)."""
    # BALANCELAB_PURE_PYTHON=1 at run time only hides the note that an install is pure Python
    env = {**os.environ, "COLUMNS": str(WIDTH), "NO_COLOR": "1", "TERM": "dumb",
           "PYTHONUNBUFFERED": "1", "BALANCELAB_PURE_PYTHON": "1", "PYTHONPATH": str(ROOT)}
    env.pop("FORCE_COLOR", None)
    done = subprocess.run([sys.executable, *args], cwd=folder, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, timeout=900)
    return done.returncode, done.stdout


def run(example: Example) -> str:
    """The transcript of ``example``: each shown step as ``$ balancelab ARGS`` and its output,
    normalised (a step's exit code is not shown; a hidden step must succeed); or the output
    of its page's python block."""
    parts: list[str] = []
    with tempfile.TemporaryDirectory(prefix="balancelab-docs-") as folder:
        for name, text in example.files:
            Path(folder, name).write_text(text)
        if example.page:
            code, out = _output(["-c", page_block(example.page, "python")], folder)
            if code:
                raise SystemExit(f"{example.name}: docs/{example.page} failed:\n{out}")
            return _normalise(out) + "\n"
        for step in example.hidden + example.steps:
            code, out = _output(["-m", "balancelab", *shlex.split(step)], folder)
            if step in example.hidden:
                if code:
                    raise SystemExit(f"{example.name}: '{step}' failed:\n{out}")
                continue
            output = _normalise(out)
            lines = output.splitlines()
            if example.head and step == example.steps[-1] and len(lines) > example.head:
                end = lines[len(lines) - example.tail:] if example.tail else []
                output = "\n".join([*lines[:example.head], "...", *end])
            parts.append(f"$ balancelab {step}\n{output}".rstrip())
        path, count = example.report
        if path:
            head = Path(folder, path).read_text().splitlines()[:count]
            parts.append(f"$ head -n {count} {path}\n" + "\n".join(head).rstrip())
    return "\n".join(parts) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if a committed output differs from a fresh one")
    parser.add_argument("--write", action="store_true",
                        help="with --check: write the fresh outputs and only warn (CI: the site "
                             "shows what the code prints even when a committed copy lags)")
    parser.add_argument("--only", action="append", default=[], metavar="NAME")
    args = parser.parse_args(argv)
    names = {e.name for e in EXAMPLES}
    unknown = set(args.only) - names
    if unknown:
        parser.error(f"unknown example(s) {sorted(unknown)}; examples: {', '.join(sorted(names))}")
    stale: list[str] = []
    for example in EXAMPLES:
        if args.only and example.name not in args.only:
            continue
        start = time.perf_counter()
        text = run(example)
        path = OUT / f"{example.name}.txt"
        took = time.perf_counter() - start
        if args.check:
            old = path.read_text() if path.exists() else ""
            if old != text:
                stale.append(example.name)
                sys.stdout.writelines(difflib.unified_diff(
                    old.splitlines(True), text.splitlines(True), f"{path} (committed)",
                    f"{path} (now)"))
            print(f"{example.name}: {'differs' if old != text else 'same'} ({took:.1f} s)")
        if args.write or not args.check:
            OUT.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
            if not args.check:
                print(f"{example.name}: wrote {path.relative_to(ROOT)} ({took:.1f} s)")
    if stale:
        print(f"{'warning' if args.write else 'error'}: stale example output(s): "
              f"{', '.join(stale)}; regenerate with: python docs/gen_examples.py and commit",
              file=sys.stderr)
        return 0 if args.write else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
