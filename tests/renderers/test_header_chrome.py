"""Page headers: a long organisation name never runs into the title beside it (lint's overlap check found an
ellipsised name drawn over the title in a logo-block header)."""

from __future__ import annotations

import io

import pymupdf
from reportlab.pdfgen.canvas import Canvas

from synthdocqa.renderers.layout.layouts import default_library
from synthdocqa.renderers.pdf.chrome import DocInfo, draw_header
from synthdocqa.renderers.pdf.ctx import DrawCtx
from synthdocqa.renderers.pdf.theme import theme_for


def _spans(layout, organisation: str, title: str) -> list[tuple[tuple[float, ...], str]]:
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(layout.width, layout.height), invariant=1)
    theme = theme_for(layout)
    info = DocInfo(doc_id="doc-00000", title=title, organisation=organisation, address="1 Main Street\nBerlin",
                   logo_seed=7, reference="AM-2025-37225")
    draw_header(DrawCtx(c, layout.width, layout.height, 1), theme.for_text(title + organisation), info, 1)
    c.showPage()
    c.save()
    with pymupdf.open(stream=buf.getvalue(), filetype="pdf") as d:
        return [(tuple(s["bbox"]), s["text"]) for b in d[0].get_text("dict")["blocks"] for ln in b.get("lines", [])
                for s in ln["spans"]]


def test_a_long_organisation_name_stops_short_of_the_title_in_every_header_variant():
    lib = default_library()
    seen = set()
    for layout in lib:
        if layout.header in seen:
            continue
        seen.add(layout.header)
        spans = _spans(layout, "Thornbury Asset Management Global Investment Partners GmbH",
                       "Mandate Compliance: An Analysis of Fund Data")
        for i, (a, ta) in enumerate(spans):
            for b, tb in spans[i + 1:]:
                apart = a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5
                assert apart, f"{layout.header}: {ta!r} drawn over {tb!r}"
        if len(seen) == 5:
            break
    assert "logo_block" in seen
