"""Planner speed on the reference profile, side by side with a named baseline.

Baseline: parsing the very same IRs back from their JSON (``DocumentIR.model_validate_json``), i.e.
what it costs merely to *load* the plans the planner builds. The ratio says how much more planning
costs than reading a plan from disk. Both run in this one process; CPU time is reported next to
wall time because the machine may be shared.

    .venv/bin/python benchmarks/bench_planner.py [--docs 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import statistics
import time

from synthdocqa.generation.planner import plan_document, qa_bearing_blocks
from synthdocqa.ir import DocumentIR
from synthdocqa.ir.spec import reference_spec


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    spec = reference_spec(seed=args.seed, n_docs=args.docs)

    cpu0, wall0 = time.process_time(), time.perf_counter()
    docs = [plan_document(spec, i) for i in range(args.docs)]
    plan_cpu, plan_wall = time.process_time() - cpu0, time.perf_counter() - wall0

    texts = [d.to_json() for d in docs]
    cpu0, wall0 = time.process_time(), time.perf_counter()
    for t in texts:
        DocumentIR.model_validate_json(t)
    load_cpu, load_wall = time.process_time() - cpu0, time.perf_counter() - wall0

    pages = [len(d.pages) for d in docs]
    blocks = sum(len(qa_bearing_blocks(d)) for d in docs)
    facts = sum(len(d.facts) for d in docs)
    print(f"reference profile, seed {args.seed}: {args.docs} docs, {sum(pages)} pages "
          f"(mean {statistics.mean(pages):.1f}), {blocks} QA-bearing blocks, {facts} facts, "
          f"{sum(len(t) for t in texts) / 1e6:.1f} MB of ir.json")
    print(f"plan_document        : {plan_cpu:7.2f} s CPU  {plan_wall:7.2f} s wall  "
          f"({1000 * plan_cpu / args.docs:.0f} ms CPU/doc)")
    print(f"baseline: load JSON  : {load_cpu:7.2f} s CPU  {load_wall:7.2f} s wall")
    print(f"ratio plan/load (CPU): {plan_cpu / load_cpu:.2f}x")


if __name__ == "__main__":
    main()
