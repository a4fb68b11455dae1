"""Stages that move content: page_frame (an upside-down feed, a crop of the scan window), fold_shift
(content displaced across a crease), skew (rotation + shift on the platen) and warp (perspective, page
curl).

A geometric stage *plans* its transform from (image size, params, rng); the image is then resampled
once through that transform's inverse (``protocol.render``), so pixels and mapped evidence boxes come
from one and the same map. The pipeline plans adjacent geometric stages (skew then warp) and renders
them as one resampling, as the optics of a scanner would (one interpolation instead of two). The output
keeps the input size; uncovered areas show the scanner lid (paper level times ``border``).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

from ..geometry import Compose, CurlWarp, FoldShift, Homography, Transform
from .protocol import Params, Plan

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


def plan_skew(width: int, height: int, p: Params, rng: Rng) -> Plan:
    hom = skew_homography(width, height, float(p["angle_deg"]), float(p["shift_x"]), float(p["shift_y"]))
    return Plan(hom, float(p["border"]))


def plan_warp(width: int, height: int, p: Params, rng: Rng) -> Plan:
    """Perspective (corner jitter) then page curl near a side edge with a gentle bow of the sheet."""
    parts: list[Transform] = []
    if float(p["perspective"]) > 0:
        parts.append(perspective_homography(width, height, float(p["perspective"]), rng.fork("perspective")))
    if float(p["curl"]) > 0 or float(p["bow"]) != 0 or float(p["lift"]) != 0:
        parts.append(CurlWarp(width=width, height=height, side=str(p["curl_side"]),
                              curl_width=float(p["curl_width"]), squeeze=float(p["curl"]),
                              lift=float(p["lift"]), shrink=float(p["shrink"]), bow=float(p["bow"])))
    if not parts:
        return Plan(None, WARP_BORDER)
    return Plan(parts[0] if len(parts) == 1 else Compose(tuple(parts)), WARP_BORDER)


def plan_page_frame(width: int, height: int, p: Params, rng: Rng) -> Plan:
    """The sheet fed upside down (``flip``: a 180-degree turn) and the scan window cropped: content scaled
    by ``zoom`` >= 1 about an anchor at fractions (``anchor_x``, ``anchor_y``) of the page, so what lay
    near the far edges falls outside the image (a phone framing the page tight, a copier's platen edge)."""
    cx, cy = width / 2.0, height / 2.0
    m = np.eye(3)
    if p["flip"]:
        m = np.array([[-1.0, 0.0, 2 * cx], [0.0, -1.0, 2 * cy], [0.0, 0.0, 1.0]])
    z = float(p["zoom"])
    if z != 1.0:
        ax, ay = float(p["anchor_x"]) * width, float(p["anchor_y"]) * height
        m = np.array([[z, 0.0, ax * (1 - z)], [0.0, z, ay * (1 - z)], [0.0, 0.0, 1.0]]) @ m
    if np.allclose(m, np.eye(3)):
        return Plan(None, 1.0)
    return Plan(Homography(m), 1.0)


def plan_fold_shift(width: int, height: int, p: Params, rng: Rng) -> Plan:
    """A crease at ``position`` (fraction of the page across it) that did not lie flat: the far side
    shifted by ``shift_px`` across the crease and ``slide_px`` along it, ramping over ``band_px``."""
    across, along = float(p["shift_px"]), float(p["slide_px"])
    band = max(float(p["band_px"]), 3.5 * abs(across) + 1.0)  # keeps the map invertible (FoldShift checks)
    if p["orientation"] == "h":
        t = FoldShift("h", float(p["position"]) * height, band, dx=along, dy=across)
    else:
        t = FoldShift("v", float(p["position"]) * width, band, dx=across, dy=along)
    return Plan(t if (across or along) else None, 1.0)


_DESKS = {"oak": (150, 108, 70), "walnut": (92, 62, 42), "grey": (118, 120, 124), "white": (208, 204, 196),
          "black": (46, 46, 50)}


def desk(width: int, height: int, kind: str, rng: Rng) -> np.ndarray:
    """A desk seen from above, RGB, at an eighth of ``width x height`` (the backdrop is upsampled where it is
    used): its colour and, for the wooden ones, grain (streaks along x); the camera's noise comes later, with
    the photo's."""
    from .image_ops import smooth_noise

    lw, lh = max(width // 8, 2), max(height // 8, 2)
    streaks = smooth_noise(rng.fork("grain"), lh, lw, 1.0)  # a fresh value every other row: fine grain
    along = smooth_noise(rng.fork("fibre"), lh, lw, 24.0)  # slow changes along the boards
    wood = 0.10 if kind in ("oak", "walnut") else 0.02
    tone = 1.0 + wood * cv2.resize(cv2.resize(streaks, (max(lw // 16, 2), lh)), (lw, lh)) + 0.03 * along
    base = np.array(_DESKS[kind], np.float32)
    return np.clip(base[None, None, :] * tone[:, :, None], 0, 255).astype(np.uint8)


def plan_placement(width: int, height: int, p: Params, rng: Rng) -> Plan:
    """Where the page lies in a phone's frame: scaled by ``scale`` (< 1: the desk shows around it) about a
    point off the frame's centre by (``offset_x``, ``offset_y``) of the frame, turned by ``angle_deg``, on a
    desk of ``surface`` (its grain drawn from the stage's stream), the page casting a soft shadow on it."""
    z = float(p["scale"])
    a = math.radians(float(p["angle_deg"]))
    c, s_ = math.cos(a) * z, math.sin(a) * z
    cx, cy = width / 2.0, height / 2.0
    tx, ty = cx + float(p["offset_x"]) * width, cy + float(p["offset_y"]) * height
    m = np.array([[c, s_, tx - c * cx - s_ * cy], [-s_, c, ty + s_ * cx - c * cy], [0.0, 0.0, 1.0]])
    return Plan(Homography(m), 1.0, desk(width, height, str(p["surface"]), rng.fork("desk")))
