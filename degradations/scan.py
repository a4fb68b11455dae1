"""Scanner outputs: the per-page scan image file and the image-only ``scan.pdf``.

Encoders run with fixed settings (baseline JPEG, no optimisation pass; PNG level 6) and the PDF is
written by pymupdf with ``no_new_id``/``reproducible`` and empty metadata, so equal input gives equal
bytes.

A fax is stored as what a fax file holds, one bit per pixel: a bilevel PNG (``FAX_PNG``: 1 bit, grey). Not
a TIFF with CCITT Group 4, the fax machine's own coding: a browser shows no TIFF (the report and the gallery
show scans in HTML), OpenCV writes no 1-bit TIFF, and a 1-bit PNG holds the same bits losslessly, readable
everywhere a PNG is.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from synthdocqa.ir.vocab import DEFAULT_DEVICE, DEVICES, TIERS, Device, Tier

from .tiers import SCAN_FORMAT


def scan_format(tier: Tier, device: Device = DEFAULT_DEVICE) -> tuple[str, int | None]:
    """(``"png"`` | ``"jpeg"``, quality) of the scan file: by tier (PNG for pristine, JPEG at the tier's
    quality), except a fax, always PNG (its 1-bit dots would smear in JPEG)."""
    if tier not in SCAN_FORMAT:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    if device not in DEVICES:
        raise ValueError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
    if device == "fax":
        return "png", None
    f = SCAN_FORMAT[tier]
    return f["format"], f.get("quality")


def scan_extension(tier: Tier, device: Device = DEFAULT_DEVICE) -> str:
    return ".png" if scan_format(tier, device)[0] == "png" else ".jpg"


FAX_PNG = (cv2.IMWRITE_PNG_BILEVEL, 1, cv2.IMWRITE_PNG_COMPRESSION, 6)
"""A fax page's PNG: 1 bit per pixel, deflate level 6 like every PNG here. On A4 fax pages at 150 dpi: 5 ms and
23 KB a page at the median, against 53 ms and 53 KB for the same page as an 8-bit RGB PNG (docs/benchmarks.md)."""


def encode_bilevel(image: np.ndarray) -> bytes:
    """A 1-bit PNG of a page that is black and white already (a fax): every pixel at or above mid-grey is
    white. A colour image is read through its first channel (a fax's channels are equal)."""
    grey = image[:, :, 0] if image.ndim == 3 else image
    bits = cv2.threshold(grey, 127, 255, cv2.THRESH_BINARY)[1]
    ok, buf = cv2.imencode(".png", bits, list(FAX_PNG))
    if not ok:
        raise RuntimeError("bilevel png encoding failed")
    return buf.tobytes()


def encode_image(image: np.ndarray, fmt: str, quality: int | None = None) -> bytes:
    src = cv2.cvtColor(image, cv2.COLOR_RGB2BGR) if image.ndim == 3 else image
    if fmt == "png":
        ok, buf = cv2.imencode(".png", src, [cv2.IMWRITE_PNG_COMPRESSION, 6])
    elif fmt == "jpeg":
        q = int(quality if quality is not None else 90)
        if not 1 <= q <= 100:
            raise ValueError(f"JPEG quality must be in 1..100, got {q}")
        ok, buf = cv2.imencode(".jpg", src, [cv2.IMWRITE_JPEG_QUALITY, q, cv2.IMWRITE_JPEG_OPTIMIZE, 0,
                                             cv2.IMWRITE_JPEG_PROGRESSIVE, 0])
    else:
        raise ValueError(f"unknown image format {fmt!r}; expected png or jpeg")
    if not ok:
        raise RuntimeError(f"{fmt} encoding failed")
    return buf.tobytes()


def encode_scan(image: np.ndarray, tier: Tier, quality: int | None = None, device: Device = DEFAULT_DEVICE) -> bytes:
    """The scan file of one page in its ``scan_format`` (``quality`` overrides the tier's JPEG quality); a fax
    page past pristine as a 1-bit PNG (``encode_bilevel``)."""
    fmt, q = scan_format(tier, device)
    if device == "fax" and tier != "pristine":
        return encode_bilevel(image)
    return encode_image(image, fmt, quality if quality is not None else q)


def scan_pdf(images_bytes: Sequence[bytes], page_sizes_pt: Sequence[tuple[float, float]]) -> bytes:
    """An image-only PDF (no text layer), one page per scan image, each filling its page."""
    import pymupdf

    if len(images_bytes) != len(page_sizes_pt):
        raise ValueError(f"{len(images_bytes)} images but {len(page_sizes_pt)} page sizes")
    if not images_bytes:
        raise ValueError("scan_pdf needs at least one page")
    doc = pymupdf.open()
    try:
        for i, (data, (w, h)) in enumerate(zip(images_bytes, page_sizes_pt, strict=True)):
            if not (w > 0 and h > 0):
                raise ValueError(f"page_sizes_pt[{i}] = {(w, h)} must be positive")
            page = doc.new_page(width=float(w), height=float(h))
            page.insert_image(page.rect, stream=bytes(data), keep_proportion=False)
        doc.set_metadata({})
        return doc.tobytes(garbage=3, deflate=True, no_new_id=True, reproducible=True)
    finally:
        doc.close()
