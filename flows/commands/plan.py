"""``plan`` (write planned IRs) and ``domains`` (list the domains and recipes)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from pydantic import ValidationError

from synthdocqa.flows.cli import CliError, check_writable, not_a_file, parse_int_list
from synthdocqa.ir.vocab import PROFILE_NAMES


def register(sub: argparse._SubParsersAction) -> None:
    from synthdocqa.corpus.store import IR_FILE, DocFiles

    p = sub.add_parser("plan", help=f"plan documents (content, facts, page schedule) and write their {IR_FILE}",
                       description=f"Plan documents of a corpus and write DIR/{DocFiles('<doc_id>').ir}.")
    p.add_argument("--seed", type=int, default=None, help="root seed (default 0, or the spec file's)")
    p.add_argument("--docs", type=int, default=None, help="number of documents (default: the profile's)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--profile", choices=PROFILE_NAMES, default="demo")
    p.add_argument("--only", type=parse_int_list, default=None, metavar="I,J", help="plan only these indices")
    p.add_argument("--spec", default=None, metavar="FILE.json", help="a CorpusSpec JSON file, whole or partial: its keys are laid over its own \"profile\" "
                        "(or --profile)")
    p.set_defaults(func=run_plan)

    d = sub.add_parser("domains", help="list the enterprise domains and document recipes")
    d.add_argument("--json", action="store_true", help="machine-readable output")
    d.set_defaults(func=run_domains)


def load_spec(args: argparse.Namespace):
    """The CorpusSpec of --spec (a whole or partial spec, laid over its "profile" key or --profile) or of
    --profile, with --seed/--docs applied, validated as a whole before any work; CliError naming the field."""
    from synthdocqa.ir import describe_validation_error
    from synthdocqa.ir.files import strict_json_loads
    from synthdocqa.ir.spec import layered_spec

    source = "spec"  # --seed and --docs are range-checked with the spec (ir.spec.CorpusSpec: seed, n_docs)
    data: dict = {}
    if args.spec:
        path = Path(args.spec)
        source = str(path)
        if (why := not_a_file(path)) is not None:
            raise CliError(f"--spec {path}: {why}")
        try:
            data = strict_json_loads(path.read_text("utf-8"))
        except (ValueError, UnicodeDecodeError) as err:  # json.JSONDecodeError is a ValueError
            raise CliError(f"{path}: not valid JSON ({err})") from None
        if not isinstance(data, dict):
            raise CliError(f"{path}: expected a JSON object")
    if args.seed is not None:
        data["seed"] = args.seed
    data.setdefault("seed", 0)
    if args.docs is not None:
        data["n_docs"] = args.docs
    try:
        return layered_spec(data, args.profile)
    except ValidationError as err:
        raise CliError(describe_validation_error(err, source)) from None
    except ValueError as err:
        raise CliError(f"{source}: {err}") from None


def run_plan(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.partial import write_planned
    from synthdocqa.corpus.store import DOCS_DIR

    spec = load_spec(args)
    indices = list(range(spec.n_docs)) if args.only is None else args.only
    bad = [i for i in indices if i >= spec.n_docs]
    if bad:
        raise CliError(f"--only: index {bad[0]} is out of range for {spec.n_docs} documents")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a folder")
    check_writable(out)
    pages = 0
    for i in indices:
        pages += len(write_planned(spec, i, out).pages)
    print(f"planned {len(indices)} document(s), {pages} page(s) into {out / DOCS_DIR}")
    return 0


def run_domains(args: argparse.Namespace) -> int:
    from synthdocqa.generation.domains import DOMAINS, RECIPES

    if args.json:
        print(json.dumps({
            "domains": [{"slug": d.slug, "title": d.title, "description": d.description, "tags": list(d.tags),
                         "recipes": list(d.recipes)} for d in DOMAINS],
            "recipes": [{"slug": r.slug, "title": r.title, "description": r.description, "tags": list(r.tags)}
                        for r in RECIPES]}, indent=1))
        return 0
    print(f"{len(DOMAINS)} domains:")
    for d in DOMAINS:
        print(f"  {d.slug:<26} {d.title} - {d.description} ({len(d.recipes)} recipes)")
    print(f"{len(RECIPES)} recipes:")
    for r in RECIPES:
        suits = ", ".join(r.tags) if r.tags else "all domains"
        print(f"  {r.slug:<24} {r.title} - {r.description} [{suits}]")
    return 0
