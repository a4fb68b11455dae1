"""Stages of the scanner or camera itself: lighting, glare, blur, noise, resample, contrast, jpeg.

``resample`` is the scanner's native resolution: ``resample_down`` enters it and ``resample_up``
brings the image back to the page size (pixel-centre aligned resizes, so the pair is the identity on
coordinates and boxes map through the geometric stages only). The pipeline runs the stages after it
(contrast, jpeg) at the low resolution in between, as the scanner does.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

from .image_ops import channels, gaussian_u8, gray, like_image, multiply, to_u8
from .protocol import Params


def lighting(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Uneven illumination: a linear gradient, vignetting, a soft shadow along one side (lid/gutter) and, for a
    phone held over the page, the hand's shadow (``hand``: its darkness; optional, 0 when a record lacks it)."""
    h, w = img.shape[:2]
    lh, lw = max(h // 8, 2), max(w // 8, 2)
    y = (np.arange(lh, dtype=np.float32)[:, None] + 0.5) / lh * 2.0 - 1.0
    x = (np.arange(lw, dtype=np.float32)[None, :] + 0.5) / lw * 2.0 - 1.0
    a = math.radians(float(p["angle_deg"]))
    proj = (x * math.cos(a) + y * math.sin(a)) / math.sqrt(2.0)
    field = 1.0 - float(p["gradient"]) * (0.5 + 0.5 * proj)
    field = field * (1.0 - float(p["vignette"]) * (x * x + y * y) / 2.0)
    side = str(p["shadow_side"])
    dist = {"left": (x + 1) / 2, "right": (1 - x) / 2, "top": (y + 1) / 2, "bottom": (1 - y) / 2}[side]
    field = field * (1.0 - float(p["shadow"]) * np.exp(-dist / max(float(p["shadow_width"]), 1e-3)))
    hand = float(p.get("hand", 0.0))
    if hand > 0:  # the hand and phone held over the page: a soft blob of shadow reaching in from one edge
        g = rng.fork("hand").gen
        side = g.uniform(0.0, 2.0 * math.pi)
        hx, hy = 1.1 * math.cos(side), 1.1 * math.sin(side)
        rx, ry = g.uniform(0.35, 0.6), g.uniform(0.25, 0.45)
        d2 = ((x - hx) / rx) ** 2 + ((y - hy) / ry) ** 2
        field = field * (1.0 - hand * np.exp(-0.5 * d2))
    field = np.broadcast_to(field, (lh, lw)).astype(np.float32)
    return multiply(img, cv2.resize(to_u8(field), (w, h), interpolation=cv2.INTER_LINEAR))


def blur(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Defocus (Gaussian) and motion blur along the scan direction (vertical: the carriage moves in y;
    a centred box of odd length, so it shifts nothing)."""
    sigma = float(p["sigma_px"])
    out = img
    if sigma > 0.05:
        k = 2 * max(int(math.ceil(1.5 * sigma)), 1) + 1  # truncated at 1.5 sigma: a third cheaper
        out = cv2.GaussianBlur(out, (k, k), sigma, borderType=cv2.BORDER_REPLICATE)
    n = 2 * int(round((float(p["motion_px"]) - 1.0) / 2.0)) + 1
    if n >= 3:
        out = cv2.blur(out, (1, n), borderType=cv2.BORDER_REPLICATE)
    falloff = float(p.get("falloff_px", 0.0))
    if falloff > 0.05:  # a camera focused on one side of the page: the far side goes soft, band by band
        out = _falloff(out if out is not img else img.copy(), falloff, float(p.get("falloff_deg", 0.0)))
    return out if out is not img else img.copy()


def _blend(sharp: np.ndarray, soft: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """``sharp`` where ``weight`` (uint8) is 0, ``soft`` where it is 255, linearly between."""
    wgt = like_image(weight, sharp)
    return cv2.add(cv2.multiply(soft, wgt, scale=1.0 / 255), cv2.multiply(sharp, cv2.bitwise_not(wgt), scale=1.0 / 255))


FALLOFF_BANDS = 6


def _falloff(img: np.ndarray, sigma: float, angle_deg: float) -> np.ndarray:
    """Defocus growing across the page, in place: the page cut into ``FALLOFF_BANDS`` bands across the
    direction of ``angle_deg`` (rounded to the nearer axis), the far bands blurred more, up to ``sigma`` (each
    band blurred with its neighbours' rows as context, so no seam shows a border effect)."""
    h, w = img.shape[:2]
    a = math.radians(angle_deg)
    horizontal = abs(math.cos(a)) >= abs(math.sin(a))  # the blur grows along x (else along y)
    forward = (math.cos(a) if horizontal else math.sin(a)) >= 0
    n = w if horizontal else h
    edges = [round(i * n / FALLOFF_BANDS) for i in range(FALLOFF_BANDS + 1)]
    src = img.copy()
    for i in range(FALLOFF_BANDS):
        level = (i + 1) / FALLOFF_BANDS if forward else (FALLOFF_BANDS - i) / FALLOFF_BANDS
        s = sigma * level * level
        if s < 0.3:
            continue
        k = 2 * max(int(math.ceil(1.5 * s)), 1) + 1
        lo, hi = edges[i], edges[i + 1]
        pad_lo, pad_hi = max(lo - k, 0), min(hi + k, n)
        if horizontal:
            blurred = cv2.GaussianBlur(src[:, pad_lo:pad_hi], (k, k), s, borderType=cv2.BORDER_REPLICATE)
            img[:, lo:hi] = blurred[:, lo - pad_lo : hi - pad_lo]
        else:
            blurred = cv2.GaussianBlur(src[pad_lo:pad_hi], (k, k), s, borderType=cv2.BORDER_REPLICATE)
            img[lo:hi] = blurred[lo - pad_lo : hi - pad_lo]
    return img


def glare(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """A lamp or window reflected in a glossy page: a bright elliptical wash (``strength``: how far it lifts the
    page to white at its core, ``size`` of the frame) that fades the print under it. Drawn in the photo's frame."""
    h, w = img.shape[:2]
    g = rng.gen
    cx, cy = g.uniform(0.15, 0.85) * w, g.uniform(0.15, 0.85) * h
    rx = float(p["size"]) * max(w, h) * g.uniform(0.8, 1.2)
    ry = rx * g.uniform(0.35, 0.7)
    ang = g.uniform(0.0, math.pi)
    lh, lw = max(h // 8, 2), max(w // 8, 2)
    y = (np.arange(lh, dtype=np.float32)[:, None] + 0.5) * (h / lh) - cy
    x = (np.arange(lw, dtype=np.float32)[None, :] + 0.5) * (w / lw) - cx
    u = x * math.cos(ang) + y * math.sin(ang)
    v = -x * math.sin(ang) + y * math.cos(ang)
    core = np.exp(-0.5 * ((u / rx) ** 2 + (v / ry) ** 2) ** 1.5) * float(p["strength"])
    lift = cv2.resize(to_u8(core), (w, h), interpolation=cv2.INTER_LINEAR)
    return _blend(img, np.full_like(img, 255), lift)


def noise(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Sensor noise (Gaussian, luminance) and salt-and-pepper dropouts."""
    h, w = img.shape[:2]
    out = img.copy()
    sigma = float(p["sigma"])
    if sigma > 0:
        n8 = gaussian_u8(rng.fork("gauss"), h, w, sigma)
        out = cv2.addWeighted(out, 1.0, like_image(n8, out), 1.0, -128.0)
    k = int(float(p["salt_pepper"]) * h * w)
    if k > 0:
        g = rng.fork("salt_pepper").gen
        idx = g.integers(0, h * w, k)
        vals = (g.integers(0, 2, k) * 255).astype(np.uint8)
        out.reshape(h * w, channels(out))[idx] = vals[:, None]
    return out


def resample_down(img: np.ndarray, p: Params) -> np.ndarray:
    """The low-dpi sensor: downsample by ``scale``. Below half scale an exact 2x area reduction comes
    first (OpenCV's fast path; non-integer area resizes are ~10x slower). ``grey`` (optional): a
    monochrome sensor (a copier's, a fax's) reads the page's luma, so every stage after it works on one
    channel (a third of the pixels); the pipeline gives the scan back in the page's channels."""
    if p.get("grey") and img.ndim == 3:
        img = gray(img)
    h, w = img.shape[:2]
    s = float(p["scale"])
    sw, sh = max(int(round(w * s)), 1), max(int(round(h * s)), 1)
    if (sw, sh) == (w, h):
        return img
    small = img
    if s <= 0.5 and w >= 4 and h >= 4:
        small = cv2.resize(small, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
    return cv2.resize(small, (sw, sh), interpolation=cv2.INTER_LINEAR)


def resample_up(small: np.ndarray, width: int, height: int, p: Params) -> np.ndarray:
    """Back to the page size: ``area`` = smooth bilinear, ``nearest`` = blocky (centre-aligned too)."""
    if small.shape[:2] == (height, width):
        return small
    up = cv2.INTER_NEAREST_EXACT if p["mode"] == "nearest" else cv2.INTER_LINEAR
    return cv2.resize(small, (width, height), interpolation=up)


def contrast(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Tone curve (gamma, gain about mid-grey, bias) as one LUT; ``binarize`` = a hard threshold; ``grey``
    (optional, photocopies) = a monochrome device: the curve is applied to the luma, kept in 3 channels."""
    x = np.arange(256, dtype=np.float64) / 255.0
    v = 255.0 * np.power(x, float(p["gamma"]))
    v = (v - 128.0) * float(p["gain"]) + 128.0 + float(p["bias"])
    lut = np.clip(np.round(v), 0, 255).astype(np.uint8)
    if p.get("grey") and img.ndim == 3:
        img = like_image(gray(img), img)
    out = cv2.LUT(img, lut)
    if p["binarize"]:
        _, bw = cv2.threshold(gray(out), float(p["threshold"]), 255, cv2.THRESH_BINARY)
        out = like_image(bw, out)
    return out


def jpeg(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """In-pipeline JPEG artefacts (scanner firmware compression): an encode/decode round trip. The RGB
    array goes to the encoder as is (OpenCV assumes BGR), which swaps the R/B luma weights: a skip of
    two colour conversions that leaves grey content exact and the artefacts just as blocky."""
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(p["quality"]), cv2.IMWRITE_JPEG_OPTIMIZE, 0,
                                         cv2.IMWRITE_JPEG_PROGRESSIVE, 0])
    if not ok:
        raise RuntimeError("JPEG encoding failed")
    return cv2.imdecode(buf, cv2.IMREAD_COLOR if img.ndim == 3 else cv2.IMREAD_GRAYSCALE)
