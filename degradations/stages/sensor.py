"""What a device's sensor adds while it reads the page: lines of a dirty or uneven scan bar
(``scanner_lines``), moire of a halftone against the sensor grid (``moire``) and colour channels out of
registration (``colour_shift``). The optical stages of a capture (light, blur, noise) are in ``capture``.
Full-size work goes through OpenCV's uint8 kernels or 1D tables broadcast by numpy.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

from .image_ops import like_image, multiply, smooth_1d, to_u8
from .protocol import Params


def scanner_lines(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Streaks along the scan direction: dust on the scanner glass or a bad CCD element repeats on
    every line, so it draws a thin line across the whole page (``orientation`` "v": along the page's
    height, the usual feed direction; "h": across). ``n_lines`` lines, ``width_px`` wide, darkening
    by up to ``darkness``; about one in four is light (a dead calibration pixel) instead. The
    intensity varies slowly along each line (dust moves, the lamp flickers)."""
    h, w = img.shape[:2]
    out = img.copy()
    vertical = p["orientation"] != "h"
    length, across = (h, w) if vertical else (w, h)
    width = max(float(p["width_px"]), 0.3)
    dark = min(max(float(p["darkness"]), 0.0), 1.0)
    g = rng.fork("lines").gen
    for _ in range(int(p["n_lines"])):
        c = g.uniform(0.02, 0.98) * across
        light = g.random() < 0.25
        strength = dark * g.uniform(0.7, 1.0)
        along = np.clip(1.0 + 0.25 * smooth_1d(g, length, length / g.uniform(3.0, 12.0)), 0.3, 1.4)
        a0 = max(int(math.floor(c - width / 2.0)), 0)
        a1 = min(int(math.ceil(c + width / 2.0)), across)
        if a1 <= a0:
            continue
        j = np.arange(a0, a1, dtype=np.float64)
        cover = np.clip(np.minimum(j + 1.0, c + width / 2.0) - np.maximum(j, c - width / 2.0), 0.0, 1.0)
        factor = to_u8(1.0 - np.clip(strength * along[:, None] * cover[None, :], 0.0, 1.0))  # (length, a1 - a0)
        if vertical:
            strip = np.ascontiguousarray(out[:, a0:a1])
        else:
            strip, factor = out[a0:a1], np.ascontiguousarray(factor.T)
        if light:
            strip = cv2.bitwise_not(multiply(cv2.bitwise_not(strip), factor))
        else:
            strip = multiply(strip, factor)
        if vertical:
            out[:, a0:a1] = strip
        else:
            out[a0:a1] = strip
    return out


def _shift_channel(img: np.ndarray, ch: int, dx: float, dy: float, out: np.ndarray, work: np.ndarray) -> None:
    """Channel ``ch`` of ``img`` moved by (dx, dy) px into channel ``ch`` of ``out``: bilinear, edges
    replicated. The integer part is an offset into an edge-padded copy, the fraction two weighted sums
    of neighbouring slices (uint8 all along). ``work`` (3, H + 2 pad, W + 2 pad) holds the temporaries:
    one array above 4 MB, which numpy backs with huge pages (page-sized temporaries of their own cost
    more in page faults than the arithmetic)."""
    h, w = img.shape[:2]
    pad = (work.shape[2] - w) // 2
    big, tmp, res = work[0], work[1], work[2]
    cv2.extractChannel(img, ch, dst=big[pad : pad + h, pad : pad + w])
    big[:pad, pad : pad + w] = big[pad, pad : pad + w]  # replicate the edges
    big[pad + h :, pad : pad + w] = big[pad + h - 1, pad : pad + w]
    big[:, :pad] = big[:, pad : pad + 1]
    big[:, pad + w :] = big[:, pad + w - 1 : pad + w]
    ix, iy = math.floor(dx), math.floor(dy)
    fx, fy = dx - ix, dy - iy
    x0, y0 = pad - ix - 1, pad - iy - 1  # big[y0 + y + 1, x0 + x + 1] = plane[y - iy, x - ix]
    rows = big[y0 : y0 + h + 1]
    horiz = tmp[: h + 1, :w]
    cv2.addWeighted(rows[:, x0 + 1 : x0 + 1 + w], 1.0 - fx, rows[:, x0 : x0 + w], fx, 0.0, dst=horiz)
    moved = res[:h, :w]
    cv2.addWeighted(horiz[1:], 1.0 - fy, horiz[:-1], fy, 0.0, dst=moved)
    cv2.insertChannel(moved, out, ch)


def colour_shift(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Colour misregistration: the R and B planes of a colour copier/scanner (separate sensor rows, a
    carriage speed error) or a phone lens (lateral chromatic aberration) do not sit on the G plane. R
    moves ``shift_px`` (sub-pixel, bilinear) in a random direction and B about the opposite way, so
    edges get red/cyan fringes. Grey images are returned unchanged (a copy)."""
    if img.ndim == 2 or img.shape[2] < 3:
        return img.copy()
    h, w = img.shape[:2]
    g = rng.gen
    s = abs(float(p["shift_px"]))
    a = g.uniform(0.0, 2.0 * math.pi)
    angles = (a, a + math.pi + g.uniform(-0.5, 0.5))
    out = img.copy()
    pad = int(math.ceil(s)) + 2
    work = np.empty((3, h + 2 * pad, w + 2 * pad), np.uint8)
    for ch, ang in zip((0, 2), angles, strict=True):
        _shift_channel(img, ch, s * math.cos(ang), s * math.sin(ang), out, work)
    return out


def _phase_u8(n: int, k: float, phi: float) -> np.ndarray:
    """The phase ``k * (i + 0.5) + phi`` (radians) of i = 0..n-1 in 1/256 turns, uint8 (wraps like the angle)."""
    turns = (k * (np.arange(n, dtype=np.float64) + 0.5) + phi) / (2.0 * math.pi)
    return (np.round(turns * 256.0).astype(np.int64) & 255).astype(np.uint8)


def moire(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Moire: a print's halftone screen beating against the scanner's or camera's sampling grid. Two
    gratings, one of ``period_px`` at ``angle_deg`` and one a few percent coarser and a few degrees
    turned, beat at a low frequency; the page is multiplied by the first grating's fine lines, their
    depth modulated by the beat (``strength``: the darkening where both gratings' lines coincide).

    The beat is smooth, so it is built at 1/8 resolution and upsampled; the fine grating's phase is an
    8-bit angle from two 1D tables (a uint8 sum wraps like an angle) with a triangle profile
    (``|phase - 128|``), so the full-size work is a handful of uint8 OpenCV kernels."""
    h, w = img.shape[:2]
    g = rng.gen
    period = max(float(p["period_px"]), 2.0)
    theta = math.radians(float(p["angle_deg"]))
    k1 = 2.0 * math.pi / period
    k2 = k1 / (1.0 + g.uniform(0.03, 0.08) * (1.0 if g.random() < 0.5 else -1.0))
    theta2 = theta + math.radians(g.uniform(1.0, 4.0)) * (1.0 if g.random() < 0.5 else -1.0)
    phi1, phi_beat = g.uniform(0.0, 2.0 * math.pi, 2)
    # the beat: the difference of the two gratings' phases, cos at 1/8 resolution
    kbx, kby = k1 * math.cos(theta) - k2 * math.cos(theta2), k1 * math.sin(theta) - k2 * math.sin(theta2)
    lh, lw = max(-(-h // 8), 2), max(-(-w // 8), 2)
    ys = (np.arange(lh, dtype=np.float32)[:, None] + 0.5) * np.float32(h / lh)
    xs = (np.arange(lw, dtype=np.float32)[None, :] + 0.5) * np.float32(w / lw)
    envelope = to_u8(0.5 + 0.5 * np.cos(kbx * xs + kby * ys + phi_beat))
    envelope = cv2.resize(envelope, (w, h), interpolation=cv2.INTER_LINEAR)
    # the fine grating: a triangle wave of its phase, 128 on its lines, 0 between them (in place from here)
    lines = np.add(_phase_u8(h, k1 * math.sin(theta), phi1)[:, None], _phase_u8(w, k1 * math.cos(theta), 0.0)[None, :])
    cv2.absdiff(lines, 128, dst=lines)
    s = min(max(float(p["strength"]), 0.0), 1.0)
    cv2.multiply(envelope, lines, dst=envelope, scale=s / 128.0)  # the darkening: 255 * s at full modulation
    return _times(img, cv2.bitwise_not(envelope, dst=envelope))


def _times(img: np.ndarray, factor: np.ndarray) -> np.ndarray:
    """``img * factor / 255`` for a fresh (H, W) uint8 ``factor``, written over the factor's own
    (channel-repeated) buffer: one full-size allocation fewer than ``_fields.multiply``."""
    f = like_image(factor, img)
    return cv2.multiply(img, f, dst=f, scale=1.0 / 255)
