"""docs/contact_sheet.png: one 200-dpi page across the five tiers (whole pages, then a 1:1 crop).

    .venv/bin/python benchmarks/contact_sheet.py [--seed 7] [--out docs/contact_sheet.png]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_pages import make_page  # noqa: E402

from degradations import degrade_page, encode_image, encode_scan, sample_profile  # noqa: E402
from ir.files import atomic_write_bytes  # noqa: E402
from ir.rng import Rng  # noqa: E402
from ir.vocab import TIERS  # noqa: E402

DPI = 200


def _label(img: np.ndarray, text: str) -> np.ndarray:
    bar = np.full((34, img.shape[1], 3), 255, np.uint8)
    cv2.putText(bar, text, (8, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 0, 0), 2, cv2.LINE_AA)
    return np.vstack([bar, img])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--page", type=int, default=100)
    ap.add_argument("--out", default="docs/contact_sheet.png")
    args = ap.parse_args(argv)
    img, _ = make_page(args.page, DPI)
    whole, crops = [], []
    for tier in TIERS:
        page = sample_profile(tier, 1, Rng(args.seed, ("contact", tier))).pages[0]
        out = degrade_page(img, page, args.seed, DPI).image
        scan = cv2.imdecode(np.frombuffer(encode_scan(out, tier), np.uint8), cv2.IMREAD_COLOR)  # as written
        scan = cv2.cvtColor(scan, cv2.COLOR_BGR2RGB)
        whole.append(_label(cv2.resize(scan, (425, 550), interpolation=cv2.INTER_AREA), tier))
        crops.append(_label(scan[170:590, 120:545], f"{tier} 1:1"))
    gap = lambda h: np.full((h, 8, 3), 255, np.uint8)  # noqa: E731
    row1 = np.hstack([x for t in whole for x in (t, gap(t.shape[0]))][:-1])
    row2 = np.hstack([x for t in crops for x in (t, gap(t.shape[0]))][:-1])
    sheet = np.vstack([row1, np.full((8, row1.shape[1], 3), 255, np.uint8), row2])
    atomic_write_bytes(args.out, encode_image(sheet, "png"))
    print(f"wrote {args.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
