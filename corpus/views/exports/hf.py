"""Hugging Face export: Parquet configs (``qa``, ``assertions``, ``documents``, ``pages``) + a dataset card.

``qa`` rows carry the images of their evidence pages (``images``: clean pages, ``scans``: the simulated scans,
both lists of ``datasets.Image`` in ``image_page_nos`` order) and the evidence boxes in those images' pixels,
each box naming its image (``evidence[].image_index``); a visual-QA user loads one config and needs no join.
``documents`` holds both PDFs as ``datasets.Pdf`` and ``pages`` every page's image and scan as
``datasets.Image`` (``{"bytes", "path"}`` structs). The feature types are written twice, into each Parquet
file's ``huggingface`` schema metadata (what ``load_dataset("parquet", data_files=...)`` reads) and into the
README's YAML header (``configs`` + ``dataset_info``, what ``load_dataset(<folder>)`` reads). Lists of
scalars and images are spelled ``Sequence``, lists of structs as a plain list (what every ``datasets`` release
reads); ``Pdf`` needs ``datasets`` 3.5 or later. Answers are typed columns, not JSON strings; boxes are float
lists. Every config is cut into shards of about ``SHARD_BYTES`` of image/PDF bytes.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from synthdocqa.ir.answers import ANSWER_POLICY
from synthdocqa.ir.qa_models import Assertion, Evidence, QAPair

from ...ocr import ANSWERABLE_RULE, ANSWERABLE_RULE_TEXT
from ...store import PDF_FILE, SCAN_PDF_FILE, CorpusReader, DocFiles, DocRecord, open_corpus
from .common import EXPORT_MARKER, ExportError, canonical, export_errors, marker_of, write_export_dir

FORMAT = "hf"
SPLIT = "test"
DATA_DIR = "data"
SHARD_BYTES = 256 << 20
"""Image/PDF bytes per Parquet shard (the Hub's viewer and streaming like shards of a few hundred MB)."""
ROW_GROUP_ROWS = 64
ROW_BYTES = 512
"""What a row without images or PDFs is counted as when cutting shards."""

# --------------------------------------------------------------- feature spec
# A small feature language, turned into pyarrow types, HF JSON features and HF YAML features.
# "string"/"int32"/"int64"/"float64"/"bool"/"binary"/"image"/"pdf" | ("seq", inner scalar, image or seq)
# | ("list", {struct}) | {struct}

_ARROW = {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "float64": pa.float64(),
          "bool": pa.bool_(), "binary": pa.binary()}
_FILE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
"""How ``datasets.Image`` and ``datasets.Pdf`` store a file: its bytes and a name."""
_FILE_TYPES = {"image": "Image", "pdf": "Pdf"}

VALUE = {"kind": "string", "value": "string", "values": ("seq", "string"), "unit": "string", "currency": "string"}
EVIDENCE = {"assertion_id": "string", "fact_id": "string", "block_id": "string", "page_no": "int32", "text": "string",
            "bbox_pdf": ("seq", "float64"), "bbox_page_px": ("seq", "float64"), "scan_bbox": ("seq", "float64"),
            "scan_quad": ("seq", ("seq", "float64")), "occluded_by": ("seq", "string"), "scan_cer": "float64",
            "scan_digits": "bool"}
QA_EVIDENCE = {**EVIDENCE, "image_index": "int32"}
"""Evidence of a QA row: ``image_index`` is the box's image in the row's ``images`` / ``scans``."""

SCHEMAS: dict[str, dict[str, Any]] = {
    "qa": {"qa_id": "string", "doc_id": "string", "question": "string", "answer_text": "string",
           "images": ("seq", "image"), "scans": ("seq", "image"), "image_page_nos": ("seq", "int32"),
           "answer": VALUE, "answer_json": "string", "accepted_answers": ("seq", "string"), "qa_type": "string",
           "element_type": "string", "difficulty": "string", "page_nos": ("seq", "int32"),
           "fact_ids": ("seq", "string"), "assertion_ids": ("seq", "string"), "answerable_from_scan": "bool",
           "evidence": ("list", QA_EVIDENCE)},
    "assertions": {"assertion_id": "string", "qa_id": "string", "doc_id": "string", "claim": "string",
                   "value": VALUE, "value_json": "string", "fact_ids": ("seq", "string"),
                   "page_nos": ("seq", "int32"), "evidence": ("list", EVIDENCE), "derivation_op": "string",
                   "derivation_result": "string", "derivation_json": "string"},
    "documents": {"doc_id": "string", "index": "int32", "domain": "string", "recipe": "string", "title": "string",
                  "topic_brief": "string", "tier": "string", "seed": "int64", "n_pages": "int32",
                  "n_facts": "int32", "n_spans": "int32", "n_qa": "int32", "n_assertions": "int32",
                  "pdf": "pdf", "scan_pdf": "pdf", "ir_json": "string"},
    "pages": {"doc_id": "string", "page_no": "int32", "domain": "string", "recipe": "string", "tier": "string",
              "width_pt": "float64", "height_pt": "float64", "layout_id": "string", "n_spans": "int32",
              "n_qa": "int32", "image": "image", "scan": "image"},
}
CONFIG_ORDER = ("qa", "assertions", "documents", "pages")


def _arrow(t: Any) -> pa.DataType:
    if isinstance(t, dict):
        return pa.struct([(k, _arrow(v)) for k, v in t.items()])
    if isinstance(t, tuple):
        return pa.list_(_arrow(t[1]))
    return _FILE if t in _FILE_TYPES else _ARROW[t]


def _hf_json(t: Any) -> Any:
    if isinstance(t, dict):
        return {k: _hf_json(v) for k, v in t.items()}
    if isinstance(t, tuple):
        inner = _hf_json(t[1])
        return [inner] if t[0] == "list" else {"feature": inner, "_type": "Sequence"}
    return {"_type": _FILE_TYPES[t]} if t in _FILE_TYPES else {"dtype": t, "_type": "Value"}


def _hf_yaml(name: str | None, t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {} if name is None else {"name": name}
    if isinstance(t, dict):
        out["struct"] = [_hf_yaml(k, v) for k, v in t.items()]
    elif isinstance(t, tuple):
        inner = _hf_yaml(None, t[1])
        key = "list" if t[0] == "list" else "sequence"
        out[key] = inner["struct"] if t[0] == "list" else (inner["dtype"] if set(inner) == {"dtype"} else inner)
    else:
        out["dtype"] = t  # "image" and "pdf" are read back as datasets.Image / datasets.Pdf
    return out


def arrow_schema(config: str) -> pa.Schema:
    return spec_schema(SCHEMAS[config])


def spec_schema(spec: dict[str, Any]) -> pa.Schema:
    """Arrow schema of a table in the feature language, with its ``datasets`` features as metadata."""
    meta = {"huggingface": json.dumps({"info": {"features": _hf_json(spec)}}, separators=(",", ":"))}
    return pa.schema([(k, _arrow(v)) for k, v in spec.items()], metadata=meta)


def parquet_bytes(rows: list[dict[str, Any]], schema: pa.Schema) -> tuple[bytes, int]:
    """(Parquet bytes, the table's Arrow size), written with the export's fixed settings."""
    table = pa.Table.from_pylist(rows, schema=schema)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", row_group_size=ROW_GROUP_ROWS, write_statistics=True)
    return buf.getvalue(), table.nbytes


def _parquet(rows: list[dict[str, Any]], config: str) -> tuple[bytes, int]:
    """(Parquet bytes, the table's Arrow size: the ``num_bytes`` the dataset card declares)."""
    return parquet_bytes(rows, arrow_schema(config))


# --------------------------------------------------------------- rows

def value_struct(v: Any) -> dict[str, Any]:
    d = v.model_dump(mode="json")
    kind = d["kind"]
    if kind == "list":
        value, values = "; ".join(d["value"]), list(d["value"])
    elif kind == "boolean":
        value, values = "true" if d["value"] else "false", []
    else:
        value, values = str(d["value"]), []
    return {"kind": kind, "value": value, "values": values, "unit": d.get("unit", ""),
            "currency": d.get("currency", "")}


def _ev_row(aid: str, e: Evidence) -> dict[str, Any]:
    return {"assertion_id": aid, "fact_id": e.fact_id, "block_id": e.block_id, "page_no": e.page_no,
            "text": e.text, "bbox_pdf": list(e.bbox_pdf),
            "bbox_page_px": list(e.bbox_page_px) if e.bbox_page_px else [],
            "scan_bbox": list(e.scan_bbox) if e.scan_bbox else [],
            "scan_quad": [list(p) for p in e.scan_quad] if e.scan_quad else [],
            "occluded_by": list(e.occluded_by), "scan_cer": e.scan_cer, "scan_digits": e.scan_digits}


def assertion_evidence(a: Assertion) -> list[Evidence]:
    ev = list(a.evidence)
    if a.derivation is not None:
        ev += [e for op in a.derivation.operands for e in op.evidence if e not in ev]
    return ev


def qa_evidence(q: QAPair, asr: dict[str, Assertion]) -> list[tuple[str, Evidence]]:
    """(assertion id, evidence) of every box a QA pair rests on, in the order its assertions cite them."""
    return [(aid, e) for aid in q.assertion_ids if aid in asr for e in assertion_evidence(asr[aid])]


def image_pages(q: QAPair, asr: dict[str, Assertion]) -> list[int]:
    """Pages whose images a QA row carries: ``page_nos``, then any other page an evidence box lies on."""
    pages = list(q.page_nos)
    pages += sorted({e.page_no for _, e in qa_evidence(q, asr)} - set(pages))
    return pages


def qa_row(q: QAPair, asr: dict[str, Assertion], images: dict[int, tuple[dict, dict]] | None = None) -> dict[str, Any]:
    """A ``qa`` row; ``images`` maps a page number to its (page image, scan) ``{"bytes", "path"}`` structs
    (None: the rows carry no images, as in the Croissant export's table)."""
    pages = image_pages(q, asr)
    ev = [{**_ev_row(aid, e), "image_index": pages.index(e.page_no)} for aid, e in qa_evidence(q, asr)]
    row = {"qa_id": q.id, "doc_id": q.doc_id, "question": q.question, "answer_text": q.answer_text}
    if images is not None:
        missing = [p for p in pages if p not in images]
        if missing:
            raise ExportError(f"{q.id}: evidence on page {missing[0]}, which {q.doc_id} does not have")
        row |= {"images": [images[p][0] for p in pages], "scans": [images[p][1] for p in pages]}
    row |= {"image_page_nos": pages,
            "answer": value_struct(q.answer), "answer_json": q.answer.model_dump_json(),
            "accepted_answers": list(q.accepted_answers), "qa_type": q.qa_type, "element_type": q.element_type,
            "difficulty": q.difficulty, "page_nos": list(q.page_nos), "fact_ids": list(q.fact_ids),
            "assertion_ids": list(q.assertion_ids), "answerable_from_scan": q.answerable_from_scan, "evidence": ev}
    return row


def assertion_row(a: Assertion) -> dict[str, Any]:
    ev = assertion_evidence(a)
    return {"assertion_id": a.id, "qa_id": a.qa_id, "doc_id": a.doc_id, "claim": a.claim,
            "value": value_struct(a.value), "value_json": a.value.model_dump_json(), "fact_ids": list(a.fact_ids),
            "page_nos": sorted({e.page_no for e in ev}), "evidence": [_ev_row(a.id, e) for e in ev],
            "derivation_op": a.derivation.op if a.derivation else "",
            "derivation_result": a.derivation.result if a.derivation else "",
            "derivation_json": a.derivation.model_dump_json() if a.derivation else ""}


def page_files(view: CorpusReader, rec: DocRecord) -> dict[int, tuple[dict[str, Any], dict[str, Any]]]:
    """Page number -> (clean page image, scan) of one document as ``datasets.Image`` structs (bytes checked)."""
    return {p.page_no: ({"bytes": view.read_bytes(p.image), "path": f"{rec.doc_id}/{Path(p.image).name}"},
                        {"bytes": view.read_bytes(p.scan), "path": f"{rec.doc_id}/scan-{Path(p.scan).name}"})
            for p in rec.pages}


def _payload(row: dict[str, Any]) -> int:
    """Bytes of the images and PDFs in a row (what shards are cut by), plus a fixed share for the rest."""
    n = ROW_BYTES
    for v in row.values():
        for item in (v if isinstance(v, list) else [v]):
            if isinstance(item, dict) and isinstance(item.get("bytes"), bytes | bytearray):
                n += len(item["bytes"])
    return n


def _qa_rows(view: CorpusReader) -> Iterator[dict[str, Any]]:
    for doc_id in view.doc_ids:
        qa = view.qa(doc_id)
        if not qa:
            continue
        by_id = {a.id: a for a in view.assertions(doc_id)}
        images = page_files(view, view.record(doc_id))
        for q in qa:
            yield qa_row(q, by_id, images)


def _assertion_rows(view: CorpusReader) -> Iterator[dict[str, Any]]:
    for doc_id in view.doc_ids:
        for a in view.assertions(doc_id):
            yield assertion_row(a)


def _document_rows(view: CorpusReader) -> Iterator[dict[str, Any]]:
    for doc_id in view.doc_ids:
        rec = view.record(doc_id)
        doc = view.ir(doc_id)
        yield {"doc_id": doc_id, "index": rec.index, "domain": rec.domain, "recipe": rec.recipe,
               "title": rec.title, "topic_brief": doc.topic_brief, "tier": rec.tier, "seed": doc.seed,
               "n_pages": rec.n_pages, "n_facts": rec.n_facts, "n_spans": rec.n_spans,
               "n_qa": rec.n_qa, "n_assertions": rec.n_assertions,
               "pdf": {"bytes": view.pdf(doc_id), "path": f"{doc_id}/{PDF_FILE}"},
               "scan_pdf": {"bytes": view.scan_pdf(doc_id), "path": f"{doc_id}/{SCAN_PDF_FILE}"},
               "ir_json": view.read_text(DocFiles(doc_id).ir)}


def _page_rows(view: CorpusReader) -> Iterator[dict[str, Any]]:
    for doc_id in view.doc_ids:
        rec = view.record(doc_id)
        files = page_files(view, rec)
        for p in rec.pages:
            img, scan = files[p.page_no]
            yield {"doc_id": doc_id, "page_no": p.page_no, "domain": rec.domain, "recipe": rec.recipe,
                   "tier": rec.tier, "width_pt": p.width_pt, "height_pt": p.height_pt,
                   "layout_id": p.layout_id or "", "n_spans": p.n_spans, "n_qa": p.n_qa, "image": img, "scan": scan}


def write_config(tmp: Path, config: str, rows: Iterable[dict[str, Any]]) -> tuple[list[str], int, int]:
    """Rows of ``config`` in order, cut into ``data/<config>-NNNNN-of-NNNNN.parquet`` shards of about
    ``SHARD_BYTES``; (shard paths relative to ``tmp``, rows, Arrow bytes). A config with no rows still
    gets one (empty) shard, so every config the card names loads."""
    parts: list[Path] = []
    n_rows = n_bytes = 0
    shard: list[dict[str, Any]] = []
    size = 0

    def flush() -> None:
        nonlocal n_bytes
        data, nb = _parquet(shard, config)
        part = tmp / DATA_DIR / f"{config}-{len(parts):05d}.part"
        part.write_bytes(data)
        parts.append(part)
        n_bytes += nb

    for row in rows:
        weight = _payload(row)
        if shard and size + weight > SHARD_BYTES:
            flush()
            shard, size = [], 0
        shard.append(row)
        size += weight
        n_rows += 1
    if shard or not parts:
        flush()
    rels = []
    for i, part in enumerate(parts):
        rel = f"{DATA_DIR}/{config}-{i:05d}-of-{len(parts):05d}.parquet"
        part.rename(tmp / rel)
        rels.append(rel)
    return rels, n_rows, n_bytes


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "1M<n<10M"


def dataset_card(view: CorpusReader, files: dict[str, list[str]], counts: dict[str, int],
                 nbytes: dict[str, int]) -> str:
    """README.md: YAML header the Hub and ``load_dataset(<folder>)`` read, then a human description."""
    m = view.manifest
    s = m.stats
    header = {
        "pretty_name": f"SynthDocQA corpus {m.name} (seed {m.spec.seed})",
        "license": "apache-2.0",
        "language": [m.spec.language] if getattr(m.spec, "language", None) else ["en"],
        "task_categories": ["question-answering", "visual-question-answering", "document-question-answering"],
        "tags": ["synthetic", "document-understanding", "pdf", "tables", "forms", "charts", "provenance",
                 "synthdocqa"],
        "size_categories": [_size_category(counts["qa"])],
        "configs": [{"config_name": c, **({"default": True} if c == "qa" else {}),
                     "data_files": [{"split": SPLIT, "path": sorted(files[c])}]} for c in CONFIG_ORDER],
        "dataset_info": [{"config_name": c, "features": [_hf_yaml(k, v) for k, v in SCHEMAS[c].items()],
                          "splits": [{"name": SPLIT, "num_bytes": nbytes[c], "num_examples": counts[c]}]} for c in CONFIG_ORDER],
    }
    yaml_text = yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=120)
    rows = "\n".join(f"| {k} | {v} |" for k, v in (
        ("documents", s["documents"]), ("pages", s["pages"]), ("QA pairs", s["qa_pairs"]),
        ("assertions", s["assertions"]), ("domains", s["domains"])))
    breakdown = "\n".join(f"| {k} | {v} |" for k, v in s["qa_by_element"].items())
    types = "\n".join(f"| {k} | {v} |" for k, v in s["qa_by_type"].items())
    return f"""---
{yaml_text}---

# SynthDocQA corpus `{m.name}`

Synthetic enterprise documents (PDF, page images, simulated scans) with question/answer pairs whose every
answer is grounded in boxes on the page. Generated by synthdocqa {m.code_version} from seed {m.spec.seed}
(spec hash `{m.spec_hash[:16]}`); rerunning the generator with that spec rebuilds every byte. Nothing in it
is about real people or organisations.

| | count |
|---|---|
{rows}

QA pairs by element type:

| element | QA |
|---|---|
{breakdown}

QA pairs by type:

| type | QA |
|---|---|
{types}

## Configs

- `qa` (default): one row per question, with the images it is asked about. `images` holds the clean page
  image of every evidence page and `scans` the simulated scan of the same pages (lists of `datasets.Image`,
  in the order of `image_page_nos`: the question's `page_nos`, then any other page an evidence box lies on).
  `evidence` lists every cited span: `image_index` (its image in `images` / `scans`), `page_no`,
  `bbox_page_px` (x0, y0, x1, y1 in pixels of `images[image_index]`), `scan_quad` (four x, y corners) and
  `scan_bbox` in pixels of `scans[image_index]`, `bbox_pdf` in PDF points, `text`, `occluded_by` (scan
  stages that cover the span), `scan_cer` (OCR character error rate on the scan) and `scan_digits` (its digits
  read exactly). `answerable_from_scan` follows the rule `{ANSWERABLE_RULE}`: {ANSWERABLE_RULE_TEXT}. Questions with no
  evidence (unanswerable) carry no image; their document's pages are in `pages`. The answer is typed
  (`answer.kind`, `answer.value`, `answer.values` for lists, `answer.unit`, `answer.currency`), with
  `answer_text`, `accepted_answers`, `qa_type`, `element_type`, `difficulty` and `answerable_from_scan`.
  Accepted answers: {ANSWER_POLICY}.
- `assertions`: the atomic claims behind each answer, with evidence and derivation (operation + result).
- `documents`: one row per document with the born-digital PDF (`pdf`) and the scanned PDF (`scan_pdf`) as
  `datasets.Pdf` (decoded with pdfplumber; `datasets` 3.5 or later), and the full generation IR (`ir_json`).
- `pages`: one row per page with the clean page image (`image`) and the scan (`scan`).

Every config has one split, `{SPLIT}`, cut into Parquet shards under `{DATA_DIR}/`.

```python
from datasets import load_dataset
qa = load_dataset("<this folder or Hub id>", "qa", split="{SPLIT}")
row = qa[0]
row["question"], row["answer_text"]
page = row["images"][0]                  # PIL image of page row["image_page_nos"][0]
for e in row["evidence"]:
    image = row["images"][e["image_index"]]   # the page the span is on
    x0, y0, x1, y1 = e["bbox_page_px"]       # the span, in that image's pixels
    scan = row["scans"][e["image_index"]]     # the same page scanned; e["scan_quad"] is in its pixels
```

`{EXPORT_MARKER}` (beside this card) records what this folder was exported from (corpus name, spec hash,
code version); `synthdocqa export` replaces a folder holding it and refuses any other non-empty folder.
"""


@export_errors
def export_hf(corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, int]:
    view = open_corpus(corpus_dir)
    counts: dict[str, int] = {}
    nbytes: dict[str, int] = {}

    def fill(tmp: Path) -> None:
        (tmp / DATA_DIR).mkdir()
        files: dict[str, list[str]] = {}
        for name, rows in (("qa", _qa_rows(view)), ("assertions", _assertion_rows(view)),
                           ("documents", _document_rows(view)), ("pages", _page_rows(view))):
            files[name], counts[name], nbytes[name] = write_config(tmp, name, rows)
        (tmp / "README.md").write_text(dataset_card(view, files, counts, nbytes), "utf-8")

    write_export_dir(out, FORMAT, fill, marker_of(view))
    return counts


__all__ = ["FORMAT", "SCHEMAS", "arrow_schema", "canonical", "export_hf", "parquet_bytes", "qa_row", "spec_schema",
           "write_config"]
