"""Corpus-level operations without an orchestrator: generate (resumable), verify, reproduce.

``generate_corpus`` is the in-process engine used by tests and by the Prefect flow's tasks; the
flow in ``flows/generate.py`` drives the same per-document function.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from corpus.store import (
    DOC_RECORD,
    CorpusError,
    CorpusManifest,
    DocRecord,
    check_files,
    doc_dir,
    load_doc_record,
    load_manifest,
    prepare_corpus_dir,
)
from corpus.tables import write_corpus
from ir.files import sha256_bytes
from ir.qa import recompute_assertion
from ir.qa_models import Assertion, QAPair
from ir.spec import CorpusSpec

from .assemble import build_document, code_version, doc_id_for, doc_indices, generate_document

Progress = Callable[[int, int, DocRecord], None]


def _generate_one(args: tuple[CorpusSpec, int, str]) -> DocRecord:
    spec, index, corpus_dir = args
    return generate_document(spec, index, corpus_dir)


def generate_corpus(spec: CorpusSpec, corpus_dir: str | os.PathLike[str], workers: int = 1,
                    only: Iterable[int] | None = None, force: bool = False,
                    progress: Progress | None = None) -> CorpusManifest | list[DocRecord]:
    """Generate (or resume) a corpus. With ``only`` the selected documents are written, no manifest."""
    indices = doc_indices(spec, only)
    prepare_corpus_dir(corpus_dir, spec, force=force)
    records: dict[int, DocRecord] = {}
    jobs = [(spec, i, str(corpus_dir)) for i in indices]
    if workers <= 1:
        for n, job in enumerate(jobs, start=1):
            rec = _generate_one(job)
            records[rec.index] = rec
            if progress:
                progress(n, len(jobs), rec)
    else:
        import multiprocessing as mp

        with ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn")) as pool:
            for n, rec in enumerate(pool.map(_generate_one, jobs), start=1):
                records[rec.index] = rec
                if progress:
                    progress(n, len(jobs), rec)
    ordered = [records[i] for i in indices]
    if only is not None:
        return ordered
    return write_corpus(corpus_dir, spec, ordered, code_version())


# ------------------------------------------------------------------ verify

def _read_jsonl(path: Path, model):
    return [model.model_validate_json(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def verify_document(corpus_dir: str | os.PathLike[str], doc_id: str) -> list[str]:
    """Evidence against the PDF text layer, derivations recomputed, answers against the IR's facts."""
    from ir import DocumentIR, RenderMap, SpanBox
    from ir.answers import answer_for_value
    from renderers import verify_text_layer

    d = doc_dir(corpus_dir, doc_id)
    problems: list[str] = []
    try:
        doc = DocumentIR.model_validate_json((d / "ir.json").read_text("utf-8"))
        qa = _read_jsonl(d / "qa.jsonl", QAPair)
        asr = {a.id: a for a in _read_jsonl(d / "assertions.jsonl", Assertion)}
        pdf = (d / "document.pdf").read_bytes()
    except (OSError, ValueError) as err:
        return [f"{doc_id}: cannot read document files: {str(err).splitlines()[0]}"]
    facts = doc.fact_index()
    boxes: list[tuple[str, SpanBox]] = []
    for a in asr.values():
        problems += recompute_assertion(a)
        drawn: dict[str, str] = {}
        for e in a.evidence:
            if e.fact_id not in facts:
                problems.append(f"{a.id}: evidence cites unknown fact {e.fact_id}")
                continue
            drawn[e.fact_id] = drawn.get(e.fact_id, "") + e.text  # a wrapped span has one box per line
            boxes.append((a.id, SpanBox(block_id=e.block_id, fact_ids=[e.fact_id], page_no=e.page_no,
                                        bbox=e.bbox_pdf, text=e.text)))
        for fid, text in drawn.items():
            if "".join(facts[fid].text.split()) not in "".join(text.split()):
                problems.append(f"{a.id}: evidence text {text!r} does not contain fact {fid} {facts[fid].text!r}")
        if a.derivation is None and len(a.fact_ids) == 1 and a.fact_ids[0] in facts \
                and a.value.kind not in ("boolean", "not_answerable"):
            want = answer_for_value(facts[a.fact_ids[0]].value)
            if a.value != want:
                problems.append(f"{a.id}: value {a.value.model_dump_json()} differs from fact {a.fact_ids[0]}")
    unique: dict[tuple, str] = {}
    for aid, sb in boxes:
        unique.setdefault((sb.page_no, sb.bbox, sb.text), aid)
    rmap = RenderMap(doc_id=doc_id, spans=[SpanBox(block_id="b000", fact_ids=["f0000"], page_no=k[0], bbox=k[1],
                                                   text=k[2]) for k in unique])
    keys = list(unique)
    for problem in verify_text_layer(pdf, rmap):
        idx = getattr(problem, "span_index", None)
        where = unique[keys[idx]] if isinstance(idx, int) and 0 <= idx < len(keys) else doc_id
        problems.append(f"{where}: evidence not found in the PDF text layer: {problem}")
    for q in qa:
        missing = [aid for aid in q.assertion_ids if aid not in asr]
        if missing:
            problems.append(f"{q.id}: assertions {missing} missing")
            continue
        own = [asr[aid] for aid in q.assertion_ids]
        if q.qa_type in ("lookup", "chart_reading", "annotation_reading"):
            if q.answer != own[-1].value:
                problems.append(f"{q.id}: answer {q.answer.model_dump_json()} differs from its assertion "
                                f"{own[-1].id}")
        elif q.qa_type in ("table_aggregate", "difference", "percent_change", "date_arithmetic"):
            der = next((a.derivation for a in own if a.derivation is not None), None)
            if der is None or q.answer.kind != "number" or q.answer.value != der.result:
                problems.append(f"{q.id}: answer {q.answer.model_dump_json()} differs from its derivation")
        elif q.qa_type == "multi_hop" and q.answer != own[-1].value:
            problems.append(f"{q.id}: answer differs from its assertion {own[-1].id}")
        if q.answer_text not in q.accepted_answers:
            problems.append(f"{q.id}: answer_text {q.answer_text!r} not among its accepted answers")
    return problems


def verify_corpus(corpus_dir: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None
                  ) -> list[str]:
    """Every problem found (empty list: the corpus verifies)."""
    try:
        manifest = load_manifest(corpus_dir)
    except CorpusError as err:
        return [str(err)]
    problems = check_files(corpus_dir, manifest.files)
    for n, doc_id in enumerate(manifest.documents, start=1):
        rec = load_doc_record(corpus_dir, doc_id)
        if rec is None:
            problems.append(f"docs/{doc_id}/{DOC_RECORD}: missing or invalid")
        else:
            problems += check_files(corpus_dir, rec.files)
        problems += verify_document(corpus_dir, doc_id)
        if progress:
            progress(n, len(manifest.documents))
    return problems


# ------------------------------------------------------------------ reproduce

def reproduce_corpus(corpus_dir: str | os.PathLike[str], sample: int | None = None
                     ) -> tuple[list[str], list[str]]:
    """Regenerate documents from the manifest's spec in memory; return (checked doc ids, differences)."""
    manifest = load_manifest(corpus_dir)
    if manifest.code_version != code_version():
        raise CorpusError(f"corpus was made by code {manifest.code_version}, this is {code_version()}; "
                          "bytes are only reproducible with the same code version")
    indices = list(range(manifest.spec.n_docs))
    if sample is not None and sample < len(indices):
        from ir import Rng

        indices = sorted(Rng(manifest.spec.seed).fork("reproduce-sample").sample(indices, sample))
    diffs: list[str] = []
    checked = []
    for i in indices:
        built = build_document(manifest.spec, i)
        checked.append(built.doc.doc_id)
        for rel, data in built.files.items():
            want = manifest.files.get(rel)
            if want is None:
                diffs.append(f"{rel}: regenerated but not in the manifest")
            elif sha256_bytes(data) != want:
                diffs.append(f"{rel}: regenerated bytes differ")
        expected = {r for r in manifest.files if r.startswith(f"docs/{built.doc.doc_id}/")
                    and not r.endswith(DOC_RECORD)}
        for rel in sorted(expected - set(built.files)):
            diffs.append(f"{rel}: in the manifest but not regenerated")
    return checked, diffs


def clean_partial(corpus_dir: str | os.PathLike[str]) -> None:
    """Remove leftover temp files of a killed run (complete documents are kept)."""
    for p in Path(corpus_dir).rglob(".*.tmp"):
        p.unlink(missing_ok=True)


__all__ = ["clean_partial", "doc_id_for", "generate_corpus", "reproduce_corpus", "verify_corpus",
           "verify_document"]
