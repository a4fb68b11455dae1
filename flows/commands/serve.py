"""``synthdocqa serve``: serve every deployment against the configured Prefect API."""

from __future__ import annotations

import argparse

from synthdocqa.flows.cli import CliError, check_range


def cmd_serve(args: argparse.Namespace) -> int:
    from synthdocqa.flows.deployments import DEPLOYMENTS, serve_all

    check_range("--limit", args.limit, 1, 10_000)
    known = {d.flow for d in DEPLOYMENTS}
    unknown = sorted(set(args.only or []) - known)
    if unknown:
        raise CliError(f"unknown flow(s) {unknown}; known: {sorted(known)}")
    from prefect.settings import PREFECT_API_URL

    if not PREFECT_API_URL.value():
        raise CliError("no Prefect API configured: start `prefect server start` and set PREFECT_API_URL "
                       "(e.g. http://127.0.0.1:4200/api)")
    serve_all(args.only, args.limit)
    return 0


def register(sub) -> None:
    p = sub.add_parser("serve", help="serve prefect.yaml's deployments against the configured Prefect API, each as "
                       "<flow>/<name>-served (beside `prefect deploy`'s <flow>/<name>)")
    p.add_argument("--only", action="append", help="serve only this flow (repeatable)")
    p.add_argument("--limit", type=int, default=None, help="maximum concurrent flow runs")
    p.set_defaults(func=cmd_serve)
