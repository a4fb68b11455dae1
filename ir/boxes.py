"""One box type and its conversions: PDF points <-> page pixels -> scan quad.

Conventions (pymupdf's): ``[x0, y0, x1, y1]``, origin top-left. A PDF box in points maps to the page
image rendered at ``dpi`` as ``bbox * dpi / 72`` with no offset (a pixel ``j`` covers ``[j, j+1)``).
Page-pixel boxes stored in the corpus are rounded to 2 decimals; scan quads and boxes likewise. Boxes
are carried by position (span index), never looked up by float equality.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

POINTS_PER_INCH = 72.0
STORED_DECIMALS = 2

Quad = tuple[tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]]
"""Four corner points ``(x, y)``, clockwise from top-left (a box after a geometric map)."""


class Box(NamedTuple):
    """An axis-aligned box ``(x0, y0, x1, y1)``, top-left origin, in the unit of its context."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    def scaled(self, k: float) -> Box:
        return Box(self.x0 * k, self.y0 * k, self.x1 * k, self.y1 * k)

    def rounded(self, ndigits: int = STORED_DECIMALS) -> Box:
        return Box(*(round(v, ndigits) for v in self))

    def quad(self) -> Quad:
        """Corners clockwise from top-left."""
        return ((self.x0, self.y0), (self.x1, self.y0), (self.x1, self.y1), (self.x0, self.y1))


def px_per_point(dpi: float) -> float:
    return dpi / POINTS_PER_INCH


def pdf_to_px(bbox_pdf: Sequence[float], dpi: float) -> Box:
    """A PDF box (points) on the page image at ``dpi``, unrounded (for drawing)."""
    return Box(*(v * dpi / POINTS_PER_INCH for v in bbox_pdf))


def pdf_to_stored_px(bbox_pdf: Sequence[float], dpi: float) -> Box:
    """A PDF box on the page image at ``dpi``, rounded as the corpus stores it."""
    return pdf_to_px(bbox_pdf, dpi).rounded()


def px_to_pdf(bbox_px: Sequence[float], dpi: float) -> Box:
    return Box(*(v * POINTS_PER_INCH / dpi for v in bbox_px))


def stored_quad(points: Iterable[Iterable[float]]) -> Quad:
    """A mapped quad (4 corner points) rounded as the corpus stores it."""
    q = tuple(tuple(round(float(c), STORED_DECIMALS) for c in pt) for pt in points)
    if len(q) != 4 or any(len(pt) != 2 for pt in q):
        raise ValueError(f"a quad has 4 (x, y) corners, got {q!r}")
    return q  # type: ignore[return-value]


def stored_box(values: Iterable[float]) -> Box:
    """A mapped axis-aligned box rounded as the corpus stores it."""
    return Box(*(round(float(c), STORED_DECIMALS) for c in values))


ScanBox = tuple[Quad, Box]
"""Where a span landed on the scan image: its quad and the axis-aligned box around it (as stored)."""


def stored_scan_box(quad: Iterable[Iterable[float]], aabb: Iterable[float]) -> ScanBox:
    """A span's mapped quad and box, rounded as the corpus stores them."""
    return stored_quad(quad), stored_box(aabb)
