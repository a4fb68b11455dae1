"""The generation chain for one document and for a corpus, with no orchestrator in it.

plan -> choose layouts -> render PDF -> sample scan params into the IR -> rasterize -> degrade
-> map evidence boxes -> derive QA -> write files (``doc.json`` last). Prefect tasks in
``flows/generate.py`` call :func:`generate_document`; the CLI and the deployments share this code.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from corpus.store import (
    DOC_RECORD,
    DocRecord,
    PageRecord,
    complete_doc_record,
    doc_dir,
)
from ir import DocumentIR, Rng
from ir.files import atomic_write_bytes, atomic_write_text, sha256_bytes
from ir.planner import plan_document
from ir.qa import build_evidence, derive_qa
from ir.spec import CorpusSpec

GENERATOR_VERSION = "1"


def code_version() -> str:
    """Version of the code that determines corpus bytes (package version + generator revision)."""
    try:
        v = version("synthdocqa")
    except PackageNotFoundError:
        v = "0+unknown"
    return f"{v}+gen{GENERATOR_VERSION}"


@dataclass
class BuiltDocument:
    """Everything a document produces, in memory (so it can be compared or written)."""

    doc: DocumentIR
    files: dict[str, bytes]
    record: DocRecord


def complete_ir(spec: CorpusSpec, index: int, layout_chooser: Callable[[DocumentIR], DocumentIR] | None = None
                ) -> DocumentIR:
    """The planned IR with layouts chosen (CLIP retrieval by default)."""
    doc = plan_document(spec, index)
    if layout_chooser is None:
        layout_chooser = default_layout_chooser()
    return layout_chooser(doc)


@functools.cache
def one_thread_per_worker() -> None:
    """Each worker process uses one core: parallelism comes from the task runner, not from OpenCV's pool
    (oversubscribed threads make two workers slower than one on a 2-core machine)."""
    import cv2
    import torch

    cv2.setNumThreads(1)
    torch.set_num_threads(1)


@functools.cache
def default_layout_chooser() -> Callable[[DocumentIR], DocumentIR]:
    """CLIP retrieval (the shipped layout-CLIP) over the built-in 10,000-layout library, once per process."""
    from renderers.retrieval import default_layout_chooser as clip_chooser

    return clip_chooser()


def build_document(spec: CorpusSpec, index: int, layout_chooser: Callable[[DocumentIR], DocumentIR] | None = None
                   ) -> BuiltDocument:
    from degradations import degrade_page, encode_scan, map_boxes, sample_profile, scan_extension, scan_pdf
    from renderers import rasterize, render_document

    one_thread_per_worker()
    doc = complete_ir(spec, index, layout_chooser)
    result = render_document(doc)
    pdf, rmap = result.pdf, result.render_map
    n_pages = len(rmap.pages)
    # Scan parameters are sampled into the IR once the page count is known; every image below is a
    # pure function of the finished IR (replayable from ir.json).
    profile = sample_profile(doc.perturbation.tier, n_pages, Rng(doc.seed, doc.seed_path).fork("scan"))
    doc = doc.model_copy(update={"perturbation": profile})
    doc = DocumentIR.model_validate_json(doc.to_json())
    rel = f"docs/{doc.doc_id}"
    files: dict[str, bytes] = {}
    page_images = rasterize(pdf, spec.dpi)
    transforms: dict[int, list] = {}
    scans: list[bytes] = []
    page_recs: list[PageRecord] = []
    for i, (png, image) in enumerate(page_images, start=1):
        files[f"{rel}/pages/page-{i:04d}.png"] = png
        page = profile.pages[i - 1]
        degraded = degrade_page(image, page, doc.seed, spec.dpi)
        transforms[i] = degraded.transforms
        scan_bytes = encode_scan(degraded.image, profile.tier)
        ext = scan_extension(profile.tier)
        files[f"{rel}/scan/page-{i:04d}{ext}"] = scan_bytes
        scans.append(scan_bytes)
        rp = rmap.pages[i - 1]
        page_recs.append(PageRecord(doc_id=doc.doc_id, page_no=i, width_pt=rp.width, height_pt=rp.height,
                                    layout_id=rp.layout_id, image=f"{rel}/pages/page-{i:04d}.png",
                                    scan=f"{rel}/scan/page-{i:04d}{ext}",
                                    n_spans=sum(1 for s in rmap.spans if s.page_no == i)))

    mapped: dict[tuple, tuple] = {}
    for page_no in sorted(transforms):
        spans = [s for s in rmap.spans if s.page_no == page_no]
        if not spans:
            continue
        px = [tuple(round(v * spec.dpi / 72.0, 2) for v in s.bbox) for s in spans]
        quads, boxes = map_boxes(px, transforms[page_no])
        for b, q, a in zip(px, quads, boxes, strict=True):
            mapped[(page_no, b)] = (tuple(tuple(round(float(c), 2) for c in pt) for pt in q),
                                    tuple(round(float(c), 2) for c in a))

    def scan_mapper(page_no: int, bbox_px):
        return mapped[(page_no, tuple(bbox_px))]

    evidence = build_evidence(rmap, dpi=spec.dpi, scan_mapper=scan_mapper)
    qa, asr = derive_qa(doc, rmap, evidence, qa_per_page=spec.qa_per_page)
    qa_pages: dict[int, int] = {}
    for q in qa:
        for p in q.page_nos[:1]:
            qa_pages[p] = qa_pages.get(p, 0) + 1
    page_recs = [p.model_copy(update={"n_qa": qa_pages.get(p.page_no, 0)}) for p in page_recs]
    files[f"{rel}/ir.json"] = doc.to_json().encode()
    files[f"{rel}/document.pdf"] = pdf
    files[f"{rel}/render_map.json"] = rmap.to_json().encode()
    files[f"{rel}/scan.pdf"] = scan_pdf(scans, [(p.width, p.height) for p in rmap.pages])
    files[f"{rel}/qa.jsonl"] = "".join(q.model_dump_json() + "\n" for q in qa).encode()
    files[f"{rel}/assertions.jsonl"] = "".join(a.model_dump_json() + "\n" for a in asr).encode()
    record = DocRecord(
        doc_id=doc.doc_id, index=index, spec_hash=spec.spec_hash(), code_version=code_version(),
        domain=doc.domain, recipe=doc.recipe, title=doc.title, tier=profile.tier, n_pages=n_pages,
        n_facts=len(doc.facts), n_spans=len(rmap.spans), n_qa=len(qa), n_assertions=len(asr), pages=page_recs,
        files={k: sha256_bytes(v) for k, v in sorted(files.items())})
    return BuiltDocument(doc=doc, files=files, record=record)


def generate_document(spec: CorpusSpec, index: int, corpus_dir: str | os.PathLike[str],
                      layout_chooser: Callable[[DocumentIR], DocumentIR] | None = None) -> DocRecord:
    """Build one document and write it; a complete, verified document is skipped (resume)."""
    done = complete_doc_record(corpus_dir, doc_id_for(index), spec.spec_hash(), code_version())
    if done is not None:
        return done
    built = build_document(spec, index, layout_chooser)
    root = Path(corpus_dir)
    d = doc_dir(root, built.doc.doc_id)
    if (d / DOC_RECORD).exists():
        (d / DOC_RECORD).unlink()
    for relpath, data in built.files.items():
        atomic_write_bytes(root / relpath, data)
    atomic_write_text(d / DOC_RECORD, built.record.to_json())
    return built.record


def doc_id_for(index: int) -> str:
    return f"doc-{index:05d}"


def doc_indices(spec: CorpusSpec, only: Iterable[int] | None = None) -> list[int]:
    if only is None:
        return list(range(spec.n_docs))
    bad = [i for i in only if not 0 <= i < spec.n_docs]
    if bad:
        raise ValueError(f"--only {bad}: document indices must lie in [0, {spec.n_docs - 1}]")
    return sorted(set(only))


def stats_line(manifest_stats: dict) -> str:
    s = manifest_stats
    return (f"{s['documents']} docs, {s['pages']} pages, {s['qa_pairs']} QA, {s['assertions']} assertions "
            f"({s['pages_per_doc']} pages/doc, {s['qa_per_page']} QA/page, {s['assertions_per_qa']} assertions/QA)")


def json_dumps(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True)
