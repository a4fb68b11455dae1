"""Command groups of the synthdocqa CLI (one module per group)."""

from __future__ import annotations

import argparse


def command_group(subparsers: argparse._SubParsersAction, name: str, help: str, metavar: str
                  ) -> argparse._SubParsersAction:
    """A command that only holds subcommands (``synthdocqa osce simulate``): one of them must be named, and
    the one named is ``args.<name>_command``."""
    group = subparsers.add_parser(name, help=help)
    sub = group.add_subparsers(dest=f"{name}_command", metavar=metavar)
    sub.required = True
    return sub
