"""``synthdocqa legibility``: Tesseract reads every evidence span on its scan; legible per assertion, QA, tier."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest

from synthdocqa.corpus.ocr import CER_THRESHOLD, _text_quad, cer, crop_span, levenshtein, ocr_lines
from synthdocqa.corpus.store import (
    DOCUMENTS_TABLE,
    LEGIBILITY_QA_TABLE,
    LEGIBILITY_TABLE,
    MANIFEST,
    open_corpus,
)
from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.corpus.views.legibility import (
    ASSERTION_COLUMNS,
    QA_COLUMNS,
    LegibilityError,
    load_legibility,
    measure_legibility,
)
from synthdocqa.flows.cli import main
from synthdocqa.ir.qa_models import Evidence
from synthdocqa.ir.vocab import TIERS

needs_tesseract = pytest.mark.needs("tesseract")


def test_character_error_rate():
    assert levenshtein("kitten", "sitting") == 3 and levenshtein("", "abc") == 3
    assert cer("EUR 22,800,000", "eur  22,800,000\n") == 0.0  # case and whitespace do not count
    assert cer("99.4%", "99M,") == 0.6
    assert cer("03 JUL 2026", "") == 1.0 and cer("abc", "a much longer misreading") == 1.0
    # marks the crop's edges add (a rule, a checkbox, a speck) are not the scan's fault; a lost sign is
    assert cer("35", "35.") == 0.0 and cer("Power connected", "[| Power connected") == 0.0
    assert cer("(12)", "(12)") == 0.0 and cer("-1.3", "\u201c1.3") == 0.25 and cer("a", "|") == 1.0


def test_rotated_line_is_recovered_from_its_hull():
    w, h, deg = 120.0, 18.0, -17.3
    t = np.radians(deg)
    u, v = np.array([np.cos(t), -np.sin(t)]), np.array([-np.sin(t), -np.cos(t)])
    centre = np.array([300.0, 200.0])
    corners = np.array([centre - u * w / 2 + v * h / 2, centre + u * w / 2 + v * h / 2,
                        centre + u * w / 2 - v * h / 2, centre - u * w / 2 - v * h / 2])
    x0, y0 = corners.min(axis=0)
    x1, y1 = corners.max(axis=0)
    hull = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    np.testing.assert_allclose(_text_quad(hull, deg), corners, atol=1e-3)
    np.testing.assert_array_equal(_text_quad(hull, 0.0), hull)


def _line_image(text: str) -> tuple[np.ndarray, Evidence]:
    """A white 'scan' with one line of text and the evidence box around it."""
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("L", (600, 200), 255)
    font = ImageFont.load_default(size=22)
    ImageDraw.Draw(img).text((40, 80), text, fill=0, font=font)
    x0, y0, x1, y1 = ImageDraw.Draw(img).textbbox((40, 80), text, font=font)
    quad = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
    ev = Evidence(fact_id="f0001", block_id="b001", page_no=1, bbox_pdf=(0, 0, 1, 1), text=text, scan_quad=quad,
                  scan_bbox=(x0, y0, x1, y1))
    return np.asarray(img), ev


@needs_tesseract
def test_a_clean_line_is_read_and_a_blank_one_is_not():
    img, ev = _line_image("Invoice INV-2026-10473")
    crop = crop_span(img, ev)
    assert crop.ndim == 2 and crop.shape[0] > 40
    blank = np.full_like(img, 255)
    reading, nothing = ocr_lines([crop, crop_span(blank, ev)])
    assert cer(ev.text, reading) <= CER_THRESHOLD, reading
    assert cer(ev.text, nothing) > CER_THRESHOLD
    assert ocr_lines([crop]) == [reading] and ocr_lines([]) == []  # a reading does not depend on the batch


def test_missing_tesseract_is_named(monkeypatch, tiny_corpus):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(LegibilityError, match="tesseract-ocr"):
        measure_legibility(tiny_corpus)


@pytest.fixture(scope="module")
def measured(tiny_corpus, tmp_path_factory):
    if shutil.which("tesseract") is None:
        pytest.skip("tesseract not installed (Debian package tesseract-ocr)")
    root = tmp_path_factory.mktemp("legibility") / "corpus"
    shutil.copytree(tiny_corpus, root)
    return root, measure_legibility(root, workers=2)


@needs_tesseract
def test_tables_per_assertion_and_qa(measured):
    root, result = measured
    reader = open_corpus(root)
    asr = pd.read_parquet(root / LEGIBILITY_TABLE)
    qa = pd.read_parquet(root / LEGIBILITY_QA_TABLE)
    assert list(asr.columns) == ASSERTION_COLUMNS and list(qa.columns) == QA_COLUMNS
    assert sorted(asr["assertion_id"]) == sorted(a.id for a in reader.corpus_assertions())
    assert sorted(qa["qa_id"]) == sorted(q.id for q in reader.corpus_qa())
    assert result["assertions"] == len(asr) and result["qa_pairs"] == len(qa)
    docs = reader.table(DOCUMENTS_TABLE)
    tiers = dict(zip(docs["doc_id"], docs["tier"], strict=True))
    assert (asr["tier"] == asr["doc_id"].map(tiers)).all()
    for _, row in asr.iterrows():
        spans = json.loads(row["spans_json"])
        assert row["n_spans"] == len(spans)
        assert row["legible"] == all(s["cer"] <= CER_THRESHOLD for s in spans)
        assert row["cer"] == max((s["cer"] for s in spans), default=0.0)
    legible_qa = asr.groupby("qa_id")["legible"].all()
    assert (qa.set_index("qa_id")["legible"] == legible_qa.reindex(qa["qa_id"]).values).all()


@needs_tesseract
def test_shares_fall_with_the_tier_and_the_corpus_still_verifies(measured):
    root, result = measured
    shares = [t["share"] for t in result["by_tier"]]
    assert [t["tier"] for t in result["by_tier"]] == [t for t in TIERS if t in ("fair", "poor")]
    assert shares == sorted(shares, reverse=True), result["by_tier"]
    assert verify_corpus(root) == []  # the tables are a view, not in the manifest
    assert LEGIBILITY_TABLE not in json.loads((root / MANIFEST).read_text())["files"]


@needs_tesseract
def test_tables_of_another_corpus_are_ignored(measured, tmp_path):
    root, _ = measured
    asr, qa = load_legibility(open_corpus(root))  # measured on this corpus: its own rows
    reader = open_corpus(root)
    assert set(asr["doc_id"]) == set(reader.manifest.documents) and len(qa) == reader.manifest.stats["qa_pairs"]
    other = tmp_path / "regenerated"
    shutil.copytree(root, other)
    manifest = json.loads((other / MANIFEST).read_text())
    manifest["code_version"] = "another"
    (other / MANIFEST).write_text(json.dumps(manifest))
    assert load_legibility(open_corpus(other)) is None


@needs_tesseract
def test_report_shows_legibility_per_tier(measured, tmp_path):
    from synthdocqa.corpus.views.report import write_report

    root, result = measured
    info = write_report(root, tmp_path / "r.html")
    assert info["legibility"] == {t["tier"]: round(100 * t["share"], 1) for t in result["by_tier"]}
    assert "Evidence legible on the scan" in (tmp_path / "r.html").read_text()


@needs_tesseract
def test_command(corpus_copy, capsys):
    assert main(["legibility", str(corpus_copy), "--quiet"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:2] == ["tier", "assertions"] and {x.split()[0] for x in out[1:-2]} <= set(TIERS)
    assert LEGIBILITY_TABLE in out[-2] and (corpus_copy / LEGIBILITY_QA_TABLE).is_file()
    assert out[-1].startswith("answerable from the scan: ")
    assert main(["legibility", str(corpus_copy), "--quiet", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cer_threshold"] == CER_THRESHOLD
    assert main(["legibility", str(corpus_copy / "missing")]) == 2
