"""Verify a corpus: file hashes, evidence against the PDF text layer, derivations, answers against facts."""

from __future__ import annotations

import os
from collections.abc import Callable

from ir.qa import recompute_assertion

from .store import (
    CorpusError,
    CorpusReader,
    DocFiles,
    check_files,
    load_doc_record,
    load_manifest,
    open_corpus,
)


def verify_document(corpus_dir: str | os.PathLike[str] | CorpusReader, doc_id: str) -> list[str]:
    """Evidence against the PDF text layer, derivations recomputed, answers against the IR's facts."""
    from ir import RenderMap, SpanBox
    from ir.answers import answer_for_value
    from renderers import verify_text_layer

    reader = corpus_dir if isinstance(corpus_dir, CorpusReader) else open_corpus(corpus_dir, checked=False)
    problems: list[str] = []
    try:
        doc = reader.ir(doc_id)
        qa = reader.qa(doc_id)
        asr = {a.id: a for a in reader.assertions(doc_id)}
        pdf = reader.pdf(doc_id)
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
    # Files are read as they are: a changed file is reported below by its hash, then checked for content.
    reader = open_corpus(corpus_dir, checked=False)
    problems = check_files(corpus_dir, manifest.files)
    for n, doc_id in enumerate(manifest.documents, start=1):
        rec = load_doc_record(corpus_dir, doc_id)
        if rec is None:
            problems.append(f"{DocFiles(doc_id).record}: missing or invalid")
        else:
            problems += check_files(corpus_dir, rec.files)
        problems += verify_document(reader, doc_id)
        if progress:
            progress(n, len(manifest.documents))
    return problems
