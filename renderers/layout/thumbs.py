"""Wireframe thumbnails of layouts (for CLIP image embedding) and a deterministic PNG encoder.

A thumbnail is a small RGB block diagram: the page on a grey square, header/footer in the theme colour,
each slot drawn with glyphs of the element types it accepts (text lines, table grid, bars, form boxes,
stamp ring). Drawn with numpy only, encoded with fixed zlib settings and no metadata, so the same layout
gives the same bytes everywhere.
"""

from __future__ import annotations

import struct
import zlib

import numpy as np

from .layouts import Layout

TYPE_COLOURS: dict[str, tuple[int, int, int]] = {
    "text": (120, 120, 120),
    "table": (40, 90, 200),
    "figure": (30, 150, 70),
    "form": (230, 130, 20),
    "annotation": (200, 30, 40),
}


def _hex(c: str) -> tuple[int, int, int]:
    return int(c[1:3], 16), int(c[3:5], 16), int(c[5:7], 16)


def encode_png(img: np.ndarray) -> bytes:
    """RGB uint8 (H, W, 3) -> PNG bytes (filter 0, zlib level 6, no ancillary chunks)."""
    if img.dtype != np.uint8 or img.ndim != 3 or img.shape[2] != 3:
        raise ValueError(f"expected uint8 HxWx3 image, got {img.dtype} {img.shape}")
    h, w, _ = img.shape
    raw = np.concatenate([np.zeros((h, 1), dtype=np.uint8), img.reshape(h, w * 3)], axis=1).tobytes()

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 6)) + chunk(b"IEND", b""))


def draw_thumbnail(layout: Layout, size: int = 64) -> np.ndarray:
    """The layout as a ``size`` x ``size`` RGB wireframe (page scaled to the height, centred on grey)."""
    img = np.full((size, size, 3), 200, dtype=np.uint8)
    scale = (size - 2) / layout.height
    pw = int(round(layout.width * scale))
    ox = (size - pw) // 2
    oy = 1

    def px(x: float, y: float) -> tuple[int, int]:
        return ox + int(round(x * scale)), oy + int(round(y * scale))

    def rect(x0: float, y0: float, x1: float, y1: float, colour, fill: bool = True) -> None:
        a, b = px(x0, y0)
        c, d = px(x1, y1)
        c, d = max(c, a + 1), max(d, b + 1)
        if fill:
            img[b:d, a:c] = colour
        else:
            img[b, a:c] = colour
            img[d - 1, a:c] = colour
            img[b:d, a] = colour
            img[b:d, c - 1] = colour

    rect(0, 0, layout.width, layout.height, (255, 255, 255))
    st = layout.style
    primary = _hex(st.primary)
    light = _hex(st.light)
    m = layout.margins
    # header
    hx0, hy0, hx1 = m.left, m.top, layout.width - m.right
    hy1 = m.top + layout.header_height - 8
    if layout.header == "band":
        rect(0, hy0 - 10, layout.width, hy1, primary)
    elif layout.header == "letterhead":
        rect(hx0, hy0, hx0 + 40, hy0 + 40, primary)
        rect(hx0 + 50, hy0 + 8, hx0 + 200, hy0 + 18, (60, 60, 60))
        rect(hx1 - 120, hy0 + 8, hx1, hy0 + 14, (150, 150, 150))
        rect(hx1 - 120, hy0 + 22, hx1, hy0 + 28, (150, 150, 150))
        rect(hx0, hy1 - 2, hx1, hy1, primary)
    elif layout.header == "logo_block":
        rect(hx0, hy0, hx0 + 34, hy0 + 34, primary)
        rect(hx0 + 44, hy0 + 10, hx0 + 180, hy0 + 20, (60, 60, 60))
        rect(hx0, hy1 - 1, hx1, hy1, (120, 120, 120))
    elif layout.header == "running_title":
        rect(hx0, hy0 + 4, hx0 + 180, hy0 + 12, (90, 90, 90))
        rect(hx0, hy1 - 1, hx1, hy1, primary)
    else:
        rect(hx0, hy1 - 1, hx1, hy1, (170, 170, 170))
    # footer
    fy0 = layout.height - m.bottom - layout.footer_height + 10
    if layout.footer in ("ruled_page_number", "page_number_confidentiality", "document_reference"):
        rect(hx0, fy0, hx1, fy0 + 1, (150, 150, 150))
    if "confidentiality" in layout.footer:
        rect(layout.width / 2 - 90, fy0 + 8, layout.width / 2 + 90, fy0 + 14, (200, 30, 40))
    if "page_number" in layout.footer or layout.footer == "document_reference":
        rect(hx1 - 30, fy0 + 8, hx1, fy0 + 14, (60, 60, 60))
    if layout.footer == "document_reference":
        rect(hx0, fy0 + 8, hx0 + 90, fy0 + 14, (110, 110, 110))
    # slots
    for slot in layout.slots:
        x0, y0, x1, y1 = slot.bbox
        rect(x0, y0, x1, y1, light)
        kinds = [t for t in ("text", "table", "figure", "form") if t in slot.accepts]
        band_h = (y1 - y0) / max(len(kinds), 1)
        for k, kind in enumerate(kinds):
            _glyph(rect, kind, x0 + 4, y0 + k * band_h + 4, x1 - 4, y0 + (k + 1) * band_h - 4)
        if "annotation" in slot.accepts:
            rect(x1 - 26, y0 + 4, x1 - 4, y0 + 16, TYPE_COLOURS["annotation"], fill=False)
        rect(x0, y0, x1, y1, primary, fill=False)
    return img


def _glyph(rect, kind: str, x0: float, y0: float, x1: float, y1: float) -> None:
    col = TYPE_COLOURS[kind]
    w, h = x1 - x0, y1 - y0
    if h < 8 or w < 8:
        return
    if kind == "text":
        y = y0
        while y + 4 < y1:
            rect(x0, y, x1 - (w * 0.25 if int(y) % 3 == 0 else 0), y + 3, col)
            y += 14
    elif kind == "table":
        rect(x0, y0, x1, min(y0 + 12, y1), col)
        for i in range(5):
            xx = x0 + w * i / 4
            rect(xx, y0, xx + 1.5, y1, col)
        y = y0
        while y < y1:
            rect(x0, y, x1, y + 1.5, col)
            y += 16
    elif kind == "figure":
        n = 5
        bw = w / (n * 1.6)
        for i in range(n):
            bh = h * (0.35 + 0.6 * ((i * 37) % 10) / 10)
            bx = x0 + i * bw * 1.6
            rect(bx, y1 - bh, bx + bw, y1, col)
        rect(x0, y1 - 1.5, x1, y1, (60, 60, 60))
    elif kind == "form":
        y = y0
        while y + 14 < y1:
            rect(x0, y, x0 + w * 0.3, y + 3, (90, 90, 90))
            rect(x0 + w * 0.35, y - 3, x1, y + 9, col, fill=False)
            y += 22
