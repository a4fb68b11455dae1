"""The 15 scan stages in physical order; each is ``(image, params, rng) -> (image, transform | None)``."""

from __future__ import annotations

from collections.abc import Callable

from .capture import blur, contrast, jpeg, lighting, noise, resample
from .geometric import skew, warp
from .surface import bleed_through, fold, halftone, ink_bleed, paper, stains, toner_fade

STAGES: dict[str, Callable] = {
    "paper": paper,
    "ink_bleed": ink_bleed,
    "toner_fade": toner_fade,
    "halftone": halftone,
    "bleed_through": bleed_through,
    "stains": stains,
    "fold": fold,
    "skew": skew,
    "warp": warp,
    "lighting": lighting,
    "blur": blur,
    "noise": noise,
    "resample": resample,
    "contrast": contrast,
    "jpeg": jpeg,
}

STAGE_ORDER: tuple[str, ...] = tuple(STAGES)
GEOMETRIC_STAGES: frozenset[str] = frozenset({"skew", "warp"})

__all__ = ["GEOMETRIC_STAGES", "STAGES", "STAGE_ORDER"]
