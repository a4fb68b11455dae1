"""Applying a page's sampled stages, in physical order, and carrying the geometric transforms along."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir.document import PageDegradation, StageParams
from ir.rng import Rng

from .geometry import Transform, map_box, map_boxes
from .stages import STAGES, GeometricStage, Plan, ResolutionStage, Stage, get_stage, reading_params, render
from .tiers import REFERENCE_DPI


@dataclass
class DegradedPage:
    """The scan image and the transforms that moved content (input pixels -> output pixels)."""

    image: np.ndarray
    transforms: list[Transform] = field(default_factory=list)

    def map_box(self, bbox_px: Sequence[float], clip: bool = False) -> tuple[list[list[float]], list[float]]:
        return map_box(bbox_px, self.transforms, self._clip(clip))

    def map_boxes(self, bboxes_px: Any, clip: bool = False) -> tuple[np.ndarray, np.ndarray]:
        return map_boxes(bboxes_px, self.transforms, self._clip(clip))

    def _clip(self, clip: bool) -> tuple[int, int] | None:
        return (self.image.shape[1], self.image.shape[0]) if clip else None


def resolve_params(params: Mapping[str, Any], dpi: int) -> dict[str, Any]:
    """Table units -> image units: ``*_px`` lengths are at ``REFERENCE_DPI`` and scale with dpi."""
    k = dpi / REFERENCE_DPI
    return {n: (float(v) * k if n.endswith("_px") else v) for n, v in params.items()}


def check_image(image: np.ndarray) -> None:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        raise ValueError("image must be a uint8 numpy array")
    if not (image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 3)):
        raise ValueError(f"image must be (H, W) grey or (H, W, 3) RGB, got shape {image.shape}")
    if image.shape[0] < 8 or image.shape[1] < 8:
        raise ValueError(f"image too small: {image.shape}")


def apply_stage(
    image: np.ndarray, stage: StageParams, rng: Rng, dpi: int
) -> tuple[np.ndarray, Transform | None]:
    """One stage on its own; a disabled stage is the identity (a copy of the input, no transform)."""
    impl = get_stage(stage.name)
    if not stage.enabled:
        return image.copy(), None
    with reading_params(stage.name):
        return impl.run(image, resolve_params(stage.params, dpi), rng)


def _enabled_stages(page: PageDegradation) -> list[tuple[Stage, StageParams]]:
    """The page's enabled stages in registry (physical) order, whatever order the record lists them in."""
    by_name: dict[str, StageParams] = {}
    for s in page.stages:
        if s.name not in STAGES:
            raise ValueError(f"page {page.page_no}: unknown stage {s.name!r}")
        if s.name in by_name:
            raise ValueError(f"page {page.page_no}: stage {s.name!r} listed twice")
        by_name[s.name] = s
    return [(stage, by_name[name]) for name, stage in STAGES.items() if name in by_name and by_name[name].enabled]


def degrade_page(image: np.ndarray, page: PageDegradation, seed: int, dpi: int) -> DegradedPage:
    """Apply ``page``'s stages in physical order with the streams ``Rng(seed, page.seed_path).fork("stage", s)``.

    Adjacent geometric stages (skew, warp) are planned separately, each with its own stream, and
    rendered as one resampling. A stage that changes the working resolution (resample) ``enter``s it
    where it sits; the stages after it run there, and its ``leave`` restores the page size last
    (output size = input size; no geometric stage follows, so boxes map through skew and warp only).
    """
    check_image(image)
    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    rng = Rng(seed, page.seed_path)
    out = np.ascontiguousarray(image)
    transforms: list[Transform] = []
    plans: list[Plan] = []  # the pending run of adjacent geometric stages
    entered: list[tuple[ResolutionStage, int, int, Mapping[str, Any]]] = []  # (stage, width, height, params)
    for stage, record in _enabled_stages(page):
        params = resolve_params(record.params, dpi)
        with reading_params(stage.name):
            if isinstance(stage, GeometricStage):
                h, w = out.shape[:2]
                plans.append(stage.plan(w, h, params, rng.fork("stage", stage.name)))
                continue
            if plans:
                out, moved = render(out, plans)
                transforms.extend(moved)
                plans = []
            if isinstance(stage, ResolutionStage):
                h, w = out.shape[:2]
                entered.append((stage, w, h, params))
                out = stage.enter(out, params)
            else:
                out = stage.apply(out, params, rng.fork("stage", stage.name))
    if plans:
        out, moved = render(out, plans)
        transforms.extend(moved)
    for res, w, h, params in reversed(entered):
        with reading_params(res.name):
            out = res.leave(out, w, h, params)
    if out is image:  # nothing enabled (pristine): never hand back the caller's own array
        out = image.copy()
    return DegradedPage(image=out, transforms=transforms)
