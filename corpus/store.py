"""The corpus store: atomic files, per-document records, manifest, Parquet tables, hash checks.

Layout (``DIR`` is the corpus directory)::

    DIR/spec.json                      the spec this directory is being built for (written first)
    DIR/docs/<doc_id>/...              ir.json document.pdf render_map.json pages/ scan/ scan.pdf qa.jsonl
                                       assertions.jsonl, and doc.json (the document's record, written last)
    DIR/documents.parquet pages.parquet qa.parquet assertions.parquet qa.jsonl
    DIR/corpus.json                    the manifest: spec, code version, stats, sha256 of every file (last)

A document is complete when its ``doc.json`` exists and every file it lists has the recorded hash; a
corpus is complete when ``corpus.json`` exists. A run removes ``corpus.json`` before it touches anything,
so a killed run never leaves a corpus that verifies.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pydantic import Field

from ir.base import Model
from ir.files import atomic_write_text, sha256_file
from ir.spec import CorpusSpec

STORE_FORMAT = "synthdocqa-corpus/1"
MANIFEST = "corpus.json"
SPEC_FILE = "spec.json"
DOC_RECORD = "doc.json"
TABLES = ("documents.parquet", "pages.parquet", "qa.parquet", "assertions.parquet", "qa.jsonl")


class CorpusError(Exception):
    """A corpus directory that cannot be used as asked (wrong spec, missing manifest, ...)."""


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False) + "\n"


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


class DocRecord(Model):
    """Written last in a document folder: what the document holds and the hash of every file."""

    doc_id: str
    index: int
    spec_hash: str
    code_version: str
    domain: str
    recipe: str
    title: str
    tier: str
    n_pages: int
    n_facts: int
    n_spans: int
    n_qa: int
    n_assertions: int
    pages: list[PageRecord]
    files: dict[str, str] = Field(description="path relative to the corpus dir -> sha256")


class CorpusManifest(Model):
    format: str = STORE_FORMAT
    name: str
    spec: CorpusSpec
    spec_hash: str
    code_version: str
    stats: dict[str, Any]
    documents: list[str]
    files: dict[str, str]


def doc_dir(corpus_dir: str | os.PathLike[str], doc_id: str) -> Path:
    return Path(corpus_dir) / "docs" / doc_id


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
    p = doc_dir(corpus_dir, doc_id) / DOC_RECORD
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


def prepare_corpus_dir(corpus_dir: str | os.PathLike[str], spec: CorpusSpec, force: bool = False) -> None:
    """Claim ``corpus_dir`` for ``spec``: refuse another spec's corpus; drop the manifest before work."""
    root = Path(corpus_dir)
    spec_path = root / SPEC_FILE
    if spec_path.is_file() and not force:
        try:
            old = CorpusSpec.model_validate_json(spec_path.read_text("utf-8"))
        except ValueError as err:
            raise CorpusError(f"{spec_path} is not a valid spec ({err.__class__.__name__}); use --force") from None
        if old.spec_hash() != spec.spec_hash():
            raise CorpusError(
                f"{root} holds a corpus of another spec (seed {old.seed}, {old.n_docs} docs, "
                f"profile {old.profile}); choose another directory or pass --force")
    elif root.is_dir() and any(root.iterdir()) and not spec_path.exists() and not force:
        raise CorpusError(f"{root} exists, is not empty and is not a synthdocqa corpus; choose another directory")
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
