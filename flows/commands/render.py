"""``synthdocqa render``: plan documents, choose layouts, render PDFs with RenderMaps and page images.

Writes each document's ``ir.json`` (with the chosen layout ids), ``document.pdf``, ``render_map.json``
and page images under ``DIR/docs/<doc_id>/`` (``corpus.partial.write_rendered``).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthdocqa.flows.cli import MAX_SEED, CliError, check_range, check_writable, parse_int_list
from synthdocqa.ir.vocab import PROFILE_NAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("render", help="plan and render documents to PDF + RenderMap + page PNGs")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--docs", type=int, required=True, help="number of documents in the corpus spec")
    p.add_argument("--out", required=True, help="output directory")
    p.add_argument("--profile", choices=PROFILE_NAMES, default="demo")
    p.add_argument("--only", type=parse_int_list, default=None, help="comma-separated document indices")
    p.add_argument("--dpi", type=int, default=150, help="page image dpi (default 150)")
    p.add_argument("--layout-chooser", choices=["clip", "seeded"], default="clip",
                   help="clip (default, as `generate`): CLIP retrieval over the layout library; seeded: RNG among "
                        "compatible layouts")
    p.add_argument("--no-verify", action="store_true", help="skip the text-layer check of each PDF")
    p.set_defaults(func=_render)


def _render(args: argparse.Namespace) -> int:
    from synthdocqa.ir.spec import DPI_RANGE, MAX_DOCS, spec_for_profile

    check_range("--seed", args.seed, 0, MAX_SEED)
    check_range("--docs", args.docs, 1, MAX_DOCS)
    check_range("--dpi", args.dpi, *DPI_RANGE)
    indices = args.only if args.only is not None else list(range(args.docs))
    bad = [i for i in indices if i >= args.docs]
    if bad:
        raise CliError(f"--only indices {bad} outside 0..{args.docs - 1}")
    try:
        spec = spec_for_profile(args.profile, args.seed, args.docs).model_copy(update={"dpi": args.dpi})
    except ValueError as err:
        raise CliError(str(err)) from None
    from synthdocqa.corpus.partial import RenderCheckError, write_rendered

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a folder")
    check_writable(out)
    chooser = _chooser(args.layout_chooser)
    t0 = time.perf_counter()
    n_pages = 0
    for i in indices:
        try:
            n_pages += write_rendered(spec, i, out, chooser, verify=not args.no_verify)
        except RenderCheckError as err:
            raise CliError(str(err)) from None
    dt = time.perf_counter() - t0
    print(f"rendered {len(indices)} documents, {n_pages} pages to {out} in {dt:.1f} s")
    return 0


def _chooser(name: str):
    """``clip`` is the chooser ``generate`` uses (``corpus.assemble.default_layout_chooser``), so both pick
    the same layouts for the same seed."""
    from synthdocqa.renderers.layout.assign import with_layouts

    if name == "seeded":
        return with_layouts
    try:
        from synthdocqa.corpus.assemble import default_layout_chooser
    except ImportError as err:
        raise CliError(f"--layout-chooser clip needs renderers.layout.retrieval: {err}") from None
    try:
        return default_layout_chooser()
    except (OSError, ValueError, RuntimeError) as err:  # e.g. missing or corrupt layout-CLIP weights
        raise CliError(f"--layout-chooser clip: {str(err).splitlines()[0]}") from None
