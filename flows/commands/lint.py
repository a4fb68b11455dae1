"""``synthdocqa lint DIR``: the project's own check of a corpus's layout, semantics and identities."""

from __future__ import annotations

import argparse
import json
import sys

from synthdocqa.flows.cli import CliError
from synthdocqa.flows.errors import EXIT_FINDINGS


def cmd_lint(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.store import CorpusError
    from synthdocqa.corpus.views.lint import HALF_EMPTY_MAX_SHARE, lint_corpus
    from synthdocqa.flows.commands.corpus import _progress_bar

    share = HALF_EMPTY_MAX_SHARE if args.max_half_empty is None else args.max_half_empty
    if not 0 <= share <= 1:
        raise CliError("--max-half-empty must be a share in [0, 1]")
    try:
        report = lint_corpus(args.dir, progress=None if args.quiet or args.json else _progress_bar("lint"),
                             max_half_empty_share=share)
    except CorpusError as err:
        raise CliError(str(err)) from None
    if args.json:
        print(json.dumps({**report.model_dump(mode="json"), "ok": report.ok, "failing": len(report.failing)},
                         indent=1))
    else:
        for p in report.problems:
            print(p.line())
        print(report.summary(), file=sys.stderr if report.problems else sys.stdout)
    return 0 if report.ok else EXIT_FINDINGS


def register(sub) -> None:
    from synthdocqa.corpus.store import MANIFEST

    p = sub.add_parser("lint", help="check a corpus for overlaps, clipped text, mid-token wraps, half-empty pages, "
                                    "semantic misuse and inconsistent identities")
    p.add_argument("dir", help=f"corpus directory (with {MANIFEST})")
    p.add_argument("--max-half-empty", type=float, default=None, metavar="SHARE",
                   help="share of half-empty pages tolerated (default: corpus.views.lint.HALF_EMPTY_MAX_SHARE, 0.05)")
    p.add_argument("--json", action="store_true", help="machine output: counts per kind and every problem")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_lint)
    p.epilog = ("kinds: overlap, clipped, mid_token_wrap, half_empty, semantic, identity; "
                "exit 0 clean, 1 problems, 2 bad input")
