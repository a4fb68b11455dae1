"""``synthdocqa legibility DIR``: OCR every evidence span on its scan; which QA pairs the scan still answers."""

from __future__ import annotations

import argparse
import json
import os
import time

from flows.cli import CliError


def cmd_legibility(args: argparse.Namespace) -> int:
    from corpus.store import LEGIBILITY_QA_TABLE, LEGIBILITY_TABLE, CorpusError
    from corpus.views.legibility import CER_THRESHOLD, LegibilityError, measure_legibility
    from flows.commands.corpus import _progress_bar

    if args.workers < 1:
        raise CliError("--workers must be >= 1")
    t0 = time.perf_counter()
    try:
        result = measure_legibility(args.dir, workers=args.workers,
                                    progress=None if args.quiet else _progress_bar("legibility"))
    except (LegibilityError, CorpusError) as err:
        raise CliError(str(err)) from None
    if args.json:
        print(json.dumps(result, indent=1))
        return 0
    print(f"{'tier':<10} {'assertions':>10} {'legible':>8} {'share':>7} {'QA':>5} {'legible':>8} {'share':>7} "
          f"{'mean CER':>8}")
    for t in result["by_tier"]:
        print(f"{t['tier']:<10} {t['assertions']:>10} {t['legible']:>8} {t['share']:>7.1%} {t['qa']:>5} "
              f"{t['qa_legible']:>8} {t['qa_share']:>7.1%} {t['mean_cer']:>8.3f}")
    print(f"{args.dir}: {result['assertions']} assertions of {result['documents']} documents read with "
          f"{result['tesseract']} (legible: CER <= {CER_THRESHOLD:g}); wrote {LEGIBILITY_TABLE} and "
          f"{LEGIBILITY_QA_TABLE} in {time.perf_counter() - t0:.1f} s")
    return 0


def register(sub) -> None:
    from corpus.store import MANIFEST

    p = sub.add_parser("legibility", help="OCR the evidence on the scans: which assertions and QA pairs are still "
                                          "legible, per tier")
    p.add_argument("dir", help=f"corpus directory (with {MANIFEST})")
    p.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                   help="documents read in parallel (one tesseract process each; default: CPUs, at most 4)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_legibility)
