"""The generation chain for one document, in memory, with no orchestrator in it.

plan -> choose layouts -> render PDF -> sample scan params into the IR -> rasterize -> degrade
-> map evidence boxes -> derive QA -> the document's files and record as bytes. ``corpus.generate``
writes them (``doc.json`` last) and ``corpus.reproduce`` compares them with a corpus on disk.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from corpus.store import DocFiles, DocRecord, PageRecord
from generation.planner import plan_document
from generation.qa import build_evidence, derive_qa
from ir import DocumentIR, Rng
from ir.boxes import ScanBox, pdf_to_stored_px, stored_scan_box
from ir.files import sha256_bytes
from ir.spec import CorpusSpec

GENERATOR_VERSION = "1"

_ROOT = Path(__file__).resolve().parents[1]
BYTE_SOURCES: tuple[str, ...] = ("ir", "generation", "renderers", "degradations", "corpus")
"""What a corpus's bytes depend on, relative to the folder that holds the packages (the checkout, or
site-packages for an installed wheel): the packages that build a document, with their package data (the
shipped layout-CLIP's weights and config are in ``renderers/layout_clip``)."""
VIEW_SOURCES: tuple[str, ...] = ("corpus/views",)
"""Left out of the digest: views of a finished corpus (report, lint, legibility, exports, gallery) decide
none of its bytes, so editing one leaves every corpus current (no building module imports them: a test in
tests/test_architecture.py checks it)."""


def source_digest(root: Path = _ROOT, sources: tuple[str, ...] = BYTE_SOURCES,
                  views: tuple[str, ...] = VIEW_SOURCES) -> str:
    """A digest of every file under ``sources`` but ``views`` (modules, model configs and weights; compiled
    caches aside): a table edited in ``degradations`` changes it, so a corpus made before the edit is not
    taken as current; an edit of the report's CSS does not."""
    h = hashlib.sha256()
    skip = tuple(root / v for v in views)
    for src in sources:
        files = (root / src).rglob("*")
        for f in sorted(f for f in files if f.is_file() and "__pycache__" not in f.parts and f.suffix != ".pyc"
                        and not any(f.is_relative_to(v) for v in skip)):
            h.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


@functools.cache
def code_version() -> str:
    """Version of the code that determines corpus bytes: package version, generator revision and the digest
    of the sources (``source_digest``), so no edit of them can pass for the code that made a corpus."""
    try:
        v = version("synthdocqa")
    except PackageNotFoundError:
        v = "0+unknown"
    return f"{v}+gen{GENERATOR_VERSION}.src{source_digest()}"


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
    from degradations import (
        degrade_page,
        encode_scan,
        map_boxes,
        page_captures,
        sample_profile,
        scan_extension,
        scan_pdf,
    )
    from renderers import rasterize, render_document

    one_thread_per_worker()
    doc = complete_ir(spec, index, layout_chooser)
    result = render_document(doc)
    pdf, rmap = result.pdf, result.render_map
    n_pages = len(rmap.pages)
    # Scan parameters are sampled into the IR once the page count is known; every image below is a
    # pure function of the finished IR (replayable from ir.json).
    tier, device = doc.perturbation.tier, doc.perturbation.device
    profile = sample_profile(tier, n_pages, Rng(doc.seed, doc.seed_path).fork("scan"), device,
                             page_captures(spec.scan_plan, index, tier, device, n_pages))
    doc = doc.model_copy(update={"perturbation": profile})
    doc = DocumentIR.model_validate_json(doc.to_json())
    paths = DocFiles(doc.doc_id)
    files: dict[str, bytes] = {}
    page_images = rasterize(pdf, spec.dpi)
    transforms: dict[int, list] = {}
    covers: dict[int, Callable[[list[float]], list[str]]] = {}  # page -> what covers a box (not the image)
    scans: list[bytes] = []
    page_recs: list[PageRecord] = []
    for i, (png, image) in enumerate(page_images, start=1):
        files[paths.page_image(i)] = png
        page = profile.pages[i - 1]
        degraded = degrade_page(image, page, doc.seed, spec.dpi)
        transforms[i] = degraded.transforms
        covers[i] = degraded.occlusion_lookup()
        page_tier, page_device = profile.page_tier(page), profile.page_device(page)
        scan_bytes = encode_scan(degraded.image, page_tier, device=page_device)
        ext = scan_extension(page_tier, page_device)
        files[paths.scan_image(i, ext)] = scan_bytes
        scans.append(scan_bytes)
        rp = rmap.pages[i - 1]
        page_recs.append(PageRecord(doc_id=doc.doc_id, page_no=i, width_pt=rp.width, height_pt=rp.height,
                                    layout_id=rp.layout_id, image=paths.page_image(i),
                                    scan=paths.scan_image(i, ext),
                                    n_spans=sum(1 for s in rmap.spans if s.page_no == i),
                                    tier=page_tier, device=page_device))

    # Each span's box on the scan, by span index: its stored page-pixel box mapped through the page's
    # geometric stages.
    scan_boxes: list[ScanBox | None] = [None] * len(rmap.spans)
    occluded: list[list[str]] = [[] for _ in rmap.spans]  # occluding stages that cover each span
    for page_no in sorted(transforms):
        idx = [k for k, s in enumerate(rmap.spans) if s.page_no == page_no]
        if not idx:
            continue
        px = [pdf_to_stored_px(rmap.spans[k].bbox, spec.dpi) for k in idx]
        quads, boxes = map_boxes(px, transforms[page_no])
        for k, q, a, b in zip(idx, quads, boxes, px, strict=True):
            scan_boxes[k] = stored_scan_box(q, a)
            occluded[k] = covers[page_no](b)

    evidence = build_evidence(rmap, dpi=spec.dpi, scan_boxes=scan_boxes, occluded_by=occluded)
    qa, asr = derive_qa(doc, rmap, evidence, qa_per_page=spec.qa_per_page)
    qa_pages: dict[int, int] = {}
    for q in qa:
        for p in q.page_nos[:1]:
            qa_pages[p] = qa_pages.get(p, 0) + 1
    page_recs = [p.model_copy(update={"n_qa": qa_pages.get(p.page_no, 0)}) for p in page_recs]
    files[paths.ir] = doc.to_json().encode()
    files[paths.pdf] = pdf
    files[paths.render_map] = rmap.to_json().encode()
    files[paths.scan_pdf] = scan_pdf(scans, [(p.width, p.height) for p in rmap.pages])
    files[paths.qa] = "".join(q.model_dump_json() + "\n" for q in qa).encode()
    files[paths.assertions] = "".join(a.model_dump_json() + "\n" for a in asr).encode()
    record = DocRecord(
        doc_id=doc.doc_id, index=index, spec_hash=spec.spec_hash(), code_version=code_version(),
        domain=doc.domain, recipe=doc.recipe, title=doc.title, tier=profile.tier, device=profile.device, n_pages=n_pages,
        n_facts=len(doc.facts), n_spans=len(rmap.spans), n_qa=len(qa), n_assertions=len(asr), pages=page_recs,
        files={k: sha256_bytes(v) for k, v in sorted(files.items())})
    return BuiltDocument(doc=doc, files=files, record=record)
