"""Sampling into the IR and replaying from it: ``ir.json`` alone reproduces the scan bytes."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from synthdocqa.degradations import degrade_page, encode_scan, sample_profile
from synthdocqa.ir.perturbation import PageDegradation, PerturbationProfile, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import STAGE_NAMES, TIERS

from .pages import text_page

PAGE = text_page(1)


def _digest(a: np.ndarray) -> str:
    return hashlib.sha256(a.tobytes()).hexdigest()


def test_profile_sampling_is_deterministic_and_json_round_trips():
    for tier in TIERS:
        a = sample_profile(tier, 3, Rng(42, ("doc", 7)))
        b = sample_profile(tier, 3, Rng(42, ("doc", 7)))
        assert a == b
        text = a.to_json()
        back = PerturbationProfile.model_validate_json(text)
        assert back == a and back.to_json() == text
        json.loads(text)  # plain JSON values only
    assert sample_profile("poor", 2, Rng(42, ("doc", 7))) != sample_profile("poor", 2, Rng(43, ("doc", 7)))


def test_profile_layout_and_streams():
    prof = sample_profile("fair", 2, Rng(5, ("doc", 3)))
    assert prof.tier == "fair" and [p.page_no for p in prof.pages] == [1, 2]
    for p in prof.pages:
        assert [s.name for s in p.stages] == list(STAGE_NAMES)
        assert p.seed_path == ["doc", 3, "page", p.page_no, "flatbed", "apply"]
        for s in p.stages:
            assert bool(s.params) == s.enabled
    # pages are sampled independently: page 1 of a 1-page and of a 2-page document agree
    assert sample_profile("fair", 1, Rng(5, ("doc", 3))).pages[0] == prof.pages[0]


def test_each_device_draws_its_own_wear_of_a_page():
    """The stages two devices share (paper, stains, the sheet's marks) are drawn per device: the flatbed and
    the photocopy of one page are not one damaged sheet seen twice; the same device gives the same draws."""
    shared = ("paper", "stains", "binding_marks", "markup", "skew")
    flat = {s.name: s for s in sample_profile("poor", 1, Rng(9, ("doc", 1)), "flatbed").pages[0].stages}
    copy = {s.name: s for s in sample_profile("poor", 1, Rng(9, ("doc", 1)), "photocopy").pages[0].stages}
    again = {s.name: s for s in sample_profile("poor", 1, Rng(9, ("doc", 1)), "photocopy").pages[0].stages}
    assert copy == again
    differ = [n for n in shared if flat[n].params and copy[n].params and flat[n].params != copy[n].params]
    assert len(differ) >= 2, differ
    # and the streams that apply them differ too
    assert sample_profile("poor", 1, Rng(9, ("doc", 1)), "fax").pages[0].seed_path[-2] == "fax"


def test_pristine_is_all_off_and_an_exact_copy():
    prof = sample_profile("pristine", 1, Rng(0))
    assert not any(s.enabled for s in prof.pages[0].stages)
    out = degrade_page(PAGE, prof.pages[0], 0, 100)
    assert np.array_equal(out.image, PAGE) and out.transforms == []
    assert out.image is not PAGE


def test_tiers_switch_on_more_stages():
    counts = {t: np.mean([sum(s.enabled for s in sample_profile(t, 1, Rng(i)).pages[0].stages)
                          for i in range(40)]) for t in TIERS}
    assert [counts[t] for t in TIERS] == sorted(counts.values())
    assert counts["poor"] >= 13 and counts["pristine"] == 0


@pytest.mark.parametrize("tier", TIERS)
def test_replay_from_serialised_profile_gives_identical_bytes(tier):
    prof = sample_profile(tier, 2, Rng(9, ("doc", 1)))
    replayed = PerturbationProfile.model_validate_json(prof.to_json())
    for page, again in zip(prof.pages, replayed.pages, strict=True):
        a = degrade_page(PAGE, page, 9, 100)
        b = degrade_page(PAGE, again, 9, 100)
        assert _digest(a.image) == _digest(b.image)
        assert a.image.shape == PAGE.shape  # output size = input size, resample included
        assert encode_scan(a.image, tier) == encode_scan(b.image, tier)
        assert [t.to_dict() for t in a.transforms] == [t.to_dict() for t in b.transforms]


def test_the_seed_and_the_page_path_drive_the_random_streams():
    page = sample_profile("poor", 1, Rng(9)).pages[0]
    a = degrade_page(PAGE, page, 9, 100).image
    assert not np.array_equal(a, degrade_page(PAGE, page, 10, 100).image)
    moved = page.model_copy(update={"seed_path": [*page.seed_path, "x"]})
    assert not np.array_equal(a, degrade_page(PAGE, moved, 9, 100).image)


def test_pages_of_a_document_degrade_differently():
    prof = sample_profile("degraded", 2, Rng(4))
    a = degrade_page(PAGE, prof.pages[0], 4, 100).image
    b = degrade_page(PAGE, prof.pages[1], 4, 100).image
    assert not np.array_equal(a, b)


def test_bad_inputs_are_clear_errors():
    page = sample_profile("good", 1, Rng(0)).pages[0]
    with pytest.raises(ValueError, match="uint8"):
        degrade_page(PAGE.astype(np.float32), page, 0, 100)
    with pytest.raises(ValueError, match="shape"):
        degrade_page(np.zeros((50, 50, 4), np.uint8), page, 0, 100)
    with pytest.raises(ValueError, match="dpi"):
        degrade_page(PAGE, page, 0, 0)
    with pytest.raises(ValueError, match="unknown stage 'sepia'"):  # a typo fails when the IR is read
        PageDegradation(page_no=1, seed_path=[], stages=[StageParams(name="sepia", enabled=True)])
    bad = PageDegradation(page_no=1, seed_path=[], stages=[StageParams.model_construct(name="sepia", enabled=True)])
    with pytest.raises(ValueError, match="page 1: unknown stage 'sepia'"):  # and an unvalidated one when applied
        degrade_page(PAGE, bad, 0, 100)
    dup = PageDegradation(page_no=1, seed_path=[], stages=[page.stages[0], page.stages[0]])
    with pytest.raises(ValueError, match="listed twice"):
        degrade_page(PAGE, dup, 0, 100)
    with pytest.raises(ValueError, match="unknown tier 'awful'"):
        sample_profile("awful", 1, Rng(0))
    with pytest.raises(ValueError, match="n_pages"):
        sample_profile("good", 0, Rng(0))


def test_grey_input_degrades_to_grey_output():
    prof = sample_profile("poor", 1, Rng(2))
    out = degrade_page(PAGE[:, :, 0].copy(), prof.pages[0], 2, 100)
    assert out.image.ndim == 2 and out.image.shape == PAGE.shape[:2]
