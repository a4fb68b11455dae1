"""docs/contact_sheet.jpg: one real corpus page at 200 dpi through every capture device x tier.

The page is a page of a generated document (its ``document.pdf``, rasterised by pymupdf at 200 dpi), not
a synthetic text sample. Rows are the devices, columns the tiers; the first sheet shows whole pages,
``*_crops.jpg`` a 1:1 crop of each (where the text is). Every scan is what the corpus writes: encoded in
its device's scan format and decoded again.

    .venv/bin/python benchmarks/contact_sheet.py --pdf out/demo/docs/doc-00000/document.pdf [--page 1]
        [--seed 7] [--out docs/contact_sheet.jpg]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from synthdocqa.degradations import degrade_page, encode_image, encode_scan, sample_profile
from synthdocqa.ir.files import atomic_write_bytes
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, TIERS

DPI = 200
THUMB = (425, 550)


def _label(img: np.ndarray, text: str) -> np.ndarray:
    bar = np.full((34, img.shape[1], 3), 255, np.uint8)
    cv2.putText(bar, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    return np.vstack([bar, img])


def _grid(rows: list[list[np.ndarray]], gap: int = 8) -> np.ndarray:
    def hrow(cells: list[np.ndarray]) -> np.ndarray:
        parts = []
        for c in cells:
            parts += [c, np.full((c.shape[0], gap, 3), 255, np.uint8)]
        return np.hstack(parts[:-1])

    lines = []
    for r in rows:
        row = hrow(r)
        lines += [row, np.full((gap, row.shape[1], 3), 255, np.uint8)]
    return np.vstack(lines[:-1])


def page_image(pdf: Path, page_no: int) -> np.ndarray:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        if not 1 <= page_no <= doc.page_count:
            raise SystemExit(f"{pdf} has {doc.page_count} pages; --page {page_no} is not one of them")
        pix = doc[page_no - 1].get_pixmap(dpi=DPI, alpha=False)
        return np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, 3).copy()


def crop_box(img: np.ndarray, size: tuple[int, int] = THUMB) -> tuple[int, int]:
    """Top-left of the 1:1 crop: the window of ``size`` holding the most ink."""
    ink = (cv2.cvtColor(img, cv2.COLOR_RGB2GRAY) < 128).astype(np.float32)
    w, h = size
    integ = cv2.integral(ink)
    best, at = -1.0, (0, 0)
    for y in range(0, img.shape[0] - h, 40):
        for x in range(0, img.shape[1] - w, 40):
            s = integ[y + h, x + w] - integ[y, x + w] - integ[y + h, x] + integ[y, x]
            if s > best:
                best, at = s, (x, y)
    return at


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pdf", required=True, type=Path, help="a corpus document.pdf")
    ap.add_argument("--page", type=int, default=1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default="docs/contact_sheet.jpg")
    args = ap.parse_args(argv)
    img = page_image(args.pdf, args.page)
    x0, y0 = crop_box(img)
    whole: list[list[np.ndarray]] = []
    crops: list[list[np.ndarray]] = []
    for device in DEVICES:
        wrow, crow = [], []
        for tier in TIERS:
            page = sample_profile(tier, 1, Rng(args.seed, ("contact", device, tier)), device).pages[0]
            out = degrade_page(img, page, args.seed, DPI).image
            data = encode_scan(out, tier, device=device)
            scan = cv2.cvtColor(cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR), cv2.COLOR_BGR2RGB)
            name = "pristine (all)" if tier == "pristine" else f"{device} {tier}"
            wrow.append(_label(cv2.resize(scan, THUMB, interpolation=cv2.INTER_AREA), name))
            crow.append(_label(scan[y0:y0 + THUMB[1], x0:x0 + THUMB[0]], f"{name} 1:1"))
        whole.append(wrow)
        crops.append(crow)
    out_path = Path(args.out)
    for path, rows in ((out_path, whole), (out_path.with_name(out_path.stem + "_crops" + out_path.suffix), crops)):
        sheet = _grid(rows)
        fmt = "png" if path.suffix.lower() == ".png" else "jpeg"  # JPEG q92 keeps the docs folder small
        atomic_write_bytes(path, encode_image(sheet, fmt, 92 if fmt == "jpeg" else None))
        print(f"wrote {path} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
