"""``synthdocqa report DIR --out report.html``: one self-contained HTML page to look at a corpus."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthdocqa.flows.cli import (
    CliError,
    add_json_flag,
    check_range,
    check_writable,
    print_json,
    require_verified,
)

MAX_GALLERY = 200


def cmd_report(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.views.report import ReportError, ReportOptions, write_report
    from synthdocqa.corpus.views.report_browser import MIN_THUMB_WIDTH

    check_range("--gallery", args.gallery, 0, MAX_GALLERY)
    if not 36 <= args.contact_dpi <= 300:
        raise CliError("--contact-dpi must be in [36, 300]")
    check_range("--thumb-width", args.thumb_width, MIN_THUMB_WIDTH, 600)  # None: chosen from the page count
    if not Path(args.dir).is_dir():
        raise CliError(f"{args.dir}: no such directory")
    require_verified(args.dir, args.no_verify)
    if Path(args.out).parent.is_dir():  # a missing folder is the report's own one-line error
        check_writable(args.out)
    t0 = time.perf_counter()
    try:
        info = write_report(args.dir, args.out, ReportOptions(gallery=args.gallery, contact_dpi=args.contact_dpi,
                                                              page_thumb_width=args.thumb_width))
    except ReportError as err:
        raise CliError(str(err)) from None
    except OSError as err:  # name the file it is about: a corpus file that vanished is not --out's fault
        raise CliError(f"{err.filename or args.out}: {err.strerror or err}") from None
    if args.json:
        print_json({"out": str(Path(args.out).absolute()), "corpus": str(Path(args.dir).absolute()),
                    "documents": info["documents"], "qa_pairs": info["qa_pairs"], "gallery": len(info["gallery"]),
                    "bytes": info["bytes"], "seconds": round(time.perf_counter() - t0, 3)})
        return 0
    print(f"{args.out}: report of {info['documents']} documents, {info['qa_pairs']} QA, {len(info['gallery'])} "
          f"gallery pairs ({info['bytes'] / 1e6:.1f} MB) in {time.perf_counter() - t0:.1f} s")
    return 0


def register(sub) -> None:
    from synthdocqa.corpus.store import MANIFEST

    p = sub.add_parser("report", help="self-contained HTML report: stats, charts, QA browser, evidence gallery, "
                                      "five tiers")
    p.add_argument("dir", help=f"corpus directory (with {MANIFEST})")
    p.add_argument("--out", required=True, help="HTML file to write")
    p.add_argument("--gallery", type=int, default=6, help="QA pairs shown with their evidence boxes")
    p.add_argument("--contact-dpi", type=int, default=100, help="resolution of the five-tier contact sheet")
    p.add_argument("--thumb-width", type=int, default=None,
                   help="width in pixels of the QA browser's page thumbnails (a clean and a scan JPEG per page; "
                        "default: 260 up to 333 pages, then 260*sqrt(333/pages), at least 80, so they stay "
                        "within about 10 MB)")
    p.add_argument("--no-verify", action="store_true", help="report on a corpus that does not verify anyway")
    add_json_flag(p)
    p.set_defaults(func=cmd_report)
