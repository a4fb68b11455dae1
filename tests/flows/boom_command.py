"""A command that fails the way it is told (``synthdocqa boom KIND``): for the CLI's error-boundary tests."""

from __future__ import annotations

import argparse
import errno

from synthdocqa.flows.errors import Stopped


def _boom(args: argparse.Namespace) -> int:
    if args.kind == "bug":
        raise ZeroDivisionError("a bug in the code")
    if args.kind == "enospc":
        raise OSError(errno.ENOSPC, "No space left on device", "/data/out/.qa.parquet.k3j2h1g0.tmp")
    if args.kind == "eacces":
        raise PermissionError(errno.EACCES, "Permission denied", "/data/out/docs")
    if args.kind == "refused":
        raise ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    if args.kind == "sigterm":
        raise Stopped(15)
    if args.kind == "interrupt":
        raise KeyboardInterrupt
    return 0


def register(sub) -> None:
    p = sub.add_parser("boom", help="fail on purpose (tests)")
    p.add_argument("kind")
    p.set_defaults(func=_boom)
