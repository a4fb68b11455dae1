"""What a device's output stage does to the image: fax 1-bit error diffusion (``dither``). Contrast and
JPEG encoding, the other output stages, are in ``capture``. The error diffusion is vectorised (see there).
"""

from __future__ import annotations

import cv2
import numpy as np

from ir.rng import Rng

from .image_ops import paper_level
from .protocol import Params


def _error_diffuse(g: np.ndarray, rng: Rng, dst: np.ndarray, vertical: float = 0.75) -> None:
    """1-bit error diffusion of a grey image (mid-grey threshold) into ``dst`` (0/255; may be ``g``).

    Along each scan line the error goes wholly to the next pixel (first-order sigma-delta, the 1D
    error diffusion of simple fax hardware). That recursion has a closed form: the count of white
    pixels up to x is ``floor(cumsum(v)[x] + phase)``, so a whole line is one cumulative sum (a 1-row
    ``cv2.integral``). Between lines, ``vertical`` times each pixel's error (smoothed over two pixels,
    alternating sides) is added to the next line, which decorrelates the lines as Floyd-Steinberg does;
    a line takes at most one dot's worth (0..1) per pixel, the excess goes on to the next line too.
    The lines are processed in ``k`` bands at once (each band's line i in one row of a (k, W) array, one
    integral over all of them: the leftover of one band's line carries into the next band's, a phase);
    each line starts at a random phase from ``rng``."""
    n, width = g.shape
    k = max(1, min(16, n // 64))
    m = -(-n // k)
    buf = np.empty((2, m, k, width), np.uint8)  # one array above 4 MB: numpy gives it huge pages
    src, out = buf[0], buf[1].view(np.bool_)  # step i: row i of each band (bands padded with paper)
    for b in range(k):
        rows = g[b * m : (b + 1) * m]
        src[: len(rows), b] = rows
        src[len(rows) :, b] = 255
    phase = rng.gen.random((m, k), dtype=np.float32)
    wp = np.zeros((k, width + 1), np.float32)  # column 0: the line's starting phase
    flat = wp.reshape(1, -1)
    ww = wp[:, 1:]
    cum = np.empty((k, width + 1), np.float32)  # whole numbers (< 2**24): exact
    y = np.empty((k, width), np.float32)
    err = np.zeros((k, width + 1), np.float32)
    carry = np.zeros((k, width), np.float32)
    v = np.empty((k, width), np.float32)
    inv = np.float32(1.0 / 255.0)
    half = np.float32(vertical / 2.0)
    for i in range(m):
        wp[:, 0] = phase[i]
        np.multiply(src[i], inv, out=v)
        v += carry
        np.minimum(v, 1.0, out=ww)
        np.maximum(ww, 0.0, out=ww)
        integ = cv2.integral(flat, sdepth=cv2.CV_64F)  # float32 sums would misplace a dot now and then
        np.floor(integ[1, 1:].reshape(k, width + 1), out=cum, casting="unsafe")
        np.subtract(cum[:, 1:], cum[:, :-1], out=y)  # 1 where the count of whites steps up
        np.greater(y, 0.5, out=out[i])
        e = err[:, 1:] if i % 2 else err[:, :-1]
        np.subtract(v, y, out=e)
        np.add(err[:, 1:], err[:, :-1], out=carry)
        carry *= half
    for b in range(k):
        rows = dst[b * m : (b + 1) * m]
        rows[:] = out[: len(rows), b].view(np.uint8)
    cv2.multiply(dst, 255, dst=dst)


def dither(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Fax output: the page read at fax resolution and sent as 1 bit per pixel, by error diffusion
    (photo mode) or, with ``diffuse`` false (optional, default true), a plain threshold (text mode).

    The grey page is normalised to its paper level (the fax's automatic background control), toned so
    that grey level ``threshold`` becomes 50% dots (lower: lighter output; a fax's text mode is set dark,
    so thin strokes come out bold), and, unless ``fine`` (200x200 dpi), read at the standard 200x100 dpi:
    one scan line every ``line_px`` pixels (2 at 200 dpi, scaled to the image's dpi like every ``*_px``
    length; 2 when a record lacks it), the rows of a line averaged, thresholded or diffused, and each line
    repeated back with nearest neighbour (the jagged, stretched strokes of a standard-mode fax). Output
    0/255, replicated to RGB for an RGB input."""
    h, w = img.shape[:2]
    work = np.empty((2, h, w), np.uint8)  # the working planes, in one allocation (see _error_diffuse)
    g = work[0]
    if img.ndim == 3:
        cv2.cvtColor(img, cv2.COLOR_RGB2GRAY, dst=g)
    else:
        g[:] = img
    paper = max(float(paper_level(g)[0]), 1.0)
    t = min(max(float(p["threshold"]), 1.0), 254.0)
    x = np.minimum(np.arange(256, dtype=np.float64) * 255.0 / paper, 255.0)
    tone = np.where(x < t, x * 127.5 / t, 127.5 + (x - t) * 127.5 / (255.0 - t))
    cv2.LUT(g, np.clip(np.round(tone), 0, 255).astype(np.uint8), dst=g)
    lines = h if bool(p["fine"]) else max(1, min(h, round(h / max(float(p.get("line_px", 2.0)), 1.0))))
    if not p.get("diffuse", True):  # text mode: a plain threshold, the 50% level after the tone curve
        if lines < h:
            g = cv2.resize(cv2.resize(g, (w, lines), interpolation=cv2.INTER_AREA), (w, h),
                           interpolation=cv2.INTER_NEAREST)
        bits = cv2.threshold(g, 127, 255, cv2.THRESH_BINARY)[1]
        return cv2.cvtColor(bits, cv2.COLOR_GRAY2RGB) if img.ndim == 3 else bits
    if lines < h and "line_px" in p:  # standard mode at the image's own line pitch
        half = cv2.resize(g, (w, lines), interpolation=cv2.INTER_AREA)
        _error_diffuse(half, rng.fork("phase"), half)
        bits = cv2.resize(half, (w, h), dst=g, interpolation=cv2.INTER_NEAREST)
        return cv2.cvtColor(bits, cv2.COLOR_GRAY2RGB) if img.ndim == 3 else bits
    if bool(p["fine"]) or h < 2:
        _error_diffuse(g, rng.fork("phase"), g)
        bits = g
    else:
        half = work[1][: (h + 1) // 2]  # 100 lines per inch: pairs of rows averaged
        cv2.addWeighted(g[0 : h - 1 : 2], 0.5, g[1:h:2], 0.5, 0.0, dst=half[: h // 2])
        if h % 2:
            half[-1] = g[-1]
        _error_diffuse(half, rng.fork("phase"), half)
        bits = cv2.resize(half, (w, h), dst=g, interpolation=cv2.INTER_NEAREST)  # each line shown twice
    return cv2.cvtColor(bits, cv2.COLOR_GRAY2RGB) if img.ndim == 3 else bits
