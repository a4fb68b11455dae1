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
            adjust_main=args.adjust, response_effect=args.response_effect,
        )
        summary, _ = analyze_file(args.ratings, out, taxonomy=load_taxonomy(args.taxonomy), options=options)
    except OsceInputError as err:
        raise CliError(str(err)) from None
    print(f"{summary.out_dir}: {summary.n_scores} scores, {len(summary.metrics)} metrics, "
          f"{summary.significant}/{summary.contrasts} contrasts significant ({args.adjust}), "
          f"{summary.refits} refit(s), {time.perf_counter() - t0:.1f} s")
    print(f"report: {summary.files['markdown']}")
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
    a.set_defaults(func=cmd_analyze)
