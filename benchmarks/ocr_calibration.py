"""OCR calibration of the scan tiers: Tesseract's character error rate per tier, page by page.

The tiers are ordered by how hard a page is to read. Two things must hold, for Tesseract's default page
mode (``--psm 3``, layout analysis) and for ``--psm 6`` (one block) separately: the mean CER rises
strictly from pristine to poor, and on at least 80% of pages each tier reads worse than the tier below.

Pages are real corpus pages: every page of the ``document.pdf`` files of a generated corpus, rasterised
at 200 dpi, with the PDF's own text layer as the reference. Page ``k`` is captured by device
``DEVICES[k % 4]``; each page draws its stages from its own fork (``Rng(seed, ("ocr", doc, page))``),
as the corpus does. Every scan is written in its device's scan format, decoded, deskewed (projection
profile over +-6 degrees, as OCR front ends such as OCRmyPDF's ``--deskew`` do) and read by Debian's
``tesseract`` (one thread per process, ``--dpi 200``).

CER = Levenshtein(reference, hypothesis) / len(reference) after whitespace is normalised. On tables, forms
and multi-column pages the order in which the words come out is a layout decision of the reader, so the
CER is computed four ways, each tier criterion judged on the first three:

* ``sorted_words``: the words of each side in sorted order (reading-order independent);
* ``raster_placed``: both sides in raster order - the reference's words and Tesseract's words (from its
  TSV boxes) grouped into visual lines by their vertical centre, lines top to bottom, words left to right;
  characters keep their order within a line, the block order is the page's geometry, not the reader's;
* ``raster_lines``: the reference in raster order against Tesseract's text in its own reading order
  (what ``pdftotext -layout`` against ``tesseract`` output gives; ``--psm 3`` may read a table column by
  column on one scan and row by row on the next, which moves this CER by up to 0.6 on a page);
* ``content_order``: the PDF's text layer in content-stream order (the order it was drawn, not a
  reading order) against Tesseract's text: reported, not judged.

    .venv/bin/python benchmarks/ocr_calibration.py --corpus out/cal [--seed 1] [--jobs 2] [--json out.json]
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
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np

from synthdocqa.degradations import degrade_page, encode_scan, sample_profile, scan_extension
from synthdocqa.ir.files import atomic_write_text
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, TIERS

DPI = 200
PSMS = ("3", "6")
SHARE = 0.8


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


def normalise(text: str, ordered: bool = True) -> str:
    words = text.split()
    return " ".join(words if ordered else sorted(words))


def cer(reference: str, hypothesis: str, ordered: bool = False) -> float:
    ref, hyp = normalise(reference, ordered), normalise(hypothesis, ordered)
    return levenshtein(ref, hyp) / max(len(ref), 1)


def deskew(rgb: np.ndarray) -> np.ndarray:
    """Rotate by the angle (0.1-degree steps in +-6) that maximises the variance of the row profile of
    the ink, found on a quarter-size adaptive binarisation."""
    g = cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    small = cv2.resize(g, (g.shape[1] // 4, g.shape[0] // 4), interpolation=cv2.INTER_AREA)
    ink = (255 - cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, 15)
           ).astype(np.float32)
    h, w = ink.shape
    best_angle, best_var = 0.0, -1.0
    for a in np.round(np.arange(-6.0, 6.01, 0.1), 1):
        rot = cv2.warpAffine(ink, cv2.getRotationMatrix2D((w / 2, h / 2), float(a), 1.0), (w, h))
        v = float(np.var(rot.sum(axis=1)))
        if v > best_var:
            best_angle, best_var = float(a), v
    m = cv2.getRotationMatrix2D((rgb.shape[1] / 2, rgb.shape[0] / 2), best_angle, 1.0)
    return cv2.warpAffine(rgb, m, (rgb.shape[1], rgb.shape[0]), borderMode=cv2.BORDER_REPLICATE)


def corpus_pages(corpus: Path) -> list[tuple[str, int, Path]]:
    return [(pdf.parent.name, p, pdf) for pdf in sorted(corpus.glob("docs/*/document.pdf"))
            for p in range(1, _page_count(pdf) + 1)]


def _page_count(pdf: Path) -> int:
    import pymupdf

    with pymupdf.open(pdf) as doc:
        return doc.page_count


def raster_lines(words: list[tuple[float, float, float, float, str]]) -> str:
    """The words in raster order: grouped into visual lines by their vertical centre (a word joins the
    line whose centre lies within half the median word height), lines top to bottom, words left to
    right. This is the order a single-block reader (``--psm 6``, ``pdftotext -layout``) follows."""
    if not words:
        return ""
    height = float(np.median([w[3] - w[1] for w in words]))
    lines: list[list[tuple[float, float, float, float, str]]] = []
    centres: list[float] = []
    for w in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        c = (w[1] + w[3]) / 2
        if lines and abs(c - centres[-1]) <= height / 2:
            lines[-1].append(w)
            n = len(lines[-1])
            centres[-1] += (c - centres[-1]) / n
        else:
            lines.append([w])
            centres.append(c)
    return "\n".join(" ".join(w[4] for w in sorted(line, key=lambda w: w[0])) for line in lines)


def parse_tsv(tsv: str) -> tuple[str, list[tuple[float, float, float, float, str]]]:
    """Tesseract's TSV output -> its text (one line per text line, in the reader's order) and its words
    with their boxes (x0, y0, x1, y1, word)."""
    lines: dict[tuple[str, str, str], list[str]] = {}
    words: list[tuple[float, float, float, float, str]] = []
    for row in tsv.splitlines()[1:]:
        f = row.split("\t")
        if len(f) < 12 or f[0] != "5" or not f[11].strip():
            continue
        lines.setdefault((f[2], f[3], f[4]), []).append(f[11])
        x, y, w, h = (float(v) for v in f[6:10])
        words.append((x, y, x + w, y + h, f[11]))
    return "\n".join(" ".join(ws) for ws in lines.values()), words


def _page(pdf: Path, page_no: int) -> tuple[np.ndarray, str, str]:
    """The page's pixels, its text layer in content order and in raster-line order."""
    import pymupdf

    with pymupdf.open(pdf) as doc:
        page = doc[page_no - 1]
        pix = page.get_pixmap(dpi=DPI, alpha=False)
        img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, 3).copy()
        words = [tuple(w[:5]) for w in page.get_text("words")]
        return img, page.get_text("text"), raster_lines(words)


def read_page(job: tuple[str, int, str, int, int, str, bool]) -> dict:
    """Degrade one page at every tier with its device, OCR each scan in both modes, return the CERs."""
    doc_id, page_no, pdf, k, seed, tmp, keep_text = job
    os.environ["OMP_THREAD_LIMIT"] = "1"
    cv2.setNumThreads(1)
    img, reference, lines_ref = _page(Path(pdf), page_no)
    device = DEVICES[k % len(DEVICES)]
    row = {"doc": doc_id, "page": page_no, "device": device, "chars": len(normalise(reference)), "tiers": {}}
    if keep_text:
        row["reference"], row["reference_lines"] = reference, lines_ref
    for tier in TIERS:
        prof = sample_profile(tier, 1, Rng(seed, ("ocr", doc_id, page_no)), device)
        out = degrade_page(img, prof.pages[0], seed, DPI).image
        data = encode_scan(out, tier, device=device)
        scan = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        straight = deskew(cv2.cvtColor(scan, cv2.COLOR_BGR2RGB))
        png = Path(tmp) / f"{doc_id}-{page_no}-{tier}{scan_extension(tier, device)}.png"
        cv2.imwrite(str(png), cv2.cvtColor(straight, cv2.COLOR_RGB2BGR))
        res = {}
        for psm in PSMS:
            tsv = subprocess.run(["tesseract", str(png), "stdout", "--psm", psm, "--dpi", str(DPI), "-l", "eng", "tsv"],
                                 capture_output=True, text=True, check=True).stdout
            text, words = parse_tsv(tsv)
            placed = raster_lines(words)
            res[psm] = {"cer": round(cer(reference, text), 4), "cer_content": round(cer(reference, text, True), 4),
                        "cer_reader": round(cer(lines_ref, text, True), 4),
                        "cer_placed": round(cer(lines_ref, placed, True), 4)}
            if keep_text:
                res[psm]["text"], res[psm]["placed"] = text, placed
        row["tiers"][tier] = res
        png.unlink()
    return row


def summarise(rows: list[dict], key: str = "cer") -> dict:
    out: dict = {}
    for psm in PSMS:
        means = {t: statistics.fmean(r["tiers"][t][psm][key] for r in rows) for t in TIERS}
        shares = {}
        for lo, hi in zip(TIERS, TIERS[1:], strict=False):
            worse = sum(r["tiers"][hi][psm][key] > r["tiers"][lo][psm][key] for r in rows)
            shares[f"{hi}>{lo}"] = round(worse / len(rows), 3)
        by_device = {d: {t: round(statistics.fmean(r["tiers"][t][psm][key] for r in rows if r["device"] == d), 4)
                         for t in TIERS} for d in DEVICES if any(r["device"] == d for r in rows)}
        strictly = all(means[a] < means[b] for a, b in zip(TIERS, TIERS[1:], strict=False))
        out[psm] = {"mean": {t: round(v, 4) for t, v in means.items()}, "share_worse": shares,
                    "mean_strictly_rising": strictly, "every_share_ok": all(v >= SHARE for v in shares.values()),
                    "by_device": by_device}
    return out


JUDGED = ("sorted_words", "raster_placed", "raster_lines")
"""The CERs the criterion is judged on (the content-stream order is not a reading order)."""


def passes(summary: dict) -> bool:
    """Both page modes: the mean rises strictly and every step holds on >= ``SHARE`` of pages."""
    return all(summary[p]["mean_strictly_rising"] and summary[p]["every_share_ok"] for p in PSMS)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", required=True, type=Path, help="a generated corpus (its docs/*/document.pdf)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--limit", type=int, default=None, help="first N pages only")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", default=None)
    ap.add_argument("--keep-text", action="store_true", help="store the references and every OCR text in --json")
    args = ap.parse_args(argv)
    if shutil.which("tesseract") is None:
        print("tesseract not found: apt-get install -y tesseract-ocr", file=sys.stderr)
        return 2
    pages = corpus_pages(args.corpus)[: args.limit]
    if not pages:
        print(f"{args.corpus}: no docs/*/document.pdf", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ocr_calibration_") as tmp, ProcessPoolExecutor(args.jobs) as pool:
        jobs = [(d, p, str(pdf), k, args.seed, tmp, args.keep_text) for k, (d, p, pdf) in enumerate(pages)]
        rows = []
        for row in pool.map(read_page, jobs):
            rows.append(row)
            print(f"{row['doc']} p{row['page']} {row['device']:9s} psm3 " +
                  " ".join(f"{row['tiers'][t]['3']['cer']:.3f}" for t in TIERS) + " | psm6 " +
                  " ".join(f"{row['tiers'][t]['6']['cer']:.3f}" for t in TIERS), flush=True)
    summary = {"sorted_words": summarise(rows), "raster_placed": summarise(rows, "cer_placed"),
               "raster_lines": summarise(rows, "cer_reader"), "content_order": summarise(rows, "cer_content")}
    verdicts = {}
    for name, s in summary.items():
        print(f"\n{name} CER, {len(rows)} pages:")
        print("| psm | " + " | ".join(TIERS) + " | " + " | ".join(s["3"]["share_worse"]) + " |")
        print("|---" * (1 + len(TIERS) + len(TIERS) - 1) + "|")
        for psm in PSMS:
            r = s[psm]
            print(f"| {psm} | " + " | ".join(f"{r['mean'][t]:.3f}" for t in TIERS) + " | " +
                  " | ".join(f"{v:.0%}" for v in r["share_worse"].values()) + " |")
        for psm in PSMS:
            for d, m in s[psm]["by_device"].items():
                print(f"  psm {psm} {d:9s} " + " ".join(f"{m[t]:.3f}" for t in TIERS))
        verdicts[name] = passes(s)
        print(f"{name}: mean rises strictly and every tier worse than the one below on >= {SHARE:.0%} of pages, "
              f"psm 3 and 6: {'PASS' if verdicts[name] else 'FAIL'}" + ("" if name in JUDGED else " (not judged)"))
    ok = all(verdicts[n] for n in JUDGED)
    print(f"\ncalibration ({', '.join(JUDGED)}): {'PASS' if ok else 'FAIL'}")
    if args.json:
        atomic_write_text(args.json, json.dumps({"pages": rows, "summary": summary, "verdicts": verdicts,
                                                 "pass": ok}, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
