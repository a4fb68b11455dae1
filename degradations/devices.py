"""Capture devices: the top of the perturbation profile. A device is a recipe of stages; the tier is the
severity within it.

* ``flatbed``: a sheet on the glass of a flatbed or ADF scanner (the original tier table, ``tiers.py``): flat,
  the lid presses it on the glass (no curl, no crease lift).
* ``photocopy``: a copy of a copy, then scanned: grey, sharp and contrasty, toner streaks and dropouts,
  dirty-roller bands, scanner lines, now and then a double feed; flat on the glass like the flatbed's.
* ``fax``: a fax received and scanned: 1 bit per pixel at fax resolution (fine 200x200 dpi, standard
  200x100), thresholded (text mode) or error-diffused (photo mode), feed skew, line noise, the sending
  machine's header line (dated the day the document went out, from its issuer); flat (the rollers pull the
  sheet through straight); stored as a 1-bit PNG, what a fax file holds (``scan.py``).
* ``phone``: a phone photo of the page: perspective, curl and a lifted crease (the only device where the
  sheet is not pressed flat), uneven light and shadow, vignetting, motion blur, sensor noise, moire from the
  print screen, colour fringes; its JPEG is the scan file (at the tier's quality, one compression).

What the sheet itself carries - punch holes and staples, a reader's pen and highlighter marks, a watermark -
does not depend on the device: those stages come from one table by tier (``SHEET``) in every device.
``pristine`` is the digital original in every device (no stage on).

A device table has the form of a tier table (``tiers.py`` explains the entries); ``stage_table`` merges
the base table of the tier, the sheet marks and the device's overrides, and lists every stage of
``ir.vocab.STAGE_NAMES`` (absent ones off).
"""

from __future__ import annotations

from typing import Any

from synthdocqa.ir.vocab import DEVICES, STAGE_NAMES, TIERS, Device, Tier

from .tiers import TIER_TABLE

_OFF: dict[str, Any] = {"p": 0.0, "params": {}}

_HOLES = {"holes": {"choice": [0, 2, 3]}, "hole_side": {"choice": ["left", "top"]}, "hole_px": [22.0, 30.0]}

def _sheet(binding: tuple[float, float, float], markup: tuple[float, list[int], list[int]],
           watermark: tuple[float, list[float]]) -> dict[str, dict[str, Any]]:
    """One tier of the sheet's marks: (p, staple p, clip p) of the binding; (p, highlights, pen marks) of the
    markup (what they go on: ``marks.py``); (p, opacity) of the watermark."""
    return {
        "binding_marks": {"p": binding[0], "params": {**_HOLES, "staple": {"p": binding[1]}, "clip": {"p": binding[2]}}},
        "markup": {"p": markup[0], "params": {"n_highlights": {"int": markup[1]}, "n_scribbles": {"int": markup[2]},
                                              "pen": {"choice": ["blue", "black"]}}},
        "watermark": {"p": watermark[0], "params": {"text": {"choice": ["CONFIDENTIAL", "COPY", "DRAFT"]},
                                                    "opacity": watermark[1], "angle_deg": [25.0, 50.0]}},
    }


def _fold(p: float, shift: tuple[float, float]) -> dict[str, Any]:
    """A crease that lifts the sheet: the content beyond it shifts by ``shift`` px. Only a photographed page
    shows it; glass (flatbed, copier) and a fax's rollers press the sheet flat."""
    return {"p": p, "params": {"orientation": {"choice": ["h", "v"]}, "position": [0.25, 0.75],
                               "shift_px": list(shift), "slide_px": [-1.0, 1.0], "band_px": [6.0, 16.0]}}


SHEET: dict[str, dict[str, dict[str, Any]]] = {
    "good": _sheet((0.15, 0.3, 0.1), (0.1, [0, 1], [0, 1]), (0.05, [0.06, 0.1])),
    "fair": _sheet((0.3, 0.4, 0.15), (0.25, [0, 2], [0, 2]), (0.1, [0.08, 0.14])),
    "degraded": _sheet((0.45, 0.5, 0.2), (0.4, [1, 2], [1, 3]), (0.15, [0.1, 0.18])),
    "poor": _sheet((0.6, 0.6, 0.25), (0.6, [1, 3], [2, 4]), (0.2, [0.12, 0.22])),
}
"""What the sheet carries whatever the device, by tier (``pristine`` has none)."""


def _frame(p: float, flip: float, zoom: float) -> dict[str, Any]:
    return {"p": p, "params": {"flip": {"p": flip}, "zoom": [1.0, zoom], "anchor_x": [0.2, 0.8],
                               "anchor_y": [0.2, 0.8]}}


def _lines(n: list[int], dark: list[float]) -> dict[str, Any]:
    return {"n_lines": {"int": n}, "darkness": dark, "width_px": [1.0, 2.5], "orientation": {"choice": ["v"]}}


FLATBED: dict[str, dict[str, dict[str, Any]]] = {
    "good": {"scanner_lines": {"p": 0.05, "params": _lines([1, 1], [0.1, 0.25])}},
    "fair": {"scanner_lines": {"p": 0.1, "params": _lines([1, 2], [0.15, 0.3])},
             "moire": {"p": 0.1, "params": {"period_px": [5.0, 8.0], "angle_deg": [-8.0, 8.0], "strength": [0.03, 0.06]}}},
    "degraded": {"scanner_lines": {"p": 0.2, "params": _lines([1, 3], [0.2, 0.4])},
                 "moire": {"p": 0.2, "params": {"period_px": [5.0, 9.0], "angle_deg": [-10.0, 10.0],
                                                "strength": [0.04, 0.08]}},
                 "colour_shift": {"p": 0.2, "params": {"shift_px": [0.8, 1.6]}}},
    "poor": {"scanner_lines": {"p": 0.3, "params": _lines([2, 4], [0.25, 0.5])},
             "page_frame": _frame(0.1, 0.5, 1.03),
             "moire": {"p": 0.3, "params": {"period_px": [5.0, 10.0], "angle_deg": [-12.0, 12.0],
                                            "strength": [0.05, 0.1]}},
             "colour_shift": {"p": 0.3, "params": {"shift_px": [1.0, 2.5]}}},
}
"""What a flatbed adds to the base tier table: sensor lines, moire on halftoned print, colour fringes."""



def _copy(tier: str, gain: list[float], binarize: float, threshold: list[int], bleed: list[float],
          speckle: list[float], border: list[float], shift: float, rollers: tuple[float, list[float]],
          lines: tuple[float, list[int], list[float]], double: float, shadow: tuple[float, list[float]],
          scale: list[float]) -> dict[str, Any]:
    """One tier of a photocopy: the copier's optics are sharp (a fixed short blur whatever the tier); what
    wears is the toner (strokes filled in by ``bleed`` radius, speckle), the contrast (``gain``, a share of
    pages thresholded dark at ``threshold``) and the platen (the open lid's black border where the sheet sits
    off the glass edge, ``border`` times the paper level, ``shift`` of the page; the lid's shadow). Each
    generation of copying loses resolution (``scale``: the sensor's, below the flatbed's at each tier)."""
    skew = TIER_TABLE[tier]["skew"]["params"]
    return {
        "contrast": {"p": 1.0, "params": {"gamma": [0.9, 1.1], "gain": gain, "bias": [-6.0, 6.0],
                                          "binarize": {"p": binarize}, "threshold": threshold, "grey": True}},
        "blur": {"p": 1.0, "params": {"sigma_px": [0.55, 0.65], "motion_px": [0.0, 0.0]}},
        "ink_bleed": {"p": 1.0, "params": {"radius_px": bleed, "strength": [0.35, 0.55]}},
        "stains": {"p": 1.0, "params": {"n_stains": {"int": [0, 0]}, "size": [0.05, 0.05], "opacity": [0.0, 0.0],
                                        "ring": False, "colour": "dirt", "speckle": speckle, "speckle_px": [1.0, 2.0]}},
        "skew": {"p": 1.0, "params": {**skew, "shift_x": [-shift, shift], "shift_y": [-shift, shift], "border": border}},
        "roller_marks": {"p": rollers[0], "params": {"period": [0.15, 0.3], "strength": rollers[1], "band_px": [8.0, 24.0]}},
        "scanner_lines": {"p": lines[0], "params": _lines(lines[1], lines[2])},
        "double_feed": {"p": double, "params": {"dx": [-0.015, 0.015], "dy": [0.005, 0.03], "alpha": [0.1, 0.25]}},
        "lighting": {"p": shadow[0], "params": {"gradient": [0.0, 0.04], "angle_deg": [0.0, 360.0], "vignette": [0.0, 0.02],
                                                "shadow": shadow[1], "shadow_width": [0.01, 0.03],
                                                "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
        "resample": {"p": 1.0, "params": {"scale": scale, "mode": {"choice": ["area"]}, "grey": True}},
        "halftone": _OFF, "jpeg": _OFF, "paper": _OFF, "bleed_through": _OFF,
    }


PHOTOCOPY: dict[str, dict[str, dict[str, Any]]] = {
    "good": _copy("good", [1.25, 1.4], 0.0, [128, 128], [0.6, 0.8], [0.00001, 0.00003], [0.9, 1.0], 0.004,
                  (0.2, [0.04, 0.08]), (0.15, [1, 1], [0.15, 0.3]), 0.0, (0.0, [0.0, 0.0]), [0.84, 0.88]),
    "fair": _copy("fair", [1.25, 1.45], 0.0, [128, 128], [0.6, 0.8], [0.00005, 0.00012], [0.4, 0.9], 0.008,
                  (0.5, [0.06, 0.12]), (0.3, [1, 2], [0.2, 0.4]), 0.03, (0.2, [0.2, 0.4]), [0.6, 0.64]),
    "degraded": _copy("degraded", [1.35, 1.55], 0.2, [165, 185], [0.6, 0.8], [0.00008, 0.0002], [0.05, 0.3], 0.015,
                      (0.6, [0.08, 0.16]), (0.5, [1, 3], [0.25, 0.5]), 0.06, (0.4, [0.3, 0.5]), [0.54, 0.58]),
    "poor": _copy("poor", [1.45, 1.7], 0.4, [165, 185], [0.7, 0.9], [0.0001, 0.0003], [0.02, 0.15], 0.02,
                  (0.8, [0.1, 0.2]), (0.7, [2, 5], [0.3, 0.6]), 0.1, (0.6, [0.4, 0.6]), [0.5, 0.54]),
}
"""A copy of a copy: grey, sharp and contrasty (gain up, some pages thresholded dark, strokes filled in), toner
speckle, the lid's black border and shadow, no paper-coloured light."""


_HEADER = {"p": 0.9, "params": {
    "year": {"int": [2019, 2026]}, "day": {"int": [0, 364]}, "minute": {"int": [420, 1200]},
    "sender": {"choice": ["HEAD OFFICE", "ACCOUNTS DEPT", "FINANCE", "RECEPTION", "LEGAL", "PROCUREMENT",
                          "BRANCH 02", "FRONT DESK"]},
    "country": {"choice": [1, 33, 44, 49, 61, 353]}, "number": {"int": [1000000000, 9999999999]},
    "indent": [0.02, 0.06], "height_px": [24.0, 30.0]}}
"""The sending machine's header line (its TTI): most faxes carry one; ``page`` and ``pages`` are set per page."""


def _errors(p: float, n: list[int], height: list[float]) -> dict[str, Any]:
    return {"p": p, "params": {"n_errors": {"int": n}, "height_px": height, "density": [0.05, 0.2]}}


def _fax(threshold: list[int], fine: float, diffuse: float, lines: dict[str, Any], skew: float, sp: list[float],
         resample: dict[str, Any] | None = None, errors: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "fax_header": _HEADER,
        "line_errors": errors or _OFF,
        "dither": {"p": 1.0, "params": {"threshold": threshold, "fine": {"p": fine}, "diffuse": {"p": diffuse},
                                        "line_px": 2.0}},
        "scanner_lines": {"p": 0.5, "params": lines},
        "skew": {"p": 1.0, "params": {"angle_deg": [-skew, skew], "shift_x": [-0.006, 0.006],
                                      "shift_y": [-0.006, 0.006], "border": [1.0, 1.0]}},
        "noise": {"p": 1.0, "params": {"sigma": [0.0, 0.0], "salt_pepper": sp}},  # grain vanishes in the threshold
        "resample": {"p": 1.0, "params": {"scale": [1.0, 1.0], "mode": {"choice": ["nearest"]}, **(resample or {}),
                                          "grey": True}},
        "ink_bleed": {"p": 1.0, "params": {"radius_px": [0.5, 0.8], "strength": [0.3, 0.5]}},
        "paper": _OFF, "stains": _OFF, "lighting": _OFF, "halftone": _OFF, "warp": _OFF, "jpeg": _OFF,
        "bleed_through": _OFF,
    }


FAX: dict[str, dict[str, dict[str, Any]]] = {
    "good": _fax([160, 174], 1.0, 0.0, _lines([0, 1], [0.4, 0.7]), 0.6, [0.0, 0.00002],
                 errors=_errors(0.05, [1, 1], [2.0, 4.0])),
    "fair": _fax([160, 174], 0.6, 0.0, _lines([1, 2], [0.5, 0.8]), 1.2, [0.00002, 0.00005],
                 errors=_errors(0.3, [1, 2], [2.0, 6.0])),
    "degraded": _fax([160, 174], 0.7, 0.0, _lines([1, 3], [0.6, 0.9]), 1.5, [0.00005, 0.0001],
                     {"scale": [0.9, 0.94]},
                     _errors(0.4, [1, 2], [3.0, 8.0])),
    "poor": _fax([164, 178], 0.15, 0.0, _lines([2, 4], [0.7, 1.0]), 2.5, [0.0001, 0.0002],
                 {"scale": [0.9, 0.93]},
                 _errors(0.6, [1, 3], [3.0, 10.0])),
}
"""Text mode (a threshold) at fine (200x200) then standard (200x100) resolution from a scan of falling
resolution, photo mode (error diffusion) for the poor ones; no paper colour, no JPEG."""

PHONE: dict[str, dict[str, dict[str, Any]]] = {
    "good": {"warp": {"p": 1.0, "params": {"perspective": [0.004, 0.01], "curl": [0.0, 0.0], "curl_width": [0.1, 0.2],
                                           "curl_side": {"choice": ["left", "right"]}, "lift": [0.0, 0.0],
                                           "shrink": [0.0, 0.0], "bow": [-0.003, 0.003]}},
             "lighting": {"p": 1.0, "params": {"gradient": [0.04, 0.1], "angle_deg": [0.0, 360.0], "vignette": [0.04, 0.1],
                                               "shadow": [0.0, 0.15], "shadow_width": [0.05, 0.15],
                                               "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
             "blur": {"p": 1.0, "params": {"sigma_px": [0.65, 0.8], "motion_px": [0.2, 0.6]}},
             "moire": {"p": 0.15, "params": {"period_px": [4.0, 7.0], "angle_deg": [-15.0, 15.0], "strength": [0.03, 0.06]}}},
    "fair": {"page_frame": _frame(0.2, 0.0, 1.03),
             "warp": {"p": 1.0, "params": {"perspective": [0.01, 0.02], "curl": [0.0, 0.3], "curl_width": [0.1, 0.25],
                                           "curl_side": {"choice": ["left", "right"]}, "lift": [-0.01, 0.01],
                                           "shrink": [0.0, 0.02], "bow": [-0.006, 0.006]}},
             "lighting": {"p": 1.0, "params": {"gradient": [0.08, 0.16], "angle_deg": [0.0, 360.0], "vignette": [0.08, 0.16],
                                               "shadow": [0.1, 0.3], "shadow_width": [0.08, 0.2],
                                               "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
             "blur": {"p": 1.0, "params": {"sigma_px": [0.7, 0.8], "motion_px": [0.2, 0.6]}},
             "moire": {"p": 0.15, "params": {"period_px": [4.0, 7.0], "angle_deg": [-15.0, 15.0], "strength": [0.04, 0.08]}},
             "colour_shift": {"p": 0.1, "params": {"shift_px": [0.6, 1.2]}}},
    "degraded": {"page_frame": _frame(0.3, 0.0, 1.05),
             "warp": {"p": 1.0, "params": {"perspective": [0.015, 0.03], "curl": [0.2, 0.6], "curl_width": [0.15, 0.3],
                                               "curl_side": {"choice": ["left", "right"]}, "lift": [-0.015, 0.015],
                                               "shrink": [0.01, 0.04], "bow": [-0.01, 0.01]}},
                 "lighting": {"p": 1.0, "params": {"gradient": [0.06, 0.12], "angle_deg": [0.0, 360.0],
                                                   "vignette": [0.06, 0.12], "shadow": [0.1, 0.25], "shadow_width": [0.1, 0.25],
                                                   "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
                 "blur": {"p": 1.0, "params": {"sigma_px": [0.7, 0.8], "motion_px": [0.0, 0.8]}},
                 "paper": {"p": 1.0, "params": {**TIER_TABLE["degraded"]["paper"]["params"], "fibre": [0.01, 0.03]}},
                 "moire": {"p": 0.35, "params": {"period_px": [4.0, 8.0], "angle_deg": [-15.0, 15.0], "strength": [0.05, 0.1]}},
                 "colour_shift": {"p": 0.35, "params": {"shift_px": [0.5, 1.2]}}},
    "poor": {"page_frame": _frame(0.4, 0.0, 1.05),
             "warp": {"p": 1.0, "params": {"perspective": [0.015, 0.03], "curl": [0.2, 0.5], "curl_width": [0.15, 0.3],
                                           "curl_side": {"choice": ["left", "right"]}, "lift": [-0.02, 0.02],
                                           "shrink": [0.02, 0.06], "bow": [-0.012, 0.012]}},
             "lighting": {"p": 1.0, "params": {"gradient": [0.12, 0.2], "angle_deg": [0.0, 360.0], "vignette": [0.12, 0.2],
                                               "shadow": [0.2, 0.35], "shadow_width": [0.1, 0.3],
                                               "shadow_side": {"choice": ["left", "right", "top", "bottom"]}}},
             "blur": {"p": 1.0, "params": {"sigma_px": [0.76, 0.84], "motion_px": [0.0, 1.0]}},
             "contrast": {"p": 1.0, "params": {"gamma": [0.85, 1.2], "gain": [0.9, 1.15], "bias": [-10.0, 10.0],
                                               "binarize": False, "threshold": [128, 128]}},
             "noise": {"p": 1.0, "params": {"sigma": [4.5, 5.5], "salt_pepper": [0.0, 0.0]}},
             "moire": {"p": 0.45, "params": {"period_px": [4.0, 8.0], "angle_deg": [-15.0, 15.0], "strength": [0.06, 0.12]}},
             "colour_shift": {"p": 0.5, "params": {"shift_px": [0.6, 1.5]}}},
}
"""A phone photo: the flatbed's sheet wear, then the camera's geometry, light, optics and encoder. The page
lies on a desk in the frame (``placement``: the desk shows around it, the page's edge shadow on it), a hand's
shadow falls over it, a lamp glares on it, focus falls off across it, a hand-held shot adds motion blur;
no camera makes salt-and-pepper dots, and a phone photo is never thresholded."""


def _scene(tier: str, scale: list[float], resample: list[float], hand: list[float], glare: tuple[float, list[float]],
           falloff: list[float], fold: tuple[float, tuple[float, float]] | None) -> dict[str, dict[str, Any]]:
    """What the scene adds to a phone tier: the page's place on the desk, the sensor's resolution, the hand's
    shadow (added to the tier's light), the glare, the focus fall-off (added to its blur), noise without
    salt-and-pepper, and a crease that lifts the sheet (``fold``: p and shift)."""
    light = PHONE[tier]["lighting"]
    blur = PHONE[tier].get("blur", TIER_TABLE[tier]["blur"])
    noise = PHONE[tier].get("noise", TIER_TABLE[tier]["noise"])
    return {
        "placement": {"p": 1.0, "params": {"scale": scale, "angle_deg": [-3.0, 3.0], "offset_x": [-0.02, 0.02],
                                           "offset_y": [-0.02, 0.02],
                                           "surface": {"choice": ["oak", "walnut", "grey", "white", "black"]}}},
        "resample": {"p": 1.0, "params": {"scale": resample, "mode": {"choice": ["area"]}}},
        "lighting": {"p": light["p"], "params": {**light["params"], "hand": hand}},
        "glare": {"p": glare[0], "params": {"strength": glare[1], "size": [0.08, 0.16]}},
        "blur": {"p": 1.0, "params": {**blur["params"], "falloff_px": falloff, "falloff_deg": [0.0, 360.0]}},
        "noise": {"p": 1.0, "params": {**noise["params"], "salt_pepper": [0.0, 0.0]}},
        **({"fold_shift": _fold(*fold)} if fold is not None else {}),
    }


for _tier, _args in {
    "good": ([0.92, 0.96], [0.84, 0.88], [0.0, 0.0], (0.1, [0.2, 0.35]), [0.0, 0.5], None),
    "fair": ([0.9, 0.94], [0.74, 0.78], [0.0, 0.15], (0.2, [0.3, 0.5]), [0.2, 0.5], (0.1, (0.5, 1.5))),
    "degraded": ([0.88, 0.92], [0.64, 0.68], [0.1, 0.25], (0.6, [0.45, 0.65]), [0.2, 0.5], (0.3, (0.8, 2.5))),
    "poor": ([0.86, 0.9], [0.58, 0.62], [0.05, 0.2], (0.4, [0.4, 0.6]), [0.2, 0.5], (0.5, (1.0, 3.0))),
}.items():
    PHONE[_tier] = {**PHONE[_tier], **_scene(_tier, *_args)}


DEVICE_OVERRIDES: dict[str, dict[str, dict[str, dict[str, Any]]]] = {
    "flatbed": FLATBED, "photocopy": PHOTOCOPY, "fax": FAX, "phone": PHONE,
}


def stage_table(device: Device, tier: Tier) -> dict[str, dict[str, Any]]:
    """Every stage's entry (``{"p": .., "params": {..}}``) for ``device`` at ``tier``, in registry order."""
    if device not in DEVICE_OVERRIDES:
        raise ValueError(f"unknown device {device!r}; expected one of {', '.join(DEVICES)}")
    if tier not in TIERS:
        raise ValueError(f"unknown tier {tier!r}; expected one of {', '.join(TIERS)}")
    if tier == "pristine":
        return {name: _OFF for name in STAGE_NAMES}
    merged = {**TIER_TABLE[tier], **SHEET[tier], **DEVICE_OVERRIDES[device][tier]}
    unknown = sorted(set(merged) - set(STAGE_NAMES))
    if unknown:
        raise RuntimeError(f"device table {device}/{tier} names unknown stages {unknown}")
    return {name: merged.get(name, _OFF) for name in STAGE_NAMES}
