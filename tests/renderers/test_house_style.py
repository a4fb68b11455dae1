"""One house style per document: one paper size (the issuing organisation's) and one set of fonts and
colours on every page, while each page keeps the geometry its layout gives it."""

from __future__ import annotations

import re

import pymupdf
import pytest

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import demo_spec, reference_spec
from synthdocqa.renderers import render_document
from synthdocqa.renderers.layout.layouts import PAGE_SIZES, LayoutLibrary
from synthdocqa.renderers.pdf.fonts import HANDWRITING_FAMILY, SIGNATURE_FAMILY
from synthdocqa.renderers.pdf.render import house_layouts

HAND = (HANDWRITING_FAMILY, SIGNATURE_FAMILY)


def _text_families(pdf: bytes) -> set[str]:
    """Font families carrying text (subset prefix and style suffix dropped; handwriting faces apart)."""
    out = set()
    with pymupdf.open(stream=pdf, filetype="pdf") as d:
        for page in d:
            for _, _, _, name, *_ in page.get_fonts():
                fam = re.split(r"[-,]", name.split("+")[-1])[0]
                if not fam.startswith(HAND):
                    out.add(fam)
    return out


@pytest.mark.parametrize("spec", [demo_spec(31, 6), reference_spec(32, 2)], ids=["demo", "reference"])
def test_every_page_of_a_document_has_its_paper_and_its_fonts(spec):
    for i in range(spec.n_docs):
        doc = plan_document(spec, i)
        issuer = next(e for e in doc.entities if e.kind == "organisation")
        assert doc.page_size == ("Letter" if issuer.attributes["country"] == "United States" else "A4")
        res = render_document(doc)
        assert {(p.width, p.height) for p in res.render_map.pages} == {PAGE_SIZES[doc.page_size]}
        # a body and a heading family (and the fallback face for a glyph they lack)
        assert len(_text_families(res.pdf)) <= 3, (doc.doc_id, _text_families(res.pdf))


def _relative(lay):
    """Slots as fractions of the layout's body: the arrangement, whatever the frame."""
    b = lay.body
    w, h = b[2] - b[0], b[3] - b[1]
    return [((s.bbox[0] - b[0]) / w, (s.bbox[1] - b[1]) / h, (s.bbox[2] - b[0]) / w, (s.bbox[3] - b[1]) / h)
            for s in lay.slots]


def test_house_layouts_take_one_paper_one_style_one_frame_and_keep_each_arrangement():
    lib = LayoutLibrary(seed=7, count=60)
    a4 = next(lay for lay in lib if lay.page_size == "A4" and lay.header == "letterhead")
    letter = next(lay for lay in lib if lay.page_size == "Letter" and lay.style != a4.style
                  and lay.footer != a4.footer and lay.margins != a4.margins)
    doc = plan_document(demo_spec(3, 1), 0).model_copy(update={"page_size": "Letter"})
    out = house_layouts(doc, [a4, letter, letter])
    assert [(lay.width, lay.height) for lay in out] == [PAGE_SIZES["Letter"]] * 3
    assert out[0].style == out[1].style == a4.style  # the first page's style is the house's
    # the first page's furniture everywhere: its footer and margins; a running title after its letterhead
    assert {lay.footer for lay in out} == {a4.footer}
    assert out[0].header == "letterhead" and {out[1].header, out[2].header} == {"running_title"}
    assert out[1].margins == out[2].margins and out[1].margins.left == out[0].margins.left
    # each page keeps the arrangement retrieval chose for it, mapped onto the house body
    for before, after in ((a4, out[0]), (letter, out[1])):
        assert _relative(after) == [pytest.approx(r, abs=0.002) for r in _relative(before)]
    assert out[1].body[1] == pytest.approx(out[1].margins.top + out[1].header_height)


def test_front_matter_is_set_full_width_and_body_pages_keep_their_arrangement():
    from synthdocqa.ir.spec import PageCountDist

    spec = reference_spec(seed=5, n_docs=1).model_copy(update={
        "recipes": ["compliance_report"], "pages": PageCountDist(mean=9, sigma=0, min=9, max=9)})
    doc = plan_document(spec, 0)
    assert [p.role for p in doc.pages[:3]] == ["cover", "contents", "body"]
    lib = LayoutLibrary(seed=7, count=60)
    sidebar = next(lay for lay in lib if len(lay.slots) >= 2)
    out = house_layouts(doc, [sidebar] * len(doc.pages))
    for lay in out[:2]:
        assert len(lay.slots) == 1 and list(lay.slots[0].bbox) == list(lay.body)
    assert len(out[2].slots) == len(sidebar.slots)
