"""Reports: Markdown and self-contained HTML pages with tables and plots, from run folders.

``write_report(run_dirs, out)`` reports one run, or compares several against the first;
``build_run_report`` gives the document before rendering. Same data → same bytes.

The modules: :mod:`.page` (the document model, Markdown, HTML, writing), :mod:`.formatting`
(numbers), :mod:`.words` (names in words), :mod:`.sentences`, :mod:`.tables`, :mod:`.answer`
(the compact answer and "In short"), :mod:`.plots`, :mod:`.games` (each game's own part), and
one module per report kind: :mod:`.run_report` and :mod:`.compare_report`.
"""

from balancelab.reports.compare_report import build_compare_report, write_report
from balancelab.reports.page import Report, ReportPaths, to_html, to_markdown, write
from balancelab.reports.run_report import build_run_report

__all__ = [
    "Report", "ReportPaths", "build_compare_report", "build_run_report", "to_html",
    "to_markdown", "write", "write_report",
]
