"""Applying a page's sampled stages, in physical order, and carrying the geometric transforms along."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import cv2
import numpy as np

from synthdocqa.ir.perturbation import PageDegradation, StageParams
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import OCCLUDING_STAGES, OVERDRAWING_STAGES

from .geometry import Homography, Transform, map_box, map_boxes
from .stages import STAGES, GeometricStage, Plan, ResolutionStage, Stage, get_stage, reading_params, render
from .tiers import REFERENCE_DPI

OCCLUSION_LEVEL = 48
"""Grey levels a mark must change a pixel by to count as covering it."""
OCCLUSION_SHARE = 0.01
"""Share of a box's pixels a mark must cover for the box to count as occluded by it."""


@dataclass
class DegradedPage:
    """The scan image, the transforms that moved content (input pixels -> output pixels), and where each
    occluding stage (``ir.vocab.OCCLUDING_STAGES``) drew: a mask of the pixels it changed, in the page's
    frame (those stages run before any geometric one) at the working resolution."""

    image: np.ndarray
    transforms: list[Transform] = field(default_factory=list)
    occlusion: dict[str, np.ndarray] = field(default_factory=dict)
    overdrawn: dict[str, np.ndarray] = field(default_factory=dict)
    """Where each overdrawing stage (``ir.vocab.OVERDRAWING_STAGES``: a fax header, lost lines) drew: a mask
    of the pixels it changed, in the scan's own frame (after every geometric stage) at the working resolution."""

    def occluded_by(self, bbox_page_px: Sequence[float]) -> list[str]:
        """The occluding stages whose marks cover at least ``OCCLUSION_SHARE`` of a page-pixel box."""
        return self.occlusion_lookup()(bbox_page_px)

    def occlusion_lookup(self) -> Callable[[Sequence[float]], list[str]]:
        """``occluded_by`` without the scan image: what a caller keeps for a page while the image goes."""
        return partial(_occluded_by, self.occlusion, self.image.shape[:2])

    def overdrawn_lookup(self) -> Callable[[Sequence[float]], list[str]]:
        """The overdrawing stages whose marks cover at least ``OCCLUSION_SHARE`` of a box on the scan (scan
        pixels: a mapped box), without the scan image."""
        return partial(_occluded_by, self.overdrawn, self.image.shape[:2])

    def map_box(self, bbox_px: Sequence[float], clip: bool = False) -> tuple[list[list[float]], list[float]]:
        return map_box(bbox_px, self.transforms, self._clip(clip))

    def map_boxes(self, bboxes_px: Any, clip: bool = False) -> tuple[np.ndarray, np.ndarray]:
        return map_boxes(bboxes_px, self.transforms, self._clip(clip))

    def _clip(self, clip: bool) -> tuple[int, int] | None:
        return (self.image.shape[1], self.image.shape[0]) if clip else None


def resolve_params(params: Mapping[str, Any], dpi: float) -> dict[str, Any]:
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

    The first stage, resample, sets the working resolution (the sensor's dpi: ``enter``); every stage
    after it runs there, its ``*_px`` lengths scaled to it (2-6x fewer pixels than the page), and its
    ``leave`` restores the page size last (output size = input size). Adjacent geometric stages
    (page_frame, fold_shift, skew, warp) are planned separately at the working size, each with its own
    stream, and rendered as one resampling; their transforms are recorded as maps of page pixels
    (framed by the working scale), so boxes map from the page image to the scan.
    """
    check_image(image)
    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi}")
    rng = Rng(seed, page.seed_path)
    out = np.ascontiguousarray(image)
    transforms: list[Transform] = []
    plans: list[Plan] = []  # the pending run of adjacent geometric stages
    entered: list[tuple[ResolutionStage, int, int, Mapping[str, Any]]] = []  # (stage, width, height, params)
    occlusion: dict[str, np.ndarray] = {}
    overdrawn: dict[str, np.ndarray] = {}
    work_dpi = float(dpi)  # the working resolution: the stages after resample see their px lengths there
    page_h, page_w = image.shape[:2]
    for stage, record in _enabled_stages(page):
        params = resolve_params(record.params, work_dpi)
        with reading_params(stage.name):
            if isinstance(stage, GeometricStage):
                h, w = out.shape[:2]
                plans.append(stage.plan(w, h, params, rng.fork("stage", stage.name)))
                continue
            if plans:
                out, moved = render(out, plans)
                transforms.extend(_in_page_frame(moved, out.shape, page_w, page_h))
                plans = []
            if isinstance(stage, ResolutionStage):
                h, w = out.shape[:2]
                entered.append((stage, w, h, params))
                out = stage.enter(out, params)
                work_dpi *= out.shape[1] / w
            else:
                before = out
                out = stage.apply(out, params, rng.fork("stage", stage.name))
                if stage.name in OCCLUDING_STAGES:
                    occlusion[stage.name] = _changed(before, out)
                elif stage.name in OVERDRAWING_STAGES:
                    overdrawn[stage.name] = _changed(before, out)
    if plans:
        out, moved = render(out, plans)
        transforms.extend(_in_page_frame(moved, out.shape, page_w, page_h))
    for res, w, h, params in reversed(entered):
        with reading_params(res.name):
            out = res.leave(out, w, h, params)
    if out.ndim == 2 and image.ndim == 3:  # a monochrome sensor (resample ``grey``): the page's channels back
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2RGB)
    if out is image:  # nothing enabled (pristine): never hand back the caller's own array
        out = image.copy()
    return DegradedPage(image=out, transforms=transforms, occlusion=occlusion, overdrawn=overdrawn)


def _in_page_frame(moved: list[Transform], shape: tuple[int, ...], page_w: int, page_h: int) -> list[Transform]:
    """Transforms planned at the working resolution, as maps of page pixels: scale to the working
    frame, the transforms, scale back (``cv2.resize`` maps continuous coordinates linearly, so the
    frame change is exact)."""
    h, w = shape[:2]
    if not moved or (w, h) == (page_w, page_h):
        return moved
    sx, sy = w / page_w, h / page_h
    return [Homography(np.diag([sx, sy, 1.0])), *moved, Homography(np.diag([1.0 / sx, 1.0 / sy, 1.0]))]


def _occluded_by(occlusion: Mapping[str, np.ndarray], page_shape: tuple[int, ...], bbox_page_px: Sequence[float],
                 ) -> list[str]:
    out = []
    ph, pw = page_shape[:2]
    for name, mask in occlusion.items():
        h, w = mask.shape  # the working resolution of the stage, a linear scale of the page's
        sx, sy = w / pw, h / ph
        x0, y0 = max(int(np.floor(bbox_page_px[0] * sx)), 0), max(int(np.floor(bbox_page_px[1] * sy)), 0)
        x1, y1 = min(int(np.ceil(bbox_page_px[2] * sx)), w), min(int(np.ceil(bbox_page_px[3] * sy)), h)
        if x1 > x0 and y1 > y0 and np.count_nonzero(mask[y0:y1, x0:x1]) >= OCCLUSION_SHARE * (x1 - x0) * (y1 - y0):
            out.append(name)
    return out


def _changed(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    """uint8 mask (0/1) of the pixels a stage changed by more than ``OCCLUSION_LEVEL`` in any channel.

    In colour the channels are thresholded first (0/255 each) and then merged by the luma conversion, which is
    above 0 exactly where any channel is 255 (its smallest weight, 0.114, still gives 29): two whole-image
    passes where a per-channel maximum needs strided copies of each channel."""
    diff = cv2.absdiff(before, after)
    if diff.ndim == 3:
        _, diff = cv2.threshold(diff, OCCLUSION_LEVEL, 255, cv2.THRESH_BINARY)
        diff = cv2.cvtColor(diff, cv2.COLOR_RGB2GRAY)
        return cv2.threshold(diff, 0, 1, cv2.THRESH_BINARY)[1]
    return cv2.threshold(diff, OCCLUSION_LEVEL, 1, cv2.THRESH_BINARY)[1]
