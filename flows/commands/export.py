"""``synthdocqa export DIR --format synthdocqa-card|hf|croissant --out OUT``: a corpus in other tools' formats."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthdocqa.flows.cli import (
    CliError,
    add_json_flag,
    check_not_in_corpus,
    check_writable,
    print_json,
    require_verified,
)


def cmd_export(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.views.exports import FORMATS, ExportError, export_corpus, is_export_dir

    if args.format not in FORMATS:  # checked here, not by argparse, so the error is one line
        raise CliError(f"--format {args.format!r}: unknown format; choose one of {', '.join(FORMATS)}")
    if not Path(args.dir).is_dir():
        raise CliError(f"{args.dir}: no such directory")
    out = Path(args.out)
    if not (args.format == "croissant" and out.resolve() == Path(args.dir).resolve()):
        # Croissant metadata in place (croissant.json beside the data) is a view. A previous export is replaced
        # whole, even a croissant one (a copy of the corpus with its marker): only the folders above it count.
        if out.is_dir() and out.resolve() != Path(args.dir).resolve() and is_export_dir(out):
            from synthdocqa.corpus.store import MANIFEST

            for folder in out.absolute().parents:
                if (folder / MANIFEST).is_file():
                    raise CliError(f"--out {args.out}: lies inside {folder}, which is a generated corpus; write "
                                   "this output to another folder")
        else:
            check_not_in_corpus(args.out)
    require_verified(args.dir, args.no_verify)
    check_writable(Path(args.out).absolute().parent)  # the export is built beside --out, then renamed
    t0 = time.perf_counter()
    try:
        counts = export_corpus(args.dir, args.format, args.out)
    except ExportError as err:
        raise CliError(str(err)) from None
    except OSError as err:
        raise CliError(f"{err.filename or args.out}: {err.strerror or err}") from None
    if args.json:
        print_json({"out": str(Path(args.out).absolute()), "format": args.format, "corpus": str(Path(args.dir).absolute()),
                    "counts": counts, "seconds": round(time.perf_counter() - t0, 3)})
        return 0
    what = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"{args.out}: {args.format} export of {args.dir} ({what}) in {time.perf_counter() - t0:.1f} s")
    return 0


def register(sub) -> None:
    from synthdocqa.corpus.store import MANIFEST

    p = sub.add_parser("export", help="export a corpus as the SynthDocQA card layout, Hugging Face Parquet or "
                                      "Croissant")
    p.add_argument("dir", help=f"corpus directory (with {MANIFEST})")
    p.add_argument("--format", required=True, metavar="FORMAT", help="synthdocqa-card, hf or croissant")
    p.add_argument("--out", required=True, help="output folder (new, empty, or a previous export: a folder holding "
                                                "synthdocqa-export.json; replaced atomically); for croissant the "
                                                "corpus folder itself writes only croissant.json")
    p.add_argument("--no-verify", action="store_true", help="export a corpus that does not verify anyway (ids, "
                                                             "paths and file hashes are still checked)")
    add_json_flag(p)
    p.set_defaults(func=cmd_export)
