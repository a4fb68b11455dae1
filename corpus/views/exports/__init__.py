"""Corpus exports for the tools users already have: the SynthDocQA card layout, Hugging Face Parquet
(+ dataset card), and Croissant 1.0 metadata. Each export reads a complete corpus (hashes checked
against its manifest) and writes its output folder atomically; same corpus, same bytes. Every export folder
is self-contained (each path it names lies inside it), holds no hidden file, and carries the visible
``synthdocqa-export.json`` that marks it as replaceable by a later export.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from .card import export_card
from .common import EXPORT_MARKER, ExportError, hidden_paths, is_export_dir
from .croissant import croissant_metadata, export_croissant
from .hf import export_hf

EXPORTERS: dict[str, Callable[[str | os.PathLike[str], str | os.PathLike[str]], dict[str, int]]] = {
    "synthdocqa-card": export_card,
    "hf": export_hf,
    "croissant": export_croissant,
}
FORMATS: tuple[str, ...] = tuple(EXPORTERS)


def export_corpus(corpus_dir: str | os.PathLike[str], fmt: str, out: str | os.PathLike[str]) -> dict[str, int]:
    """Export ``corpus_dir`` as ``fmt`` into ``out``; counts of what was written.

    Document ids become file names in an export, so a corpus whose manifest names an unsafe id or path is
    refused here, whatever the caller verified (the CLI also runs ``corpus.verify.check_corpus`` first)."""
    if fmt not in EXPORTERS:
        raise ExportError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    refuse_unsafe_ids(corpus_dir)
    return EXPORTERS[fmt](corpus_dir, out)


def refuse_unsafe_ids(corpus_dir: str | os.PathLike[str]) -> None:
    """:class:`ExportError` naming the first document id or manifest path that is not a plain name."""
    from ...store import CorpusError, load_manifest
    from ...verify import unsafe_doc_ids, unsafe_path

    if not os.path.isdir(corpus_dir):
        raise ExportError(f"{corpus_dir}: no such directory")
    try:
        manifest = load_manifest(corpus_dir)
    except CorpusError as err:
        raise ExportError(str(err)) from None
    problems = unsafe_doc_ids(manifest.documents)
    problems += [f"{rel!r}: unsafe path in the manifest" for rel in sorted(manifest.files) if unsafe_path(rel)]
    if problems:
        raise ExportError(f"{corpus_dir}: {problems[0]}; refusing to export")


__all__ = ["EXPORTERS", "EXPORT_MARKER", "FORMATS", "ExportError", "croissant_metadata",
           "export_card", "export_corpus", "export_croissant", "export_hf", "hidden_paths", "is_export_dir",
           "refuse_unsafe_ids"]
