"""Every registered stage follows the one protocol: sampled params, a pure apply, replay from the record,
and (geometric stages) a planned transform that the pixels and the boxes share."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.degradations import (
    GEOMETRIC_STAGES,
    STAGES,
    GeometricStage,
    ResolutionStage,
    Stage,
    degrade_page,
    get_stage,
    resolve_params,
    sample_stage,
)
from synthdocqa.degradations.devices import stage_table
from synthdocqa.ir.perturbation import PageDegradation, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import DEVICES, STAGE_NAMES, TIERS

from .pages import check_markers, marker_grid, marker_page, text_page

PAGE = text_page(2)
DPI = 100


def _record(name: str, seed: int = 0) -> StageParams:
    return sample_stage("poor", name, Rng(seed, ("test", "protocol", name)), force=True)


def _alone(record: StageParams) -> PageDegradation:
    return PageDegradation(page_no=1, seed_path=["test", "protocol"], stages=[record])


def test_registry_is_the_vocabulary_in_physical_order():
    assert tuple(STAGES) == STAGE_NAMES
    assert all(isinstance(s, Stage) and s.name == n for n, s in STAGES.items())
    assert GEOMETRIC_STAGES == {n for n, s in STAGES.items() if isinstance(s, GeometricStage)} == {
        "page_frame", "fold_shift", "skew", "warp", "placement"}
    order = list(STAGES.values())
    assert [i for i, s in enumerate(order) if s.changes_resolution] == [0]  # every stage at the sensor's dpi
    assert isinstance(order[0], ResolutionStage)
    with pytest.raises(ValueError, match="unknown stage 'sepia'"):
        get_stage("sepia")


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_sampling_follows_the_device_tables(name):
    stage = STAGES[name]
    for device in DEVICES:
        for tier in TIERS:
            entry = stage_table(device, tier)[name]
            a = stage.sample(entry, Rng(4, ("test", tier, name)))
            assert a == stage.sample(entry, Rng(4, ("test", tier, name)))  # deterministic
            assert a.name == name and bool(a.params) == a.enabled
            if a.enabled:
                assert list(a.params) == list(entry["params"])
    off = stage.sample({"p": 0.0, "params": {"x": [0.0, 1.0]}}, Rng(0))
    assert not off.enabled and off.params == {}


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_disabled_stage_is_the_identity_in_the_pipeline(name):
    record = _record(name).model_copy(update={"enabled": False})
    page = PAGE.copy()
    out = degrade_page(page, _alone(record), 5, DPI)
    assert np.array_equal(out.image, PAGE) and out.transforms == []
    assert out.image is not page and np.array_equal(page, PAGE)


@pytest.mark.parametrize("name", STAGE_NAMES)
def test_replay_of_the_recorded_params_reproduces_the_output(name):
    """The record survives JSON, and applying it (the stage alone, or the pipeline on a page that holds
    only it) gives the same bytes: the pipeline drives every stage through the same protocol."""
    stage = STAGES[name]
    record = _record(name)
    replayed = StageParams.model_validate_json(record.model_dump_json())
    assert replayed == record
    stream = Rng(5, ("test", "protocol")).fork("stage", name)
    params = resolve_params(replayed.params, DPI)
    a = stage.apply(PAGE, resolve_params(record.params, DPI), stream)
    b = stage.apply(PAGE, params, Rng(5, ("test", "protocol")).fork("stage", name))
    assert a.dtype == np.uint8 and a.shape == PAGE.shape
    assert np.array_equal(a, b)
    piped = degrade_page(PAGE, _alone(replayed), 5, DPI)
    assert np.array_equal(piped.image, a)
    image, transform = stage.run(PAGE, params, Rng(5, ("test", "protocol")).fork("stage", name))
    assert np.array_equal(image, a)
    assert [t.to_dict() for t in piped.transforms] == ([transform.to_dict()] if transform is not None else [])
    if not stage.geometric:
        assert transform is None


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("name", sorted(GEOMETRIC_STAGES))
def test_geometric_stage_plan_maps_marker_boxes_onto_the_drawn_markers(name, seed):
    w, h = 850, 1100  # Letter at 100 dpi
    stage = STAGES[name]
    assert isinstance(stage, GeometricStage)
    boxes = marker_grid(w, h)
    img = marker_page(w, h, boxes)
    params = resolve_params(_record(name, seed).params, DPI)
    plan = stage.plan(w, h, params, Rng(seed).fork("stage", name))
    out, transform = stage.run(img, params, Rng(seed).fork("stage", name))
    assert transform is not None and plan.transform is not None
    assert transform.to_dict() == plan.transform.to_dict()  # the pixels went through the planned map
    check_markers(out, boxes, [plan.transform])
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2.0
    moved = 0.4 if name == "fold_shift" else 3.0  # a crease shifts content by a pixel or two
    assert np.abs(plan.transform.map_points(centres) - centres).max() > moved  # it really moved them
