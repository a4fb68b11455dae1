"""Build the gallery in docs/: one rendered page per recipe, plus a Markdown index.

    .venv/bin/python -m corpus.views.gallery --out docs/gallery --index docs/gallery.md [--seed 0] [--scan 240]

Documents come from the planner (demo profile); for each recipe the first planned document of that recipe
is rendered and its richest page (most distinct block types) is rasterized. Each page is also checked
against the text layer, so the gallery only shows pages whose boxes are exact.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ir.files import atomic_write_bytes
from renderers.layout.assign import with_layouts
from renderers.layout.layouts import describe
from renderers.pdf.render import render_document
from renderers.raster import rasterize, verify_text_layer


def richest_page(doc, rmap) -> int:
    """PDF page (1-based) whose spans come from the most distinct block types (ties: earliest)."""
    btype = {b.id: b.type for _, b in doc.blocks()}
    kinds: dict[int, set[str]] = {}
    for sb in rmap.spans:
        kinds.setdefault(sb.page_no, set()).add(btype.get(sb.block_id, ""))
    if not kinds:
        return 1
    return max(sorted(kinds), key=lambda p: len(kinds[p]))


def build_gallery(out_dir: Path, index_md: Path, seed: int = 0, scan: int = 240, dpi: int = 90) -> list[str]:
    from generation.domains import RECIPES
    from generation.planner import plan_document
    from ir.spec import demo_spec, reference_spec

    # The demo profile holds the short genres; long ones (annual reports, ...) only occur in the reference
    # profile, so recipes the demo scan does not reach are taken from the reference profile.
    specs = (("demo", demo_spec(seed=seed, n_docs=scan)), ("reference", reference_spec(seed=seed, n_docs=scan)))
    wanted = {r.slug for r in RECIPES}
    seen: dict[str, tuple] = {}
    profile_of: dict[str, str] = {}
    for profile, spec in specs:
        for i in range(scan):
            if wanted <= set(seen):
                break
            doc = plan_document(spec, i)
            if doc.recipe in seen:
                continue
            profile_of[doc.recipe] = profile
            doc = with_layouts(doc)
            res = render_document(doc)
            problems = verify_text_layer(res.pdf, res.render_map)
            if problems:
                raise RuntimeError(f"{doc.doc_id}: text-layer check failed: {problems[0]}")
            page = richest_page(doc, res.render_map)
            (png, _), = rasterize(res.pdf, dpi, pages=[page])
            name = f"{doc.recipe}.png"
            atomic_write_bytes(out_dir / name, png)
            lay_id = res.render_map.pages[page - 1].layout_id
            seen[doc.recipe] = (doc, page, lay_id, len(res.render_map.pages), name)
    lines = ["# Gallery: one rendered page per recipe", "",
             f"Rendered by `python -m corpus.views.gallery` from the demo profile (seed {seed}), and from the reference "
             "profile for the long genres the demo does not hold (marked); each image is the "
             f"page with the most block types of the first document of that recipe, at {dpi} dpi. Every fact on "
             "these pages has a SpanBox in the document's RenderMap that passed the text-layer check.", "",
             "| recipe | domain | document | page | layout |", "|---|---|---|---|---|"]
    from .layouts import layout_from_id

    for recipe in sorted(seen):
        doc, page, lay_id, n_pages, name = seen[recipe]
        mark = " (reference)" if profile_of[recipe] == "reference" else ""
        lines.append(f"| [{recipe}](gallery/{name}){mark} | {doc.domain} | {doc.title} | {page} of {n_pages} | "
                     f"`{lay_id}` |")
    lines += [""]
    for recipe in sorted(seen):
        doc, page, lay_id, n_pages, name = seen[recipe]
        lines += [f"## {recipe}", "", f"*{doc.title}* ({doc.domain}); layout: {describe(layout_from_id(lay_id))}", "",
                  f"![{recipe}](gallery/{name})", ""]
    atomic_write_bytes(index_md, "\n".join(lines).encode())
    return sorted(seen)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="render one page per recipe into docs/gallery")
    ap.add_argument("--out", default="docs/gallery")
    ap.add_argument("--index", default="docs/gallery.md")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scan", type=int, default=240, help="planned documents to scan for recipes")
    ap.add_argument("--dpi", type=int, default=90)
    args = ap.parse_args(argv)
    recipes = build_gallery(Path(args.out), Path(args.index), args.seed, args.scan, args.dpi)
    print(f"gallery: {len(recipes)} recipes -> {args.out}, index {args.index}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
