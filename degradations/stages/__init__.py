"""The registry of the scan stages, in physical order (the order of ``ir.vocab.STAGE_NAMES``).

Every entry follows one protocol (``protocol.Stage``): ``sample`` from a device table, a pure
``apply(image, params, rng)``, ``plan`` for the geometric ones, ``enter``/``leave`` for the one that
changes the working resolution.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from synthdocqa.ir.vocab import OCCLUDING_STAGES, STAGE_NAMES, StageName

from . import capture, geometric, output, sensor, sheet_marks, surface, transport
from .protocol import (
    GeometricStage,
    PixelStage,
    Plan,
    ResolutionStage,
    Stage,
    draw_param,
    reading_params,
    render,
)

_REGISTRY: tuple[Stage, ...] = (
    ResolutionStage("resample", capture.resample_down, capture.resample_up),
    PixelStage("paper", surface.paper),
    PixelStage("watermark", sheet_marks.watermark),
    PixelStage("ink_bleed", surface.ink_bleed),
    PixelStage("toner_fade", surface.toner_fade),
    PixelStage("halftone", surface.halftone),
    PixelStage("markup", sheet_marks.markup),
    PixelStage("binding_marks", sheet_marks.binding_marks),
    PixelStage("bleed_through", surface.bleed_through),
    PixelStage("stains", surface.stains),
    PixelStage("fold", surface.fold),
    PixelStage("double_feed", transport.double_feed),
    GeometricStage("page_frame", geometric.plan_page_frame),
    GeometricStage("fold_shift", geometric.plan_fold_shift),
    GeometricStage("skew", geometric.plan_skew),
    GeometricStage("warp", geometric.plan_warp),
    GeometricStage("placement", geometric.plan_placement),
    PixelStage("scanner_lines", sensor.scanner_lines),
    PixelStage("roller_marks", transport.roller_marks),
    PixelStage("lighting", capture.lighting),
    PixelStage("glare", capture.glare),
    PixelStage("moire", sensor.moire),
    PixelStage("blur", capture.blur),
    PixelStage("noise", capture.noise),
    PixelStage("colour_shift", sensor.colour_shift),
    PixelStage("contrast", capture.contrast),
    PixelStage("dither", output.dither),
    PixelStage("fax_header", output.fax_header),
    PixelStage("line_errors", output.line_errors),
    PixelStage("jpeg", capture.jpeg),
)


def _check(registry: tuple[Stage, ...]) -> None:
    """The registry is the vocabulary, in order; the resolution stage comes first (every stage runs at
    the working resolution, geometric ones included: the pipeline frames their transforms in page
    pixels); occluding stages come before the geometric ones."""
    names = tuple(s.name for s in registry)
    if names != STAGE_NAMES:
        raise RuntimeError(f"stage registry {names} differs from ir.vocab.STAGE_NAMES {STAGE_NAMES}")
    if [i for i, s in enumerate(registry) if s.changes_resolution] not in ([], [0]):
        raise RuntimeError("the stage that changes the working resolution must come first (all run there)")
    first_geometric = next(i for i, s in enumerate(registry) if s.geometric)
    if any(s.name in OCCLUDING_STAGES for s in registry[first_geometric:]):
        raise RuntimeError("an occluding stage comes after a geometric one (its mask must be in page pixels)")


_check(_REGISTRY)

STAGES: Mapping[StageName, Stage] = MappingProxyType({s.name: s for s in _REGISTRY})
GEOMETRIC_STAGES: frozenset[StageName] = frozenset(s.name for s in _REGISTRY if s.geometric)


def get_stage(name: str) -> Stage:
    """The registered stage ``name``; an unknown name is an error that lists the valid ones."""
    try:
        return STAGES[name]  # type: ignore[index]
    except KeyError:
        raise ValueError(f"unknown stage {name!r}; expected one of {', '.join(STAGE_NAMES)}") from None


__all__ = [
    "GEOMETRIC_STAGES", "STAGES", "GeometricStage", "PixelStage", "Plan", "ResolutionStage", "Stage",
    "draw_param", "get_stage", "reading_params", "render",
]
