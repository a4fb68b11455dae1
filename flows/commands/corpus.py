"""``generate``, ``verify`` and ``reproduce``: the corpus commands."""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from synthdocqa.flows.cli import (
    MAX_SEED,
    CliError,
    add_json_flag,
    check_range,
    parse_int_list,
    print_json,
    require_verified,
)
from synthdocqa.flows.commands.plan import load_spec
from synthdocqa.flows.errors import EXIT_FINDINGS
from synthdocqa.flows.runtime import MAX_WORKERS
from synthdocqa.ir.spec import MAX_DOCS
from synthdocqa.ir.vocab import PROFILE_NAMES, RUNNERS


def _progress_bar(total_label: str):
    from synthdocqa.flows.progress import progress_bar

    bar = None

    def update(n: int, total: int, rec=None) -> None:
        nonlocal bar
        if bar is None:
            bar = progress_bar(total, total_label, "doc")
        if n == 0:
            return
        bar.update(1)
        if rec is not None:
            bar.set_postfix_str(f"{rec.doc_id} {rec.n_pages}p {rec.n_qa}qa")
        if n >= total:
            bar.close()

    return update


def cmd_generate(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.generate import doc_indices
    from synthdocqa.flows.runtime import TIMINGS

    if args.timings:
        TIMINGS.enable()
        TIMINGS.mark("checks (spec, folder)")

    check_range("--seed", args.seed, 0, MAX_SEED)
    check_range("--docs", args.docs, 1, MAX_DOCS)
    check_range("--workers", args.workers, 1, MAX_WORKERS)
    spec = load_spec(args)
    try:
        doc_indices(spec, args.only)
    except ValueError as err:
        raise CliError(str(err)) from None
    from synthdocqa.corpus.lock import OutputLock

    OutputLock.probe(args.out)  # a run that would lose the folder's lock says so before it starts a server
    quiet_engine = not (args.verbose or args.debug)
    if not args.verbose and not os.environ.get("PREFECT_API_URL"):
        # a temporary API: keep the terminal to the progress bar and warnings (set before prefect loads)
        os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
    if quiet_engine:
        os.environ["SYNTHDOCQA_QUIET_ENGINE"] = "1"  # pool workers read it too
    from synthdocqa.flows.runtime import start_early

    # the API server and the model load come up while this process imports Prefect and checks the folder
    early = start_early(spec, args.out, len(doc_indices(spec, args.only)), args.workers, args.runner,
                        api_configured=bool(os.environ.get("PREFECT_API_URL")),
                        skip_if_complete=args.only is None and not args.force)
    TIMINGS.mark("import Prefect and the pipeline")
    from synthdocqa.flows.generate import run_generate
    from synthdocqa.flows.workers import quiet_engine_errors

    TIMINGS.mark("lock and claim the folder")

    if quiet_engine:
        quiet_engine_errors()  # the CLI says in one line what failed; tracebacks stay behind --debug
    t0 = time.perf_counter()
    result = run_generate(spec, args.out, workers=args.workers, only=args.only, force=args.force,
                          runner=args.runner, dask_address=args.dask_address, ray_address=args.ray_address,
                          progress=None if args.quiet or args.json else _progress_bar("generate"),
                          phase=None if args.quiet or args.json else _phase_line, early=early)
    dt = time.perf_counter() - t0
    if args.json:
        print_json({"out": os.path.abspath(args.out), "seconds": round(dt, 3),
                    **({"stats": result} if args.only is None else {"documents": result["documents"]})})
    elif args.only is None:
        print(f"{args.out}: {_stats_line(result)} in {dt:.1f} s")
    else:
        docs = result["documents"]
        print(f"{args.out}: wrote {len(docs)} documents ({', '.join(docs)}) in {dt:.1f} s; no manifest (--only)")
    if args.timings:
        TIMINGS.print()
    return 0


def _phase_line(text: str) -> None:
    print(f"generate: {text} ...", file=sys.stderr, flush=True)


def _stats_line(s: dict) -> str:
    return (f"{s['documents']} docs, {s['pages']} pages, {s['qa_pairs']} QA, {s['assertions']} assertions "
            f"({s['pages_per_doc']} pages/doc, {s['qa_per_page']} QA/page, {s['assertions_per_qa']} assertions/QA)")


def cmd_verify(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.store import load_manifest
    from synthdocqa.corpus.verify import verify_corpus

    check_range("--max-problems", args.max_problems, 0)
    if not Path(args.dir).is_dir():
        raise CliError(f"{args.dir}: no such directory")
    problems = verify_corpus(args.dir, progress=None if args.quiet or args.json else _progress_bar("verify"))
    if args.json:
        print_json({"corpus": os.path.abspath(args.dir), "ok": not problems, "problems": problems})
        return EXIT_FINDINGS if problems else 0
    if problems:
        for p in problems[: args.max_problems]:
            print(f"FAIL {p}")
        more = len(problems) - args.max_problems
        if more > 0:
            print(f"... and {more} more")
        print(f"{args.dir}: {len(problems)} problem(s)", file=sys.stderr)
        return EXIT_FINDINGS
    manifest = load_manifest(args.dir)
    print(f"{args.dir}: OK ({len(manifest.files)} files, {manifest.stats['qa_pairs']} QA, "
          f"{manifest.stats['assertions']} assertions verified)")
    return 0


def cmd_reproduce(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.reproduce import reproduce_corpus

    check_range("--sample", args.sample, 1, MAX_DOCS)
    if not Path(args.dir).is_dir():
        raise CliError(f"{args.dir}: no such directory")
    require_verified(args.dir, args.no_verify)  # a file that fails its hash is verify's finding, not a regeneration's
    checked, diffs = reproduce_corpus(args.dir, sample=args.sample)
    if args.json:
        print_json({"corpus": os.path.abspath(args.dir), "ok": not diffs, "regenerated": checked,
                    "differences": diffs})
        return 0 if not diffs else EXIT_FINDINGS
    for d in diffs:
        print(f"DIFF {d}")
    status = "all bytes equal" if not diffs else f"{len(diffs)} difference(s)"
    print(f"{args.dir}: regenerated {len(checked)} document(s): {status}")
    return 0 if not diffs else EXIT_FINDINGS


def register(sub) -> None:
    g = sub.add_parser("generate", help="generate a corpus: plan, retrieve, render, degrade, QA, write")
    g.add_argument("--seed", type=int, default=None, help="root seed (default 0)")
    g.add_argument("--docs", type=int, default=None, help="number of documents (default: the profile's)")
    g.add_argument("--out", required=True, help="corpus directory")
    g.add_argument("--profile", choices=PROFILE_NAMES, default="demo")
    g.add_argument("--spec", help="CorpusSpec JSON file, whole or partial: its keys are laid over its own "
                   "\"profile\" (or --profile)")
    g.add_argument("--workers", type=int, default=min(4, os.cpu_count() or 1),
                   help="parallel worker processes (default: the CPU count, at most 4)")
    g.add_argument("--runner", choices=RUNNERS, default="process",
                   help="task runner of the generate-corpus flow")
    g.add_argument("--dask-address", default=None, help="scheduler address (default: a LocalCluster)")
    g.add_argument("--ray-address", default=None,
                   help="Ray head address, HOST:PORT or ray://HOST:PORT (default: a local Ray instance)")
    g.add_argument("--only", type=parse_int_list, help="comma-separated document indices (no manifest)")
    g.add_argument("--timings", action="store_true", help="print the wall time of each phase on stderr at the end")
    g.add_argument("--force", action="store_true", help="reuse a directory that holds another spec")
    g.add_argument("--quiet", action="store_true", help="no progress bar")
    g.add_argument("--verbose", action="store_true", help="show Prefect's run logs")
    add_json_flag(g)
    g.set_defaults(func=cmd_generate,
                   stop_hint="documents already written are kept; rerun the same command to resume")

    v = sub.add_parser("verify", help="re-check hashes, evidence boxes and derivations of a corpus")
    v.add_argument("dir")
    v.add_argument("--max-problems", type=int, default=50)
    v.add_argument("--quiet", action="store_true")
    add_json_flag(v)
    v.set_defaults(func=cmd_verify)

    r = sub.add_parser("reproduce", help="regenerate documents from the manifest's seed and compare bytes")
    r.add_argument("dir")
    r.add_argument("--sample", type=int, default=None, help="regenerate only K sampled documents (K >= 1)")
    r.add_argument("--no-verify", action="store_true",
                   help="compare a corpus that does not verify too (each file on disk against its regeneration)")
    add_json_flag(r)
    r.set_defaults(func=cmd_reproduce)
