"""What a phone capture of one page cannot skip, timed: the floor under ``degradations``' phone device.

The speed target of the scan issue compares our capture of a page with Augraphy's on the same page; Augraphy's
cost follows the ink on the page, ours the page's size, so the lowest ratio is on a near-blank page (717 ms for
Augraphy's three draws on the benchmark's worst page: 15x means <= 48 ms for our whole capture of that page, at
every tier, since the benchmark takes a device's slowest tier). On a Letter page at 200 dpi (1700 x 2200 x 3,
the size ``bench_degradations.py`` times), one thread, thread time, median and minimum of 7, this prints:

1. the whole-frame operations a camera capture is made of, one at a time, at the page's size;
2. the least capture the scan issue asks of a phone, at each phone tier's sensor resolution and JPEG
   quality (the middle of its ranges): one cheapest whole-frame operation per effect (the sensor's resize,
   paper, the page placed on the desk by one perspective warp, one light field for the light, the hand's
   shadow and the glare, the optics' blur, the focus fall-off as the pipeline draws it, noise from a field drawn
   at 1/8 resolution, the camera's JPEG, the resize back); no ink, wear, stains or folds;
3. the sheet's wear the tiers add on top (the pipeline's own stages, forced on, drawn from the phone's table at
   poor, on a text page at poor's sensor resolution).

    .venv/bin/python benchmarks/scan_floor.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_v] = "1"

import sys  # noqa: E402
import time  # noqa: E402
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


def _least_capture(scale: float, quality: int) -> list[tuple[str, float, float]]:
    rng = np.random.default_rng(0)
    page = np.full((H, W, 3), 240, np.uint8)
    page[300:900, 150:1500] = 40
    h, w = int(round(H * scale)), int(round(W * scale))
    work = cv2.resize(page, (w, h), interpolation=cv2.INTER_LINEAR)

    def field(mean: float, spread: float) -> np.ndarray:  # a smooth random field, drawn at 1/8 resolution
        small = rng.standard_normal((h // 8, w // 8, 3)).astype(np.float32) * spread + mean
        return np.clip(cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR), 0, 255).astype(np.uint8)

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
        f"the camera's JPEG (q{quality}) encode + decode": lambda: cv2.imdecode(
            cv2.imencode(".jpg", work, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR),
        "back to the page's size": lambda: cv2.resize(work, (W, H), interpolation=cv2.INTER_LINEAR),
    }
    return [(name, *_time(fn)) for name, fn in ops.items()]


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


def main() -> None:
    cv2.setNumThreads(1)
    _single_ops()
    print(f"\n2. the least phone capture the issue asks for, per tier (budget {BUDGET_MS:.1f} ms)")
    for tier in PHONE_TIERS:
        table = stage_table("phone", tier)
        scale, quality = _mid(table["resample"]["params"]["scale"]), int(_mid(table["jpeg"]["params"]["quality"]))
        rows = _least_capture(scale, quality)
        print(f"   {tier:9s} sensor {scale:.2f}, JPEG q{quality}: sum of minima {sum(r[2] for r in rows):6.1f} ms")
        if tier == "poor":
            for name, med, low in rows:
                print(f"      {name:55s} median {med:6.1f} ms   min {low:6.1f} ms")
    scale = _mid(stage_table("phone", "poor")["resample"]["params"]["scale"])
    rows = _sheet_wear(scale)
    print(f"\n3. the sheet's wear on top (the pipeline's stages, phone poor, sensor {scale:.2f}): "
          f"sum of minima {sum(r[2] for r in rows):6.1f} ms")
    for name, med, low in rows:
        print(f"      {name:55s} median {med:6.1f} ms   min {low:6.1f} ms")


if __name__ == "__main__":
    main()
