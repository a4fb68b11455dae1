"""The office-device stages (``degradations/stages/office.py``) on a 200-dpi US Letter text page: pure
(shape, dtype, input untouched, deterministic for a stream), random where they should be, visible,
``dither`` 1-bit, and the ``*_regions`` boxes cover every pixel their stage changed."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from degradations.stages import office
from degradations.stages.protocol import draw_param
from ir.rng import Rng

WIDTH, HEIGHT = 1700, 2200  # US Letter at 200 dpi
STAGES = tuple(office.PARAM_RANGES)
DETERMINISTIC = {"double_feed"}  # no random draw: the parameters fix the ghost
REGIONS = {"binding_marks": office.binding_regions, "markup": office.markup_regions,
           "watermark": office.watermark_regions}
VISIBLE = {"binding_marks": {"holes": 2, "staple": True}}  # drawn parameters may switch every part off
SLACK = 3  # px around the union of boxes
CHANGED = 30  # grey levels: a pixel changed by more is drawn by the stage


def _page(color: bool = True) -> np.ndarray:
    """White Letter page at 200 dpi: a coloured header bar, lines of black word-like text, a grey box."""
    rng = np.random.default_rng(0)
    img = np.full((HEIGHT, WIDTH, 3), 255, np.uint8)
    cv2.rectangle(img, (120, 100), (WIDTH - 120, 180), (40, 90, 170) if color else (90, 90, 90), -1)
    cv2.rectangle(img, (130, HEIGHT - 400), (WIDTH // 2, HEIGHT - 260), (170, 170, 170), -1)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz0123456789"))
    for y in range(260, HEIGHT - 450, 36):
        x = 130
        while x < WIDTH - 200:
            n = int(rng.integers(2, 10))
            cv2.putText(img, "".join(rng.choice(letters, n)), (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (20, 20, 20), 2,
                        cv2.LINE_AA)
            x += 18 * n + 16
    return img


PAGE = _page()
PAGES = {"rgb": PAGE, "grey": cv2.cvtColor(PAGE, cv2.COLOR_RGB2GRAY)}


def _params(name: str, seed: int = 0, visible: bool = True, **overrides) -> dict:
    """The stage's parameters drawn from its ``PARAM_RANGES`` entry (one stream per parameter)."""
    spec = office.PARAM_RANGES[name]["params"]
    p = {k: draw_param(v, Rng(seed, ("test", "param", name, k))) for k, v in spec.items()}
    if visible:
        p.update(VISIBLE.get(name, {}))
    p.update(overrides)
    return p


def _run(name: str, img: np.ndarray, p: dict, seed: int = 7) -> np.ndarray:
    return getattr(office, name)(img, p, Rng(seed, ("test", "stage", name)))


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel: the largest absolute change over the channels."""
    d = cv2.absdiff(a, b)
    return d if d.ndim == 2 else d.max(axis=2)


def test_param_ranges_are_table_entries_for_every_stage():
    assert set(STAGES) == {"dither", "scanner_lines", "roller_marks", "binding_marks", "markup", "watermark",
                           "colour_shift", "double_feed", "moire"}
    for name, entry in office.PARAM_RANGES.items():
        assert set(entry) == {"p", "params"} and 0.0 <= float(entry["p"]) <= 1.0, name
        assert callable(getattr(office, name))
        for k, spec in entry["params"].items():
            draw_param(spec, Rng(0))  # a valid spec form
            if isinstance(spec, list):
                assert len(spec) == 2 and spec[0] <= spec[1], (name, k)


@pytest.mark.parametrize("kind", PAGES)
@pytest.mark.parametrize("name", STAGES)
def test_shape_dtype_kept_and_input_untouched(name, kind):
    page = PAGES[kind]
    before = page.copy()
    out = _run(name, page, _params(name))
    assert out.shape == page.shape and out.dtype == np.uint8
    assert out is not page and not np.shares_memory(out, page)
    assert np.array_equal(page, before)


@pytest.mark.parametrize("kind", PAGES)
@pytest.mark.parametrize("name", STAGES)
def test_same_image_params_and_stream_give_the_same_output(name, kind):
    p = _params(name, seed=3)
    assert np.array_equal(_run(name, PAGES[kind], p, seed=11), _run(name, PAGES[kind], p, seed=11))


@pytest.mark.parametrize("name", sorted(set(STAGES) - DETERMINISTIC))
def test_another_stream_gives_another_output(name):
    p = _params(name)
    assert not np.array_equal(_run(name, PAGE, p, seed=1), _run(name, PAGE, p, seed=2))


@pytest.mark.parametrize(("name", "kind"), [(n, k) for n in STAGES for k in PAGES
                                            if (n, k) != ("colour_shift", "grey")])  # see the next test
def test_stage_visibly_changes_the_page(name, kind):
    page = PAGES[kind]
    for seed in range(3):
        diff = np.abs(_run(name, page, _params(name, seed)).astype(np.int16) - page)
        assert diff.mean() > 0, f"{name} (params seed {seed}) left the {kind} page unchanged"


def test_colour_shift_leaves_grey_alone():
    grey = PAGES["grey"]
    assert np.array_equal(_run("colour_shift", grey, _params("colour_shift")), grey)


@pytest.mark.parametrize("fine", [False, True])
@pytest.mark.parametrize("kind", PAGES)
def test_dither_is_one_bit(kind, fine):
    out = _run("dither", PAGES[kind], _params("dither", fine=fine))
    assert set(np.unique(out).tolist()) == {0, 255}
    if out.ndim == 3:
        assert np.array_equal(out[:, :, 0], out[:, :, 1]) and np.array_equal(out[:, :, 0], out[:, :, 2])
    rows_doubled = np.array_equal(out[0::2], out[1::2])
    assert rows_doubled == (not fine)  # standard fax resolution: 100 lines per inch, each shown twice


def test_dither_keeps_the_grey_level_of_a_flat_fill():
    """Error diffusion, not a threshold: a mid-grey fill comes out as a matching share of white dots."""
    flat = np.full((400, 400), 255, np.uint8)  # paper on the left: the fax's background level
    flat[:, 200:] = 100
    out = _run("dither", flat, {"threshold": 128.0, "fine": True})
    assert abs(out[:, 220:].mean() - 100.0) < 4.0
    assert (out[:, :190] == 255).all()  # error spreads a pixel or two into the paper, as in Floyd-Steinberg


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("name", sorted(REGIONS))
def test_regions_cover_every_changed_pixel(name, seed):
    p = _params(name, seed, visible=seed == 0)  # seed 0: every part on; others as drawn (holes may be 0)
    rng = Rng(seed, ("test", "stage", name))
    out = getattr(office, name)(PAGE, p, rng)
    boxes = REGIONS[name](WIDTH, HEIGHT, p, Rng(seed, ("test", "stage", name)))
    changed = _changed(out, PAGE)
    covered = np.zeros((HEIGHT, WIDTH), bool)
    for x0, y0, x1, y1 in boxes:
        assert 0 <= x0 < x1 <= WIDTH and 0 <= y0 < y1 <= HEIGHT, (name, (x0, y0, x1, y1))
        assert changed[int(y0):int(np.ceil(y1)), int(x0):int(np.ceil(x1))].max() > 0, f"{name}: empty box"
        covered[max(int(np.floor(y0)) - SLACK, 0):int(np.ceil(y1)) + SLACK,
                max(int(np.floor(x0)) - SLACK, 0):int(np.ceil(x1)) + SLACK] = True
    outside = (changed > CHANGED) & ~covered
    ys, xs = np.nonzero(outside)
    assert len(ys) == 0, f"{name}: {len(ys)} changed pixels outside the boxes, e.g. at (x, y) = ({xs[0]}, {ys[0]})"
    if changed.max() > CHANGED:
        assert boxes, f"{name}: the page changed but no box was returned"


@pytest.mark.parametrize("name", sorted(REGIONS))
def test_regions_are_the_same_for_a_grey_page(name):
    """The boxes depend on the page size, the parameters and the stream only; a grey page changes
    inside them too."""
    p = _params(name)
    grey = PAGES["grey"]
    boxes = REGIONS[name](WIDTH, HEIGHT, p, Rng(5))
    changed = _changed(getattr(office, name)(grey, p, Rng(5)), grey) > CHANGED
    covered = np.zeros_like(changed)
    for x0, y0, x1, y1 in boxes:
        covered[max(int(y0) - SLACK, 0):int(np.ceil(y1)) + SLACK, max(int(x0) - SLACK, 0):int(np.ceil(x1)) + SLACK] = True
    assert not (changed & ~covered).any()


def test_nothing_to_bind_draws_nothing():
    p = _params("binding_marks", visible=False, holes=0, staple=False, clip=False)
    assert np.array_equal(_run("binding_marks", PAGE, p), PAGE)
    assert office.binding_regions(WIDTH, HEIGHT, p, Rng(0)) == []
