"""Corpus generation throughput through the generate-corpus flow.

    speedup   : the same corpus with 1 worker (baseline, in-process) and with 2 worker processes, side by
                side; prints the wall times, the speed-up ratio, and checks both corpora are byte-identical.
    reference : the full reference profile (100 docs, ~4,400 pages) with 2 workers: wall time, pages/s,
                pages/doc, QA/page, assertions/QA and the QA mix by type and element.

    .venv/bin/python benchmarks/bench_generate.py speedup --docs 24
    .venv/bin/python benchmarks/bench_generate.py reference --out /tmp/reference
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from corpus.store import load_manifest
from flows.generate import generate_corpus_flow
from flows.prefect_env import prefect_api
from ir.spec import PageCountDist, demo_spec, reference_spec


def _run(spec, out: Path, workers: int, runner: str, marks: list | None = None) -> float:
    """Wall time of one flow run; ``marks`` collects (time, pages) as each document completes."""
    import flows.generate as fg

    if marks is not None:
        fg._progress_hook = lambda n, total, rec: marks.append((time.perf_counter(), rec.n_pages)) if rec else None
    t0 = time.perf_counter()
    try:
        generate_corpus_flow(spec=spec.model_dump(mode="json"), out=str(out), workers=workers, runner=runner)
    finally:
        fg._progress_hook = None
    return time.perf_counter() - t0


def _steady_rate(marks: list) -> float:
    """Pages/s between the first and the last completed document (warm-up and assembly excluded)."""
    marks = sorted(marks)
    pages = sum(p for _, p in marks[1:])
    return pages / (marks[-1][0] - marks[0][0])


def speedup(args) -> dict:
    # demo+: the demo spec with more and longer documents (~8 pages each)
    spec = demo_spec(args.seed, args.docs).model_copy(
        update={"name": "demo-plus", "pages": PageCountDist(mean=8, sigma=0.3, min=4, max=14)})
    root = Path(tempfile.mkdtemp(prefix="bench-generate-"))
    try:
        k1: list = []
        k2: list = []
        with prefect_api():
            t1 = _run(spec, root / "w1", 1, "inline", k1)
            t2 = _run(spec, root / "w2", 2, "process", k2)
        m1, m2 = load_manifest(root / "w1"), load_manifest(root / "w2")
        r1, r2 = _steady_rate(k1), _steady_rate(k2)
        res = {"docs": spec.n_docs, "pages": m1.stats["pages"], "baseline_1_worker_s": round(t1, 1),
               "two_workers_s": round(t2, 1), "speedup_end_to_end": round(t1 / t2, 2),
               "steady_pages_per_s_1_worker": round(r1, 2), "steady_pages_per_s_2_workers": round(r2, 2),
               "speedup_steady": round(r2 / r1, 2), "identical": m1.files == m2.files}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return res


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
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default="out/reference")
    args = ap.parse_args()
    res = speedup(args) if args.mode == "speedup" else reference(args)
    print(json.dumps(res, indent=1))


if __name__ == "__main__":
    main()
