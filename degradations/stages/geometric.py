"""Stages that move content: skew (rotation + shift on the platen) and warp (perspective, page curl).

A geometric stage first *plans* its transform from (image size, params, rng), then the image is
resampled once through that transform's inverse (``render``), so pixels and mapped evidence boxes come
from one and the same map. The pipeline plans adjacent geometric stages (skew then warp) and renders
them as one resampling, as the optics of a scanner would (one interpolation instead of two). The output
keeps the input size; uncovered areas show the scanner lid (paper level times ``border``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import cv2
import numpy as np

from ir.rng import Rng

from ..geometry import Compose, CurlWarp, Homography, Transform, sampling_maps
from ._fields import border_value

Params = Mapping[str, Any]

WARP_BORDER = 0.75  # the curled-away edge reveals the darker lid


def skew_homography(width: int, height: int, angle_deg: float, shift_x: float, shift_y: float) -> Homography:
    """Rotation by ``angle_deg`` (counter-clockwise on screen) about the page centre, then a shift
    by fractions of the page size."""
    cx, cy = width / 2.0, height / 2.0
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, s, 0.0], [-s, c, 0.0], [0.0, 0.0, 1.0]])
    t_in = np.array([[1.0, 0.0, -cx], [0.0, 1.0, -cy], [0.0, 0.0, 1.0]])
    t_out = np.array([[1.0, 0.0, cx + shift_x * width], [0.0, 1.0, cy + shift_y * height], [0.0, 0.0, 1.0]])
    return Homography(t_out @ rot @ t_in)


def perspective_homography(width: int, height: int, jitter: float, rng: Rng) -> Homography:
    """Each page corner moved by up to ``jitter`` x page size (platen / camera tilt)."""
    src = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    dst = src + rng.gen.uniform(-1.0, 1.0, (4, 2)) * jitter * np.array([width, height])
    return Homography(cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32)))


def plan_skew(width: int, height: int, p: Params, rng: Rng) -> tuple[Transform, float]:
    hom = skew_homography(width, height, float(p["angle_deg"]), float(p["shift_x"]), float(p["shift_y"]))
    return hom, float(p["border"])


def plan_warp(width: int, height: int, p: Params, rng: Rng) -> tuple[Transform | None, float]:
    parts: list[Transform] = []
    if float(p["perspective"]) > 0:
        parts.append(perspective_homography(width, height, float(p["perspective"]), rng.fork("perspective")))
    if float(p["curl"]) > 0 or float(p["bow"]) != 0 or float(p["lift"]) != 0:
        parts.append(CurlWarp(width=width, height=height, side=str(p["curl_side"]),
                              curl_width=float(p["curl_width"]), squeeze=float(p["curl"]),
                              lift=float(p["lift"]), shrink=float(p["shrink"]), bow=float(p["bow"])))
    if not parts:
        return None, WARP_BORDER
    return (parts[0] if len(parts) == 1 else Compose(tuple(parts))), WARP_BORDER


PLANNERS = {"skew": plan_skew, "warp": plan_warp}


def render(img: np.ndarray, transforms: Sequence[Transform], border: float) -> np.ndarray:
    """Resample ``img`` through the composed transforms (bilinear), keeping its size."""
    if not transforms:
        return img.copy()
    h, w = img.shape[:2]
    mx, my = sampling_maps(transforms, w, h)
    fill = border_value(img, border)
    if img.ndim == 3:  # OpenCV's 4-channel remap is ~3x faster than its 3-channel one
        rgba = cv2.cvtColor(img, cv2.COLOR_RGB2RGBA)
        out = cv2.remap(rgba, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                        borderValue=fill[:3] + (255.0,))
        return cv2.cvtColor(out, cv2.COLOR_RGBA2RGB)
    return cv2.remap(img, mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=fill)


def skew(img: np.ndarray, p: Params, rng: Rng) -> tuple[np.ndarray, Transform]:
    h, w = img.shape[:2]
    t, border = plan_skew(w, h, p, rng)
    return render(img, [t], border), t


def warp(img: np.ndarray, p: Params, rng: Rng) -> tuple[np.ndarray, Transform | None]:
    """Perspective (corner jitter) then page curl near a side edge with a gentle bow of the sheet."""
    h, w = img.shape[:2]
    t, border = plan_warp(w, h, p, rng)
    if t is None:
        return img.copy(), None
    return render(img, [t], border), t
