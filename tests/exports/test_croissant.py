"""Croissant export validated and read back with mlcroissant."""

from __future__ import annotations

import json

import pytest

from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.corpus.views.exports import export_corpus

from .helpers import corpus_truth, sample_ids, sha256

mlc = pytest.importorskip("mlcroissant", reason="the test extra installs mlcroissant")


def _value(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v


def test_metadata_validates_with_rai_fields_and_hashes(corpus, exports):
    out, counts = exports["croissant"]
    ds = mlc.Dataset(jsonld=str(out / "croissant.json"))  # raises on validation errors
    assert not ds.metadata.ctx.issues.errors
    meta = json.loads((out / "croissant.json").read_text())
    assert meta["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    for key in ("rai:dataCollection", "rai:dataLimitations", "rai:dataBiases", "rai:personalSensitiveInformation",
                "rai:dataUseCases", "rai:hasSyntheticData"):
        assert meta[key], key
    objects = [d for d in meta["distribution"] if d["@type"] == "cr:FileObject"]
    # corpus.json, 4 tables, qa.jsonl, 3 files per document, + the export's QA table and its marker
    assert len(objects) == counts["file_objects"] == 6 + 3 * 2 + 2
    for d in objects:
        assert sha256(out / d["contentUrl"]) == d["sha256"]
        if d["contentUrl"] not in ("qa_with_evidence.parquet", "synthdocqa-export.json"):
            assert d["sha256"] == sha256(corpus / d["contentUrl"])
    assert {r["name"] for r in meta["recordSet"]} == {"qa", "assertions", "documents", "pages", "page_images",
                                                      "scan_images"}


def test_records_match_the_corpus(corpus, exports):
    truth = corpus_truth(corpus)
    out, _ = exports["croissant"]
    ds = mlc.Dataset(jsonld=str(out / "croissant.json"))
    qa = {_value(r["qa/qa_id"]): r for r in ds.records("qa")}
    assert len(qa) == truth["stats"]["qa_pairs"]
    for qid in sample_ids(qa):
        r, want = qa[qid], truth["qa"][qid]
        assert _value(r["qa/question"]) == want["question"] and _value(r["qa/answer_text"]) == want["answer_text"]
        assert json.loads(_value(r["qa/answer_json"])) == want["answer"]
    asr = list(ds.records("assertions"))
    assert len(asr) == truth["stats"]["assertions"]
    one = next(a for a in asr if _value(a["assertions/assertion_id"]) in truth["assertions"])
    want = truth["assertions"][_value(one["assertions/assertion_id"])]
    got = [{k.rsplit("/", 1)[1]: _value(v) for k, v in e.items()} for e in one["assertions/evidence"]]
    assert [(e["fact_id"], e["page_no"], e["bbox_pdf"], e["scan_quad"]) for e in got] == [
        (e["fact_id"], e["page_no"], e["bbox_pdf"], e["scan_quad"]) for e in want["evidence"]]
    assert len(list(ds.records("documents"))) == truth["stats"]["documents"]
    pages = list(ds.records("pages"))
    assert len(pages) == truth["stats"]["pages"]
    images = list(ds.records("page_images"))
    assert len(images) == truth["stats"]["pages"]
    assert images[0]["page_images/image"].size[0] > 0


def test_croissant_in_the_corpus_folder_writes_only_its_file(corpus_copy):
    before = sorted(p.relative_to(corpus_copy) for p in corpus_copy.rglob("*"))
    export_corpus(corpus_copy, "croissant", corpus_copy)
    after = sorted(p.relative_to(corpus_copy) for p in corpus_copy.rglob("*"))
    assert set(after) - set(before) == {corpus_copy.joinpath("croissant.json").relative_to(corpus_copy)}
    ds = mlc.Dataset(jsonld=str(corpus_copy / "croissant.json"))
    assert not ds.metadata.ctx.issues.errors and not ds.metadata.ctx.issues.warnings
    for rs in ds.metadata.record_sets:  # in place, qa is read from qa.jsonl (typed, without evidence)
        assert next(iter(ds.records(rs.name)), None) is not None, rs.name
    assert verify_corpus(corpus_copy) == []
