"""``synthdocqa legibility DIR``: OCR every evidence span on its scan; which QA pairs the scan still answers."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from synthdocqa.flows.cli import CliError, require_verified
from synthdocqa.flows.errors import EXIT_FINDINGS


def cmd_legibility(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.ocr import ANSWERABLE_RULE
    from synthdocqa.corpus.store import LEGIBILITY_QA_TABLE, LEGIBILITY_TABLE, CorpusError
    from synthdocqa.corpus.views.legibility import CER_THRESHOLD, LegibilityError, measure_legibility
    from synthdocqa.flows.commands.corpus import _progress_bar

    if args.workers < 1:
        raise CliError("--workers must be >= 1")
    if not Path(args.dir).is_dir():
        raise CliError(f"{args.dir}: no such directory")
    require_verified(args.dir, args.no_verify)  # a reading of files that fail their hashes is a reading of nothing
    t0 = time.perf_counter()
    try:
        result = measure_legibility(args.dir, workers=args.workers, fresh=not args.recorded,
                                    progress=None if args.quiet or args.json else _progress_bar("legibility"))
    except (LegibilityError, CorpusError) as err:
        raise CliError(str(err)) from None
    failed = args.check and (result["falsely_answerable"] > 0 or result["not_marked"] > 0)
    if args.json:
        print(json.dumps(result, indent=1))
        return EXIT_FINDINGS if failed else 0
    print(f"{'tier':<10} {'assertions':>10} {'legible':>8} {'share':>7} {'QA':>5} {'legible':>8} {'share':>7} "
          f"{'mean CER':>8} {'answerable from scan':>20}")
    for t in result["by_tier"]:
        print(f"{t['tier']:<10} {t['assertions']:>10} {t['legible']:>8} {t['share']:>7.1%} {t['qa']:>5} "
              f"{t['qa_legible']:>8} {t['qa_share']:>7.1%} {t['mean_cer']:>8.3f} {t['qa_answerable_share']:>20.1%}")
    print(f"{args.dir}: {result['assertions']} assertions of {result['documents']} documents read with "
          f"{result['tesseract']} ({'readings recorded at generation' if args.recorded else 'read now'}; legible: "
          f"CER <= {CER_THRESHOLD:g}); wrote {LEGIBILITY_TABLE} and {LEGIBILITY_QA_TABLE} in "
          f"{time.perf_counter() - t0:.1f} s")
    print(f"answerable from the scan: {result['marked_answerable']} of {result['qa_pairs']} QA pairs marked; "
          f"{result['falsely_answerable']} marked answerable against the rule {ANSWERABLE_RULE}"
          + (f" ({', '.join(result['falsely_answerable_ids'][:5])})" if result["falsely_answerable"] else "")
          + (f"; {result['not_marked']} not marked (scans not read at generation)" if result["not_marked"] else ""))
    if failed:
        print("check FAILED: a QA pair marked answerable from the scan does not read on it, or is not marked")
    return EXIT_FINDINGS if failed else 0


def register(sub) -> None:
    from synthdocqa.corpus.ocr import ANSWERABLE_RULE_TEXT
    from synthdocqa.corpus.store import MANIFEST

    p = sub.add_parser("legibility", help="OCR the evidence on the scans: which assertions and QA pairs are still "
                                          "legible, per tier")
    p.add_argument("dir", help=f"corpus directory (with {MANIFEST})")
    p.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                   help="documents read in parallel (one tesseract process each; default: CPUs, at most 4)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("--check", action="store_true",
                   help=f"exit 3 when a QA pair marked answerable from the scan breaks the rule ({ANSWERABLE_RULE_TEXT}), "
                        "or a pair is not marked")
    p.add_argument("--recorded", action="store_true",
                   help="use the readings generation recorded on the evidence (no Tesseract needed) instead of "
                        "reading the scans now")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--no-verify", action="store_true", help="read a corpus whose files fail their hashes anyway")
    p.set_defaults(func=cmd_legibility)
