"""The registry of the 15 scan stages, in physical order (the order of ``ir.vocab.STAGE_NAMES``).

Every entry follows one protocol (``protocol.Stage``): ``sample`` from the tier table, a pure
``apply(image, params, rng)``, ``plan`` for the geometric ones, ``enter``/``leave`` for the one that
changes the working resolution.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from ir.vocab import STAGE_NAMES, StageName

from . import capture, geometric, surface
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
    PixelStage("paper", surface.paper),
    PixelStage("ink_bleed", surface.ink_bleed),
    PixelStage("toner_fade", surface.toner_fade),
    PixelStage("halftone", surface.halftone),
    PixelStage("bleed_through", surface.bleed_through),
    PixelStage("stains", surface.stains),
    PixelStage("fold", surface.fold),
    GeometricStage("skew", geometric.plan_skew),
    GeometricStage("warp", geometric.plan_warp),
    PixelStage("lighting", capture.lighting),
    PixelStage("blur", capture.blur),
    PixelStage("noise", capture.noise),
    ResolutionStage("resample", capture.resample_down, capture.resample_up),
    PixelStage("contrast", capture.contrast),
    PixelStage("jpeg", capture.jpeg),
)


def _check(registry: tuple[Stage, ...]) -> None:
    """The registry is the vocabulary, in order; no geometric stage runs at a changed resolution
    (boxes map through the geometric stages at page size only)."""
    names = tuple(s.name for s in registry)
    if names != STAGE_NAMES:
        raise RuntimeError(f"stage registry {names} differs from ir.vocab.STAGE_NAMES {STAGE_NAMES}")
    first = next((i for i, s in enumerate(registry) if s.changes_resolution), len(registry))
    if any(s.geometric for s in registry[first:]):
        raise RuntimeError("a geometric stage comes after a stage that changes the working resolution")


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
