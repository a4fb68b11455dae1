"""What every export shares: the corpus reader's errors as export errors, block labels, atomic output folders.

An export is a folder written beside its final place and renamed into it (``ir.files.atomic_dir``), so a
reader sees the old export or the new one, never half of one; a folder that is not a previous export is
never replaced. Every corpus file an export copies is read through the checked corpus reader, so a file
changed after generation stops the export.

Every export carries ``synthdocqa-export.json`` (:data:`EXPORT_MARKER`): a visible, documented file saying
what the folder was exported from (format, corpus name, spec hash, code version, document count). It is what
lets a later export replace the folder; nothing in an export is hidden, so a Hub upload of the folder
carries only files its card describes.
"""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.files import atomic_dir
from synthdocqa.ir.qa_models import Assertion, QAPair
from synthdocqa.ir.rendermap import RenderMap

from ...store import CorpusError, CorpusReader

EXPORT_MARKER = "synthdocqa-export.json"
"""The provenance file at the root of every export; a non-empty folder without it is never replaced."""
LEGACY_MARKER = ".synthdocqa-export.json"
"""The hidden marker older releases wrote: a folder holding it is still a previous export (replaced whole, so
the hidden file goes with it)."""

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

    ``out`` may be missing, an empty folder, or a previous synthdocqa export (a folder holding
    :data:`EXPORT_MARKER`, replaced whole); anything else is refused before a byte is written. The marker is
    written last; an export holding a hidden path (a name starting with a dot) is refused, never published.
    """
    out = Path(out)
    if out.exists():
        if not out.is_dir():
            raise ExportError(f"{out}: exists and is not a folder")
        if any(out.iterdir()) and not is_export_dir(out):
            raise ExportError(f"{out}: exists, is not empty and is not a synthdocqa export (no {EXPORT_MARKER}); "
                              "choose another --out")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise ExportError(f"{parent}: no such directory")
    with atomic_dir(out) as tmp:
        fill(tmp)
        (tmp / EXPORT_MARKER).write_text(canonical(marker_file(fmt, marker)), "utf-8")
        hidden = hidden_paths(tmp)
        if hidden:  # a bug in an exporter, caught before the folder is published
            raise ExportError(f"{out}: the export would hold a hidden path ({hidden[0]}); nothing was written")
    return out


def marker_file(fmt: str, marker: dict[str, Any]) -> dict[str, Any]:
    """Content of :data:`EXPORT_MARKER`: what the folder is, what it was made from, what the file is for."""
    return {"generator": "synthdocqa", "format": fmt, **marker,
            "about": "Written by `synthdocqa export`: the corpus this folder was exported from. A later export "
                     "with this folder as --out replaces the folder whole; a non-empty folder without this file "
                     "is never replaced."}


def is_export_dir(folder: str | os.PathLike[str]) -> bool:
    """``folder`` holds the marker of a previous synthdocqa export (a JSON object naming its generator and format)."""
    for name, generator in ((EXPORT_MARKER, "synthdocqa"), (LEGACY_MARKER, None)):
        marker = Path(folder) / name
        if not marker.is_file():
            continue
        try:
            data = json.loads(marker.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        if (isinstance(data, dict) and isinstance(data.get("format"), str)
                and (generator is None or data.get("generator") == generator)):
            return True
    return False


def hidden_paths(root: str | os.PathLike[str]) -> list[str]:
    """Files and folders under ``root`` whose name starts with a dot (relative POSIX paths, sorted)."""
    root = Path(root)
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.name.startswith("."))


def marker_of(reader: CorpusReader) -> dict[str, Any]:
    m = reader.manifest
    return {"corpus": m.name, "spec_hash": m.spec_hash, "code_version": m.code_version,
            "documents": len(m.documents)}
