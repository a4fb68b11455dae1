"""Croissant 1.0 (+ RAI) metadata for a corpus: ``croissant.json`` with a FileObject (sha256) per corpus
file that readers open directly, FileSets for the page and scan images, and RecordSets over the Parquet
tables (``qa``, ``assertions``, ``documents``, ``pages``) so ``mlcroissant`` can stream the records.

The export is a folder holding ``croissant.json`` and a copy of the corpus files it describes, with
``contentUrl`` relative to it; ``--out`` pointing at the corpus itself writes only ``croissant.json``.
No timestamp is written (``datePublished`` is left to the publisher), so the same corpus gives the same bytes.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ir.answers import ANSWER_POLICY
from ir.files import atomic_write_text, sha256_file

from ...store import (
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
from .common import canonical, export_errors, marker_of, write_export_dir

FORMAT = "croissant"
FILE_NAME = "croissant.json"

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
         ".pdf": "application/pdf", ".png": "image/png", ".jpg": "image/jpeg"}

# Parquet table -> (record set, description, key column, [(column, dataType, description)])
RECORD_SETS: list[tuple[str, str, str, str, list[tuple[str, str, str]]]] = [
    (QA_TABLE, "qa", "Question/answer pairs, one per row, with a typed answer.", "qa_id", [
        ("qa_id", "sc:Text", "unique id <doc_id>-q<n>"),
        ("doc_id", "sc:Text", "document the question is about"),
        ("question", "sc:Text", "the question"),
        ("answer_text", "sc:Text", "canonical surface form of the answer"),
        ("answer_kind", "sc:Text", "string, number, date, boolean, list or not_answerable"),
        ("answer_json", "sc:Text", "typed answer as JSON (value, unit, currency)"),
        ("accepted_answers", "sc:Text", f"JSON list of accepted surface forms ({ANSWER_POLICY})"),
        ("qa_type", "sc:Text", "lookup, table_aggregate, comparison, difference, ..."),
        ("element_type", "sc:Text", "text, table, figure, form, annotation or none"),
        ("difficulty", "sc:Text", "easy, medium or hard"),
        ("page_nos", "sc:Text", "JSON list of 1-based pages holding the evidence"),
        ("fact_ids", "sc:Text", "JSON list of the facts the answer rests on"),
        ("assertion_ids", "sc:Text", "JSON list of the assertions behind the answer"),
        ("answerable_from_scan", "sc:Boolean", "every evidence span reads on the scan file (Tesseract CER <= 0.5); "
         "false: a scan stage erased or hid it, answer from the PDF only; empty: the scans were not read")]),
    (ASSERTIONS_TABLE, "assertions", "Atomic claims behind each answer with evidence boxes.", "assertion_id", [
        ("assertion_id", "sc:Text", "unique id"),
        ("qa_id", "sc:Text", "QA pair the claim belongs to"),
        ("doc_id", "sc:Text", "document"),
        ("claim", "sc:Text", "atomic natural-language claim"),
        ("value_kind", "sc:Text", "kind of the claimed value"),
        ("value_json", "sc:Text", "typed value as JSON"),
        ("fact_ids", "sc:Text", "JSON list of facts"),
        ("page_nos", "sc:Text", "JSON list of evidence pages"),
        ("evidence_json", "sc:Text", "JSON list of evidence: page, bbox_pdf (points), bbox_page_px, scan_quad"),
        ("derivation_json", "sc:Text", "operation and operands for derived values (empty otherwise)")]),
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


def _file_object(view: CorpusReader, rel: str, description: str) -> dict[str, Any]:
    digest = view.manifest.files.get(rel) or sha256_file(view.path(rel))  # the manifest cannot list itself
    return {"@type": "cr:FileObject", "@id": rel, "name": rel, "description": description, "contentUrl": rel,
            "encodingFormat": _MIME.get(Path(rel).suffix, "application/octet-stream"),
            "contentSize": f"{view.path(rel).stat().st_size} B", "sha256": digest}


def _described_files(view: CorpusReader) -> list[tuple[str, str]]:
    """(corpus path, description) of every file given its own FileObject, in a stable order."""
    out = [(MANIFEST, "corpus manifest: spec, code version, stats, sha256 of every file"),
           (QA_TABLE, "QA pairs"), (ASSERTIONS_TABLE, "assertions with evidence"),
           (DOCUMENTS_TABLE, "documents"), (PAGES_TABLE, "pages"), (QA_FILE, "QA pairs as JSON lines")]
    for doc_id in view.doc_ids:
        f = DocFiles(doc_id)
        out += [(f.pdf, f"{doc_id}: born-digital PDF"),
                (f.scan_pdf, f"{doc_id}: scanned PDF"),
                (f.ir, f"{doc_id}: generation IR (replayable)")]
    return out


def croissant_metadata(view: CorpusReader) -> dict[str, Any]:
    m = view.manifest
    s = m.stats
    any_doc = DocFiles("*")  # glob patterns over every document's folder
    distribution: list[dict[str, Any]] = []
    for rel, desc in _described_files(view):
        if rel != MANIFEST:
            view.read_bytes(rel)  # the hash we publish is the hash of the bytes that are there
        distribution.append(_file_object(view, rel, desc))
    distribution.append({"@type": "cr:FileSet", "@id": "page-images", "name": "page-images",
                         "description": "clean page images rendered from the PDFs", "encodingFormat": "image/png",
                         "includes": f"{any_doc.images_dir('pages')}/*{PAGE_IMAGE_SUFFIX}"})
    scan_exts = sorted({Path(rel).suffix for rel in m.files if f"/{SCAN_DIR}/" in rel})
    for ext in scan_exts:
        distribution.append({"@type": "cr:FileSet", "@id": f"scan-images{ext}", "name": f"scan-images{ext}",
                             "description": f"simulated scans of the pages ({ext[1:]})",
                             "encodingFormat": _MIME.get(ext, "application/octet-stream"),
                             "includes": f"{any_doc.images_dir('scan')}/*{ext}"})
    record_sets = [{
        "@type": "cr:RecordSet", "@id": "page_images", "name": "page_images",
        "description": "clean page images; the path joins pages.image", "field": [
            {"@type": "cr:Field", "@id": "page_images/path", "name": "path", "dataType": "sc:Text",
             "description": "file path of the image",
             "source": {"fileSet": {"@id": "page-images"}, "extract": {"fileProperty": "filepath"}}},
            {"@type": "cr:Field", "@id": "page_images/image", "name": "image", "dataType": "sc:ImageObject",
             "description": "the page image",
             "source": {"fileSet": {"@id": "page-images"}, "extract": {"fileProperty": "content"}}}]}]
    for table, name, desc, key, cols in RECORD_SETS:
        rs: dict[str, Any] = {"@type": "cr:RecordSet", "@id": name, "name": name, "description": desc, "field": [
            {"@type": "cr:Field", "@id": f"{name}/{col}", "name": col, "description": cdesc, "dataType": dtype,
             "source": {"fileObject": {"@id": table}, "extract": {"column": col}}} for col, dtype, cdesc in cols]}
        if key:
            rs["key"] = {"@id": f"{name}/{key}"}
        record_sets.append(rs)
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
    """``out`` = the corpus folder: write ``croissant.json`` there; else a folder with it and the files."""
    view = open_corpus(corpus_dir)
    meta = croissant_metadata(view)
    counts = {"file_objects": sum(1 for d in meta["distribution"] if d["@type"] == "cr:FileObject"),
              "record_sets": len(meta["recordSet"]), "files": len(view.manifest.files)}
    text = canonical(meta)
    out = Path(out)
    if out.exists() and out.resolve() == view.root.resolve():
        atomic_write_text(out / FILE_NAME, text)
        return counts

    def fill(tmp: Path) -> None:
        for rel in sorted(view.manifest.files):
            dst = tmp / rel
            dst.parent.mkdir(parents=True, exist_ok=True)
            dst.write_bytes(view.read_bytes(rel))
        (tmp / MANIFEST).write_bytes(view.manifest_bytes())
        (tmp / FILE_NAME).write_text(text, "utf-8")

    write_export_dir(out, FORMAT, fill, marker_of(view))
    return counts
