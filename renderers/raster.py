"""Page images with pymupdf, and the text-layer check of a RenderMap against its PDF.

``verify_text_layer`` reads characters with their boxes (``rawdict``), groups them by pymupdf line,
keeps the characters whose centre lies inside the span's bbox (grown by ``tol`` points vertically,
0.5 pt horizontally), and requires
that, for some line, they spell exactly the span's text (whitespace ignored). Exact, not "contains":
a box that is too large (swallowing a neighbour) or misplaced fails. One SpanBox per line fragment is
what makes this exact for wrapped spans.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pymupdf

from synthdocqa.ir.rendermap import RenderMap

DEFAULT_TOLERANCE = 1.5
"""Vertical slack in points; horizontally only ``TOLERANCE_X`` (a neighbour's centre lies at least
half a glyph away: ~0.9 pt for a 7 pt period)."""
TOLERANCE_X = 0.5


def rasterize(pdf: bytes, dpi: int = 150, pages: list[int] | None = None, png: bool = True
              ) -> list[tuple[bytes, np.ndarray]]:
    """(PNG bytes, RGB uint8 array) per page (1-based ``pages`` subset optional); deterministic bytes. ``png=False``:
    the arrays only (empty bytes), for a raster that is not stored (a scan's, at its own dpi)."""
    if not 36 <= dpi <= 1200:
        raise ValueError(f"dpi must be in [36, 1200], got {dpi}")
    out = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        numbers = pages or list(range(1, doc.page_count + 1))
        for n in numbers:
            if not 1 <= n <= doc.page_count:
                raise ValueError(f"page {n} outside 1..{doc.page_count}")
            pix = doc[n - 1].get_pixmap(dpi=dpi, alpha=False, colorspace=pymupdf.csRGB)
            arr = np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n).copy()
            out.append((pix.tobytes("png") if png else b"", arr))
    return out


@dataclass(frozen=True)
class TextLayerProblem:
    span_index: int
    page_no: int
    expected: str
    found: str
    message: str

    def __str__(self) -> str:
        return self.message


def _squash(s: str) -> str:
    return "".join(s.split())


def _page_lines(page: pymupdf.Page) -> list[list[tuple[float, float, str]]]:
    """Per text line: (centre x, centre y, char) of each character."""
    lines = []
    raw = page.get_text("rawdict", flags=pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP)
    for block in raw["blocks"]:
        for line in block.get("lines", []):
            chars = []
            for span in line["spans"]:
                for ch in span["chars"]:
                    x0, y0, x1, y1 = ch["bbox"]
                    chars.append(((x0 + x1) / 2, (y0 + y1) / 2, ch["c"]))
            if chars:
                lines.append(chars)
    return lines


def verify_text_layer(pdf: bytes, render_map: RenderMap, tol: float = DEFAULT_TOLERANCE) -> list[TextLayerProblem]:
    """Problems (empty list = every span's text is in the PDF text layer inside its bbox)."""
    problems: list[TextLayerProblem] = []
    with pymupdf.open(stream=pdf, filetype="pdf") as doc:
        cache: dict[int, list[list[tuple[float, float, str]]]] = {}
        for i, sb in enumerate(render_map.spans):
            if not 1 <= sb.page_no <= doc.page_count:
                problems.append(TextLayerProblem(i, sb.page_no, sb.text, "",
                                                 f"span {i} (block {sb.block_id}): page {sb.page_no} not in PDF "
                                                 f"of {doc.page_count} pages"))
                continue
            if sb.page_no not in cache:
                cache[sb.page_no] = _page_lines(doc[sb.page_no - 1])
            x0, y0, x1, y1 = sb.bbox
            tx = min(tol, TOLERANCE_X)
            x0, y0, x1, y1 = x0 - tx, y0 - tol, x1 + tx, y1 + tol
            want = _squash(sb.text)
            found_any = []
            ok = False
            for chars in cache[sb.page_no]:
                inside = "".join(c for cx, cy, c in chars if x0 <= cx <= x1 and y0 <= cy <= y1)
                if not inside.strip():
                    continue
                found_any.append(inside)
                if _squash(inside) == want:
                    ok = True
                    break
            if not ok:
                found = " | ".join(found_any)
                problems.append(TextLayerProblem(
                    i, sb.page_no, sb.text, found,
                    f"span {i} (block {sb.block_id}, facts {','.join(sb.fact_ids)}) page {sb.page_no} bbox "
                    f"{[round(v, 1) for v in sb.bbox]}: expected {sb.text!r}, text layer has {found!r}"))
    return problems
