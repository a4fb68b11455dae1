"""Each stage: deterministic for a given rng, an identity when off, and really changes the page when on."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.degradations import apply_stage, sample_stage
from synthdocqa.degradations.devices import stage_table
from synthdocqa.degradations.tiers import TIER_TABLE
from synthdocqa.ir.perturbation import StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, STAGE_NAMES, TIERS

from .pages import text_page

PAGE = text_page(0)


def _poor(name: str, seed: int = 0) -> StageParams:
    return sample_stage("poor", name, Rng(seed, ("test", name)), force=True)


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_stage_is_deterministic_for_a_given_rng(name):
    stage = _poor(name)
    a, ta = apply_stage(PAGE, stage, Rng(7, ("s",)).fork("stage", name), dpi=100)
    b, tb = apply_stage(PAGE, stage, Rng(7, ("s",)).fork("stage", name), dpi=100)
    assert a.dtype == np.uint8 and a.shape == PAGE.shape
    assert np.array_equal(a, b)
    assert (ta is None) == (tb is None)
    if ta is not None:
        assert ta.to_dict() == tb.to_dict()


LOCAL = {"fax_header": 0.0005, "line_errors": 0.0001}
"""Stages that touch one strip of the page: a header line of small text, a few scan lines."""


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_stage_changes_the_page_when_on(name):
    out, _ = apply_stage(PAGE, _poor(name), Rng(7).fork("stage", name), dpi=100)
    changed = np.mean(np.any(out != PAGE, axis=2))
    assert changed > LOCAL.get(name, 0.001), f"{name} changed only {changed:.4%} of pixels"


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_stage_is_identity_when_off(name):
    stage = _poor(name).model_copy(update={"enabled": False})
    page = PAGE.copy()
    out, t = apply_stage(page, stage, Rng(7).fork("stage", name), dpi=100)
    assert t is None
    assert np.array_equal(out, PAGE)
    assert np.array_equal(page, PAGE)  # the input is not modified either


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_stage_leaves_its_input_untouched_and_accepts_grey(name):
    page = PAGE.copy()
    apply_stage(page, _poor(name), Rng(3).fork("stage", name), dpi=100)
    assert np.array_equal(page, PAGE)
    grey = PAGE[:, :, 1].copy()
    out, _ = apply_stage(grey, _poor(name), Rng(3).fork("stage", name), dpi=100)
    assert out.shape == grey.shape and out.dtype == np.uint8


def test_stochastic_stages_depend_on_the_stream():
    for name in ("paper", "stains", "noise", "toner_fade"):
        a, _ = apply_stage(PAGE, _poor(name), Rng(1).fork("stage", name), dpi=100)
        b, _ = apply_stage(PAGE, _poor(name), Rng(2).fork("stage", name), dpi=100)
        assert not np.array_equal(a, b), name


def test_px_params_scale_with_dpi():
    stage = StageParams(name="blur", enabled=True, params={"sigma_px": 2.0, "motion_px": 0.0})
    lo, _ = apply_stage(PAGE, stage, Rng(0), dpi=100)  # sigma 1 px at 100 dpi
    hi, _ = apply_stage(PAGE, stage, Rng(0), dpi=400)  # sigma 4 px
    assert np.abs(hi.astype(int) - PAGE).mean() > np.abs(lo.astype(int) - PAGE).mean()


def test_unknown_stage_and_missing_param_are_clear_errors():
    with pytest.raises(ValueError, match="unknown stage 'sepia'"):
        StageParams(name="sepia", enabled=True)
    with pytest.raises(ValueError, match="unknown stage 'sepia'"):
        apply_stage(PAGE, StageParams.model_construct(name="sepia", enabled=True), Rng(0), dpi=100)
    with pytest.raises(ValueError, match="stage 'blur': missing parameter 'motion_px'"):
        apply_stage(PAGE, StageParams(name="blur", enabled=True, params={"sigma_px": 1.0}), Rng(0), dpi=100)


def test_device_tables_cover_every_stage_and_tier():
    assert tuple(TIER_TABLE) == TIERS
    for device in DEVICES:
        for tier in TIERS:
            table = stage_table(device, tier)
            assert tuple(table) == STAGE_NAMES, (device, tier)
            for name, entry in table.items():
                assert 0.0 <= entry["p"] <= 1.0, (device, tier, name)
                assert not entry["p"] or entry["params"], (device, tier, name)  # an enabled stage has params
        assert all(e["p"] == 0.0 for e in stage_table(device, "pristine").values())
        # harder tiers switch on at least as many stages on average
        expected = [sum(e["p"] for e in stage_table(device, t).values()) for t in TIERS]
        assert expected == sorted(expected), device
    with pytest.raises(ValueError, match="unknown device 'scanner'"):
        stage_table("scanner", "good")
    with pytest.raises(ValueError, match="unknown tier 'bad'"):
        stage_table("fax", "bad")
