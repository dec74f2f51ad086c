"""Reports: Markdown and self-contained HTML pages with tables and plots, from run folders.

``write_report(run_dirs, out)`` reports one run, or compares several against the first;
``build_run_report`` gives the document before rendering. Same data → same bytes.
"""

from balancelab.reports.render import (
    Report,
    ReportPaths,
    build_compare_report,
    build_run_report,
    to_html,
    to_markdown,
    write,
    write_report,
)

__all__ = [
    "Report", "ReportPaths", "build_compare_report", "build_run_report", "to_html",
    "to_markdown", "write", "write_report",
]
