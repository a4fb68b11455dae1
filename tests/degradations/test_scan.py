"""Scanner outputs: per-page image files with fixed encoder settings, and an image-only scan.pdf."""

from __future__ import annotations

import cv2
import numpy as np
import pymupdf
import pytest

from synthdocqa.degradations import SCAN_FORMAT, encode_scan, scan_extension, scan_pdf

from .pages import text_page

PAGE = text_page(2)


def _decode(data: bytes) -> np.ndarray:
    return cv2.cvtColor(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)


def test_pristine_is_lossless_png_and_others_jpeg_at_their_quality():
    png = encode_scan(PAGE, "pristine")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and scan_extension("pristine") == ".png"
    assert np.array_equal(_decode(png), PAGE)
    sizes = []
    for tier in ("good", "fair", "degraded", "poor"):
        data = encode_scan(PAGE, tier)
        assert data[:3] == b"\xff\xd8\xff" and scan_extension(tier) == ".jpg"
        assert data == encode_scan(PAGE, tier)  # fixed settings, same bytes
        sizes.append(len(data))
    assert sizes == sorted(sizes, reverse=True)  # lower quality, smaller file
    q = [SCAN_FORMAT[t]["quality"] for t in ("good", "fair", "degraded", "poor")]
    assert q == sorted(q, reverse=True)
    assert encode_scan(PAGE, "good", quality=30) != encode_scan(PAGE, "good")
    with pytest.raises(ValueError, match="unknown tier"):
        encode_scan(PAGE, "awful")


def test_scan_pdf_is_image_only_sized_and_deterministic():
    imgs = [encode_scan(PAGE, "fair"), encode_scan(text_page(3), "fair")]
    sizes = [(612.0, 792.0), (306.0, 396.0)]
    a = scan_pdf(imgs, sizes)
    assert a == scan_pdf(imgs, sizes)
    doc = pymupdf.open(stream=a, filetype="pdf")
    assert doc.page_count == 2
    for page, (w, h) in zip(doc, sizes, strict=True):
        assert (round(page.rect.width, 3), round(page.rect.height, 3)) == (w, h)
        assert page.get_text().strip() == ""  # no text layer, as a scanner writes it
        assert len(page.get_images()) == 1
    assert b"CreationDate" not in a and b"ModDate" not in a


def test_scan_pdf_bad_input():
    with pytest.raises(ValueError, match="2 images but 1 page sizes"):
        scan_pdf([b"x", b"y"], [(1, 1)])
    with pytest.raises(ValueError, match="at least one page"):
        scan_pdf([], [])
    with pytest.raises(ValueError, match=r"page_sizes_pt\[0\]"):
        scan_pdf([encode_scan(PAGE, "good")], [(0, 10)])
