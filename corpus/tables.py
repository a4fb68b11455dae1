"""Corpus-level tables (Parquet + JSON lines) assembled from the per-document records and files, then the
manifest that closes the corpus."""

from __future__ import annotations

import io
import json
import os
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text, sha256_bytes, sha256_file
from synthdocqa.ir.qa_models import Assertion, QAPair
from synthdocqa.ir.spec import CorpusSpec

from .store import (
    ASSERTIONS_TABLE,
    DOCUMENTS_TABLE,
    MANIFEST,
    PAGES_TABLE,
    QA_FILE,
    QA_TABLE,
    TABLES,
    CorpusManifest,
    DocFiles,
    DocRecord,
    open_corpus,
)


def _parquet_bytes(rows: list[dict[str, Any]], columns: list[str]) -> bytes:
    df = pd.DataFrame(rows, columns=columns)
    table = pa.Table.from_pandas(df, preserve_index=False)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", write_statistics=True)
    return buf.getvalue()


def document_row(r: DocRecord) -> dict[str, Any]:
    """A ``documents.parquet`` row (``verify`` rebuilds the tables with the same functions)."""
    f = DocFiles(r.doc_id)
    return {"doc_id": r.doc_id, "index": r.index, "domain": r.domain, "recipe": r.recipe, "title": r.title,
            "tier": r.tier, "n_pages": r.n_pages, "n_facts": r.n_facts, "n_spans": r.n_spans, "n_qa": r.n_qa,
            "n_assertions": r.n_assertions, "pdf": f.pdf, "scan_pdf": f.scan_pdf, "ir": f.ir}


def qa_row(q: QAPair) -> dict[str, Any]:
    return {
        "qa_id": q.id, "doc_id": q.doc_id, "question": q.question, "answer_text": q.answer_text,
        "answer_kind": q.answer.kind, "answer_json": q.answer.model_dump_json(),
        "accepted_answers": json.dumps(q.accepted_answers, ensure_ascii=False), "qa_type": q.qa_type,
        "element_type": q.element_type, "difficulty": q.difficulty,
        "page_nos": json.dumps(q.page_nos), "fact_ids": json.dumps(q.fact_ids),
        "assertion_ids": json.dumps(q.assertion_ids), "answerable_from_scan": q.answerable_from_scan,
    }


def assertion_row(a: Assertion) -> dict[str, Any]:
    pages = sorted({e.page_no for e in a.evidence})
    return {
        "assertion_id": a.id, "qa_id": a.qa_id, "doc_id": a.doc_id, "claim": a.claim,
        "value_kind": a.value.kind, "value_json": a.value.model_dump_json(),
        "fact_ids": json.dumps(a.fact_ids), "page_nos": json.dumps(pages),
        "evidence_json": json.dumps([e.model_dump(mode="json") for e in a.evidence], ensure_ascii=False),
        "derivation_json": a.derivation.model_dump_json() if a.derivation else "",
    }


QA_COLUMNS = [
    "qa_id", "doc_id", "question", "answer_text", "answer_kind", "answer_json", "accepted_answers", "qa_type",
    "element_type", "difficulty", "page_nos", "fact_ids", "assertion_ids", "answerable_from_scan"]
ASSERTION_COLUMNS = ["assertion_id", "qa_id", "doc_id", "claim", "value_kind", "value_json", "fact_ids",
                     "page_nos", "evidence_json", "derivation_json"]
DOC_COLUMNS = ["doc_id", "index", "domain", "recipe", "title", "tier", "n_pages", "n_facts", "n_spans", "n_qa",
               "n_assertions", "pdf", "scan_pdf", "ir"]
PAGE_COLUMNS = ["doc_id", "page_no", "width_pt", "height_pt", "layout_id", "image", "scan", "n_spans", "n_qa"]


def corpus_stats(records: list[DocRecord], qa: list[QAPair], asr: list[Assertion]) -> dict[str, Any]:
    n_pages = sum(r.n_pages for r in records)
    return {
        "documents": len(records),
        "pages": n_pages,
        "qa_pairs": len(qa),
        "assertions": len(asr),
        "pages_per_doc": round(n_pages / max(1, len(records)), 3),
        "qa_per_page": round(len(qa) / max(1, n_pages), 3),
        "assertions_per_qa": round(len(asr) / max(1, len(qa)), 3),
        "domains": len({r.domain for r in records}),
        "by_domain": dict(sorted(Counter(r.domain for r in records).items())),
        "by_recipe": dict(sorted(Counter(r.recipe for r in records).items())),
        "by_tier": dict(sorted(Counter(r.tier for r in records).items())),
        "pages_by_tier": dict(sorted(Counter(p.tier or r.tier for r in records for p in r.pages).items())),
        "pages_by_device": dict(sorted(Counter(p.device or r.device for r in records for p in r.pages).items())),
        "qa_by_type": dict(sorted(Counter(q.qa_type for q in qa).items())),
        "qa_by_element": dict(sorted(Counter(q.element_type for q in qa).items())),
        "qa_by_difficulty": dict(sorted(Counter(q.difficulty for q in qa).items())),
    }


def write_corpus(corpus_dir: str | os.PathLike[str], spec: CorpusSpec, records: list[DocRecord],
                 code_version: str, check: Callable[[], None] | None = None) -> CorpusManifest:
    """Assemble the corpus tables from complete documents, then write the manifest (last, atomically).

    ``check`` is called before every file is written (the run's lock check). The QA and assertion rows are
    read back from the documents' files (hash-checked when their records were made) rather than handed over
    by the tasks: the records travel through Prefect's persisted task results, where a reference corpus's
    rows would add ~70 MB of result files a run, while reading them back takes ~0.8 s of its ~10 minutes
    (25 ms for 3 reference documents, 1,002 rows)."""
    check = check or (lambda: None)
    root = Path(corpus_dir)
    reader = open_corpus(root, checked=False)  # the documents were verified when their records were made
    records = sorted(records, key=lambda r: r.index)
    all_qa: list[QAPair] = []
    all_asr: list[Assertion] = []
    for r in records:
        all_qa += reader.qa(r.doc_id)
        all_asr += reader.assertions(r.doc_id)
    doc_rows = [document_row(r) for r in records]
    page_rows = [p.model_dump() for r in records for p in r.pages]
    outputs = {
        DOCUMENTS_TABLE: _parquet_bytes(doc_rows, DOC_COLUMNS),
        PAGES_TABLE: _parquet_bytes(page_rows, PAGE_COLUMNS),
        QA_TABLE: _parquet_bytes([qa_row(q) for q in all_qa], QA_COLUMNS),
        ASSERTIONS_TABLE: _parquet_bytes([assertion_row(a) for a in all_asr], ASSERTION_COLUMNS),
        QA_FILE: "".join(q.model_dump_json() + "\n" for q in all_qa).encode("utf-8"),
    }
    assert set(outputs) == set(TABLES)
    files: dict[str, str] = {}
    for name, data in outputs.items():
        check()
        atomic_write_bytes(root / name, data)
        files[name] = sha256_bytes(data)
    for r in records:
        files.update(r.files)
        rec_rel = DocFiles(r.doc_id).record
        files[rec_rel] = sha256_file(root / rec_rel)
    manifest = CorpusManifest(
        name=spec.name, spec=spec, spec_hash=spec.spec_hash(), code_version=code_version,
        stats=corpus_stats(records, all_qa, all_asr), documents=[r.doc_id for r in records],
        files=dict(sorted(files.items())))
    check()
    atomic_write_text(root / MANIFEST, manifest.to_json())
    return manifest
