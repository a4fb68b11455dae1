"""The SynthDocQA dataset-card layout: ``ALL_queries.json`` + ``manifest_files/<doc_id>.json`` + the PDFs,
page images, scans and generation IR they name.

The public card's field names come first and keep their meaning (``Id``, ``query``, ``refs[{filePath,
element_type, Artifact_ID, data_source}]``, ``assertions``; ``doc_id``, ``title``, ``topic_id``,
``recipe_name``, ``seed``, ``files``, ``document_brief``, ``structure[{element_type, Artifact_ID, caption,
qa_candidates}]``). Ours sit alongside in snake_case (typed answers, pages, evidence boxes), never
replacing theirs, so a consumer of the public card reads our export unchanged.

Mapping: ``Artifact_ID`` is the IR block id (``b012``); ``element_type`` comes from the block's type;
``filePath`` is the PDF inside the export, ``data_source`` the same file's path in the corpus;
``assertions`` are the atomic claims; ``topic_id`` is the document's domain slug.

The export is self-contained: every file a manifest names (``files``, ``ir``, ``pages[].image`` and
``pages[].scan``) and every ``filePath`` is a path inside the export folder. ``data_source`` alone is
provenance, the corpus path the PDF was copied from.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from synthdocqa.ir.answers import ANSWER_POLICY
from synthdocqa.ir.qa_models import Assertion, QAPair

from ...store import CorpusReader, DocFiles, open_corpus
from .common import (
    block_caption,
    block_pages,
    canonical,
    element_of,
    export_errors,
    marker_of,
    qa_block_ids,
    write_export_dir,
)

FORMAT = "synthdocqa-card"
QUERIES_FILE = "ALL_queries.json"
MANIFEST_DIR = "manifest_files"
PDF_DIR = "grounding_pdfs"
SCAN_DIR = "scan_pdfs"
PAGE_DIR = "page_images"
SCAN_IMAGE_DIR = "scan_images"
IR_DIR = "ir"


def _pdf_path(doc_id: str) -> str:
    return f"{PDF_DIR}/{doc_id}.pdf"


def _scan_pdf_path(doc_id: str) -> str:
    return f"{SCAN_DIR}/{doc_id}.pdf"


def _ir_path(doc_id: str) -> str:
    return f"{IR_DIR}/{doc_id}.json"


def _image_path(folder: str, doc_id: str, corpus_rel: str) -> str:
    """Where a page image or scan of the corpus lies in the export: ``<folder>/<doc_id>/<its file name>``."""
    return f"{folder}/{doc_id}/{Path(corpus_rel).name}"


def export_files(view: CorpusReader, doc_id: str) -> list[tuple[str, str]]:
    """(path in the export, path in the corpus) of every file the document's manifest names."""
    f = DocFiles(doc_id)
    out = [(_pdf_path(doc_id), f.pdf), (_scan_pdf_path(doc_id), f.scan_pdf), (_ir_path(doc_id), f.ir)]
    for p in view.record(doc_id).pages:
        out += [(_image_path(PAGE_DIR, doc_id, p.image), p.image), (_image_path(SCAN_IMAGE_DIR, doc_id, p.scan), p.scan)]
    return out


def _evidence(a: Assertion) -> list[dict[str, Any]]:
    ev = list(a.evidence)
    if a.derivation is not None:
        ev += [e for op in a.derivation.operands for e in op.evidence if e not in ev]
    return [e.model_dump(mode="json") for e in ev]


def query_entry(q: QAPair, asr: dict[str, Assertion], elements: dict[str, str],
                pages: dict[str, list[int]]) -> dict[str, Any]:
    """One ``ALL_queries.json`` entry: the card's four fields, then ours."""
    own = [asr[aid] for aid in q.assertion_ids if aid in asr]
    blocks = qa_block_ids(q, asr)
    pdf = _pdf_path(q.doc_id)
    source = DocFiles(q.doc_id).pdf
    refs = [{"filePath": pdf, "element_type": elements.get(b, q.element_type), "Artifact_ID": b,
             "data_source": source, "doc_id": q.doc_id, "page_nos": pages.get(b, [])} for b in blocks]
    if not refs:  # unanswerable: the document is the reference, no element was drawn for it
        refs = [{"filePath": pdf, "element_type": q.element_type, "Artifact_ID": None, "data_source": source,
                 "doc_id": q.doc_id, "page_nos": []}]
    return {
        "Id": q.id,
        "query": q.question,
        "refs": refs,
        "assertions": [a.claim for a in own],
        # ours
        "doc_id": q.doc_id,
        "answer": q.answer.model_dump(mode="json"),
        "answer_text": q.answer_text,
        "accepted_answers": list(q.accepted_answers),
        "qa_type": q.qa_type,
        "element_type": q.element_type,
        "difficulty": q.difficulty,
        "page_nos": list(q.page_nos),
        "fact_ids": list(q.fact_ids),
        "answerable_from_scan": q.answerable_from_scan,
        "assertion_details": [{
            "id": a.id, "claim": a.claim, "value": a.value.model_dump(mode="json"), "fact_ids": list(a.fact_ids),
            "evidence": _evidence(a),
            "derivation": a.derivation.model_dump(mode="json") if a.derivation else None} for a in own],
    }


def document_manifest(view: CorpusReader, doc_id: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(``manifest_files/<doc_id>.json`` content, the document's ``ALL_queries.json`` entries)."""
    doc = view.ir(doc_id)
    rec = view.record(doc_id)
    rmap = view.render_map(doc_id)
    qa = view.qa(doc_id)
    asr = {a.id: a for a in view.assertions(doc_id)}
    elements = {b.id: element_of(b) for _, b in doc.blocks()}
    pages = block_pages(rmap, doc)
    queries = [query_entry(q, asr, elements, pages) for q in qa]
    by_block: dict[str, list[QAPair]] = {}
    for q in qa:
        for b in qa_block_ids(q, asr):
            by_block.setdefault(b, []).append(q)
    structure = [{
        "element_type": element_of(b),
        "Artifact_ID": b.id,
        "caption": block_caption(b),
        "qa_candidates": [q.question for q in by_block.get(b.id, [])],
        # ours
        "block_type": b.type,
        "page_nos": pages[b.id],
        "qa_ids": [q.id for q in by_block.get(b.id, [])],
    } for _, b in doc.blocks()]
    manifest = {
        "doc_id": doc.doc_id,
        "title": doc.title,
        "topic_id": doc.domain,
        "recipe_name": doc.recipe,
        "seed": doc.seed,
        "files": [_pdf_path(doc_id), _scan_pdf_path(doc_id)],
        "document_brief": doc.topic_brief,
        "structure": structure,
        # ours
        "domain": doc.domain,
        "seed_path": list(doc.seed_path),
        "tier": rec.tier,
        "n_pages": rec.n_pages,
        "n_qa": rec.n_qa,
        "n_assertions": rec.n_assertions,
        "ir": _ir_path(doc_id),
        "pages": [{"page_no": p.page_no, "width_pt": p.width_pt, "height_pt": p.height_pt,
                   "layout_id": p.layout_id, "image": _image_path(PAGE_DIR, doc_id, p.image),
                   "scan": _image_path(SCAN_IMAGE_DIR, doc_id, p.scan)} for p in rec.pages],
        "answer_policy": ANSWER_POLICY,
    }
    return manifest, queries


@export_errors
def export_card(corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, int]:
    """Write the card layout to ``out`` (atomically); returns counts for the caller to print."""
    view = open_corpus(corpus_dir)
    counts = {"documents": 0, "queries": 0, "structure": 0}

    def fill(tmp: Path) -> None:
        queries: list[dict[str, Any]] = []
        (tmp / MANIFEST_DIR).mkdir()
        for doc_id in view.doc_ids:
            manifest, qs = document_manifest(view, doc_id)
            (tmp / MANIFEST_DIR / f"{doc_id}.json").write_text(canonical(manifest), "utf-8")
            for dst, src in export_files(view, doc_id):
                (tmp / dst).parent.mkdir(parents=True, exist_ok=True)
                (tmp / dst).write_bytes(view.read_bytes(src))  # checked against the manifest's sha256
            queries += qs
            counts["documents"] += 1
            counts["structure"] += len(manifest["structure"])
        counts["queries"] = len(queries)
        (tmp / QUERIES_FILE).write_text(canonical(queries), "utf-8")

    write_export_dir(out, FORMAT, fill, marker_of(view))
    return counts
