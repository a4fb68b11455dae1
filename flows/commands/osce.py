"""``osce simulate | analyze | rubric | vsp run | packets | collect``: the VSP/OSCE study from the virtual patients'
dialogues through blinded rating packets to the mixed-effects analysis."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from synthdocqa.flows.cli import CliError, check_not_in_corpus
from synthdocqa.flows.commands import command_group


def _one_line(err: object) -> str:
    return " ".join(str(err).split())


def cmd_simulate(args: argparse.Namespace) -> int:
    from synthdocqa.judges.osce.loaders import OsceInputError
    from synthdocqa.judges.osce.pipeline import load_taxonomy, simulate_to_files

    if args.seed < 0:
        raise CliError("--seed must be >= 0")
    try:
        n = simulate_to_files(args.seed, args.out, preset=args.preset, dialogues=args.dialogues, truth=args.truth,
                              taxonomy=load_taxonomy(args.taxonomy), unbalanced=args.unbalanced)
    except OsceInputError as err:
        raise CliError(str(err)) from None
    print(f"{args.out}: {n['scores']} scores (seed {args.seed}, preset {args.preset})")
    return 0


def cmd_analyze(args: argparse.Namespace) -> int:
    from synthdocqa.judges.osce.analysis import AnalysisOptions
    from synthdocqa.judges.osce.columns import ColumnError, parse_mapping
    from synthdocqa.judges.osce.lmm_solver import LmmError
    from synthdocqa.judges.osce.loaders import OsceInputError, read_ratings
    from synthdocqa.judges.osce.pipeline import analyze_file, load_taxonomy
    from synthdocqa.judges.osce.r_backend import RBackendError, r_missing

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a directory")
    check_not_in_corpus(out)
    t0 = time.perf_counter()
    if args.bootstrap < 0 or args.bootstrap > 10000:
        raise CliError(f"--bootstrap {args.bootstrap}: expected 0 to 10000 draws")
    if args.ddf == "kenward-roger" and args.backend != "r":
        raise CliError("--ddf kenward-roger needs --backend r (lmerTest computes it through R pbkrtest)")
    try:
        options = AnalysisOptions(
            stratifiers=() if args.no_strata else ("history_category", "linguistic_form"),
            adjust_main=args.adjust, response_effect=args.response_effect, rater_slopes=args.rater_slopes,
            backend=args.backend, ordinal=args.ordinal, ddf=args.ddf, bootstrap=args.bootstrap,
            bootstrap_seed=args.bootstrap_seed,
        )
        if args.backend == "r" and (missing := r_missing()):
            raise CliError(f"--backend r needs lme4 and lmerTest: {missing}")
        if args.ddf == "kenward-roger" and (missing := r_missing(("pbkrtest",))):
            raise CliError(f"--ddf kenward-roger needs R pbkrtest: {missing}")
        if args.ordinal and (missing := r_missing(("ordinal",))):
            raise CliError(f"--ordinal needs R ordinal: {missing}")
        tax = load_taxonomy(args.taxonomy)
        if args.reference:
            tax = tax.model_copy(update={"reference_responder": args.reference})
        columns = parse_mapping(args.columns)
        loaded = read_ratings(args.ratings, tax, encoding=args.encoding, columns=columns, sheet=args.sheet)
        rubric = judge = None
        if args.judge_ratings:
            from synthdocqa.judges.osce.loaders import load_ratings
            from synthdocqa.judges.osce.rubric import judge_agreement

            judge = load_ratings(args.judge_ratings, tax)
            rubric = judge_agreement(judge, loaded.table, tax)
        summary, _ = analyze_file(args.ratings, out, taxonomy=tax, options=options, rubric=rubric, judge=judge,
                                  loaded=loaded,
                                  progress=None if args.quiet else _fit_bar())
    except (OsceInputError, ColumnError, LmmError, RBackendError) as err:
        raise CliError(_one_line(err)) from None
    for note in summary.input_notes:
        print(f"input: {note}")
    print(f"{summary.out_dir}: {summary.n_scores} scores, {len(summary.metrics)} metrics, "
          f"{summary.significant}/{summary.contrasts} contrasts significant ({args.adjust}), "
          f"{summary.refits} fit(s) improved on the first optimizer run, {summary.unconfirmed} optimum(s) not "
          f"confirmed, "
          f"{time.perf_counter() - t0:.1f} s")
    for x in summary.exclusions:
        print(f"excluded: {x}")
    print(f"report: {summary.files['markdown']}")
    return 0


def _fit_bar():
    """A progress bar on stderr over the model fits (one line per update when stderr is not a terminal)."""
    import sys

    from synthdocqa.flows.progress import progress_bar

    bar = None

    def update(done: int, total: int, label: str) -> None:
        nonlocal bar
        if total == 0:
            return
        if bar is None:
            bar = progress_bar(total, "osce analyze", "fit", sys.stderr, mininterval=0.5)
        bar.set_postfix_str(label, refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def _print_plan(plan, all_prompts: bool) -> None:  # noqa: ANN001 (judges.osce.rubric.RubricPlan)
    seen: set[str] = set()
    for item, req, _ in plan.requests:
        if not all_prompts and item.metric in seen:
            continue
        seen.add(item.metric)
        print(f"--- request {req.key} ---")
        for m in req.messages:
            print(f"[{m['role']}]")
            print(m["content"].rstrip("\n"))
    counts = ", ".join(f"{k} {v}" for k, v in plan.counts().items())
    print(f"dry run: no endpoint called; prompt {plan.prompt_name} (sha256 {plan.prompt_sha256[:12]}); "
          f"{len(plan.requests)} requests ({counts}); ~{plan.approx_tokens:,} prompt tokens "
          f"({plan.prompt_chars:,} characters / 4)")
    print(f"case scripts: {', '.join(plan.cases_with_script) or 'none'}"
          + (f"; without a script: {', '.join(plan.cases_without_script)}" if plan.cases_without_script else ""))
    if not all_prompts:
        print("(one prompt per metric shown; --all-prompts prints every request)")


def cmd_rubric(args: argparse.Namespace) -> int:
    import yaml

    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.llm import ChatClient, EndpointConfig, ResponseCache
    from synthdocqa.judges.osce.case_scripts import load_case_scripts
    from synthdocqa.judges.osce.loaders import OsceInputError, load_dialogues, write_table
    from synthdocqa.judges.osce.pipeline import load_taxonomy
    from synthdocqa.judges.osce.rubric import plan_requests, score_dialogues

    if not args.dry_run and not (args.endpoint and args.out):
        raise CliError("--endpoint and --out are required unless --dry-run")
    try:
        tax = load_taxonomy(args.taxonomy)
        dialogues = load_dialogues(args.dialogues, encoding=args.encoding)
        metrics = [m for m in args.metrics.split(",") if m] if args.metrics else None
        for m in metrics or ():
            tax.metric(m)
        scripts = load_case_scripts(args.case_script, encoding=args.encoding) if args.case_script else None
        plan = plan_requests(dialogues, tax, metrics, case_scripts=scripts)
        if args.dry_run:
            _print_plan(plan, args.all_prompts)
            return 0
        endpoint = EndpointConfig.model_validate(yaml.safe_load(Path(args.endpoint).read_text()) or {})
        if endpoint.api_key_secret_block:
            raise ValueError("api_key_secret_block is resolved by the Prefect flow; use api_key_env on the CLI")
        key = endpoint.resolve_api_key()
    except KeyError as err:
        raise CliError(f"--metrics: unknown metric {err.args[0]!r}") from None
    except (OSError, ValueError, OsceInputError, yaml.YAMLError) as err:
        raise CliError(_one_line(err if isinstance(err, OsceInputError) else str(err).splitlines()[0])) from None
    cache = ResponseCache(args.cache) if args.cache else None
    try:
        from synthdocqa.flows.commands.judge import llm_progress

        bar = llm_progress()
        n_requests = len(plan.requests)
        with ChatClient(endpoint, api_key=key, cache=cache, rng=Rng(args.seed),
                        progress=lambda st: bar(f"rubric {endpoint.name}", n_requests, st)) as client:
            run = score_dialogues(dialogues, client, tax, metrics, case_scripts=scripts)
            stats = client.stats
    finally:
        if cache is not None:
            cache.close()
    write_table(run.ratings, args.out)
    print(f"{args.out}: {len(run.ratings)} judge scores of {run.n_requests} requests; invalid {stats.invalid or 0}; "
          f"cache hits {stats.cache_hits}; tokens {stats.prompt_tokens}+{stats.completion_tokens}")
    return 0


def _count_bar(desc: str, unit: str):
    """A bar on stderr over (done, total) updates."""
    import sys

    from synthdocqa.flows.progress import progress_bar

    bar = None

    def update(done: int, total: int, label: str) -> None:
        nonlocal bar
        if bar is None:
            bar = progress_bar(total, desc, unit, sys.stderr, mininterval=0.5)
        bar.set_postfix_str(label, refresh=False)
        bar.update(done - bar.n)
        if done >= total:
            bar.close()

    return update


def cmd_vsp_run(args: argparse.Namespace) -> int:
    from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank, load_questions
    from synthdocqa.judges.osce.loaders import OsceInputError
    from synthdocqa.judges.osce.vsp import load_responders, run_vsp

    t0 = time.perf_counter()
    try:
        cases = load_case_bank(args.cases or SHIPPED_CASES)
        questions = load_questions(args.questions or (SHIPPED_CASES / "questions.csv"), cases, encoding=args.encoding)
        if args.case:
            wanted = [c for c in args.case.split(",") if c]
            unknown = [c for c in wanted if c not in cases]
            if unknown:
                raise CliError(f"--case: unknown case(s) {', '.join(unknown)} (cases: {', '.join(sorted(cases))})")
            questions = [q for q in questions if q.case in wanted]
        if args.max_questions:
            questions = [q for q in questions if q.turn <= args.max_questions]
        responders = load_responders(args.responders)
        run = run_vsp(cases, questions, responders, args.out, language=args.language, cache_path=args.cache,
                      progress=None if args.quiet else _count_bar("vsp run", "turn"))
    except (OsceInputError, ValueError) as err:
        raise CliError(_one_line(err)) from None
    s = run.summary()
    for name, d in s["responders"].items():
        print(f"{name}: {d['answered']}/{d['turns']} answered, {d['failed']} failed, {d['flagged']} flagged")
    for line in s["failures"]:
        print(f"failed: {line}")
    print(f"{args.out}: {len(run.records)} turns ({args.language}); {run.requests} requests, {run.cache_hits} from the "
          f"cache; tokens {run.prompt_tokens}+{run.completion_tokens}; {time.perf_counter() - t0:.1f} s")
    return 0


def _dialogues_source(path: str):
    """Dialogues from a VSP run folder (its dialogues.csv, case titles from its language) or a dialogues file."""
    import json

    from synthdocqa.judges.osce.loaders import load_dialogues
    from synthdocqa.judges.osce.vsp import DIALOGUES_FILE, RUN_FILE

    p = Path(path)
    if p.is_dir():
        run = p / RUN_FILE
        if not run.is_file():
            raise CliError(f"--dialogues {p}: no {RUN_FILE} (not a finished VSP run folder; give its dialogues.csv)")
        try:
            titles = json.loads(run.read_text(encoding="utf-8")).get("case_titles")
        except (OSError, ValueError) as err:
            raise CliError(f"{run}: unreadable ({_one_line(err)})") from None
        return load_dialogues(p / DIALOGUES_FILE), titles
    return load_dialogues(p), None


def cmd_packets(args: argparse.Namespace) -> int:
    import secrets

    from synthdocqa.judges.osce.loaders import OsceInputError
    from synthdocqa.judges.osce.packets import write_packets
    from synthdocqa.judges.osce.pipeline import load_taxonomy

    if args.raters < 1:
        raise CliError("--raters must be >= 1")
    seed = args.seed if args.seed is not None else secrets.randbelow(2**63)
    try:
        dialogues, titles = _dialogues_source(args.dialogues)
        made = write_packets(dialogues, args.raters, seed, args.out, taxonomy=load_taxonomy(args.taxonomy),
                             case_titles=titles, key_path=args.key, allow_unbalanced=args.allow_unbalanced)
    except OsceInputError as err:
        raise CliError(_one_line(err)) from None
    print(f"{made.out_dir}: {made.n_raters} packets ({made.n_utterances} utterances, {made.n_encounters} dialogues "
          f"each); seed {seed}{'' if args.seed is not None else ' (drawn)'}; key {made.key_path} (keep the key "
          f"and the seed from the raters: either unblinds)")
    return 0


def cmd_collect(args: argparse.Namespace) -> int:
    from synthdocqa.judges.osce.loaders import OsceInputError, write_table
    from synthdocqa.judges.osce.packets import collect_packets
    from synthdocqa.judges.osce.pipeline import load_taxonomy

    try:
        ratings = collect_packets(args.packets, args.key, taxonomy=load_taxonomy(args.taxonomy))
        write_table(ratings, args.out)
    except OsceInputError as err:
        raise CliError(_one_line(err)) from None
    print(f"{args.out}: {len(ratings)} scores from {ratings['rater'].nunique()} raters "
          f"({ratings['responder'].nunique()} responders unblinded)")
    return 0


def _platform_config(args: argparse.Namespace):
    from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank
    from synthdocqa.judges.osce.loaders import OsceInputError
    from synthdocqa.judges.osce.platform.app import PlatformConfig
    from synthdocqa.judges.osce.vsp import load_responders

    try:
        cases = load_case_bank(args.cases or SHIPPED_CASES)
        models = [r for r in load_responders(args.vsp) if r.endpoint is not None]
        if args.responder:
            models = [r for r in models if r.name == args.responder]
        if not models:
            raise CliError(f"--vsp {args.vsp}: no model responder" + (f" named {args.responder}" if args.responder
                                                                      else ""))
        vsp = models[0]
        key = vsp.endpoint.resolve_api_key()
    except (OsceInputError, ValueError) as err:
        raise CliError(_one_line(err)) from None
    if args.retention_days is not None and args.retention_days <= 0:
        raise CliError("--retention-days must be > 0")
    judge = judge_key = None
    if args.judge:
        import yaml

        from synthdocqa.judges.llm import EndpointConfig

        try:
            judge = EndpointConfig.model_validate(yaml.safe_load(Path(args.judge).read_text(encoding="utf-8")) or {})
            jk = judge.resolve_api_key()
        except (OSError, ValueError, yaml.YAMLError) as err:
            raise CliError(f"--judge {args.judge}: {_one_line(str(err).splitlines()[0])}") from None
        judge_key = jk.get_secret_value() if jk is not None else None
    return PlatformConfig(cases=cases, vsp=vsp, db_url=args.db, turns_per_minute=args.turns_per_minute,
                          api_key=key.get_secret_value() if key is not None else None,
                          retention_days=args.retention_days, judge=judge, judge_api_key=judge_key)


def cmd_platform_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from synthdocqa.judges.osce.platform.app import create_app

    cfg = _platform_config(args)
    print(f"OSCE practice platform on http://{args.host}:{args.port} ({len(cfg.cases)} cases, VSP {cfg.vsp.name}, "
          f"database {cfg.db_url.split('@')[-1]})", flush=True)
    uvicorn.run(create_app(cfg), host=args.host, port=args.port, log_level="warning")
    return 0


def cmd_platform_export(args: argparse.Namespace) -> int:
    import asyncio

    from synthdocqa.judges.osce.platform.export import export_consented
    from synthdocqa.judges.osce.platform.store import PlatformStore, PlatformStoreError

    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a folder")

    async def run() -> dict[str, int]:
        store = await PlatformStore.open(args.db)
        try:
            return await export_consented(store, out)
        finally:
            await store.close()

    try:
        n = asyncio.run(run())
    except PlatformStoreError as err:
        raise CliError(_one_line(err)) from None
    print(f"{out}: {n['encounters']} consented encounters of {n['students']} students, {n['turns']} turns "
          f"(pseudonymised for this export; a Hugging Face dataset folder in {out / 'hf'})")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    sub = command_group(subparsers, "osce", "VSP/OSCE dialogue scoring: simulate ratings, mixed-effects analysis",
                        "OSCE")
    s = sub.add_parser("simulate", help="simulate a fully crossed rating study with planted effects")
    s.add_argument("--seed", type=int, required=True)
    s.add_argument("--out", required=True, help="ratings file (.csv, .parquet or .jsonl)")
    s.add_argument("--preset", default="study", choices=["study", "small"],
                   help="study: 5 responders x 17 raters x 88 questions (7,480 scores per sentence metric)")
    s.add_argument("--dialogues", help="also write the simulated dialogues to this file")
    s.add_argument("--truth", help="also write the planted contrasts to this file")
    s.add_argument("--taxonomy", help="taxonomy JSON/YAML (categories, forms, metrics, reference)")
    s.add_argument("--unbalanced", action="store_true",
                   help="one rater scores only the first case and 5%% of the other scores are missing")
    s.set_defaults(func=cmd_simulate)
    a = sub.add_parser("analyze", help="fit the mixed models and write the Markdown/HTML report")
    a.add_argument("ratings", help="ratings file: long or wide (one column per metric); .csv/.tsv in any common "
                                   "encoding, .xlsx, .parquet or .jsonl")
    a.add_argument("--out", required=True, help="report directory (replaced only when complete)")
    a.add_argument("--taxonomy", help="taxonomy JSON/YAML (categories, forms, metrics, reference)")
    a.add_argument("--quiet", action="store_true", help="no progress bar")
    a.add_argument("--adjust", default="holm", choices=["holm", "bh"], help="multiplicity method of the main table")
    a.add_argument("--no-strata", action="store_true", help="skip the stratified fits")
    unit = a.add_mutually_exclusive_group()
    unit.add_argument("--response-effect", dest="response_effect", action="store_const", const="always",
                      default="auto", help="always fit (1 | item:responder), the dialogue's or answer's own effect "
                                           "(default: encounter-level metrics always, sentence-level metrics when "
                                           "its likelihood-ratio test says so)")
    unit.add_argument("--no-response-effect", dest="response_effect", action="store_const", const="never",
                      help="never fit it: the ratings of one dialogue or answer count as independent")
    a.add_argument("--rater-slopes", action="store_true", help="(1 + responder | rater) instead of (1 | rater)")
    a.add_argument("--backend", default="lmm", choices=["lmm", "statsmodels", "r"],
                   help="lmm: our solver (Satterthwaite df, default); statsmodels: cross-check (z-based); "
                        "r: lme4/lmerTest reference (needs Rscript)")
    a.add_argument("--ddf", default="satterthwaite", choices=["satterthwaite", "kenward-roger"],
                   help="denominator df of the contrasts: Satterthwaite (default), or Kenward-Roger (needs --backend r "
                        "and R pbkrtest)")
    a.add_argument("--bootstrap", type=int, default=0, metavar="N",
                   help="parametric bootstrap-t check of each main contrast's CI with N draws (our solver; small "
                        "designs: a few hundred draws take seconds per metric)")
    a.add_argument("--bootstrap-seed", type=int, default=0, help="seed of the bootstrap draws")
    a.add_argument("--ordinal", action="store_true",
                   help="add the ordinal sensitivity model (R ordinal::clmm, latent-scale contrasts; slow)")
    a.add_argument("--encoding", help="text encoding of a CSV (default: UTF-8, or CP949/EUC-KR when detected)")
    a.add_argument("--columns", help="explicit header mapping, e.g. 'Rater ID=rater,Score (1-5)=score'")
    a.add_argument("--sheet", help="worksheet of an .xlsx file (default: the first that holds rating columns)")
    a.add_argument("--reference", metavar="NAME",
                   help="the reference responder the others are compared with (default: the taxonomy's, 'human')")
    a.add_argument("--judge-ratings", help="LLM judge scores (from 'osce rubric') to compare with the human raters")
    a.set_defaults(func=cmd_analyze)
    r = sub.add_parser("rubric", help="score dialogues per metric with an LLM rubric judge")
    r.add_argument("dialogues", help="dialogues file (one row per turn: .csv, .parquet or .jsonl)")
    r.add_argument("--endpoint", help="endpoint YAML/JSON (judges.llm.EndpointConfig fields); not for --dry-run")
    r.add_argument("--out", help="judge ratings file (long format, like the human ratings); not for --dry-run")
    r.add_argument("--case-script", help="case scripts: YAML/JSON case -> text, a case/script table, or a folder "
                                         "of <case>.md files (needed by metrics that compare with the script)")
    r.add_argument("--dry-run", action="store_true", help="print the prompts and counts; call no endpoint")
    r.add_argument("--all-prompts", action="store_true", help="with --dry-run: print every request, not one per metric")
    r.add_argument("--encoding", help="text encoding of the dialogues/case CSV")
    r.add_argument("--metrics", help="comma-separated metric names (default: all)")
    r.add_argument("--taxonomy", help="taxonomy JSON/YAML")
    r.add_argument("--cache", help="SQLite reply cache file")
    r.add_argument("--seed", type=int, default=0, help="seeds the retry jitter")
    r.set_defaults(func=cmd_rubric)
    vsp = command_group(sub, "vsp", "virtual standardized patients: ask the cases' scripted questions", "VSP")
    v = vsp.add_parser("run", help="ask every responder every scripted question, turn by turn (resumable)")
    v.add_argument("--responders", required=True,
                   help="YAML: responders: [{name, endpoint: {base_url, model, ...}} | {name, answers: file}]")
    v.add_argument("--out", required=True, help="run folder (turns.jsonl, dialogues.csv, run.json, the cache)")
    v.add_argument("--cases", help="case bank folder or one case YAML (default: the three shipped cases)")
    v.add_argument("--questions", help="scripted questions table (default: the shipped questions.csv)")
    v.add_argument("--language", default="en", choices=["en", "ko"], help="language of the questions and answers")
    v.add_argument("--case", help="comma-separated case ids (default: every case with questions)")
    v.add_argument("--max-questions", type=int, help="only the first N questions of each case")
    v.add_argument("--cache", help="SQLite reply cache (default: OUT/cache.sqlite, which makes a rerun free)")
    v.add_argument("--encoding", help="text encoding of the questions CSV (default: detected)")
    v.add_argument("--quiet", action="store_true", help="no progress bar")
    v.set_defaults(func=cmd_vsp_run)
    k = sub.add_parser("packets", help="write one blinded .xlsx rating packet per rater, and the key")
    k.add_argument("--dialogues", required=True, help="a VSP run folder or a dialogues file")
    k.add_argument("--raters", type=int, required=True, help="number of raters (one packet each)")
    k.add_argument("--seed", type=int, help="seeds the codes and the orders of every packet; a secret like the key "
                                            "(default: a random 63-bit seed, recorded in the key)")
    k.add_argument("--allow-unbalanced", action="store_true",
                   help="pack responders that did not answer the same questions (their length would show)")
    k.add_argument("--out", required=True, help="packets folder (must not exist or be empty)")
    k.add_argument("--key", help="key file (default: next to the packets folder, never inside it)")
    k.add_argument("--taxonomy", help="taxonomy JSON/YAML (the metrics and their scales)")
    k.set_defaults(func=cmd_packets)
    c = sub.add_parser("collect", help="read filled packets back, validate every cell, unblind, write the ratings")
    c.add_argument("packets", help="folder of filled packets (.xlsx)")
    c.add_argument("--key", required=True, help="the key written with the packets")
    c.add_argument("--out", required=True, help="ratings file in the long format 'osce analyze' reads")
    c.add_argument("--taxonomy", help="taxonomy JSON/YAML")
    c.set_defaults(func=cmd_collect)
    plat = command_group(sub, "platform", "the practice platform: students take histories from a VSP in the browser",
                         "PLATFORM")
    ps = plat.add_parser("serve", help="run the web application")
    ps.add_argument("--vsp", required=True, help="responders YAML; the first model responder (or --responder) answers")
    ps.add_argument("--responder", help="which model responder of --vsp")
    ps.add_argument("--cases", help="case bank folder (default: the shipped cases)")
    ps.add_argument("--db", default="sqlite+aiosqlite:///osce_platform.db",
                    help="SQLAlchemy URL (default: an SQLite file here; postgresql://... for a server)")
    ps.add_argument("--host", default="127.0.0.1")
    ps.add_argument("--port", type=int, default=8765)
    ps.add_argument("--turns-per-minute", type=int, default=20, help="VSP turns one session may ask per minute")
    ps.add_argument("--judge", help="endpoint YAML of the LLM rubric judge for the machine feedback page (default: "
                                    "no feedback page)")
    ps.add_argument("--retention-days", type=float, help="delete stored encounters older than this (at start, then "
                                                          "hourly; logged in the audit table)")
    ps.set_defaults(func=cmd_platform_serve)
    pe = plat.add_parser("export", help="write the consented, ended encounters for research (pseudonymised afresh)")
    pe.add_argument("--db", required=True, help="the platform's database URL")
    pe.add_argument("--out", required=True, help="export folder (replaced whole)")
    pe.set_defaults(func=cmd_platform_export)
