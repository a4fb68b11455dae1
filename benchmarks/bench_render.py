"""Pages per second: render (reportlab, with SpanBoxes) + rasterize (pymupdf) at 150 and 200 dpi.

Side by side in one process on the same documents:
  * ours/render-only        render_document -> PDF bytes + RenderMap
  * ours/render+raster@DPI  render_document then rasterize every page to PNG
  * baseline/insert_text@DPI  pymupdf's own page.insert_text writing the same strings (one line each, no
    layout, no boxes) then rasterizing the same number of pages: the floor of "put text on a page and
    make an image of it"
Ratios are printed against the baseline at the same dpi and against render-only.

    .venv/bin/python benchmarks/bench_render.py [--docs 6] [--repeat 3] [--source planner|fixture]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ir.blocks import block_spans  # noqa: E402
from renderers import rasterize, render_document  # noqa: E402
from renderers.assign import with_layouts  # noqa: E402


def load_docs(source: str, n: int):
    if source == "planner":
        from ir.planner import plan_document
        from ir.spec import demo_spec

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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=6)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--source", choices=["planner", "fixture"], default="planner")
    args = ap.parse_args()
    try:
        docs = load_docs(args.source, args.docs)
    except ImportError:
        print("ir.planner not available; using the hand-built fixture documents")
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
