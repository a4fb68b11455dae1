"""ir.boxes: PDF points <-> page pixels, and the rounding the corpus stores boxes with."""

import numpy as np
import pytest

from synthdocqa.ir.boxes import (
    Box,
    pdf_to_px,
    pdf_to_stored_px,
    px_to_pdf,
    stored_box,
    stored_quad,
    stored_scan_box,
)

DPIS = (36, 72, 96, 144, 150, 200, 300, 600)


def _boxes(n: int, seed: int = 0) -> np.ndarray:
    g = np.random.default_rng(seed)
    x0 = g.uniform(0, 612, n)
    y0 = g.uniform(0, 792, n)
    return np.stack([x0, y0, x0 + g.uniform(0, 300, n), y0 + g.uniform(0, 40, n)], axis=1)


def test_pdf_px_round_trip():
    for dpi in DPIS:
        for b in _boxes(200, dpi):
            back = px_to_pdf(pdf_to_px(b, dpi), dpi)
            assert back == pytest.approx(tuple(b), abs=1e-9)


def test_stored_px_equals_the_old_formula():
    """The corpus stored ``round(v * dpi / 72.0, 2)``: the helper must give the same floats, bit for bit."""
    for dpi in DPIS:
        for b in _boxes(2000, dpi).tolist():
            old = tuple(round(v * dpi / 72.0, 2) for v in b)
            new = pdf_to_stored_px(b, dpi)
            assert tuple(new) == old and all(type(v) is float for v in new)


def test_stored_quad_and_box_equal_the_old_formula():
    g = np.random.default_rng(1)
    quads = g.uniform(-50, 5000, (2000, 4, 2))
    boxes = g.uniform(-50, 5000, (2000, 4))
    for q, a in zip(quads, boxes, strict=True):
        old_q = tuple(tuple(round(float(c), 2) for c in pt) for pt in q)
        old_a = tuple(round(float(c), 2) for c in a)
        new_q, new_a = stored_scan_box(q, a)
        assert new_q == old_q == stored_quad(q) and tuple(new_a) == old_a == tuple(stored_box(a))
        assert all(type(c) is float for pt in new_q for c in pt) and all(type(c) is float for c in new_a)


def test_box_helpers():
    b = Box(10.0, 20.0, 40.0, 60.0)
    assert (b.width, b.height) == (30.0, 40.0)
    assert b.scaled(2) == Box(20.0, 40.0, 80.0, 120.0)
    assert b.quad() == ((10.0, 20.0), (40.0, 20.0), (40.0, 60.0), (10.0, 60.0))
    assert Box(1.005, 2.0, 3.333, 4.0).rounded() == (round(1.005, 2), 2.0, 3.33, 4.0)
    with pytest.raises(ValueError):
        stored_quad([(0, 0), (1, 1)])
