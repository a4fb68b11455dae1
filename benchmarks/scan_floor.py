"""What a phone capture of one page cannot skip, timed: the floor under ``degradations``' phone device.

The speed target of the scan issue compares our capture of a page with Augraphy's on the same page; Augraphy's
cost follows the ink on the page, ours the page's size, so the lowest ratio is on a near-blank page (717 ms for
Augraphy's three draws on the benchmark's worst page: 15x means <= 48 ms for our whole capture). This prints
the thread time of the whole-frame operations a camera capture is made of, on an A4 page at 200 dpi
(1654 x 2339 x 3, the benchmark's size), one thread, median and minimum of 7:

    .venv/bin/python benchmarks/scan_floor.py
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_v] = "1"

import time  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

H, W = 2339, 1654


def _time(fn, n: int = 7) -> tuple[float, float]:
    runs = []
    for _ in range(n):
        t0 = time.thread_time()
        fn()
        runs.append(time.thread_time() - t0)
    return 1000 * float(np.median(runs)), 1000 * min(runs)


def main() -> None:
    cv2.setNumThreads(1)
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
    total = 0.0
    for name, fn in ops.items():
        med, low = _time(fn)
        total += low
        print(f"{name:58s} median {med:6.1f} ms   min {low:6.1f} ms")
    print(f"{'sum of the minima':58s} {total:6.1f} ms")


if __name__ == "__main__":
    main()
