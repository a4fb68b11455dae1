"""Legibility of the evidence on the scan: which QA pairs can still be answered from the scan image.

A scan tier can make evidence unreadable (a poor scan of 7-point table cells); the corpus keeps the
exact answer and boxes anyway. Here every evidence span of every assertion is cut out of its scan,
read by Tesseract (Debian ``tesseract-ocr``, one line per crop: ``--psm 7``) and compared with the text
that was drawn. A span is legible when the character error rate (edit distance / length of the drawn
text, both case-folded with whitespace collapsed) is at most ``CER_THRESHOLD``; an assertion is legible
when all its spans are (a sum over a column needs every cell), a QA pair when all its assertions are.
Assertions without evidence ("not stated" answers) have nothing to read and count as legible; the
per-tier shares count only assertions with evidence.

The crop: the span's ``scan_quad`` (its box carried through the scan's geometric stages) widened by
``MARGIN`` of the line height on each side and warped upright, scaled to ``TEXT_HEIGHT_PX`` pixels of
line height and padded with white, so skew, warp and the scan's resolution do not decide the reading
(OCR front ends deskew and rescale as well). Crops of one document go to one ``tesseract`` process
(a list file; readings come back separated by form feeds).

The result is two tables beside the corpus tables, written atomically: ``LEGIBILITY_TABLE`` (one row per
assertion) and ``LEGIBILITY_QA_TABLE`` (one row per QA pair). They are a view, like ``report.html``: not in
the manifest, so ``verify`` does not look at them; each records the sha256 of the ``corpus.json`` it was
made from, and a reader ignores a table whose corpus has been regenerated since.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from ir.files import atomic_write_bytes, sha256_bytes
from ir.qa_models import Assertion, Evidence
from ir.vocab import TIERS

from ..ocr import OCRError, ocr_lines, tesseract_version
from ..store import (
    LEGIBILITY_QA_TABLE,
    LEGIBILITY_TABLE,
    CorpusReader,
    DocFiles,
    open_corpus,
)

CER_THRESHOLD = 0.10
"""A span is legible when Tesseract's reading of it differs from the drawn text in at most 10 % of its
characters (one slip in a ten-character amount)."""
MARGIN = 0.15
"""Crop margin on every side, as a share of the line height (more takes in the neighbouring lines)."""
TEXT_HEIGHT_PX = 40
"""Line height the crop is scaled to (Tesseract reads best around 30-40 px capital height)."""
PAD_PX = 10
READINGS: tuple[tuple[str, int], ...] = (("crop", 7), ("crop", 8), ("wide", 7), ("binary", 7))
"""How a span is read, in order: the crop as one line (``--psm 7``), as one word (``--psm 8``), with a wide
white border, Otsu-binarised. A span is read the next way only while no reading so far is legible, and the
best reading counts: Tesseract drops short cells ("1", "35") or a decimal point in one setting and reads them
in another, which says more about Tesseract than about the scan."""
META_KEY = b"synthdocqa.legibility"

ASSERTION_COLUMNS = ["assertion_id", "qa_id", "doc_id", "tier", "page_no", "n_spans", "cer", "legible",
                     "spans_json"]
QA_COLUMNS = ["qa_id", "doc_id", "tier", "n_assertions", "n_spans", "cer", "legible"]


class LegibilityError(OCRError):
    """Legibility cannot be measured (no corpus, no Tesseract)."""


# ----------------------------------------------------------------- text comparison

def normalise(text: str) -> str:
    return " ".join(text.casefold().split())


def levenshtein(a: str, b: str) -> int:
    """Edit distance (insertions, deletions, substitutions), one row at a time."""
    if len(a) < len(b):
        a, b = b, a
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i]
        for j, cb in enumerate(b, start=1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _trim_edges(reading: str, reference: str) -> str:
    """The reading without the marks a crop's edges add: punctuation at either end that the drawn text
    does not have there (a table rule read as "|", a checkbox as "[", a speck as ".")."""
    start, end = 0, len(reading)
    while start < end and not reading[start].isalnum() and not reference.startswith(reading[start:end][:1]):
        start += 1
    while end > start and not reading[end - 1].isalnum() and not reference.endswith(reading[end - 1]):
        end -= 1
    return reading[start:end].strip()


def cer(reference: str, reading: str) -> float:
    """Character error rate of ``reading`` against ``reference`` (normalised; 1.0 caps an empty reading)."""
    ref = normalise(reference)
    hyp = _trim_edges(normalise(reading), ref)
    if not ref:
        return 0.0 if not hyp else 1.0
    return round(min(levenshtein(ref, hyp) / len(ref), 1.0), 4)


# ----------------------------------------------------------------- crops and OCR

def _text_quad(q: np.ndarray, rotation: float) -> np.ndarray:
    """The quad of a line drawn at ``rotation`` degrees (counter-clockwise) inside the box ``q`` that hulls it.

    A rotated line of width w and height h has a hull of W = w cos + h sin, H = w sin + h cos; solved for
    w and h, the line's own corners follow from the hull's centre and the two directions."""
    t = np.radians(rotation)
    c, s = abs(np.cos(t)), abs(np.sin(t))
    det = c * c - s * s
    if abs(rotation) < 0.5 or det < 0.3:  # upright, or too steep to separate the line from its hull
        return q
    u0, v0 = q[1] - q[0], q[0] - q[3]
    big_w, big_h = float(np.linalg.norm(u0)), float(np.linalg.norm(v0))
    u0, v0 = u0 / max(big_w, 1e-6), v0 / max(big_h, 1e-6)
    w = max((c * big_w - s * big_h) / det, 1.0)
    h = max((c * big_h - s * big_w) / det, 1.0)
    u = np.cos(t) * u0 + np.sin(t) * v0  # along the line
    v = -np.sin(t) * u0 + np.cos(t) * v0  # towards the top of its letters
    centre = q.mean(axis=0)
    return np.array([centre - u * w / 2 + v * h / 2, centre + u * w / 2 + v * h / 2,
                     centre + u * w / 2 - v * h / 2, centre - u * w / 2 - v * h / 2], np.float32)


def crop_span(scan: np.ndarray, ev: Evidence, rotation: float = 0.0) -> np.ndarray:
    """The span cut out of the scan (grayscale), upright, at ``TEXT_HEIGHT_PX`` line height, padded white.

    ``rotation``: the angle the span was drawn at (a stamp's), its box being the hull of the rotated line."""
    import cv2

    if ev.scan_quad is not None:
        q = np.array(ev.scan_quad, np.float32)
    elif ev.scan_bbox is not None:
        x0, y0, x1, y1 = ev.scan_bbox
        q = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    else:
        raise ValueError(f"evidence of {ev.fact_id} has no box on the scan")
    q = _text_quad(q, rotation).astype(np.float32)
    h = max((np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2, 1.0)
    w = max((np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2, 1.0)
    k, m = TEXT_HEIGHT_PX / h, MARGIN * h
    dst = np.array([[m, m], [w + m, m], [w + m, h + m], [m, h + m]], np.float32) * k
    size = (max(1, round((w + 2 * m) * k)), max(1, round((h + 2 * m) * k)))
    warp = cv2.getPerspectiveTransform(q, dst)
    out = cv2.warpPerspective(scan, warp, size, flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_CONSTANT,
                              borderValue=255)
    return cv2.copyMakeBorder(out, PAD_PX, PAD_PX, PAD_PX, PAD_PX, cv2.BORDER_CONSTANT, value=255)


def _variant(crop: np.ndarray, variant: str) -> np.ndarray:
    import cv2

    if variant == "wide":
        return cv2.copyMakeBorder(crop, PAD_PX, PAD_PX, 6 * PAD_PX, 6 * PAD_PX, cv2.BORDER_CONSTANT, value=255)
    if variant == "binary":
        return cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)[1]
    return crop


def read_crops(crops: list[np.ndarray], texts: list[str]) -> list[str]:
    """Tesseract's best reading of each crop against the text drawn there, the ways of ``READINGS`` in turn
    (a crop is read the next way only while no reading so far is legible)."""
    best: list[str | None] = [None] * len(crops)
    for variant, psm in READINGS:
        todo = [i for i, b in enumerate(best) if b is None or cer(texts[i], b) > CER_THRESHOLD]
        if not todo:
            break
        for i, text in zip(todo, ocr_lines([_variant(crops[i], variant) for i in todo], psm=psm), strict=True):
            if best[i] is None or cer(texts[i], text) < cer(texts[i], best[i]):
                best[i] = text
    return [b or "" for b in best]


# ----------------------------------------------------------------- one document

def _spans_of(a: Assertion) -> list[Evidence]:
    """Every evidence span an assertion rests on (its own and its derivation's operands'), once each."""
    spans = list(a.evidence)
    if a.derivation is not None:
        for op in a.derivation.operands:
            spans += [e for e in op.evidence if e not in spans]
    return spans


def _span_key(e: Evidence) -> tuple:
    return e.page_no, tuple(e.bbox_pdf), e.text


def document_legibility(reader: CorpusReader, doc_id: str) -> list[dict[str, Any]]:
    """One row per assertion of the document (``ASSERTION_COLUMNS``)."""
    import cv2

    record = reader.record(doc_id)
    page_tier = {p.page_no: p.tier or record.tier for p in record.pages}  # a page may have its own tier
    assertions = reader.assertions(doc_id)
    rotation = {b.id: b.rotation for _, b in reader.ir(doc_id).blocks() if b.type == "annotation"}
    spans: dict[tuple, Evidence] = {}
    for a in assertions:
        for e in _spans_of(a):
            spans.setdefault(_span_key(e), e)
    scans: dict[int, np.ndarray] = {}
    paths = reader.image_paths(doc_id, "scan")  # in page order
    crops = []
    for (page_no, _, _), e in spans.items():
        if page_no not in scans:
            if not 1 <= page_no <= len(paths):
                raise LegibilityError(f"{DocFiles(doc_id).images_dir('scan')}: no scan of page {page_no}")
            data = reader.read_bytes(paths[page_no - 1].relative_to(reader.root).as_posix())
            scans[page_no] = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
        crops.append(crop_span(scans[page_no], e, rotation.get(e.block_id, 0.0)))
    keys = list(spans)
    readings = dict(zip(keys, read_crops(crops, [k[2] for k in keys]), strict=True))
    rows = []
    for a in assertions:
        own = _spans_of(a)
        detail = [{"page_no": e.page_no, "text": e.text, "ocr": readings[_span_key(e)],
                   "cer": cer(e.text, readings[_span_key(e)])} for e in own]
        worst = max((d["cer"] for d in detail), default=0.0)
        page_no = min((e.page_no for e in own), default=0)
        rows.append({
            "assertion_id": a.id, "qa_id": a.qa_id, "doc_id": doc_id, "tier": page_tier.get(page_no, record.tier),
            "page_no": page_no, "n_spans": len(own), "cer": worst,
            "legible": all(d["cer"] <= CER_THRESHOLD for d in detail),
            "spans_json": json.dumps(detail, ensure_ascii=False)})
    return rows


def qa_rows(assertion_rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per QA pair: legible when all its assertions are; ``cer`` is the worst span's."""
    by_qa: dict[str, list[dict[str, Any]]] = {}
    for r in assertion_rows:
        by_qa.setdefault(r["qa_id"], []).append(r)
    return [{"qa_id": q, "doc_id": rs[0]["doc_id"], "tier": rs[0]["tier"], "n_assertions": len(rs),
             "n_spans": sum(r["n_spans"] for r in rs), "cer": max(r["cer"] for r in rs),
             "legible": all(r["legible"] for r in rs)} for q, rs in by_qa.items()]


# ----------------------------------------------------------------- the corpus

def _parquet(rows: list[dict[str, Any]], columns: list[str], meta: dict[str, str]) -> bytes:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(pd.DataFrame(rows, columns=columns), preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), META_KEY: json.dumps(meta).encode()})
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", write_statistics=True)
    return buf.getvalue()


def tier_summary(assertion_rows: list[dict[str, Any]], qa: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per tier (in ``TIERS`` order, tiers present only): assertions and QA with evidence, share legible."""
    out = []
    for tier in TIERS:
        asr = [r for r in assertion_rows if r["tier"] == tier and r["n_spans"] > 0]
        qas = [r for r in qa if r["tier"] == tier and r["n_spans"] > 0]
        if not asr:
            continue
        n_ok = sum(r["legible"] for r in asr)
        q_ok = sum(r["legible"] for r in qas)
        out.append({"tier": tier, "assertions": len(asr), "legible": n_ok,
                    "share": round(n_ok / len(asr), 4), "qa": len(qas), "qa_legible": q_ok,
                    "qa_share": round(q_ok / max(1, len(qas)), 4),
                    "mean_cer": round(float(np.mean([r["cer"] for r in asr])), 4)})
    return out


def measure_legibility(corpus_dir: str | os.PathLike[str], workers: int = 1,
                       progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """OCR every evidence span of a finished corpus; write the two tables; return the per-tier summary."""
    version = tesseract_version()
    if version is None:
        raise LegibilityError("tesseract is not installed (Debian/Ubuntu: apt-get install tesseract-ocr)")
    reader = open_corpus(corpus_dir)
    ids = reader.doc_ids
    rows: list[dict[str, Any]] = []
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:  # each document is one tesseract process
        for n, doc_rows in enumerate(pool.map(lambda d: document_legibility(reader, d), ids), start=1):
            rows += doc_rows
            if progress:
                progress(n, len(ids))
    qa = qa_rows(rows)
    meta = {"corpus_manifest_sha256": sha256_bytes(reader.manifest_bytes()), "cer_threshold": str(CER_THRESHOLD),
            "tesseract": version, "psm": "7"}
    root = Path(corpus_dir)
    atomic_write_bytes(root / LEGIBILITY_TABLE, _parquet(rows, ASSERTION_COLUMNS, meta))
    atomic_write_bytes(root / LEGIBILITY_QA_TABLE, _parquet(qa, QA_COLUMNS, meta))
    return {"documents": len(ids), "assertions": len(rows), "qa_pairs": len(qa), "tesseract": version,
            "cer_threshold": CER_THRESHOLD, "by_tier": tier_summary(rows, qa)}


def load_legibility(reader: CorpusReader) -> tuple[Any, Any] | None:
    """(assertion table, QA table) as DataFrames if measured on this very corpus, else None."""
    import pyarrow.parquet as pq

    paths = [reader.path(LEGIBILITY_TABLE), reader.path(LEGIBILITY_QA_TABLE)]
    if not all(p.is_file() for p in paths):
        return None
    want = sha256_bytes(reader.manifest_bytes())
    tables = []
    for p in paths:
        table = pq.read_table(p)
        meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
        if meta.get("corpus_manifest_sha256") != want:
            return None
        tables.append(table.to_pandas())
    return tables[0], tables[1]
