"""Small-run latency of the main job, as a user meets it: whole CLI processes, wall time.

    .venv/bin/python benchmarks/bench_latency.py [--seeds 11,12,13] [--docs 3]

For each seed, interleaved: `synthdocqa render` of the demo documents (the baseline: the same documents,
no Prefect, no scans, no QA), `synthdocqa generate` into a fresh folder (cold, warm OS cache) and the same
`generate` again with every document complete (rerun). Prints each time, then the median and the worst of
cold / render and of the rerun. Threads are pinned to 1 (OMP/OpenBLAS/MKL) as in the pipeline's workers.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BIN = Path(sys.executable).parent / "synthdocqa"


def _wall(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    r = subprocess.run([str(BIN), *argv], env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {r.stderr[-2000:]}")
    return dt


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="11,12,13")
    ap.add_argument("--docs", type=int, default=3)
    args = ap.parse_args()
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("PREFECT_API_URL", None)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-latency-") as tmp:
        for seed in [int(s) for s in args.seeds.split(",")]:
            out = Path(tmp) / f"g{seed}"
            render = _wall(["render", "--seed", str(seed), "--docs", str(args.docs), "--out", str(Path(tmp) / f"r{seed}")],
                           env)
            cold = _wall(["generate", "--seed", str(seed), "--docs", str(args.docs), "--out", str(out), "--quiet"], env)
            rerun = _wall(["generate", "--seed", str(seed), "--docs", str(args.docs), "--out", str(out), "--quiet"], env)
            rows.append((seed, render, cold, rerun))
            print(f"seed {seed}: render {render:.2f} s, generate cold {cold:.2f} s ({cold / render:.2f}x render), "
                  f"rerun {rerun:.2f} s", flush=True)
            shutil.rmtree(out, ignore_errors=True)
    ratios = [c / r for _, r, c, _ in rows]
    reruns = [x for *_, x in rows]
    print(f"cold / render: median {statistics.median(ratios):.2f}x, worst {max(ratios):.2f}x; "
          f"rerun: median {statistics.median(reruns):.2f} s, worst {max(reruns):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
