"""HTML for the judge reports through one autoescaping template, so no value reaches the page unescaped.

Labeler names, error types, exclusions and rubric columns come from user files; the template escapes
every one of them. Images are inlined as PNG data URIs.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass, field

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

_ENV = Environment(loader=PackageLoader("synthdocqa.judges", "templates"), autoescape=select_autoescape(default=True),
                   undefined=StrictUndefined, keep_trailing_newline=True)


@dataclass
class Section:
    title: str | None = None
    paras: Sequence[str] = ()
    items: Sequence[str] = ()
    images: Sequence[dict[str, str]] = ()
    tables: Sequence[dict[str, Sequence]] = field(default_factory=list)


def md_escape(text: str) -> str:
    """Text for a Markdown page, where a viewer renders inline HTML: ``&``, ``<`` and ``>`` as entities, so a name
    like ``llm_a<svg onload=...>`` shows as text (the HTML pages are escaped by the template engine)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_cell(text: str) -> str:
    """A Markdown table cell: ``md_escape`` and the column separator escaped."""
    return md_escape(text).replace("|", "\\|")


def png_image(name: str, png: bytes) -> dict[str, str]:
    return {"name": name, "uri": "data:image/png;base64," + base64.b64encode(png).decode("ascii")}


def table(head: Sequence[str], rows: Sequence[Sequence[str]]) -> dict[str, Sequence]:
    return {"head": list(head), "rows": [list(r) for r in rows]}


def render_page(title: str, css: str, intro: Sequence[str], sections: Sequence[Section]) -> str:
    return _ENV.get_template("sections.html.j2").render(title=title, css=css, intro=list(intro),
                                                        sections=list(sections))
