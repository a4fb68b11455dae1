"""Evidence records: where each drawn fact is, on the PDF page, the page image and the scan."""

from __future__ import annotations

from collections.abc import Sequence

from ir.boxes import ScanBox, pdf_to_stored_px
from ir.qa_models import Evidence
from ir.rendermap import RenderMap


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
