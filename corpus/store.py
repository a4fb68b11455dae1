"""The corpus store: the one spelling of every corpus file name, the records, the manifest, the one reader.

Layout (``DIR`` is the corpus directory)::

    DIR/spec.json                      the spec this directory is being built for (written first)
    DIR/docs/<doc_id>/...              ir.json document.pdf render_map.json pages/ scan/ scan.pdf qa.jsonl
                                       assertions.jsonl, and doc.json (the document's record, written last)
    DIR/documents.parquet pages.parquet qa.parquet assertions.parquet qa.jsonl
    DIR/corpus.json                    the manifest: spec, code version, stats, sha256 of every file (last)
    DIR/report.html                    the corpus report (a view; not in the manifest)
    DIR/legibility.parquet legibility_qa.parquet
                                       evidence legible on the scan, per assertion and per QA pair
                                       (``synthdocqa legibility``; a view, not in the manifest)

A document is complete when its ``doc.json`` exists and every file it lists has the recorded hash; a
corpus is complete when ``corpus.json`` exists. A run removes ``corpus.json`` before it touches anything,
so a killed run never leaves a corpus that verifies.

Every other module names corpus files through the constants and :class:`DocFiles` here and opens them
through :class:`CorpusReader` (a test checks that no one else spells them). It is one module of ~490
lines on purpose: the file names, the records that list them and the one reader that opens them are one
contract (the layout on disk), and the checks that no other module spells a name are simplest against one
module.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from decimal import InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from pydantic import BaseModel, Field

from synthdocqa.ir import ids
from synthdocqa.ir.base import Model
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.files import atomic_write_text, sha256_bytes, sha256_file
from synthdocqa.ir.qa_models import Assertion, QAPair
from synthdocqa.ir.rendermap import RenderMap
from synthdocqa.ir.spec import CorpusSpec
from synthdocqa.ir.vocab import DEFAULT_DEVICE, Device, DomainSlug, RecipeSlug, Tier

if TYPE_CHECKING:
    import pandas as pd

STORE_FORMAT = "synthdocqa-corpus/1"

# ---------------------------------------------------------------- file names

MANIFEST = "corpus.json"
SPEC_FILE = "spec.json"
LOCK_FILE = ".lock"
REPORT_FILE = "report.html"
DOCS_DIR = "docs"
DOC_RECORD = "doc.json"
IR_FILE = "ir.json"
PDF_FILE = "document.pdf"
RENDER_MAP_FILE = "render_map.json"
SCAN_PDF_FILE = "scan.pdf"
QA_FILE = "qa.jsonl"
ASSERTIONS_FILE = "assertions.jsonl"
PAGES_DIR = "pages"
SCAN_DIR = "scan"
PAGE_IMAGE_SUFFIX = ".png"
DOCUMENTS_TABLE = "documents.parquet"
PAGES_TABLE = "pages.parquet"
QA_TABLE = "qa.parquet"
ASSERTIONS_TABLE = "assertions.parquet"
TABLES = (DOCUMENTS_TABLE, PAGES_TABLE, QA_TABLE, ASSERTIONS_TABLE, QA_FILE)
"""The corpus-level tables, in the order they are written (``qa.jsonl`` is the QA table as JSON lines)."""
LEGIBILITY_TABLE = "legibility.parquet"
LEGIBILITY_QA_TABLE = "legibility_qa.parquet"
"""OCR legibility of the evidence on the scan (``corpus.views.legibility``): views made after the corpus, not in
the manifest, so ``verify`` ignores them; they record the hash of the ``corpus.json`` they were made from."""

ImageKind = Literal["pages", "scan"]
"""The clean page images or the scans of a document."""
_IMAGE_DIRS: dict[str, str] = {"pages": PAGES_DIR, "scan": SCAN_DIR}
_IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


def doc_id_for(index: int) -> str:
    """The id (and folder name) of the document at ``index`` (``ir.ids.doc_id``, as the planner names it)."""
    return ids.doc_id(index)


@dataclass(frozen=True)
class DocFiles:
    """Paths of one document's files, relative to the corpus directory (POSIX; the manifest's keys)."""

    doc_id: str

    @property
    def dir(self) -> str:
        return f"{DOCS_DIR}/{self.doc_id}"

    def _file(self, name: str) -> str:
        return f"{self.dir}/{name}"

    @property
    def record(self) -> str:
        return self._file(DOC_RECORD)

    @property
    def ir(self) -> str:
        return self._file(IR_FILE)

    @property
    def pdf(self) -> str:
        return self._file(PDF_FILE)

    @property
    def render_map(self) -> str:
        return self._file(RENDER_MAP_FILE)

    @property
    def scan_pdf(self) -> str:
        return self._file(SCAN_PDF_FILE)

    @property
    def qa(self) -> str:
        return self._file(QA_FILE)

    @property
    def assertions(self) -> str:
        return self._file(ASSERTIONS_FILE)

    def images_dir(self, which: ImageKind) -> str:
        return self._file(_IMAGE_DIRS[which])

    def page_image(self, page_no: int) -> str:
        """The clean page image, rendered from the PDF."""
        return f"{self.images_dir('pages')}/page-{page_no:04d}{PAGE_IMAGE_SUFFIX}"

    def scan_image(self, page_no: int, ext: str) -> str:
        """The scan of a page; ``ext`` (with its dot) depends on the tier's encoder."""
        return f"{self.images_dir('scan')}/page-{page_no:04d}{ext}"


def doc_dir(corpus_dir: str | os.PathLike[str], doc_id: str) -> Path:
    return Path(corpus_dir) / DocFiles(doc_id).dir


def default_corpus_dir(spec: CorpusSpec) -> str:
    """Where a corpus goes when no folder is given: ``out/corpora/<name>-seed<S>-n<N>``."""
    return f"out/corpora/{spec.name}-seed{spec.seed}-n{spec.n_docs}"


class CorpusError(Exception):
    """A corpus directory that cannot be used as asked (wrong spec, missing manifest, ...)."""


class CorpusFileError(CorpusError, ValueError):
    """A corpus file that is missing, does not parse, or differs from the hash its manifest lists."""


# ---------------------------------------------------------------- records

class PageRecord(Model):
    doc_id: str
    page_no: int
    width_pt: float
    height_pt: float
    layout_id: str | None = None
    image: str = Field(description="relative path of the clean page image")
    scan: str = Field(description="relative path of the scan image")
    n_spans: int = 0
    n_qa: int = 0
    tier: Tier | None = Field(default=None, description="the page's scan tier (the document's when it has none)")
    device: Device | None = Field(default=None, description="the page's capture device")


class DocRecord(Model):
    """Written last in a document folder: what the document holds and the hash of every file."""

    doc_id: str
    index: int
    spec_hash: str
    code_version: str
    domain: DomainSlug
    recipe: RecipeSlug
    title: str
    tier: Tier
    device: Device = DEFAULT_DEVICE
    n_pages: int
    n_facts: int
    n_spans: int
    n_qa: int
    n_assertions: int
    pages: list[PageRecord]
    files: dict[str, str] = Field(description="path relative to the corpus dir -> sha256")
    ocr: str | None = Field(default=None, description="the reader of the evidence on the scans (``tesseract 5.3.0``); "
                            "None: not read. The readings are in the records, so a reproduction needs the same reader")


class CorpusManifest(Model):
    format: str = STORE_FORMAT
    name: str
    spec: CorpusSpec
    spec_hash: str
    code_version: str
    stats: dict[str, Any]
    documents: list[str]
    files: dict[str, str]


def check_files(corpus_dir: str | os.PathLike[str], files: dict[str, str]) -> list[str]:
    """Problems with the listed files: missing or with another sha256 than recorded."""
    root = Path(corpus_dir)
    problems = []
    for rel, digest in sorted(files.items()):
        p = root / rel
        if not p.is_file():
            problems.append(f"{rel}: missing")
        elif sha256_file(p) != digest:
            problems.append(f"{rel}: sha256 differs from the manifest")
    return problems


def load_doc_record(corpus_dir: str | os.PathLike[str], doc_id: str) -> DocRecord | None:
    p = Path(corpus_dir) / DocFiles(doc_id).record
    if not p.is_file():
        return None
    try:
        return DocRecord.model_validate_json(p.read_text("utf-8"))
    except ValueError:
        return None


def complete_doc_record(corpus_dir: str | os.PathLike[str], doc_id: str, spec_hash: str,
                        code_version: str) -> DocRecord | None:
    """The document's record if it is complete and verified for this spec and code version, else None."""
    rec = load_doc_record(corpus_dir, doc_id)
    if rec is None or rec.spec_hash != spec_hash or rec.code_version != code_version:
        return None
    return rec if not check_files(corpus_dir, rec.files) else None


def check_claim(corpus_dir: str | os.PathLike[str], spec: CorpusSpec, force: bool = False) -> None:
    """Refuse a folder that holds another spec's corpus or other files (writes nothing); the run's own
    lock file does not make a folder "not empty"."""
    root = Path(corpus_dir)
    if force:
        return
    spec_path = root / SPEC_FILE
    if spec_path.is_file():
        try:
            old = CorpusSpec.model_validate_json(spec_path.read_text("utf-8"))
        except ValueError as err:
            raise CorpusError(f"{spec_path} is not a valid spec ({err.__class__.__name__}); use --force") from None
        if old.spec_hash() != spec.spec_hash():
            raise CorpusError(
                f"{root} holds a corpus of another spec (seed {old.seed}, {old.n_docs} docs, "
                f"profile {old.profile}); choose another directory or pass --force")
    elif root.is_dir() and any(p.name != LOCK_FILE for p in root.iterdir()):
        raise CorpusError(f"{root} exists, is not empty and is not a synthdocqa corpus; choose another directory")


def prepare_corpus_dir(corpus_dir: str | os.PathLike[str], spec: CorpusSpec, force: bool = False) -> None:
    """Claim ``corpus_dir`` for ``spec``: refuse another spec's corpus; drop the manifest before work."""
    root = Path(corpus_dir)
    spec_path = root / SPEC_FILE
    check_claim(root, spec, force)
    root.mkdir(parents=True, exist_ok=True)
    manifest = root / MANIFEST
    if manifest.exists():
        manifest.unlink()
    atomic_write_text(spec_path, spec.to_json())


def load_manifest(corpus_dir: str | os.PathLike[str]) -> CorpusManifest:
    p = Path(corpus_dir) / MANIFEST
    if not p.is_file():
        raise CorpusError(f"{p}: no manifest (the corpus is incomplete or not a synthdocqa corpus)")
    try:
        return CorpusManifest.model_validate_json(p.read_text("utf-8"))
    except ValueError as err:
        raise CorpusError(f"{p}: invalid manifest: {str(err).splitlines()[0]}") from None


# ---------------------------------------------------------------- the reader

M = TypeVar("M", bound=BaseModel)


def _jsonl(text: str, model: type[M]) -> list[M]:
    return [model.model_validate_json(line) for line in text.split("\n") if line.strip()]


class CorpusReader:
    """Read access to one corpus folder: the only code that opens corpus files.

    Checked (a finished corpus, :func:`open_corpus`'s default): the manifest must be there and every file
    read must have the sha256 it lists, so an export or a report never passes on a file changed after
    generation. Unchecked: the files as they are, no manifest needed (``verify`` reports bad hashes
    itself; the judges accept a folder holding just ``qa.jsonl`` and each document's ``ir.json``).

    It is also the judges' ``DocumentSource``: ``documents_and_qa``, ``document_text``, ``page_images``
    and ``label``.
    """

    def __init__(self, root: str | os.PathLike[str], manifest: CorpusManifest | None = None,
                 label: str | None = None) -> None:
        self.root = Path(root)
        self.manifest = manifest
        self.label = label if label is not None else str(self.root)
        """How the corpus is named in messages and reports (the folder as the user gave it)."""
        self._records: dict[str, DocRecord] = {}

    @property
    def checked(self) -> bool:
        return self.manifest is not None

    # ------------------------------------------------------------ files
    def path(self, rel: str) -> Path:
        return self.root / rel

    def read_bytes(self, rel: str) -> bytes:
        if self.manifest is None:
            return self.path(rel).read_bytes()
        want = self.manifest.files.get(rel)
        if want is None:
            raise CorpusFileError(f"{rel}: not listed in the corpus manifest")
        p = self.path(rel)
        if not p.is_file():
            raise CorpusFileError(f"{rel}: missing from the corpus")
        data = p.read_bytes()
        if sha256_bytes(data) != want:
            raise CorpusFileError(f"{rel}: sha256 differs from the manifest (corpus changed after it was written)")
        return data

    def read_text(self, rel: str) -> str:
        try:
            return self.read_bytes(rel).decode("utf-8")
        except UnicodeDecodeError as err:
            raise CorpusFileError(f"{self.path(rel)}: not UTF-8 text (byte {err.start})") from None

    def _parsed(self, rel: str, what: str, parse: Callable[[str], Any]) -> Any:
        """``parse(text of rel)``, a parse error becoming one :class:`CorpusFileError` naming the file."""
        text = self.read_text(rel)
        try:
            return parse(text)
        except (ValueError, InvalidOperation) as err:
            if isinstance(err, CorpusFileError):
                raise
            first = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise CorpusFileError(f"{self.path(rel)}: not {what}: {first}") from None

    def manifest_bytes(self) -> bytes:
        """``corpus.json`` as written (it cannot list its own hash)."""
        return self.path(MANIFEST).read_bytes()

    # ------------------------------------------------------------ documents
    @property
    def doc_ids(self) -> list[str]:
        if self.manifest is not None:
            return list(self.manifest.documents)
        docs = self.path(DOCS_DIR)
        return sorted(p.name for p in docs.iterdir() if p.is_dir()) if docs.is_dir() else []

    def record(self, doc_id: str) -> DocRecord:
        if doc_id not in self._records:
            rel = DocFiles(doc_id).record
            try:
                self._records[doc_id] = DocRecord.model_validate_json(self.read_bytes(rel))
            except ValueError as err:
                if isinstance(err, CorpusFileError):
                    raise
                raise CorpusFileError(f"{rel}: invalid document record") from None
        return self._records[doc_id]

    def ir(self, doc_id: str) -> DocumentIR:
        return self._parsed(DocFiles(doc_id).ir, "a DocumentIR", DocumentIR.model_validate_json)

    def render_map(self, doc_id: str) -> RenderMap:
        return self._parsed(DocFiles(doc_id).render_map, "a RenderMap", RenderMap.model_validate_json)

    def qa(self, doc_id: str) -> list[QAPair]:
        return self._parsed(DocFiles(doc_id).qa, "QA pairs (JSON lines)", lambda t: _jsonl(t, QAPair))

    def assertions(self, doc_id: str) -> list[Assertion]:
        return self._parsed(DocFiles(doc_id).assertions, "assertions (JSON lines)", lambda t: _jsonl(t, Assertion))

    def pdf(self, doc_id: str) -> bytes:
        return self.read_bytes(DocFiles(doc_id).pdf)

    def scan_pdf(self, doc_id: str) -> bytes:
        return self.read_bytes(DocFiles(doc_id).scan_pdf)

    def image_paths(self, doc_id: str, which: ImageKind) -> list[Path]:
        """The page images (``pages``) or scans (``scan``) of a document, in page order."""
        folder = self.path(DocFiles(doc_id).images_dir(which))
        return sorted(p for p in folder.glob("*") if p.suffix.lower() in _IMAGE_SUFFIXES)

    # ------------------------------------------------------------ corpus-wide
    def corpus_qa(self) -> list[QAPair]:
        """Every QA pair, from the corpus-level ``qa.jsonl`` (errors name the line)."""
        p = self.path(QA_FILE)
        if not p.is_file():
            raise CorpusFileError(f"{self.root}: no {QA_FILE} (is this a corpus directory?)")
        out = []
        for lineno, line in enumerate(self.read_text(QA_FILE).split("\n"), 1):
            if not line.strip():
                continue
            try:
                out.append(QAPair.model_validate_json(line))
            except ValueError as exc:
                first = str(exc).splitlines()[0:3]
                raise CorpusFileError(f"{p}: line {lineno}: not a QAPair: {' '.join(first)}") from None
        return out

    def corpus_assertions(self) -> list[Assertion]:
        """Every assertion, document by document."""
        return [a for d in self.doc_ids for a in self.assertions(d)]

    def table(self, name: str) -> pd.DataFrame:
        """A corpus-level Parquet table: ``DOCUMENTS_TABLE``, ``PAGES_TABLE``, ``QA_TABLE`` or ``ASSERTIONS_TABLE``."""
        import pandas as pd
        import pyarrow as pa

        data = self.read_bytes(name)
        try:
            return pd.read_parquet(io.BytesIO(data))
        except (pa.ArrowException, OSError, ValueError) as err:
            raise CorpusFileError(f"{self.path(name)}: not a Parquet table ({str(err).splitlines()[0]})") from None

    # ------------------------------------------------------------ the judges' DocumentSource
    def documents_and_qa(self) -> list[tuple[DocumentIR, list[QAPair]]]:
        """The corpus QA pairs grouped per document, each with its IR (documents in id order)."""
        by_doc: dict[str, list[QAPair]] = {}
        for qa in self.corpus_qa():
            by_doc.setdefault(qa.doc_id, []).append(qa)
        out = []
        for doc_id in sorted(by_doc):
            ir_path = self.path(DocFiles(doc_id).ir)
            if not ir_path.is_file():
                raise CorpusFileError(f"{ir_path}: missing (QA pairs reference document {doc_id})")
            try:
                doc = DocumentIR.model_validate_json(self.read_bytes(DocFiles(doc_id).ir))
            except CorpusFileError:
                raise
            except (ValueError, json.JSONDecodeError, InvalidOperation) as exc:
                raise CorpusFileError(f"{ir_path}: not a DocumentIR: {str(exc).splitlines()[0]}") from None
            out.append((doc, by_doc[doc_id]))
        return out

    def document_text(self, doc_id: str, max_chars: int = 60000) -> str:
        """The PDF text layer, page by page (``[page N]`` markers), truncated to ``max_chars``."""
        import pymupdf

        rel = DocFiles(doc_id).pdf
        if not self.path(rel).is_file():
            raise CorpusFileError(f"{self.path(rel)}: missing")
        with pymupdf.open(stream=self.read_bytes(rel), filetype="pdf") as d:
            text = "\n".join(f"[page {i + 1}]\n{page.get_text().strip()}" for i, page in enumerate(d))
        return text[:max_chars]

    def scan_text(self, doc_id: str, max_chars: int = 60000) -> str:
        """Tesseract's reading of each scan (full-page mode), page by page (``[page N]`` markers): what a system
        under test that OCRs the scanned document sees."""
        import cv2
        import numpy as np

        from .ocr import ocr_lines

        pages = self.page_images(doc_id, "scan")
        images = [cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) for _, data in pages]
        readings = ocr_lines(images, psm=3)
        text = "\n".join(f"[page {i + 1}]\n{r}" for i, r in enumerate(readings))
        return text[:max_chars]

    def page_images(self, doc_id: str, which: ImageKind) -> list[tuple[str, bytes]]:
        """(file name, bytes) of each page image or scan, in page order."""
        paths = self.image_paths(doc_id, which)
        if not paths:
            raise CorpusFileError(f"{self.path(DocFiles(doc_id).images_dir(which))}: no page images")
        return [(p.name, self.read_bytes(p.relative_to(self.root).as_posix())) for p in paths]


def open_corpus(corpus_dir: str | os.PathLike[str], *, checked: bool = True) -> CorpusReader:
    """The reader of ``corpus_dir``; ``checked``: a finished corpus whose every read is hash-checked."""
    label = os.fspath(corpus_dir)
    root = Path(corpus_dir)
    if not checked:
        return CorpusReader(root, None, label)
    if not root.is_dir():
        raise CorpusError(f"{root}: no such directory")
    if not (root / MANIFEST).is_file():
        raise CorpusError(f"{root}: no {MANIFEST} (not a synthdocqa corpus, or an unfinished one)")
    return CorpusReader(root, load_manifest(root), label)
