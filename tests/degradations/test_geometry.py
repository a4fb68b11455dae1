"""Boxes through geometry: markers drawn at known boxes are found where ``map_boxes`` says they went."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.degradations import (
    GEOMETRIC_STAGES,
    CurlWarp,
    Homography,
    degrade_page,
    map_box,
    map_boxes,
    sample_profile,
)
from synthdocqa.degradations.geometry import inverse_points, map_points, sampling_maps
from synthdocqa.degradations.stages.geometric import perspective_homography, skew_homography
from synthdocqa.ir.perturbation import PageDegradation, StageParams
from synthdocqa.ir.rng import Rng

from .pages import TOL, check_markers, find_markers, marker_grid, marker_page

W, H, DPI = 850, 1100, 100  # Letter at 100 dpi

_WARP_OFF = {"perspective": 0.0, "curl": 0.0, "curl_width": 0.2, "curl_side": "right", "lift": 0.0,
             "shrink": 0.0, "bow": 0.0}


def _page(stages: dict[str, dict]) -> PageDegradation:
    return PageDegradation(page_no=1, seed_path=["test", "markers"],
                           stages=[StageParams(name=n, enabled=True, params=p) for n, p in stages.items()])


GEOMETRIC_CASES = {
    "skew": {"skew": {"angle_deg": 3.5, "shift_x": 0.012, "shift_y": -0.01, "border": 0.6}},
    "skew_negative": {"skew": {"angle_deg": -4.0, "shift_x": -0.015, "shift_y": 0.015, "border": 0.9}},
    "warp_perspective": {"warp": {**_WARP_OFF, "perspective": 0.02}},
    "warp_curl_right": {"warp": {**_WARP_OFF, "curl": 1.0, "curl_width": 0.3, "lift": 0.02, "shrink": 0.06,
                                 "bow": 0.008}},
    "warp_curl_left": {"warp": {**_WARP_OFF, "curl": 0.8, "curl_width": 0.25, "curl_side": "left",
                                "lift": -0.02, "shrink": 0.04, "bow": -0.006}},
    "warp_perspective_and_curl": {"warp": {**_WARP_OFF, "perspective": 0.015, "curl": 0.7, "curl_width": 0.2,
                                           "lift": 0.01, "shrink": 0.03, "bow": 0.005}},
    "skew_then_warp_fused": {"skew": {"angle_deg": -2.5, "shift_x": 0.01, "shift_y": 0.005, "border": 0.8},
                             "warp": {**_WARP_OFF, "perspective": 0.012, "curl": 0.6, "curl_width": 0.2,
                                      "lift": 0.015, "shrink": 0.03, "bow": -0.004}},
    "page_frame_upside_down": {"page_frame": {"flip": True, "zoom": 1.0, "anchor_x": 0.5, "anchor_y": 0.5}},
    "page_frame_crop": {"page_frame": {"flip": False, "zoom": 1.04, "anchor_x": 0.45, "anchor_y": 0.6}},
    "fold_shift_h": {"fold_shift": {"orientation": "h", "position": 0.45, "shift_px": 12.0, "slide_px": -6.0,
                                    "band_px": 50.0}},
    "fold_shift_v": {"fold_shift": {"orientation": "v", "position": 0.55, "shift_px": -14.0, "slide_px": 8.0,
                                    "band_px": 40.0}},
    "frame_fold_skew_warp_fused": {
        "page_frame": {"flip": True, "zoom": 1.015, "anchor_x": 0.6, "anchor_y": 0.4},
        "fold_shift": {"orientation": "h", "position": 0.5, "shift_px": 3.5, "slide_px": 1.0, "band_px": 14.0},
        "skew": {"angle_deg": 2.0, "shift_x": -0.01, "shift_y": 0.008, "border": 0.7},
        "warp": {**_WARP_OFF, "perspective": 0.01, "curl": 0.5, "curl_width": 0.2, "bow": 0.004}},
    "skew_at_the_sensor_resolution": {"resample": {"scale": 0.55, "mode": "area"},
                                      "skew": {"angle_deg": 3.0, "shift_x": 0.01, "shift_y": -0.01, "border": 0.8},
                                      "fold_shift": {"orientation": "v", "position": 0.5, "shift_px": 14.0,
                                                     "slide_px": -6.0, "band_px": 50.0}},
    "placement_on_a_desk": {"placement": {"scale": 0.85, "angle_deg": 2.5, "offset_x": 0.02, "offset_y": -0.015,
                                          "surface": "white"}},
    "warp_then_placement_fused": {"warp": {**_WARP_OFF, "perspective": 0.015, "bow": 0.004},
                                  "placement": {"scale": 0.9, "angle_deg": -2.0, "offset_x": -0.02, "offset_y": 0.01,
                                                "surface": "grey"}},
    "resample_area": {"resample": {"scale": 0.38, "mode": "area"}},
    "resample_nearest": {"resample": {"scale": 0.45, "mode": "nearest"}},
}


@pytest.mark.parametrize("case", sorted(GEOMETRIC_CASES))
def test_markers_follow_each_geometric_stage(case):
    boxes = marker_grid(W, H)
    img = marker_page(W, H, boxes)
    result = degrade_page(img, _page(GEOMETRIC_CASES[case]), seed=11, dpi=DPI)
    moved = any(n in GEOMETRIC_CASES[case] for n in GEOMETRIC_STAGES)
    assert bool(result.transforms) == moved
    worst_c, worst_b = check_markers(result.image, boxes, result.transforms)
    assert worst_c <= TOL and worst_b <= TOL
    if moved:  # the markers really moved, so the check above is not trivially an identity
        exp = map_points((boxes[:, :2] + boxes[:, 2:]) / 2.0, result.transforms)
        assert np.abs(exp - (boxes[:, :2] + boxes[:, 2:]) / 2.0).max() > 2.5 * TOL


def test_every_geometric_stage_has_a_marker_case():
    covered = {n for case in GEOMETRIC_CASES.values() for n in case}
    assert set(GEOMETRIC_STAGES) <= covered


def test_fold_shift_inverts_and_refuses_a_fold_it_cannot_invert():
    from synthdocqa.degradations.geometry import FoldShift

    t = FoldShift("h", 300.0, 12.0, dx=2.0, dy=3.5)
    pts = np.array([[10.0, 100.0], [400.0, 305.0], [50.0, 309.0], [70.0, 900.0]])
    assert np.allclose(t.inverse_points(t.map_points(pts)), pts, atol=1e-9)
    assert np.allclose(t.map_points(pts)[[0, 3]], pts[[0, 3]] + [[0.0, 0.0], [2.0, 3.5]])
    with pytest.raises(ValueError, match="does not invert"):
        FoldShift("v", 10.0, 6.0, dx=3.0, dy=0.0)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_markers_follow_the_full_poor_tier(seed):
    """Every stage of a sampled poor page on. Markers are isolated as the difference between the page
    with markers and the same blank page degraded with the same profile and seed (identical random
    streams), so stains, folds and noise cannot pose as markers. Two photometric erasers are turned
    off: fax binarisation (under a black lid shadow it wipes markers out) and toner dropout (it fades a
    marker unevenly, which moves its visible centroid by up to ~3.5 px although the geometry is exact,
    0.5 px with it off). Markup is off too: a highlighter stroke across a marker dims the half it covers in
    the difference image (3.2 px of centroid on seed 1); its own box mapping is tested with its mask."""
    boxes = marker_grid(W, H, size=18, nx=5, ny=6, margin=60)
    profile = sample_profile("poor", 1, Rng(seed, ("doc", 0)))
    page = profile.pages[0]
    stages = []
    for s in page.stages:
        if s.name == "contrast":
            s = s.model_copy(update={"params": {**s.params, "binarize": False}})
        if s.name in ("toner_fade", "markup"):
            s = s.model_copy(update={"enabled": False})
        stages.append(s)
    page = page.model_copy(update={"stages": stages})
    assert sum(s.enabled for s in stages) >= 10  # of 15; toner_fade and markup are forced off
    with_markers = degrade_page(marker_page(W, H, boxes), page, seed, DPI)
    blank = degrade_page(marker_page(W, H, boxes[:0]), page, seed, DPI)
    assert len(with_markers.transforms) >= 1
    diff = np.abs(with_markers.image.astype(np.int16) - blank.image.astype(np.int16)).max(axis=2)
    # edges at half the markers' contrast: where a symmetric blur leaves an edge
    half = 0.5 * float(np.percentile(diff, 99.7))
    found = find_markers(np.where(diff > half, 0, 255).astype(np.uint8), threshold=128, min_area=30)
    # centres within TOL; visible extents within TOL + one sensor pixel (blur, motion and the lid-shadow
    # gradient, applied at the sensor's resolution, leave a halo that the half-contrast threshold does
    # not fully cancel)
    scale = next(s.params["scale"] for s in stages if s.name == "resample")
    # a marker the pipeline records as covered (a scribble, a highlight, a punch hole over it) has lost part
    # of its ink to the mark, which moves its visible centroid: the occlusion record says so, geometry does not
    clear = np.array([not with_markers.occluded_by(b) for b in boxes])
    assert clear.mean() >= 0.8
    check_markers(with_markers.image, boxes[clear], with_markers.transforms, found=found, min_checked=0.7,
                  box_tol=TOL + 1.0 / float(scale))


def test_map_box_quad_and_aabb_of_a_rotation():
    hom = skew_homography(200, 100, 90.0, 0.0, 0.0)  # quarter turn about (100, 50)
    quad, aabb = map_box([90, 40, 110, 50], [hom])
    assert np.allclose(aabb, [90, 40, 100, 60], atol=1e-9)  # 20x10 becomes 10x20, centre (100,45)->(95,50)
    assert len(quad) == 4 and all(len(p) == 2 for p in quad)
    assert map_box([1, 2, 3, 4], []) == ([[1, 2], [3, 2], [3, 4], [1, 4]], [1, 2, 3, 4])


def test_map_boxes_rejects_inverted_boxes_and_clips():
    with pytest.raises(ValueError, match=r"bbox\[1\]"):
        map_boxes([[0, 0, 1, 1], [5, 5, 4, 6]], [])
    _, aabbs = map_boxes([[-5, -5, 10, 10]], [], clip_to=(8, 9))
    assert aabbs.tolist() == [[0, 0, 8, 9]]


@pytest.mark.parametrize("side", ["left", "right"])
def test_curl_forward_inverts_its_defining_map(side):
    curl = CurlWarp(width=800, height=1000, side=side, curl_width=0.3, squeeze=1.0, lift=0.02, shrink=0.06,
                    bow=0.008)
    pts = np.random.default_rng(0).uniform([0, 0], [800, 1000], (500, 2))
    assert np.abs(curl.inverse_points(curl.map_points(pts)) - pts).max() < 1e-6


def test_homography_and_compose_round_trip():
    hom = perspective_homography(600, 800, 0.02, Rng(5))
    assert isinstance(hom, Homography)
    pts = np.random.default_rng(1).uniform(0, 600, (100, 2))
    curl = CurlWarp(width=600, height=800, side="right", curl_width=0.2, squeeze=0.5, lift=0.0, shrink=0.0, bow=0.0)
    chain = [hom, curl]
    assert np.abs(inverse_points(map_points(pts, chain), chain) - pts).max() < 1e-6


def test_sampling_maps_match_the_exact_inverse():
    """The bilinear-upsampled remap grid agrees with the exact inverse map to well under a pixel."""
    chain = [skew_homography(850, 1100, 3.0, 0.01, 0.0),
             CurlWarp(width=850, height=1100, side="right", curl_width=0.3, squeeze=1.0, lift=0.02, shrink=0.06,
                      bow=0.008)]
    mx, my = sampling_maps(chain, 850, 1100)
    assert mx.shape == (1100, 850)
    ys, xs = np.mgrid[0:1100:37, 0:850:29]
    exact = inverse_points(np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], 1), chain) - 0.5
    got = np.stack([mx[ys.ravel(), xs.ravel()], my[ys.ravel(), xs.ravel()]], 1)
    assert np.abs(got - exact).max() < 0.1


def test_a_projective_chain_is_resampled_as_the_remap_grid_would():
    """Skew, page frame and perspective compose to one matrix and go through ``warpAffine``/``warpPerspective``;
    the pixels agree with the general path (the remap grid of the same chain) to interpolation rounding, and a
    chain with a curl still takes the general path."""
    import cv2

    from synthdocqa.degradations.stages.protocol import _projective, _resample

    rng = np.random.default_rng(4)
    img = cv2.GaussianBlur(rng.integers(0, 256, (400, 300, 3), dtype=np.uint8), (5, 5), 1.5)
    cv2.putText(img, "Invoice 0042", (20, 200), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    for chain in ([skew_homography(300, 400, 3.0, 0.01, -0.02)],
                  [skew_homography(300, 400, -2.0, 0.0, 0.01), perspective_homography(300, 400, 0.03, Rng(4, ("test",)))]):
        assert _projective(chain) is not None
        mx, my = sampling_maps(chain, 300, 400)
        general = cv2.remap(img, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=(255, 255, 255))
        fast = _resample(img, chain, (255.0, 255.0, 255.0))
        diff = cv2.absdiff(general, fast)[8:-8, 8:-8].astype(float)  # the page edge differs by a part of a pixel
        assert diff.mean() < 0.5 and np.percentile(diff, 99.9) <= 8
    curl = CurlWarp(width=300, height=400, side="right", curl_width=0.3, squeeze=1.0, lift=0.02, shrink=0.06, bow=0.0)
    assert _projective([skew_homography(300, 400, 1.0, 0.0, 0.0), curl]) is None
