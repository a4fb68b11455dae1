"""What a capture of one page cannot skip, timed: the floor under ``degradations``' devices.

The speed target of the scan issue compares our capture of a page with Augraphy's on the same page; Augraphy's
cost follows the ink on the page, ours the page's size, so the lowest ratio is on a near-blank page (717 ms for
Augraphy's three draws on the benchmark's worst page in the sixth session, 554 ms in the second scan pass: 15x
means <= 37-48 ms for our whole capture of that page, at every tier, since the benchmark takes a device's slowest
tier). On a Letter page at 200 dpi (1700 x 2200 x 3, the size ``bench_degradations.py`` times), one thread,
thread time, median and minimum of 7, this prints:

1. the whole-frame operations a camera capture is made of, one at a time, at the page's size;
2. the least capture the scan issue asks of a phone, at each phone tier's sensor resolution, and of a flatbed
   and a fax at each of theirs: one cheapest whole-frame operation per effect (the sensor's resize, paper, the
   page placed on the desk by one perspective warp or set skewed on the glass by one affine warp, one light
   field for the light, the hand's shadow and the glare, the optics' blur, the focus fall-off as the pipeline
   draws it, noise from a field drawn at 1/8 resolution, the resize back, the scan file's encoding: a JPEG at
   the tier's quality, a fax's 1-bit PNG); no ink, wear, stains or folds;
3. the sheet's wear the tiers add on top (the pipeline's own stages, forced on, drawn from the phone's table at
   poor, on a text page at poor's sensor resolution);
4. the pipeline itself beside the phone's least capture plus that wear, tier by tier, on the same text page (the
   scan issue asks the phone to stay within 1.3x of its floor): ``degrade_page`` and ``encode_scan``, 7 seeds.

    .venv/bin/python benchmarks/scan_floor.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_v] = "1"

import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from functools import partial  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_pages import make_page  # noqa: E402

from synthdocqa.degradations.devices import stage_table  # noqa: E402
from synthdocqa.degradations.pipeline import resolve_params  # noqa: E402
from synthdocqa.degradations.sampling import sample_stage  # noqa: E402
from synthdocqa.degradations.stages import get_stage  # noqa: E402
from synthdocqa.degradations.stages.capture import _falloff  # noqa: E402
from synthdocqa.degradations.tiers import SCAN_FORMAT  # noqa: E402
from synthdocqa.ir.rng import Rng  # noqa: E402

H, W = 2200, 1700
BUDGET_MS = 717.0 / 15.0
"""The worst benchmark page's Augraphy time over the issue's worst-page ratio."""
PHONE_TIERS = ("good", "fair", "degraded", "poor")
SHEET_WEAR = ("paper", "ink_bleed", "toner_fade", "bleed_through", "stains", "fold")


def _time(fn, n: int = 7) -> tuple[float, float]:
    runs = []
    for _ in range(n):
        t0 = time.thread_time()
        fn()
        runs.append(time.thread_time() - t0)
    return 1000 * float(np.median(runs)), 1000 * min(runs)


def _single_ops() -> None:
    rng = np.random.default_rng(0)
    page = np.full((H, W, 3), 235, np.uint8)
    page[300:900, 150:1500] = 40
    homography = np.array([[1.01, 0.02, -8], [-0.015, 0.99, 12], [1e-6, 2e-6, 1]], np.float64)
    mx, my = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    curl = cv2.convertMaps(mx + 1.5 * np.sin(my / 300), my, cv2.CV_16SC2)
    ops = {
        "place the page: one perspective warp of the frame": lambda: cv2.warpPerspective(page, homography, (W, H)),
        "page curl: one remap of the frame (fixed-point maps)": lambda: cv2.remap(page, curl[0], curl[1],
                                                                                  cv2.INTER_LINEAR),
        "sensor noise: one N(0,1) float32 draw per pixel": lambda: rng.standard_normal((H, W), dtype=np.float32),
        "light: one multiply of the frame by a field": lambda: cv2.multiply(page, page, scale=1 / 255),
        "the camera's file: JPEG q80 encode + decode": lambda: cv2.imdecode(
            cv2.imencode(".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR),
    }
    print("1. whole-frame operations at the page's size")
    minima = {}
    for name, fn in ops.items():
        med, minima[name] = _time(fn)
        print(f"   {name:58s} median {med:6.1f} ms   min {minima[name]:6.1f} ms")
    least = sum(v for k, v in minima.items() if k.startswith(("place", "light", "the camera")))
    print(f"   {'warp + light + JPEG (sum of minima)':58s} {least:6.1f} ms")


def _sheet(scale: float) -> tuple[np.ndarray, np.ndarray, Callable[[float, float], np.ndarray]]:
    """A plain page (paper and a block of ink), the same at a sensor ``scale``, and smooth random fields of that
    size (mean, spread; drawn at 1/8 resolution): what each least capture works on."""
    rng = np.random.default_rng(0)
    page = np.full((H, W, 3), 240, np.uint8)
    page[300:900, 150:1500] = 40
    h, w = int(round(H * scale)), int(round(W * scale))
    work = cv2.resize(page, (w, h), interpolation=cv2.INTER_LINEAR)

    def field(mean: float, spread: float) -> np.ndarray:
        small = rng.standard_normal((h // 8, w // 8, 3)).astype(np.float32) * spread + mean
        return np.clip(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), 0, 255).astype(np.uint8)

    return page, work, field


def _least_capture(scale: float, quality: int) -> list[tuple[str, float, float]]:
    """The phone's least capture at a sensor ``scale``, its file a JPEG of the page at ``quality``."""
    page, work, field = _sheet(scale)
    h, w = work.shape[:2]
    texture, light, noise, desk = field(245, 6), field(230, 20), field(128, 8), field(120, 30)
    placement = np.array([[0.9, 0.02, 40], [-0.015, 0.88, 60], [1e-6, 2e-6, 1]], np.float64)
    ops = {
        "the sensor: the page resized to its resolution": lambda: cv2.resize(page, (w, h),
                                                                             interpolation=cv2.INTER_LINEAR),
        "paper: one multiply by a texture field": lambda: cv2.multiply(work, texture, scale=1 / 255),
        "placement: one perspective warp onto the desk": lambda: cv2.warpPerspective(
            work, placement, (w, h), dst=desk.copy(), borderMode=cv2.BORDER_TRANSPARENT),
        "light, hand shadow, glare: one multiply by a field": lambda: cv2.multiply(work, light, scale=1 / 255),
        "optics: one 5x5 Gaussian blur": lambda: cv2.GaussianBlur(work, (5, 5), 0.9),
        "focus fall-off: the pipeline's banded blur": lambda: _falloff(work.copy(), 0.8, 0.0),
        "sensor noise: one add of a field drawn at 1/8": lambda: cv2.add(work, noise),
        "back to the page's size": lambda: cv2.resize(work, (W, H), interpolation=cv2.INTER_LINEAR),
        f"the scan file: JPEG q{quality} of the page": lambda: cv2.imencode(
            ".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, quality]),
    }
    return [(name, *_time(fn)) for name, fn in ops.items()]


def _least_flatbed(scale: float, quality: int) -> list[tuple[str, float, float]]:
    """A flatbed's least capture: the sheet skewed on the glass, paper, the optics, noise, the file."""
    page, work, field = _sheet(scale)
    h, w = work.shape[:2]
    texture, noise = field(245, 6), field(128, 8)
    skew = cv2.getRotationMatrix2D((w / 2, h / 2), 0.6, 1.0)
    ops = {
        "the sensor: the page resized to its resolution": lambda: cv2.resize(page, (w, h),
                                                                             interpolation=cv2.INTER_LINEAR),
        "paper: one multiply by a texture field": lambda: cv2.multiply(work, texture, scale=1 / 255),
        "skew on the glass: one affine warp": lambda: cv2.warpAffine(work, skew, (w, h),
                                                                     borderValue=(200, 200, 200)),
        "optics: one 5x5 Gaussian blur": lambda: cv2.GaussianBlur(work, (5, 5), 0.8),
        "sensor noise: one add of a field drawn at 1/8": lambda: cv2.add(work, noise),
        "back to the page's size": lambda: cv2.resize(work, (W, H), interpolation=cv2.INTER_LINEAR),
        f"the scan file: JPEG q{quality} of the page": lambda: cv2.imencode(
            ".jpg", page, [cv2.IMWRITE_JPEG_QUALITY, quality]),
    }
    return [(name, *_time(fn)) for name, fn in ops.items()]


def _least_fax(scale: float) -> list[tuple[str, float, float]]:
    """A fax's least capture: one grey plane, skewed through the rollers, thresholded, a 1-bit PNG."""
    page, work, _ = _sheet(scale)
    h, w = work.shape[:2]
    grey = cv2.resize(cv2.cvtColor(page, cv2.COLOR_RGB2GRAY), (w, h), interpolation=cv2.INTER_NEAREST)
    skew = cv2.getRotationMatrix2D((w / 2, h / 2), 1.0, 1.0)
    bits = cv2.threshold(cv2.resize(grey, (W, H), interpolation=cv2.INTER_NEAREST), 170, 255, cv2.THRESH_BINARY)[1]
    ops = {
        "the sensor: one grey plane at its resolution": lambda: cv2.resize(
            cv2.cvtColor(page, cv2.COLOR_RGB2GRAY), (w, h), interpolation=cv2.INTER_NEAREST),
        "skew through the rollers: one affine warp": lambda: cv2.warpAffine(grey, skew, (w, h), borderValue=255),
        "text mode: one threshold": lambda: cv2.threshold(grey, 170, 255, cv2.THRESH_BINARY),
        "back to the page's size": lambda: cv2.resize(grey, (W, H), interpolation=cv2.INTER_NEAREST),
        "the scan file: a 1-bit PNG of the page": lambda: cv2.imencode(
            ".png", bits, [cv2.IMWRITE_PNG_BILEVEL, 1, cv2.IMWRITE_PNG_COMPRESSION, 6]),
    }
    return [(name, *_time(fn)) for name, fn in ops.items()]


def _pipeline(device: str, tier: str, page: np.ndarray, seeds: int = 7) -> tuple[float, float]:
    """Median and minimum thread time of ``degrade_page`` + ``encode_scan`` over ``seeds`` draws."""
    from synthdocqa.degradations import degrade_page, encode_scan, sample_profile

    runs = []
    for s in range(seeds):
        rec = sample_profile(tier, 1, Rng(s, ("bench", "floor", device, tier)), device).pages[0]
        t0 = time.thread_time()
        encode_scan(degrade_page(page, rec, s, 200).image, tier, device=device)
        runs.append(time.thread_time() - t0)
    return 1000 * float(np.median(runs)), 1000 * min(runs)


def _mid(values) -> float:
    lo, hi = values["int"] if isinstance(values, dict) else values
    return (lo + hi) / 2


def _sheet_wear(scale: float) -> list[tuple[str, float, float]]:
    page, _ = make_page(0)
    h, w = int(round(H * scale)), int(round(W * scale))
    work = cv2.resize(cv2.resize(page, (W, H)), (w, h), interpolation=cv2.INTER_LINEAR)
    rows = []
    for name in SHEET_WEAR:
        record = sample_stage("poor", name, Rng(0, ("bench", "floor", name)), force=True, device="phone")
        params = resolve_params(record.params, 200 * scale)
        stage = get_stage(name)
        run = partial(stage.apply, work, params, Rng(0, ("bench", "floor", "apply", name)))
        rows.append((name, *_time(run)))
    return rows


def _quality(tier: str) -> int:
    return int(SCAN_FORMAT[tier]["quality"])


def main() -> None:
    cv2.setNumThreads(1)
    _single_ops()
    print(f"\n2. the least capture the issue asks for, per device and tier (budget {BUDGET_MS:.1f} ms)")
    floors = {}
    for tier in PHONE_TIERS:
        table = stage_table("phone", tier)
        scale = _mid(table["resample"]["params"]["scale"])
        rows = _least_capture(scale, _quality(tier))
        floors[tier] = sum(r[2] for r in rows)
        print(f"   phone    {tier:9s} sensor {scale:.2f}, file q{_quality(tier)}: sum of minima {floors[tier]:6.1f} ms")
        if tier == "poor":
            for name, med, low in rows:
                print(f"      {name:55s} median {med:6.1f} ms   min {low:6.1f} ms")
    for tier in PHONE_TIERS:
        scale = _mid(stage_table("flatbed", tier)["resample"]["params"]["scale"])
        rows = _least_flatbed(scale, _quality(tier))
        print(f"   flatbed  {tier:9s} sensor {scale:.2f}, file q{_quality(tier)}: sum of minima "
              f"{sum(r[2] for r in rows):6.1f} ms")
        if tier == "poor":
            for name, med, low in rows:
                print(f"      {name:55s} median {med:6.1f} ms   min {low:6.1f} ms")
    for tier in PHONE_TIERS:
        scale = _mid(stage_table("fax", tier)["resample"]["params"]["scale"])
        rows = _least_fax(scale)
        print(f"   fax      {tier:9s} sensor {scale:.2f}, 1-bit PNG: sum of minima {sum(r[2] for r in rows):6.1f} ms")
    scale = _mid(stage_table("phone", "poor")["resample"]["params"]["scale"])
    rows = _sheet_wear(scale)
    wear = sum(r[2] for r in rows)
    print(f"\n3. the sheet's wear on top (the pipeline's stages, phone poor, sensor {scale:.2f}): "
          f"sum of minima {wear:6.1f} ms")
    for name, med, low in rows:
        print(f"      {name:55s} median {med:6.1f} ms   min {low:6.1f} ms")
    page = cv2.resize(make_page(0)[0], (W, H))
    print("\n4. the phone pipeline (degrade + encode, a text page, 7 seeds) against its floor (least capture + wear)")
    for tier in PHONE_TIERS:
        med, low = _pipeline("phone", tier, page)
        floor = floors[tier] + wear
        print(f"   {tier:9s} pipeline median {med:6.1f} ms  min {low:6.1f} ms   floor {floor:6.1f} ms   "
              f"median / floor {med / floor:4.2f}x   min / floor {low / floor:4.2f}x")


if __name__ == "__main__":
    main()
