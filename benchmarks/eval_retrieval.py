"""Held-out cross-modal layout retrieval: shipped layout-CLIP vs. random init vs. TF-IDF baseline.

    .venv/bin/python benchmarks/eval_retrieval.py --library /tmp/lib10k [--weights FILE] [--json OUT]

Builds the library if ``--library`` has none (seed 20261130, 10,000 layouts). The gallery is every
held-out layout (never seen in training); each contributes a descriptor query and a paraphrase query.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

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
    tfidf_scorer,
)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--library", default="/tmp/synthdocqa-lib10k")
    ap.add_argument("--weights", default=None, help="layout-CLIP weights file (default: the shipped one)")
    ap.add_argument("--json", default=None, help="write the metrics here")
    ap.add_argument("--skip-random", action="store_true")
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
    systems = {"layout-CLIP (shipped)": lambda: clip_scorer(load_clip(DEFAULT_MODEL, args.weights), images)}
    if not args.skip_random:
        systems["same architecture, random init"] = lambda: clip_scorer(random_clip(DEFAULT_MODEL, seed=0), images)
    systems["TF-IDF over descriptors (non-CLIP)"] = lambda: tfidf_scorer(gallery)
    results: dict[str, dict] = {}
    for name, make in systems.items():
        t0 = time.perf_counter()
        scorer = make()
        res = metrics(scorer(queries.texts), queries, gallery)
        results[name] = res
        print(f"\n{name}  ({time.perf_counter() - t0:.1f} s)")
        print(f"  {'queries':<12}{'R@1':>8}{'R@5':>8}{'R@10':>8}{'SP@5':>8}")
        for kind, m in res.items():
            print(f"  {kind:<12}{m['R@1']:8.3f}{m['R@5']:8.3f}{m['R@10']:8.3f}{m['SP@5']:8.3f}")
    shipped = results["layout-CLIP (shipped)"]["all"]
    ok = shipped["SP@5"] >= 0.9 and shipped["R@10"] >= 0.5
    print(f"\ntargets (SP@5 >= 0.9, R@10 >= 0.5, all queries): {'MET' if ok else 'NOT MET'}")
    if args.json:
        Path(args.json).write_text(json.dumps({"gallery": len(gallery), "queries": len(queries.texts),
                                               "results": results}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
