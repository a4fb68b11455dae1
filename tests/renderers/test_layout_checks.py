"""Layout quality as a checked property: each check fails on a planted defect and passes on real documents."""

from __future__ import annotations

import pymupdf
import pytest

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir import (
    AnnotationBlock,
    FigureBlock,
    HeadingBlock,
    PagePlan,
    Series,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.ir.rendermap import RenderedPage, RenderMap, SpanBox
from synthdocqa.ir.spec import demo_spec, reference_spec
from synthdocqa.renderers import render_document, verify_text_layer
from synthdocqa.renderers.layout.layout_checks import LAYOUT_PROBLEM_KINDS, check_layout, count_by_kind
from synthdocqa.renderers.layout.layouts import layout_from_id

from .conftest import DocBuilder

SINGLE = "s20261130-000005"  # Letter, one full-width slot
COLUMNS_3 = "s20261130-000004"  # three columns ~150 pt wide


# ------------------------------------------------------------------------------------------ planted defects
def _pdf(pages: list[list[tuple[float, float, str, float]]], lid: str = SINGLE) -> tuple[bytes, RenderMap]:
    """A PDF with the given (x, baseline, text, size) strings per page, and an empty RenderMap for it."""
    lay = layout_from_id(lid)
    out = pymupdf.open()
    for items in pages:
        page = out.new_page(width=lay.width, height=lay.height)
        for x, y, text, size in items:
            page.insert_text((x, y), text, fontsize=size, fontname="helv")
    pdf = out.tobytes()
    rmap = RenderMap(doc_id="doc-0001", pages=[RenderedPage(page_no=i + 1, width=lay.width, height=lay.height,
                                                            layout_id=lid) for i in range(len(pages))])
    return pdf, rmap


def _filled(top: float = 110, bottom: float = 720, size: float = 9) -> list[tuple[float, float, str, float]]:
    """Lines of prose from ``top`` to ``bottom`` (a full page body)."""
    return [(70, y, "The board reviewed the quarterly figures in detail.", size)
            for y in range(int(top), int(bottom), 14)]


def _ir(pages: list[list]):
    b = DocBuilder()
    doc = b.doc([[] for _ in pages])
    return doc.model_copy(update={"pages": [PagePlan(page_no=i + 1, blocks=blocks) for i, blocks in enumerate(pages)]})


def _kinds(problems) -> dict[str, int]:
    return {k: v for k, v in count_by_kind(problems).items() if v}


def test_overlapping_text_is_found_and_annotations_may_overlap():
    pdf, rmap = _pdf([_filled(110, 700) + [(74, 111, "Figure 2. Valuation of Maple Court", 9)]])
    ir = _ir([[TextBlock(id="b001", spans=[Span(text="The board reviewed the quarterly figures in detail.")])]])
    problems = check_layout(pdf, rmap, ir)
    assert _kinds(problems) == {"overlap": 1}
    assert problems[0].page_no == 1 and "over" in problems[0].message
    # a stamp over the same text is a designed overlay
    b = DocBuilder()
    stamp = AnnotationBlock(id="b002", kind="stamp", spans=[b.span("APPROVED")], rotation=0)
    ir = _ir([[ir.pages[0].blocks[0], stamp]])
    pdf, rmap = _pdf([_filled(110, 700) + [(74, 111, "APPROVED", 14)]])
    rmap.spans.append(SpanBox(block_id="b002", fact_ids=["f0001"], page_no=1, bbox=(74, 100, 150, 114),
                              text="APPROVED"))
    assert _kinds(check_layout(pdf, rmap, ir)) == {}


def test_text_outside_the_page_is_clipped():
    lay = layout_from_id(SINGLE)
    title = "Figure 3. Lettable area by property and quarter"
    pdf, rmap = _pdf([_filled() + [(lay.width - 60, 100, title, 9)]])
    ir = _ir([[FigureBlock(id="b001", chart="bar", title=title, categories=["A"],
                           series=[Series(name="s", points=[Span(text="1")], values=[1.0])])]])
    problems = check_layout(pdf, rmap, ir)
    assert _kinds(problems) == {"clipped": 1}
    assert problems[0].bbox[2] > lay.width
    # a RenderMap span outside the page is clipped too
    pdf, rmap = _pdf([_filled()])
    rmap.spans.append(SpanBox(block_id="b001", fact_ids=["f0001"], page_no=1, bbox=(600, 90, 640, 100), text="1"))
    assert _kinds(check_layout(pdf, rmap, ir)) == {"clipped": 1}


def test_a_number_or_word_broken_across_lines_is_a_mid_token_wrap():
    b = DocBuilder()
    table = TableBlock(id="b001", columns=["Item", "Qty", "Unit price"], rows=[
        [Span(text="Home care"), b.span("27,129"), b.span("EUR 1,320")]], numeric_columns=[1, 2])
    ir = _ir([[table]])
    # the header "Qty" drawn as "Qt" / "y", and a number as "27,1" / "29" (the RenderMap shows the split too)
    pdf, rmap = _pdf([_filled(200, 720) + [(200, 110, "Qt", 9), (200, 121, "y", 9), (300, 110, "27,1", 9),
                                           (300, 121, "29", 9)]])
    rmap.spans += [SpanBox(block_id="b001", fact_ids=["f0001"], page_no=1, bbox=(300, 103, 318, 112), text="27,1"),
                   SpanBox(block_id="b001", fact_ids=["f0001"], page_no=1, bbox=(300, 114, 310, 123), text="29")]
    problems = check_layout(pdf, rmap, ir)
    assert _kinds(problems) == {"mid_token_wrap": 3}
    assert {p.message for p in problems} >= {"'Qt' / 'y' wrapped inside one token", "'27,1' / '29' wrapped inside "
                                             "one token", "fact f0001 drawn as '27,1' / '29'"}
    # breaks at spaces are wraps, not defects ("Unit" / "price", "Home" / "care", "EUR" / "1,320")
    pdf, rmap = _pdf([_filled(200, 720) + [(200, 110, "Unit", 9), (200, 121, "price", 9), (100, 110, "Home", 9),
                                           (100, 121, "care", 9), (300, 110, "EUR", 9), (300, 121, "1,320", 9)]])
    rmap.spans += [SpanBox(block_id="b001", fact_ids=["f0002"], page_no=1, bbox=(300, 103, 318, 112), text="EUR"),
                   SpanBox(block_id="b001", fact_ids=["f0002"], page_no=1, bbox=(300, 114, 322, 123),
                           text="1,320")]
    assert _kinds(check_layout(pdf, rmap, ir)) == {}


def test_a_mostly_empty_page_is_half_empty_unless_it_ends_a_section_or_the_document():
    heading = "Operating review"
    ir = _ir([[TextBlock(id="b001", spans=[Span(text="The board reviewed the quarterly figures in detail.")])],
              [HeadingBlock(id="b002", level=2, spans=[Span(text="Supporting detail")])],
              [HeadingBlock(id="b003", level=1, spans=[Span(text=heading)])]])
    short = _filled(110, 250)
    pdf, rmap = _pdf([short, [(70, 120, "Supporting detail", 14)] + _filled(140), short])
    problems = check_layout(pdf, rmap, ir)
    assert _kinds(problems) == {"half_empty": 1} and problems[0].page_no == 1  # the last page may end short
    # a page followed by the start of a section may end short
    pdf, rmap = _pdf([short, [(70, 120, heading, 14)] + _filled(140), short])
    assert _kinds(check_layout(pdf, rmap, ir)) == {}


# ------------------------------------------------------------------------------------------ the renderer
def test_narrow_columns_shrink_tables_and_wrap_titles_instead_of_breaking_words():
    b = DocBuilder()
    rows = [[Span(text=f"Home care services, region {i}"), b.span(f"{27_129 + i * 1_013:,}"), b.span(f"{i + 3}"),
             b.span(f"EUR {1_320 + i * 17:,}.00"), b.span(f"{(i * 7.3) % 40:.1f}%"), b.span("2026-03-31")]
            for i in range(12)]
    table = TableBlock(id=b.bid(), caption="Table 4. Care hours delivered by region and the quarter-end position",
                       columns=["Region", "Hours", "Qty", "Unit price (EUR)", "Change", "As at"], rows=rows,
                       numeric_columns=[1, 2, 3, 4])
    figure = FigureBlock(id=b.bid(), chart="bar",
                         title="Figure 2. Valuation of Maple Court, Harbour Tower and Riverside Retail Park, 2023",
                         categories=["Station Plaza", "Harbour Tower", "Maple Court", "Riverside Retail Park",
                                     "Elm Street Offices", "Mill Lane"],
                         series=[Series(name=str(y), points=[b.span(f"{v:,}") for v in vals],
                                        values=[float(v) for v in vals])
                                 for y, vals in ((2022, (22_681, 1_175, 11_309, 8_372, 13_923, 5_150)),
                                                 (2023, (1_007, 2_446, 2_542, 6_176, 67_621, 4_900)))],
                         unit_label="sq m")
    head = HeadingBlock(id=b.bid(), level=1, spans=[Span(text="Portfolio")])
    text = TextBlock(id=b.bid(), spans=[Span(text="Questions go to "), b.span("ibrahim.gallagher@beacon.example"),
                                        Span(text=".")])
    doc = b.doc([[head, figure, text, table]], layout_ids=[COLUMNS_3])
    res = render_document(doc)
    assert check_layout(res.pdf, res.render_map, doc) == []
    assert verify_text_layer(res.pdf, res.render_map) == []
    facts = doc.fact_index()
    for sb in res.render_map.spans:  # every fact drawn whole
        assert sb.text == facts[sb.fact_ids[0]].text


def test_an_ir_page_continues_on_a_mostly_empty_page_unless_it_opens_a_section():
    def doc(level: int):
        b = DocBuilder()
        p1 = [HeadingBlock(id=b.bid(), level=1, spans=[Span(text="Overview")]),
              TextBlock(id=b.bid(), spans=[Span(text="Revenue rose to "), b.span("$4.2M"), Span(text=".")])]
        p2 = [HeadingBlock(id=b.bid(), level=level, spans=[Span(text="Detail")]),
              TextBlock(id=b.bid(), spans=[Span(text="Costs were "), b.span("$3.1M"), Span(text=".")])]
        return b.doc([p1, p2], layout_ids=[SINGLE, SINGLE])

    def with_contents(d):  # a report with a table of contents: each section on a page of its own
        return d.model_copy(update={"pages": [d.pages[0].model_copy(update={"role": "contents"}), *d.pages[1:]]})

    merged = render_document(with_contents(doc(2)))
    assert [p.plan_page_no for p in merged.render_map.pages] == [1]
    assert {s.page_no for s in merged.render_map.spans} == {1}
    apart = render_document(with_contents(doc(1)))
    assert [p.plan_page_no for p in apart.render_map.pages] == [1, 2]
    # without a contents page (an invoice, minutes, a memo) a section runs on below the last one
    run_on = render_document(doc(1))
    assert [p.plan_page_no for p in run_on.render_map.pages] == [1]
    for res, d in ((merged, with_contents(doc(2))), (apart, with_contents(doc(1))), (run_on, doc(1))):
        assert check_layout(res.pdf, res.render_map, d) == []


@pytest.fixture(scope="module")
def sample():
    """24 demo and 6 reference documents, layouts chosen as the corpus does (CLIP retrieval)."""
    from synthdocqa.renderers.layout.retrieval import default_layout_chooser

    choose = default_layout_chooser()
    docs = [choose(plan_document(demo_spec(seed=5, n_docs=24), i)) for i in range(24)]
    docs += [choose(plan_document(reference_spec(seed=13, n_docs=6), i)) for i in range(6)]
    return [(d, render_document(d)) for d in docs]


def test_planned_documents_have_no_layout_defects(sample):
    totals = dict.fromkeys(LAYOUT_PROBLEM_KINDS, 0)
    pages = 0
    found = []
    for doc, res in sample:
        problems = check_layout(res.pdf, res.render_map, doc)
        found += [f"{doc.doc_id} {p}" for p in problems if p.kind != "half_empty"]
        for k, v in count_by_kind(problems).items():
            totals[k] += v
        pages += len(res.render_map.pages)
        assert verify_text_layer(res.pdf, res.render_map) == [], doc.doc_id
        assert res.render_map.dropped_fact_ids == [], doc.doc_id
    assert found == []
    assert totals["half_empty"] <= 0.05 * pages, totals
    assert pages >= 150 and len({d.recipe for d, _ in sample}) >= 10
