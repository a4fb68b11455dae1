"""Generation time per page with the issuer world against a baseline checkout, both sides in one run.

    .venv/bin/python benchmarks/bench_world_cost.py --baseline /tmp/wt/base --seeds 91,92,93 --docs 3

For each seed, ``synthdocqa generate --profile reference --docs N --workers 1`` runs once from the baseline
checkout and once from this one (``PYTHONPATH`` names the checkout; the order alternates per seed), threads
pinned to one; each run's wall time over the pages it wrote (the world changes what a document holds, so
pages, not documents, are the unit). Prints seconds per page for each run, the ratio this/baseline per
seed, its median and worst, and the scale ratios of this side's corpora (pages/doc, QA/page,
assertions/QA) against the reference's 43.7, 3.8 and 1.29.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
REFERENCE = {"pages/doc": 43.7, "QA/page": 3.8, "assertions/QA": 1.29}


def run(checkout: Path, seed: int, docs: int, out: Path) -> tuple[float, dict]:
    env = {**os.environ, "PYTHONPATH": str(checkout), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "synthdocqa", "generate", "--profile", "reference", "--seed", str(seed),
                    "--docs", str(docs), "--workers", "1", "--out", str(out), "--quiet"], check=True, env=env,
                   cwd=checkout, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    manifest = json.loads((out / "corpus.json").read_text("utf-8"))
    return wall, manifest


def counts(manifest: dict) -> dict[str, int]:
    c = manifest["stats"]
    return {"docs": c["documents"], "pages": c["pages"], "qa": c["qa_pairs"], "assertions": c["assertions"]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", required=True, help="a checkout of the code before the change")
    ap.add_argument("--seeds", default="91,92,93")
    ap.add_argument("--docs", type=int, default=3)
    args = ap.parse_args(argv)
    seeds = [int(s) for s in args.seeds.split(",")]
    sides = {"baseline": Path(args.baseline).resolve(), "this": HERE}
    per_page: dict[str, list[float]] = {"baseline": [], "this": []}
    totals = {"docs": 0, "pages": 0, "qa": 0, "assertions": 0}
    work = Path(tempfile.mkdtemp(prefix="world_cost_"))
    try:
        for k, seed in enumerate(seeds):
            order = ["baseline", "this"] if k % 2 == 0 else ["this", "baseline"]
            for side in order:
                out = work / f"{side}-{seed}"
                wall, manifest = run(sides[side], seed, args.docs, out)
                c = counts(manifest)
                per_page[side].append(wall / max(1, c["pages"]))
                print(f"seed {seed} {side:8s} {wall:7.1f} s  {c['pages']:4d} pages  {wall / max(1, c['pages']):.3f} s/page",
                      flush=True)
                if side == "this":
                    for key in totals:
                        totals[key] += c[key]
                shutil.rmtree(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratios = [t / b for t, b in zip(per_page["this"], per_page["baseline"], strict=True)]
    print(f"ratio this/baseline per seed: {', '.join(f'{r:.2f}' for r in ratios)}; median "
          f"{statistics.median(ratios):.2f}, worst {max(ratios):.2f}")
    got = {"pages/doc": totals["pages"] / max(1, totals["docs"]), "QA/page": totals["qa"] / max(1, totals["pages"]),
           "assertions/QA": totals["assertions"] / max(1, totals["qa"])}
    for key, ref in REFERENCE.items():
        print(f"{key}: {got[key]:.2f} (reference {ref}, {100 * (got[key] / ref - 1):+.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
