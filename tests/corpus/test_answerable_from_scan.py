"""No silent erasure: generation reads every evidence span on its scan file, records the reading on the
evidence (``scan_cer``) and marks each QA pair ``answerable_from_scan``; ``synthdocqa legibility --check``
fails on a pair marked answerable whose evidence does not read (shown on a planted reading); a box carried
out of the scan's frame names the stage that lost it."""

from __future__ import annotations

import numpy as np
import pytest

import synthdocqa.corpus.views.legibility as legibility
from synthdocqa.corpus.assemble import CapturedPage, build_document, map_evidence_boxes
from synthdocqa.corpus.ocr import cer, digits_exact, read_crops, span_answerable, spans_of, tesseract_version
from synthdocqa.corpus.store import DocFiles, open_corpus
from synthdocqa.degradations import Homography
from synthdocqa.flows.cli import main
from synthdocqa.ir.rendermap import RenderedPage, RenderMap, SpanBox

from .conftest import tiny_spec

needs_tesseract = pytest.mark.needs("tesseract")


@needs_tesseract
def test_generation_marks_every_pair_from_its_spans_readings(tiny_corpus):
    reader = open_corpus(tiny_corpus)
    n_false = 0
    for doc_id in reader.doc_ids:
        assert reader.record(doc_id).ocr == tesseract_version()
        by_qa: dict[str, list[bool]] = {}
        for a in reader.assertions(doc_id):
            for e in spans_of(a):
                assert e.scan_cer is not None and 0.0 <= e.scan_cer <= 1.0 and e.scan_digits is not None
                assert e.scan_digits or any(ch.isdigit() for ch in e.text)  # no digits: nothing to misread
                by_qa.setdefault(a.qa_id, []).append(span_answerable(e.scan_cer, e.scan_digits))
        for q in reader.qa(doc_id):
            assert q.answerable_from_scan is all(by_qa.get(q.id, [True]))
            n_false += q.answerable_from_scan is False
    assert n_false >= 1  # the tiny corpus's poor pages lose some evidence, and the records say so


@needs_tesseract
def test_the_check_passes_on_a_corpus_and_fails_on_a_planted_unreadable_span(corpus_copy, monkeypatch, capsys):
    assert main(["legibility", str(corpus_copy), "--check", "--quiet"]) == 0
    assert "0 marked answerable against the rule cer<=0.5+digits-exact" in capsys.readouterr().out
    reader = open_corpus(corpus_copy)
    doc_id = reader.doc_ids[0]
    victim = next(q for q in reader.qa(doc_id) if q.answerable_from_scan and q.assertion_ids
                  and any(spans_of(a) for a in reader.assertions(doc_id) if a.qa_id == q.id))
    lost = {(e.page_no, tuple(e.bbox_pdf), e.text) for a in reader.assertions(doc_id) if a.qa_id == victim.id
            for e in spans_of(a)}
    real = legibility.read_evidence

    def misread(scans, assertions, rotation):  # the planted error: the victim's spans no longer read
        return {k: (("", 1.0, False) if k in lost else v) for k, v in real(scans, assertions, rotation).items()}

    monkeypatch.setattr(legibility, "read_evidence", misread)
    assert main(["legibility", str(corpus_copy), "--check", "--quiet"]) == 3
    out = capsys.readouterr().out
    assert victim.id in out and "check FAILED" in out


@needs_tesseract
def test_a_planted_misread_digit_is_caught_though_its_cer_is_small(corpus_copy, monkeypatch, capsys):
    """One digit of a figure read wrong ("3,160" for "3,360") is a CER of about 0.1, well inside 0.5: the digit
    rule, not the CER, makes the pair not answerable, and the check fails on a corpus that says otherwise."""
    reader = open_corpus(corpus_copy)
    victim, span = next((q, e) for d in reader.doc_ids for q in reader.qa(d) if q.answerable_from_scan
                        for a in reader.assertions(d) if a.qa_id == q.id for e in spans_of(a)
                        if sum(ch.isdigit() for ch in e.text) >= 3)
    wrong = next(i for i, ch in enumerate(span.text) if ch.isdigit())
    misread_text = span.text[:wrong] + str((int(span.text[wrong]) + 2) % 10) + span.text[wrong + 1:]
    assert cer(span.text, misread_text) <= 0.5 and not digits_exact(span.text, misread_text)
    real = legibility.read_evidence
    key = (span.page_no, tuple(span.bbox_pdf), span.text)

    def misread(scans, assertions, rotation):
        out = real(scans, assertions, rotation)
        if key in out:
            out[key] = (misread_text, cer(span.text, misread_text), False)
        return out

    monkeypatch.setattr(legibility, "read_evidence", misread)
    assert main(["legibility", str(corpus_copy), "--check", "--quiet"]) == 3
    assert victim.id in capsys.readouterr().out


@needs_tesseract
def test_a_figure_whose_digit_reads_wrong_on_its_crop_is_not_exact():
    """The reading itself: a crop that shows "GBP 3,160" where "GBP 3,360" was drawn reads near in CER and
    wrong in its digits; the crop of the true figure reads exact."""
    import cv2

    def crop(text: str) -> np.ndarray:
        img = np.full((60, 360), 255, np.uint8)
        cv2.putText(img, text, (10, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 2, cv2.LINE_AA)
        return img

    (bad, bad_exact), (good, good_exact) = read_crops([crop("GBP 3,160"), crop("GBP 3,360")], ["GBP 3,360"] * 2)
    assert cer("GBP 3,360", bad) <= 0.5 and not bad_exact
    assert good_exact and digits_exact("GBP 3,360", good)
    assert not span_answerable(cer("GBP 3,360", bad), bad_exact) and span_answerable(cer("GBP 3,360", good), True)


def test_a_box_carried_out_of_the_frame_names_the_stage_that_lost_it():
    page = RenderedPage(page_no=1, width=72.0, height=72.0)
    spans = [SpanBox(fact_ids=["f1"], block_id="b", page_no=1, bbox=[5.0, 5.0, 20.0, 12.0], text="left"),
             SpanBox(fact_ids=["f2"], block_id="b", page_no=1, bbox=[50.0, 5.0, 65.0, 12.0], text="right")]
    rmap = RenderMap(doc_id="d", pages=[page], spans=spans)
    shift = Homography(np.array([[1.0, 0.0, 40.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))  # 40 px to the right
    captured = CapturedPage(1, b"", b"", ".png", "poor", "phone", [shift], lambda box: [], ("skew", "page_frame"))
    _, hidden = map_evidence_boxes(rmap, [captured], 72)
    assert hidden == [[], ["page_frame"]]  # the left span moved within the frame; the right one out of it


def test_without_tesseract_nothing_is_marked_and_the_record_says_so(monkeypatch):
    import synthdocqa.corpus.ocr  # noqa: F401
    from synthdocqa import corpus

    monkeypatch.setattr(corpus.ocr, "tesseract_version", lambda: None)
    built = build_document(tiny_spec(seed=5, n_docs=1), 0)
    assert built.record.ocr is None
    qa = [line for line in built.files[DocFiles(built.doc.doc_id).qa].decode().splitlines() if line]
    assert qa and all('"answerable_from_scan":null' in line for line in qa)


def test_a_figure_keeps_its_decimal_point_and_drops_its_thousands_separators():
    assert digits_exact("GBP 3,360", "GBP 3360") and digits_exact("GBP 3,360", "GBP 3.360")
    assert not digits_exact("95.7%", "957%") and not digits_exact("GBP 3,360", "GBP 3,160")
    assert digits_exact("Approved", "Appr0ved")  # nothing to misread where nothing is a figure


@needs_tesseract
def test_a_value_label_set_vertically_is_read_turned_upright():
    import cv2

    line = np.full((60, 300), 255, np.uint8)
    cv2.putText(line, "87.9%", (10, 44), cv2.FONT_HERSHEY_SIMPLEX, 1.2, 0, 2, cv2.LINE_AA)
    vertical = cv2.rotate(line, cv2.ROTATE_90_COUNTERCLOCKWISE)  # reads bottom to top, as a bar's label does
    crop = cv2.copyMakeBorder(vertical, 10, 10, 10, 10, cv2.BORDER_CONSTANT, value=255)
    [(reading, exact)] = read_crops([crop], ["87.9%"])
    assert cer("87.9%", reading) == 0.0 and exact
