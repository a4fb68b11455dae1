"""RenderMap: where every fact-bearing span was drawn (the renderer's provenance record)."""

from __future__ import annotations

from pydantic import Field

from .base import Model
from .boxes import Box


class SpanBox(Model):
    block_id: str
    fact_ids: list[str] = Field(min_length=1)
    page_no: int = Field(ge=1, description="1-based page of the rendered PDF")
    bbox: Box = Field(description="[x0, y0, x1, y1] in PDF points, origin top-left (pymupdf's convention)")
    text: str = Field(min_length=1, description="the exact text drawn")


class BlockBox(Model):
    """Where a piece of a block was laid out: the box the flow pass reserved for it (a block split over
    pages or slots has one per piece). The layout ground truth of a page: headings, paragraphs, tables,
    figures, forms and overlays by region."""

    block_id: str
    block_type: str
    page_no: int = Field(ge=1)
    bbox: Box = Field(description="[x0, y0, x1, y1] in PDF points, origin top-left")


class RenderedPage(Model):
    page_no: int = Field(ge=1)
    width: float = Field(gt=0, description="points")
    height: float = Field(gt=0, description="points")
    layout_id: str | None = None
    plan_page_no: int | None = Field(default=None, description="IR page whose content starts here")
    body: Box | None = Field(default=None, description="the page's body area (between header and footer, inside "
                                                       "the margins) as drawn, points")


class RenderMap(Model):
    doc_id: str
    pages: list[RenderedPage] = Field(default_factory=list)
    spans: list[SpanBox] = Field(default_factory=list)
    dropped_fact_ids: list[str] = Field(
        default_factory=list, description="facts of the IR that were not drawn (never reach QA)")
    blocks: list[BlockBox] = Field(default_factory=list, description="every block piece's box, page by page")

    def drawn_fact_ids(self) -> set[str]:
        return {fid for s in self.spans for fid in s.fact_ids}

    def boxes_for(self, fact_id: str) -> list[SpanBox]:
        return [s for s in self.spans if fact_id in s.fact_ids]
