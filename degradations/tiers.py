"""The five scan tiers as one data table (the base of every device's recipe, ``devices.py``): per stage, the probability it is on and its parameter ranges.

How to read a stage entry: ``"p"`` is the probability the stage is enabled on a page; ``"params"``
maps a parameter name to its distribution:

* ``[lo, hi]``               float, uniform in [lo, hi]
* ``{"int": [lo, hi]}``      integer, uniform in [lo, hi] (both inclusive)
* ``{"choice": [a, b, ...]}`` one of the values, uniform
* ``{"p": x}``               boolean, True with probability x
* a plain value              constant

Units are relative so sampling needs no image: fractions of the page width/height, degrees, grey
levels (0-255), and ``*_px`` lengths in pixels at ``REFERENCE_DPI`` (the pipeline rescales them to the
image's dpi). Tier and stage names come from ``ir.vocab`` (``TIERS``, ``STAGE_NAMES``). Tiers are
ordered by how hard the page is to read (Tesseract CER rises strictly from pristine to poor;
measured in ``benchmarks/ocr_calibration.py``, recorded in docs/benchmarks.md).
"""

from __future__ import annotations

from typing import Any

from synthdocqa.ir.vocab import DEFAULT_DEVICE, Tier

BASE_STAGES: tuple[str, ...] = ("paper", "ink_bleed", "toner_fade", "halftone", "bleed_through", "stains", "fold",
                                "skew", "warp", "lighting", "blur", "noise", "resample", "contrast", "jpeg")
"""The stages of the base table (the flatbed's; ``devices.py`` adds the rest and each device's recipe)."""

REFERENCE_DPI = 200

# Final scan file per tier: PNG (lossless) for pristine, else JPEG at the given quality. That file is the scan's
# one JPEG generation (a scanner or a phone writes its capture once): the in-pipeline ``jpeg`` stage, a second
# compression at the sensor's resolution before the file's, is off (p 0) in every tier and device; its quality
# ranges stay for a table that switches it on.
SCAN_FORMAT: dict[str, dict[str, Any]] = {
    "pristine": {"format": "png"},
    "good": {"format": "jpeg", "quality": 90},
    "fair": {"format": "jpeg", "quality": 85},
    "degraded": {"format": "jpeg", "quality": 75},
    "poor": {"format": "jpeg", "quality": 60},
}

_OFF: dict[str, Any] = {"p": 0.0, "params": {}}

TIER_TABLE: dict[str, dict[str, dict[str, Any]]] = {
    "pristine": {name: _OFF for name in BASE_STAGES},
    "good": {
        "paper": {"p": 1.0, "params": {"tint_r": [0.98, 1.0], "tint_g": [0.97, 0.995], "tint_b": [0.95, 0.985],
                                       "fibre": [0.005, 0.02], "blotch": [0.0, 0.015], "fibre_px": [1.5, 3.0]}},
        "ink_bleed": {"p": 0.2, "params": {"radius_px": [0.5, 0.8], "strength": [0.1, 0.3]}},
        "toner_fade": {"p": 0.2, "params": {"fade": [0.0, 0.08], "dropout": [0.0, 0.05], "dropout_px": [20, 60],
                                            "streaks": {"int": [0, 1]}, "streak_strength": [0.05, 0.15],
                                            "streak_px": [2, 8]}},
        "halftone": _OFF,
        "bleed_through": {"p": 0.2, "params": {"alpha": [0.02, 0.05], "sigma_px": [1.5, 3.0],
                                               "shift_x": [-0.005, 0.005], "shift_y": [-0.005, 0.005]}},
        "stains": {"p": 0.1, "params": {"n_stains": {"int": [1, 1]}, "size": [0.03, 0.06], "opacity": [0.03, 0.08],
                                        "ring": {"p": 0.3}, "colour": {"choice": ["coffee", "dirt", "yellow"]},
                                        "speckle": [0.0, 0.00002], "speckle_px": [1.0, 1.5]}},
        "fold": _OFF,
        "skew": {"p": 1.0, "params": {"angle_deg": [-0.4, 0.4], "shift_x": [-0.003, 0.003],
                                      "shift_y": [-0.003, 0.003], "border": [0.97, 1.0]}},
        "warp": _OFF,
        "lighting": {"p": 0.5, "params": {"gradient": [0.0, 0.04], "angle_deg": [0.0, 360.0], "vignette": [0.0, 0.03],
                                          "shadow": [0.0, 0.0], "shadow_width": [0.02, 0.04],
                                          "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
        "blur": {"p": 1.0, "params": {"sigma_px": [0.65, 0.8], "motion_px": [0.0, 0.0]}},
        "noise": {"p": 1.0, "params": {"sigma": [2.5, 4.0], "salt_pepper": [0.0, 0.0]}},
        "resample": {"p": 1.0, "params": {"scale": [0.78, 0.82], "mode": {"choice": ["area"]}}},
        "contrast": {"p": 0.3, "params": {"gamma": [0.95, 1.05], "gain": [0.97, 1.05], "bias": [-4.0, 4.0],
                                          "binarize": False, "threshold": [128, 128]}},
        "jpeg": {"p": 0.0, "params": {"quality": {"int": [80, 88]}}},
    },
    "fair": {
        "paper": {"p": 1.0, "params": {"tint_r": [0.95, 1.0], "tint_g": [0.94, 0.99], "tint_b": [0.9, 0.97],
                                       "fibre": [0.01, 0.03], "blotch": [0.005, 0.03], "fibre_px": [1.5, 3.0]}},
        "ink_bleed": {"p": 0.4, "params": {"radius_px": [0.6, 1.0], "strength": [0.2, 0.4]}},
        "toner_fade": {"p": 0.5, "params": {"fade": [0.04, 0.12], "dropout": [0.03, 0.1], "dropout_px": [20, 70],
                                            "streaks": {"int": [0, 2]}, "streak_strength": [0.1, 0.25],
                                            "streak_px": [2, 12]}},
        "halftone": {"p": 0.1, "params": {"period_px": [2.0, 3.0], "strength": [0.2, 0.4]}},
        "bleed_through": {"p": 0.4, "params": {"alpha": [0.03, 0.08], "sigma_px": [1.5, 3.0],
                                               "shift_x": [-0.008, 0.008], "shift_y": [-0.008, 0.008]}},
        "stains": {"p": 0.3, "params": {"n_stains": {"int": [1, 2]}, "size": [0.03, 0.08], "opacity": [0.05, 0.12],
                                        "ring": {"p": 0.4}, "colour": {"choice": ["coffee", "dirt", "yellow"]},
                                        "speckle": [0.00001, 0.00006], "speckle_px": [1.0, 2.0]}},
        "fold": {"p": 0.2, "params": {"n_folds": {"int": [1, 1]}, "darkness": [0.04, 0.1], "width_px": [2.0, 5.0],
                                      "orientation": {"choice": ["h", "v"]}}},
        "skew": {"p": 1.0, "params": {"angle_deg": [-1.2, 1.2], "shift_x": [-0.006, 0.006],
                                      "shift_y": [-0.006, 0.006], "border": [0.93, 1.0]}},
        "warp": _OFF,
        "lighting": {"p": 0.7, "params": {"gradient": [0.02, 0.08], "angle_deg": [0.0, 360.0], "vignette": [0.0, 0.06],
                                          "shadow": [0.0, 0.15], "shadow_width": [0.02, 0.05],
                                          "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
        "blur": {"p": 1.0, "params": {"sigma_px": [0.7, 0.8], "motion_px": [0.0, 0.5]}},
        "noise": {"p": 1.0, "params": {"sigma": [4.0, 5.0], "salt_pepper": [0.0, 0.00005]}},
        "resample": {"p": 1.0, "params": {"scale": [0.66, 0.7], "mode": {"choice": ["area"]}}},
        "contrast": {"p": 0.5, "params": {"gamma": [0.9, 1.15], "gain": [0.92, 1.1], "bias": [-8.0, 8.0],
                                          "binarize": False, "threshold": [128, 128]}},
        "jpeg": {"p": 0.0, "params": {"quality": {"int": [76, 82]}}},
    },
    "degraded": {
        "paper": {"p": 1.0, "params": {"tint_r": [0.92, 0.98], "tint_g": [0.9, 0.96], "tint_b": [0.82, 0.92],
                                       "fibre": [0.02, 0.05], "blotch": [0.02, 0.05], "fibre_px": [1.5, 3.5]}},
        "ink_bleed": {"p": 0.6, "params": {"radius_px": [0.6, 0.9], "strength": [0.15, 0.3]}},
        "toner_fade": {"p": 0.8, "params": {"fade": [0.08, 0.18], "dropout": [0.03, 0.09], "dropout_px": [20, 80],
                                            "streaks": {"int": [1, 4]}, "streak_strength": [0.15, 0.35],
                                            "streak_px": [3, 16]}},
        "halftone": {"p": 0.1, "params": {"period_px": [2.0, 3.0], "strength": [0.25, 0.45]}},
        "bleed_through": {"p": 0.6, "params": {"alpha": [0.04, 0.1], "sigma_px": [1.2, 2.5],
                                               "shift_x": [-0.01, 0.01], "shift_y": [-0.01, 0.01]}},
        "stains": {"p": 0.6, "params": {"n_stains": {"int": [1, 3]}, "size": [0.04, 0.1], "opacity": [0.08, 0.2],
                                        "ring": {"p": 0.5}, "colour": {"choice": ["coffee", "dirt", "yellow"]},
                                        "speckle": [0.00005, 0.0002], "speckle_px": [1.0, 2.5]}},
        "fold": {"p": 0.5, "params": {"n_folds": {"int": [1, 2]}, "darkness": [0.08, 0.18], "width_px": [2.0, 6.0],
                                      "orientation": {"choice": ["h", "v"]}}},
        "skew": {"p": 1.0, "params": {"angle_deg": [-2.5, 2.5], "shift_x": [-0.01, 0.01],
                                      "shift_y": [-0.01, 0.01], "border": [0.85, 0.98]}},
        "warp": _OFF,
        "lighting": {"p": 0.9, "params": {"gradient": [0.05, 0.14], "angle_deg": [0.0, 360.0], "vignette": [0.03, 0.1],
                                          "shadow": [0.08, 0.25], "shadow_width": [0.02, 0.06],
                                          "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
        "blur": {"p": 1.0, "params": {"sigma_px": [0.73, 0.83], "motion_px": [0.0, 0.8]}},
        "noise": {"p": 1.0, "params": {"sigma": [4.0, 5.5], "salt_pepper": [0.00005, 0.0002]}},
        "resample": {"p": 1.0, "params": {"scale": [0.56, 0.6], "mode": {"choice": ["area"]}}},
        "contrast": {"p": 0.7, "params": {"gamma": [0.85, 1.3], "gain": [0.85, 1.15], "bias": [-12.0, 12.0],
                                          "binarize": False, "threshold": [128, 128]}},
        "jpeg": {"p": 0.0, "params": {"quality": {"int": [74, 80]}}},
    },
    "poor": {
        "paper": {"p": 1.0, "params": {"tint_r": [0.92, 0.98], "tint_g": [0.89, 0.95], "tint_b": [0.8, 0.9],
                                       "fibre": [0.02, 0.045], "blotch": [0.02, 0.05], "fibre_px": [2.0, 4.0]}},
        "ink_bleed": {"p": 0.9, "params": {"radius_px": [0.6, 0.9], "strength": [0.2, 0.4]}},
        "toner_fade": {"p": 1.0, "params": {"fade": [0.08, 0.18], "dropout": [0.06, 0.14], "dropout_px": [20, 80],
                                            "streaks": {"int": [2, 6]}, "streak_strength": [0.2, 0.45],
                                            "streak_px": [3, 20]}},
        "halftone": {"p": 0.15, "params": {"period_px": [2.0, 3.0], "strength": [0.25, 0.4]}},
        "bleed_through": {"p": 0.8, "params": {"alpha": [0.06, 0.12], "sigma_px": [1.0, 2.0],
                                               "shift_x": [-0.012, 0.012], "shift_y": [-0.012, 0.012]}},
        "stains": {"p": 1.0, "params": {"n_stains": {"int": [2, 4]}, "size": [0.05, 0.14], "opacity": [0.12, 0.3],
                                        "ring": {"p": 0.5}, "colour": {"choice": ["coffee", "dirt", "yellow"]},
                                        "speckle": [0.0002, 0.0006], "speckle_px": [1.5, 3.0]}},
        "fold": {"p": 0.8, "params": {"n_folds": {"int": [1, 3]}, "darkness": [0.12, 0.28], "width_px": [3.0, 8.0],
                                      "orientation": {"choice": ["h", "v"]}}},
        "skew": {"p": 1.0, "params": {"angle_deg": [-4.0, 4.0], "shift_x": [-0.015, 0.015],
                                      "shift_y": [-0.015, 0.015], "border": [0.6, 0.9]}},
        "warp": _OFF,
        "lighting": {"p": 1.0, "params": {"gradient": [0.08, 0.18], "angle_deg": [0.0, 360.0], "vignette": [0.06, 0.15],
                                          "shadow": [0.2, 0.4], "shadow_width": [0.03, 0.07],
                                          "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
        "blur": {"p": 1.0, "params": {"sigma_px": [0.82, 0.9], "motion_px": [0.0, 1.0]}},
        "noise": {"p": 1.0, "params": {"sigma": [4.5, 6.0], "salt_pepper": [0.0001, 0.0003]}},
        "resample": {"p": 1.0, "params": {"scale": [0.5, 0.54], "mode": {"choice": ["area"]}}},
        "contrast": {"p": 1.0, "params": {"gamma": [0.85, 1.2], "gain": [0.95, 1.2], "bias": [-8.0, 8.0],
                                          "binarize": False, "threshold": [150, 175]}},
        "jpeg": {"p": 0.0, "params": {"quality": {"int": [64, 70]}}},
    },
}


def tier_table(tier: Tier) -> dict[str, dict[str, Any]]:
    """Every stage's entry at ``tier`` for a flatbed scan (``devices.stage_table``); unknown tier names are
    an error that lists the valid ones."""
    from .devices import stage_table

    return stage_table(DEFAULT_DEVICE, tier)
