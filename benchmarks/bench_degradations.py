"""Scan degradation speed: our five tiers vs Augraphy's default pipeline, side by side in one process.

Same page images (realistic text pages, 200-dpi Letter, made with reportlab + pymupdf), one thread
(OpenCV, OpenMP, numba and BLAS pinned to 1). Per-page time is the thread's CPU time, so other
processes on a shared machine do not inflate it; wall time is reported too. Peak memory is measured
in a separate, untimed pass with tracemalloc (numpy buffers included), plus the process's peak RSS.

    .venv/bin/python benchmarks/bench_degradations.py [--pages 3] [--reps 3] [--augraphy-reps 1] [--json out.json]

Targets (issue 5): every tier < 250 ms/page; Augraphy default / ours-poor >= 10x (median ratio).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_pages import make_page  # noqa: E402

from degradations import degrade_page, sample_profile  # noqa: E402
from ir.files import atomic_write_text  # noqa: E402
from ir.rng import Rng  # noqa: E402
from ir.vocab import TIERS  # noqa: E402

DPI = 200


def _ours(tier: str, page_img: np.ndarray, seed: int):
    page = sample_profile(tier, 1, Rng(seed, ("bench", tier))).pages[0]
    return lambda: degrade_page(page_img, page, seed, DPI).image


def _offline_augraphy(workdir: Path) -> None:
    """Augraphy's Scribbles downloads handwriting fonts from the internet into ./fonts/ when that
    folder is empty. Keep it offline: run in a scratch folder whose fonts/ already holds a TTF
    (matplotlib's DejaVu Sans), and make any HTTP attempt from Augraphy fail at once."""
    import shutil

    import matplotlib
    import matplotlib.font_manager  # noqa: F401  (Augraphy's fallback path expects it imported)
    from augraphy.augmentations import scribbles

    fonts = workdir / "fonts"
    fonts.mkdir(parents=True, exist_ok=True)
    shutil.copy(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", fonts)
    os.chdir(workdir)

    def _no_network(*_a, **_k):
        raise OSError("network disabled in the benchmark")

    scribbles.requests.get = _no_network


def _augraphy(page_img: np.ndarray, seed: int):
    from augraphy import default_augraphy_pipeline

    bgr = cv2.cvtColor(page_img, cv2.COLOR_RGB2BGR)

    def run():
        random.seed(seed)  # Augraphy draws from the global generators; seeded here for repeatability
        np.random.seed(seed)  # noqa: NPY002
        return default_augraphy_pipeline().augment(bgr)["output"]

    return run


def _time(fn) -> tuple[float, float]:
    c0, w0 = time.thread_time(), time.perf_counter()
    fn()
    return (time.thread_time() - c0) * 1000.0, (time.perf_counter() - w0) * 1000.0


def _peak_mib(fn) -> float:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3, help="seeds per page for each of our tiers")
    ap.add_argument("--augraphy-reps", type=int, default=1, help="seeds per page for Augraphy (slow)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    import tempfile

    scratch = tempfile.TemporaryDirectory(prefix="bench_degradations_")
    here = Path.cwd()
    _offline_augraphy(Path(scratch.name))

    pages = [make_page(100 + i, DPI)[0] for i in range(args.pages)]
    h, w = pages[0].shape[:2]
    print(f"{args.pages} pages of {w}x{h} px (Letter at {DPI} dpi), {args.reps} seeds per tier and "
          f"{args.augraphy_reps} for Augraphy per page, 1 thread; load average {os.getloadavg()[0]:.1f}")
    methods = [*TIERS, "augraphy_default"]
    cpu: dict[str, list[float]] = {m: [] for m in methods}
    wall: dict[str, list[float]] = {m: [] for m in methods}
    # warm-up (imports, JIT, first-call allocations) outside the timings
    _ours("poor", pages[0], 0)()
    _augraphy(pages[0], 0)()
    per_page_ratio = []
    for i, img in enumerate(pages):
        poor_page = []
        for r in range(max(args.reps, args.augraphy_reps)):
            seed = 1000 * i + r
            for m in methods:  # interleaved: both sides see the same machine state
                if m == "augraphy_default" and r >= args.augraphy_reps or m != "augraphy_default" and r >= args.reps:
                    continue
                fn = _augraphy(img, seed) if m == "augraphy_default" else _ours(m, img, seed)
                c, wl = _time(fn)
                cpu[m].append(c)
                wall[m].append(wl)
                if m == "poor":
                    poor_page.append(c)
        aug_page = cpu["augraphy_default"][-args.augraphy_reps:]
        per_page_ratio.append(statistics.median(aug_page) / max(statistics.median(poor_page), 1e-9))
    peak = {m: _peak_mib(_augraphy(pages[0], 1) if m == "augraphy_default" else _ours(m, pages[0], 1))
            for m in methods}
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    result = {
        "pages": args.pages, "reps": args.reps, "augraphy_reps": args.augraphy_reps, "dpi": DPI,
        "size_px": [w, h], "load_average_1m": round(os.getloadavg()[0], 1),
        "median_cpu_ms": {m: round(statistics.median(v), 1) for m, v in cpu.items()},
        "max_cpu_ms": {m: round(max(v), 1) for m, v in cpu.items()},
        "median_wall_ms": {m: round(statistics.median(v), 1) for m, v in wall.items()},
        "peak_tracemalloc_mib": {m: round(v, 1) for m, v in peak.items()},
        "process_peak_rss_mib": round(rss, 1),
        "ratio_augraphy_over_poor_median_per_page": round(statistics.median(per_page_ratio), 2),
        "ratio_augraphy_over_poor_of_medians": round(
            statistics.median(cpu["augraphy_default"]) / statistics.median(cpu["poor"]), 2),
    }
    print("\n| method | median CPU ms/page | max CPU ms | median wall ms | peak traced MiB |")
    print("|---|---:|---:|---:|---:|")
    for m in methods:
        print(f"| {m} | {result['median_cpu_ms'][m]} | {result['max_cpu_ms'][m]} | "
              f"{result['median_wall_ms'][m]} | {result['peak_tracemalloc_mib'][m]} |")
    print(f"\nAugraphy default / ours-poor: median per-page ratio {result['ratio_augraphy_over_poor_median_per_page']}x "
          f"(ratio of medians {result['ratio_augraphy_over_poor_of_medians']}x); process peak RSS {rss:.0f} MiB")
    ok_speed = all(result["median_cpu_ms"][t] < 250 for t in TIERS)
    ok_ratio = result["ratio_augraphy_over_poor_median_per_page"] >= 10
    print(f"targets: every tier < 250 ms/page: {'PASS' if ok_speed else 'FAIL'}; "
          f"augraphy/poor >= 10x: {'PASS' if ok_ratio else 'FAIL'}")
    os.chdir(here)
    scratch.cleanup()
    if args.json:
        atomic_write_text(args.json, json.dumps(result, indent=1) + "\n")
    return 0 if ok_speed and ok_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
