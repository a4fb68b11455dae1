"""Corpus generation throughput through the generate-corpus flow.

    speedup   : ``synthdocqa generate`` as a user runs it (whole CLI processes, a temporary Prefect API,
                the report), 1 worker (the baseline: documents in the run's own process) and 2 workers (a
                pool forked from the warm fork server), interleaved per seed with the order alternating;
                prints the wall times, the ratio per seed, its median and worst, and checks that the two
                corpora are byte-identical. Threads pinned to 1.
    reference : the full reference profile (100 docs, ~4,400 pages) with 2 workers: wall time, pages/s,
                pages/doc, QA/page, assertions/QA and the QA mix by type and element.

    .venv/bin/python benchmarks/bench_generate.py speedup --docs 24 --seeds 51,52,53 [--pages demo+]
    .venv/bin/python benchmarks/bench_generate.py reference --out /tmp/reference
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

from synthdocqa.corpus.store import load_manifest
from synthdocqa.flows.generate import generate_corpus_flow
from synthdocqa.flows.prefect_env import prefect_api
from synthdocqa.ir.spec import reference_spec


def _run(spec, out: Path, workers: int, runner: str) -> float:
    """Wall time of one flow run."""
    t0 = time.perf_counter()
    generate_corpus_flow(spec=spec.model_dump(mode="json"), out=str(out), workers=workers, runner=runner)
    return time.perf_counter() - t0


def _cli(spec_file: Path, seed: int, out: Path, workers: int) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("PREFECT_API_URL", None)
    argv = [str(Path(sys.executable).parent / "synthdocqa"), "generate", "--spec", str(spec_file), "--seed", str(seed),
            "--out", str(out), "--workers", str(workers), "--quiet"]
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {r.stderr[-2000:]}")
    return dt


def speedup(args) -> dict:
    # demo: the demo profile as shipped (~3 pages a document); demo+: longer documents (~8 pages each)
    rows = []
    root = Path(tempfile.mkdtemp(prefix="bench-generate-"))
    try:
        spec_file = root / "demo-plus.json"
        spec = {"profile": "demo", "name": "demo", "n_docs": args.docs}
        if args.pages == "demo+":
            spec.update(name="demo-plus", pages={"mean": 8, "sigma": 0.3, "min": 4, "max": 14})
        spec_file.write_text(json.dumps(spec))
        for k, seed in enumerate(int(x) for x in args.seeds.split(",")):
            walls = {}
            for w in ((1, 2) if k % 2 == 0 else (2, 1)):
                walls[w] = _cli(spec_file, seed, root / f"s{seed}-w{w}", w)
            m1, m2 = load_manifest(root / f"s{seed}-w1"), load_manifest(root / f"s{seed}-w2")
            row = {"seed": seed, "pages": m1.stats["pages"], "one_worker_s": round(walls[1], 1),
                   "two_workers_s": round(walls[2], 1), "speedup": round(walls[1] / walls[2], 2),
                   "identical": m1.files == m2.files}
            print(json.dumps(row), flush=True)
            rows.append(row)
            for w in (1, 2):
                shutil.rmtree(root / f"s{seed}-w{w}", ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    ratios = [r["speedup"] for r in rows]
    return {"docs": args.docs, "pages_profile": args.pages, "runs": rows, "speedup_median": statistics.median(ratios),
            "speedup_worst": min(ratios), "identical": all(r["identical"] for r in rows)}


def reference(args) -> dict:
    spec = reference_spec(args.seed)
    out = Path(args.out)
    with prefect_api():
        wall = _run(spec, out, args.workers, "process")
    s = load_manifest(out).stats
    n_qa = s["qa_pairs"]
    return {"docs": s["documents"], "pages": s["pages"], "wall_s": round(wall, 1),
            "pages_per_s": round(s["pages"] / wall, 2), "pages_per_doc": s["pages_per_doc"],
            "qa_per_page": s["qa_per_page"], "assertions_per_qa": s["assertions_per_qa"], "qa": n_qa,
            "assertions": s["assertions"], "domains": s["domains"],
            "qa_by_type": {k: round(v / n_qa, 3) for k, v in s["qa_by_type"].items()},
            "qa_by_element": {k: round(v / n_qa, 3) for k, v in s["qa_by_element"].items()}}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=["speedup", "reference"])
    ap.add_argument("--docs", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0, help="reference: the root seed")
    ap.add_argument("--seeds", default="51,52,53", help="speedup: comma-separated seeds, one pair of runs each")
    ap.add_argument("--pages", choices=["demo", "demo+"], default="demo",
                    help="speedup: document length: the demo profile's (~3 pages) or demo+ (~8 pages)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="out/reference")
    args = ap.parse_args()
    res = speedup(args) if args.mode == "speedup" else reference(args)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
