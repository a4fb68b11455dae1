"""Shared building blocks of the stages: smooth random fields and fast uint8 compositing.

Everything full-resolution goes through OpenCV's saturating uint8 kernels (multiply by a field
scaled to 255, LUTs, min); random fields are drawn at low resolution and upsampled, which is both
what makes them smooth and what keeps a 200-dpi Letter page well under the time budget.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from synthdocqa.ir.rng import Rng


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
    if sample.dtype != np.uint8 or sample.shape[0] == 0:
        return np.percentile(sample, 90, axis=0).astype(np.float64)
    return _percentile_90_u8(sample)


_Q90 = 90 / 100  # the double ``np.percentile`` takes q=90 to (``np.true_divide(90, 100)``)


def _percentile_90_u8(sample: np.ndarray) -> np.ndarray:
    """``np.percentile(sample, 90, axis=0)`` of a uint8 (n, C) sample, bit for bit: numpy's linear method
    (virtual index ``(n - 1) q``, its two neighbours, its lerp in the same operations), without its
    ``np.unique`` call, which loads ``numpy.ma`` (~40 ms of a one-page process)."""
    n = sample.shape[0]
    virtual = (n - 1) * _Q90
    lo = n - 1 if virtual >= n - 1 else math.floor(virtual)
    hi = min(lo + 1, n - 1)
    part = np.partition(sample, sorted({lo, hi}), axis=0)
    a, b = part[lo], part[hi]
    t = virtual - lo
    diff = b - a
    if t >= 0.5:
        return np.subtract(b, diff * (1 - t), dtype=np.float64)
    return np.add(a, diff * t, dtype=np.float64)


def border_value(img: np.ndarray, factor: float) -> tuple[float, ...]:
    """Scanner-lid colour beyond the page edge: the paper level times ``factor`` (cv2 Scalar)."""
    lv = paper_level(img) * factor
    return tuple(float(v) for v in lv) + (0.0,) * (4 - len(lv))


def gray(img: np.ndarray) -> np.ndarray:
    return img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_RGB2GRAY)


# Cephes ``ndtri`` (S. L. Moshier), the algorithm behind ``scipy.special.ndtri``, for exp(-32) < p < 1 - exp(-32):
# the same coefficients and operation order give scipy's float64 values bit for bit on the table below
# (tests/degradations/test_degrade_cli_imports.py checks), without importing scipy (~0.2 s) per process.
_NDTRI_EXPM2 = 0.13533528323661269189  # exp(-2)
_NDTRI_S2PI = 2.50662827463100050242  # sqrt(2 pi)
_NDTRI_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
             1.39312609387279679503e1, -1.23916583867381258016e0)
_NDTRI_Q0 = (1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
             -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1,
             1.59056225126211695515e1, -1.18331621121330003142e0)
_NDTRI_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1,
             4.40805073893200834700e1, 1.46849561928858024014e1, 2.18663306850790267539e0,
             -1.40256079171354495875e-1, -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_NDTRI_Q1 = (1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
             1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
             -3.80806407691578277194e-2, -9.33259480895457427372e-4)


def _polevl(x: float, coef: tuple[float, ...], monic: bool = False) -> float:
    """Horner's rule, highest power first; ``monic``: an implied leading 1 (cephes ``p1evl``)."""
    acc = x + coef[0] if monic else coef[0]
    for c in coef[1:]:
        acc = acc * x + c
    return acc


def _ndtri(p: float) -> float:
    """The standard-normal quantile of ``p`` (cephes ``ndtri``), for exp(-32) < p < 1 - exp(-32)."""
    y, upper = p, False
    if y > 1.0 - _NDTRI_EXPM2:
        y, upper = 1.0 - y, True
    if y > _NDTRI_EXPM2:
        y = y - 0.5
        y2 = y * y
        x = y + y * (y2 * _polevl(y2, _NDTRI_P0) / _polevl(y2, _NDTRI_Q0, monic=True))
        return x * _NDTRI_S2PI
    if not y > 1.2664165549e-14:  # exp(-32): cephes switches to a third rational function there
        raise ValueError(f"_ndtri: p={p!r} outside (exp(-32), 1 - exp(-32))")
    x = math.sqrt(-2.0 * math.log(y))
    x0 = x - math.log(x) / x
    z = 1.0 / x
    x1 = z * _polevl(z, _NDTRI_P1) / _polevl(z, _NDTRI_Q1, monic=True)
    x = x0 - x1
    return x if upper else -x


def _normal_quantiles() -> np.ndarray:
    """256 standard-normal quantiles at (k + 0.5) / 256: a byte through this table is ~N(0, 1)."""
    return np.array([_ndtri(float(p)) for p in (np.arange(256) + 0.5) / 256.0], dtype=np.float64)


_QUANTILES = _normal_quantiles()


def gaussian_u8(rng: Rng, height: int, width: int, sigma: float, mean: float = 128.0) -> np.ndarray:
    """uint8 Gaussian noise ``mean + sigma * N(0, 1)`` (saturated): random bytes through a quantile
    LUT, ~10x cheaper than drawing float normals at full resolution."""
    lut = np.clip(np.round(mean + sigma * _QUANTILES), 0, 255).astype(np.uint8)
    raw = np.frombuffer(rng.gen.bytes(height * width), np.uint8).reshape(height, width)
    return cv2.LUT(raw, lut)


def smooth_1d(gen: np.random.Generator, n: int, cell: float) -> np.ndarray:
    """Smooth zero-mean, roughly unit-variance 1D noise of length ``n`` with feature size ``cell``."""
    k = max(int(math.ceil(n / max(cell, 1.0))) + 2, 2)
    coarse = gen.standard_normal((1, k)).astype(np.float32)
    return cv2.resize(coarse, (max(n, 1), 1), interpolation=cv2.INTER_CUBIC)[0]
