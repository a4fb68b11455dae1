"""Stages of the sheet and its print: paper, ink_bleed, toner_fade, halftone, bleed_through, stains, fold.

None of them moves content: each is a pixel stage ``(image, params, rng) -> image``. Lengths arrive
in pixels of the image (the pipeline has already rescaled the table's ``*_px`` values to the image's
dpi). Smooth fields are drawn at low resolution and upsampled; local marks (stains, creases) touch
only their region.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

from .image_ops import (
    channels,
    gaussian_u8,
    gray,
    like_image,
    multiply,
    paper_level,
    smooth_noise,
    to_u8,
)
from .protocol import Params

_LOW = 4  # low-resolution factor for smooth fields


def _odd(x: float) -> int:
    return 2 * max(int(math.ceil(x)), 1) + 1


def _scalar(level: np.ndarray) -> tuple[float, ...]:
    v = [float(x) for x in level]
    return tuple(v + [0.0] * (4 - len(v)))


def paper(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Paper tint (per-channel multiplier) times fibre grain and cloudy blotches: ink printed on paper."""
    h, w = img.shape[:2]
    lh, lw = max(h // 2, 1), max(w // 2, 1)
    grain = gaussian_u8(rng.fork("fibre"), lh, lw, 40.0)
    k = _odd(float(p["fibre_px"]) / 4.0)
    grain = cv2.GaussianBlur(grain, (k, k), max(float(p["fibre_px"]) / 4.0, 0.3))
    # |N| scaled: blurring shrank the spread, so renormalise by the blurred field's own deviation
    dev = max(float(grain[::4, ::4].std()), 1.0)
    lut = np.clip(255.0 * (1.0 - float(p["fibre"]) * np.abs(np.arange(256) - 128.0) / dev), 0, 255)
    tex = cv2.LUT(grain, lut.astype(np.uint8))
    blotch = smooth_noise(rng.fork("blotch"), h, w, 0.08 * min(h, w), low_res_scale=8)
    cloud = to_u8(1.0 - float(p["blotch"]) * (0.5 + 0.5 * np.clip(blotch, -1.0, 1.0)))
    tex = cv2.multiply(tex, cv2.resize(cloud, (lw, lh), interpolation=cv2.INTER_LINEAR), scale=1.0 / 255)
    tex = cv2.resize(tex, (w, h), interpolation=cv2.INTER_LINEAR)
    tint = [float(p["tint_r"]), float(p["tint_g"]), float(p["tint_b"])]
    if channels(img) == 1:
        return cv2.multiply(img, tex, scale=(0.299 * tint[0] + 0.587 * tint[1] + 0.114 * tint[2]) / 255)
    # the tint folded into one lookup table per channel (OpenCV's scalar multiply of a channel is ~3x slower)
    tinted = cv2.merge([cv2.LUT(tex, np.clip(np.arange(256) * t + 0.5, 0, 255).astype(np.uint8)) for t in tint])
    return cv2.multiply(img, tinted, scale=1.0 / 255)


def ink_bleed(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Ink spreading into the fibres: a blurred, dilated copy of the ink's darkness blended in (strokes
    thicken and darken). Computed on luminance (toner is near-black) and applied as a darkening."""
    r = max(float(p["radius_px"]), 0.3)
    k = 2 * int(math.ceil(r)) + 1
    g = gray(img)
    spread = cv2.erode(g, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    sigma = max(r / 2.0, 0.3)
    spread = cv2.GaussianBlur(spread, (_odd(2 * sigma), _odd(2 * sigma)), sigma)
    s = float(p["strength"])
    return cv2.min(img, like_image(cv2.addWeighted(g, 1.0 - s, spread, s, 0.0), img))


def toner_fade(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Toner running low: ink lightened globally, in blotchy dropouts and in vertical streaks."""
    h, w = img.shape[:2]
    lh, lw = max(h // _LOW, 1), max(w // _LOW, 1)
    keep = np.full((lh, lw), 1.0 - float(p["fade"]), np.float32)
    if float(p["dropout"]) > 0:
        n = smooth_noise(rng.fork("dropout"), h, w, float(p["dropout_px"]), low_res_scale=_LOW)
        blobs = np.clip((n - 0.3) / 0.8, 0.0, 1.0)  # ~1/3 of the page touched
        keep = keep * (1.0 - float(p["dropout"]) * blobs)
    col = np.ones(lw, np.float32)
    g = rng.fork("streaks").gen
    xs = np.arange(lw, dtype=np.float32)
    for _ in range(int(p["streaks"])):
        cx = g.uniform(0, lw)
        sw = max(g.uniform(0.5, 1.0) * float(p["streak_px"]) / _LOW, 0.5)
        col *= 1.0 - float(p["streak_strength"]) * g.uniform(0.5, 1.0) * np.exp(-0.5 * ((xs - cx) / sw) ** 2)
    keep = keep * col[None, :]
    keep_u8 = cv2.resize(to_u8(keep), (w, h), interpolation=cv2.INTER_LINEAR)
    base = _scalar(paper_level(img))
    ink = cv2.subtract(base, img)  # darkness relative to the paper
    return cv2.subtract(base, multiply(ink, keep_u8))


def halftone(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """A 45-degree clustered-dot screen over mid-tones (grey fills, anti-aliased edges); paper and
    solid ink stay. The 45-degree screen is separable, 0.5*(cos(kx) + cos(ky)), and the per-pixel
    decision is two LUTs selected by a compare, all uint8."""
    h, w = img.shape[:2]
    g = gray(img)
    paper_g = max(float(paper_level(g)[0]), 1.0)
    level = cv2.LUT(g, np.clip(np.round(np.arange(256) * 255.0 / paper_g), 0, 255).astype(np.uint8))
    period = max(float(p["period_px"]), 2.0)
    k = 2.0 * math.pi * math.sqrt(2.0) / period
    px, py = rng.gen.uniform(0, 2 * math.pi, 2)
    cx = np.round(63.75 * np.cos(k * np.arange(w) + px) + 127.5).astype(np.uint8)
    cy = np.round(63.75 * np.cos(k * np.arange(h) + py)).astype(np.int16)
    screen = (cy[:, None] + cx[None, :]).astype(np.uint8)  # 0..255
    dots = cv2.compare(screen, level, cv2.CMP_GT)  # 255 where the dot is inked
    lum = np.maximum(np.arange(256) / 255.0, 0.3)
    mid = (lum > 0.3) & (lum < 0.92)
    s = float(p["strength"])
    unit = 85.0
    ink_t = np.where(mid, 1.0 + s * (0.12 / lum - 1.0), 1.0) * unit
    paper_t = np.where(mid, 1.0 + s * (1.0 / lum - 1.0), 1.0) * unit
    a = cv2.LUT(level, np.clip(np.round(ink_t), 0, 255).astype(np.uint8))
    b = cv2.LUT(level, np.clip(np.round(paper_t), 0, 255).astype(np.uint8))
    ratio = cv2.bitwise_or(cv2.bitwise_and(a, dots), cv2.bitwise_and(b, cv2.bitwise_not(dots)))
    return multiply(img, ratio, unit=unit)


def bleed_through(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Show-through of the verso. The verso is this page mirrored left-right, blurred and slightly
    shifted (a deterministic stand-in with real text statistics); it darkens like a multiply."""
    h, w = img.shape[:2]
    lh, lw = max(h // 2, 1), max(w // 2, 1)
    small = cv2.resize(gray(img), (lw, lh), interpolation=cv2.INTER_AREA)
    sigma = max(float(p["sigma_px"]) / 2.0, 0.3)
    verso = cv2.GaussianBlur(cv2.flip(small, 1), (_odd(2 * sigma), _odd(2 * sigma)), sigma)
    m = np.array([[1.0, 0.0, float(p["shift_x"]) * lw], [0.0, 1.0, float(p["shift_y"]) * lh]])
    verso = cv2.warpAffine(verso, m, (lw, lh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = float(p["alpha"])
    ghost = cv2.LUT(verso, np.round(255.0 - a * (255.0 - np.arange(256))).astype(np.uint8))
    return multiply(img, cv2.resize(ghost, (w, h), interpolation=cv2.INTER_LINEAR))


_STAIN_COLOURS = {"coffee": (0.72, 0.55, 0.35), "dirt": (0.55, 0.53, 0.5), "yellow": (0.95, 0.88, 0.55)}


def stains(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Coffee rings and blotches (irregular, coloured, semi-transparent) plus dark speckle."""
    h, w = img.shape[:2]
    out = img.copy()
    g = rng.fork("place").gen
    colour = np.array(_STAIN_COLOURS[str(p["colour"])], np.float32)
    op = float(p["opacity"])
    for i in range(int(p["n_stains"])):
        r = float(p["size"]) * min(w, h) * g.uniform(0.6, 1.4) / _LOW  # low-res radius
        cx, cy = g.uniform(0, w), g.uniform(0, h)
        ratio, angle = g.uniform(0.7, 1.0), g.uniform(0, 180)
        half = int(r + 4)
        size = 2 * half + 1
        layer = np.zeros((size, size), np.float32)
        axes = (max(int(r), 1), max(int(r * ratio), 1))
        if p["ring"]:
            cv2.ellipse(layer, (half, half), axes, angle, 0, 360, 1.0, max(int(r * 0.08), 1))
            cv2.ellipse(layer, (half, half), axes, angle, 0, 360, 0.25, -1)
        else:
            cv2.ellipse(layer, (half, half), axes, angle, 0, 360, 1.0, -1)
        edge = smooth_noise(rng.fork("edge", i), size, size, 6.0)
        layer = cv2.GaussianBlur(layer * (0.6 + 0.4 * np.clip(edge, -1.0, 1.0)), (5, 5), 1.5)
        factor = 1.0 - op * layer[:, :, None] * (1.0 - colour[None, None, :])
        if channels(img) == 1:
            factor = factor.mean(axis=2)
        full = cv2.resize(to_u8(factor), (size * _LOW, size * _LOW), interpolation=cv2.INTER_LINEAR)
        x0, y0 = int(cx) - half * _LOW, int(cy) - half * _LOW
        fx0, fy0 = max(x0, 0), max(y0, 0)
        fx1, fy1 = min(x0 + size * _LOW, w), min(y0 + size * _LOW, h)
        if fx1 <= fx0 or fy1 <= fy0:
            continue
        roi = out[fy0:fy1, fx0:fx1]
        f = full[fy0 - y0 : fy1 - y0, fx0 - x0 : fx1 - x0]
        out[fy0:fy1, fx0:fx1] = cv2.multiply(roi, f, scale=1.0 / 255)
    n_speck = int(float(p["speckle"]) * h * w)
    if n_speck > 0:
        sg = rng.fork("speckle").gen
        ys = sg.integers(0, h, n_speck)
        xs = sg.integers(0, w, n_speck)
        dark = sg.integers(20, 110, n_speck).astype(np.uint8)
        rad = max(float(p["speckle_px"]) / 2.0, 0.5)
        ri = int(math.ceil(rad))
        oy, ox = np.mgrid[-ri : ri + 1, -ri : ri + 1]
        disk = (oy**2 + ox**2) <= rad * rad + 0.25
        oy, ox = oy[disk], ox[disk]
        yy = np.clip(ys[:, None] + oy[None, :], 0, h - 1).ravel()
        xx = np.clip(xs[:, None] + ox[None, :], 0, w - 1).ravel()
        dd = np.repeat(dark, len(oy))
        flat = out.reshape(h * w, channels(out))
        idx = yy * w + xx
        flat[idx] = np.minimum(flat[idx], dd[:, None])
    return out


def fold(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Creases: a dark line with a bright ridge beside it, across the page near one axis; only the
    band around each crease is touched."""
    h, w = img.shape[:2]
    g = rng.gen
    out = img.copy()
    width = max(float(p["width_px"]), 1.0)
    dark = float(p["darkness"])
    for _ in range(int(p["n_folds"])):
        theta = math.radians(g.uniform(-2.0, 2.0))
        horizontal = p["orientation"] == "h"
        length, across = (w, h) if horizontal else (h, w)
        c0 = g.uniform(0.25, 0.75) * across
        reach = 8.0 * width + abs(math.tan(theta)) * length / 2.0 + 2.0
        a0, a1 = max(int(c0 - reach), 0), min(int(c0 + reach) + 1, across)
        if a1 <= a0:
            continue
        t = np.arange(a0, a1, dtype=np.float32)[:, None] + 0.5
        s = np.arange(length, dtype=np.float32)[None, :] + 0.5
        d = (t - c0) * math.cos(theta) - (s - length / 2.0) * math.sin(theta)
        crease = np.exp(-0.5 * (d / width) ** 2)
        ridge = np.exp(-0.5 * ((d - 2.5 * width) / (1.5 * width)) ** 2)
        f = to_u8(1.0 - dark * crease + 0.4 * dark * ridge, 200.0)
        if horizontal:
            out[a0:a1] = multiply(out[a0:a1], f, unit=200.0)
        else:
            out[:, a0:a1] = multiply(np.ascontiguousarray(out[:, a0:a1]), np.ascontiguousarray(f.T), unit=200.0)
    return out

