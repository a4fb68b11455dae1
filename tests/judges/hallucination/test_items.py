"""Importers for CSV / JSONL / Parquet with validation that names the bad rows."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from synthdocqa.judges.hallucination.items import HallucinationItem, ItemsError, load_items, save_items

ROWS = [
    {"item_id": "a1", "question": "Q1?", "references": '["42", "forty-two"]', "candidate": "42",
     "label_faithfulness": "false", "label_factual": "0", "error_type": "correct", "split": "dev"},
    {"item_id": "a2", "question": "Q2?", "references": "Paris || City of Paris", "candidate": "Lyon",
     "label_faithfulness": "true", "label_factual": "hallucinated", "split": ""},
]


def _write_csv(path, rows):
    import csv

    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def test_csv_jsonl_parquet_round_trip(tmp_path):
    _write_csv(tmp_path / "i.csv", ROWS)
    items = load_items(tmp_path / "i.csv")
    assert items[0].references == ["42", "forty-two"] and items[1].references == ["Paris", "City of Paris"]
    assert items[0].label_faithfulness is False and items[1].label_factual is True and items[1].split is None
    save_items(items, tmp_path / "i.jsonl")
    save_items(items, tmp_path / "i.parquet")
    assert load_items(tmp_path / "i.jsonl") == items == load_items(tmp_path / "i.parquet")


def test_bad_rows_are_named(tmp_path):
    bad = [dict(ROWS[0]), dict(ROWS[1], question=""), dict(ROWS[0], item_id="a3", label_factual="perhaps")]
    _write_csv(tmp_path / "b.csv", bad)
    with pytest.raises(ItemsError, match=r"b.csv: row 3: question: .*; row 4: label_factual"):
        load_items(tmp_path / "b.csv")
    lines = [json.dumps({"item_id": "x", "question": "q", "references": ["r"], "candidate": "c"}), "",
             json.dumps({"item_id": "x", "question": "q", "references": ["r"], "candidate": "c"})]
    (tmp_path / "d.jsonl").write_text("\n".join(lines))
    with pytest.raises(ItemsError, match=r"d.jsonl: line 3: item_id: duplicate of line 1"):
        load_items(tmp_path / "d.jsonl")
    (tmp_path / "e.jsonl").write_text('{"item_id": "x"\n')
    with pytest.raises(ItemsError, match=r"e.jsonl: line 1: not JSON"):
        load_items(tmp_path / "e.jsonl")
    pq.write_table(pa.Table.from_pylist([{"item_id": "p", "question": "q", "references": [], "candidate": "c"}]),
                   tmp_path / "f.parquet")
    with pytest.raises(ItemsError, match=r"f.parquet: row 1: references"):
        load_items(tmp_path / "f.parquet")
    with pytest.raises(ItemsError, match="unsupported items format"):
        (tmp_path / "g.xlsx").write_text("x")
        load_items(tmp_path / "g.xlsx")


def test_unknown_criterion_is_an_error():
    it = HallucinationItem(item_id="a", question="q", references=["r"], candidate="c")
    with pytest.raises(ValueError, match="unknown criterion"):
        it.label("fluency")
