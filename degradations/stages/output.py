"""What a device's output stage does to the image: fax 1-bit error diffusion (``dither``), the sending
fax's header line (``fax_header``) and lines lost or garbled in transmission (``line_errors``). Contrast and
JPEG encoding, the other output stages, are in ``capture``. The error diffusion is vectorised (see there).
"""

from __future__ import annotations

import datetime as dt

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng

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


_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")


def header_text(p: Params) -> str:
    """The header line a sending fax prints (its TTI): date and time sent, the sender's name and number,
    and the page as n/m, in the fixed layout of an office machine. ``day`` is the day of ``year`` (0-based);
    ``number_text`` (the issuer's number as it prints it) stands for ``country`` and ``number`` when given."""
    sent = dt.date(int(p["year"]), 1, 1) + dt.timedelta(days=int(p["day"]))
    minute = int(p["minute"])
    if "number_text" in p:
        number = str(p["number_text"])
    else:
        digits = f"{int(p['number']):010d}"
        number = f"+{int(p['country'])} {digits[:3]} {digits[3:6]} {digits[6:]}"
    return (f"{_MONTHS[sent.month - 1]}-{sent.day:02d}-{sent.year} {minute // 60:02d}:{minute % 60:02d}   FROM: "
            f"{p['sender']}   {number}   P.{int(p.get('page', 1)):03d}/{int(p.get('pages', 1)):03d}")


def fax_header(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """The sending machine's header line across the top of the received page: a white strip of
    ``height_px`` (about 3 mm) with the line in a plain bitmap-like font, black on 1-bit, drawn straight in the
    scan's frame whatever the sheet's skew (the machine writes it into the image it sends). ``page`` and
    ``pages`` are the page's place in its document (set when the profile is sampled). No randomness."""
    h, w = img.shape[:2]
    band = max(int(round(float(p["height_px"]))), 6)
    out = img.copy()
    out[:band] = 255
    text = header_text(p)
    size = band * 0.62  # cap height to strip height
    scale = cv2.getFontScaleFromHeight(cv2.FONT_HERSHEY_PLAIN, max(int(size), 4), 1)
    x = int(round(float(p["indent"]) * w))
    (tw, _), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_PLAIN, scale, 1)
    if x + tw > w:  # a narrow image: the line is cut at the edge, as a real header is on a narrow sheet
        x = max(w - tw, 0)
    strip = np.full((band, w), 255, np.uint8)
    cv2.putText(strip, text, (x, int(round(band * 0.8))), cv2.FONT_HERSHEY_PLAIN, scale, 0, 1 if band < 24 else 2,
                cv2.LINE_8)
    bits = cv2.threshold(strip, 160, 255, cv2.THRESH_BINARY)[1]  # a fax prints 1 bit: no anti-aliased edges
    out[:band] = bits[:, :, None] if out.ndim == 3 else bits
    return out


def line_errors(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """Scan lines lost or garbled in transmission (``n_errors`` of them, each ``height_px`` high at most):
    a line the receiver could not decode is left white (``drop``), repeated from the last good line above
    (``repeat``, what error concealment does) or printed as a streak of black runs (``streak``)."""
    h, w = img.shape[:2]
    out = img.copy()
    g = rng.fork("lines").gen
    tall = max(float(p["height_px"]), 1.0)
    for _ in range(int(p["n_errors"])):
        n = max(int(round(g.uniform(0.3, 1.0) * tall)), 1)
        y = int(g.integers(1, max(h - n, 2)))
        kind = ("drop", "repeat", "streak")[int(g.integers(0, 3))]
        if kind == "drop":
            out[y : y + n] = 255
        elif kind == "repeat":
            out[y : y + n] = out[y - 1 : y]
        else:
            runs = g.random(w) < float(p["density"])
            runs = np.convolve(runs, np.ones(max(int(tall), 2)), mode="same") > 0  # runs, not single dots
            row = np.where(runs, 0, 255).astype(np.uint8)
            out[y : y + n] = row[:, None] if out.ndim == 3 else row
    return out
