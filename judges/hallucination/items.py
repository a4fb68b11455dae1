"""Hallucination items (question, references, candidate, labels per criterion) and their importers.

A label is ``True`` when the candidate is *hallucinated* under that criterion:

- ``label_faithfulness``: anything not supported by the reference answer(s) is a hallucination;
- ``label_factual``: only false or contradicting specific claims are.

Importers for CSV / JSONL / Parquet validate every row and name the first bad rows
(``items.csv row 7: question: Field required``); nothing is returned when a row is bad.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text

ERROR_TYPES: tuple[str, ...] = (
    "correct", "paraphrase", "extra_true", "extra_false", "wrong_value", "fabricated", "unit_scale", "partial",
    "abstention", "injection",
)
CRITERIA: tuple[str, ...] = ("faithfulness", "factual")


class ItemsError(ValueError):
    """Bad items file; the message names the file and the bad rows."""


class HallucinationItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_id: str = Field(min_length=1)
    question: str = Field(min_length=1)
    references: list[str] = Field(min_length=1, description="reference answer(s); the first is canonical")
    candidate: str = Field(description="the answer being judged (may be empty)")
    evidence: str = Field(default="", description="optional context: evidence sentences / document text")
    qa_id: str | None = None
    doc_id: str | None = None
    answerable: bool = True
    dataset: str = ""
    generator_model: str = Field(default="", description="who produced the candidate: a model or 'synth'")
    generator_prompt: str = Field(default="", description="the system under test's prompt (name@hash:mode)")
    error_type: str | None = Field(default=None, description="controlled error type (synthesised items)")
    label_faithfulness: bool | None = None
    label_factual: bool | None = None
    split: Literal["dev", "test"] | None = None

    @field_validator("references")
    @classmethod
    def _non_empty_refs(cls, v: list[str]) -> list[str]:
        if any(not r.strip() for r in v):
            raise ValueError("reference answers must be non-empty")
        return v

    def label(self, criterion: str) -> bool | None:
        if criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {criterion!r}; expected one of {CRITERIA}")
        return self.label_faithfulness if criterion == "faithfulness" else self.label_factual


_BOOL = {"true": True, "1": True, "yes": True, "hallucinated": True,
         "false": False, "0": False, "no": False, "not_hallucinated": False, "": None}


def _clean_row(row: dict[str, Any]) -> dict[str, Any]:
    """Tabular cells -> model fields: NaN/'' -> missing; references as JSON list or '||'-separated."""
    out: dict[str, Any] = {}
    for k, v in row.items():
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        if hasattr(v, "tolist"):  # numpy arrays from Parquet list columns
            v = v.tolist()
        out[k] = v
    refs = out.get("references")
    if isinstance(refs, str):
        s = refs.strip()
        if s.startswith("["):
            try:
                out["references"] = json.loads(s)
            except json.JSONDecodeError:
                out["references"] = [s]
        else:
            out["references"] = [r.strip() for r in s.split("||")]
    if "reference" in out and "references" not in out:
        out["references"] = [str(out.pop("reference"))]
    for key in ("label_faithfulness", "label_factual", "answerable"):
        v = out.get(key)
        if isinstance(v, str):
            norm = v.strip().lower()
            if norm not in _BOOL:
                continue  # let pydantic name the bad value
            if _BOOL[norm] is None:
                out.pop(key)
            else:
                out[key] = _BOOL[norm]
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and v in (0, 1):
            out[key] = bool(v)
    for key in ("item_id", "qa_id", "doc_id"):
        if key in out and not isinstance(out[key], str):
            out[key] = str(out[key])
    for key in ("split", "error_type"):
        if out.get(key) == "":
            out.pop(key)
    return out


def validate_rows(rows: Iterable[dict[str, Any]], source: str, first_row: int = 1,
                  max_errors: int = 5, row_label: str = "row",
                  rownos: Sequence[int] | None = None) -> list[HallucinationItem]:
    """All rows as items, or ItemsError naming the first bad rows (row numbers as a user counts them)."""
    items: list[HallucinationItem] = []
    errors: list[str] = []
    n_bad = 0
    seen: dict[str, int] = {}
    for i, row in enumerate(rows):
        rowno = rownos[i] if rownos is not None else first_row + i
        try:
            item = HallucinationItem.model_validate(_clean_row(dict(row)))
        except ValidationError as err:
            n_bad += 1
            if len(errors) < max_errors:
                e = err.errors()[0]
                loc = ".".join(str(p) for p in e.get("loc", ())) or "<row>"
                errors.append(f"{row_label} {rowno}: {loc}: {e.get('msg', 'invalid')}")
            continue
        if item.item_id in seen:
            n_bad += 1
            if len(errors) < max_errors:
                errors.append(f"{row_label} {rowno}: item_id: duplicate of {row_label} {seen[item.item_id]} ({item.item_id!r})")
            continue
        seen[item.item_id] = rowno
        items.append(item)
    if errors:
        more = f" (and {n_bad - len(errors)} more bad rows)" if n_bad > len(errors) else ""
        raise ItemsError(f"{source}: " + "; ".join(errors) + more)
    if not items:
        raise ItemsError(f"{source}: no items")
    return items


def json_lines(p: Path) -> list[tuple[int, dict[str, Any]]]:
    """The objects of a JSON Lines file with their line numbers (blank lines skipped); ItemsError names the
    first line that is not a JSON object."""
    out = []
    with p.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ItemsError(f"{p.name}: line {lineno}: not JSON ({exc.msg})") from None
            if not isinstance(obj, dict):
                raise ItemsError(f"{p.name}: line {lineno}: expected a JSON object")
            out.append((lineno, obj))
    return out


def load_items(path: str | Path) -> list[HallucinationItem]:
    """Read items from ``.csv``, ``.jsonl`` or ``.parquet`` (by extension)."""
    p = Path(path)
    if not p.is_file():
        raise ItemsError(f"{p}: " + ("is a folder, not a file" if p.is_dir() else "file not found" if not p.exists()
                                     else "is not a regular file (a pipe or a device)"))
    suffix = p.suffix.lower()
    if suffix == ".csv":
        import csv

        with p.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            if reader.fieldnames is None:
                raise ItemsError(f"{p}: empty CSV")
            return validate_rows(list(reader), p.name, first_row=2)  # row 1 is the header
    if suffix in (".jsonl", ".ndjson"):
        lines = json_lines(p)
        return validate_rows([obj for _, obj in lines], p.name, row_label="line", rownos=[n for n, _ in lines])
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(p)
        except Exception as exc:  # pyarrow raises several types for damaged files
            raise ItemsError(f"{p.name}: cannot read Parquet: {exc}") from None
        return validate_rows(table.to_pylist(), p.name, first_row=1)
    raise ItemsError(f"{p}: unsupported items format {suffix!r} (use .csv, .jsonl or .parquet)")


def save_items(items: Sequence[HallucinationItem], path: str | Path) -> Path:
    """Write items as JSONL or Parquet (by extension), atomically."""
    p = Path(path)
    if p.suffix == ".parquet":
        import pyarrow as pa
        import pyarrow.parquet as pq

        table = pa.Table.from_pylist([it.model_dump() for it in items])
        sink = pa.BufferOutputStream()
        pq.write_table(table, sink)
        atomic_write_bytes(p, sink.getvalue().to_pybytes())
    elif p.suffix in (".jsonl", ".ndjson"):
        atomic_write_text(p, "".join(it.model_dump_json() + "\n" for it in items))
    else:
        raise ItemsError(f"{p}: save as .jsonl or .parquet")
    return p
