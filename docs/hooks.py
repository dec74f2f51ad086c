"""mkdocs hook: the API reference shows the docstrings' Sphinx roles as plain code.

The docstrings are Google style with Sphinx cross-reference roles (``:func:`sweep```,
``:class:`~balancelab.simulate.core.Game```) and ``::`` before literal blocks; mkdocstrings
renders a role as ``:func:<code>sweep</code>``. This keeps the code and drops the role (a
``~`` keeps the last dotted name, as Sphinx shows it), and turns a paragraph's closing ``::``
into ``:``.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj):<code>(~?)([^<]*)</code>")


def _code(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"<code>{name.rsplit('.', 1)[-1] if match.group(1) else name}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    """Drop the roles and the literal-block markers from a page's HTML."""
    html = ROLE.sub(_code, html)
    html = html.replace("<p>::</p>", "")
    return re.sub(r"::</p>", ":</p>", html)
