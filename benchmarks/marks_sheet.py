"""A contact sheet of what a reader and a fax machine put on the scans: docs/scan_marks.jpg.

Top: three scanned pages whose markup marked something (a flatbed, a phone and a photocopy at poor), each
cropped round its marks, with the marks the IR records for it (kind, what it is on, the text). Bottom: the
header line of page 1 of three faxed documents, with the date the document bears. Documents are built as the
corpus builds them (``corpus.assemble.build_document``, the demo profile with one device and tier), and each
scan is its file as the corpus writes it, decoded.

    .venv/bin/python benchmarks/marks_sheet.py [--seed 7401] [--out docs/scan_marks.jpg]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import cv2
import numpy as np

from synthdocqa.corpus.assemble import build_document
from synthdocqa.ir.files import atomic_write_bytes
from synthdocqa.ir.spec import demo_spec

WIDTH = 1400


def _built(seed: int, device: str, tier: str, n: int):
    spec = demo_spec(seed=seed).model_copy(update={"n_docs": n, "scan_plan": "document",
                                                  "device_mix": {device: 1.0}, "tier_mix": {tier: 1.0}})
    for i in range(n):
        yield build_document(spec, i)


def _scan(built, page_no: int) -> np.ndarray:
    name = next(k for k in built.files if f"/scan/page-{page_no:04d}." in f"/{k}")
    img = cv2.imdecode(np.frombuffer(built.files[name], np.uint8), cv2.IMREAD_COLOR)
    return img


def _marks(built) -> dict[int, list]:
    out: dict[int, list] = {}
    for page in built.doc.perturbation.pages:
        for s in page.stages:
            if s.name == "markup" and s.enabled and s.params.get("marks"):
                out[page.page_no] = list(s.params["marks"])
    return out


def _text(img: np.ndarray, lines: list[str], width: int) -> np.ndarray:
    bar = np.full((26 * len(lines) + 10, width, 3), 255, np.uint8)
    for k, line in enumerate(lines):
        cv2.putText(bar, line[:150], (8, 24 + 26 * k), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (0, 0, 0), 1, cv2.LINE_AA)
    if img is None:
        return bar
    img = np.pad(img, ((0, 0), (0, max(width - img.shape[1], 0)), (0, 0)), constant_values=255)
    return np.vstack([bar, img[:, :width]])


def _fit(img: np.ndarray, width: int) -> np.ndarray:
    if img.shape[1] == width:
        return img
    h = int(round(img.shape[0] * width / img.shape[1]))
    return cv2.resize(img, (width, h), interpolation=cv2.INTER_AREA if img.shape[1] > width else cv2.INTER_CUBIC)


def marked_crop(built, page_no: int, marks: list) -> np.ndarray:
    img = _scan(built, page_no)
    h, w = img.shape[:2]
    x0 = max(min(m.box[0] for m in marks) * w - 120, 0)
    y0 = max(min(m.box[1] for m in marks) * h - 60, 0)
    x1 = min(max(m.box[2] for m in marks) * w + 160, w)
    y1 = min(max(m.box[3] for m in marks) * h + 60, h)
    crop = img[int(y0):int(y1), int(x0):int(x1)]
    said = [f"{m.kind} on {m.on} '{m.text}'" for m in marks]
    lines = [f"{built.doc.doc_id} page {page_no} ({built.record.device} {built.record.tier}):"]
    lines += ["   " + "; ".join(said[k:k + 3]) for k in range(0, len(said), 3)]
    return _text(_fit(crop, WIDTH) if crop.shape[1] > WIDTH else crop, lines, max(crop.shape[1], WIDTH))


def fax_header(built) -> np.ndarray:
    img = _scan(built, 1)
    strip = img[: max(img.shape[0] // 30, 40)]
    kind = built.doc.recipe.replace("_", " ")
    return _text(_fit(strip, WIDTH), [f"{built.doc.doc_id}: {'an' if kind[0] in 'aeiou' else 'a'} {kind} dated "
                                      f"{built.doc.as_at}, faxed by its issuer (page 1 of "
                                      f"{len(built.doc.perturbation.pages)})"], WIDTH)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=7401)
    ap.add_argument("--out", type=Path, default=Path("docs/scan_marks.jpg"))
    args = ap.parse_args(argv)
    parts: list[np.ndarray] = []
    for k, device in enumerate(("flatbed", "phone", "photocopy")):
        found = False
        for built in _built(args.seed + k, device, "poor", 6):
            marks = _marks(built)
            if marks:
                page_no, ms = max(marks.items(), key=lambda kv: len(kv[1]))
                parts.append(marked_crop(built, page_no, ms))
                print(parts and f"{device}: {built.doc.doc_id} page {page_no}: {len(ms)} marks", flush=True)
                found = True
                break
        if not found:
            print(f"{device}: no marked page in 6 documents of seed {args.seed + k}", file=sys.stderr)
    for built in _built(args.seed + 10, "fax", "fair", 3):
        parts.append(fax_header(built))
        print(f"fax: {built.doc.doc_id} dated {built.doc.as_at}", flush=True)
    width = max(p.shape[1] for p in parts)
    sheet = np.vstack([np.pad(p, ((0, 12), (0, width - p.shape[1]), (0, 0)), constant_values=255) for p in parts])
    ok, buf = cv2.imencode(".jpg", sheet, [cv2.IMWRITE_JPEG_QUALITY, 85])
    atomic_write_bytes(args.out, buf.tobytes())
    print(f"wrote {args.out} ({sheet.shape[1]}x{sheet.shape[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
