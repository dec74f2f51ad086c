"""The page builder: a report as a document (:class:`Report`: sections of paragraphs,
:class:`Table` and :class:`Image`), rendered as Markdown and as one self-contained HTML page,
and written to a folder.

Same data → same bytes: nothing time-dependent is written (no dates, no wall times), and the
figures are PNGs without ``Software`` metadata. Layout written to ``<out>/``::

    report.md      Markdown, images referenced as files next to it
    report.html    one page, images inline (base64), no network
    *.png          the figures
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from balancelab.reports import plots

# -- the document model ------------------------------------------------------------------------


@dataclass
class Table:
    title: str
    frame: pl.DataFrame  # already formatted: every column a string
    note: str = ""


@dataclass
class Image:
    name: str
    png: bytes = field(repr=False)
    caption: str


@dataclass
class Section:
    title: str
    blocks: list[str | Table | Image] = field(default_factory=list)


@dataclass
class Report:
    """A report before rendering.

    A report with an ``answer`` opens with its ``question``, the ``short`` answer (at most
    two lines) and the answer's blocks (a compact table, a plot); its ``headline`` sentences,
    warnings aside, and every section follow under "Details" (collapsed in HTML).
    """

    title: str
    headline: list[str]
    warnings: list[str]
    sections: list[Section]
    question: str = ""
    short: str = ""
    answer: list[str | Table | Image] = field(default_factory=list)

    def images(self) -> list[Image]:
        return [b for b in self.answer if isinstance(b, Image)] + [
            b for s in self.sections for b in s.blocks if isinstance(b, Image)]

    def __repr__(self) -> str:
        """The title, the answers and the warnings in a few lines (no image bytes)."""
        lines = [f"<Report {self.title!r}: {len(self.sections)} sections, "
                 f"{len(self.images())} plots>"]
        lines += [f"  {h}" for h in self.headline]
        lines += [f"  Warning: {w}" for w in self.warnings]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The report as HTML for Jupyter: the body of the page :func:`to_html` writes, in a
        ``<div class="balancelab-report">`` whose style applies to it alone (the page's
        style would restyle the whole notebook)."""
        body = to_html(self).split("<body>", 1)[1].rsplit("</body>", 1)[0]
        return f'<div class="{_SCOPE}"><style>{_scoped_css()}</style>{body}</div>'


@dataclass
class ReportPaths:
    """Where a report was written, and its headline (printed by the CLI)."""

    headline: str
    markdown: Path
    html: Path
    figures: list[Path]

def figure(name: str, fig: Any, caption: str) -> Image:
    return Image(name, plots.png_bytes(fig), caption)

def _md_table(t: Table) -> str:
    cols = t.frame.columns
    esc = [c.replace("|", "\\|") for c in cols]
    lines = [f"**{t.title}**", "", "| " + " | ".join(esc) + " |",
             "|" + "|".join("---" for _ in cols) + "|"]
    for row in t.frame.iter_rows():
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    if t.note:
        lines += ["", t.note]
    return "\n".join(lines)


def md_blocks(blocks: list[str | Table | Image]) -> list[str]:
    """A section's blocks as Markdown lines (a table under its bold title, an image by its
    file name, text as a paragraph)."""
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Table):
            out += [_md_table(b), ""]
        elif isinstance(b, Image):
            out += [f"![{b.caption}]({b.name})", ""]
        elif b:
            out += [b, ""]
    return out


def in_short(text: str) -> str:
    """``text`` opening with "In short: " (once)."""
    return text if text.startswith("In short") else f"In short: {text}"


def page_title(report: Report) -> str:
    """The page's title: the question a report answers (``2001: how does each HAL
    difficulty step ...``), else its own title (a run's, when it answers no question)."""
    return report.question if report.answer and report.question else report.title


def to_markdown(report: Report) -> str:
    """The report as Markdown; figures referenced as ``<name>.png`` next to the file.

    A report with an answer opens with the question, "In short" and the answer's table and
    plot; the rest follows under "Details"."""
    if report.answer and report.question:  # the question heads the page; what ran under it
        out = [f"# {report.question}", "", f"_{report.title}_", ""]
    else:
        out = [f"# {report.title}", ""]
    if report.answer:
        if report.short:
            out += [in_short(report.short), ""]
        out += md_blocks(report.answer)
        out += [f"> **Warning.** {w}\n" for w in report.warnings]
        out += ["## Details", ""]
        for s in report.sections:
            out += [f"### {s.title}", ""] + md_blocks(s.blocks)
        return "\n".join(out).rstrip() + "\n"
    out += ["## Answers", ""]
    out += [f"- {h}" for h in report.headline] or ["- (no games)"]
    if report.warnings:
        out += ["", "## Warnings", ""] + [f"- **Warning.** {w}" for w in report.warnings]
    for s in report.sections:
        out += ["", f"## {s.title}", ""] + md_blocks(s.blocks)
    return "\n".join(out).rstrip() + "\n"


CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;max-width:1100px;margin:1em auto;
padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.35em;margin:.3em 0} .question{font-size:1.1em;font-weight:600;margin:.4em 0}
.what{color:#666;margin:0 0 .6em}
.short{margin:.3em 0 .6em}
table{border-collapse:collapse;margin:.4em 0 1em;font-size:.85em;display:block;max-width:100%;
overflow-x:auto}
th,td{border:1px solid #ccc;padding:.2em .45em;text-align:left;vertical-align:top}
th{background:#f2f2f2} .answers li{margin:.3em 0} .warn{background:#fff4e5;border-left:4px solid
#f0a000;padding:.4em .8em;margin:.4em 0;font-size:.9em} figure{margin:.6em 0}
figcaption{font-size:.85em;color:#555} img{max-width:100%} .answer img{max-height:360px}
details{margin:.3em 0;border-top:1px solid #ddd;padding-top:.3em}
summary{cursor:pointer;font-weight:600;font-size:1.05em} code{background:#f4f4f4;padding:0 .2em}
""".strip()

_CODE = re.compile(r"`([^`]+)`")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def inline_html(text: str) -> str:
    """A paragraph's Markdown inline marks as HTML: ```code``` → ``<code>``, ``[text](x.md)``
    → a link (to the ``.html`` page beside a ``.md`` one); everything else escaped."""
    out, pos = [], 0
    for m in re.finditer(f"{_CODE.pattern}|{_LINK.pattern}", text):
        out.append(html.escape(text[pos:m.start()]))
        if m.group(1) is not None:
            out.append(f"<code>{html.escape(m.group(1))}</code>")
        else:
            href, label = m.group(3), m.group(2)
            if href.endswith(".md"):  # the page beside it, named as it is
                href = href[:-3] + ".html"
                label = label[:-3] + ".html" if label.endswith(".md") else label
            out.append(f'<a href="{html.escape(href)}">{html.escape(label)}</a>')
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _html_blocks(blocks: list[str | Table | Image]) -> list[str]:
    e = html.escape
    out: list[str] = []
    for b in blocks:
        if isinstance(b, Table):
            out.append(f"<h3>{e(b.title)}</h3><table><thead><tr>"
                       + "".join(f"<th>{e(c)}</th>" for c in b.frame.columns)
                       + "</tr></thead><tbody>")
            for row in b.frame.iter_rows():
                out.append("<tr>" + "".join(f"<td>{e(str(v))}</td>" for v in row) + "</tr>")
            out.append("</tbody></table>")
            if b.note:
                out.append(f"<p>{inline_html(b.note)}</p>")
        elif isinstance(b, Image):
            data = base64.b64encode(b.png).decode("ascii")
            out.append(f'<figure><img alt="{e(b.caption)}" '
                       f'src="data:image/png;base64,{data}">'
                       f"<figcaption>{e(b.caption)}</figcaption></figure>")
        elif b:
            out.append(f"<p>{inline_html(b)}</p>")
    return out


#: The class of the element holding a report shown in Jupyter (:meth:`Report._repr_html_`).
_SCOPE = "balancelab-report"


def _scoped_css() -> str:
    """The page's style, each rule applied only inside the ``_SCOPE`` element."""
    import re

    rules = []
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", CSS):
        scoped = [f".{_SCOPE}" if sel.strip() == "body" else f".{_SCOPE} {sel.strip()}"
                  for sel in selectors.split(",")]
        rules.append(f"{','.join(scoped)}{{{body}}}")
    return "\n".join(rules)


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (images inline as base64, no network).

    A report with an answer opens with the question, "In short", the answer's table and
    plot, and the warnings; every other section is collapsed (``<details>``)."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(page_title(report))}</title><style>{CSS}</style></head><body>"]
    if report.answer and report.question:  # the question heads the page; what ran under it
        out += [f'<h1>{inline_html(report.question)}</h1>',
                f'<p class="what">{e(report.title)}</p>']
    else:
        out.append(f"<h1>{e(report.title)}</h1>")
    warns = [f'<div class="warn"><strong>Warning.</strong> {inline_html(w)}</div>'
             for w in report.warnings]
    if report.answer:
        if report.short:
            short = report.short.removeprefix("In short: ")
            out.append(f'<p class="short"><strong>In short:</strong> {inline_html(short)}</p>')
        out.append('<div class="answer">')
        out += _html_blocks(report.answer)
        out.append("</div>")
        out += warns
        out.append("<h2>Details</h2>")
        for s in report.sections:
            out.append(f"<details><summary>{e(s.title)}</summary>")
            out += _html_blocks(s.blocks)
            out.append("</details>")
    else:
        out += ["<h2>Answers</h2>", '<ul class="answers">']
        out += [f"<li>{inline_html(h)}</li>" for h in report.headline]
        out.append("</ul>")
        if warns:
            out += ["<h2>Warnings</h2>", *warns]
        for s in report.sections:
            out.append(f"<h2>{e(s.title)}</h2>")
            out += _html_blocks(s.blocks)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write(report: Report, out: Path) -> ReportPaths:
    """Write ``report.md``, ``report.html`` and the PNGs into ``out``.

    Raises:
        ValueError: ``out`` exists and is not a folder.
        OSError: the folder cannot be written.
    """
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"{str(out)!r} is a file; --out takes a folder for the report")
    out.mkdir(parents=True, exist_ok=True)
    figs = []
    for img in report.images():
        p = out / img.name
        p.write_bytes(img.png)
        figs.append(p)
    md = out / "report.md"
    md.write_text(to_markdown(report), encoding="utf-8")
    page = out / "report.html"
    page.write_text(to_html(report), encoding="utf-8")
    first = ([report.question, in_short(report.short)] if report.short else
             [report.question]) if report.answer else report.headline
    head = "\n".join(first + [f"Warning: {w}" for w in report.warnings])
    return ReportPaths(head, md, page, figs)
