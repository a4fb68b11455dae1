"""Croissant 1.0 (+ RAI) metadata for a corpus: ``croissant.json`` with a FileObject (sha256) per corpus
file that readers open directly, FileSets for the page images, the scans and the per-document assertions, and
typed RecordSets ``mlcroissant`` streams: ``qa`` (with its evidence boxes), ``assertions``, ``documents``,
``pages``, ``page_images`` and ``scan_images``.

Fields are typed: lists are ``repeated`` fields, answers and evidence are fields with ``subField``s, boxes are
repeated ``sc:Float`` (``scan_quad``: four [x, y] corners), images are ``sc:ImageObject``; no field holds JSON
text except the ``*_json`` copies kept for exact round trips.

The export is a folder holding ``croissant.json``, a copy of the corpus files it describes (``contentUrl``
relative to it) and ``qa_with_evidence.parquet``, the QA table with every answer's evidence boxes (the
corpus keeps those per assertion). ``--out`` pointing at the corpus itself writes only ``croissant.json``;
there the ``qa`` record set is read from ``qa.jsonl`` and has no ``evidence`` field (the boxes are in
``assertions``, joined on ``qa_id``). ``datePublished`` is the UTC date ``corpus.json`` was written (its
modification time), so the same corpus gives the same bytes.
"""

from __future__ import annotations

import datetime
import hashlib
import os
from pathlib import Path
from typing import Any

from synthdocqa.ir.answers import ANSWER_POLICY
from synthdocqa.ir.files import atomic_write_text, sha256_file

from ...ocr import ANSWERABLE_RULE, ANSWERABLE_RULE_TEXT
from ...store import (
    ASSERTIONS_FILE,
    ASSERTIONS_TABLE,
    DOCUMENTS_TABLE,
    IR_FILE,
    MANIFEST,
    PAGE_IMAGE_SUFFIX,
    PAGES_TABLE,
    QA_FILE,
    QA_TABLE,
    SCAN_DIR,
    CorpusReader,
    DocFiles,
    open_corpus,
)
from . import hf
from .common import EXPORT_MARKER, canonical, export_errors, marker_file, marker_of, write_export_dir

FORMAT = "croissant"
FILE_NAME = "croissant.json"
QA_EVIDENCE_TABLE = "qa_with_evidence.parquet"
"""The export's own QA table: the typed ``qa`` rows of the Hugging Face export, evidence included, no images."""

CONTEXT: dict[str, Any] = {
    "@language": "en",
    "@vocab": "https://schema.org/",
    "citeAs": "cr:citeAs",
    "column": "cr:column",
    "conformsTo": "dct:conformsTo",
    "cr": "http://mlcommons.org/croissant/",
    "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"},
    "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/",
    "examples": {"@id": "cr:examples", "@type": "@json"},
    "extract": "cr:extract",
    "field": "cr:field",
    "fileProperty": "cr:fileProperty",
    "fileObject": "cr:fileObject",
    "fileSet": "cr:fileSet",
    "format": "cr:format",
    "includes": "cr:includes",
    "isLiveDataset": "cr:isLiveDataset",
    "jsonPath": "cr:jsonPath",
    "key": "cr:key",
    "md5": "cr:md5",
    "parentField": "cr:parentField",
    "path": "cr:path",
    "recordSet": "cr:recordSet",
    "references": "cr:references",
    "regex": "cr:regex",
    "samplingRate": "cr:samplingRate",
    "equivalentProperty": "cr:equivalentProperty",
    "repeated": "cr:repeated",
    "replace": "cr:replace",
    "sc": "https://schema.org/",
    "separator": "cr:separator",
    "source": "cr:source",
    "subField": "cr:subField",
    "transform": "cr:transform",
}

_MIME = {".parquet": "application/x-parquet", ".jsonl": "application/jsonlines", ".json": "application/json",
         ".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg"}

# --------------------------------------------------------------- record sets
# Record sets are written from the feature language of ``hf.SCHEMAS``: scalars become typed fields, ("seq", x)
# a repeated field, a struct a field with subFields, ("list", struct) a repeated field with subFields; a
# subField reads its parent's column through a jsonPath.

_DATA_TYPE = {"string": "sc:Text", "int32": "sc:Integer", "int64": "sc:Integer", "float64": "sc:Float",
              "bool": "sc:Boolean"}

DESCRIPTIONS: dict[str, str] = {
    "qa_id": "unique id <doc_id>-q<n>",
    "doc_id": "document id",
    "question": "the question",
    "answer_text": "canonical surface form of the answer",
    "answer": "typed answer",
    "answer.kind": "string, number, date, boolean, list or not_answerable",
    "answer.value": "the value as text (a list joined with '; ', a boolean as true/false)",
    "answer.values": "the items of a list answer (empty otherwise)",
    "answer.unit": "unit of a number answer ('' when none)",
    "answer.currency": "currency of a money answer ('' when none)",
    "answer_json": "typed answer as JSON (kept for exact round trips)",
    "accepted_answers": f"accepted surface forms ({ANSWER_POLICY})",
    "qa_type": "lookup, table_aggregate, comparison, difference, ...",
    "element_type": "text, table, figure, form, annotation or none",
    "difficulty": "easy, medium or hard",
    "page_nos": "1-based pages holding the evidence",
    "image_page_nos": "pages whose images the question is asked about: page_nos, then any other evidence page",
    "fact_ids": "the facts the answer rests on",
    "assertion_ids": "the assertions behind the answer",
    "answerable_from_scan": f"rule {ANSWERABLE_RULE}: {ANSWERABLE_RULE_TEXT}; false: a scan stage erased, hid "
                            "or garbled it, answer from the PDF only; empty: the scans were not read",
    "evidence": "every span the answer cites, with its boxes",
    "evidence.assertion_id": "the assertion citing the span",
    "evidence.fact_id": "the fact drawn in the span",
    "evidence.block_id": "the IR block the span was drawn in",
    "evidence.page_no": "1-based page of the span (joins page_images and scan_images)",
    "evidence.text": "the text drawn",
    "evidence.bbox_pdf": "x0, y0, x1, y1 in PDF points (origin top left)",
    "evidence.bbox_page_px": "x0, y0, x1, y1 in pixels of the clean page image",
    "evidence.scan_bbox": "x0, y0, x1, y1 in pixels of the scan image",
    "evidence.scan_quad": "the span's four corners [x, y] in pixels of the scan image",
    "evidence.occluded_by": "scan stages whose marks cover part of the span on the scan",
    "evidence.scan_cer": "character error rate of Tesseract reading the span on the scan (empty: not read)",
    "evidence.scan_digits": "every digit of the span read exactly on the scan (empty: not read)",
    "evidence.image_index": "position of the span's page in image_page_nos",
    "assertion_id": "unique id",
    "claim": "atomic natural-language claim",
    "value": "typed claimed value",
    "value.kind": "kind of the claimed value",
    "value.unit": "unit of a number ('' or empty when none)",
    "value.currency": "currency of a money value ('' or empty when none)",
    "derivation": "how a derived value was computed (empty for read values)",
    "derivation.op": "sum, mean, max, min, count, difference, percent_change, days_between, ...",
    "derivation.result": "the exact derived value (decimal or ISO date)",
}

QA_TABLE_SPEC: dict[str, Any] = {k: v for k, v in hf.SCHEMAS["qa"].items() if k not in ("images", "scans")}
"""Columns of ``qa_with_evidence.parquet`` (and of the folder export's ``qa`` record set)."""

_EVIDENCE_JSONL = {k: v for k, v in hf.EVIDENCE.items() if k != "assertion_id"}
QA_JSONL_SPEC: dict[str, Any] = {
    "qa_id": "string", "doc_id": "string", "question": "string", "answer_text": "string",
    "answer": {"kind": "string", "unit": "string", "currency": "string"},
    "accepted_answers": ("seq", "string"), "qa_type": "string", "element_type": "string", "difficulty": "string",
    "page_nos": ("seq", "int32"), "fact_ids": ("seq", "string"), "assertion_ids": ("seq", "string"),
    "answerable_from_scan": "bool"}
"""The ``qa`` record set read from the corpus's ``qa.jsonl`` (Croissant written in place)."""
ASSERTIONS_SPEC: dict[str, Any] = {
    "assertion_id": "string", "qa_id": "string", "doc_id": "string", "claim": "string",
    "value": {"kind": "string", "unit": "string", "currency": "string"}, "fact_ids": ("seq", "string"),
    "evidence": ("list", _EVIDENCE_JSONL), "derivation": {"op": "string", "result": "string"}}
"""The ``assertions`` record set, read from every document's ``assertions.jsonl``."""
QA_JSONL_COLUMNS = {"qa_id": "id"}
ASSERTION_JSONL_COLUMNS = {"assertion_id": "id"}
"""Record-set field -> JSON-lines key where they differ (a line's own id is its ``id``)."""

# Parquet table -> (record set, description, key column, [(column, dataType, description)])
SCALAR_RECORD_SETS: list[tuple[str, str, str, str | None, list[tuple[str, str, str]]]] = [
    (DOCUMENTS_TABLE, "documents", "One row per generated document.", "doc_id", [
        ("doc_id", "sc:Text", "document id"),
        ("index", "sc:Integer", "position in the corpus"),
        ("domain", "sc:Text", "business domain"),
        ("recipe", "sc:Text", "kind of document"),
        ("title", "sc:Text", "title"),
        ("tier", "sc:Text", "scan degradation tier"),
        ("n_pages", "sc:Integer", "pages"),
        ("n_facts", "sc:Integer", "facts planned"),
        ("n_spans", "sc:Integer", "fact-bearing spans drawn"),
        ("n_qa", "sc:Integer", "QA pairs"),
        ("n_assertions", "sc:Integer", "assertions"),
        ("pdf", "sc:Text", "path of the born-digital PDF"),
        ("scan_pdf", "sc:Text", "path of the scanned PDF"),
        ("ir", "sc:Text", f"path of the generation IR ({IR_FILE})")]),
    (PAGES_TABLE, "pages", "One row per page with its clean image and scan.", None, [
        ("doc_id", "sc:Text", "document id"),
        ("page_no", "sc:Integer", "1-based page"),
        ("width_pt", "sc:Float", "page width in PDF points"),
        ("height_pt", "sc:Float", "page height in PDF points"),
        ("layout_id", "sc:Text", "layout template used"),
        ("image", "sc:Text", "path of the clean page image"),
        ("scan", "sc:Text", "path of the scan image"),
        ("n_spans", "sc:Integer", "fact-bearing spans drawn"),
        ("n_qa", "sc:Integer", "QA pairs whose first evidence is on the page")]),
]

RAI: dict[str, Any] = {
    "rai:dataCollection": (
        "Fully synthetic: documents are planned from a seeded generator (domains, recipes, facts), rendered to "
        "PDF with reportlab, rasterised with PyMuPDF and passed through a simulated scanner; questions, answers "
        "and assertions are derived from the same facts that filled the page."),
    "rai:dataCollectionType": ["Synthetic"],
    "rai:dataCollectionRawData": "None: no real documents were collected.",
    "rai:dataAnnotationProtocol": (
        "No human annotation. Each answer is computed from the planned facts; every evidence span is checked "
        "against the PDF text layer and every derivation recomputed by the corpus verifier."),
    "rai:dataAnnotationPlatform": "synthdocqa (automatic, deterministic)",
    "rai:annotationsPerItem": "One typed answer and one or more assertions per question.",
    "rai:dataPreprocessingProtocol": (
        "Scan degradation by four capture devices (flatbed, photocopy, fax, phone) from 26 physical stages "
        "sampled per page into the IR (tiers pristine to poor); evidence boxes are carried through the "
        "geometric stages and the evidence that marks on the sheet cover is recorded."),
    "rai:dataUseCases": (
        "Evaluating and training document QA, RAG and PDF-parsing systems on grounded questions; measuring the "
        "effect of scan quality. Not for learning facts about real organisations."),
    "rai:dataLimitations": (
        "Synthetic layouts, vocabulary and values: distributions differ from real enterprise archives; English "
        "only; questions follow templates per QA type; scans are simulated, not photographed."),
    "rai:dataBiases": (
        "Domain, recipe and element mixes follow the generating spec, not a real population; names and "
        "organisations are drawn from fixed generator lists."),
    "rai:personalSensitiveInformation": (
        "None. People, organisations, identifiers and figures are invented by the generator."),
    "rai:dataSocialImpact": (
        "Lets teams share document-QA benchmarks without exposing confidential documents; synthetic text must "
        "not be mistaken for real records."),
    "rai:hasSyntheticData": True,
    "rai:dataReleaseMaintenancePlan": (
        f"Regenerable bit for bit from the spec and seed recorded in {MANIFEST} with the recorded code version."),
}


def _file_object(view: CorpusReader, rel: str, description: str, data: bytes | None = None) -> dict[str, Any]:
    """A FileObject for a corpus file (hash from the manifest), or for ``data`` the export writes at ``rel``."""
    if data is not None:
        digest, size = hashlib.sha256(data).hexdigest(), len(data)
    else:
        digest = view.manifest.files.get(rel) or sha256_file(view.path(rel))  # the manifest cannot list itself
        size = view.path(rel).stat().st_size
    return {"@type": "cr:FileObject", "@id": rel, "name": rel, "description": description, "contentUrl": rel,
            "encodingFormat": _MIME.get(Path(rel).suffix, "application/octet-stream"),
            "contentSize": f"{size} B", "sha256": digest}


def _described_files(view: CorpusReader) -> list[tuple[str, str]]:
    """(corpus path, description) of every file given its own FileObject, in a stable order."""
    out = [(MANIFEST, "corpus manifest: spec, code version, stats, sha256 of every file"),
           (QA_TABLE, "QA pairs (corpus table; lists as JSON text)"),
           (ASSERTIONS_TABLE, "assertions with evidence (corpus table; lists as JSON text)"),
           (DOCUMENTS_TABLE, "documents"), (PAGES_TABLE, "pages"), (QA_FILE, "QA pairs as JSON lines")]
    for doc_id in view.doc_ids:
        f = DocFiles(doc_id)
        out += [(f.pdf, f"{doc_id}: born-digital PDF"),
                (f.scan_pdf, f"{doc_id}: scanned PDF"),
                (f.ir, f"{doc_id}: generation IR (replayable)")]
    return out


def _field(fid: str, name: str, t: Any, source: dict[str, Any], column: str, key: str,
           json_path: str | None = None) -> dict[str, Any]:
    """One Croissant field for a column (or, with ``json_path``, a member of its parent's column)."""
    d: dict[str, Any] = {"@type": "cr:Field", "@id": fid, "name": name,
                         "description": DESCRIPTIONS.get(key, name.replace("_", " "))}
    inner = t
    if isinstance(t, tuple):
        d["repeated"] = True
        inner = t[1]
        while isinstance(inner, tuple) and inner[0] == "seq":  # a list of lists (scan_quad) stays nested
            inner = inner[1]
    if isinstance(inner, dict):
        d["subField"] = [_field(f"{fid}/{k}", k, v, source, column, f"{key}.{k}", k) for k, v in inner.items()]
        return d
    d["dataType"] = _DATA_TYPE[inner]
    src: dict[str, Any] = {**source, "extract": {"column": column}}
    if json_path:
        src["transform"] = {"jsonPath": json_path}
    d["source"] = src
    return d


def _record_set(name: str, description: str, spec: dict[str, Any], source: dict[str, Any], key: str | None,
                columns: dict[str, str] | None = None) -> dict[str, Any]:
    columns = columns or {}
    rs: dict[str, Any] = {"@type": "cr:RecordSet", "@id": name, "name": name, "description": description,
                          "field": [_field(f"{name}/{k}", k, v, source, columns.get(k, k), k) for k, v in spec.items()]}
    if key:
        rs["key"] = {"@id": f"{name}/{key}"}
    return rs


def _image_record_set(name: str, description: str, file_set: str, folder: str) -> dict[str, Any]:
    """Images of a FileSet with the (doc_id, page_no) read from their paths ``docs/<doc_id>/<folder>/page-NNNN.*``."""
    src = {"fileSet": {"@id": file_set}}
    path_re = rf"^docs/([^/]+)/{folder}/page-(\d+)\.\w+$"

    def from_path(field: str, dtype: str, desc: str, regex: str) -> dict[str, Any]:
        return {"@type": "cr:Field", "@id": f"{name}/{field}", "name": field, "description": desc, "dataType": dtype,
                "source": {**src, "extract": {"fileProperty": "fullpath"}, "transform": {"regex": regex}}}

    return {"@type": "cr:RecordSet", "@id": name, "name": name, "description": description,
            "key": {"@id": f"{name}/path"}, "field": [
                {"@type": "cr:Field", "@id": f"{name}/path", "name": "path", "dataType": "sc:Text",
                 "description": "path of the image file in the dataset", "source": {**src, "extract": {"fileProperty": "fullpath"}}},
                from_path("doc_id", "sc:Text", "document id (joins qa.doc_id, pages.doc_id)", path_re.replace(r"(\d+)", r"\d+")),
                from_path("page_no", "sc:Integer", "1-based page (joins qa.evidence.page_no, pages.page_no)",
                          path_re.replace("([^/]+)", "[^/]+")),
                {"@type": "cr:Field", "@id": f"{name}/image", "name": "image", "dataType": "sc:ImageObject",
                 "description": "the image", "source": {**src, "extract": {"fileProperty": "content"}}}]}


def qa_evidence_table(view: CorpusReader) -> bytes:
    """``qa_with_evidence.parquet``: every QA pair in corpus order with its typed answer and evidence boxes."""
    rows = []
    for doc_id in view.doc_ids:
        by_id = {a.id: a for a in view.assertions(doc_id)}
        rows += [hf.qa_row(q, by_id) for q in view.qa(doc_id)]
    return hf.parquet_bytes(rows, hf.spec_schema(QA_TABLE_SPEC))[0]


def date_published(view: CorpusReader) -> str:
    """The UTC date ``corpus.json`` was written: a property of the corpus, so re-exporting changes no byte."""
    mtime = view.path(MANIFEST).stat().st_mtime
    return datetime.datetime.fromtimestamp(mtime, datetime.UTC).date().isoformat()


def croissant_metadata(view: CorpusReader, qa_table: bytes | None = None,
                       marker: bytes | None = None) -> dict[str, Any]:
    """The metadata; ``qa_table`` (the bytes of ``qa_with_evidence.parquet``) and ``marker`` (the export's
    ``synthdocqa-export.json``) are files of a folder export, described beside the corpus files. Without
    ``qa_table`` the ``qa`` record set is read from ``qa.jsonl`` and has no evidence."""
    m = view.manifest
    s = m.stats
    any_doc = DocFiles("*")  # glob patterns over every document's folder
    distribution: list[dict[str, Any]] = []
    for rel, desc in _described_files(view):
        if rel != MANIFEST:
            view.read_bytes(rel)  # the hash we publish is the hash of the bytes that are there
        distribution.append(_file_object(view, rel, desc))
    if qa_table is not None:
        distribution.append(_file_object(view, QA_EVIDENCE_TABLE, "QA pairs with typed answers and every "
                                         "evidence box (written by the export)", qa_table))
    if marker is not None:
        distribution.append(_file_object(view, EXPORT_MARKER, "what this folder was exported from (corpus, spec "
                                         "hash, code version); lets a later export replace the folder", marker))
    distribution.append({"@type": "cr:FileSet", "@id": "page-images", "name": "page-images",
                         "description": "clean page images rendered from the PDFs", "encodingFormat": "image/png",
                         "includes": f"{any_doc.images_dir('pages')}/*{PAGE_IMAGE_SUFFIX}"})
    scan_exts = sorted({Path(rel).suffix for rel in m.files if f"/{SCAN_DIR}/" in rel}) or [".jpg"]
    distribution.append({"@type": "cr:FileSet", "@id": "scan-images", "name": "scan-images",
                         "description": "simulated scans of the pages",
                         "encodingFormat": [_MIME.get(e, "application/octet-stream") for e in scan_exts],
                         "includes": [f"{any_doc.images_dir('scan')}/*{e}" for e in scan_exts]})
    distribution.append({"@type": "cr:FileSet", "@id": "assertions-jsonl", "name": "assertions-jsonl",
                         "description": "each document's assertions (JSON lines, evidence boxes as numbers)",
                         "encodingFormat": _MIME[".jsonl"], "includes": f"docs/*/{ASSERTIONS_FILE}"})

    if qa_table is not None:
        qa_rs = _record_set("qa", "Question/answer pairs, one per row, with a typed answer and every evidence box.",
                            QA_TABLE_SPEC, {"fileObject": {"@id": QA_EVIDENCE_TABLE}}, "qa_id")
    else:
        qa_rs = _record_set("qa", "Question/answer pairs, one per row, with a typed answer (evidence boxes: "
                            "assertions, joined on qa_id).", QA_JSONL_SPEC, {"fileObject": {"@id": QA_FILE}},
                            "qa_id", QA_JSONL_COLUMNS)
    record_sets = [
        qa_rs,
        _record_set("assertions", "Atomic claims behind each answer with their evidence boxes.", ASSERTIONS_SPEC,
                    {"fileSet": {"@id": "assertions-jsonl"}}, "assertion_id", ASSERTION_JSONL_COLUMNS)]
    for table, name, desc, key, cols in SCALAR_RECORD_SETS:
        rs: dict[str, Any] = {"@type": "cr:RecordSet", "@id": name, "name": name, "description": desc, "field": [
            {"@type": "cr:Field", "@id": f"{name}/{col}", "name": col, "description": cdesc, "dataType": dtype,
             "source": {"fileObject": {"@id": table}, "extract": {"column": col}}} for col, dtype, cdesc in cols]}
        if key:
            rs["key"] = {"@id": f"{name}/{key}"}
        record_sets.append(rs)
    record_sets += [
        _image_record_set("page_images", "clean page images, with the (doc_id, page_no) they show", "page-images",
                          "pages"),
        _image_record_set("scan_images", "simulated scans of the pages, with the (doc_id, page_no) they show",
                          "scan-images", SCAN_DIR)]
    return {
        "@context": CONTEXT,
        "@type": "sc:Dataset",
        "name": f"synthdocqa-{m.name}-seed{m.spec.seed}",
        "description": (
            f"Synthetic enterprise documents with grounded question/answer pairs: {s['documents']} documents, "
            f"{s['pages']} pages, {s['qa_pairs']} QA pairs, {s['assertions']} assertions across {s['domains']} "
            f"domains; born-digital PDFs, page images, simulated scans, and evidence boxes for every answer."),
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "citeAs": (f"@misc{{synthdocqa_{m.name}_{m.spec.seed}, title={{SynthDocQA corpus {m.name} (seed "
                   f"{m.spec.seed})}}, note={{generated by synthdocqa {m.code_version}, spec {m.spec_hash[:16]}}}}}"),
        "datePublished": date_published(view),
        "license": "https://www.apache.org/licenses/LICENSE-2.0",
        "version": "1.0.0",
        "keywords": ["document question answering", "synthetic data", "PDF", "scans", "provenance"],
        "creator": {"@type": "sc:Organization", "name": "synthdocqa"},
        "isLiveDataset": False,
        **RAI,
        "distribution": distribution,
        "recordSet": record_sets,
    }


@export_errors
def export_croissant(corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, int]:
    """``out`` = the corpus folder: write ``croissant.json`` there; else a folder with it, the corpus files and
    ``qa_with_evidence.parquet``."""
    view = open_corpus(corpus_dir)
    out = Path(out)
    in_place = out.exists() and out.resolve() == view.root.resolve()
    qa_table = None if in_place else qa_evidence_table(view)
    marker = None if in_place else canonical(marker_file(FORMAT, marker_of(view))).encode("utf-8")
    meta = croissant_metadata(view, qa_table, marker)
    counts = {"file_objects": sum(1 for d in meta["distribution"] if d["@type"] == "cr:FileObject"),
              "record_sets": len(meta["recordSet"]), "files": len(view.manifest.files)}
    text = canonical(meta)
    if in_place:
        atomic_write_text(out / FILE_NAME, text)
        return counts

    def fill(tmp: Path) -> None:
        for rel in sorted(view.manifest.files):
            dst = tmp / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(view.read_bytes(rel))
        (tmp / MANIFEST).write_bytes(view.manifest_bytes())
        (tmp / QA_EVIDENCE_TABLE).write_bytes(qa_table)
        (tmp / FILE_NAME).write_text(text, "utf-8")

    write_export_dir(out, FORMAT, fill, marker_of(view))
    return counts
