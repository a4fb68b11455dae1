"""A phone photo shows the page in a scene: placed on a desk (the desk around it, the page's edge shadow),
the hand's shadow, a lamp's glare (recorded where it washes the print out), focus falling off across the page,
and never salt-and-pepper dots. The placement moves boxes exactly (markers within 2 px)."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.degradations import apply_stage, degrade_page, sample_profile, sample_stage
from synthdocqa.degradations.devices import stage_table
from synthdocqa.degradations.stages.capture import blur, glare, lighting
from synthdocqa.ir.perturbation import StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import TIERS

from .pages import TOL, check_markers, find_markers, marker_grid, marker_page, text_page

W, H, DPI = 850, 1100, 100


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_placement_on_the_desk_maps_markers_within_2px(seed):
    boxes = marker_grid(W, H, size=18, nx=5, ny=6, margin=80)
    stage = sample_stage("poor", "placement", Rng(seed, ("test", "placement")), device="phone")
    assert stage.enabled and stage.params["scale"] < 1.0
    out, t = apply_stage(marker_page(W, H, boxes), stage, Rng(seed, ("s",)).fork("stage", "placement"), DPI)
    assert t is not None
    # isolate the markers from the desk: the same placement of a blank page, differenced
    blank, _ = apply_stage(marker_page(W, H, boxes[:0]), stage, Rng(seed, ("s",)).fork("stage", "placement"), DPI)
    diff = np.abs(out.astype(np.int16) - blank.astype(np.int16)).max(axis=2)
    found = find_markers(np.where(diff > 100, 0, 255).astype(np.uint8), threshold=128, min_area=30)
    worst_c, _ = check_markers(out, boxes, [t], found=found, min_checked=0.9, box_tol=TOL)
    assert worst_c <= TOL


def test_the_desk_shows_around_the_page_with_its_shadow():
    page = np.full((H, W, 3), 255, np.uint8)
    stage = StageParams(name="placement", enabled=True, params={"scale": 0.8, "angle_deg": 0.0, "offset_x": 0.0,
                                                               "offset_y": 0.0, "surface": "walnut"})
    out, _ = apply_stage(page, stage, Rng(4, ("s",)).fork("stage", "placement"), DPI)
    corner = out[: int(0.05 * H), : int(0.05 * W)].reshape(-1, 3).mean(axis=0)
    assert corner.max() < 140 and corner[0] > corner[2]  # a dark brown desk, not the white page or a grey lid
    assert out[H // 2, W // 2].min() > 245  # the page itself stays white
    # the page's shadow falls down and to the right: the desk is darker just below the page than just above it
    x = W // 2
    below = out[int(0.9 * H) + 6 : int(0.9 * H) + 12, x].mean()
    above = out[int(0.1 * H) - 12 : int(0.1 * H) - 6, x].mean()
    assert below < above - 5


def test_glare_washes_out_print_and_is_recorded_on_the_scan():
    img = text_page(5, width=W, height=H, color=False)
    out = glare(img, {"strength": 0.9, "size": 0.2}, Rng(2, ("g",)))
    assert (out < 128).sum() < 0.95 * (img < 128).sum()  # print under the glare fades out
    assert np.array_equal(img, text_page(5, width=W, height=H, color=False))  # its input untouched
    page = sample_profile("poor", 1, Rng(1, ("doc", 0)), "phone").pages[0]
    stages = [StageParams(name="glare", enabled=True, params={"strength": 0.95, "size": 0.3}) if s.name == "glare"
              else s for s in page.stages]
    deg = degrade_page(img, page.model_copy(update={"stages": stages}), 1, DPI)
    mask = deg.overdrawn["glare"]
    ys, xs = np.nonzero(mask)
    assert len(ys) > 0
    sy, sx = deg.image.shape[0] / mask.shape[0], deg.image.shape[1] / mask.shape[1]
    y, x = ys[len(ys) // 2] * sy, xs[len(xs) // 2] * sx
    assert "glare" in deg.overdrawn_lookup()([x - 3, y - 3, x + 3, y + 3])


def test_hand_shadow_and_focus_falloff_change_one_side_more_than_the_other():
    img = text_page(6, width=W, height=H, color=False)
    base = {"gradient": 0.0, "angle_deg": 0.0, "vignette": 0.0, "shadow": 0.0, "shadow_width": 0.1,
            "shadow_side": "left"}
    shaded = lighting(img, {**base, "hand": 0.4}, Rng(3, ("l",)))
    plain = lighting(img, {**base, "hand": 0.0}, Rng(3, ("l",)))
    assert shaded.mean() < plain.mean() - 2
    sharp = blur(img, {"sigma_px": 0.5, "motion_px": 0.0}, Rng(1))
    soft = blur(img, {"sigma_px": 0.5, "motion_px": 0.0, "falloff_px": 2.0, "falloff_deg": 0.0}, Rng(1))
    left = np.abs(soft[:, : W // 4].astype(int) - sharp[:, : W // 4]).mean()
    right = np.abs(soft[:, -W // 4 :].astype(int) - sharp[:, -W // 4 :]).mean()
    assert right > 3 * left  # focused on the left, soft on the right


def test_no_phone_tier_draws_salt_and_pepper_or_thresholds():
    for tier in TIERS[1:]:
        t = stage_table("phone", tier)
        assert t["noise"]["params"]["salt_pepper"] == [0.0, 0.0]
        assert t["contrast"]["params"].get("binarize", False) is False  # a camera never thresholds
        assert t["placement"]["p"] == 1.0
