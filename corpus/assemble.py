"""The generation chain for one document, in memory, with no orchestrator in it.

``build_document`` is the pipeline, one named step a line, each taking and returning typed values:
``complete_ir`` (plan + choose layouts) -> ``render`` (PDF + RenderMap) -> ``sample_scans`` (scan parameters
into the IR) -> ``capture`` (rasterise, degrade, encode each page) -> ``map_evidence_boxes`` (span boxes onto
the scans) -> ``build_evidence`` + ``derive_qa`` -> ``package`` (the document's files and record as bytes).
``corpus.generate`` writes them (``doc.json`` last) and ``corpus.reproduce`` compares them with a corpus on
disk.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING

from synthdocqa.corpus.store import DocFiles, DocRecord, PageRecord
from synthdocqa.generation.planner import plan_document
from synthdocqa.generation.qa import build_evidence, derive_qa
from synthdocqa.ir import DocumentIR, Rng
from synthdocqa.ir.boxes import ScanBox, pdf_to_stored_px, stored_scan_box
from synthdocqa.ir.files import sha256_bytes
from synthdocqa.ir.qa_models import Assertion, QAPair
from synthdocqa.ir.rendermap import RenderMap
from synthdocqa.ir.spec import CorpusSpec
from synthdocqa.ir.vocab import Device, Tier

if TYPE_CHECKING:
    from synthdocqa.degradations import FaxOrigin

GENERATOR_VERSION = "1"

_ROOT = Path(__file__).resolve().parents[1]
BYTE_SOURCES: tuple[str, ...] = ("ir", "generation", "renderers", "degradations", "corpus")
"""What a corpus's bytes depend on, relative to the folder that holds the packages (the checkout, or
site-packages for an installed wheel): the packages that build a document, with their package data (the
shipped layout-CLIP's weights and config are in ``renderers/layout/layout_clip``)."""
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
    (oversubscribed threads make two workers slower than one on a 2-core machine). The layout-CLIP runs
    on ONNX Runtime with one thread of its own (``renderers.layout.clip_onnx``); torch is not imported by
    generation, and where something else imported it, it gets one thread too."""
    import sys

    import cv2

    cv2.setNumThreads(1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


@functools.cache
def default_layout_chooser() -> Callable[[DocumentIR], DocumentIR]:
    """CLIP retrieval (the shipped layout-CLIP) over the built-in 10,000-layout library, once per process."""
    from synthdocqa.renderers.layout.retrieval import default_layout_chooser as clip_chooser

    return clip_chooser()


@dataclass(frozen=True)
class RenderedDocument:
    """The PDF of a finished plan and the box of every fact it drew."""

    doc: DocumentIR
    pdf: bytes
    render_map: RenderMap


@dataclass(frozen=True)
class CapturedPage:
    """One page as the capture device left it: the clean page image, the scan, and what the scan did to the
    page's geometry (``transforms``) and what it drew over it (``covers``: a box -> the stages covering it)."""

    page_no: int
    png: bytes
    scan: bytes
    scan_ext: str
    tier: Tier
    device: Device
    transforms: list
    covers: Callable[[list[float]], list[str]]
    moved_by: tuple[str, ...] = ()
    """The geometric stages that moved the page's content, in order (a box they carry out of the frame is lost
    to the last of them)."""
    covers_on_scan: Callable[[list[float]], list[str]] = lambda box: []
    """A box on the scan -> the stages that drew over it there (a fax header, lines lost in transmission)."""


CONTENTS_PASSES = 4
"""Renders tried until the table of contents prints the pages its sections start on."""


def render(doc: DocumentIR) -> RenderedDocument:
    """The PDF and its render map. A document with a table of contents is rendered until the contents
    give the pages where the flow pass put its headings (the planner could only guess them): each pass
    writes the pages the last one found into the contents' facts (``generation.content.front_matter``)."""
    from synthdocqa.generation.content.front_matter import printed_pages, start_pages, with_start_pages
    from synthdocqa.renderers import render_document

    for _ in range(CONTENTS_PASSES):
        result = render_document(doc)
        first_page: dict[str, int] = {}
        for pl in result.placements:
            first_page.setdefault(pl.block_id, pl.page_no)
        found = start_pages(doc, first_page)
        if found == {k: v for k, v in printed_pages(doc).items() if k in found}:
            return RenderedDocument(doc, result.pdf, result.render_map)
        doc = with_start_pages(doc, found)
    raise RuntimeError(f"{doc.doc_id}: the table of contents did not settle in {CONTENTS_PASSES} renders")


def fax_origin(doc: DocumentIR) -> FaxOrigin | None:
    """What a fax of ``doc`` says it is: sent by its issuer from the issuer's number, on or after its date
    (None for a document without a date or an issuer: the header's own draw then)."""
    from synthdocqa.degradations import FaxOrigin

    issuer = next((e for e in doc.entities if e.role == "issuer"), None)
    if doc.as_at is None or issuer is None:
        return None
    return FaxOrigin(doc.as_at, issuer.name, issuer.attributes.get("phone", ""))


def sample_scans(spec: CorpusSpec, index: int, rendered: RenderedDocument) -> DocumentIR:
    """The IR with its scan parameters sampled, now that the page count is known; every image after this is
    a pure function of the finished IR (replayable from ir.json)."""
    from synthdocqa.degradations import mark_targets, page_captures, sample_profile

    doc = rendered.doc
    n_pages = len(rendered.render_map.pages)
    tier, device = doc.perturbation.tier, doc.perturbation.device
    profile = sample_profile(tier, n_pages, Rng(doc.seed, doc.seed_path).fork("scan"), device,
                             page_captures(spec.scan_plan, index, tier, device, n_pages), fax=fax_origin(doc),
                             targets=mark_targets(doc, rendered.render_map))
    doc = doc.model_copy(update={"perturbation": profile})
    # Through its JSON once: the scans are made from exactly the IR that ir.json stores and a replay reads
    # back (model_copy does not validate the update, and JSON normalises what validation would).
    return DocumentIR.model_validate_json(doc.to_json())


def capture(doc: DocumentIR, pdf: bytes, dpi: int, scan_dpi: int | None = None) -> list[CapturedPage]:
    """Rasterise every page (pymupdf) at ``dpi`` for the page images and scan it with its page's capture
    device and tier at ``scan_dpi`` (the same raster where the two are equal, else a second one)."""
    from synthdocqa.degradations import GEOMETRIC_STAGES, degrade_page, encode_scan, scan_extension
    from synthdocqa.renderers import rasterize

    scan_dpi = dpi if scan_dpi is None else scan_dpi
    profile = doc.perturbation
    rasters = rasterize(pdf, dpi)
    scan_rasters = rasters if scan_dpi == dpi else rasterize(pdf, scan_dpi, png=False)
    pages = []
    for i, ((png, _), (_, image)) in enumerate(zip(rasters, scan_rasters, strict=True), start=1):
        page = profile.pages[i - 1]
        degraded = degrade_page(image, page, doc.seed, scan_dpi)
        tier, device = profile.page_tier(page), profile.page_device(page)
        pages.append(CapturedPage(i, png, encode_scan(degraded.image, tier, device=device),
                                  scan_extension(tier, device), tier, device, degraded.transforms,
                                  degraded.occlusion_lookup(),
                                  tuple(s.name for s in page.stages if s.enabled and s.name in GEOMETRIC_STAGES),
                                  degraded.overdrawn_lookup()))
    return pages


def map_evidence_boxes(render_map: RenderMap, pages: list[CapturedPage], scan_dpi: int
                       ) -> tuple[list[ScanBox | None], list[list[str]]]:
    """Each span's box on the scan (its stored box at the scan's resolution through the page's geometric
    stages) and the stages that hid it, by span index: the occluding stages that cover it, and the last
    geometric stage when the box left the scan's frame (a tight crop, a shift on the platen)."""
    from synthdocqa.degradations import map_boxes

    scan_boxes: list[ScanBox | None] = [None] * len(render_map.spans)
    occluded: list[list[str]] = [[] for _ in render_map.spans]
    for page in pages:
        idx = [k for k, s in enumerate(render_map.spans) if s.page_no == page.page_no]
        if not idx:
            continue
        px = [pdf_to_stored_px(render_map.spans[k].bbox, scan_dpi) for k in idx]
        quads, boxes = map_boxes(px, page.transforms)
        size = render_map.pages[page.page_no - 1]
        w, h = size.width * scan_dpi / 72.0, size.height * scan_dpi / 72.0
        for k, q, a, b in zip(idx, quads, boxes, px, strict=True):
            scan_boxes[k] = stored_scan_box(q, a)
            occluded[k] = page.covers(b) + page.covers_on_scan(list(a))
            if page.moved_by and (a[0] < -1.0 or a[1] < -1.0 or a[2] > w + 1.0 or a[3] > h + 1.0):
                occluded[k].append(page.moved_by[-1])
    return scan_boxes, occluded


def package(spec: CorpusSpec, index: int, doc: DocumentIR, rendered: RenderedDocument,
            pages: list[CapturedPage], qa: list[QAPair], assertions: list[Assertion], reader: str | None = None
            ) -> BuiltDocument:
    """The document's files as bytes and its record (the sha256 of each file)."""
    from synthdocqa.degradations import scan_pdf

    rmap = rendered.render_map
    paths = DocFiles(doc.doc_id)
    qa_pages: dict[int, int] = {}
    for q in qa:
        for p in q.page_nos[:1]:
            qa_pages[p] = qa_pages.get(p, 0) + 1
    files: dict[str, bytes] = {}
    page_recs: list[PageRecord] = []
    for page in pages:
        files[paths.page_image(page.page_no)] = page.png
        files[paths.scan_image(page.page_no, page.scan_ext)] = page.scan
        rp = rmap.pages[page.page_no - 1]
        page_recs.append(PageRecord(doc_id=doc.doc_id, page_no=page.page_no, width_pt=rp.width, height_pt=rp.height,
                                    layout_id=rp.layout_id, image=paths.page_image(page.page_no),
                                    scan=paths.scan_image(page.page_no, page.scan_ext),
                                    n_spans=sum(1 for s in rmap.spans if s.page_no == page.page_no),
                                    tier=page.tier, device=page.device, n_qa=qa_pages.get(page.page_no, 0)))
    files[paths.ir] = doc.to_json().encode()
    files[paths.pdf] = rendered.pdf
    files[paths.render_map] = rmap.to_json().encode()
    files[paths.scan_pdf] = scan_pdf([p.scan for p in pages], [(p.width, p.height) for p in rmap.pages])
    files[paths.qa] = "".join(q.model_dump_json() + "\n" for q in qa).encode()
    files[paths.assertions] = "".join(a.model_dump_json() + "\n" for a in assertions).encode()
    profile = doc.perturbation
    record = DocRecord(
        doc_id=doc.doc_id, index=index, spec_hash=spec.spec_hash(), code_version=code_version(),
        domain=doc.domain, recipe=doc.recipe, title=doc.title, tier=profile.tier, device=profile.device,
        n_pages=len(rmap.pages), n_facts=len(doc.facts), n_spans=len(rmap.spans), n_qa=len(qa),
        n_assertions=len(assertions), pages=page_recs, files={k: sha256_bytes(v) for k, v in sorted(files.items())},
        ocr=reader)
    return BuiltDocument(doc=doc, files=files, record=record)


def build_document(spec: CorpusSpec, index: int, layout_chooser: Callable[[DocumentIR], DocumentIR] | None = None
                   ) -> BuiltDocument:
    """One document, the pipeline in its order: plan and choose layouts, render, sample the scans into the
    IR, rasterise and capture, map the evidence boxes onto the scans, derive QA, package the files."""
    one_thread_per_worker()
    rendered = render(complete_ir(spec, index, layout_chooser))
    doc = sample_scans(spec, index, rendered)
    pages = capture(doc, rendered.pdf, spec.dpi, spec.scan_dpi)
    scan_boxes, occluded = map_evidence_boxes(rendered.render_map, pages, spec.scan_dpi)
    evidence = build_evidence(rendered.render_map, dpi=spec.dpi, scan_boxes=scan_boxes, occluded_by=occluded)
    qa, assertions = derive_qa(doc, rendered.render_map, evidence, qa_per_page=spec.qa_per_page)
    reader = read_scans(doc, pages, qa, assertions)
    return package(spec, index, doc, rendered, pages, qa, assertions, reader)


def read_scans(doc: DocumentIR, pages: list[CapturedPage], qa: list[QAPair], assertions: list[Assertion]
               ) -> str | None:
    """Read every evidence span on its scan file (Tesseract) and record it on the records: each span's
    ``scan_cer`` and each QA pair's ``answerable_from_scan``, so no scan erases an answer silently. Returns
    the reader (``tesseract 5.3.0``), or None where Tesseract is not installed (the fields stay None; the
    run says so)."""
    from .ocr import mark_answerable, read_evidence, tesseract_version

    version = tesseract_version()
    if version is None:
        return None
    rotation = {b.id: b.rotation for _, b in doc.blocks() if b.type == "annotation"}
    read = read_evidence({p.page_no: p.scan for p in pages}, assertions, rotation)
    mark_answerable(qa, assertions, read)
    return version
