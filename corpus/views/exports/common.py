"""What every export shares: the corpus reader's errors as export errors, block labels, atomic output folders.

An export is a folder written beside its final place and renamed into it (``ir.files.atomic_dir``), so a
reader sees the old export or the new one, never half of one; a folder that is not a previous export is
never replaced. Every corpus file an export copies is read through the checked corpus reader, so a file
changed after generation stops the export.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from ir.blocks import ELEMENT_OF_BLOCK, Block
from ir.document import DocumentIR
from ir.files import atomic_dir
from ir.qa_models import Assertion, QAPair
from ir.rendermap import RenderMap

from ...store import CorpusError, CorpusReader

EXPORT_MARKER = ".synthdocqa-export.json"

P = ParamSpec("P")
R = TypeVar("R")


class ExportError(CorpusError):
    """The corpus cannot be exported as asked (not a corpus, tampered file, occupied output folder)."""


def export_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Corpus problems met while exporting surface as :class:`ExportError` (one line in the CLI)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except ExportError:
            raise
        except CorpusError as err:
            raise ExportError(str(err)) from None

    return wrapper


def canonical(obj: Any) -> str:
    """Stable JSON text for export files (keys in the order built, UTF-8, trailing newline)."""
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


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
    """Build the export with ``fill(folder)`` in a temp folder beside ``out``, which then replaces ``out``.

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
    with atomic_dir(out) as tmp:
        fill(tmp)
        (tmp / EXPORT_MARKER).write_text(canonical({"format": fmt, **marker}), "utf-8")
    return out


def marker_of(reader: CorpusReader) -> dict[str, Any]:
    m = reader.manifest
    return {"corpus": m.name, "spec_hash": m.spec_hash, "code_version": m.code_version,
            "documents": len(m.documents)}
