"""The sheet's travel through a feeder: a second sheet pulled in with it (``double_feed``) and the marks of
the feed rollers (``roller_marks``). The geometric side of transport (framing, skew, warp) is planned in
``geometric``. Pure pixel stages ``(image, params, rng) -> image``; ranges in ``degradations/devices.py``.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

from .image_ops import multiply, smooth_noise, to_u8
from .protocol import Params


def roller_marks(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Dirty feed rollers of a copier or ADF: a toner smudge on a roller prints once per turn, so faint
    grey bands ``band_px`` high repeat every ``period`` (fraction of the page height) down the page, at
    the same x (1 to 3 dirty spots, each a random stretch of the width). ``strength`` is the darkening
    at a band's core; each print varies a little (the roller picks up and sheds toner)."""
    h, w = img.shape[:2]
    out = img.copy()
    g = rng.fork("rollers").gen
    period = max(float(p["period"]) * h, 4.0)
    band = max(float(p["band_px"]), 2.0)
    strength = min(max(float(p["strength"]), 0.0), 1.0)
    for s in range(int(g.integers(1, 4))):
        length = g.uniform(0.04, 0.25) * w
        x0 = int(g.uniform(0.0, 1.0) * max(w - length, 1.0))
        tw = max(min(int(length), w - x0), 1)
        th = max(int(math.ceil(2.5 * band)), 3)
        yy = (np.arange(th, dtype=np.float32) + 0.5 - th / 2.0) / np.float32(band / 2.355)  # band_px = FWHM
        across = np.exp(-0.5 * yy * yy)
        ramp = max(int(0.15 * tw), 1)
        xs = np.minimum(np.arange(tw, dtype=np.float32) + 0.5, tw - np.arange(tw, dtype=np.float32) - 0.5) / ramp
        taper = np.sin(0.5 * np.pi * np.clip(xs, 0.0, 1.0)) ** 2
        texture = np.clip(0.7 + 0.3 * smooth_noise(rng.fork("smudge", s), th, tw, max(band / 2.0, 2.0)), 0.0, 1.3)
        base = across[:, None] * taper[None, :] * texture
        y = g.uniform(0.0, period) - th / 2.0
        while y < h:
            level = strength * g.uniform(0.6, 1.0)
            r0, r1 = int(round(y)), int(round(y)) + th
            c0, c1 = max(r0, 0), min(r1, h)
            if c1 > c0:
                f = to_u8(1.0 - level * base[c0 - r0 : c1 - r0])
                out[c0:c1, x0 : x0 + tw] = multiply(out[c0:c1, x0 : x0 + tw], f)
            y += period * g.uniform(0.98, 1.02)
    return out


def double_feed(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """A double exposure (ADF double feed, a copier re-imaging the drum): a faint ghost of the page,
    shifted by (``dx``, ``dy``) of the page width/height, multiplied in at ``alpha`` (0: none, 1: full
    ink). It only darkens, and only where the shifted page has ink. No randomness."""
    h, w = img.shape[:2]
    out = img.copy()
    sx, sy = int(round(float(p["dx"]) * w)), int(round(float(p["dy"]) * h))
    a = min(max(float(p["alpha"]), 0.0), 1.0)
    dx0, dx1 = max(sx, 0), min(w + sx, w)
    dy0, dy1 = max(sy, 0), min(h + sy, h)
    if dx1 <= dx0 or dy1 <= dy0:
        return out
    ghost = cv2.convertScaleAbs(img[dy0 - sy : dy1 - sy, dx0 - sx : dx1 - sx], alpha=a, beta=255.0 * (1.0 - a))
    roi = out[dy0:dy1, dx0:dx1]
    cv2.multiply(roi, ghost, dst=roi, scale=1.0 / 255)
    return out
