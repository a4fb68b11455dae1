"""OCR calibration of the scan tiers: Tesseract character error rate per tier on a fixed sample.

The tiers are ordered by how hard a page is to read: the mean CER must rise strictly from pristine to
poor. Pages: realistic text pages at 200 dpi (reportlab + pymupdf, ``sample_pages.py``) with their
ground-truth lines; every (page, seed) is degraded at every tier, encoded as the tier's scan file
(PNG / JPEG at the tier's quality), decoded, deskewed (projection-profile search over +-6 degrees, as
OCR front ends such as OCRmyPDF's ``--deskew`` do) and read by Debian's ``tesseract`` (one thread,
``--dpi 200``) in two page-segmentation modes, keeping the better reading: ``--psm 6`` (one block:
reads small print that layout analysis drops, but merges lines on a perspective-warped page) and
``--psm 3`` (layout analysis: the reverse). Without the deskew, line finding collapses on a page turned
by 2 degrees and the CER measures the skew angle alone. The reader's own failure modes thus add as
little as possible to what the tier does.

    .venv/bin/python benchmarks/ocr_calibration.py [--pages 3] [--seeds 2] [--json out.json]

CER = Levenshtein(reference, hypothesis) / len(reference), on text with whitespace collapsed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_pages import make_page  # noqa: E402

from degradations import degrade_page, encode_scan, sample_profile, scan_extension  # noqa: E402
from ir.files import atomic_write_text  # noqa: E402
from ir.rng import Rng  # noqa: E402
from ir.vocab import TIERS  # noqa: E402

DPI = 200


def levenshtein(a: str, b: str) -> int:
    """Edit distance, one numpy row per character of ``a`` (the insertion chain is a running min)."""
    if not a:
        return len(b)
    if not b:
        return len(a)
    bv = np.frombuffer(b.encode("utf-32-le"), np.uint32)
    j = np.arange(len(b) + 1)
    prev = j.copy()
    for i, ch in enumerate(a.encode("utf-32-le").decode("utf-32-le"), start=1):
        cost = (bv != ord(ch)).astype(np.int64)
        t = np.empty_like(prev)
        t[0] = i
        t[1:] = np.minimum(prev[1:] + 1, prev[:-1] + cost)
        prev = np.minimum.accumulate(t - j) + j
    return int(prev[-1])


def normalise(text: str) -> str:
    return " ".join(text.split())


def cer(reference: str, hypothesis: str) -> float:
    ref, hyp = normalise(reference), normalise(hypothesis)
    return levenshtein(ref, hyp) / max(len(ref), 1)


def deskew(rgb: np.ndarray) -> tuple[np.ndarray, float]:
    """Rotate by the angle (0.1-degree steps in +-6) that maximises the variance of the row profile of
    the ink, found on a quarter-size adaptive binarisation."""
    g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    small = cv2.resize(g, (g.shape[1] // 4, g.shape[0] // 4), interpolation=cv2.INTER_AREA)
    ink = 255 - cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 15)
    ink = ink.astype(np.float32)
    h, w = ink.shape
    best_angle, best_var = 0.0, -1.0
    for a in np.round(np.arange(-6.0, 6.01, 0.1), 1):
        rot = cv2.warpAffine(ink, cv2.getRotationMatrix2D((w / 2, h / 2), float(a), 1.0), (w, h))
        v = float(np.var(rot.sum(axis=1)))
        if v > best_var:
            best_angle, best_var = float(a), v
    m = cv2.getRotationMatrix2D((rgb.shape[1] / 2, rgb.shape[0] / 2), best_angle, 1.0)
    return cv2.warpAffine(rgb, m, (rgb.shape[1], rgb.shape[0]), borderMode=cv2.BORDER_REPLICATE), best_angle


def ocr(path: Path) -> list[str]:
    """Decode the scan file, deskew, and read it twice (PNG handed to Tesseract, lossless): as one
    text block (``--psm 6``) and with Tesseract's layout analysis (``--psm 3``)."""
    bgr = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR)
    straight, _ = deskew(cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB))
    png = path.with_suffix(".ocr.png")
    cv2.imwrite(str(png), cv2.cvtColor(straight, cv2.COLOR_RGB2BGR))
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    texts = []
    for psm in ("6", "3"):
        res = subprocess.run(["tesseract", str(png), "stdout", "--psm", psm, "--dpi", str(DPI), "-l", "eng"],
                             capture_output=True, text=True, env=env, check=True)
        texts.append(res.stdout)
    return texts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    if shutil.which("tesseract") is None:
        print("tesseract not found: apt-get install -y tesseract-ocr", file=sys.stderr)
        return 2

    cers: dict[str, list[float]] = {t: [] for t in TIERS}
    with tempfile.TemporaryDirectory(prefix="ocr_calibration_") as tmp:
        for pi in range(args.pages):
            img, lines = make_page(100 + pi, DPI)
            reference = "\n".join(lines)
            for s in range(args.seeds):
                seed = 1000 * pi + s
                row = []
                for tier in TIERS:
                    page = sample_profile(tier, 1, Rng(seed, ("ocr", tier))).pages[0]
                    out = degrade_page(img, page, seed, DPI).image
                    path = Path(tmp) / f"p{pi}_s{s}_{tier}{scan_extension(tier)}"
                    path.write_bytes(encode_scan(out, tier))
                    c = min(cer(reference, text) for text in ocr(path))
                    cers[tier].append(c)
                    row.append(f"{tier} {c:.3f}")
                print(f"page {pi} seed {s}: " + ", ".join(row), flush=True)

    means = [statistics.fmean(cers[t]) for t in TIERS]
    strictly = all(a < b for a, b in zip(means, means[1:], strict=False))
    print("\n| tier | mean CER | median | min | max | n |")
    print("|---|---:|---:|---:|---:|---:|")
    for t, m in zip(TIERS, means, strict=True):
        v = cers[t]
        print(f"| {t} | {m:.3f} | {statistics.median(v):.3f} | {min(v):.3f} | {max(v):.3f} | {len(v)} |")
    print(f"\nmean CER strictly increasing pristine -> poor: {'PASS' if strictly else 'FAIL'}")
    if args.json:
        atomic_write_text(args.json, json.dumps({"cer": cers, "mean": dict(zip(TIERS, means, strict=True)),
                                                 "strictly_increasing": strictly}, indent=1) + "\n")
    return 0 if strictly else 1


if __name__ == "__main__":
    sys.exit(main())
