"""Capture devices and per-page captures: tables, sampling into the IR, replay, scan files, occlusion."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from synthdocqa.degradations import (
    degrade_page,
    encode_image,
    encode_scan,
    page_captures,
    sample_profile,
    scan_extension,
    scan_format,
)
from synthdocqa.degradations.devices import stage_table
from synthdocqa.ir.perturbation import PageDegradation, PerturbationProfile, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.spec import CorpusSpec, demo_spec, reference_spec
from synthdocqa.ir.vocab import DEVICES, OCCLUDING_STAGES, TIERS

from .pages import text_page

PAGE = text_page(3)


def test_cycle_shows_every_tier_and_device_on_three_two_page_documents():
    pages = [c for i in range(3) for c in page_captures("cycle", i, "good", "fax", 2)]
    assert {t for t, _ in pages} == set(TIERS)
    assert {d for _, d in pages} == set(DEVICES)
    assert page_captures("document", 5, "fair", "phone", 3) == [("fair", "phone")] * 3
    with pytest.raises(ValueError, match="unknown scan plan 'random'"):
        page_captures("random", 0, "good", "fax", 1)


def test_devices_differ_in_what_they_switch_on():
    on = {d: {n for n, e in stage_table(d, "degraded").items() if e["p"] > 0} for d in DEVICES}
    assert "dither" in on["fax"] and not {"dither"} & (on["flatbed"] | on["phone"] | on["photocopy"])
    assert "roller_marks" in on["photocopy"] and "roller_marks" not in on["phone"]
    assert not any("jpeg" in on[d] for d in DEVICES)  # one JPEG generation: the scan file's (``encode_scan``)
    assert scan_format("degraded", "phone")[0] == "jpeg" and scan_format("degraded", "fax")[0] == "png"
    for d in DEVICES:  # what the sheet carries does not depend on the device
        assert set(OCCLUDING_STAGES) <= on[d]


def test_pages_record_their_own_capture_and_replay_from_json():
    caps = page_captures("cycle", 1, "good", "flatbed", 4)
    prof = sample_profile("good", 4, Rng(9, ("doc", 1)), "flatbed", caps)
    assert [(prof.page_tier(p), prof.page_device(p)) for p in prof.pages] == caps
    assert prof.pages[0].tier is None or (prof.pages[0].tier, prof.pages[0].device) != ("good", "flatbed")
    again = PerturbationProfile.model_validate_json(prof.to_json())
    assert again == prof
    for page in prof.pages:  # each page its own draws: the same stage differs between pages
        a = degrade_page(PAGE, page, 9, 100).image
        b = degrade_page(PAGE, again.pages[page.page_no - 1], 9, 100).image
        assert np.array_equal(a, b)
    params = [s.params for p in sample_profile("poor", 3, Rng(9, ("doc", 2)), "phone").pages
              for s in p.stages if s.name == "lighting"]
    assert len({str(p) for p in params}) == 3
    with pytest.raises(ValueError, match="2 .tier, device. pairs for 3 pages"):
        sample_profile("good", 3, Rng(0), "flatbed", caps[:2])


def test_a_fax_is_one_bit_and_stored_as_png():
    page = sample_profile("fair", 1, Rng(5, ("fax",)), "fax").pages[0]
    out = degrade_page(PAGE, page, 5, 100).image
    assert set(np.unique(out)) <= {0, 255}
    data = encode_scan(out, "fair", device="fax")
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and scan_extension("fair", "fax") == ".png"
    assert scan_extension("fair", "phone") == ".jpg"
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    assert set(np.unique(back)) <= {0, 255} and back.ndim == 2 and np.array_equal(back, out[:, :, 0])  # lossless
    assert data[24] == 1 and data[25] == 0  # the PNG header (IHDR): bit depth 1, greyscale: what a fax file holds
    assert len(data) < 0.7 * len(encode_image(out, "png"))  # smaller than an 8-bit RGB PNG of the same page


def _forced(name: str, seed: int, **params: object) -> PageDegradation:
    from synthdocqa.degradations import sample_stage

    stage = sample_stage("poor", name, Rng(seed, ("test", "occl", name)), force=True)
    stage = stage.model_copy(update={"params": {**stage.params, **params}})
    return PageDegradation(page_no=1, seed_path=["test", seed], stages=[stage])


def test_a_faint_watermark_covers_nothing():
    page = text_page(4, 850, 1100)
    deg = degrade_page(page, _forced("watermark", 0, opacity=0.1), 0, 200)
    assert not deg.occlusion["watermark"].any() and deg.occluded_by([0, 0, 850, 1100]) == []


@pytest.mark.parametrize("name", OCCLUDING_STAGES)
def test_occluding_stages_record_what_they_cover(name):
    page = text_page(4, 850, 1100)
    for seed in range(3):
        strong = {"opacity": 0.6} if name == "watermark" else {"n_scribbles": 3} if name == "markup" else {}
        deg = degrade_page(page, _forced(name, seed, **strong), seed, 200)
        mask = deg.occlusion[name]
        assert mask.shape == page.shape[:2] and mask.any()
        changed = cv2.absdiff(page, deg.image).max(axis=2) > 48
        assert np.array_equal(mask.astype(bool), changed)  # the mask is where the mark changed the page
        ys, xs = np.nonzero(mask)
        y, x = int(np.median(ys)), int(np.median(xs))
        hit = [x - 20, y - 10, x + 20, y + 10]
        if np.count_nonzero(mask[y - 10:y + 10, x - 20:x + 20]) >= 0.01 * 800:
            assert deg.occluded_by(hit) == [name]
        clear = np.argwhere(cv2.dilate(mask, np.ones((61, 61), np.uint8)) == 0)
        if len(clear):
            cy, cx = clear[len(clear) // 2]
            assert deg.occluded_by([cx - 10, cy - 5, cx + 10, cy + 5]) == []
    plain = degrade_page(page, _forced("blur", 0), 0, 200)
    assert plain.occlusion == {} and plain.occluded_by([0, 0, 850, 1100]) == []


def test_specs_draw_a_device_and_the_demo_cycles():
    from synthdocqa.generation.planner import plan_document

    spec = reference_spec(3, n_docs=40)
    devices = [plan_document(spec, i).perturbation.device for i in range(40)]
    assert set(devices) == set(DEVICES)
    assert devices == [plan_document(spec, i).perturbation.device for i in range(40)]
    only_fax = CorpusSpec.model_validate({**spec.model_dump(mode="json"), "device_mix": {"fax": 1.0}})
    assert {plan_document(only_fax, i).perturbation.device for i in range(5)} == {"fax"}
    with pytest.raises(ValueError, match="unknown device .telex."):
        CorpusSpec.model_validate({**spec.model_dump(mode="json"), "device_mix": {"telex": 1.0}})
    assert demo_spec(0).scan_plan == "cycle" and spec.scan_plan == "document"


def test_stage_params_of_a_disabled_device_stage_replay_as_identity():
    page = PageDegradation(page_no=1, seed_path=["x"], stages=[StageParams(name="dither", enabled=False)])
    assert np.array_equal(degrade_page(PAGE, page, 0, 100).image, PAGE)


@pytest.mark.parametrize("device", DEVICES)
def test_monochrome_sensors_read_grey_and_give_the_page_its_channels_back(device):
    """A copier's and a fax's sensor are monochrome (``resample.grey``): the stages after it see one channel,
    so the scan has no colour at all, yet comes back with the page's shape; the colour devices keep colour."""
    page = text_page(7, color=True)
    grey_sensor = device in ("photocopy", "fax")
    for tier in ("good", "poor"):
        prof = sample_profile(tier, 1, Rng(2, ("mono", device, tier)), device)
        resample = next(s for s in prof.pages[0].stages if s.name == "resample")
        assert resample.enabled  # every device has a sensor resolution (a fax's full one up to fair)
        assert bool(resample.params.get("grey")) is grey_sensor
        out = degrade_page(page, prof.pages[0], 2, 200).image
        assert out.shape == page.shape and out.dtype == np.uint8
        spread = int((out.max(axis=2).astype(int) - out.min(axis=2)).max())
        assert (spread == 0) is grey_sensor, (device, tier, spread)


def test_only_a_photographed_sheet_curls_or_lifts_at_a_crease():
    """Glass (flatbed, copier) and a fax's rollers press the sheet flat: no warp (curl, bow, perspective) and no
    crease shift there at any tier; a phone photo of a poor page curls."""
    for device in ("flatbed", "photocopy", "fax"):
        for tier in TIERS:
            table = stage_table(device, tier)
            assert table["warp"]["p"] == 0 and table["fold_shift"]["p"] == 0, (device, tier)
    assert stage_table("phone", "poor")["warp"]["p"] == 1.0
    assert stage_table("phone", "poor")["warp"]["params"]["curl"][0] > 0
    assert stage_table("phone", "degraded")["fold_shift"]["p"] > 0
