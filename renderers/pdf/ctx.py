"""Drawing context of one PDF page: top-left coordinates, literal text, SpanBox recording, rotation.

Every text draw goes through ``DrawCtx.line``/``DrawCtx.text`` so that each fact-bearing fragment gets a
SpanBox whose bbox is computed from the same numbers used to draw it (font ascent/descent, stringWidth),
also inside rotated frames (the box is then the axis-aligned hull of the rotated fragment).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from reportlab.lib.colors import HexColor
from reportlab.pdfbase.pdfmetrics import getAscentDescent, stringWidth
from reportlab.pdfgen.canvas import Canvas

from synthdocqa.ir.blocks import Span
from synthdocqa.ir.rendermap import SpanBox

from .text import Line


def colour(hex_or_tuple) -> HexColor:
    return HexColor(hex_or_tuple) if isinstance(hex_or_tuple, str) else hex_or_tuple


def mix(hex_a: str, hex_b: str, t: float) -> str:
    """Blend two #rrggbb colours (t=0: a, t=1: b)."""
    a = [int(hex_a[i:i + 2], 16) for i in (1, 3, 5)]
    b = [int(hex_b[i:i + 2], 16) for i in (1, 3, 5)]
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


@dataclass
class DrawCtx:
    c: Canvas
    width: float
    height: float
    page_no: int
    spans: list[SpanBox] = field(default_factory=list)
    _frame: tuple[float, float, float] | None = None  # (ox, oy, degrees) of the active rotation

    # -- coordinates --------------------------------------------------------------------------------
    def _local(self, x: float, y: float) -> tuple[float, float]:
        """Top-left page coords (or frame-local coords) -> the canvas's current user space."""
        if self._frame is None:
            return x, self.height - y
        return x, -y

    def _to_page(self, x: float, y: float) -> tuple[float, float]:
        """A point given in the current frame (top-left, y down) -> top-left page coordinates."""
        if self._frame is None:
            return x, y
        ox, oy, deg = self._frame
        a = math.radians(deg)
        # local RL coords (x, -y) rotated CCW by deg, then translated to (ox, H-oy)
        rx = x * math.cos(a) + y * math.sin(a)
        ry = x * math.sin(a) - y * math.cos(a)
        return ox + rx, oy - ry

    @contextmanager
    def rotated(self, ox: float, oy: float, degrees: float) -> Iterator[None]:
        """Draw in a frame with origin (ox, oy) (top-left page coords) rotated CCW by ``degrees``."""
        if self._frame is not None:
            raise RuntimeError("nested rotated frames are not supported")
        self.c.saveState()
        self.c.translate(ox, self.height - oy)
        self.c.rotate(degrees)
        self._frame = (ox, oy, degrees)
        try:
            yield
        finally:
            self._frame = None
            self.c.restoreState()

    # -- shapes -------------------------------------------------------------------------------------
    def rect(self, x0: float, y0: float, x1: float, y1: float, fill: str | None = None,
             stroke: str | None = None, width: float = 0.5, radius: float = 0.0, alpha: float = 1.0) -> None:
        c = self.c
        c.saveState()
        if fill:
            c.setFillColor(colour(fill))
            if alpha < 1:
                c.setFillAlpha(alpha)
        if stroke:
            c.setStrokeColor(colour(stroke))
            c.setLineWidth(width)
        lx, ly = self._local(x0, y1)
        if radius:
            c.roundRect(lx, ly, x1 - x0, y1 - y0, radius, stroke=1 if stroke else 0, fill=1 if fill else 0)
        else:
            c.rect(lx, ly, x1 - x0, y1 - y0, stroke=1 if stroke else 0, fill=1 if fill else 0)
        c.restoreState()

    def hline(self, x0: float, x1: float, y: float, stroke: str, width: float = 0.5, dash=None) -> None:
        self.line_seg(x0, y, x1, y, stroke, width, dash)

    def line_seg(self, x0: float, y0: float, x1: float, y1: float, stroke: str, width: float = 0.5,
                 dash=None) -> None:
        c = self.c
        c.saveState()
        c.setStrokeColor(colour(stroke))
        c.setLineWidth(width)
        if dash:
            c.setDash(dash)
        a, b = self._local(x0, y0)
        d, e = self._local(x1, y1)
        c.line(a, b, d, e)
        c.restoreState()

    # -- text ---------------------------------------------------------------------------------------
    def line(self, line: Line, x: float, baseline: float, font: str, size: float, color: str,
             spans: list[Span], block_id: str, align: str = "left", width: float | None = None) -> float:
        """Draw one wrapped line literally and record a SpanBox per fact-bearing fragment; returns its width."""
        text = line.text
        tw = stringWidth(text, font, size)
        if align == "right" and width is not None:
            x = x + width - tw
        elif align == "center" and width is not None:
            x = x + (width - tw) / 2
        self._draw_string(x, baseline, text, font, size, color)
        asc, desc = getAscentDescent(font, size)
        for si, a, b in line.fragments():
            if si < 0 or si >= len(spans) or not spans[si].fact_ids:
                continue
            frag = text[a:b]
            fx0 = x + stringWidth(text[:a], font, size)
            fx1 = fx0 + stringWidth(frag, font, size)
            self._record(block_id, spans[si].fact_ids, frag, fx0, baseline - asc, fx1, baseline - desc)
        return tw

    def text(self, text: str, x: float, baseline: float, font: str, size: float, color: str,
             fact_ids: list[str] | None = None, block_id: str = "", anchor: str = "start") -> tuple[float, float]:
        """One literal string (no wrapping); anchor start/middle/end. Returns (x0, x1) drawn."""
        tw = stringWidth(text, font, size)
        if anchor == "middle":
            x -= tw / 2
        elif anchor == "end":
            x -= tw
        self._draw_string(x, baseline, text, font, size, color)
        if fact_ids:
            asc, desc = getAscentDescent(font, size)
            self._record(block_id, fact_ids, text, x, baseline - asc, x + tw, baseline - desc)
        return x, x + tw

    def _draw_string(self, x: float, baseline: float, text: str, font: str, size: float, color: str) -> None:
        c = self.c
        c.setFillColor(colour(color))
        c.setFont(font, size)
        lx, ly = self._local(x, baseline)
        c.drawString(lx, ly, text)

    def _record(self, block_id: str, fact_ids: list[str], text: str, x0: float, y0: float, x1: float,
                y1: float) -> None:
        if not text.strip():
            return
        pts = [self._to_page(px, py) for px, py in ((x0, y0), (x1, y0), (x1, y1), (x0, y1))]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        self.spans.append(SpanBox(block_id=block_id, fact_ids=list(fact_ids), page_no=self.page_no,
                                  bbox=(round(min(xs), 2), round(min(ys), 2), round(max(xs), 2),
                                        round(max(ys), 2)),
                                  text=text))
