"""The ways a span is read (``corpus.ocr.READINGS``): a later way is tried only while no reading so far is legible
and exact in its digits, a shape-bound way only on crops of its shape, and a crop read at another size is that
crop resized. Tesseract is replaced by a reader that answers only at one size, so the order and the gating are
what is tested (the readings themselves are measured in docs/benchmarks.md)."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.corpus import ocr


def _crop(width: int, height: int) -> np.ndarray:
    """A white crop with the reading's pad and a dark block of text ``width`` x ``height`` inside it."""
    crop = np.full((height + 2 * ocr.PAD_PX, width + 2 * ocr.PAD_PX), 255, np.uint8)
    crop[ocr.PAD_PX + 4 : ocr.PAD_PX + height - 4, ocr.PAD_PX + 2 : ocr.PAD_PX + width - 2] = 30
    return crop


def _reader_at(height: int, answer: str, calls: list[tuple[int, int, int]]):
    """A stand-in for ``ocr_lines`` that reads ``answer`` only off an image ``height`` px tall, and logs
    (height, width, psm) of every image it is shown."""

    def read(images, psm=7):
        calls.extend((im.shape[0], im.shape[1], psm) for im in images)
        return [answer if im.shape[0] == height else "" for im in images]

    return read


@pytest.mark.parametrize(("variant", "k"), [("x1.5", 1.5), ("x0.75", 0.75), ("x2", 2.0)])
def test_a_span_unread_at_its_size_is_read_at_another(monkeypatch, variant, k):
    crop = _crop(60, 100)  # 120 px tall with its pad: no other way's image is as tall as the resized one
    resized = ocr._variant(crop, variant)
    assert resized.shape[0] == round(crop.shape[0] * k) + 2 * ocr.PAD_PX
    calls: list[tuple[int, int, int]] = []
    monkeypatch.setattr(ocr, "ocr_lines", _reader_at(resized.shape[0], "18", calls))
    assert ocr.read_crops([crop], ["18"]) == [("18", True)]
    tried = [v for v, _ in ocr.READINGS]
    assert len(calls) == tried.index(variant) + 1  # every way before it once, none after it: the span was read


def test_a_read_span_is_not_read_again(monkeypatch):
    calls: list[tuple[int, int, int]] = []
    crop = _crop(120, 40)
    monkeypatch.setattr(ocr, "ocr_lines", _reader_at(crop.shape[0], "1,250", calls))
    assert ocr.read_crops([crop], ["1,250"]) == [("1,250", True)]
    assert len(calls) == 1


def test_one_character_reading_only_on_a_narrow_crop(monkeypatch):
    narrow, wide = _crop(30, 60), _crop(200, 40)
    assert ocr._narrow(narrow) and not ocr._narrow(wide)
    calls: list[tuple[int, int, int]] = []
    monkeypatch.setattr(ocr, "ocr_lines", _reader_at(-1, "", calls))  # reads nothing, ever
    assert ocr.read_crops([narrow, wide], ["1", "Total"]) == [("", False), ("", True)]
    psm10 = [c for c in calls if c[2] == 10]
    assert len(psm10) == 1 and psm10[0][0] == ocr._variant(narrow, "char").shape[0]
