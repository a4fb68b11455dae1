"""The stages office devices and their users add (``degradations/stages/``: ``sheet_marks``, ``transport``,
``sensor``, ``output``) on a 200-dpi US Letter text page: pure
(shape, dtype, input untouched, deterministic for a stream), random where they should be, visible,
``dither`` 1-bit. Parameters come from the device tables (``degradations.devices``) at the poor tier."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from synthdocqa.degradations import sample_stage
from synthdocqa.degradations.stages import output, sensor, sheet_marks, transport
from synthdocqa.ir.rng import Rng

WIDTH, HEIGHT = 1700, 2200  # US Letter at 200 dpi
STAGES = ("dither", "scanner_lines", "roller_marks", "binding_marks", "markup", "watermark", "colour_shift",
          "double_feed", "moire", "fax_header", "line_errors")
MODULE = {"dither": output, "scanner_lines": sensor, "roller_marks": transport, "binding_marks": sheet_marks,
          "markup": sheet_marks, "watermark": sheet_marks, "colour_shift": sensor, "double_feed": transport,
          "moire": sensor, "fax_header": output, "line_errors": output}  # each in the module of its step of capture
DETERMINISTIC = {"double_feed", "fax_header"}  # no random draw: the parameters fix the ghost, the header line
VISIBLE = {"binding_marks": {"holes": 2, "staple": True},  # drawn parameters may switch every part off
           "dither": {"diffuse": True},
           "line_errors": {"n_errors": 8}}  # enough lost lines that some fall on ink  # photo mode: the diffusion is what draws from the stream (text mode does not)


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
    """The stage's parameters drawn from the device tables at poor (``sample_stage``, forced on; the
    first device that uses the stage), ``*_px`` lengths at 200 dpi as the page."""
    p = dict(sample_stage("poor", name, Rng(seed, ("test", "param", name)), force=True).params)
    if visible:
        p.update(VISIBLE.get(name, {}))
    p.update(overrides)
    return p


def _run(name: str, img: np.ndarray, p: dict, seed: int = 7) -> np.ndarray:
    return getattr(MODULE[name], name)(img, p, Rng(seed, ("test", "stage", name)))


def _changed(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per pixel: the largest absolute change over the channels."""
    d = cv2.absdiff(a, b)
    return d if d.ndim == 2 else d.max(axis=2)


def test_every_office_stage_is_registered_and_in_some_device_table():
    from synthdocqa.degradations import STAGES as REGISTRY
    from synthdocqa.degradations.devices import stage_table
    from synthdocqa.ir.vocab import DEVICES, TIERS

    for name in STAGES:
        assert REGISTRY[name].fn is getattr(MODULE[name], name)
        assert any(stage_table(d, t)[name]["p"] > 0 for d in DEVICES for t in TIERS), name


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


def test_nothing_to_bind_draws_nothing():
    p = _params("binding_marks", visible=False, holes=0, staple=False, clip=False)
    assert np.array_equal(_run("binding_marks", PAGE, p), PAGE)
