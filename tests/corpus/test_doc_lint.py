"""Document-level lint: a whole document passes, and each check fails on the defect it is for, planted."""

from __future__ import annotations

import pymupdf
import pytest

from synthdocqa.corpus.assemble import complete_ir, render
from synthdocqa.corpus.views.doc_lint import body_families, document_problems, prose_share, read_spans
from synthdocqa.generation.content.front_matter import contents_table, printed_pages, with_start_pages
from synthdocqa.ir.blocks import HeadingBlock, Span, TableBlock, TextBlock
from synthdocqa.ir.rendermap import RenderMap
from synthdocqa.ir.spec import PageCountDist, reference_spec


@pytest.fixture(scope="module")
def rendered():
    """A short report with front matter (cover, contents, numbered sections), rendered."""
    spec = reference_spec(seed=5, n_docs=1).model_copy(update={
        "recipes": ["compliance_report"], "pages": PageCountDist(mean=9, sigma=0, min=9, max=9)})
    return render(complete_ir(spec, 0))


def _checks(doc, rmap, pdf) -> set[str]:
    return {p.check for p in document_problems(doc.doc_id, doc, rmap, pdf)}


def _extra_page_block(doc, block):
    """The IR with ``block`` appended to its last page."""
    last = doc.pages[-1]
    return doc.model_copy(update={"pages": [*doc.pages[:-1], last.model_copy(update={"blocks": [*last.blocks,
                                                                                                block]})]})


def test_a_rendered_report_with_front_matter_is_clean(rendered):
    doc = rendered.doc
    assert contents_table(doc) is not None and len(printed_pages(doc)) >= 3
    assert document_problems(doc.doc_id, doc, rendered.render_map, rendered.pdf) == []
    assert 0.0 < prose_share(rendered.render_map) < 1.0


def test_wrong_contents_page_is_caught(rendered):
    doc = rendered.doc
    fid, page = next(iter(printed_pages(doc).items()))
    wrong = with_start_pages(doc, {fid: page + 1})
    assert "contents_page" in _checks(wrong, rendered.render_map, rendered.pdf)


def test_two_paper_sizes_are_caught(rendered):
    with pymupdf.open(stream=rendered.pdf, filetype="pdf") as d:
        d[1].set_mediabox(pymupdf.Rect(0, 0, 612, 1008))  # a legal-size page
        pdf = d.tobytes()
    assert "page_size" in _checks(rendered.doc, rendered.render_map, pdf)


def test_too_many_body_font_families_are_caught(rendered):
    spans = read_spans(rendered.pdf)
    fams = body_families(rendered.render_map, spans)
    assert 1 <= len(fams) <= 3
    planted = [[(b, t, f"Planted{i % 4}-Regular", s) for i, (b, t, _f, s) in enumerate(page)] for page in spans]
    assert len(body_families(rendered.render_map, planted)) == 4


def test_a_repeated_table_and_caption_are_caught(rendered):
    doc = rendered.doc
    table = next(b for _, b in doc.blocks() if b.type == "table" and b.caption.startswith("Table "))
    copy = table.model_copy(update={"id": "b999", "caption": "Table 99." + table.caption.split(".", 1)[1]})
    checks = _checks(_extra_page_block(doc, copy), rendered.render_map, rendered.pdf)
    assert {"repeated_rows", "repeated_caption", "unreferenced_exhibit"} <= checks


def test_an_empty_section_is_caught(rendered):
    doc = rendered.doc
    heading = HeadingBlock(id="b998", level=1, spans=[Span(text="9 Appendix")])
    assert "empty_section" in _checks(_extra_page_block(doc, heading), rendered.render_map, rendered.pdf)


def test_an_unreferenced_exhibit_is_caught(rendered):
    doc = rendered.doc
    table = TableBlock(id="b997", caption="Table 98. Planted schedule", columns=["Item", "Value"],
                       rows=[[Span(text="a"), Span(text="1")]])
    assert "unreferenced_exhibit" in _checks(_extra_page_block(doc, table), rendered.render_map, rendered.pdf)
    said = TextBlock(id="b996", spans=[Span(text="Table 98 lists the planted schedule.")])
    fixed = _extra_page_block(_extra_page_block(doc, table), said)
    assert "unreferenced_exhibit" not in _checks(fixed, rendered.render_map, rendered.pdf)


def test_prose_share_outside_the_recipe_range_is_caught(rendered):
    rmap = rendered.render_map
    no_prose = RenderMap.model_validate({**rmap.model_dump(), "blocks": [
        b.model_dump() for b in rmap.blocks if b.block_type not in ("text_block", "list")]})
    assert prose_share(no_prose) == 0.0
    assert "prose_share" in _checks(rendered.doc, no_prose, rendered.pdf)


def test_a_heading_set_a_word_a_line_in_a_narrow_column_is_found_on_its_page(rendered):
    """An auditor's report heading in a narrow column wraps into a line per word ("9" / "Independent" /
    "Auditor's" / "Report"): the contents check still finds the page it is drawn on."""
    from synthdocqa.corpus.views.doc_lint import heading_pages
    from synthdocqa.generation.content.front_matter import heading_text, numbered_headings

    doc = rendered.doc
    wanted = max((heading_text(h) for _, h in numbered_headings(doc.pages[2:])), key=lambda t: len(t.split()))
    words = wanted.split()
    assert len(words) >= 3
    page = [((51.0, 80.0 + 22 * i, 51.0 + 9 * len(w), 100.0 + 22 * i), w, "F-Bold", 19.6) for i, w in enumerate(words)]
    assert heading_pages(doc, [[], [], page])[wanted] == 3
    shuffled = [page[0], page[2], *page[3:]]  # a word missing: not that heading
    assert wanted not in heading_pages(doc, [[], [], shuffled])
