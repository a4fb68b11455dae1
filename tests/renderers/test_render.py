"""Renderer: every block type, multi-page tables, literal markup, exact text layer, determinism."""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import pymupdf
import pytest

from synthdocqa.ir import HeadingBlock, Span, TextBlock
from synthdocqa.ir.blocks import block_fact_ids
from synthdocqa.renderers import rasterize, render_document, verify_text_layer
from synthdocqa.renderers.layout.layouts import LayoutLibrary, layout_for

from .conftest import DocBuilder, all_blocks

ROOT = Path(__file__).resolve().parents[2]


def _page_texts(pdf: bytes) -> list[str]:
    with pymupdf.open(stream=pdf, filetype="pdf") as d:
        return [p.get_text() for p in d]


def test_every_block_type_renders_with_boxes(full_doc):
    res = render_document(full_doc)
    rmap = res.render_map
    assert rmap.dropped_fact_ids == []
    with pymupdf.open(stream=res.pdf, filetype="pdf") as d:
        assert d.page_count == len(rmap.pages) >= 3
        for rp, page in zip(rmap.pages, d, strict=True):
            assert (round(page.rect.width, 2), round(page.rect.height, 2)) == (round(rp.width, 2), round(rp.height, 2))
    types_with_boxes = set()
    block_type = {b.id: b.type for _, b in full_doc.blocks()}
    for sb in rmap.spans:
        types_with_boxes.add(block_type[sb.block_id])
        x0, y0, x1, y1 = sb.bbox
        page = rmap.pages[sb.page_no - 1]
        assert 0 <= x0 < x1 <= page.width and 0 <= y0 < y1 <= page.height, sb
    assert types_with_boxes == {"heading", "text_block", "list", "table", "figure", "form", "annotation", "footnote"}
    # every fact referenced by a block is drawn, and every box's facts belong to its block
    wanted = {f for _, b in full_doc.blocks() for f in block_fact_ids(b)}
    assert rmap.drawn_fact_ids() == wanted
    by_id = {b.id: b for _, b in full_doc.blocks()}
    for sb in rmap.spans:
        assert set(sb.fact_ids) <= set(block_fact_ids(by_id[sb.block_id]))
    # an unwrapped fact span's box text is the fact's exact string
    facts = full_doc.fact_index()
    for fid in ("f0002", "f0006"):
        (box,) = rmap.boxes_for(fid)
        assert box.text == facts[fid].text
    assert verify_text_layer(res.pdf, rmap) == []
    starts = [p.plan_page_no for p in rmap.pages if p.plan_page_no is not None]
    assert starts[0] == 1 and starts == sorted(set(starts))  # IR page 2 continues on page 1 (room left)


def test_long_table_continues_with_repeated_header(full_doc):
    res = render_document(full_doc)
    table = next(b for _, b in full_doc.blocks() if b.type == "table")
    pages = sorted({sb.page_no for sb in res.render_map.spans if sb.block_id == table.id})
    assert len(pages) >= 2
    texts = _page_texts(res.pdf)
    for p in pages:
        assert "Invoice" in texts[p - 1] and "Amount" in texts[p - 1]  # header row on every part
    assert all("Table 1: Open invoices (continued)" in texts[p - 1] for p in pages[1:])
    # rows appear once each, in order
    inv = [sb.text for sb in res.render_map.spans if sb.block_id == table.id and sb.text.startswith("INV-")]
    assert inv == [f"INV-{1000 + i}" for i in range(70)]


def test_markup_like_text_is_drawn_literally(full_doc):
    res = render_document(full_doc)
    text = "".join(_page_texts(res.pdf))
    for needle in ("<b>operating</b>", "<i>x</i> &amp; <br/>", "Item <3> & co", "Northwind & Co. <Holdings>",
                   "Client workshop travel <Berlin>", "Costs & expenses"):
        assert needle in " ".join(text.split()), needle


def test_same_ir_same_bytes_and_pngs_across_processes(full_doc, tmp_path):
    a = render_document(full_doc)
    b = render_document(full_doc)
    assert a.pdf == b.pdf
    assert a.render_map == b.render_map
    assert [p for p, _ in rasterize(a.pdf, 60)] == [p for p, _ in rasterize(b.pdf, 60)]
    (tmp_path / "ir.json").write_text(full_doc.to_json())
    script = textwrap.dedent(f"""
        import sys, hashlib
        from synthdocqa.ir import DocumentIR
        from synthdocqa.renderers import render_document
        doc = DocumentIR.model_validate_json(open({str(tmp_path / 'ir.json')!r}).read())
        print(hashlib.sha256(render_document(doc).pdf).hexdigest())
    """)
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"})
    import hashlib

    assert out.stdout.strip() == hashlib.sha256(a.pdf).hexdigest()


def test_text_layer_check_catches_wrong_boxes(full_doc):
    res = render_document(full_doc)
    rmap = res.render_map
    good = verify_text_layer(res.pdf, rmap)
    assert good == []
    i = next(k for k, s in enumerate(rmap.spans) if s.text == "$4,218.6 million")
    sb = rmap.spans[i]
    shifted = sb.model_copy(update={"bbox": (sb.bbox[0], sb.bbox[1] + 40, sb.bbox[2], sb.bbox[3] + 40)})
    wrong_text = sb.model_copy(update={"text": "$4,218.7 million"})
    too_wide = sb.model_copy(update={"bbox": (sb.bbox[0] - 30, sb.bbox[1], sb.bbox[2] + 30, sb.bbox[3])})
    wrong_page = sb.model_copy(update={"page_no": 99})
    for bad in (shifted, wrong_text, too_wide, wrong_page):
        spans = list(rmap.spans)
        spans[i] = bad
        problems = verify_text_layer(res.pdf, rmap.model_copy(update={"spans": spans}))
        assert [p.span_index for p in problems] == [i], bad


def _representative_layouts() -> list[str]:
    """One layout per (arrangement, columns) pair and per style family."""
    want, ids = set(), []
    for i in range(400):
        lay = layout_for(20261130, i)
        key = (lay.arrangement, lay.columns)
        if key not in want:
            want.add(key)
            ids.append(lay.id)
    return ids


@pytest.mark.parametrize("lid", _representative_layouts())
def test_every_arrangement_draws_all_facts_exactly(lid):
    b = DocBuilder()
    pages = all_blocks(b)
    doc = b.doc(pages, layout_ids=[lid, lid])
    res = render_document(doc)
    assert res.render_map.dropped_fact_ids == []
    assert {p.layout_id for p in res.render_map.pages} == {lid}
    assert verify_text_layer(res.pdf, res.render_map) == []


def test_wrapped_fact_gets_one_box_per_line_fragment():
    b = DocBuilder()
    long_fact = b.span("the consolidated statement of financial position as restated for the acquisition of "
                       "Contoso Ltd in the third quarter of the fiscal year")
    lay = next(layout_for(1, i) for i in range(200) if layout_for(1, i).columns == 3)
    doc = b.doc([[HeadingBlock(id="b001", spans=[Span(text="Notes")]),
                  TextBlock(id="b002", spans=[Span(text="See "), long_fact, Span(text=" for details.")])]],
                layout_ids=[lay.id])
    res = render_document(doc)
    boxes = res.render_map.boxes_for(long_fact.fact_ids[0])
    assert len(boxes) >= 2
    assert " ".join(bx.text for bx in boxes) == long_fact.text
    assert verify_text_layer(res.pdf, res.render_map) == []


def test_assigned_layouts_follow_style_family_and_library():
    b = DocBuilder()
    pages = all_blocks(b)
    lib = LayoutLibrary(seed=99, count=500)
    for fam in ("classic", "technical"):
        doc = b.doc(pages, style_family=fam)
        res = render_document(doc, lib)
        for p in res.render_map.pages:
            lay = lib.by_id(p.layout_id)
            assert lay.seed == 99 and lay.style.style_family == fam


def test_rasterize_sizes_and_rgb(full_doc):
    res = render_document(full_doc)
    (png, arr), = rasterize(res.pdf, 72, pages=[1])
    w, h = res.render_map.pages[0].width, res.render_map.pages[0].height
    # one pixel a point at 72 dpi; a fractional size (A4 is 595.28 pt wide) takes the partly covered pixel
    assert arr.shape == (math.ceil(h), math.ceil(w), 3) and arr.dtype.name == "uint8"
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert arr.min() < 80 and arr.max() == 255  # ink on paper
    with pytest.raises(ValueError, match="dpi"):
        rasterize(res.pdf, 5)


def test_characters_missing_from_the_layout_font_fall_back_and_stay_in_the_text_layer():
    from synthdocqa.renderers.pdf.fonts import covers, face_name

    noto = next(layout_for(20261130, i) for i in range(500) if layout_for(20261130, i).style.body_font == "NotoSans")
    assert not covers(face_name("NotoSans"), "\u2265\u2192")  # ≥ and → are not in Noto Sans here
    b = DocBuilder()
    odd = b.span("\u2265 95% \u2192 target \u2713")
    doc = b.doc([[TextBlock(id="b001", spans=[Span(text="Uptime "), odd, Span(text=" met.")])]], layout_ids=[noto.id])
    res = render_document(doc)
    (box,) = res.render_map.boxes_for(odd.fact_ids[0])
    assert box.text == "\u2265 95% \u2192 target \u2713"
    assert verify_text_layer(res.pdf, res.render_map) == []


def test_form_split_across_slots_of_different_widths_draws_every_field_once():
    from synthdocqa.ir import Checkbox, FormBlock, FormField

    b = DocBuilder()
    fields = [FormField(label=f"Field {i}", value=b.span(f"value-{i:02d}")) for i in range(40)]
    checks = [Checkbox(label=f"Option {i}", checked=i % 2 == 0, fact_ids=b.bool_fact(f"Option {i}", i % 2 == 0))
              for i in range(9)]
    form = FormBlock(id="b002", title="Long form", fields=fields, checkboxes=checks, signature_lines=["A", "B", "C"])
    lay = next(layout_for(2, i) for i in range(400) if layout_for(2, i).arrangement == "sidebar_right")
    doc = b.doc([[TextBlock(id="b001", spans=[Span(text="Intro " * 200)]), form]], layout_ids=[lay.id])
    res = render_document(doc)
    texts = [sb.text for sb in res.render_map.spans if sb.block_id == "b002"]
    assert texts == [f"value-{i:02d}" for i in range(40)] + [f"Option {i}" for i in range(9)]
    assert res.render_map.dropped_fact_ids == []
    assert verify_text_layer(res.pdf, res.render_map) == []


def test_charts_with_ragged_series_and_crowded_labels_keep_every_value():
    from synthdocqa.ir import FigureBlock, Series

    b = DocBuilder()
    cats = [f"Region {i}" for i in range(9)]
    crowded = FigureBlock(id="b001", chart="bar", title="Crowded", categories=cats, series=[
        Series(name=f"S{k}", points=[b.span(f"${(i + 1) * (k + 3)},{k}00.00") for i in range(9)],
               values=[float((i + 1) * (k + 3)) for i in range(9)]) for k in range(3)])
    ragged = FigureBlock(id="b002", chart="line", categories=["Jan", "Feb"], series=[
        Series(name="Users", points=[b.span("1.1k"), b.span("1.4k"), b.span("1.9k")], values=[1.1, 1.4, 1.9])])
    pie2 = FigureBlock(id="b003", chart="pie", categories=["A", "B"], series=[
        Series(name="2025", points=[b.span("60%"), b.span("40%")], values=[60, 40]),
        Series(name="2026", points=[b.span("55%"), b.span("45%")], values=[55, 45])])
    doc = b.doc([[crowded, ragged, pie2]])
    res = render_document(doc)
    assert res.render_map.dropped_fact_ids == []
    assert res.render_map.drawn_fact_ids() == {f.id for f in doc.facts}
    assert verify_text_layer(res.pdf, res.render_map) == []


def test_punctuation_after_a_fact_never_starts_a_line():
    """An address that just fits the line keeps its full stop: the unit breaks at spaces rather than leave
    the "." alone on the next line."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    from synthdocqa.ir.blocks import Span
    from synthdocqa.renderers.pdf.text import wrap_spans

    address = "49 Main Street, Boston, MA 02135, United States"
    font, size = "Helvetica", 9.0
    width = stringWidth(address, font, size) + 0.5  # the address fits, the address and "." do not
    lines = wrap_spans([Span(text="whose registered address is "), Span(text=address, fact_ids=["f1"]),
                        Span(text=".")], font, size, width)
    texts = [ln.text for ln in lines]
    assert not any(t.startswith(".") for t in texts), texts
    assert texts[-1].endswith("United States.") or texts[-1].endswith("States.")
