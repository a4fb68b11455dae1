"""Layout retrieval cost: embedding the 10,000-layout library (cold vs. cached) and per-page query latency.

    .venv/bin/python benchmarks/bench_retrieval.py [--library DIR] [--weights FILE] [--docs 12]

Baselines, run side by side: the cached load against the cold embedding, and the top-k ranking
(argpartition + exact tie-safe sort of the shortlist) against a full tie-safe sort of all 10,000 scores.
Per-page latency is measured on planner pages (their ``layout_query``) through ``choose_layout``
(text embedding + cosine + constraints + seeded choice), one thread as in the library.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthdocqa.generation.planner import plan_document  # noqa: E402
from synthdocqa.ir.spec import demo_spec  # noqa: E402
from synthdocqa.renderers.layout.assign import page_layout_rng  # noqa: E402
from synthdocqa.renderers.layout.clip_model import load_clip  # noqa: E402
from synthdocqa.renderers.layout.layout_queries import page_query  # noqa: E402
from synthdocqa.renderers.layout.layouts import DEFAULT_LIBRARY_SEED, DEFAULT_LIBRARY_SIZE  # noqa: E402
from synthdocqa.renderers.layout.library_build import build_library  # noqa: E402
from synthdocqa.renderers.layout.retrieval import LayoutRetriever, choose_layout  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(xs), q))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--library", default="/tmp/synthdocqa-lib10k")
    ap.add_argument("--weights", default=None)
    ap.add_argument("--docs", type=int, default=12)
    args = ap.parse_args()
    lib_dir = Path(args.library)
    if not (lib_dir / "library.json").is_file():
        build_library(DEFAULT_LIBRARY_SEED, DEFAULT_LIBRARY_SIZE, lib_dir)
    clip = load_clip("layout-clip-tiny", args.weights)
    with tempfile.TemporaryDirectory() as cache:
        t0 = time.perf_counter()
        r = LayoutRetriever.from_library_dir(lib_dir, clip, cache_dir=cache)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        r = LayoutRetriever.from_library_dir(lib_dir, clip, cache_dir=cache)
        warm = time.perf_counter() - t0
    n = len(r.ids)
    print(f"library: {n} layouts, embedding dim {r.emb.shape[1]}")
    print(f"embed library cold (read {n} PNGs + image tower): {cold:8.2f} s  ({n / cold:,.0f} layouts/s)")
    print(f"load from cache (incl. library id hash):          {warm:8.2f} s  -> cached is {cold / warm:,.0f}x faster")

    spec = demo_spec(seed=0, n_docs=args.docs)
    pages = []
    for i in range(args.docs):
        doc = plan_document(spec, i)
        fam = doc.style_family
        pages += [(doc, p, fam) for p in doc.pages]
    r.families  # noqa: B018 - build the family column once, outside the timings
    for doc, p, fam in pages[:3]:  # warm up
        choose_layout(r, page_query(p, fam), p.blocks, fam, page_layout_rng(doc, p.page_no))
    t_text, t_topk, t_full, t_page = [], [], [], []
    for doc, p, fam in pages:
        q = page_query(p, fam)
        t0 = time.perf_counter()
        v = r.embed_query(q)
        t_text.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        s = r.scores(v)
        top = r.ranked(s, None, 64)
        t_topk.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        s2 = r.scores(v)
        full = r.ranked(s2)[:64]
        t_full.append(time.perf_counter() - t0)
        assert np.array_equal(top, full), "top-k and full sort disagree"
        t0 = time.perf_counter()
        choose_layout(r, q, p.blocks, fam, page_layout_rng(doc, p.page_no))
        t_page.append(time.perf_counter() - t0)
    ms = 1000.0
    print(f"\nper-page latency over {len(pages)} planner pages (ms)      p50      p95")
    print(f"  text tower (query embedding)                  {pct(t_text, 50) * ms:8.2f} {pct(t_text, 95) * ms:8.2f}")
    print(f"  cosine + top-64 (argpartition, tie-safe)      {pct(t_topk, 50) * ms:8.2f} {pct(t_topk, 95) * ms:8.2f}")
    print(f"  baseline: cosine + full tie-safe sort         {pct(t_full, 50) * ms:8.2f} {pct(t_full, 95) * ms:8.2f}"
          f"  -> top-k {pct(t_full, 50) / pct(t_topk, 50):.1f}x faster (p50)")
    print(f"  whole choice (query+rank+constraints+pick)    {pct(t_page, 50) * ms:8.2f} {pct(t_page, 95) * ms:8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
