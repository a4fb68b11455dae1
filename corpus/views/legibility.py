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

from synthdocqa.ir.files import atomic_write_bytes, sha256_bytes
from synthdocqa.ir.vocab import TIERS

from ..ocr import (
    ANSWERABLE_RULE,
    CER_THRESHOLD,
    OCRError,
    read_evidence,
    span_answerable,
    span_key,
    spans_of,
    tesseract_version,
)
from ..store import (
    LEGIBILITY_QA_TABLE,
    LEGIBILITY_TABLE,
    CorpusReader,
    DocFiles,
    open_corpus,
)

META_KEY = b"synthdocqa.legibility"

ASSERTION_COLUMNS = ["assertion_id", "qa_id", "doc_id", "tier", "page_no", "n_spans", "cer", "digits_exact",
                     "legible", "spans_json"]
QA_COLUMNS = ["qa_id", "doc_id", "tier", "n_assertions", "n_spans", "cer", "digits_exact", "legible",
              "answerable_from_scan"]


class LegibilityError(OCRError):
    """Legibility cannot be measured (no corpus, no Tesseract)."""


# ----------------------------------------------------------------- one document

def document_legibility(reader: CorpusReader, doc_id: str, fresh: bool = True) -> list[dict[str, Any]]:
    """One row per assertion of the document (``ASSERTION_COLUMNS``). ``fresh``: read every span on the scan
    files now (Tesseract); else take the readings generation recorded (``Evidence.scan_cer``; no Tesseract
    needed, and no reading text in ``spans_json``)."""
    record = reader.record(doc_id)
    page_tier = {p.page_no: p.tier or record.tier for p in record.pages}  # a page may have its own tier
    assertions = reader.assertions(doc_id)
    if fresh:
        rotation = {b.id: b.rotation for _, b in reader.ir(doc_id).blocks() if b.type == "annotation"}
        paths = reader.image_paths(doc_id, "scan")  # in page order
        pages = {e.page_no for a in assertions for e in spans_of(a)}
        missing = sorted(p for p in pages if not 1 <= p <= len(paths))
        if missing:
            raise LegibilityError(f"{DocFiles(doc_id).images_dir('scan')}: no scan of page {missing[0]}")
        scans = {p: reader.read_bytes(paths[p - 1].relative_to(reader.root).as_posix()) for p in pages}
        read = read_evidence(scans, assertions, rotation)
    else:
        if record.ocr is None and any(spans_of(a) for a in assertions):
            raise LegibilityError(f"{doc_id}: its scans were not read when it was generated (no Tesseract there); "
                                  "run `synthdocqa legibility` to read them")
        read = {span_key(e): (None, e.scan_cer, e.scan_digits) for a in assertions for e in spans_of(a)}
    rows = []
    for a in assertions:
        own = spans_of(a)
        detail = [{"page_no": e.page_no, "text": e.text, "ocr": read[span_key(e)][0], "cer": read[span_key(e)][1],
                   "digits": read[span_key(e)][2]} for e in own]
        worst = max((d["cer"] for d in detail), default=0.0)
        page_no = min((e.page_no for e in own), default=0)
        rows.append({
            "assertion_id": a.id, "qa_id": a.qa_id, "doc_id": doc_id, "tier": page_tier.get(page_no, record.tier),
            "page_no": page_no, "n_spans": len(own), "cer": worst,
            "digits_exact": all(d["digits"] is not False for d in detail),
            "legible": all(d["cer"] <= CER_THRESHOLD for d in detail),
            "spans_json": json.dumps(detail, ensure_ascii=False)})
    return rows


def qa_rows(assertion_rows: list[dict[str, Any]], marked: dict[str, bool | None] | None = None
            ) -> list[dict[str, Any]]:
    """One row per QA pair: legible when all its assertions are; ``cer`` is the worst span's;
    ``answerable_from_scan``: what the pair's record says (``marked``, by QA id)."""
    by_qa: dict[str, list[dict[str, Any]]] = {}
    for r in assertion_rows:
        by_qa.setdefault(r["qa_id"], []).append(r)
    marked = marked or {}
    return [{"qa_id": q, "doc_id": rs[0]["doc_id"], "tier": rs[0]["tier"], "n_assertions": len(rs),
             "n_spans": sum(r["n_spans"] for r in rs), "cer": max(r["cer"] for r in rs),
             "digits_exact": all(r["digits_exact"] for r in rs),
             "legible": all(r["legible"] for r in rs), "answerable_from_scan": marked.get(q)}
            for q, rs in by_qa.items()]


def falsely_answerable(qa: list[dict[str, Any]]) -> list[str]:
    """QA ids marked answerable from the scan although a span of theirs breaks ``ANSWERABLE_RULE`` (reads with a
    CER over ``UNREADABLE_CER``, or with a digit wrong): what the check of ``synthdocqa legibility`` counts (it
    must be none)."""
    return [r["qa_id"] for r in qa if r["answerable_from_scan"] is True
            and not span_answerable(r["cer"], r["digits_exact"])]


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
                    "mean_cer": round(float(np.mean([r["cer"] for r in asr])), 4),
                    "qa_answerable": sum(r.get("answerable_from_scan") is True for r in qas),
                    "qa_answerable_share": round(sum(r.get("answerable_from_scan") is True for r in qas)
                                                 / max(1, len(qas)), 4)})
    return out


def measure_legibility(corpus_dir: str | os.PathLike[str], workers: int = 1,
                       progress: Callable[[int, int], None] | None = None, fresh: bool = True) -> dict[str, Any]:
    """Every evidence span of a finished corpus read on its scan (``fresh``: by Tesseract now; else the
    readings generation recorded); write the two tables; return the per-tier summary and the QA pairs
    marked answerable from the scan whose evidence does not read (``falsely_answerable``)."""
    reader = open_corpus(corpus_dir)
    ids = reader.doc_ids
    if fresh:
        version = tesseract_version()
        if version is None:
            raise LegibilityError("tesseract is not installed (Debian/Ubuntu: apt-get install tesseract-ocr)")
    else:
        version = next((r for r in (reader.record(d).ocr for d in ids) if r), None) or "not read"
    rows: list[dict[str, Any]] = []
    marked: dict[str, bool | None] = {}
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:  # each document is one tesseract process
        for n, doc_rows in enumerate(pool.map(lambda d: document_legibility(reader, d, fresh), ids), start=1):
            rows += doc_rows
            if progress:
                progress(n, len(ids))
    for d in ids:
        marked.update({q.id: q.answerable_from_scan for q in reader.qa(d)})
    qa = qa_rows(rows, marked)
    meta = {"corpus_manifest_sha256": sha256_bytes(reader.manifest_bytes()), "cer_threshold": str(CER_THRESHOLD),
            "tesseract": version, "psm": "7", "read": "now" if fresh else "at generation",
            "answerable_rule": ANSWERABLE_RULE}
    root = Path(corpus_dir)
    atomic_write_bytes(root / LEGIBILITY_TABLE, _parquet(rows, ASSERTION_COLUMNS, meta))
    atomic_write_bytes(root / LEGIBILITY_QA_TABLE, _parquet(qa, QA_COLUMNS, meta))
    false = falsely_answerable(qa)
    return {"documents": len(ids), "assertions": len(rows), "qa_pairs": len(qa), "tesseract": version,
            "cer_threshold": CER_THRESHOLD, "answerable_rule": ANSWERABLE_RULE, "by_tier": tier_summary(rows, qa),
            "marked_answerable": sum(r["answerable_from_scan"] is True for r in qa),
            "not_marked": sum(r["answerable_from_scan"] is None for r in qa),
            "falsely_answerable": len(false), "falsely_answerable_ids": false[:20]}


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
