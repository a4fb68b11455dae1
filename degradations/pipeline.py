"""Applying a page's sampled stages, in physical order, and carrying the geometric transforms along."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ir.document import PageDegradation, StageParams
from ir.rng import Rng

from .geometry import Transform, map_box, map_boxes
from .stages import STAGE_ORDER, STAGES
from .stages.capture import resample_down, resample_up
from .stages.geometric import PLANNERS, render
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
    """One stage; a disabled stage is the identity (a copy of the input, no transform)."""
    if stage.name not in STAGES:
        raise ValueError(f"unknown stage {stage.name!r}; expected one of {', '.join(STAGE_ORDER)}")
    if not stage.enabled:
        return image.copy(), None
    try:
        return STAGES[stage.name](image, resolve_params(stage.params, dpi), rng)
    except KeyError as err:
        raise ValueError(f"stage {stage.name!r}: missing parameter {err.args[0]!r}") from None


def degrade_page(image: np.ndarray, page: PageDegradation, seed: int, dpi: int) -> DegradedPage:
    """Apply ``page``'s stages in physical order with the streams ``Rng(seed, page.seed_path).fork("stage", s)``.

    Adjacent geometric stages (skew, warp) are planned separately and resampled as one map; the
    stages after ``resample`` run at the scanner's low resolution (output size = input size, and no
    geometric stage comes after resample, so boxes map through skew and warp only).
    """
    check_image(image)
    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    by_name: dict[str, StageParams] = {}
    for s in page.stages:
        if s.name not in STAGES:
            raise ValueError(f"page {page.page_no}: unknown stage {s.name!r}")
        if s.name in by_name:
            raise ValueError(f"page {page.page_no}: stage {s.name!r} listed twice")
        by_name[s.name] = s
    rng = Rng(seed, page.seed_path)
    out = np.ascontiguousarray(image)
    transforms: list[Transform] = []
    enabled = [n for n in STAGE_ORDER if n in by_name and by_name[n].enabled]
    full_size: tuple[int, int] | None = None  # set while running below the page size (after resample)
    resample_params: dict[str, Any] = {}
    i = 0
    while i < len(enabled):
        name = enabled[i]
        if name == "resample":
            # the scanner's native resolution: the stages after resample (contrast, jpeg; none is
            # geometric) run on the low-resolution image, which is brought back to the page size last
            params = resolve_params(by_name[name].params, dpi)
            full_size = (out.shape[1], out.shape[0])
            try:
                out = resample_down(out, params)
            except KeyError as err:
                raise ValueError(f"stage 'resample': missing parameter {err.args[0]!r}") from None
            resample_params = params
            i += 1
            continue
        if name not in PLANNERS:
            out, t = apply_stage(out, by_name[name], rng.fork("stage", name), dpi)
            if t is not None:
                transforms.append(t)
            i += 1
            continue
        # adjacent geometric stages: plan each with its own stream, resample once
        h, w = out.shape[:2]
        planned: list[Transform] = []
        border = None
        while i < len(enabled) and enabled[i] in PLANNERS:
            gname = enabled[i]
            try:
                t, b = PLANNERS[gname](w, h, resolve_params(by_name[gname].params, dpi), rng.fork("stage", gname))
            except KeyError as err:
                raise ValueError(f"stage {gname!r}: missing parameter {err.args[0]!r}") from None
            border = b if border is None else border
            if t is not None:
                planned.append(t)
            i += 1
        out = render(out, planned, border if border is not None else 1.0)
        transforms.extend(planned)
    if full_size is not None:
        out = resample_up(out, full_size[0], full_size[1], resample_params)
    if out is image:  # nothing enabled (pristine): never hand back the caller's own array
        out = image.copy()
    return DegradedPage(image=out, transforms=transforms)
