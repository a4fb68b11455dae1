"""Hugging Face export: Parquet configs (``qa``, ``assertions``, ``documents``, ``pages``) + a dataset card.

``pages`` holds the clean page image and the scan image of every page as ``datasets.Image`` structs
(``{"bytes", "path"}``); the feature types are written twice, into each Parquet file's ``huggingface``
schema metadata (what ``load_dataset("parquet", data_files=...)`` reads) and into the README's YAML
header (``configs`` + ``dataset_info``, what ``load_dataset(<folder>)`` reads). Feature spellings are
the ones every ``datasets`` release understands: ``Sequence`` for lists of scalars, a plain list for
lists of structs. Answers are typed columns, not JSON strings; evidence boxes are float lists.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import yaml

from ir.answers import ANSWER_POLICY
from ir.qa_models import Assertion, Evidence, QAPair

from ...store import CorpusReader, DocFiles, open_corpus
from .common import canonical, export_errors, marker_of, write_export_dir

FORMAT = "hf"
SPLIT = "test"
DATA_DIR = "data"
PAGE_SHARD_BYTES = 256 << 20
"""Page images per Parquet shard (the Hub's viewer and streaming like shards of a few hundred MB)."""
ROW_GROUP_ROWS = 64

# --------------------------------------------------------------- feature spec
# A small feature language, turned into pyarrow types, HF JSON features and HF YAML features.
# "string"/"int32"/"float64"/"bool"/"binary"/"image" | ("seq", inner scalar-or-seq) | ("list", {struct}) | {struct}

_ARROW = {"string": pa.string(), "int32": pa.int32(), "int64": pa.int64(), "float64": pa.float64(),
          "bool": pa.bool_(), "binary": pa.binary()}
_IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])

VALUE = {"kind": "string", "value": "string", "values": ("seq", "string"), "unit": "string", "currency": "string"}
EVIDENCE = {"assertion_id": "string", "fact_id": "string", "block_id": "string", "page_no": "int32", "text": "string",
            "bbox_pdf": ("seq", "float64"), "bbox_page_px": ("seq", "float64"), "scan_bbox": ("seq", "float64"),
            "scan_quad": ("seq", ("seq", "float64"))}

SCHEMAS: dict[str, dict[str, Any]] = {
    "qa": {"qa_id": "string", "doc_id": "string", "question": "string", "answer_text": "string", "answer": VALUE,
           "answer_json": "string", "accepted_answers": ("seq", "string"), "qa_type": "string",
           "element_type": "string", "difficulty": "string", "page_nos": ("seq", "int32"),
           "fact_ids": ("seq", "string"), "assertion_ids": ("seq", "string"), "answerable_from_scan": "bool",
           "evidence": ("list", EVIDENCE)},
    "assertions": {"assertion_id": "string", "qa_id": "string", "doc_id": "string", "claim": "string",
                   "value": VALUE, "value_json": "string", "fact_ids": ("seq", "string"),
                   "page_nos": ("seq", "int32"), "evidence": ("list", EVIDENCE), "derivation_op": "string",
                   "derivation_result": "string", "derivation_json": "string"},
    "documents": {"doc_id": "string", "index": "int32", "domain": "string", "recipe": "string", "title": "string",
                  "topic_brief": "string", "tier": "string", "seed": "int64", "n_pages": "int32",
                  "n_facts": "int32", "n_spans": "int32", "n_qa": "int32", "n_assertions": "int32",
                  "pdf": "binary", "ir_json": "string"},
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
    return _IMAGE if t == "image" else _ARROW[t]


def _hf_json(t: Any) -> Any:
    if isinstance(t, dict):
        return {k: _hf_json(v) for k, v in t.items()}
    if isinstance(t, tuple):
        inner = _hf_json(t[1])
        return [inner] if t[0] == "list" else {"feature": inner, "_type": "Sequence"}
    return {"_type": "Image"} if t == "image" else {"dtype": t, "_type": "Value"}


def _hf_yaml(name: str | None, t: Any) -> dict[str, Any]:
    out: dict[str, Any] = {} if name is None else {"name": name}
    if isinstance(t, dict):
        out["struct"] = [_hf_yaml(k, v) for k, v in t.items()]
    elif isinstance(t, tuple):
        inner = _hf_yaml(None, t[1])
        key = "list" if t[0] == "list" else "sequence"
        out[key] = inner["struct"] if t[0] == "list" else (inner["dtype"] if set(inner) == {"dtype"} else inner)
    else:
        out["dtype"] = t
    return out


def arrow_schema(config: str) -> pa.Schema:
    spec = SCHEMAS[config]
    meta = {"huggingface": json.dumps({"info": {"features": _hf_json(spec)}}, separators=(",", ":"))}
    return pa.schema([(k, _arrow(v)) for k, v in spec.items()], metadata=meta)


def _parquet(rows: list[dict[str, Any]], config: str) -> tuple[bytes, int]:
    """(Parquet bytes, the table's Arrow size: the ``num_bytes`` the dataset card declares)."""
    table = pa.Table.from_pylist(rows, schema=arrow_schema(config))
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd", row_group_size=ROW_GROUP_ROWS, write_statistics=True)
    return buf.getvalue(), table.nbytes


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
            "scan_quad": [list(p) for p in e.scan_quad] if e.scan_quad else []}


def assertion_evidence(a: Assertion) -> list[Evidence]:
    ev = list(a.evidence)
    if a.derivation is not None:
        ev += [e for op in a.derivation.operands for e in op.evidence if e not in ev]
    return ev


def qa_row(q: QAPair, asr: dict[str, Assertion]) -> dict[str, Any]:
    ev = [_ev_row(aid, e) for aid in q.assertion_ids if aid in asr for e in assertion_evidence(asr[aid])]
    return {"qa_id": q.id, "doc_id": q.doc_id, "question": q.question, "answer_text": q.answer_text,
            "answer": value_struct(q.answer), "answer_json": q.answer.model_dump_json(),
            "accepted_answers": list(q.accepted_answers), "qa_type": q.qa_type, "element_type": q.element_type,
            "difficulty": q.difficulty, "page_nos": list(q.page_nos), "fact_ids": list(q.fact_ids),
            "assertion_ids": list(q.assertion_ids), "answerable_from_scan": q.answerable_from_scan, "evidence": ev}


def assertion_row(a: Assertion) -> dict[str, Any]:
    ev = assertion_evidence(a)
    return {"assertion_id": a.id, "qa_id": a.qa_id, "doc_id": a.doc_id, "claim": a.claim,
            "value": value_struct(a.value), "value_json": a.value.model_dump_json(), "fact_ids": list(a.fact_ids),
            "page_nos": sorted({e.page_no for e in ev}), "evidence": [_ev_row(a.id, e) for e in ev],
            "derivation_op": a.derivation.op if a.derivation else "",
            "derivation_result": a.derivation.result if a.derivation else "",
            "derivation_json": a.derivation.model_dump_json() if a.derivation else ""}


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

- `qa` (default): question, typed `answer` (`kind`, `value`, `values` for lists, `unit`, `currency`),
  `answer_text`, `accepted_answers`, `qa_type`, `element_type`, `difficulty`, `page_nos` and `evidence`
  (per cited span: `page_no`, `bbox_pdf` in PDF points, `bbox_page_px` on the page image, `scan_quad` and
  `scan_bbox` on the scan image).
  Accepted answers: {ANSWER_POLICY}.
- `assertions`: the atomic claims behind each answer, with evidence and derivation (operation + result).
- `documents`: one row per document with the PDF bytes (`pdf`) and the full generation IR (`ir_json`).
- `pages`: one row per page with the clean page image (`image`) and the scan (`scan`), joined to QA by
  (`doc_id`, `page_no`).

```python
from datasets import load_dataset
qa = load_dataset("parquet", data_files="{files['qa'][0]}", split="train")
pages = load_dataset("<this folder>", "pages", split="{SPLIT}")
```
"""


@export_errors
def export_hf(corpus_dir: str | os.PathLike[str], out: str | os.PathLike[str]) -> dict[str, int]:
    view = open_corpus(corpus_dir)
    counts: dict[str, int] = {}
    nbytes: dict[str, int] = {}

    def fill(tmp: Path) -> None:
        data = tmp / DATA_DIR
        data.mkdir()
        qa_rows, asr_rows, doc_rows = [], [], []
        for doc_id in view.doc_ids:
            rec = view.record(doc_id)
            doc = view.ir(doc_id)
            asr = view.assertions(doc_id)
            by_id = {a.id: a for a in asr}
            qa_rows += [qa_row(q, by_id) for q in view.qa(doc_id)]
            asr_rows += [assertion_row(a) for a in asr]
            doc_rows.append({"doc_id": doc_id, "index": rec.index, "domain": rec.domain, "recipe": rec.recipe,
                             "title": rec.title, "topic_brief": doc.topic_brief, "tier": rec.tier, "seed": doc.seed,
                             "n_pages": rec.n_pages, "n_facts": rec.n_facts, "n_spans": rec.n_spans,
                             "n_qa": rec.n_qa, "n_assertions": rec.n_assertions,
                             "pdf": view.pdf(doc_id), "ir_json": view.read_text(DocFiles(doc_id).ir)})
        files: dict[str, list[str]] = {}
        for name, rows in (("qa", qa_rows), ("assertions", asr_rows), ("documents", doc_rows)):
            rel = f"{DATA_DIR}/{name}.parquet"
            data_bytes, nbytes[name] = _parquet(rows, name)
            (tmp / rel).write_bytes(data_bytes)
            files[name] = [rel]
            counts[name] = len(rows)
        counts["pages"], nbytes["pages"] = _write_pages(view, tmp, files)
        (tmp / "README.md").write_text(dataset_card(view, files, counts, nbytes), "utf-8")

    write_export_dir(out, FORMAT, fill, marker_of(view))
    return counts


def _write_pages(view: CorpusReader, tmp: Path, files: dict[str, list[str]]) -> tuple[int, int]:
    """Page rows in document order, cut into shards of about ``PAGE_SHARD_BYTES`` of image bytes."""
    shards: list[list[dict[str, Any]]] = [[]]
    size = 0
    for doc_id in view.doc_ids:
        rec = view.record(doc_id)
        for p in rec.pages:
            img, scan = view.read_bytes(p.image), view.read_bytes(p.scan)
            if shards[-1] and size + len(img) + len(scan) > PAGE_SHARD_BYTES:
                shards.append([])
                size = 0
            size += len(img) + len(scan)
            shards[-1].append({
                "doc_id": doc_id, "page_no": p.page_no, "domain": rec.domain, "recipe": rec.recipe,
                "tier": rec.tier, "width_pt": p.width_pt, "height_pt": p.height_pt, "layout_id": p.layout_id or "",
                "n_spans": p.n_spans, "n_qa": p.n_qa,
                "image": {"bytes": img, "path": f"{doc_id}/{Path(p.image).name}"},
                "scan": {"bytes": scan, "path": f"{doc_id}/scan-{Path(p.scan).name}"}})
    files["pages"] = []
    total = 0
    for i, rows in enumerate(shards):
        rel = f"{DATA_DIR}/pages-{i:05d}-of-{len(shards):05d}.parquet"
        data_bytes, n = _parquet(rows, "pages")
        (tmp / rel).write_bytes(data_bytes)
        files["pages"].append(rel)
        total += n
    return sum(len(r) for r in shards), total


__all__ = ["FORMAT", "SCHEMAS", "arrow_schema", "canonical", "export_hf"]
