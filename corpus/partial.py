"""Partial document folders, laid out like a corpus document: the planned IR alone (``synthdocqa plan``),
or the rendered PDF, render map and page images (``synthdocqa render``). No scans, QA or records: these
are for looking at plans and layouts, not corpora (``corpus.generate`` writes those)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir import DocumentIR
from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text
from synthdocqa.ir.spec import CorpusSpec

from .store import CorpusError, DocFiles


class RenderCheckError(CorpusError):
    """A rendered document that fails its own checks (text layer, facts left undrawn)."""


def write_planned(spec: CorpusSpec, index: int, out: str | os.PathLike[str]) -> DocumentIR:
    """Plan document ``index`` and write its ``ir.json`` under ``out``; returns the IR."""
    doc = plan_document(spec, index)
    atomic_write_text(Path(out) / DocFiles(doc.doc_id).ir, doc.to_json())
    return doc


def write_rendered(spec: CorpusSpec, index: int, out: str | os.PathLike[str],
                   chooser: Callable[[DocumentIR], DocumentIR], verify: bool = True) -> int:
    """Plan, choose layouts, render, rasterize and write one document; returns its page count.

    Each file is written atomically and ``ir.json`` (with the chosen layout ids) last, so a folder whose
    ``ir.json`` exists is complete. A document that fails its checks raises before anything is written.
    """
    from synthdocqa.renderers import rasterize, render_document, verify_text_layer

    doc = chooser(plan_document(spec, index))
    result = render_document(doc)
    if verify:
        problems = verify_text_layer(result.pdf, result.render_map)
        if problems:
            raise RenderCheckError(f"{doc.doc_id}: {len(problems)} span(s) fail the text-layer check, "
                                   f"first: {problems[0]}")
    if result.render_map.dropped_fact_ids:
        raise RenderCheckError(f"{doc.doc_id}: facts not drawn: {result.render_map.dropped_fact_ids[:5]}")
    root = Path(out)
    files = DocFiles(doc.doc_id)
    pages = rasterize(result.pdf, spec.dpi)
    for n, (png, _) in enumerate(pages, start=1):
        atomic_write_bytes(root / files.page_image(n), png)
    atomic_write_bytes(root / files.pdf, result.pdf)
    atomic_write_bytes(root / files.render_map, result.render_map.to_json().encode())
    atomic_write_bytes(root / files.ir, doc.to_json().encode())
    return len(pages)
