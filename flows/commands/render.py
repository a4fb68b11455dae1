"""``synthdocqa render``: plan documents, choose layouts, render PDFs with RenderMaps and page images.

Writes ``DIR/docs/<doc_id>/ir.json`` (with the chosen layout ids), ``document.pdf``, ``render_map.json``
and ``pages/page-0001.png``...; each file atomically, ``ir.json`` last, so a document directory whose
``ir.json`` exists is complete.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from flows.cli import CliError, parse_int_list


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("render", help="plan and render documents to PDF + RenderMap + page PNGs")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--docs", type=int, required=True, help="number of documents in the corpus spec")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--profile", choices=["demo", "reference"], default="demo")
    p.add_argument("--only", type=parse_int_list, default=None, help="comma-separated document indices")
    p.add_argument("--dpi", type=int, default=150, help="page image dpi (default 150)")
    p.add_argument("--layout-chooser", choices=["seeded", "clip"], default="seeded",
                   help="seeded: RNG among compatible layouts; clip: CLIP retrieval (renderers.retrieval)")
    p.add_argument("--no-verify", action="store_true", help="skip the text-layer check of each PDF")
    p.set_defaults(func=_render)


def _render(args: argparse.Namespace) -> int:
    from ir.spec import spec_for_profile

    if args.seed < 0:
        raise CliError(f"--seed must be >= 0, got {args.seed}")
    if args.docs < 1:
        raise CliError(f"--docs must be >= 1, got {args.docs}")
    if not 36 <= args.dpi <= 600:
        raise CliError(f"--dpi must be in [36, 600], got {args.dpi}")
    indices = args.only if args.only is not None else list(range(args.docs))
    bad = [i for i in indices if i >= args.docs]
    if bad:
        raise CliError(f"--only indices {bad} outside 0..{args.docs - 1}")
    try:
        spec = spec_for_profile(args.profile, args.seed, args.docs).model_copy(update={"dpi": args.dpi})
    except ValueError as err:
        raise CliError(str(err)) from None
    chooser = _chooser(args.layout_chooser)
    out = Path(args.out)
    t0 = time.perf_counter()
    n_pages = 0
    for i in indices:
        n_pages += render_one(spec, i, out, chooser, verify=not args.no_verify)
    dt = time.perf_counter() - t0
    print(f"rendered {len(indices)} documents, {n_pages} pages to {out} in {dt:.1f} s")
    return 0


def _chooser(name: str):
    from renderers.assign import with_layouts

    if name == "seeded":
        return with_layouts
    try:
        from renderers.retrieval import default_layout_chooser
    except ImportError as err:
        raise CliError(f"--layout-chooser clip needs renderers.retrieval: {err}") from None
    try:
        return default_layout_chooser()
    except (OSError, ValueError, RuntimeError) as err:  # e.g. missing or corrupt layout-CLIP weights
        raise CliError(f"--layout-chooser clip: {str(err).splitlines()[0]}") from None


def render_one(spec, index: int, out: Path, chooser, verify: bool = True) -> int:
    """Plan, choose layouts, render, rasterize and write one document; returns its page count."""
    from ir.files import atomic_write_bytes
    from ir.planner import plan_document
    from renderers import rasterize, render_document, verify_text_layer

    doc = chooser(plan_document(spec, index))
    result = render_document(doc)
    if verify:
        problems = verify_text_layer(result.pdf, result.render_map)
        if problems:
            raise CliError(f"{doc.doc_id}: {len(problems)} span(s) fail the text-layer check, first: {problems[0]}")
    if result.render_map.dropped_fact_ids:
        raise CliError(f"{doc.doc_id}: facts not drawn: {result.render_map.dropped_fact_ids[:5]}")
    d = out / "docs" / doc.doc_id
    pages = rasterize(result.pdf, spec.dpi)
    for n, (png, _) in enumerate(pages, start=1):
        atomic_write_bytes(d / "pages" / f"page-{n:04d}.png", png)
    atomic_write_bytes(d / "document.pdf", result.pdf)
    atomic_write_bytes(d / "render_map.json", result.render_map.to_json().encode())
    atomic_write_bytes(d / "ir.json", doc.to_json().encode())
    return len(pages)
