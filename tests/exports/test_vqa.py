"""What a visual-QA user loads: QA rows with their page images (HF), PDFs as ``datasets.Pdf``, typed Croissant
record sets with evidence boxes and scan images, self-contained card manifests, and no hidden file in any export.
Everything is read back from the exported files with the real ``datasets`` / ``mlcroissant`` readers."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from synthdocqa.corpus.views.exports import EXPORT_MARKER
from synthdocqa.flows.cli import main

from .helpers import corpus_truth, sha256


class _OnFirstUse:
    """A module imported when a test first uses it, not when pytest collects this file: mlcroissant imported at
    collection binds its logging to the capture stream of that moment, and a later in-process CLI run of another
    file then writes to a closed file (the whole session fails)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str):
        import importlib

        return getattr(importlib.import_module(self._name), attr)


datasets = _OnFirstUse("datasets")  # the [test] extra installs both
mlc = _OnFirstUse("mlcroissant")

PATH_LIKE = re.compile(r"^[\w.-]+(/[\w.-]+)+$")


def _pixels(data_or_image) -> np.ndarray:
    img = data_or_image if isinstance(data_or_image, Image.Image) else Image.open(io.BytesIO(data_or_image))
    return np.asarray(img.convert("RGB"))


def _value(v):
    return v.decode("utf-8") if isinstance(v, bytes) else v


def _plain(record: dict) -> dict:
    """An mlcroissant record with its ``set/field`` keys cut to the field name, bytes decoded, recursively."""
    def conv(v):
        if isinstance(v, dict):
            return _plain(v)
        if isinstance(v, list):
            return [conv(x) for x in v]
        return _value(v)
    return {k.rsplit("/", 1)[1]: conv(v) for k, v in record.items()}


# ----------------------------------------------------------------- Hugging Face


@pytest.fixture(scope="module")
def hf_qa(exports, tmp_path_factory):
    out, _ = exports["hf"]
    return datasets.load_dataset(str(out), "qa", split="test", cache_dir=str(tmp_path_factory.mktemp("hf-qa")))


@pytest.fixture(scope="module")
def hf_pages(exports, tmp_path_factory):
    out, _ = exports["hf"]
    return datasets.load_dataset(str(out), "pages", split="test", cache_dir=str(tmp_path_factory.mktemp("hf-pg")))


def test_hf_qa_rows_carry_the_images_of_their_evidence_pages(corpus, hf_qa, hf_pages):
    truth = corpus_truth(corpus)
    assert hf_qa.num_rows == truth["stats"]["qa_pairs"]
    assert isinstance(hf_qa.features["images"], datasets.List | datasets.Sequence)
    assert isinstance(hf_qa.features["images"].feature, datasets.Image)
    assert isinstance(hf_qa.features["scans"].feature, datasets.Image)
    pages = {(r["doc_id"], r["page_no"]): r for r in hf_pages}
    multi_page = 0
    for row in hf_qa:
        want = truth["qa"][row["qa_id"]]
        assert row["image_page_nos"][:len(want["page_nos"])] == want["page_nos"]
        assert len(row["images"]) == len(row["scans"]) == len(row["image_page_nos"])
        multi_page += len(row["images"]) >= 2
        for img, scan, page_no in zip(row["images"], row["scans"], row["image_page_nos"], strict=True):
            assert isinstance(img, Image.Image) and isinstance(scan, Image.Image)
            page_file = corpus / "docs" / row["doc_id"] / "pages" / f"page-{page_no:04d}.png"
            assert np.array_equal(_pixels(img), _pixels(page_file.read_bytes()))  # the right page, pixel for pixel
            assert np.array_equal(_pixels(img), _pixels(pages[(row["doc_id"], page_no)]["image"]))
            scan_file = next((corpus / "docs" / row["doc_id"] / "scan").glob(f"page-{page_no:04d}.*"))
            assert np.array_equal(_pixels(scan), _pixels(scan_file.read_bytes()))
    assert multi_page, "the tiny corpus has multi-page questions; their rows must carry every page"


def test_hf_qa_evidence_boxes_are_in_the_pixels_of_the_image_they_name(corpus, hf_qa, hf_pages):
    truth = corpus_truth(corpus)
    width_pt = {(r["doc_id"], r["page_no"]): r["width_pt"] for r in hf_pages}
    n = 0
    for row in hf_qa:
        want_ev = [e for a in truth["qa"][row["qa_id"]]["assertion_ids"] for e in truth["assertions"][a]["evidence"]]
        got = {(e["fact_id"], e["page_no"], tuple(e["bbox_page_px"])) for e in row["evidence"]}
        assert {(e["fact_id"], e["page_no"], tuple(e["bbox_page_px"] or [])) for e in want_ev} <= got
        for e in row["evidence"]:
            assert row["image_page_nos"][e["image_index"]] == e["page_no"]
            img, scan = row["images"][e["image_index"]], row["scans"][e["image_index"]]
            if not e["bbox_page_px"]:
                continue
            x0, y0, x1, y1 = e["bbox_page_px"]
            assert 0 <= x0 < x1 <= img.width and 0 <= y0 < y1 <= img.height
            scale = img.width / width_pt[(row["doc_id"], e["page_no"])]  # pixels per PDF point of this image
            assert np.allclose(e["bbox_page_px"], np.asarray(e["bbox_pdf"]) * scale, atol=1.0)
            if e["scan_bbox"]:
                sx0, sy0, sx1, sy1 = e["scan_bbox"]
                assert sx0 < sx1 <= scan.width + 1 and sy0 < sy1 <= scan.height + 1
            n += 1
    assert n > 0


def test_hf_documents_hold_pdfs_as_the_pdf_feature(corpus, exports, tmp_path):
    out, _ = exports["hf"]
    docs = datasets.load_dataset(str(out), "documents", split="test", cache_dir=str(tmp_path / "c"))
    assert isinstance(docs.features["pdf"], datasets.Pdf) and isinstance(docs.features["scan_pdf"], datasets.Pdf)
    for row in docs:  # decoded by datasets through pdfplumber (the [test] extra): one page object per page
        assert len(row["pdf"].pages) == len(row["scan_pdf"].pages) == row["n_pages"]
    raw = docs.cast_column("pdf", datasets.Pdf(decode=False)).cast_column("scan_pdf", datasets.Pdf(decode=False))
    for row in raw:  # and the stored bytes are the corpus's files
        assert row["pdf"]["bytes"] == (corpus / "docs" / row["doc_id"] / "document.pdf").read_bytes()
        assert row["scan_pdf"]["bytes"] == (corpus / "docs" / row["doc_id"] / "scan.pdf").read_bytes()


def test_hf_card_documents_the_qa_images_and_the_marker(exports):
    out, _ = exports["hf"]
    card = (out / "README.md").read_text("utf-8")
    for words in ('load_dataset("<this folder or Hub id>", "qa"', "`images`", "`scans`", "`image_page_nos`",
                  "`image_index`", "`bbox_page_px`", "datasets.Pdf", EXPORT_MARKER):
        assert words in card, words


# ----------------------------------------------------------------- Croissant


def test_croissant_validates_clean_and_every_record_set_loads(corpus, exports):
    truth = corpus_truth(corpus)
    out, _ = exports["croissant"]
    ds = mlc.Dataset(jsonld=str(out / "croissant.json"))
    assert ds.metadata.ctx.issues.errors == set() and ds.metadata.ctx.issues.warnings == set()
    names = [rs.name for rs in ds.metadata.record_sets]
    assert {"qa", "assertions", "documents", "pages", "page_images", "scan_images"} <= set(names)
    counts = {name: sum(1 for _ in ds.records(name)) for name in names}
    assert all(n >= 1 for n in counts.values()), counts
    assert counts["scan_images"] == counts["page_images"] == truth["stats"]["pages"]


def test_croissant_fields_are_typed_not_json_text(exports):
    out, _ = exports["croissant"]
    meta = json.loads((out / "croissant.json").read_text("utf-8"))
    fields = {f["name"]: f for f in next(rs for rs in meta["recordSet"] if rs["name"] == "qa")["field"]}
    for name in ("accepted_answers", "page_nos", "fact_ids", "assertion_ids"):
        assert fields[name].get("repeated") is True and fields[name]["dataType"] in ("sc:Text", "sc:Integer")
    ev = {f["name"]: f for f in fields["evidence"]["subField"]}
    assert fields["evidence"]["repeated"] is True
    for box in ("bbox_pdf", "bbox_page_px", "scan_bbox", "scan_quad"):
        assert ev[box]["dataType"] == "sc:Float" and ev[box]["repeated"] is True
    assert ev["page_no"]["dataType"] == "sc:Integer"


def test_croissant_qa_records_carry_typed_evidence_and_scans_show_the_page(corpus, exports):
    truth = corpus_truth(corpus)
    out, _ = exports["croissant"]
    ds = mlc.Dataset(jsonld=str(out / "croissant.json"))
    qa = {r["qa_id"]: r for r in map(_plain, ds.records("qa"))}
    assert sorted(qa) == sorted(truth["qa"])
    for qid, r in qa.items():
        want = truth["qa"][qid]
        assert r["accepted_answers"] == want["accepted_answers"] and r["page_nos"] == want["page_nos"]
        assert r["assertion_ids"] == want["assertion_ids"]
        want_ev = [e for a in want["assertion_ids"] for e in truth["assertions"][a]["evidence"]]
        got = [(e["fact_id"], e["page_no"], e["bbox_pdf"], e["bbox_page_px"], e["scan_quad"]) for e in r["evidence"]]
        for e in want_ev:
            assert (e["fact_id"], e["page_no"], e["bbox_pdf"], e["bbox_page_px"] or [], e["scan_quad"] or []) in got
        assert all(isinstance(x, float) for e in r["evidence"] for x in e["bbox_page_px"])
    scans = list(map(_plain, ds.records("scan_images")))
    for s in scans:
        scan_file = next((corpus / "docs" / s["doc_id"] / "scan").glob(f"page-{s['page_no']:04d}.*"))
        assert np.array_equal(_pixels(s["image"]), _pixels(scan_file.read_bytes()))
    pages = list(map(_plain, ds.records("page_images")))
    assert {(p["doc_id"], p["page_no"]) for p in pages} == {(s["doc_id"], s["page_no"]) for s in scans}


# ----------------------------------------------------------------- card


def _strings(obj):
    if isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)
    elif isinstance(obj, str):
        yield obj


def test_card_manifests_name_only_files_inside_the_export(corpus, exports):
    out, _ = exports["synthdocqa-card"]
    truth = corpus_truth(corpus)
    named: set[str] = set()
    for path in sorted((out / "manifest_files").glob("*.json")):
        named |= {s for s in _strings(json.loads(path.read_text("utf-8"))) if PATH_LIKE.match(s)}
    queries = json.loads((out / "ALL_queries.json").read_text("utf-8"))
    named |= {r["filePath"] for q in queries for r in q["refs"]}
    n_pages = truth["stats"]["pages"]
    assert len(named) >= 3 * truth["stats"]["documents"] + 2 * n_pages  # PDFs, IR, every page image and scan
    root = out.resolve()
    for rel in sorted(named):
        target = (out / rel).resolve()
        assert target.is_relative_to(root) and target.is_file(), rel
    for doc_id in truth["manifest"]["documents"]:
        m = json.loads((out / "manifest_files" / f"{doc_id}.json").read_text("utf-8"))
        assert sha256(out / m["ir"]) == truth["manifest"]["files"][f"docs/{doc_id}/ir.json"]
        for p in m["pages"]:
            assert sha256(out / p["image"]) == truth["manifest"]["files"][f"docs/{doc_id}/pages/page-{p['page_no']:04d}.png"]
            scan = next(k for k in truth["manifest"]["files"] if k.startswith(f"docs/{doc_id}/scan/page-{p['page_no']:04d}."))
            assert sha256(out / p["scan"]) == truth["manifest"]["files"][scan]


# ----------------------------------------------------------------- nothing hidden, protection kept


@pytest.mark.parametrize("fmt", ["synthdocqa-card", "hf", "croissant"])
def test_no_export_holds_a_hidden_path_and_each_carries_its_visible_marker(exports, fmt):
    out, _ = exports[fmt]
    hidden = [p.relative_to(out).as_posix() for p in out.rglob("*") if p.name.startswith(".")]
    assert hidden == []
    marker = json.loads((out / EXPORT_MARKER).read_text("utf-8"))
    assert marker["generator"] == "synthdocqa" and marker["format"] == fmt


def _run(capsys, *argv):
    rc = main(list(argv))
    _, err = capsys.readouterr()
    return rc, err


def test_only_a_folder_with_a_real_marker_is_replaced(corpus, tmp_path, capsys):
    forged = tmp_path / "forged"
    forged.mkdir()
    (forged / "keep.txt").write_text("mine")
    (forged / EXPORT_MARKER).write_text("not json")
    rc, err = _run(capsys, "export", str(corpus), "--format", "hf", "--out", str(forged))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "not a synthdocqa export" in err
    (forged / EXPORT_MARKER).write_text(json.dumps({"generator": "someone else", "format": "hf"}))
    rc, err = _run(capsys, "export", str(corpus), "--format", "hf", "--out", str(forged))
    assert rc == 2 and "not a synthdocqa export" in err
    assert (forged / "keep.txt").read_text() == "mine"
    legacy = tmp_path / "legacy"  # an export made before the marker was visible is still replaced, hidden file and all
    legacy.mkdir()
    (legacy / ".synthdocqa-export.json").write_text(json.dumps({"format": "hf", "corpus": "tiny"}))
    assert _run(capsys, "export", str(corpus), "--format", "hf", "--out", str(legacy))[0] == 0
    assert not (legacy / ".synthdocqa-export.json").exists() and (legacy / EXPORT_MARKER).is_file()


def test_a_previous_croissant_export_is_replaced_and_bad_outs_stay_one_line(corpus, tmp_path, capsys):
    out = tmp_path / "cr"
    assert _run(capsys, "export", str(corpus), "--format", "croissant", "--out", str(out))[0] == 0
    (out / "stale.txt").write_text("old")
    assert _run(capsys, "export", str(corpus), "--format", "croissant", "--out", str(out))[0] == 0
    assert not (out / "stale.txt").exists() and (out / "croissant.json").is_file()
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    for bad, words in ((a_file, "not a folder"), (corpus, "generated corpus"), (out / "docs", "generated corpus")):
        rc, err = _run(capsys, "export", str(corpus), "--format", "hf", "--out", str(bad))
        assert rc == 2 and len(err.strip().splitlines()) == 1 and words in err, err
    assert a_file.read_text() == "x"


def test_croissant_date_is_the_corpus_date(corpus, exports):
    import datetime

    meta = json.loads((exports["croissant"][0] / "croissant.json").read_text("utf-8"))
    written = datetime.datetime.fromtimestamp(Path(corpus / "corpus.json").stat().st_mtime, datetime.UTC)
    assert meta["datePublished"] == written.date().isoformat()
