"""Shared building blocks of the stages: smooth random fields and fast uint8 compositing.

Everything full-resolution goes through OpenCV's saturating uint8 kernels (multiply by a field
scaled to 255, LUTs, min); random fields are drawn at low resolution and upsampled, which is both
what makes them smooth and what keeps a 200-dpi Letter page well under the time budget.
"""

from __future__ import annotations

import cv2
import numpy as np

from ir.rng import Rng


def channels(img: np.ndarray) -> int:
    return 1 if img.ndim == 2 else img.shape[2]


def like_image(field: np.ndarray, img: np.ndarray) -> np.ndarray:
    """A (H, W) field repeated to the image's channel count."""
    if img.ndim == 3 and field.ndim == 2:
        if img.shape[2] == 3 and field.dtype == np.uint8:
            return cv2.cvtColor(field, cv2.COLOR_GRAY2RGB)
        return cv2.merge([field] * img.shape[2])
    return field


def to_u8(field: np.ndarray, scale: float = 255.0) -> np.ndarray:
    """float field -> saturated uint8 of ``field * scale`` (rounded)."""
    out = np.empty(field.shape, np.uint8)
    cv2.convertScaleAbs(np.clip(field, 0.0, None) * np.float32(scale), dst=out)
    return out


def multiply(img: np.ndarray, factor_u8: np.ndarray, unit: float = 255.0) -> np.ndarray:
    """``img * factor / unit`` with a (H, W) or (H, W, C) uint8 factor (saturating)."""
    return cv2.multiply(img, like_image(factor_u8, img), scale=1.0 / unit)


def smooth_noise(rng: Rng, height: int, width: int, cell: float, low_res_scale: int = 1) -> np.ndarray:
    """Zero-mean, roughly unit-variance noise with feature size ``cell`` px, float32 of shape
    (height // low_res_scale, width // low_res_scale) (bicubic upsampling of a coarse Gaussian grid)."""
    cell = max(float(cell), 1.0)
    gh = max(int(np.ceil(height / cell)) + 2, 2)
    gw = max(int(np.ceil(width / cell)) + 2, 2)
    coarse = rng.gen.standard_normal((gh, gw), dtype=np.float32)
    oh = max(height // low_res_scale, 1)
    ow = max(width // low_res_scale, 1)
    out = cv2.resize(coarse, (ow, oh), interpolation=cv2.INTER_CUBIC)
    return out / np.float32(max(float(out.std()), 1e-6))


def paper_level(img: np.ndarray) -> np.ndarray:
    """Per-channel background (paper) level: the 90th percentile of a sparse sample, float (C,)."""
    sample = img[::7, ::7].reshape(-1, channels(img))
    return np.percentile(sample, 90, axis=0).astype(np.float64)


def border_value(img: np.ndarray, factor: float) -> tuple[float, ...]:
    """Scanner-lid colour beyond the page edge: the paper level times ``factor`` (cv2 Scalar)."""
    lv = paper_level(img) * factor
    return tuple(float(v) for v in lv) + (0.0,) * (4 - len(lv))


def gray(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)


def _normal_quantiles() -> np.ndarray:
    """256 standard-normal quantiles at (k + 0.5) / 256: a byte through this table is ~N(0, 1)."""
    from scipy.special import ndtri

    return ndtri((np.arange(256) + 0.5) / 256.0)


_QUANTILES = _normal_quantiles()


def gaussian_u8(rng: Rng, height: int, width: int, sigma: float, mean: float = 128.0) -> np.ndarray:
    """uint8 Gaussian noise ``mean + sigma * N(0, 1)`` (saturated): random bytes through a quantile
    LUT, ~10x cheaper than drawing float normals at full resolution."""
    lut = np.clip(np.round(mean + sigma * _QUANTILES), 0, 255).astype(np.uint8)
    raw = np.frombuffer(rng.gen.bytes(height * width), np.uint8).reshape(height, width)
    return cv2.LUT(raw, lut)


