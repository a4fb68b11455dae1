"""``osce simulate`` and ``osce analyze``: the VSP/OSCE dialogue scoring analysis."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from flows.cli import CliError


def cmd_simulate(args: argparse.Namespace) -> int:
    from judges.osce.loaders import OsceInputError
    from judges.osce.pipeline import load_taxonomy, simulate_to_files

    if args.seed < 0:
        raise CliError("--seed must be >= 0")
    try:
        n = simulate_to_files(args.seed, args.out, preset=args.preset, dialogues=args.dialogues, truth=args.truth,
                              taxonomy=load_taxonomy(args.taxonomy))
    except OsceInputError as err:
        raise CliError(str(err)) from None
    print(f"{args.out}: {n['scores']} scores (seed {args.seed}, preset {args.preset})")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from judges.osce.analysis import AnalysisOptions
    from judges.osce.loaders import OsceInputError
    from judges.osce.pipeline import analyze_file, load_taxonomy

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a directory")
    t0 = time.perf_counter()
    try:
        options = AnalysisOptions(
            stratifiers=() if args.no_strata else ("history_category", "linguistic_form"),
            adjust_main=args.adjust, response_effect=args.response_effect, backend=args.backend,
        )
        if args.backend == "r":
            from judges.osce.r_backend import r_available

            if not r_available():
                raise CliError("--backend r needs Rscript with lme4 and lmerTest (apt-get install r-cran-lmertest)")
        tax = load_taxonomy(args.taxonomy)
        rubric = None
        if args.judge_ratings:
            from judges.osce.loaders import load_ratings
            from judges.osce.rubric import judge_agreement

            rubric = judge_agreement(load_ratings(args.judge_ratings, tax), load_ratings(args.ratings, tax), tax)
        summary, _ = analyze_file(args.ratings, out, taxonomy=tax, options=options, rubric=rubric)
    except OsceInputError as err:
        raise CliError(str(err)) from None
    print(f"{summary.out_dir}: {summary.n_scores} scores, {len(summary.metrics)} metrics, "
          f"{summary.significant}/{summary.contrasts} contrasts significant ({args.adjust}), "
          f"{summary.refits} refit(s), {time.perf_counter() - t0:.1f} s")
    print(f"report: {summary.files['markdown']}")
    return 0


def cmd_rubric(args: argparse.Namespace) -> int:
    import yaml

    from ir.rng import Rng
    from judges.llm import ChatClient, EndpointConfig, ResponseCache
    from judges.osce.loaders import OsceInputError, load_dialogues, write_table
    from judges.osce.pipeline import load_taxonomy
    from judges.osce.rubric import score_dialogues

    try:
        endpoint = EndpointConfig.model_validate(yaml.safe_load(Path(args.endpoint).read_text()) or {})
        if endpoint.api_key_secret_block:
            raise ValueError("api_key_secret_block is resolved by the Prefect flow; use api_key_env on the CLI")
        key = endpoint.resolve_api_key()
        tax = load_taxonomy(args.taxonomy)
        dialogues = load_dialogues(args.dialogues)
        metrics = [m for m in args.metrics.split(",") if m] if args.metrics else None
        for m in metrics or ():
            tax.metric(m)
    except KeyError as err:
        raise CliError(f"--metrics: unknown metric {err.args[0]!r}") from None
    except (OSError, ValueError, OsceInputError, yaml.YAMLError) as err:
        raise CliError(str(err).splitlines()[0]) from None
    cache = ResponseCache(args.cache) if args.cache else None
    try:
        with ChatClient(endpoint, api_key=key, cache=cache, rng=Rng(args.seed)) as client:
            run = score_dialogues(dialogues, client, tax, metrics)
            stats = client.stats
    finally:
        if cache is not None:
            cache.close()
    write_table(run.ratings, args.out)
    print(f"{args.out}: {len(run.ratings)} judge scores of {run.n_requests} requests; invalid {stats.invalid or 0}; "
          f"cache hits {stats.cache_hits}; tokens {stats.prompt_tokens}+{stats.completion_tokens}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("osce", help="VSP/OSCE dialogue scoring: simulate ratings, mixed-effects analysis")
    sub = p.add_subparsers(dest="osce_command", metavar="OSCE")
    sub.required = True
    s = sub.add_parser("simulate", help="simulate a fully crossed rating study with planted effects")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True, help="ratings file (.csv, .parquet or .jsonl)")
    s.add_argument("--preset", default="study", choices=["study", "small"],
                   help="study: 5 responders x 17 raters x 88 questions (7,480 scores per sentence metric)")
    s.add_argument("--dialogues", help="also write the simulated dialogues to this file")
    s.add_argument("--truth", help="also write the planted contrasts to this file")
    s.add_argument("--taxonomy", help="taxonomy JSON/YAML (categories, forms, metrics, reference)")
    s.set_defaults(func=cmd_simulate)
    a = sub.add_parser("analyze", help="fit the mixed models and write the Markdown/HTML report")
    a.add_argument("ratings", help="long-format ratings file (.csv, .parquet or .jsonl)")
    a.add_argument("--out", required=True, help="report directory (replaced only when complete)")
    a.add_argument("--taxonomy", help="taxonomy JSON/YAML (categories, forms, metrics, reference)")
    a.add_argument("--adjust", default="holm", choices=["holm", "bh"], help="multiplicity method of the main table")
    a.add_argument("--no-strata", action="store_true", help="skip the stratified fits")
    a.add_argument("--response-effect", action="store_true",
                   help="add an item x responder variance component (slow on large designs)")
    a.add_argument("--backend", default="statsmodels", choices=["statsmodels", "r"],
                   help="statsmodels MixedLM (z-based) or R lme4/lmerTest (Satterthwaite df; needs Rscript)")
    a.add_argument("--judge-ratings", help="LLM judge scores (from 'osce rubric') to compare with the human raters")
    a.set_defaults(func=cmd_analyze)
    r = sub.add_parser("rubric", help="score dialogues per metric with an LLM rubric judge")
    r.add_argument("dialogues", help="dialogues file (one row per turn: .csv, .parquet or .jsonl)")
    r.add_argument("--endpoint", required=True, help="endpoint YAML/JSON (judges.llm.EndpointConfig fields)")
    r.add_argument("--out", required=True, help="judge ratings file (long format, like the human ratings)")
    r.add_argument("--metrics", help="comma-separated metric names (default: all)")
    r.add_argument("--taxonomy", help="taxonomy JSON/YAML")
    r.add_argument("--cache", help="SQLite reply cache file")
    r.add_argument("--seed", type=int, default=0, help="seeds the retry jitter")
    r.set_defaults(func=cmd_rubric)
