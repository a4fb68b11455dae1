"""Images of the corpus report, as inline data URIs: evidence boxes and quads drawn over page images, windows
around them, thumbnails, and the small matplotlib charts of the stats (no timestamps: the same corpus
gives the same bytes)."""

from __future__ import annotations

import base64
import io

import numpy as np
from PIL import Image, ImageDraw

PALETTE = ["#3a6ea5", "#e07a2f", "#4c9a5b", "#c3423f", "#8a63b8", "#8c6d4f", "#d16ba5", "#7f7f7f", "#b5bd3b",
           "#2fb5c4", "#f0b429", "#5b6770"]


def jpeg_uri(img: Image.Image, quality: int = 82) -> str:
    """The image as a JPEG data URI (baseline, not optimised: the same image gives the same bytes)."""
    buf = io.BytesIO()
    img.convert("RGB").save(buf, format="JPEG", quality=quality, optimize=False, progressive=False)
    return "data:image/jpeg;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def open_rgb(data: bytes) -> Image.Image:
    """An image file's bytes as an RGB image."""
    return Image.open(io.BytesIO(data)).convert("RGB")


def draw_boxes(img: Image.Image, boxes: list[list[float]], colour: tuple[int, int, int], width: int = 3,
               fill_alpha: int = 60) -> Image.Image:
    """Axis-aligned boxes ``[x0, y0, x1, y1]`` (image pixels), outlined and lightly filled."""
    return draw_quads(img, [[(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])] for b in boxes], colour,
                      width, fill_alpha)


def draw_quads(img: Image.Image, quads: list[list[tuple[float, float]]], colour: tuple[int, int, int],
               width: int = 3, fill_alpha: int = 60) -> Image.Image:
    """Quadrilaterals (four corners, image pixels) outlined and lightly filled."""
    base = img.convert("RGBA")
    overlay = Image.new("RGBA", base.size, (0, 0, 0, 0))
    d = ImageDraw.Draw(overlay)
    for q in quads:
        pts = [(float(x), float(y)) for x, y in q]
        d.polygon(pts, fill=(*colour, fill_alpha))
        d.line([*pts, pts[0]], fill=(*colour, 255), width=width)
    return Image.alpha_composite(base, overlay).convert("RGB")


def fit_width(img: Image.Image, width: int) -> Image.Image:
    """The image scaled down to ``width`` pixels (never up)."""
    if img.width <= width:
        return img
    return img.resize((width, max(1, round(img.height * width / img.width))), Image.Resampling.LANCZOS)


def crop_around(img: Image.Image, boxes: list[list[float]], pad: int, min_w: int = 420, min_h: int = 160
                 ) -> Image.Image:
    """A window around the boxes (padded, at least ``min_w`` x ``min_h``), shifted to stay inside the image."""
    x0 = min(b[0] for b in boxes) - pad
    y0 = min(b[1] for b in boxes) - pad
    x1 = max(b[2] for b in boxes) + pad
    y1 = max(b[3] for b in boxes) + pad
    w, h = max(x1 - x0, min(min_w, img.width)), max(y1 - y0, min(min_h, img.height))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    x0 = min(max(0.0, cx - w / 2), max(0.0, img.width - w))
    y0 = min(max(0.0, cy - h / 2), max(0.0, img.height - h))
    x1, y1 = min(img.width, x0 + w), min(img.height, y0 + h)
    return img.crop((int(x0), int(y0), max(int(x1), int(x0) + 1), max(int(y1), int(y0) + 1)))



def top_bars(labels: list[str], values: list[float], keep: int = 20) -> tuple[list[str], list[float]]:
    """The ``keep - 1`` largest bars and one "others" bar, so 50 domains still make a readable chart."""
    if len(labels) <= keep:
        return labels, values
    order = sorted(range(len(labels)), key=lambda i: (-values[i], labels[i]))
    head, rest = order[:keep - 1], order[keep - 1:]
    return ([labels[i] for i in head] + [f"{len(rest)} others"],
            [values[i] for i in head] + [sum(values[i] for i in rest)])


def chart(kind: str, labels: list[str], values: list[float], title: str, xlabel: str = "",
           colour: str = PALETTE[0]) -> str:
    """One small matplotlib chart as a PNG data URI (Agg backend; no timestamps in the file)."""
    import matplotlib

    if kind == "barh":
        labels, values = top_bars(labels, values)

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    n = max(1, len(labels))
    if kind == "barh":
        fig, ax = plt.subplots(figsize=(5.2, 0.9 + 0.28 * n), dpi=110)
        y = np.arange(n)[::-1]
        ax.barh(y, values, color=colour)
        ax.set_yticks(y, labels, fontsize=8)
        for yi, v in zip(y, values, strict=True):
            ax.text(v, yi, f" {v:g}", va="center", fontsize=7)
        ax.set_xlim(0, max(values or [1]) * 1.15)
    elif kind == "hist":
        fig, ax = plt.subplots(figsize=(5.2, 2.8), dpi=110)
        lo, hi = int(min(values or [0])), int(max(values or [1]))
        ax.hist(values, bins=np.arange(lo - 0.5, hi + 1.5), color=colour, edgecolor="white")
        step = max(1, (hi - lo + 1) // 10)
        ax.set_xticks(range(lo, hi + 1, step))
        ax.yaxis.get_major_locator().set_params(integer=True)
        ax.set_ylabel("documents", fontsize=8)
    else:
        fig, ax = plt.subplots(figsize=(5.2, 2.8), dpi=110)
        x = np.arange(n)
        ax.bar(x, values, color=[PALETTE[i % len(PALETTE)] for i in range(n)])
        ax.set_xticks(x, labels, fontsize=8, rotation=20 if n > 4 else 0)
        for xi, v in zip(x, values, strict=True):
            ax.text(xi, v, f"{v:g}", ha="center", va="bottom", fontsize=7)
        ax.set_ylim(0, max(values or [1]) * 1.18)
    ax.set_title(title, fontsize=10, loc="left")
    if xlabel:
        ax.set_xlabel(xlabel, fontsize=8)
    ax.tick_params(labelsize=8)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


__all__ = ["PALETTE", "chart", "crop_around", "draw_boxes", "draw_quads", "fit_width", "jpeg_uri", "open_rgb",
           "top_bars"]
