"""A worker's warm-up: a fresh process until the layout chooser is ready (the pipeline's imports, the
layout-CLIP, the 10,000-layout library's embeddings), then its first demo document; this checkout (ONNX
Runtime) against another checkout (``--baseline``: today's main, torch and open_clip), interleaved.

    .venv/bin/python benchmarks/bench_warmup.py --baseline /path/to/main-checkout [--repeat 3] [--json OUT]

Cache ``warm``: the library embeddings are on disk (every run after a machine's first); ``cold``: an empty
cache folder, so the thumbnails are drawn and embedded. One thread (OMP/OPENBLAS/MKL_NUM_THREADS=1), wall
and CPU seconds of the child, median and worst.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
_PROBE = """
import json, os, resource, sys, time
t0 = time.perf_counter()
pkg = sys.argv[1]
assemble = __import__(pkg + "corpus.assemble", fromlist=["x"])
spec_mod = __import__(pkg + "ir.spec", fromlist=["x"])
assemble.default_layout_chooser()
ready = time.perf_counter() - t0
assemble.build_document(spec_mod.spec_for_profile("demo", 31, n_docs=1), 0)
first = time.perf_counter() - t0
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"ready_s": ready, "first_doc_s": first, "cpu_s": ru.ru_utime + ru.ru_stime,
                  "torch_loaded": "torch" in sys.modules}))
"""


def run(side: str, src: Path, cache: str, tmp: Path) -> dict:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = str(src)  # a checkout with the one package takes its own folders (synthdocqa/__init__)
    pkg = "synthdocqa." if (src / "synthdocqa" / "__init__.py").is_file() else ""  # or one from before it
    cache_dir = tmp / f"cache-{side}"
    if cache == "cold":
        cache_dir = Path(tempfile.mkdtemp(dir=tmp, prefix=f"cold-{side}-"))
    env["SYNTHDOCQA_CACHE"] = str(cache_dir)
    out = subprocess.run([sys.executable, "-c", _PROBE, pkg], cwd=src, env=env, capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--baseline", required=True, help="a checkout of the code to compare against")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    sides = {"baseline": Path(args.baseline).resolve(), "this": REPO}
    results: dict = {}
    with tempfile.TemporaryDirectory(prefix="warmup-") as tmp:
        for side, src in sides.items():  # fill each side's warm cache once (not timed)
            run(side, src, "warm", Path(tmp))
        for cache in ("warm", "cold"):
            runs: dict[str, list[dict]] = {s: [] for s in sides}
            for _ in range(args.repeat):
                for side, src in sides.items():  # interleaved
                    runs[side].append(run(side, src, cache, Path(tmp)))
            for side, rs in runs.items():
                row = {k: {"median": statistics.median(r[k] for r in rs), "worst": max(r[k] for r in rs)}
                       for k in ("ready_s", "first_doc_s", "cpu_s")}
                row["torch_loaded"] = any(r["torch_loaded"] for r in rs)
                results[f"{side} {cache}"] = row
                print(f"{side:<9} cache {cache}: chooser ready {row['ready_s']['median']:.1f} s "
                      f"(worst {row['ready_s']['worst']:.1f}), first document {row['first_doc_s']['median']:.1f} s "
                      f"(worst {row['first_doc_s']['worst']:.1f}), CPU {row['cpu_s']['median']:.1f} s, "
                      f"torch loaded: {row['torch_loaded']}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
