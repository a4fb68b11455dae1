"""The layout each planned page gets with the layout-CLIP on ONNX Runtime (generation's runtime) against
open_clip/torch (the model it is exported from; needs the [clip] extra), every page of every document.

    .venv/bin/python benchmarks/onnx_layout_choice.py [--seeds 21,22,23] [--reference-docs 100] [--demo]

Both retrievers embed the built-in 10,000-layout library with their own runtime (cached under --cache) and
choose with the page's own seeded stream, as generation does; a page whose choice differs is printed.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import spec_for_profile
from synthdocqa.renderers.layout.assign import page_layout_rng
from synthdocqa.renderers.layout.clip_model import load_clip
from synthdocqa.renderers.layout.layout_queries import page_query
from synthdocqa.renderers.layout.layouts import default_library
from synthdocqa.renderers.layout.retrieval import LayoutRetriever, choose_layout


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="21,22,23")
    ap.add_argument("--reference-docs", type=int, default=100)
    ap.add_argument("--cache", default=None, help="embedding cache folder (default: the user's)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    lib = default_library()
    by_torch = LayoutRetriever.from_library(lib, load_clip(runtime="torch"), cache_dir=args.cache)
    by_onnx = LayoutRetriever.from_library(lib, load_clip(), cache_dir=args.cache)
    print(f"library embeddings: max |torch - onnx| {np.abs(by_torch.emb - by_onnx.emb).max():.2e} "
          f"({time.perf_counter() - t0:.0f} s)", flush=True)
    pages = differ = 0
    for profile, n_docs in (("demo", None), ("reference", args.reference_docs)):
        for seed in (int(s) for s in args.seeds.split(",")):
            spec = spec_for_profile(profile, seed, n_docs=n_docs)
            for index in range(spec.n_docs):
                doc = plan_document(spec, index)
                for page in doc.pages:
                    query = page_query(page, doc.style_family)
                    a, b = (choose_layout(r, query, page.blocks, doc.style_family, page_layout_rng(doc, page.page_no))
                            for r in (by_torch, by_onnx))
                    pages += 1
                    if a != b:
                        differ += 1
                        print(f"  differs: {profile} seed {seed} doc {index} page {page.page_no}: {a} vs {b}")
            print(f"{profile} seed {seed}: {pages} pages so far, {differ} choices differ", flush=True)
    print(f"all: {pages} pages, {differ} layout choices differ between ONNX Runtime and open_clip")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
