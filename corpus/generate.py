"""Writing documents into a corpus folder, resumably; and a serial in-process corpus run.

:func:`generate_document` is the unit of work: the Prefect flow ``generate-corpus`` (``flows/generate.py``)
runs it once per document on its task runner (processes, Dask), which is where parallelism lives.
:func:`generate_corpus` is the library path without an orchestrator: one document after the other in
this process, then the tables and the manifest. Both produce the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

from synthdocqa.ir import DocumentIR
from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text
from synthdocqa.ir.spec import CorpusSpec

from .assemble import build_document, code_version
from .store import CorpusManifest, DocFiles, DocRecord, complete_doc_record, doc_id_for, prepare_corpus_dir
from .tables import write_corpus

Progress = Callable[[int, int, DocRecord], None]


def doc_indices(spec: CorpusSpec, only: Iterable[int] | None = None) -> list[int]:
    """The document indices a run writes: all of them, or the valid, sorted ``only``."""
    if only is None:
        return list(range(spec.n_docs))
    bad = [i for i in only if not 0 <= i < spec.n_docs]
    if bad:
        raise ValueError(f"--only {bad}: document indices must lie in [0, {spec.n_docs - 1}]")
    return sorted(set(only))


def completed_document(spec: CorpusSpec, index: int, corpus_dir: str | os.PathLike[str]) -> DocRecord | None:
    """The record of document ``index`` if it is on disk, complete and verified for this spec and code."""
    return complete_doc_record(corpus_dir, doc_id_for(index), spec.spec_hash(), code_version())


def generate_document(spec: CorpusSpec, index: int, corpus_dir: str | os.PathLike[str],
                      layout_chooser: Callable[[DocumentIR], DocumentIR] | None = None,
                      check: Callable[[], None] | None = None, resume: bool = True) -> DocRecord:
    """Build one document and write it, ``doc.json`` last; with ``resume`` a complete, verified document is
    kept (a caller that has just checked, such as the flow, passes ``resume=False``: the check re-hashes every
    file of the document).

    ``check`` is called before every file is written (the run's lock check: a run that lost its output
    folder stops before its next write, not after the document)."""
    check = check or _no_check
    done = completed_document(spec, index, corpus_dir) if resume else None
    if done is not None:
        return done
    built = build_document(spec, index, layout_chooser)
    root = Path(corpus_dir)
    record = root / DocFiles(built.doc.doc_id).record
    if record.exists():
        record.unlink()
    _drop_stale(root / DocFiles(built.doc.doc_id).dir, {root / rel for rel in built.files}, check)
    for relpath, data in built.files.items():
        check()
        atomic_write_bytes(root / relpath, data)
    check()
    atomic_write_text(record, built.record.to_json())
    return built.record


def _no_check() -> None:
    return None


def _drop_stale(folder: Path, keep: set[Path], check: Callable[[], None]) -> None:
    """Remove the files of ``folder`` (one document's) that its new build does not write: a document built
    again with fewer pages (``--force`` over another spec's corpus) must not keep the old build's last pages,
    which no manifest lists."""
    if not folder.is_dir():
        return
    for f in sorted(folder.rglob("*")):
        if f.is_file() and f not in keep:
            check()
            f.unlink()


def up_to_date(corpus_dir: str | os.PathLike[str], spec: CorpusSpec) -> CorpusManifest | None:
    """The manifest of ``corpus_dir`` when the corpus there is whole (``verify.check_corpus``: every file's
    hash, the tables against the documents) and was made from ``spec`` by this code: no document needs
    making. None otherwise. (Whether its views, such as the report, are current is the caller's question:
    building code does not import views.)"""
    from .store import MANIFEST, CorpusError, load_manifest
    from .verify import check_corpus

    root = Path(corpus_dir)
    if not (root / MANIFEST).is_file():
        return None
    try:
        manifest = load_manifest(root)
    except (CorpusError, ValueError):
        return None
    if manifest.spec_hash != spec.spec_hash() or manifest.code_version != code_version():
        return None
    if check_corpus(root):
        return None
    return manifest


def generate_corpus(spec: CorpusSpec, corpus_dir: str | os.PathLike[str], only: Iterable[int] | None = None,
                    force: bool = False, progress: Progress | None = None) -> CorpusManifest | list[DocRecord]:
    """Generate (or resume) a corpus serially in this process: each document, then tables and manifest.

    With ``only`` just the selected documents are written and no manifest. For parallel runs use the
    ``generate-corpus`` flow (``flows.generate.run_generate``), which writes the same bytes.
    """
    indices = doc_indices(spec, only)
    prepare_corpus_dir(corpus_dir, spec, force=force)
    records = []
    for n, index in enumerate(indices, start=1):
        records.append(generate_document(spec, index, corpus_dir))
        if progress:
            progress(n, len(indices), records[-1])
    if only is not None:
        return records
    return write_corpus(corpus_dir, spec, records, code_version())
