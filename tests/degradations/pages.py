"""Small synthetic page images for the degradation tests (fast to make, realistic enough)."""

from __future__ import annotations

import cv2
import numpy as np

from synthdocqa.degradations.geometry import map_boxes, map_points
from synthdocqa.ir.rng import Rng

TOL = 2.0  # px: how far a found marker may sit from where its box was mapped


def text_page(seed: int = 0, width: int = 425, height: int = 550, color: bool = True) -> np.ndarray:
    """A white page with lines of word-like text, a grey fill and a coloured header bar."""
    rng = Rng(seed, ("test", "page"))
    img = np.full((height, width, 3), 255, np.uint8)
    cv2.rectangle(img, (20, 20), (width - 20, 48), (40, 90, 170) if color else (90, 90, 90), -1)
    cv2.rectangle(img, (20, height - 90), (width // 2, height - 60), (170, 170, 170), -1)
    y = 70
    while y < height - 110:
        x = 24
        while x < width - 60:
            n = rng.integers(2, 9)
            word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))
            cv2.putText(img, word, (x, y), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (20, 20, 20), 1, cv2.LINE_AA)
            x += 9 * n + 8
        y += 16
    return img


def marker_page(width: int, height: int, boxes: np.ndarray) -> np.ndarray:
    """White RGB page with solid black squares at ``boxes`` (integer pixel boxes [x0, y0, x1, y1))."""
    img = np.full((height, width, 3), 255, np.uint8)
    for x0, y0, x1, y1 in boxes.astype(int):
        img[y0:y1, x0:x1] = 0
    return img


def marker_grid(width: int, height: int, size: int = 14, nx: int = 6, ny: int = 7, margin: int = 30) -> np.ndarray:
    """Marker boxes spread over the page, including near every edge (where curl and skew move most)."""
    xs = np.linspace(margin, width - margin - size, nx).round()
    ys = np.linspace(margin, height - margin - size, ny).round()
    return np.array([[x, y, x + size, y + size] for y in ys for x in xs], dtype=np.float64)


def find_markers(img: np.ndarray, threshold: int = 110, min_area: int = 20) -> tuple[np.ndarray, ...]:
    """Centroids (N, 2), bounding boxes (N, 4) and areas (N,) of dark connected components, in
    continuous pixel coordinates (pixel centres at +0.5)."""
    g = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)
    mask = (g < threshold).astype(np.uint8)
    n, _, stats, cents = cv2.connectedComponentsWithStats(mask, connectivity=8)
    keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= min_area]
    c = cents[keep] + 0.5
    s = stats[keep]
    boxes = np.stack([s[:, 0], s[:, 1], s[:, 0] + s[:, 2], s[:, 1] + s[:, 3]], 1).astype(float) if keep else np.zeros((0, 4))
    return c, boxes, s[:, cv2.CC_STAT_AREA].astype(float)


def check_markers(out: np.ndarray, boxes: np.ndarray, transforms, found=None, min_checked: float = 0.8,
                  box_tol: float = TOL) -> tuple[float, float]:
    """Every marker that lands fully inside the image is found within TOL px of its mapped centre,
    and its component's bounding box matches the mapped aabb within ``box_tol`` px per side."""
    h, w = out.shape[:2]
    centres, comp_boxes, _ = find_markers(out) if found is None else found
    assert len(centres) > 0, "no markers found in the output image"
    exp_centres = map_points((boxes[:, :2] + boxes[:, 2:]) / 2.0, transforms)
    _, aabbs = map_boxes(boxes, transforms)
    inside = (aabbs[:, 0] > 3) & (aabbs[:, 1] > 3) & (aabbs[:, 2] < w - 3) & (aabbs[:, 3] < h - 3)
    assert inside.mean() >= min_checked, f"only {inside.sum()} of {len(boxes)} markers checked"
    worst_c, worst_b = 0.0, 0.0
    for i in np.flatnonzero(inside):
        d = np.linalg.norm(centres - exp_centres[i], axis=1)
        j = int(np.argmin(d))
        worst_c = max(worst_c, float(d[j]))
        worst_b = max(worst_b, float(np.abs(comp_boxes[j] - aabbs[i]).max()))
        assert d[j] <= TOL, f"marker {i}: found {centres[j]}, mapped {exp_centres[i]} ({d[j]:.2f} px)"
        assert np.abs(comp_boxes[j] - aabbs[i]).max() <= box_tol, (
            f"marker {i}: component box {comp_boxes[j]} vs mapped aabb {aabbs[i]}")
    return worst_c, worst_b
