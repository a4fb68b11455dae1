"""Corpus exports for the tools users already have: the SynthDocQA card layout, Hugging Face Parquet
(+ dataset card), and Croissant 1.0 metadata. Each export reads a complete corpus (hashes checked
against its manifest) and writes its output folder atomically; same corpus, same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .card import export_card
from .common import EXPORT_MARKER, ExportError
from .croissant import croissant_metadata, export_croissant
from .hf import export_hf

EXPORTERS: dict[str, Callable[[str | os.PathLike[str], str | os.PathLike[str]], dict[str, int]]] = {
    "synthdocqa-card": export_card,
    "hf": export_hf,
    "croissant": export_croissant,
}
FORMATS: tuple[str, ...] = tuple(EXPORTERS)


def export_corpus(corpus_dir: str | os.PathLike[str], fmt: str, out: str | os.PathLike[str]) -> dict[str, int]:
    """Export ``corpus_dir`` as ``fmt`` into ``out``; counts of what was written."""
    if fmt not in EXPORTERS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    return EXPORTERS[fmt](corpus_dir, out)


__all__ = ["EXPORTERS", "EXPORT_MARKER", "FORMATS", "ExportError", "croissant_metadata",
           "export_card", "export_corpus", "export_croissant", "export_hf"]
