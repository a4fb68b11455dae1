"""``synthdocqa layouts build``: write the procedural layout library (rows + wireframe thumbnails)."""

from __future__ import annotations

import argparse
import time

from synthdocqa.flows.cli import MAX_SEED, CliError, check_range, check_writable
from synthdocqa.flows.commands import command_group

MAX_LAYOUTS = 1_000_000


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = command_group(subparsers, "layouts", "layout library: build (and retrieval commands)", "SUBCOMMAND")
    b = sub.add_parser("build", help="write layouts.parquet/jsonl + thumbs/<id>.png for COUNT layouts")
    from synthdocqa.renderers.layout.layouts import DEFAULT_LIBRARY_SEED, DEFAULT_LIBRARY_SIZE

    b.add_argument("--seed", type=int, default=DEFAULT_LIBRARY_SEED)
    b.add_argument("--count", type=int, default=DEFAULT_LIBRARY_SIZE)
    b.add_argument("--out", required=True, help="output directory")
    b.add_argument("--thumb-size", type=int, default=64, help="thumbnail side in pixels (default 64)")
    b.set_defaults(func=_build)
    from synthdocqa.flows.commands.layouts_clip import add_clip_commands

    add_clip_commands(sub)


def _build(args: argparse.Namespace) -> int:
    from synthdocqa.renderers.layout.library_build import build_library

    check_range("--seed", args.seed, 0, MAX_SEED)
    check_range("--count", args.count, 1, MAX_LAYOUTS)
    if not 16 <= args.thumb_size <= 512:
        raise CliError(f"--thumb-size must be in [16, 512], got {args.thumb_size}")
    check_writable(args.out)
    t0 = time.perf_counter()
    manifest = build_library(args.seed, args.count, args.out, args.thumb_size)
    print(f"wrote {manifest['count']} layouts (seed {manifest['seed']}) to {args.out} "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0
