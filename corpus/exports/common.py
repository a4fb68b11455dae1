"""What every export shares: reading a finished corpus, checking what it copies, atomic output folders.

An export is a folder written beside its final place and renamed into it, so a reader sees the old
export or the new one, never half of one; a folder that is not a previous export is never replaced.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from ir.blocks import ELEMENT_OF_BLOCK, Block
from ir.document import DocumentIR
from ir.files import sha256_bytes
from ir.qa_models import Assertion, QAPair
from ir.rendermap import RenderMap

from ..store import (
    MANIFEST,
    CorpusError,
    CorpusManifest,
    DocRecord,
    load_doc_record,
    load_manifest,
)

EXPORT_MARKER = ".synthdocqa-export.json"


class ExportError(CorpusError):
    """The corpus cannot be exported as asked (not a corpus, tampered file, occupied output folder)."""


def canonical(obj: Any) -> str:
    """Stable JSON text for export files (keys in the order built, UTF-8, trailing newline)."""
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


@dataclass
class CorpusView:
    """Read-only access to a complete corpus; every file read is checked against the manifest hash."""

    root: Path
    manifest: CorpusManifest
    _records: dict[str, DocRecord] = field(default_factory=dict)

    @classmethod
    def open(cls, corpus_dir: str | os.PathLike[str]) -> CorpusView:
        root = Path(corpus_dir)
        if not root.is_dir():
            raise ExportError(f"{root}: no such directory")
        if not (root / MANIFEST).is_file():
            raise ExportError(f"{root}: no {MANIFEST} (not a synthdocqa corpus, or an unfinished one)")
        try:
            manifest = load_manifest(root)
        except CorpusError as err:
            raise ExportError(str(err)) from None
        return cls(root=root, manifest=manifest)

    # ------------------------------------------------------------ files
    def read_bytes(self, rel: str) -> bytes:
        want = self.manifest.files.get(rel)
        if want is None:
            raise ExportError(f"{rel}: not listed in the corpus manifest")
        p = self.root / rel
        if not p.is_file():
            raise ExportError(f"{rel}: missing from the corpus")
        data = p.read_bytes()
        if sha256_bytes(data) != want:
            raise ExportError(f"{rel}: sha256 differs from the manifest (corpus changed after it was written)")
        return data

    def read_text(self, rel: str) -> str:
        return self.read_bytes(rel).decode("utf-8")

    # ------------------------------------------------------------ content
    @property
    def doc_ids(self) -> list[str]:
        return list(self.manifest.documents)

    def record(self, doc_id: str) -> DocRecord:
        if doc_id not in self._records:
            self.read_bytes(f"docs/{doc_id}/doc.json")
            rec = load_doc_record(self.root, doc_id)
            if rec is None:
                raise ExportError(f"docs/{doc_id}/doc.json: invalid document record")
            self._records[doc_id] = rec
        return self._records[doc_id]

    def ir(self, doc_id: str) -> DocumentIR:
        return DocumentIR.model_validate_json(self.read_text(f"docs/{doc_id}/ir.json"))

    def render_map(self, doc_id: str) -> RenderMap:
        return RenderMap.model_validate_json(self.read_text(f"docs/{doc_id}/render_map.json"))

    def qa(self, doc_id: str) -> list[QAPair]:
        return [QAPair.model_validate_json(line) for line in self.read_text(f"docs/{doc_id}/qa.jsonl").splitlines()
                if line.strip()]

    def assertions(self, doc_id: str) -> list[Assertion]:
        return [Assertion.model_validate_json(line)
                for line in self.read_text(f"docs/{doc_id}/assertions.jsonl").splitlines() if line.strip()]

    @cached_property
    def all_qa(self) -> list[QAPair]:
        return [q for d in self.doc_ids for q in self.qa(d)]

    @cached_property
    def all_assertions(self) -> list[Assertion]:
        return [a for d in self.doc_ids for a in self.assertions(d)]


def element_of(block: Block) -> str:
    return ELEMENT_OF_BLOCK[block.type]


def _spans_text(spans) -> str:
    return " ".join(s.text for s in spans).strip()


def block_caption(block: Block) -> str:
    """A short human label for a block (caption or title where it has one, else its opening text)."""
    match block.type:
        case "table":
            text = block.caption
        case "figure":
            text = block.title or block.caption
        case "form":
            text = block.title
        case "list":
            text = block.title or _spans_text(block.items[0])
        case _:
            text = _spans_text(block.spans)
    text = " ".join(text.split())
    return text if len(text) <= 160 else text[:157].rstrip() + "..."


def block_pages(rmap: RenderMap, doc: DocumentIR) -> dict[str, list[int]]:
    """Rendered pages of every block: where its fact spans were drawn, else the planned page."""
    drawn: dict[str, set[int]] = {}
    for s in rmap.spans:
        drawn.setdefault(s.block_id, set()).add(s.page_no)
    plan_to_rendered = {}
    for rp in rmap.pages:
        if rp.plan_page_no is not None:
            plan_to_rendered.setdefault(rp.plan_page_no, rp.page_no)
    out = {}
    for page_no, b in doc.blocks():
        out[b.id] = sorted(drawn.get(b.id) or {plan_to_rendered.get(page_no, page_no)})
    return out


def qa_block_ids(q: QAPair, asr: dict[str, Assertion]) -> list[str]:
    """Blocks a QA pair rests on, in the order its evidence cites them."""
    seen: list[str] = []
    for aid in q.assertion_ids:
        a = asr.get(aid)
        if a is None:
            continue
        evidence = list(a.evidence)
        if a.derivation is not None:
            evidence += [e for op in a.derivation.operands for e in op.evidence]
        for e in evidence:
            if e.block_id not in seen:
                seen.append(e.block_id)
    return seen


def write_export_dir(out: str | os.PathLike[str], fmt: str, fill: Callable[[Path], None],
                     marker: dict[str, Any]) -> Path:
    """Build the export in a temp folder beside ``out`` with ``fill(tmp)``, then rename it into place.

    ``out`` may be missing, an empty folder, or a previous synthdocqa export (replaced whole); anything
    else is refused before a byte is written.
    """
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise ExportError(f"{out}: exists and is not a folder")
        if any(out.iterdir()) and not (out / EXPORT_MARKER).is_file():
            raise ExportError(f"{out}: exists, is not empty and is not a synthdocqa export; choose another --out")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise ExportError(f"{parent}: no such directory")
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".tmp", dir=parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o777 & ~umask)
    try:
        fill(tmp)
        (tmp / EXPORT_MARKER).write_text(canonical({"format": fmt, **marker}), "utf-8")
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=parent))
            os.replace(out, old / "x")
            os.replace(tmp, out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return out


def marker_of(view: CorpusView) -> dict[str, Any]:
    m = view.manifest
    return {"corpus": m.name, "spec_hash": m.spec_hash, "code_version": m.code_version,
            "documents": len(m.documents)}
