"""``synthdocqa layouts train-clip`` and ``synthdocqa layouts search``: the layout-CLIP commands.

Added to the ``layouts`` group by ``flows/commands/layouts.py`` via ``add_clip_commands``.
"""

from __future__ import annotations

import argparse
import shutil
import time
from pathlib import Path

from synthdocqa.flows.cli import MAX_SEED, CliError, check_range


def add_clip_commands(sub: argparse._SubParsersAction) -> None:
    t = sub.add_parser("train-clip", help="train the layout-CLIP on a built library (CPU, seeded)")
    t.add_argument("--library", required=True, help="directory written by `layouts build`")
    t.add_argument("--out", required=True, help="directory for layout_clip_tiny.safetensors + manifest")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--epochs", type=int, default=None, help="passes over the training split (default 5)")
    t.add_argument("--batch-size", type=int, default=None)
    t.add_argument("--threads", type=int, default=None, help="torch threads (default 1)")
    t.set_defaults(func=_train)

    s = sub.add_parser("search", help="top layouts for a text query, with scores")
    s.add_argument("query", help='e.g. "two-column page with a wide table and a bar chart"')
    s.add_argument("--k", type=int, default=5)
    s.add_argument("--library", default=None, help="built library directory (default: the built-in library "
                   "of seed 20261130, 10,000 layouts, thumbnails drawn in memory)")
    s.add_argument("--family", default=None, help="only layouts of this style family")
    s.add_argument("--thumbs-out", default=None, help="copy the hits' thumbnails into this directory")
    s.add_argument("--clip-model", default=None, help="open_clip architecture (default: layout-clip-tiny)")
    s.add_argument("--clip-pretrained", default=None, help="weights: local file or a cached pretrained tag")
    s.add_argument("--cache-dir", default=None, help="embedding cache directory")
    s.set_defaults(func=_search)


def _train(args: argparse.Namespace) -> int:
    from synthdocqa.renderers.layout.clip_model import ClipLoadError, require_torch

    try:
        require_torch()  # training is open_clip's (the [clip] extra): one line naming it, not a traceback
    except ClipLoadError as err:
        raise CliError(str(err)) from None
    from synthdocqa.renderers.layout.clip_train import TrainConfig, train_clip
    from synthdocqa.renderers.layout.library_build import load_library

    check_range("--seed", args.seed, 0, MAX_SEED)
    check_range("--epochs", args.epochs, 1, 10_000)
    check_range("--batch-size", args.batch_size, 1, 65_536)
    check_range("--threads", args.threads, 1, 256)
    lib_dir = Path(args.library)
    try:
        lib = load_library(lib_dir)
    except (FileNotFoundError, ValueError) as err:
        raise CliError(str(err)) from None
    over = {k: v for k, v in (("epochs", args.epochs), ("batch_size", args.batch_size),
                              ("threads", args.threads)) if v is not None}
    if not (lib_dir / "thumbs").is_dir():
        raise CliError(f"{lib_dir}/thumbs: no thumbnails (run `synthdocqa layouts build`)")
    cfg = TrainConfig(seed=args.seed, **over)
    t0 = time.perf_counter()
    try:
        res = train_clip(list(lib), lib_dir / "thumbs", args.out, cfg)
    except FileNotFoundError as err:
        raise CliError(str(err)) from None
    print(f"trained layout-CLIP on {res.n_train} layouts ({res.n_held_out} held out), {res.steps} steps, "
          f"loss {res.final_loss:.4f}, {time.perf_counter() - t0:.0f} s -> {res.weights_path} "
          f"(sha256 {res.weights_sha256[:16]})")
    return 0


def _search(args: argparse.Namespace) -> int:
    from synthdocqa.renderers.layout.clip_model import DEFAULT_MODEL, ClipLoadError, load_clip
    from synthdocqa.renderers.layout.layouts import STYLE_FAMILIES, default_library
    from synthdocqa.renderers.layout.retrieval import LayoutRetriever

    check_range("--k", args.k, 1, 10_000)
    if not args.query.strip():
        raise CliError("query is empty")
    if args.family is not None and args.family not in STYLE_FAMILIES:
        raise CliError(f"--family must be one of {', '.join(STYLE_FAMILIES)}, got {args.family!r}")
    try:
        clip = load_clip(args.clip_model or DEFAULT_MODEL, args.clip_pretrained)
    except ClipLoadError as err:
        raise CliError(str(err)) from None
    try:
        if args.library:
            retriever = LayoutRetriever.from_library_dir(args.library, clip, cache_dir=args.cache_dir)
        else:
            retriever = LayoutRetriever.from_library(default_library(), clip, cache_dir=args.cache_dir)
    except (FileNotFoundError, ValueError) as err:
        raise CliError(str(err)) from None
    hits = retriever.search(args.query, k=args.k, family=args.family)
    if args.thumbs_out:
        out = Path(args.thumbs_out)
        out.mkdir(parents=True, exist_ok=True)
    print(f"{'rank':>4}  {'score':>7}  {'layout':<18} descriptor")
    from synthdocqa.renderers.layout.layouts import describe

    for h in hits:
        lay = retriever.layout(h.layout_id)
        print(f"{h.rank:>4}  {h.score:7.4f}  {h.layout_id:<18} {describe(lay)}")
        if args.thumbs_out:
            dst = out / f"{h.rank:02d}_{h.layout_id}.png"
            src = retriever.thumbnail_path(h.layout_id)
            if src is not None:
                shutil.copyfile(src, dst)
            else:
                from synthdocqa.ir.files import atomic_write_bytes
                from synthdocqa.renderers.layout.thumbs import draw_thumbnail, encode_png

                atomic_write_bytes(dst, encode_png(draw_thumbnail(lay)))
    return 0
