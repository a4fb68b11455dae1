"""The confidentiality line of a layout's footer is drawn only on a document marked confidential
(``DocumentIR.confidential``): an invoice on a layout with a confidential footer prints its page number alone."""

from __future__ import annotations

import io

import pymupdf
import pytest
from reportlab.pdfgen.canvas import Canvas

from synthdocqa.renderers.layout.layouts import default_library
from synthdocqa.renderers.pdf.chrome import DocInfo, draw_footer
from synthdocqa.renderers.pdf.ctx import DrawCtx
from synthdocqa.renderers.pdf.theme import theme_for


def _footer_text(layout, confidential: bool) -> str:
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(layout.width, layout.height), invariant=1)
    info = DocInfo(doc_id="doc-00000", title="Invoice INV-1", organisation="Acme Ltd", address="1 Main Street\nBerlin",
                   logo_seed=7, reference="INV-2025-1", confidential=confidential)
    draw_footer(DrawCtx(c, layout.width, layout.height, 1), theme_for(layout).for_text("x"), info, 2, 3)
    c.showPage()
    c.save()
    with pymupdf.open(stream=buf.getvalue(), filetype="pdf") as d:
        return d[0].get_text()


@pytest.mark.parametrize("footer", ["confidentiality", "page_number_confidentiality"])
def test_the_confidentiality_line_only_on_a_confidential_document(footer):
    layout = next(lay for lay in default_library() if lay.footer == footer)
    assert "CONFIDENTIAL" in _footer_text(layout, True)
    unmarked = _footer_text(layout, False)
    assert "CONFIDENTIAL" not in unmarked and "Page 2 of 3" in unmarked
