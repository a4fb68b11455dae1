"""The ``synthdocqa`` command line.

Each command group lives in ``flows/commands/<name>.py`` with a ``register(subparsers)`` function
that adds its parser and sets ``func``; a command returns an exit code. Bad input raises
``CliError`` (exit 2, one line on stderr, nothing written).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMAND_MODULES: tuple[str, ...] = (
    "flows.commands.plan",
    "flows.commands.corpus",
    "flows.commands.serve",
    "flows.commands.layouts",
    "flows.commands.render",
    "flows.commands.judge",
    "flows.commands.degrade",
    "flows.commands.osce",
    "flows.commands.export",
    "flows.commands.report",
    "flows.commands.lint",
    "flows.commands.legibility",
)


class CliError(Exception):
    """A user error: printed as one line, exit code 2."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="synthdocqa",
        description="Seeded synthetic enterprise-document QA corpora, scan degradation and judge flows.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("synthdocqa")
    except PackageNotFoundError:
        return "0+unknown"


def parse_int_list(text: str) -> list[int]:
    """``"2,5,7"`` -> ``[2, 5, 7]`` (for ``--only``)."""
    try:
        values = [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None
    if not values or any(v < 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected non-negative integers, got {text!r}")
    return values


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CliError as err:
        print(f"synthdocqa {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
