r"""Scan degradation speed: every capture device x tier of ours vs Augraphy's default pipeline, same pages.

Same page images for both sides (200-dpi Letter, 1700 x 2200 px): by default realistic text pages made
with reportlab + pymupdf (``sample_pages.make_page``); with ``--pdf`` every page of real PDFs, rasterised
at 200 dpi (a page of another size, e.g. A4, is scaled to fit Letter and padded with white). One
thread (OpenCV, OpenMP, numba and BLAS pinned to 1). Interleaved per page: Augraphy, then each of our
device x tier, the order reversed on every other page, so both sides see the same machine state.
``pristine`` is the identity in every device and is measured once. Per-page time is the thread's CPU
time (other processes on a shared machine do not inflate it); wall time is reported too.

Memory per worker: tracemalloc peak (numpy buffers included) for one page per method, in an untimed
pass; and the peak RSS (VmHWM) of a fresh subprocess that runs only our pipeline, every device x tier,
on one page (Augraphy's memory does not count), beside the same for one Augraphy page.

    python benchmarks/bench_degradations.py [--pages N] [--pdf FILE.pdf ...] [--reps 3] [--augraphy-reps 1]
                                            [--json out.json]

Augraphy needs opencv-python, which clashes with the project's opencv-python-headless: run this from a
separate venv that has augraphy (``--no-deps``) beside opencv-python-headless, with PYTHONPATH at the
repository root, e.g. (versions as in the project's venv):

    python3.11 -m venv /tmp/augvenv
    /tmp/augvenv/bin/pip install numpy==2.4.6 opencv-python-headless==5.0.0.93 pydantic==2.14.4 \
        reportlab==5.1.0 pymupdf==2.0 matplotlib==3.11.2 scipy==1.17.1
    /tmp/augvenv/bin/pip install --no-deps augraphy==8.2.6
    /tmp/augvenv/bin/pip install numba scikit-image scikit-learn requests
    PYTHONPATH=. /tmp/augvenv/bin/python benchmarks/bench_degradations.py --augraphy-reps 3

Augraphy's default pipeline draws its augmentations at random, so one page costs it anywhere from ~1 s
to ~16 s with the seed: per-page ratios are noisy with one Augraphy seed; use ``--augraphy-reps 3`` or more
for the measurement (each page's time is the median over its seeds, on both sides).

Our side is a capture as the corpus makes it, the scan file's encoding included (``encode_scan``); Augraphy's
side is its pipeline's output array, not encoded. Targets: every page of every device x tier < 250 ms; Augraphy / ours, ours taken as the slowest of our
device x tier on each page: median over pages >= 30x, worst page >= 15x (the scan issue's; ``scan_floor.py``
shows why the phone cannot meet the worst page at its resolution).
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import random  # noqa: E402
import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import cv2  # noqa: E402
import numpy as np  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_pages import make_page  # noqa: E402

from synthdocqa.degradations import degrade_page, encode_scan, sample_profile  # noqa: E402
from synthdocqa.ir.files import atomic_write_text  # noqa: E402
from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.ir.vocab import DEVICES, TIERS  # noqa: E402

DPI = 200
LETTER_PX = (1700, 2200)  # (width, height) of Letter at 200 dpi
BUDGET_MS = 250.0
DEVICE_TARGETS = {"flatbed": (30.0, 15.0), "photocopy": (30.0, 15.0), "fax": (30.0, 15.0), "phone": (20.0, 8.0)}
"""(median, worst page) of Augraphy / a device's slowest tier on the page, encoding included (the scan issue's)."""
AUGRAPHY = "augraphy_default"
PRISTINE = "pristine"  # the identity in every device: measured once
DEGRADING = tuple(t for t in TIERS if t != PRISTINE)
OURS: tuple[str, ...] = (PRISTINE, *(f"{d}/{t}" for d in DEVICES for t in DEGRADING))


def _device_tier(method: str) -> tuple[str, str]:
    return ("flatbed", PRISTINE) if method == PRISTINE else tuple(method.split("/"))  # type: ignore[return-value]


def _ours(method: str, page_img: np.ndarray, seed: int):
    """One capture as the corpus makes it: the page degraded, then written as its scan file (a fax's 1-bit PNG,
    a JPEG, a pristine PNG): the encoding is in the budget."""
    device, tier = _device_tier(method)
    path = ("bench", PRISTINE) if method == PRISTINE else ("bench", device, tier)
    page = sample_profile(tier, 1, Rng(seed, path), device).pages[0]  # sampled outside the timing
    return lambda: encode_scan(degrade_page(page_img, page, seed, DPI).image, tier, device=device)


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


def _method(m: str, page_img: np.ndarray, seed: int):
    return _augraphy(page_img, seed) if m == AUGRAPHY else _ours(m, page_img, seed)


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


def _proc_status_mib(key: str) -> float:
    """VmRSS / VmHWM of this process (its current address space, so a parent's RSS never counts)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _fit_letter(img: np.ndarray) -> np.ndarray:
    """Scale a page to fit 1700 x 2200 (aspect kept) and pad it, centred, with white."""
    w, h = LETTER_PX
    if img.shape[:2] == (h, w):
        return img
    s = min(w / img.shape[1], h / img.shape[0])
    nw, nh = min(w, round(img.shape[1] * s)), min(h, round(img.shape[0] * s))
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC)
    out = np.full((h, w, 3), 255, np.uint8)
    y, x = (h - nh) // 2, (w - nw) // 2
    out[y:y + nh, x:x + nw] = small
    return out


def _pdf_pages(paths: list[Path], limit: int | None) -> list[tuple[str, np.ndarray, bool]]:
    """(label, RGB page at 200 dpi fitted to Letter, whether it had to be fitted) for every page."""
    import pymupdf

    out = []
    for path in paths:
        with pymupdf.open(path) as doc:
            for k, page in enumerate(doc):
                if limit is not None and len(out) >= limit:
                    return out
                pix = page.get_pixmap(dpi=DPI, alpha=False)
                img = np.frombuffer(pix.samples, np.uint8).reshape(pix.height, pix.width, pix.n)
                img = img[..., :3] if pix.n >= 3 else np.repeat(img[..., :1], 3, axis=2)
                fitted = _fit_letter(np.ascontiguousarray(img))
                out.append((f"{path.parent.name}/{path.name}#{k + 1}", fitted.copy(), fitted.shape[:2] != img.shape[:2]))
    return out


def _child(kind: str, page_path: str) -> int:
    """Fresh-process peak RSS: ``ours`` runs every device x tier once, ``augraphy`` one default pipeline."""
    cv2.setNumThreads(1)
    img = np.load(page_path)
    scratch = None
    if kind == AUGRAPHY:
        scratch = tempfile.TemporaryDirectory(prefix="bench_degradations_rss_")
        _offline_augraphy(Path(scratch.name))
        import augraphy  # noqa: F401  (its imports count in the baseline, not in the pipeline's growth)
    base = _proc_status_mib("VmRSS")
    for m in ([AUGRAPHY] if kind == AUGRAPHY else OURS):
        _method(m, img, 1)()
    peak = _proc_status_mib("VmHWM")
    print(json.dumps({"rss_after_imports_mib": round(base, 1), "peak_rss_mib": round(peak, 1)}))
    if scratch is not None:
        os.chdir("/")
        scratch.cleanup()
    return 0


def _fresh_rss(kind: str, img: np.ndarray, workdir: Path, cwd: Path) -> dict:
    npy = workdir / "rss_page.npy"
    np.save(npy, img)
    r = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--_child", kind, "--_page", str(npy)],
                       cwd=cwd, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        print(f"[warn] RSS subprocess for {kind} failed:\n{r.stderr[-2000:]}", file=sys.stderr)
        return {"error": r.stderr[-500:]}
    return json.loads(r.stdout.strip().splitlines()[-1])


def _label(m: str) -> str:
    return "ours: pristine (all devices)" if m == PRISTINE else (
        "Augraphy default pipeline" if m == AUGRAPHY else f"ours: {m}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=None,
                    help="number of pages: generated pages (default 3), or the first N pages of the --pdf files "
                         "(default all)")
    ap.add_argument("--pdf", action="append", default=[], type=Path, metavar="FILE",
                    help="take every page of this PDF (repeatable) instead of generated pages")
    ap.add_argument("--reps", type=int, default=3, help="seeds per page for each of our device x tier")
    ap.add_argument("--augraphy-reps", type=int, default=1, help="seeds per page for Augraphy (slow: seconds each)")
    ap.add_argument("--json", default=None, type=Path, help="write every number, per page too, here")
    ap.add_argument("--_child", default=None, choices=["ours", AUGRAPHY], help=argparse.SUPPRESS)
    ap.add_argument("--_page", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args._child:
        return _child(args._child, args._page)
    if args.reps < 1 or args.augraphy_reps < 1 or (args.pages is not None and args.pages < 1):
        ap.error("--pages, --reps and --augraphy-reps must be >= 1")
    cv2.setNumThreads(1)

    here = Path.cwd()
    json_out = args.json.resolve() if args.json else None
    if args.pdf:
        loaded = _pdf_pages([p.resolve() for p in args.pdf], args.pages)
        if not loaded:
            ap.error("the --pdf files hold no pages")
        labels = [lab for lab, _, _ in loaded]
        pages = [img for _, img, _ in loaded]
        n_fitted = sum(f for _, _, f in loaded)
        source = f"{len(pages)} PDF pages from {len(args.pdf)} file(s) ({n_fitted} not Letter: fitted and padded)"
    else:
        n = args.pages or 3
        pages = [make_page(100 + i, DPI)[0] for i in range(n)]
        labels = [f"make_page({100 + i})" for i in range(n)]
        n_fitted = 0
        source = f"{n} generated text pages (sample_pages.make_page)"

    scratch = tempfile.TemporaryDirectory(prefix="bench_degradations_")
    _offline_augraphy(Path(scratch.name))
    import augraphy

    w, h = LETTER_PX
    print(f"{source}, {w}x{h} px (Letter at {DPI} dpi); {args.reps} seeds per page for each of our "
          f"{len(OURS)} device x tier methods, {args.augraphy_reps} for Augraphy {augraphy.__version__}; "
          f"1 thread; load average {os.getloadavg()[0]:.1f}", flush=True)
    methods = [AUGRAPHY, *OURS]
    cpu: dict[str, list[float]] = {m: [] for m in methods}
    wall: dict[str, list[float]] = {m: [] for m in methods}
    page_cpu: dict[str, list[list[float]]] = {m: [[] for _ in pages] for m in methods}
    # warm-up (imports, numba JIT, first-call allocations) outside the timings
    for m in OURS:
        _ours(m, pages[0], 0)()
    c_warm, w_warm = _time(_augraphy(pages[0], 0))
    print(f"Augraphy warm-up page (incl. JIT compilation): {c_warm:.0f} ms CPU, {w_warm:.0f} ms wall", flush=True)

    for i, img in enumerate(pages):
        order = methods if i % 2 == 0 else methods[::-1]  # alternate who goes first
        for r in range(max(args.reps, args.augraphy_reps)):
            seed = 1000 * i + r
            for m in order:
                if r >= (args.augraphy_reps if m == AUGRAPHY else args.reps):
                    continue
                c, wl = _time(_method(m, img, seed))
                cpu[m].append(c)
                wall[m].append(wl)
                page_cpu[m][i].append(c)
        print(f"  page {i + 1}/{len(pages)} ({labels[i]}): Augraphy {statistics.median(page_cpu[AUGRAPHY][i]):.0f} ms, "
              f"slowest of ours {max(statistics.median(page_cpu[m][i]) for m in OURS):.0f} ms", flush=True)

    # per page: each method's median over its seeds; ours' worst is the slowest device x tier on that page
    pm = {m: [statistics.median(v) for v in page_cpu[m]] for m in methods}
    worst_m = [max(OURS, key=lambda m, i=i: pm[m][i]) for i in range(len(pages))]
    ratio_worst = [pm[AUGRAPHY][i] / max(pm[worst_m[i]][i], 1e-9) for i in range(len(pages))]
    ratio_poor = {d: [pm[AUGRAPHY][i] / max(pm[f"{d}/poor"][i], 1e-9) for i in range(len(pages))] for d in DEVICES}
    ratio_device = {d: [pm[AUGRAPHY][i] / max(max(pm[f"{d}/{t}"][i] for t in DEGRADING), 1e-9)
                        for i in range(len(pages))] for d in DEVICES}
    # strict: Augraphy's fastest seed over our slowest single run of any device x tier, per page
    ratio_strict = [min(page_cpu[AUGRAPHY][i]) / max(max(max(page_cpu[m][i]) for m in OURS), 1e-9)
                    for i in range(len(pages))]

    peak = {m: _peak_mib(_method(m, pages[0], 1)) for m in methods}
    os.chdir(here)
    rss = {"ours_all_devices_tiers": _fresh_rss("ours", pages[0], Path(scratch.name), here),
           "augraphy_default": _fresh_rss(AUGRAPHY, pages[0], Path(scratch.name), here),
           "this_process_incl_augraphy": {"peak_rss_mib": round(_proc_status_mib("VmHWM"), 1)}}

    def summ(v: list[float]) -> dict:
        return {"median": round(statistics.median(v), 2), "worst": round(min(v), 2)}

    over = {m: sum(c >= BUDGET_MS for c in cpu[m]) for m in OURS}
    result = {
        "source": source, "page_labels": labels, "pages": len(pages), "pages_fitted_to_letter": n_fitted,
        "reps": args.reps, "augraphy_reps": args.augraphy_reps, "dpi": DPI, "size_px": [w, h],
        "load_average_1m": round(os.getloadavg()[0], 1),
        "versions": {"python": platform.python_version(), "augraphy": augraphy.__version__,
                     "opencv": cv2.__version__, "numpy": np.__version__, "machine": platform.processor() or platform.machine()},
        "augraphy_warmup_ms": {"cpu": round(c_warm, 1), "wall": round(w_warm, 1)},
        "median_cpu_ms": {m: round(statistics.median(v), 1) for m, v in cpu.items()},
        "max_cpu_ms": {m: round(max(v), 1) for m, v in cpu.items()},
        "median_wall_ms": {m: round(statistics.median(v), 1) for m, v in wall.items()},
        "max_wall_ms": {m: round(max(v), 1) for m, v in wall.items()},
        "runs_over_250ms": over, "runs_per_method": {m: len(cpu[m]) for m in methods},
        "per_page_cpu_ms": {m: [[round(c, 1) for c in v] for v in page_cpu[m]] for m in methods},
        "per_page_slowest_ours": worst_m,
        "ratio_augraphy_over_slowest_ours": {**summ(ratio_worst), "per_page": [round(x, 2) for x in ratio_worst]},
        "ratio_augraphy_over_poor": {d: {**summ(v), "per_page": [round(x, 2) for x in v]}
                                     for d, v in ratio_poor.items()},
        "ratio_augraphy_over_device_slowest_tier": {d: {**summ(v), "per_page": [round(x, 2) for x in v]}
                                                    for d, v in ratio_device.items()},
        "ratio_strict_min_augraphy_over_max_ours_run": summ(ratio_strict),
        "peak_tracemalloc_mib": {m: round(v, 1) for m, v in peak.items()},
        "peak_rss_mib": rss,
    }

    print("\n| method | median CPU ms/page | max CPU ms/page | median wall ms | runs >= 250 ms | peak traced MiB |")
    print("|---|---:|---:|---:|---:|---:|")
    for m in [*OURS, AUGRAPHY]:
        runs = f"{over[m]}/{len(cpu[m])}" if m in over else "-"
        print(f"| {_label(m)} | {result['median_cpu_ms'][m]:,} | {result['max_cpu_ms'][m]:,} | "
              f"{result['median_wall_ms'][m]:,} | {runs} | {result['peak_tracemalloc_mib'][m]:,} |")

    print("\n| page | Augraphy ms | slowest of ours | ms | Augraphy / slowest | "
          + " | ".join(f"/ {d} poor" for d in DEVICES) + " |")
    print("|---|---:|---|---:|---:|" + "---:|" * len(DEVICES))
    for i in range(len(pages)):
        print(f"| {labels[i]} | {pm[AUGRAPHY][i]:,.0f} | {worst_m[i]} | {pm[worst_m[i]][i]:.1f} | "
              f"{ratio_worst[i]:.1f}x | " + " | ".join(f"{ratio_poor[d][i]:.1f}x" for d in DEVICES) + " |")

    rw = result["ratio_augraphy_over_slowest_ours"]
    print(f"\nAugraphy / slowest of ours per page: median {rw['median']}x, worst page {rw['worst']}x "
          f"(strict, Augraphy's fastest seed / our slowest single run: worst page "
          f"{result['ratio_strict_min_augraphy_over_max_ours_run']['worst']}x)")
    print("Augraphy / each device's poor tier (median, worst page): " + "; ".join(
        f"{d} {v['median']}x, {v['worst']}x" for d, v in result["ratio_augraphy_over_poor"].items()))
    ro, ra = rss["ours_all_devices_tiers"], rss["augraphy_default"]
    print(f"peak RSS of a fresh worker: ours (all {len(OURS)} device x tier on one page) "
          f"{ro.get('peak_rss_mib', '?')} MiB ({ro.get('rss_after_imports_mib', '?')} after imports); "
          f"Augraphy (one page) {ra.get('peak_rss_mib', '?')} MiB ({ra.get('rss_after_imports_mib', '?')} after imports); "
          f"this process {rss['this_process_incl_augraphy']['peak_rss_mib']} MiB")
    ok_speed = all(over[m] == 0 for m in OURS)
    rd = result["ratio_augraphy_over_device_slowest_tier"]
    ok_device = {d: rd[d]["median"] >= DEVICE_TARGETS[d][0] and rd[d]["worst"] >= DEVICE_TARGETS[d][1] for d in DEVICES}
    ok_devices = all(ok_device.values())
    result["targets"] = {"every_run_under_250ms": ok_speed, "per_device": ok_device}
    print("Augraphy / each device's slowest tier on the page (median, worst page; target): " + "; ".join(
        f"{d} {rd[d]['median']}x, {rd[d]['worst']}x (>= {DEVICE_TARGETS[d][0]:g}x, {DEVICE_TARGETS[d][1]:g}x: "
        f"{'PASS' if ok_device[d] else 'FAIL'})" for d in DEVICES))
    print(f"targets: every page of every device x tier < 250 ms including encoding: {'PASS' if ok_speed else 'FAIL'}; "
          f"per device: {'PASS' if ok_devices else 'FAIL'}")
    scratch.cleanup()
    if json_out:
        atomic_write_text(json_out, json.dumps(result, indent=1) + "\n")
    return 0 if ok_speed and ok_devices else 1


if __name__ == "__main__":
    sys.exit(main())
