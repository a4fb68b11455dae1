"""A corpus with a crafted document id, made consistent everywhere (folder, records, tables, manifest hashes),
so that only the id check of ``verify`` stands between it and a report or an export."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

XSS_ID = 'doc-00000"><img src=data:, onerror=document.title=1337>'
"""Breaks out of an attribute and, unescaped in text, runs script when the page loads."""


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _replace_in_parquet(path: Path, old: str, new: str) -> None:
    table = pq.read_table(path)
    cols = []
    for name in table.column_names:
        col = table[name]
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            col = pa.array([None if v is None else v.replace(old, new) for v in col.to_pylist()], type=col.type)
        cols.append(col)
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_arrays(cols, names=table.column_names), buf, compression="zstd")
    path.write_bytes(buf.getvalue())


def craft_doc_id(corpus: Path, old: str = "doc-00000", new: str = XSS_ID) -> Path:
    """Rename document ``old`` to ``new`` in every file of ``corpus`` and re-hash, in place."""
    (corpus / "docs" / old).rename(corpus / "docs" / new)
    escaped = json.dumps(new)[1:-1]
    for p in sorted(corpus.rglob("*")):
        if p.suffix in (".json", ".jsonl"):
            p.write_text(p.read_text("utf-8").replace(old, escaped), "utf-8")
        elif p.suffix == ".parquet":
            _replace_in_parquet(p, old, new)
    records = [corpus / "docs" / d.name / "doc.json" for d in (corpus / "docs").iterdir()]
    for rec_path in records:
        rec = json.loads(rec_path.read_text("utf-8"))
        rec["files"] = {rel: _sha(corpus / rel) for rel in rec["files"]}
        rec_path.write_text(json.dumps(rec, indent=1, ensure_ascii=False) + "\n", "utf-8")
    manifest = json.loads((corpus / "corpus.json").read_text("utf-8"))
    manifest["files"] = {rel: _sha(corpus / rel) for rel in manifest["files"]}
    (corpus / "corpus.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", "utf-8")
    return corpus


def rehash_manifest(corpus: Path) -> None:
    """Make the manifest list the files as they are now (a tamperer who also fixes the hashes)."""
    manifest = json.loads((corpus / "corpus.json").read_text("utf-8"))
    manifest["files"] = {rel: _sha(corpus / rel) for rel in manifest["files"]}
    (corpus / "corpus.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", "utf-8")
