"""Evidence records: where each drawn fact is, on the PDF page, the page image and the scan; and a
RenderMap that draws every fact span, to derive QA from a planned document without rendering it."""

from __future__ import annotations

from collections.abc import Sequence

from synthdocqa.ir.blocks import fact_spans
from synthdocqa.ir.boxes import ScanBox, pdf_to_stored_px
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.qa_models import Evidence
from synthdocqa.ir.rendermap import RenderedPage, RenderMap, SpanBox


def build_evidence(render_map: RenderMap, dpi: int | None = None,
                   scan_boxes: Sequence[ScanBox | None] | None = None,
                   occluded_by: Sequence[Sequence[str]] | None = None) -> dict[str, list[Evidence]]:
    """Evidence records per fact id, from the RenderMap.

    ``dpi`` adds the box on the page image; ``scan_boxes`` (aligned with ``render_map.spans``, one
    entry per span, as stored) adds the quad and box on the scan image; ``occluded_by`` (aligned the
    same way) the scan stages whose marks cover the span.
    """
    for name, seq in (("scan_boxes", scan_boxes), ("occluded_by", occluded_by)):
        if seq is not None and len(seq) != len(render_map.spans):
            raise ValueError(f"{name} has {len(seq)} entries for {len(render_map.spans)} spans")
    out: dict[str, list[Evidence]] = {}
    for k, s in enumerate(render_map.spans):
        px = tuple(pdf_to_stored_px(s.bbox, dpi)) if dpi else None
        quad, sbox = scan_boxes[k] if scan_boxes is not None and scan_boxes[k] is not None else (None, None)
        for fid in s.fact_ids:
            out.setdefault(fid, []).append(Evidence(
                fact_id=fid, block_id=s.block_id, page_no=s.page_no, bbox_pdf=s.bbox, text=s.text,
                bbox_page_px=px, scan_quad=quad, scan_bbox=sbox,
                occluded_by=list(occluded_by[k]) if occluded_by is not None else []))
    return out


def drawn_render_map(doc: DocumentIR) -> RenderMap:
    """A RenderMap in which every fact span of ``doc`` is drawn on its IR page, at placeholder boxes (one
    line each, down a Letter page): what ``derive_qa`` needs to ask about a planned document without
    rendering it (tests, benchmarks)."""
    spans = []
    for page in doc.pages:
        y = 72.0
        for b in page.blocks:
            for s in fact_spans(b):
                spans.append(SpanBox(block_id=b.id, fact_ids=s.fact_ids, page_no=page.page_no,
                                     bbox=(72.0, y, min(72.0 + 6 * len(s.text), 540.0), y + 10), text=s.text))
                y = min(y + 14, 760.0)
    return RenderMap(doc_id=doc.doc_id, pages=[RenderedPage(page_no=p.page_no, width=612, height=792)
                                               for p in doc.pages], spans=spans)
