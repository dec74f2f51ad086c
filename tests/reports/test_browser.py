"""Each game's HTML report in a real browser (Debian's Chromium, headless, driven by
playwright): every image loads and nothing is wider than the page.

Runs by default where ``/usr/bin/chromium`` and the ``playwright`` package are installed
(``.ci/run`` installs both), skips elsewhere; ``-m "not browser"`` deselects it.

As a script it checks reports already written and keeps a screenshot of each one's first
screen (how ``docs/screenshots/`` was made)::

    python tests/reports/test_browser.py --out docs/screenshots odyssey=runs/RUN/report/report.html
"""

from __future__ import annotations

import argparse
import io
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
#: a laptop's screen: the first screen of a report, as the screenshots show it
SCREEN = {"width": 1280, "height": 800}
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"no Chromium at {CHROMIUM}"),
]

#: a narrow window (a tablet, half a laptop screen): wide tables scroll in their own box
NARROW = {"width": 800, "height": 800}
#: what the page says about itself: the viewport, the page's width, each image's natural
#: size, and every element reaching past the viewport's right (or left) edge (the contents
#: of a box that scrolls sideways are reachable, so they do not count)
MEASURE = """() => {
  const vw = document.documentElement.clientWidth;
  const wide = [];
  const scrolls = (el) => {  // inside a box that scrolls sideways: reachable, not past
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(a).overflowX)) return true;
    return false;
  };
  for (const el of document.body.querySelectorAll('*')) {
    if (scrolls(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5))
      wide.push(`${el.tagName} ${Math.round(r.left)}-${Math.round(r.right)}: `
                + (el.getAttribute('alt') || el.textContent || '').slice(0, 60));
  }
  return {viewport: vw, scroll_width: document.documentElement.scrollWidth,
          images: [...document.images].map(i => ({alt: i.alt, complete: i.complete,
                                                   width: i.naturalWidth})),
          too_wide: wide};
}"""


@contextmanager
def browser() -> Iterator[Any]:
    """Headless Chromium with a new empty profile (playwright never downloads a browser
    here: it drives the system's)."""
    sync = pytest.importorskip("playwright.sync_api")
    with tempfile.TemporaryDirectory() as profile, sync.sync_playwright() as p:
        ctx = p.chromium.launch_persistent_context(
            profile, executable_path=str(CHROMIUM), headless=True, args=FLAGS,
            viewport=SCREEN, offline=True)
        try:
            yield ctx
        finally:
            ctx.close()


def measure(ctx: Any, page: Path, screenshot: Path | None = None) -> dict[str, Any]:
    """Open ``page`` (a file) at :data:`SCREEN`, wait for its images, and measure it;
    ``screenshot``: keep its first screen as a PNG (256 colours: small)."""
    tab = ctx.new_page()
    try:
        tab.goto(page.resolve().as_uri(), wait_until="load")
        out: dict[str, Any] = tab.evaluate(MEASURE)
        if screenshot is not None:
            from PIL import Image

            png = tab.screenshot(full_page=False)
            Image.open(io.BytesIO(png)).convert("RGB").quantize(256).save(
                screenshot, optimize=True)
        return out
    finally:
        tab.close()


def problems(m: dict[str, Any]) -> list[str]:
    """What is wrong on a measured page, in words (empty: nothing)."""
    out = [f"image {i['alt']!r} did not load" for i in m["images"]
           if not (i["complete"] and i["width"] > 0)]
    if m["scroll_width"] > m["viewport"]:
        out.append(f"the page is {m['scroll_width']} px wide in a {m['viewport']} px window")
    out += [f"past the window's edge: {w}" for w in m["too_wide"]]
    return out


# -- the test: a small run of each game, reported, opened ---------------------------------------

#: a small sweep per game (a heat map, the comparisons, the game's own sections and plots)
RUNS = {
    "odyssey": {"crew": [2, 3], "hal_extra_turns": [0, 1]},
    "iss": {"players": [1, 2, 4], "remove_shuttles": [False, True]},
    "obcy": {"queen_variant": ["roll", "tasks"]},
}


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from balancelab.questions import sweep as sweeps
    from balancelab.questions.inputs import load_game
    from balancelab.reports import write_report

    root = tmp_path_factory.mktemp("browser")
    out = {}
    for game, grid in RUNS.items():
        run = root / game
        sweeps.sweep(load_game(game), grid, run, games=30, jobs=1, seed=5)
        out[game] = write_report(run).html
    return out


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    with browser() as ctx:
        yield ctx


@pytest.mark.parametrize("game", list(RUNS))
def test_every_image_loads_and_nothing_overflows(reports: dict[str, Path], chromium: Any,
                                                 game: str, tmp_path: Path) -> None:
    shot = tmp_path / f"{game}.png"
    m = measure(chromium, reports[game], shot)
    assert m["viewport"] == SCREEN["width"]
    assert len(m["images"]) >= 5  # win rates, outcomes, comparisons, length…
    assert problems(m) == []
    assert shot.stat().st_size > 10_000  # a screen with something drawn on it


@pytest.mark.parametrize("game", list(RUNS))
def test_a_narrow_window_scrolls_wide_tables_in_their_own_box(
        reports: dict[str, Path], chromium: Any, game: str) -> None:
    tab = chromium.new_page()
    try:
        tab.set_viewport_size(NARROW)
        tab.goto(reports[game].resolve().as_uri(), wait_until="load")
        m = tab.evaluate(MEASURE)
    finally:
        tab.close()
    assert m["viewport"] == NARROW["width"]
    assert problems(m) == []


def test_the_checks_see_a_broken_image_and_a_wide_table(chromium: Any, tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text('<!DOCTYPE html><html><body style="margin:0">'
                    '<img alt="gone" src="data:image/png;base64,AAAA">'
                    '<table><tr><td style="white-space:nowrap">' + "wide " * 600
                    + "</td></tr></table></body></html>")
    found = problems(measure(chromium, page))
    assert "image 'gone' did not load" in found
    assert any(f.startswith("the page is ") for f in found)
    assert any(f.startswith("past the window's edge: TD") for f in found)


# -- as a script: check written reports and keep their first screens ---------------------------


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reports", nargs="+", help="NAME=path/to/report.html")
    ap.add_argument("--out", type=Path, required=True, help="folder for NAME.png")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    bad = 0
    with browser() as ctx:
        for item in args.reports:
            name, _, path = item.partition("=")
            shot = args.out / f"{name}.png"
            found = problems(measure(ctx, Path(path), shot))
            bad += len(found)
            print(f"{name}: {shot} ({shot.stat().st_size:,} bytes); "
                  + ("; ".join(found) if found else "every image loads, nothing overflows"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
