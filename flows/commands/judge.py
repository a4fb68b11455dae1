"""``judge hallucination``: label answers under the faithfulness and factual-correctness criteria."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from synthdocqa.flows.cli import (
    MAX_SEED,
    CliError,
    check_not_in_corpus,
    check_range,
    check_writable,
    require_verified,
)
from synthdocqa.flows.commands import command_group

MAX_PER_QA = 100


def _parse_mix(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        k, sep, v = part.partition("=")
        try:
            if not sep:
                raise ValueError
            out[k.strip()] = float(v)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected type=weight,... got {part!r}") from None
    return out


def cmd_hallucination(args: argparse.Namespace) -> int:
    from synthdocqa.corpus.store import open_corpus
    from synthdocqa.judges.hallucination.items import ItemsError
    from synthdocqa.judges.hallucination.pipeline import load_judges_config, prepare_items, run_labeling

    check_range("--seed", args.seed, 0, MAX_SEED)
    check_range("--per-qa", args.per_qa, 1, MAX_PER_QA)
    check_range("--max-items", args.max_items, 0)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise CliError(f"--out {out}: exists and is not a directory")
    check_not_in_corpus(out)
    check_writable(out)
    if args.corpus is not None:
        if not Path(args.corpus).is_dir():
            raise CliError(f"--corpus {args.corpus}: no such directory")
        require_verified(args.corpus, args.no_verify)
    t0 = time.perf_counter()
    try:
        cfg = load_judges_config(args.judges, without=("embedding_cosine",) if args.no_embedding else ())
        if args.judges is None and not args.quiet:
            from synthdocqa.judges.hallucination.labelers import left_out_labelers

            for why in left_out_labelers():
                if why.split()[1] not in cfg.labelers and not (args.no_embedding and "embedding" in why):
                    print(f"note: {why}", file=sys.stderr)
        keys: dict[str, str] = {}
        answerer_key = None
        if any(j.api_key_secret_block for j in cfg.judges) or (cfg.answerer and cfg.answerer.api_key_secret_block):
            from synthdocqa.flows.hallucination_flow import resolve_secret_keys
            from synthdocqa.flows.prefect_env import prefect_api

            with prefect_api():  # the configured API, or a quiet temporary server of our own (not Prefect's chatty one)
                keys, answerer_key = resolve_secret_keys(cfg)
        corpus = open_corpus(args.corpus, checked=not args.no_verify) if args.corpus is not None else None
        progress = None if args.quiet else llm_progress()
        items, source = prepare_items(cfg, source=corpus, items_path=args.items, answers=args.answers,
                                      seed=args.seed, per_qa=args.per_qa, mix=args.mix, answerer_key=answerer_key,
                                      max_items=args.max_items, cache_path=out / cfg.cache, progress=progress)
        summary, result = run_labeling(items, cfg, out, seed=args.seed, api_keys=keys, header=[f"Items: {source}."],
                                       progress=progress)
    except (ItemsError, ValueError) as err:
        if isinstance(err, UnicodeDecodeError):
            where = args.corpus if args.corpus is not None else args.items
            raise CliError(f"{where}: a file is not UTF-8 text ({err.reason} at byte {err.start})") from None
        raise CliError(str(err).splitlines()[0]) from None
    dt = time.perf_counter() - t0
    mm = "; ".join(f"{m.labeler} kappa faith {m.kappa_faithfulness.value:.2f} / factual {m.kappa_factual.value:.2f}"
                   for m in result.mismatch[:3])
    print(f"{out}: {summary.n_items} items, labelers {', '.join(summary.labelers)}"
          + (f", judges {', '.join(summary.judges)}" if summary.judges else "") + f" in {dt:.1f} s")
    if mm:
        print(mm)
    print(f"report: {summary.files['markdown']}")
    return 0


def llm_progress():
    """A bar per endpoint on stderr: requests done of the total, with valid / invalid / cached counts."""
    import sys

    from synthdocqa.flows.progress import progress_bar

    bars: dict = {}

    def update(label: str, total: int, stats) -> None:  # noqa: ANN001 (judges.llm.ClientStats)
        bar = bars.get(label)
        if bar is None:
            bar = bars[label] = progress_bar(total, label, "req", sys.stderr, mininterval=0.5)
        bar.set_postfix_str(f"valid {stats.ok}, invalid {sum(stats.invalid.values())}, cached {stats.cache_hits}",
                            refresh=False)
        bar.update(stats.items - bar.n)
        if stats.items >= total:
            bar.close()

    return update


def register(subparsers: argparse._SubParsersAction) -> None:
    from synthdocqa.corpus.store import QA_FILE, DocFiles

    sub = command_group(subparsers, "judge", "judge flows (hallucination-criterion labeling)", "JUDGE")
    h = sub.add_parser(
        "hallucination", help="label answers as hallucinated under faithfulness and factual correctness",
        description="Synthesise (from --corpus) or import (--items) answers, label them with lexical, embedding, "
                    "NLI and LLM judges, and report agreement with gold labels under both criteria.")
    src = h.add_mutually_exclusive_group(required=True)
    src.add_argument("--corpus", help=f"generated corpus directory ({QA_FILE} + {DocFiles('<id>').ir})")
    src.add_argument("--items", help="items file (.csv, .jsonl or .parquet)")
    h.add_argument("--judges", help="judges.yaml: LLM judge endpoints, prompts, labelers, NLI checkpoint")
    h.add_argument("--answers", help="with --corpus: answers file (qa_id, answer) of a system under test")
    h.add_argument("--out", required=True, help="output directory for the report, labels and cache")
    h.add_argument("--seed", type=int, default=0)
    h.add_argument("--per-qa", type=int, default=1, help="synthesised candidates per QA pair (default 1)")
    h.add_argument("--mix", type=_parse_mix, default=None, help="error-type weights, e.g. correct=1,extra_true=2")
    h.add_argument("--max-items", type=int, default=0, help="label at most this many items (0: all)")
    h.add_argument("--no-embedding", action="store_true", help="skip the sentence-embedding labeler")
    h.add_argument("--quiet", action="store_true", help="no progress bars")
    h.add_argument("--no-verify", action="store_true",
                   help="use a --corpus that does not verify (or has no manifest) anyway")
    h.set_defaults(func=cmd_hallucination)
