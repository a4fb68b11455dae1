"""Held-out cross-modal layout retrieval: shipped layout-CLIP vs. random init vs. TF-IDF baseline.

    .venv/bin/python benchmarks/eval_retrieval.py --library /tmp/lib10k [--weights FILE] [--json OUT]

Builds the library if ``--library`` has none (seed 20261130, 10,000 layouts). The gallery is every
held-out layout (never seen in training); each contributes a descriptor query and a paraphrase query.
The shipped model runs on ONNX Runtime (what generation uses) and, beside it, on open_clip/torch (the model
it was exported from; needs the [clip] extra): their top 10 of every query are compared.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthdocqa.renderers.layout.clip_model import DEFAULT_MODEL, load_clip, random_clip  # noqa: E402
from synthdocqa.renderers.layout.layouts import DEFAULT_LIBRARY_SEED, DEFAULT_LIBRARY_SIZE  # noqa: E402
from synthdocqa.renderers.layout.library_build import build_library, load_library  # noqa: E402
from synthdocqa.renderers.layout.retrieval_eval import (  # noqa: E402
    clip_scorer,
    held_out_layouts,
    make_queries,
    metrics,
    rank_rows,
    tfidf_scorer,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--library", default="/tmp/synthdocqa-lib10k")
    ap.add_argument("--weights", default=None, help="layout-CLIP weights file (default: the shipped one)")
    ap.add_argument("--json", default=None, help="write the metrics here")
    ap.add_argument("--skip-random", action="store_true")
    ap.add_argument("--skip-torch", action="store_true", help="no open_clip/torch run beside the ONNX one")
    args = ap.parse_args()
    lib_dir = Path(args.library)
    if not (lib_dir / "library.json").is_file():
        print(f"building library into {lib_dir} ...", flush=True)
        build_library(DEFAULT_LIBRARY_SEED, DEFAULT_LIBRARY_SIZE, lib_dir)
    lib = load_library(lib_dir)
    gallery = held_out_layouts(list(lib))
    images = []
    for g in gallery:
        with Image.open(lib_dir / "thumbs" / f"{g.id}.png") as im:
            images.append(im.convert("RGB"))
    queries = make_queries(gallery)
    print(f"held-out gallery: {len(gallery)} of {len(lib)} layouts, {len(queries.texts)} queries")
    shipped = "layout-CLIP (shipped)" if args.weights is None else "layout-CLIP (--weights)"
    systems = {shipped: lambda: clip_scorer(load_clip(DEFAULT_MODEL, args.weights), images)}
    if args.weights is None and not args.skip_torch:  # the ONNX runtime against the open_clip model it exports
        systems["layout-CLIP (shipped, open_clip/torch)"] = \
            lambda: clip_scorer(load_clip(DEFAULT_MODEL, runtime="torch"), images)
    if not args.skip_random:
        systems["same architecture, random init"] = lambda: clip_scorer(random_clip(DEFAULT_MODEL, seed=0), images)
    systems["TF-IDF over descriptors (non-CLIP)"] = lambda: tfidf_scorer(gallery)
    results: dict[str, dict] = {}
    top10: dict[str, np.ndarray] = {}
    for name, make in systems.items():
        t0 = time.perf_counter()
        scorer = make()
        scores = scorer(queries.texts)
        top10[name] = rank_rows(scores, [g.id for g in gallery], 10)
        res = metrics(scores, queries, gallery)
        results[name] = res
        print(f"\n{name}  ({time.perf_counter() - t0:.1f} s)")
        print(f"  {'queries':<12}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'SP@5':>8}")
        for kind, m in res.items():
            print(f"  {kind:<12}{m['R@1']:8.3f}{m['R@5']:8.3f}{m['R@10']:8.3f}{m['SP@5']:8.3f}")
    if "layout-CLIP (shipped, open_clip/torch)" in top10:
        same = top10[shipped] == top10["layout-CLIP (shipped, open_clip/torch)"]
        print(f"\nONNX Runtime vs open_clip: top-10 identical for {int(same.all(axis=1).sum())} of {len(same)} "
              f"queries, {int(same.sum())} of {same.size} ranked layouts")
        results["onnx_vs_torch_top10_identical_queries"] = int(same.all(axis=1).sum())
    best = results[shipped]["all"]
    ok = best["SP@5"] >= 0.9 and best["R@10"] >= 0.5
    print(f"\ntargets (SP@5 >= 0.9, R@10 >= 0.5, all queries): {'MET' if ok else 'NOT MET'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"gallery": len(gallery), "queries": len(queries.texts),
                                               "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
