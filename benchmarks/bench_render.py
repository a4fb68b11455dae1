"""Pages per second: render (reportlab, with SpanBoxes) + rasterize (pymupdf) at 150 and 200 dpi.

Side by side in one process on the same documents:
  * ours/render-only        render_document -> PDF bytes + RenderMap
  * ours/render+raster@DPI  render_document then rasterize every page to PNG
  * baseline/insert_text@DPI  pymupdf's own page.insert_text writing the same strings (one line each, no
    layout, no boxes) then rasterizing the same number of pages: the floor of "put text on a page and
    make an image of it"
Ratios are printed against the baseline at the same dpi and against render-only.

    .venv/bin/python benchmarks/bench_render.py [--docs 6] [--repeat 3] [--source planner|fixture]

With ``--layout``, instead: layout quality (``renderers.layout.layout_checks``) of planned documents, layouts
chosen as the corpus does (CLIP retrieval; ``--chooser seeded`` for the seeded pick): overlaps, clipped
text, mid-token wraps and half-empty pages, per profile, with the text-layer check and the check's cost.

    .venv/bin/python benchmarks/bench_render.py --layout [--demo-docs 20 --demo-seed 7]
        [--reference-docs 10 --reference-seed 11] [--chooser clip|seeded]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthdocqa.ir.blocks import block_spans  # noqa: E402
from synthdocqa.renderers import rasterize, render_document  # noqa: E402
from synthdocqa.renderers.layout.assign import with_layouts  # noqa: E402


def load_docs(source: str, n: int):
    if source == "planner":
        from synthdocqa.generation.planner import plan_document
        from synthdocqa.ir.spec import demo_spec

        spec = demo_spec(seed=0, n_docs=n)
        return [with_layouts(plan_document(spec, i)) for i in range(n)]
    from tests.renderers.conftest import DocBuilder, all_blocks

    docs = []
    for i in range(n):
        b = DocBuilder()
        docs.append(with_layouts(b.doc(all_blocks(b), doc_id=f"bench-{i}", seed=i)))
    return docs


def baseline_pdf(doc, n_pages: int) -> bytes:
    """The same strings written with pymupdf insert_text, spread over ``n_pages`` Letter pages."""
    strings = []
    for _, b in doc.blocks():
        strings += [" ".join(s.text.split()) for s in block_spans(b) if s.text.strip()]
    out = pymupdf.open()
    per_page = max(1, -(-len(strings) // n_pages))
    for p in range(n_pages):
        page = out.new_page(width=612, height=792)
        y = 60
        for s in strings[p * per_page:(p + 1) * per_page]:
            page.insert_text((54, y), s[:110], fontsize=9, fontname="helv")
            y += 11
            if y > 760:
                y = 60
    data = out.tobytes(garbage=0, deflate=True)
    out.close()
    return data


def timed(fn, repeat: int) -> float:
    """Median CPU seconds of this process (render and rasterize are single-threaded): on a shared,
    loaded machine CPU time is far steadier than wall time."""
    runs = []
    for _ in range(repeat):
        t = time.process_time()
        fn()
        runs.append(time.process_time() - t)
    return statistics.median(runs)


def layout_quality(args) -> int:
    """Counts of each layout problem kind on planned documents of the demo and reference profiles."""
    from synthdocqa.generation.planner import plan_document
    from synthdocqa.ir.spec import demo_spec, reference_spec
    from synthdocqa.renderers import verify_text_layer
    from synthdocqa.renderers.layout.layout_checks import LAYOUT_PROBLEM_KINDS, check_layout, count_by_kind

    if args.chooser == "clip":
        from synthdocqa.renderers.layout.retrieval import default_layout_chooser

        choose = default_layout_chooser()
    else:
        choose = with_layouts
    print(f"{'profile':10s} {'seed':>5s} {'docs':>5s} {'pages':>6s} " + " ".join(f"{k:>14s}" for k in
          LAYOUT_PROBLEM_KINDS) + f" {'half-empty %':>12s} {'text layer':>11s} {'check ms/page':>13s}")
    for name, spec_fn, n, seed in (("demo", demo_spec, args.demo_docs, args.demo_seed),
                                   ("reference", reference_spec, args.reference_docs, args.reference_seed)):
        if n <= 0:
            continue
        spec = spec_fn(seed=seed, n_docs=n)
        totals = dict.fromkeys(LAYOUT_PROBLEM_KINDS, 0)
        pages = bad_spans = spans = 0
        t_check = 0.0
        for i in range(n):
            doc = choose(plan_document(spec, i))
            res = render_document(doc)
            t = time.process_time()
            problems = check_layout(res.pdf, res.render_map, doc)
            t_check += time.process_time() - t
            for k, v in count_by_kind(problems).items():
                totals[k] += v
            if args.verbose:
                for p in problems:
                    print(f"  {doc.doc_id} {p}")
            pages += len(res.render_map.pages)
            spans += len(res.render_map.spans)
            bad_spans += len(verify_text_layer(res.pdf, res.render_map))
        print(f"{name:10s} {seed:5d} {n:5d} {pages:6d} " + " ".join(f"{totals[k]:14d}" for k in LAYOUT_PROBLEM_KINDS)
              + f" {100 * totals['half_empty'] / max(pages, 1):12.1f} {spans - bad_spans:5d}/{spans:<5d}"
              f" {1000 * t_check / max(pages, 1):13.1f}")
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--source", choices=["planner", "fixture"], default="planner")
    ap.add_argument("--layout", action="store_true", help="measure layout quality instead of speed")
    ap.add_argument("--demo-docs", type=int, default=20)
    ap.add_argument("--demo-seed", type=int, default=7)
    ap.add_argument("--reference-docs", type=int, default=10)
    ap.add_argument("--reference-seed", type=int, default=11)
    ap.add_argument("--chooser", choices=["clip", "seeded"], default="clip")
    ap.add_argument("--verbose", action="store_true", help="with --layout: list every problem")
    args = ap.parse_args()
    if args.layout:
        return layout_quality(args)
    try:
        docs = load_docs(args.source, args.docs)
    except ImportError:
        print("generation.planner not available; using the hand-built fixture documents")
        args.source = "fixture"
        docs = load_docs("fixture", args.docs)
    render_document(docs[0])  # warm up: font registration, layout cache
    results = [render_document(d) for d in docs]
    pages = sum(len(r.render_map.pages) for r in results)
    spans = sum(len(r.render_map.spans) for r in results)
    print(f"source={args.source} docs={len(docs)} pages={pages} spans={spans} repeat={args.repeat} "
          "(median process CPU time)")

    t_render = timed(lambda: [render_document(d) for d in docs], args.repeat)
    rows = [("ours/render-only", pages / t_render)]
    ratios = []
    for dpi in (150, 200):
        t_full = timed(lambda dpi=dpi: [rasterize(render_document(d).pdf, dpi) for d in docs], args.repeat)
        def base(dpi=dpi):
            for d, r in zip(docs, results, strict=True):
                data = baseline_pdf(d, len(r.render_map.pages))
                rasterize(data, dpi)

        t_base = timed(base, args.repeat)
        ours = pages / t_full
        theirs = pages / t_base
        rows += [(f"ours/render+raster@{dpi}", ours), (f"baseline/insert_text+raster@{dpi}", theirs)]
        ratios.append((dpi, ours / theirs, ours / (pages / t_render)))
    print(f"{'variant':36s} {'pages/s':>9s}")
    for name, v in rows:
        print(f"{name:36s} {v:9.2f}")
    for dpi, vs_base, vs_render in ratios:
        print(f"ratio @{dpi} dpi: ours/baseline = {vs_base:.2f}x   (render+raster)/render-only = {vs_render:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
