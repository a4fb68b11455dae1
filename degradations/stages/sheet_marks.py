"""Marks on the sheet itself, before any device sees it: what people and offices put on paper (binding:
punch holes, staples, clips; markup: highlighter and pen; watermark: a "COPY"/"CONFIDENTIAL" stamp).

Each stage draws objects whose geometry comes from one helper on ``rng.fork("geometry")``; what they cover
is recorded by the pipeline as the pixels they changed (``pipeline.DegradedPage.occlusion``). Drawn marks
touch only their own region. Like every pixel stage: ``(image, params, rng) -> image``, uint8 RGB or grey in,
a new image of the same shape out, deterministic given the stage's stream; lengths named ``*_px`` are pixels,
other lengths fractions of the page. Ranges per device and tier: ``degradations/devices.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from synthdocqa.ir.boxes import Box
from synthdocqa.ir.rng import Rng

from .image_ops import like_image, paper_level, smooth_1d, to_u8
from .protocol import Params


def _ink(img: np.ndarray, rgb: tuple[float, float, float]) -> tuple[float, ...]:
    """A drawing colour for this image: the RGB triple, or its luminance on a grey image."""
    if img.ndim == 2:
        return (0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2],)
    return tuple(float(c) for c in rgb)


def _points_box(pts: np.ndarray, pad: float) -> Box:
    return Box(float(pts[:, 0].min()) - pad, float(pts[:, 1].min()) - pad,
               float(pts[:, 0].max()) + pad, float(pts[:, 1].max()) + pad)


def _roi(box: Box, w: int, h: int) -> tuple[int, int, int, int] | None:
    """Integer pixel bounds [x0, x1) x [y0, y1) covering ``box``, inside the page."""
    x0, y0 = max(int(math.floor(box[0])), 0), max(int(math.floor(box[1])), 0)
    x1, y1 = min(int(math.ceil(box[2])), w), min(int(math.ceil(box[3])), h)
    return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None


_SHIFT = 4  # sub-pixel bits of the cv2 drawing calls


_ONE = 1 << _SHIFT


def _fixed(pts: np.ndarray, origin: tuple[int, int] = (0, 0)) -> np.ndarray:
    """Float points -> cv2's fixed-point int32 (``shift=_SHIFT``), relative to ``origin``."""
    return np.round((pts - np.asarray(origin, np.float64)) * _ONE).astype(np.int32).reshape(-1, 1, 2)


def _apply_mask(out: np.ndarray, mask: np.ndarray, x0: int, y0: int, strength: float,
                colour: tuple[float, ...]) -> None:
    """Multiply ``out[y0:, x0:]`` (in place) by ``colour`` where ``mask`` (uint8 coverage) is on: the
    factor of channel c is ``255 - mask * strength * (255 - colour[c]) / 255``."""
    h, w = mask.shape
    roi = out[y0:y0 + h, x0:x0 + w]
    k = [min(max(float(strength), 0.0), 1.0) * (255.0 - c) / 255.0 for c in colour]
    planes = {kc: cv2.convertScaleAbs(mask, alpha=-kc, beta=255.0) for kc in set(k)}
    if out.ndim == 2:
        factor = planes[k[0]]
    elif len(planes) == 1:  # a neutral colour: one plane, repeated
        factor = like_image(planes[k[0]], out)
    else:
        factor = cv2.merge([planes[kc] for kc in k])
    cv2.multiply(roi, factor, dst=roi, scale=1.0 / 255)


@dataclass(frozen=True)
class _Binding:
    holes: list[tuple[float, float, float]]  # (cx, cy, r)
    staple: np.ndarray | None  # (2, 2) ends of the crown
    staple_px: float
    clip: np.ndarray | None  # (N, 2) wire path
    clip_px: float
    shadow: float  # px offset of the cast shadow (down-right)


def _clip_path(length: float, width: float) -> np.ndarray:
    """A Gem paper clip's wire, in local coordinates: along u (0..length), across v (-width/2..width/2)."""
    r1, r2, r3 = width / 2.0, 0.36 * width, 0.24 * width

    def arc(cx: float, cy: float, r: float, a0: float, a1: float) -> np.ndarray:
        a = np.linspace(a0, a1, 14)
        return np.stack([cx + r * np.cos(a), cy + r * np.sin(a)], 1)

    pts = [
        np.array([[0.62 * length, -r1]]),
        arc(length - r1, 0.0, r1, -0.5 * np.pi, 0.5 * np.pi),  # outer loop, far end
        arc(r2, r1 - r2, r2, 0.5 * np.pi, 1.5 * np.pi),  # near end, inner
        arc(length - 0.12 * length - r3, r1 - 2 * r2 + r3, r3, -0.5 * np.pi, 0.5 * np.pi),  # innermost loop
        np.array([[0.3 * length, r1 - 2 * r2 + 2 * r3]]),
    ]
    return np.vstack(pts)


def _binding_geometry(w: int, h: int, p: Params, rng: Rng) -> _Binding:
    """Where the holes, staple and clip go (drawn from its own fork, apart from the ink draws)."""
    g = rng.gen
    holes: list[tuple[float, float, float]] = []
    n = int(p["holes"])
    r = max(float(p["hole_px"]), 1.0)
    if n > 0:
        left = p["hole_side"] != "top"
        along = h if left else w
        spacing = (g.uniform(0.37, 0.40) if n >= 3 else g.uniform(0.25, 0.29)) * along
        centre = along / 2.0 + g.normal(0.0, 0.01) * along
        inset = g.uniform(0.035, 0.06) * min(w, h)
        for i in range(n):
            t = centre + (i - (n - 1) / 2.0) * spacing + g.normal(0.0, 0.002) * along
            ri = r * g.uniform(0.97, 1.03)
            holes.append((inset, t, ri) if left else (t, inset, ri))
    unit = min(w, h)
    staple = None
    staple_px = max(0.0035 * unit, 2.0)
    if p["staple"]:
        length = g.uniform(0.05, 0.06) * unit
        diagonal = g.random() < 0.6
        angle = math.radians(g.uniform(35.0, 55.0) if diagonal else g.uniform(-6.0, 6.0))
        cx, cy = g.uniform(0.03, 0.07) * unit, g.uniform(0.03, 0.06) * unit
        d = 0.5 * length * np.array([math.cos(angle), -math.sin(angle)])
        staple = np.array([[cx, cy], [cx, cy]]) + np.array([-d, d])
        if g.random() < 0.2:  # top-right corner instead
            staple[:, 0] = w - staple[:, 0]
    clip = None
    clip_px = max(0.004 * unit, 2.0)
    if p["clip"]:
        length, width = g.uniform(0.13, 0.16) * unit, g.uniform(0.04, 0.05) * unit
        local = _clip_path(length, width)
        a = math.radians(90.0 + g.uniform(-8.0, 8.0))  # hanging down over the top edge
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        x = g.uniform(0.08, 0.9) * w
        clip = local @ rot.T + np.array([x, -g.uniform(0.25, 0.4) * length])
    return _Binding(holes, staple, staple_px, clip, clip_px, shadow=max(0.0008 * unit, 1.0))


def binding_marks(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """What binds the sheet, seen by the scanner: ``holes`` (0, 2 or 3) punch holes of radius
    ``hole_px`` along the ``hole_side`` ("left"/"top") edge, showing the dark lid or ADF backing
    through them; a ``staple`` (a short metal bar with a highlight and a faint shadow, in a top corner);
    a paper ``clip`` (wire outline hanging over the top edge)."""
    h, w = img.shape[:2]
    out = img.copy()
    geo = _binding_geometry(w, h, p, rng.fork("geometry"))
    look = rng.fork("look").gen
    paper = float(np.mean(paper_level(img)))
    lid = look.uniform(25.0, 70.0)
    for cx, cy, r in geo.holes:
        c = _fixed(np.array([[cx, cy]]))[0, 0]
        cv2.circle(out, (int(c[0]), int(c[1])), int(round((r + 1.0) * _ONE)), _ink(img, (0.75 * paper,) * 3),
                   2, cv2.LINE_AA, _SHIFT)  # the paper's cut edge
        cv2.circle(out, (int(c[0]), int(c[1])), int(round(r * _ONE)), _ink(img, (lid, lid, lid + 4.0)),
                   -1, cv2.LINE_AA, _SHIFT)
    metal = look.uniform(95.0, 135.0)
    off = np.array([geo.shadow, geo.shadow])
    if geo.staple is not None:
        t = geo.staple_px
        tk = max(int(round(t)), 1)
        cv2.polylines(out, [_fixed(geo.staple + off)], False, _ink(img, (0.7 * paper,) * 3), tk, cv2.LINE_AA, _SHIFT)
        cv2.polylines(out, [_fixed(geo.staple)], False, _ink(img, (metal, metal, metal + 8.0)), tk, cv2.LINE_AA,
                      _SHIFT)
        d = geo.staple[1] - geo.staple[0]
        normal = np.array([d[1], -d[0]]) / max(float(np.hypot(*d)), 1e-6)
        glint = geo.staple + 0.25 * t * normal
        glint = glint + np.array([[0.15], [-0.15]]) * d  # shorter than the crown
        cv2.polylines(out, [_fixed(glint)], False, _ink(img, (235.0, 235.0, 240.0)), max(tk // 3, 1), cv2.LINE_AA,
                      _SHIFT)
    if geo.clip is not None:
        tk = max(int(round(geo.clip_px)), 1)
        cv2.polylines(out, [_fixed(geo.clip + off)], False, _ink(img, (0.72 * paper,) * 3), tk, cv2.LINE_AA, _SHIFT)
        cv2.polylines(out, [_fixed(geo.clip)], False, _ink(img, (metal + 15.0, metal + 15.0, metal + 25.0)), tk,
                      cv2.LINE_AA, _SHIFT)
        if tk >= 3:
            cv2.polylines(out, [_fixed(geo.clip - 0.2 * off)], False, _ink(img, (225.0, 225.0, 230.0)), 1,
                          cv2.LINE_AA, _SHIFT)
    return out


_PENS = {"blue": (30.0, 50.0, 165.0), "black": (25.0, 25.0, 30.0)}


@dataclass(frozen=True)
class _Mark:
    kind: str  # "highlight" (a filled band) or "pen" (a polyline)
    pts: np.ndarray  # (N, 2) polygon or polyline, page pixels
    colour: tuple[float, float, float]
    strength: float  # highlight opacity / pen thickness in px


def _wobble(g: np.random.Generator, n: int, amp: float) -> np.ndarray:
    return amp * smooth_1d(g, n, max(n / 4.0, 2.0))


def _band(g: np.random.Generator, x0: float, x1: float, yc: float, band: float) -> np.ndarray:
    """A highlighter stroke along [x0, x1] centred on ``yc``, ``band`` high: chisel-tipped, slightly wobbly."""
    length = max(x1 - x0, band)
    n = max(int(length / 15.0), 6)
    u = np.linspace(0.0, length, n)
    mid = u * g.normal(0.0, 0.005) + _wobble(g, n, 0.06 * band)
    half = 0.5 * band * (1.0 + _wobble(g, n, 0.05))
    tip = 0.25 * band  # chisel tip: the ends are slanted
    top = np.stack([u + tip, mid - half], 1)
    bottom = np.stack([u - tip, mid + half], 1)
    return np.vstack([top, bottom[::-1]]) + np.array([x0, yc])


def _pen_mark(g: np.random.Generator, kind: str, box: tuple[float, float, float, float], w: int) -> np.ndarray:
    """One hand-drawn stroke of ``kind`` on the text in ``box`` (page pixels), (N, 2): an underline under it, a
    circle round it, a tick before it (after it where the margin is too narrow), initials after it."""
    x0, y0, x1, y1 = box
    lh = max(y1 - y0, 4.0)  # the line's height sets the hand's scale
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if kind == "underline":
        length = (x1 - x0) + lh * g.uniform(0.1, 0.5)
        n = max(int(length / 6.0), 8)
        u = np.linspace(0.0, length, n)
        v = u * g.normal(0.0, 0.01) + _wobble(g, n, 0.08 * lh)
        pts = np.stack([u, v], 1)
        pts[-3:, 1] -= np.array([0.0, 0.15, 0.4]) * lh * g.uniform(0.0, 1.0)  # a flick at the end
        return pts + np.array([x0 - lh * g.uniform(0.05, 0.25), y1 + 0.18 * lh])
    if kind == "circle":
        rx, ry = (x1 - x0) / 2 + lh * g.uniform(0.35, 0.6), lh * g.uniform(0.85, 1.05)
        a0 = g.uniform(0.0, 2.0 * np.pi)
        n = 60
        a = a0 + np.linspace(0.0, 2.0 * np.pi * g.uniform(1.03, 1.15), n)
        rad = 1.0 + _wobble(g, n, 0.04)
        return np.stack([cx + rx * rad * np.cos(a), cy + ry * rad * np.sin(a)], 1)
    if kind == "tick":
        s = lh * g.uniform(1.0, 1.4)
        a = np.array([[0.0, 0.0], [0.35 * s, 0.45 * s], [1.1 * s, -0.85 * s]])
        t = np.linspace(0.0, 1.0, 8)[:, None]
        pts = np.vstack([a[0] + t * (a[1] - a[0]), a[1] + t[1:] * (a[2] - a[1])])
        pts = pts + np.stack([_wobble(g, len(pts), 0.03 * s), _wobble(g, len(pts), 0.03 * s)], 1)
        left = x0 - 1.6 * s
        x = left if left > 0.03 * w else x1 + 0.5 * lh
        return pts + np.array([x, cy])
    # "initials": two or three loops of a quick hand after the line
    loops = int(g.integers(2, 4))
    r, d = 0.18 * lh, 0.45 * lh
    t = np.linspace(0.0, 2.0 * np.pi * loops, 16 * loops)
    pts = np.stack([r * t - d * np.sin(t), -d * np.cos(t) * (1.0 + _wobble(g, len(t), 0.15))], 1)
    pts[:, 1] += _wobble(g, len(t), 0.15 * lh)
    right = x1 + 0.8 * lh
    x = right if right + pts[:, 0].max() < 0.97 * w else x0 - 0.8 * lh - pts[:, 0].max()
    return pts + np.array([x, cy])


def _page_marks(img: np.ndarray, p: Params, rng: Rng) -> list[dict]:
    """The marks to draw: the recorded ones (``marks``: chosen from the page's render map when the scan was
    sampled), else marks on the runs of print the page shows (a page degraded on its own)."""
    if "marks" in p:  # ``ir.perturbation.Mark`` records (or their dicts, called directly)
        return [m if isinstance(m, dict) else m.model_dump() for m in p["marks"]]
    from ..marks import MarkTarget, choose_marks, text_line_boxes

    lines = [MarkTarget("line", b, "") for b in text_line_boxes(img)]
    return choose_marks(lines, int(p["n_highlights"]), int(p["n_scribbles"]), "", rng.fork("place"))


def _markup_geometry(w: int, h: int, marks: list[dict], p: Params, rng: Rng) -> list[_Mark]:
    """The highlighter bands and pen strokes on their boxes (drawn from its own fork, apart from the ink draws)."""
    from ..marks import mark_rules

    inks = mark_rules()["ink_rgb"]
    g = rng.gen
    out: list[_Mark] = []
    pen = _PENS.get(str(p["pen"]), _PENS["blue"])
    thickness = max(w / 850.0, 1.0) * g.uniform(0.8, 1.2)
    for m in marks:
        x0, y0, x1, y1 = (float(m["box"][0]) * w, float(m["box"][1]) * h, float(m["box"][2]) * w,
                          float(m["box"][3]) * h)
        if m["kind"] == "highlight":
            lh = y1 - y0
            band = lh * g.uniform(1.15, 1.35)
            pad = lh * g.uniform(0.15, 0.4)
            poly = _band(g, x0 - pad, x1 + pad, (y0 + y1) / 2 + g.normal(0.0, 0.04 * lh), band)
            colour = tuple(float(c) for c in inks.get(str(m.get("ink", "yellow")), inks["yellow"]))
            out.append(_Mark("highlight", poly, colour, float(g.uniform(0.8, 0.95))))  # type: ignore[arg-type]
        else:
            colour = tuple(float(np.clip(c + g.normal(0.0, 6.0), 0.0, 255.0)) for c in pen)
            out.append(_Mark("pen", _pen_mark(g, str(m["kind"]), (x0, y0, x1, y1), w), colour,  # type: ignore[arg-type]
                             thickness))
    return out


def _mark_box(mark: _Mark) -> Box:
    pad = 3.0 if mark.kind == "highlight" else mark.strength / 2.0 + 2.0
    return _points_box(mark.pts, pad)


def markup(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """A reader's marks on what the page holds (``degradations.marks``): highlighter bands over a figure, a
    total or a name (translucent yellow, green or pink, a line high, slightly wobbly, streaky along the
    stroke, multiplied onto the print, so the words under it stay dark), and ballpoint strokes in ``pen``
    ("blue"/"black") ink: a circle round a total, a line under a name, a tick or initials beside an approval,
    anti-aliased and drawn darken-only over the print. ``marks`` lists them with their boxes (fractions of
    the page); without it the stage marks ``n_highlights`` and ``n_scribbles`` runs of print it finds."""
    h, w = img.shape[:2]
    out = img.copy()
    look = rng.fork("look").gen
    for mark in _markup_geometry(w, h, _page_marks(img, p, rng), p, rng.fork("geometry")):
        roi = _roi(_mark_box(mark), w, h)
        if roi is None:
            continue
        x0, y0, x1, y1 = roi
        if mark.kind == "highlight":
            mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
            cv2.fillPoly(mask, [_fixed(mark.pts, (x0, y0))], 255, cv2.LINE_AA, _SHIFT)
            streaks = np.clip(0.88 + 0.12 * smooth_1d(look, y1 - y0, 3.0), 0.6, 1.0)  # felt-tip streaks
            mask = cv2.GaussianBlur(mask, (3, 3), 0.8)
            mask = cv2.multiply(mask, to_u8(np.repeat(streaks[:, None], x1 - x0, 1)), scale=1.0 / 255)
            _apply_mask(out, mask, x0, y0, mark.strength, _ink(img, mark.colour))
        else:
            canvas = np.full((y1 - y0, x1 - x0) + out.shape[2:], 255, np.uint8)
            cv2.polylines(canvas, [_fixed(mark.pts, (x0, y0))], False, _ink(img, mark.colour),
                          max(int(round(mark.strength)), 1), cv2.LINE_AA, _SHIFT)
            out[y0:y1, x0:x1] = cv2.min(out[y0:y1, x0:x1], canvas)
    return out


_STAMP_COLOURS = ((90.0, 90.0, 90.0), (205.0, 35.0, 35.0))  # grey, red


@dataclass(frozen=True)
class _Stamp:
    canvas: np.ndarray  # uint8 text coverage, upright, at half the page's resolution
    matrix: np.ndarray  # (2, 3) affine canvas -> page (rotation, scale 2, placement)
    colour: tuple[float, float, float]
    text: str
    font: int
    scale: float
    thick: int
    pad: int


_STAMP_FONT = cv2.FONT_HERSHEY_DUPLEX


def _watermark_geometry(w: int, h: int, p: Params, rng: Rng) -> _Stamp:
    """The stamp's upright text canvas and its placement. The canvas is drawn at half resolution (a quarter of the drawing work; a stamp's edges are soft)."""
    g = rng.gen
    text = str(p["text"]) or "COPY"
    diag = math.hypot(w, h)
    target = 0.5 * min(0.7, 0.085 * len(text)) * diag * g.uniform(0.9, 1.05)  # text length on the canvas
    (tw, th), base = cv2.getTextSize(text, _STAMP_FONT, 1.0, 1)
    scale = target / max(tw, 1)
    thick = max(int(round(0.11 * th * scale)), 1)
    pad = 2 * thick + 4
    tw, th, base = int(math.ceil(tw * scale)), int(math.ceil(th * scale)), int(math.ceil(base * scale))
    canvas = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(canvas, text, (pad, pad + th), _STAMP_FONT, scale, 255, thick, cv2.LINE_AA)
    ch, cw = canvas.shape
    cx, cy = w / 2.0 + g.normal(0.0, 0.03) * w, h / 2.0 + g.normal(0.0, 0.03) * h
    m = cv2.getRotationMatrix2D(((cw - 1) / 2.0, (ch - 1) / 2.0), float(p["angle_deg"]), 2.0)
    m[:, 2] += (cx - (cw - 1) / 2.0, cy - (ch - 1) / 2.0)
    colour = _STAMP_COLOURS[0] if g.random() < 0.65 else _STAMP_COLOURS[1]
    return _Stamp(canvas, m, colour, text, _STAMP_FONT, scale, thick, pad)


def _map_box(m: np.ndarray, x0: float, y0: float, x1: float, y1: float) -> Box:
    corners = np.array([[x0, y0, 1.0], [x1, y0, 1.0], [x0, y1, 1.0], [x1, y1, 1.0]]) @ m.T
    return Box(float(corners[:, 0].min()), float(corners[:, 1].min()), float(corners[:, 0].max()),
               float(corners[:, 1].max()))


def watermark(img: np.ndarray, p: Params, rng: Rng) -> np.ndarray:
    """A rubber-stamp / copier watermark: ``text`` ("CONFIDENTIAL", "COPY", "DRAFT") in large letters
    across the page centre at ``angle_deg`` (counter-clockwise), light grey or red, multiplied onto the
    page at ``opacity``. Drawn upright on a small canvas and rotated into its page region only. """
    h, w = img.shape[:2]
    out = img.copy()
    st = _watermark_geometry(w, h, p, rng.fork("geometry"))
    ch, cw = st.canvas.shape
    roi = _roi(_map_box(st.matrix, 0.0, 0.0, float(cw), float(ch)), w, h)
    if roi is None:
        return out
    x0, y0, x1, y1 = roi
    hw, hh = -(-(x1 - x0) // 2), -(-(y1 - y0) // 2)
    # canvas -> half-resolution ROI (page pixel X sits at (X - x0) / 2 - 0.25 there), then 2x up
    m = st.matrix * 0.5
    m[:, 2] -= (x0 / 2.0 + 0.25, y0 / 2.0 + 0.25)
    half = cv2.warpAffine(st.canvas, m, (hw, hh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    mask = cv2.resize(half, (2 * hw, 2 * hh), interpolation=cv2.INTER_LINEAR)[: y1 - y0, : x1 - x0]
    _apply_mask(out, mask, x0, y0, min(max(float(p["opacity"]), 0.0), 1.0), _ink(img, st.colour))
    return out
