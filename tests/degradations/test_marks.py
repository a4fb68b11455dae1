"""A reader's marks go on what the page holds: a highlighter over a figure, a total or a name, a circle round a
total, a line under a name, a tick or initials by an approval; none on blank paper. The marks are recorded with
the boxes they go on, and the print under a highlighter stays legible."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from synthdocqa.degradations import MarkTarget, choose_marks, degrade_page, sample_profile
from synthdocqa.degradations.marks import text_line_boxes
from synthdocqa.degradations.stages.sheet_marks import markup
from synthdocqa.ir.perturbation import PageDegradation, StageParams
from synthdocqa.ir.rng import Rng

from .pages import text_page

W, H = 850, 1100


def _figure_page() -> tuple[np.ndarray, dict[str, tuple[float, float, float, float]]]:
    """A page with four lines of print at known places; their boxes as fractions of the page."""
    img = np.full((H, W, 3), 255, np.uint8)
    lines = {"total": ("Total due GBP 3,360", 200), "name": ("Prepared by Lena Nowak", 400),
             "approval": ("Approved", 600), "figure": ("Units sold 12,480", 800)}
    boxes = {}
    for on, (text, y) in lines.items():
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, 1.0, 2)
        cv2.putText(img, text, (120, y), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2, cv2.LINE_AA)
        boxes[on] = (118 / W, (y - th - 2) / H, (122 + tw) / W, (y + base) / H)
    return img, boxes


def _targets(boxes):
    return [MarkTarget(on, box, on) for on, box in boxes.items()]


def test_marks_go_on_targets_of_their_kind_and_never_twice_on_one():
    _, boxes = _figure_page()
    for seed in range(30):
        marks = choose_marks(_targets(boxes), 2, 3, "flatbed", Rng(seed, ("marks",)))
        assert len({tuple(m["box"]) for m in marks}) == len(marks)  # one mark a target
        for m in marks:
            assert tuple(m["box"]) == boxes[m["on"]]
            allowed = {"highlight": {"total", "figure", "name"}, "circle": {"total", "figure"},
                       "underline": {"name", "figure"}, "tick": {"approval"}, "initials": {"approval"}}[m["kind"]]
            assert m["on"] in allowed, m
    assert choose_marks([], 3, 4, "flatbed", Rng(1, ("marks",))) == []  # nothing to mark: no mark


def test_a_fax_or_a_copier_gets_the_yellow_highlighter():
    _, boxes = _figure_page()
    inks = {m["ink"] for seed in range(40) for device in ("fax", "photocopy")
            for m in choose_marks(_targets(boxes), 3, 0, device, Rng(seed, ("marks",)))}
    assert inks == {"yellow"}
    assert len({m["ink"] for seed in range(40)
                for m in choose_marks(_targets(boxes), 3, 0, "phone", Rng(seed, ("marks",)))}) == 3


def _drawn(img, marks, seed=3):
    params = {"n_highlights": 0, "n_scribbles": 0, "pen": "blue", "marks": marks}
    out = markup(img, params, Rng(seed, ("markup",)))
    return out, np.any(cv2.absdiff(out, img) > 24, axis=2)


def test_every_mark_is_drawn_on_or_beside_its_box_and_nowhere_else():
    img, boxes = _figure_page()
    for seed in range(8):
        marks = choose_marks(_targets(boxes), 3, 4, "phone", Rng(seed, ("marks",)))
        _, changed = _drawn(img, marks, seed)
        allowed = np.zeros_like(changed)
        for m in marks:
            x0, y0, x1, y1 = m["box"]
            lh = (y1 - y0) * H
            margin_x = 6.0 * lh if m["kind"] in ("tick", "initials") else 1.2 * lh
            allowed[max(int(y0 * H - 1.5 * lh), 0):int(y1 * H + 1.5 * lh),
                    max(int(x0 * W - margin_x), 0):int(x1 * W + margin_x)] = True
        assert changed.any() and not (changed & ~allowed).any(), seed


def test_a_highlighted_figure_stays_legible_and_is_recorded_as_covered():
    """With masks: the highlighter's band covers the figure's box (the pipeline records ``markup`` there), and
    the figure under it still reads exactly, on a flatbed and through a fax's threshold (where yellow does not
    show)."""
    pytest.importorskip("cv2")
    from synthdocqa.corpus.ocr import cer, ocr_lines, tesseract_version

    if tesseract_version() is None:
        pytest.skip("needs tesseract")  # .ci/run installs it
    img, boxes = _figure_page()
    x0, y0, x1, y1 = boxes["total"]
    mark = {"kind": "highlight", "on": "total", "box": list(boxes["total"]), "text": "", "ink": "yellow"}
    for device in ("flatbed", "fax"):
        prof = sample_profile("good", 1, Rng(4, ("doc", 0)), device)
        stages = [StageParams(name="markup", enabled=True, params={"n_highlights": 1, "n_scribbles": 0,
                                                                   "pen": "blue", "marks": [mark]})]
        stages += [s for s in prof.pages[0].stages if s.name in ("dither", "resample")]
        page = PageDegradation(page_no=1, seed_path=["t"], stages=stages)
        out = degrade_page(img, page, 4, 200)
        box_px = [x0 * W, y0 * H, x1 * W, y1 * H]
        mask = out.occlusion["markup"]
        mh, mw = mask.shape
        covered = mask[int(y0 * mh):int(y1 * mh), int(x0 * mw):int(x1 * mw)].mean()
        if device == "flatbed":  # the band covers the figure, and the record says so
            assert "markup" in out.occluded_by(box_px) and covered > 0.5
        else:  # a grey sensor barely sees yellow (under 48 grey levels): nothing hidden, nothing recorded
            assert "markup" not in out.occluded_by(box_px) and covered == 0
        grey = cv2.cvtColor(out.image, cv2.COLOR_RGB2GRAY)
        crop = grey[int(y0 * H) - 8:int(y1 * H) + 8, int(x0 * W) - 8:int(x1 * W) + 8]
        assert cer("Total due GBP 3,360", ocr_lines([crop])[0]) == 0.0, device


def test_a_blank_page_gets_no_mark_and_a_page_without_a_render_map_is_marked_on_its_print():
    blank = np.full((H, W, 3), 255, np.uint8)
    params = {"n_highlights": 3, "n_scribbles": 4, "pen": "black"}
    assert np.array_equal(markup(blank, params, Rng(1, ("m",))), blank)
    page = text_page(3, width=W, height=H)
    lines = text_line_boxes(page)
    assert len(lines) > 10
    out = markup(page, params, Rng(1, ("m",)))
    changed = np.any(cv2.absdiff(out, page) > 24, axis=2)
    near = np.zeros_like(changed)
    for x0, y0, x1, y1 in lines:
        lh = (y1 - y0) * H
        near[max(int(y0 * H - 1.5 * lh), 0):int(y1 * H + 1.5 * lh),
             max(int(x0 * W - 4 * lh), 0):int(x1 * W + 4 * lh)] = True
    assert changed.any() and not (changed & ~near).any()


def test_a_documents_marks_are_recorded_with_their_boxes_and_replay():
    _, boxes = _figure_page()
    targets = {1: _targets(boxes), 2: []}
    prof = sample_profile("poor", 2, Rng(9, ("doc", 1)), "flatbed", targets=targets)
    first = [s for s in prof.pages[0].stages if s.name == "markup" and s.enabled]
    second = [s for s in prof.pages[1].stages if s.name == "markup" and s.enabled]
    for s in first:
        assert s.params["marks"] and all(tuple(m["box"]) in boxes.values() for m in s.params["marks"])
    for s in second:
        assert s.params["marks"] == []  # a page with nothing to mark
    again = sample_profile("poor", 2, Rng(9, ("doc", 1)), "flatbed", targets=targets)
    assert again == prof
