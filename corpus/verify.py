"""Verify a corpus: safe ids, file hashes, records against the manifest, the corpus tables against the
per-document records and files, evidence against the PDF text layer, derivations, answers against facts.

Two levels:

* :func:`check_corpus` -- integrity, fast: every id has its pattern (checked before any id becomes a
  path or lands in a report), every listed file has its hash, every record agrees with the manifest and
  its own folder, and ``documents.parquet``, ``pages.parquet``, ``qa.parquet``, ``assertions.parquet`` and
  ``qa.jsonl`` say exactly what the per-document records and files say. ``judge``, ``export`` and
  ``report`` refuse a corpus that fails it (unless ``--no-verify``).
* :func:`verify_corpus` -- the above plus the content of every document (``synthdocqa verify``).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath
from typing import Any

from synthdocqa.generation.qa import recompute_assertion
from synthdocqa.ir.answers import form_denotes
from synthdocqa.ir.ids import DOC_ID, assertion_id_pattern, qa_id_pattern
from synthdocqa.ir.qa_models import Assertion, QAPair

from .store import (
    ASSERTIONS_TABLE,
    DOCUMENTS_TABLE,
    LEGIBILITY_QA_TABLE,
    LEGIBILITY_TABLE,
    LOCK_FILE,
    MANIFEST,
    PAGES_TABLE,
    PDF_FILE,
    QA_FILE,
    QA_TABLE,
    REPORT_FILE,
    SPEC_FILE,
    TABLES,
    CorpusError,
    CorpusManifest,
    CorpusReader,
    DocFiles,
    DocRecord,
    check_files,
    doc_id_for,
    load_doc_record,
    load_manifest,
    open_corpus,
)

FACT_ID = re.compile(r"f\d{4,}")
BLOCK_ID = re.compile(r"b\d{3,}")
LAYOUT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
_PATH_PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}")
_SCAN_SUFFIXES = (".png", ".jpg", ".jpeg")


def unsafe_doc_ids(doc_ids: Iterable[str]) -> list[str]:
    """Problems with document ids: each must be ``doc-NNNNN`` (they become folder names and report text)."""
    problems, seen = [], set()
    for d in doc_ids:
        if not isinstance(d, str) or not DOC_ID.fullmatch(d):
            problems.append(f"document id {d!r} is not of the form doc-NNNNN (unsafe id)")
        elif d in seen:
            problems.append(f"document id {d} listed twice")
        seen.add(d)
    return problems


def unsafe_path(rel: str) -> bool:
    """A manifest path that is not a plain relative path of safe names (absolute, ``..``, odd characters)."""
    p = PurePosixPath(rel)
    return p.is_absolute() or not p.parts or any(not _PATH_PART.fullmatch(part) for part in p.parts)


# ---------------------------------------------------------------- integrity

VIEW_FILES = (MANIFEST, SPEC_FILE, LOCK_FILE, REPORT_FILE, LEGIBILITY_TABLE, LEGIBILITY_QA_TABLE, "croissant.json")
"""The files of a corpus folder that are not in its manifest by design: the manifest itself, the spec it was built
for, the run lock while a command holds the folder, and the views made from it (the report, the legibility
tables, Croissant metadata written in place: ``corpus.views.exports.croissant.FILE_NAME``, a test checks the two
agree)."""


def untracked_files(corpus_dir: str | os.PathLike[str], manifest: CorpusManifest) -> list[str]:
    """Every file under the corpus that is neither in the manifest nor one of its ``VIEW_FILES``, named: an extra
    page, a copied document folder or a stray file is not part of what the manifest vouches for."""
    root = Path(corpus_dir)
    known = set(manifest.files) | set(VIEW_FILES)
    extra = sorted(rel for p in root.rglob("*") if (p.is_file() or p.is_symlink())
                   and (rel := p.relative_to(root).as_posix()) not in known)
    out = [f"{rel}: a file the manifest does not list (not part of the corpus)" for rel in extra[:20]]
    if len(extra) > 20:
        out.append(f"... and {len(extra) - 20} more files the manifest does not list")
    return out


def check_corpus(corpus_dir: str | os.PathLike[str]) -> list[str]:
    """Integrity problems (empty list: the corpus is whole and says the same thing everywhere)."""
    try:
        manifest = load_manifest(corpus_dir)
    except CorpusError as err:
        return [str(err)]
    problems = unsafe_doc_ids(manifest.documents)
    bad_paths = sorted(rel for rel in manifest.files if unsafe_path(rel))
    problems += [f"{rel!r}: unsafe path in the manifest" for rel in bad_paths[:20]]
    if problems:
        return problems  # ids and paths are checked before any of them is opened
    reader = open_corpus(corpus_dir, checked=False)
    problems += check_files(corpus_dir, manifest.files)
    problems += untracked_files(corpus_dir, manifest)
    records, qa, asr, doc_problems = _documents(reader, manifest)
    problems += doc_problems
    problems += _check_listing(manifest, records)
    if len(records) == len(manifest.documents):
        problems += check_tables(reader, records, qa, asr)
        from .tables import corpus_stats

        stats = corpus_stats(records, [q for d in records for q in qa[d.doc_id]],
                             [a for d in records for a in asr[d.doc_id]])
        if stats != manifest.stats:
            diff = sorted(k for k in set(stats) | set(manifest.stats) if stats.get(k) != manifest.stats.get(k))
            problems.append(f"{MANIFEST}: stats {diff} differ from the documents")
    return problems


def _documents(reader: CorpusReader, manifest: CorpusManifest
               ) -> tuple[list[DocRecord], dict[str, list[QAPair]], dict[str, list[Assertion]], list[str]]:
    records: list[DocRecord] = []
    qa: dict[str, list[QAPair]] = {}
    asr: dict[str, list[Assertion]] = {}
    problems: list[str] = []
    for doc_id in manifest.documents:
        files = DocFiles(doc_id)
        rec = load_doc_record(reader.root, doc_id)
        if rec is None:
            problems.append(f"{files.record}: missing or invalid")
            continue
        own = check_record(rec, doc_id, manifest)
        problems += own
        try:
            qa[doc_id] = reader.qa(doc_id)
            asr[doc_id] = reader.assertions(doc_id)
        except (OSError, ValueError) as err:
            problems.append(f"{files.dir}: cannot read its QA or assertions: {str(err).splitlines()[0]}")
            continue
        problems += check_qa_ids(doc_id, qa[doc_id], asr[doc_id])
        if len(qa[doc_id]) != rec.n_qa or len(asr[doc_id]) != rec.n_assertions:
            problems.append(f"{files.record}: counts {rec.n_qa} QA / {rec.n_assertions} assertions differ from "
                            f"its files ({len(qa[doc_id])} / {len(asr[doc_id])})")
        if not own:
            records.append(rec)
    return records, qa, asr, problems


def check_record(rec: DocRecord, doc_id: str, manifest: CorpusManifest) -> list[str]:
    """A document record against its folder name, the manifest and the file names the store gives it."""
    files = DocFiles(doc_id)
    where = files.record
    problems = []
    if rec.doc_id != doc_id:
        problems.append(f"{where}: doc_id {rec.doc_id!r} differs from its folder {doc_id}")
    if doc_id_for(rec.index) != doc_id:
        problems.append(f"{where}: index {rec.index} does not name {doc_id}")
    if rec.spec_hash != manifest.spec_hash or rec.code_version != manifest.code_version:
        problems.append(f"{where}: made for another spec or code version than the manifest's")
    for rel, digest in rec.files.items():
        if unsafe_path(rel) or not rel.startswith(files.dir + "/"):
            problems.append(f"{where}: lists {rel!r} outside its folder")
        elif manifest.files.get(rel) != digest:
            problems.append(f"{where}: {rel} has another sha256 in the manifest")
    if files.record not in manifest.files:
        problems.append(f"{where}: not listed in the manifest")
    if [p.page_no for p in rec.pages] != list(range(1, rec.n_pages + 1)):
        problems.append(f"{where}: pages {[p.page_no for p in rec.pages]} for n_pages {rec.n_pages}")
    for p in rec.pages:
        ext = PurePosixPath(p.scan).suffix
        if p.doc_id != doc_id or p.image != files.page_image(p.page_no) \
                or ext not in _SCAN_SUFFIXES or p.scan != files.scan_image(p.page_no, ext):
            problems.append(f"{where}: page {p.page_no} names another document's or an unknown file")
        elif p.image not in rec.files or p.scan not in rec.files:
            problems.append(f"{where}: page {p.page_no} images are not among its files")
        if p.layout_id is not None and not LAYOUT_ID.fullmatch(p.layout_id):
            problems.append(f"{where}: page {p.page_no} layout id {p.layout_id!r} is not a plain id (unsafe id)")
    return problems


def check_qa_ids(doc_id: str, qa: list[QAPair], asr: list[Assertion]) -> list[str]:
    """QA and assertion ids have their patterns and belong to the document (they are report text)."""
    problems = []
    qa_re = qa_id_pattern(doc_id)
    qa_ids = set()
    for q in qa:
        if q.doc_id != doc_id or not qa_re.fullmatch(q.id):
            problems.append(f"{DocFiles(doc_id).qa}: QA id {q.id!r} of document {q.doc_id!r} (unsafe id)")
        qa_ids.add(q.id)
    for a in asr:
        if a.doc_id != doc_id or a.qa_id not in qa_ids or not assertion_id_pattern(a.qa_id).fullmatch(a.id):
            problems.append(f"{DocFiles(doc_id).assertions}: assertion id {a.id!r} of QA {a.qa_id!r} (unsafe id)")
        for e in [*a.evidence, *(e for op in (a.derivation.operands if a.derivation else []) for e in op.evidence)]:
            if not FACT_ID.fullmatch(e.fact_id) or not BLOCK_ID.fullmatch(e.block_id):
                problems.append(f"{DocFiles(doc_id).assertions}: {a.id} cites fact {e.fact_id!r} in block "
                                f"{e.block_id!r} (unsafe id)")
                break
    return problems[:20]


def _check_listing(manifest: CorpusManifest, records: list[DocRecord]) -> list[str]:
    """The manifest lists the tables and every document's files and record, and nothing else."""
    want = set(TABLES)
    for r in records:
        want |= set(r.files) | {DocFiles(r.doc_id).record}
    have = set(manifest.files)
    if len(records) < len(manifest.documents):  # a bad record was reported already; judge what is left
        prefixes = tuple(DocFiles(d).dir + "/" for d in manifest.documents)
        have = {f for f in have if f in TABLES or not f.startswith(prefixes)} | (want - set(TABLES))
    problems = [f"{rel}: in the manifest but in no document record" for rel in sorted(have - want)[:20]]
    problems += [f"{rel}: not in the manifest" for rel in sorted(want - have)[:20]]
    return problems


# ---------------------------------------------------------------- tables against documents

def _native(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, (str, bytes)):
        v = v.item()
    if isinstance(v, float) and math.isnan(v):
        return None
    return v


def _compare_table(reader: CorpusReader, name: str, columns: list[str], want: list[dict[str, Any]],
                   key: str) -> list[str]:
    try:
        df = reader.table(name)
    except Exception as err:  # noqa: BLE001 - pyarrow raises many types for a file that is not Parquet
        return [f"{name}: not a readable Parquet table ({err.__class__.__name__}: {str(err).splitlines()[0]})"]
    if list(df.columns) != columns:
        return [f"{name}: columns {list(df.columns)} differ from {columns}"]
    if len(df) != len(want):
        return [f"{name}: {len(df)} rows, the documents have {len(want)}"]
    for i, (row, exp) in enumerate(zip(df.to_dict("records"), want, strict=True)):
        for col in columns:
            if _native(row[col]) != exp[col]:
                return [f"{name}: row {i} ({key} {exp[key]}): {col} {str(_native(row[col]))[:80]!r} differs from "
                        f"the document's {str(exp[col])[:80]!r}"]
    return []


def check_tables(reader: CorpusReader, records: list[DocRecord], qa: dict[str, list[QAPair]],
                 asr: dict[str, list[Assertion]]) -> list[str]:
    """The corpus-level tables against the per-document records and files they were assembled from."""
    from .tables import (
        ASSERTION_COLUMNS,
        DOC_COLUMNS,
        PAGE_COLUMNS,
        QA_COLUMNS,
        assertion_row,
        document_row,
        qa_row,
    )

    records = sorted(records, key=lambda r: r.index)
    all_qa = [q for r in records for q in qa[r.doc_id]]
    all_asr = [a for r in records for a in asr[r.doc_id]]
    problems = _compare_table(reader, DOCUMENTS_TABLE, DOC_COLUMNS, [document_row(r) for r in records], "doc_id")
    problems += _compare_table(reader, PAGES_TABLE, PAGE_COLUMNS,
                               [p.model_dump() for r in records for p in r.pages], "doc_id")
    problems += _compare_table(reader, QA_TABLE, QA_COLUMNS, [qa_row(q) for q in all_qa], "qa_id")
    problems += _compare_table(reader, ASSERTIONS_TABLE, ASSERTION_COLUMNS,
                               [assertion_row(a) for a in all_asr], "assertion_id")
    problems += _check_qa_jsonl(reader, all_qa)
    return problems


def _check_qa_jsonl(reader: CorpusReader, want: list[QAPair]) -> list[str]:
    try:
        text = reader.read_bytes(QA_FILE).decode("utf-8")
    except OSError as err:
        return [f"{QA_FILE}: cannot be read ({err.strerror or err})"]
    except UnicodeDecodeError as err:
        return [f"{QA_FILE}: not UTF-8 text ({err.reason} at byte {err.start})"]
    lines = [line for line in text.split("\n") if line.strip()]
    for n, line in enumerate(lines, start=1):
        try:
            q = QAPair.model_validate_json(line)
        except ValueError as err:
            return [f"{QA_FILE}: line {n}: not a QA pair ({str(err).splitlines()[0]})"]
        if n > len(want) or q != want[n - 1]:
            return [f"{QA_FILE}: line {n} ({q.id}) differs from the documents' QA files"]
    if len(lines) != len(want):
        return [f"{QA_FILE}: {len(lines)} QA pairs, the documents have {len(want)}"]
    return []


# ---------------------------------------------------------------- content

def _schema(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split(".") if x.isdigit())


def verify_document(corpus_dir: str | os.PathLike[str] | CorpusReader, doc_id: str) -> list[str]:
    """Evidence against the PDF text layer, derivations recomputed, answers against the IR's facts."""
    from synthdocqa.ir import RenderMap, SpanBox
    from synthdocqa.ir.answers import answer_for_value
    from synthdocqa.ir.derivations import derivation_problems, unsourced_problems, world_problems
    from synthdocqa.renderers import verify_text_layer

    if unsafe_doc_ids([doc_id]):
        return unsafe_doc_ids([doc_id])
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
    problems += [f"{doc_id}: {p}" for p in derivation_problems(doc.facts)]  # the printed numbers reconcile
    problems += [f"{doc_id}: {p}" for p in world_problems(doc.facts, doc.world)]  # each is its world's answer
    if _schema(doc.schema_version) >= (1, 6):  # since 1.6 every number is the world's, derived, or the document's
        problems += [f"{doc_id}: {p}" for p in unsourced_problems(doc.facts)]
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
    try:
        text_problems = verify_text_layer(pdf, rmap)
    except RuntimeError as err:  # pymupdf's FileDataError and friends: a damaged file is a finding, not a crash
        problems.append(f"{doc_id}: {PDF_FILE} cannot be read as a PDF ({' '.join(str(err).split())[:120]}); "
                        "its evidence was not checked")
        text_problems = []
    for problem in text_problems:
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
        false_forms = [f for f in q.accepted_answers if not form_denotes(q.answer, f)]
        if false_forms:
            problems.append(f"{q.id}: accepted answers that do not denote its answer {q.answer.value!r}: "
                            f"{false_forms[:3]}")
    return problems


def verify_corpus(corpus_dir: str | os.PathLike[str], progress: Callable[[int, int], None] | None = None
                  ) -> list[str]:
    """Every problem found (empty list: the corpus verifies): :func:`check_corpus`, then each document's
    content."""
    problems = check_corpus(corpus_dir)
    try:
        manifest = load_manifest(corpus_dir)
    except CorpusError:
        return problems
    if unsafe_doc_ids(manifest.documents):
        return problems
    reader = open_corpus(corpus_dir, checked=False)
    for n, doc_id in enumerate(manifest.documents, start=1):
        problems += verify_document(reader, doc_id)
        if progress:
            progress(n, len(manifest.documents))
    return problems

