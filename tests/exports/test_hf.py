"""Hugging Face export re-read with pyarrow/pandas and `datasets` (parquet builder and the folder's card)."""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
import yaml
from PIL import Image

from .helpers import corpus_truth, sample_ids

datasets = pytest.importorskip("datasets", reason="the test extra installs datasets")


def test_pyarrow_tables_match_the_corpus(corpus, exports):
    truth = corpus_truth(corpus)
    out, counts = exports["hf"]
    def table(config):
        return pd.concat([pd.read_parquet(p) for p in sorted((out / "data").glob(f"{config}-*-of-*.parquet"))])

    qa, asr, docs, pages = table("qa"), table("assertions"), table("documents"), table("pages")
    s = truth["stats"]
    assert (len(qa), len(asr), len(docs), len(pages)) == (s["qa_pairs"], s["assertions"], s["documents"], s["pages"])
    assert counts == {"qa": s["qa_pairs"], "assertions": s["assertions"], "documents": s["documents"],
                      "pages": s["pages"]}
    meta = json.loads(pq.read_schema(next((out / "data").glob("qa-*.parquet"))).metadata[b"huggingface"])
    assert meta["info"]["features"]["page_nos"] == {"feature": {"dtype": "int32", "_type": "Value"},
                                                    "_type": "Sequence"}
    assert meta["info"]["features"]["images"] == {"feature": {"_type": "Image"}, "_type": "Sequence"}
    for doc in docs.itertuples():
        assert doc.pdf["bytes"] == (corpus / "docs" / doc.doc_id / "document.pdf").read_bytes()
        assert doc.scan_pdf["bytes"] == (corpus / "docs" / doc.doc_id / "scan.pdf").read_bytes()


def test_datasets_parquet_builder_reads_typed_answers_and_boxes(corpus, exports, tmp_path):
    truth = corpus_truth(corpus)
    out, _ = exports["hf"]
    qa = datasets.load_dataset("parquet", data_files=str(out / "data" / "qa-*.parquet"), split="train",
                               cache_dir=str(tmp_path / "cache"))
    assert qa.num_rows == truth["stats"]["qa_pairs"]
    assert isinstance(qa.features["page_nos"], datasets.List | datasets.Sequence)
    rows = {r["qa_id"]: r for r in qa}
    for qid in sample_ids(rows):
        r, want = rows[qid], truth["qa"][qid]
        assert r["question"] == want["question"] and r["answer_text"] == want["answer_text"]
        assert json.loads(r["answer_json"]) == want["answer"]
        assert r["answer"]["kind"] == want["answer"]["kind"]
        if want["answer"]["kind"] == "list":
            assert r["answer"]["values"] == want["answer"]["value"]
        elif want["answer"]["kind"] == "number":
            assert (r["answer"]["value"], r["answer"]["unit"]) == (want["answer"]["value"], want["answer"]["unit"])
        assert r["accepted_answers"] == want["accepted_answers"] and r["page_nos"] == want["page_nos"]
        want_ev = [e for a in want["assertion_ids"] for e in truth["assertions"][a]["evidence"]]
        got = {(e["fact_id"], e["page_no"], tuple(e["bbox_pdf"]), tuple(map(tuple, e["scan_quad"])))
               for e in r["evidence"]}
        for e in want_ev:
            assert (e["fact_id"], e["page_no"], tuple(e["bbox_pdf"]), tuple(map(tuple, e["scan_quad"]))) in got


def test_load_dataset_folder_reads_every_config_with_images(corpus, exports, tmp_path):
    truth = corpus_truth(corpus)
    out, _ = exports["hf"]
    header = yaml.safe_load((out / "README.md").read_text().split("---")[1])
    assert [c["config_name"] for c in header["configs"]] == ["qa", "assertions", "documents", "pages"]
    default = datasets.load_dataset(str(out), split="test", cache_dir=str(tmp_path / "c0"))
    assert default.num_rows == truth["stats"]["qa_pairs"] and "question" in default.column_names
    asr = datasets.load_dataset(str(out), "assertions", split="test", cache_dir=str(tmp_path / "c1"))
    assert sorted(asr["assertion_id"]) == sorted(truth["assertions"])
    pages = datasets.load_dataset(str(out), "pages", split="test", cache_dir=str(tmp_path / "c2"))
    assert pages.num_rows == truth["stats"]["pages"]
    assert isinstance(pages.features["image"], datasets.Image) and isinstance(pages.features["scan"], datasets.Image)
    row = pages[pages.num_rows - 1]
    rel = f"docs/{row['doc_id']}/pages/page-{row['page_no']:04d}.png"
    want = np.asarray(Image.open(io.BytesIO((corpus / rel).read_bytes())).convert("RGB"))
    assert np.array_equal(np.asarray(row["image"].convert("RGB")), want)
    scan = next((corpus / "docs" / row["doc_id"] / "scan").glob(f"page-{row['page_no']:04d}.*"))
    assert row["scan"].size == Image.open(scan).size
