"""Hallucination-criterion benchmark: the criterion mismatch on >= 2,000 synthesised items, plus speed ratios.

Items: documents planned by ``generation.planner.plan_document`` (demo spec), QA pairs derived from their
facts by ``generation.qa.derive_qa`` over a RenderMap that marks every fact span as drawn (no PDF rendering:
the synthesiser needs the facts, not the pixels), then candidate answers of controlled error types.

Prints (1) per labeler: Cohen's kappa against the faithfulness gold vs the factual-correctness gold
(thresholds calibrated per criterion on the dev split, test split, 95% bootstrap CIs) and the
error types driving the difference; (2) speed ratios against named baselines:
  - stratified bootstrap CI (vectorised over replicates) vs a per-replicate scikit-learn loop;
  - LLM judging of N items against a local server with 20 ms latency: 8-way concurrency vs
    sequential, and a cached rerun vs the first run.

    .venv/bin/python benchmarks/bench_hallucination.py --docs 60 --per-qa 4 --out out/bench-hallucination
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from synthdocqa.generation.planner import plan_document  # noqa: E402
from synthdocqa.generation.qa import derive_qa, drawn_render_map  # noqa: E402
from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.ir.spec import demo_spec  # noqa: E402
from synthdocqa.judges.hallucination.analysis import analyse  # noqa: E402
from synthdocqa.judges.hallucination.binary_stats import bootstrap_metrics  # noqa: E402
from synthdocqa.judges.hallucination.labelers import score_items  # noqa: E402
from synthdocqa.judges.hallucination.report import write_report  # noqa: E402
from synthdocqa.judges.hallucination.synthesize import synthesize  # noqa: E402


def build_items(n_docs: int, per_qa: int, seed: int):
    spec = demo_spec(seed, n_docs)
    pairs = []
    for i in range(n_docs):
        doc = plan_document(spec, i)
        qas, _ = derive_qa(doc, drawn_render_map(doc))
        pairs.append((doc, qas))
    return synthesize(pairs, Rng(seed).fork("hallucination-synth"), per_qa=per_qa)


def bench_bootstrap(n_boot: int = 1000) -> None:
    from sklearn.metrics import cohen_kappa_score

    g = np.random.default_rng(0)
    t = g.random(1000) < 0.4
    p = np.where(g.random(1000) < 0.8, t, ~t)
    t0 = time.perf_counter()
    bootstrap_metrics(t, p, np.random.default_rng(1), n_boot=n_boot)
    ours = time.perf_counter() - t0
    t0 = time.perf_counter()
    rng = np.random.default_rng(1)
    pos, neg = np.nonzero(t)[0], np.nonzero(~t)[0]
    for _ in range(n_boot):
        idx = np.concatenate([rng.choice(pos, len(pos)), rng.choice(neg, len(neg))])
        cohen_kappa_score(t[idx], p[idx])  # one metric only; ours computes seven
    base = time.perf_counter() - t0
    print(f"bootstrap 1,000 items x {n_boot} replicates: vectorised (7 metrics) {ours * 1000:.0f} ms vs "
          f"baseline sklearn loop (kappa only) {base * 1000:.0f} ms -> {base / ours:.1f}x")


def bench_llm(items, n: int = 200) -> None:
    sys.path.insert(0, str(ROOT / "tests" / "judges"))
    from fake_openai_server import FakeOpenAIServer

    from synthdocqa.judges.hallucination.labelers.llm_judge import load_judge_prompts, run_judge
    from synthdocqa.judges.llm import ChatClient, EndpointConfig, ResponseCache

    def slow(req):
        time.sleep(0.02)
        return '{"verdict": "hallucinated"}'

    prompts = load_judge_prompts()
    sub = items[:n]
    import tempfile

    with FakeOpenAIServer(slow) as srv, tempfile.TemporaryDirectory() as tmp:
        times = {}
        for conc in (1, 8):
            cfg = EndpointConfig(base_url=srv.url, model=f"m{conc}", max_concurrency=conc)
            with ResponseCache(Path(tmp) / f"c{conc}.sqlite") as cache, ChatClient(cfg, cache=cache) as c:
                t0 = time.perf_counter()
                run_judge(c, sub, prompts)
                times[conc] = time.perf_counter() - t0
            if conc == 8:
                with ResponseCache(Path(tmp) / "c8.sqlite") as cache, ChatClient(cfg, cache=cache) as c:
                    t0 = time.perf_counter()
                    run_judge(c, sub, prompts)
                    times["cached"] = time.perf_counter() - t0
                    assert c.stats.http_calls == 0
    print(f"LLM judging {n} items x 2 prompts, 20 ms server latency: sequential {times[1]:.2f} s, "
          f"8 concurrent {times[8]:.2f} s -> {times[1] / times[8]:.1f}x; cached rerun {times['cached']:.2f} s -> "
          f"{times[8] / times['cached']:.1f}x faster than the first run, 0 calls")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=60)
    ap.add_argument("--per-qa", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="out/bench-hallucination")
    ap.add_argument("--no-embedding", action="store_true")
    args = ap.parse_args()
    t0 = time.perf_counter()
    items = build_items(args.docs, args.per_qa, args.seed)
    t_synth = time.perf_counter() - t0
    names = ["exact_match", "token_f1", "rouge_l", "chrf", "bleu"] + ([] if args.no_embedding else ["embedding_cosine"])
    t0 = time.perf_counter()
    scores = score_items(items, names)
    t_score = time.perf_counter() - t0
    t0 = time.perf_counter()
    res = analyse(items, scores, rng=Rng(args.seed), n_boot=1000, alpha_boot=200)
    t_an = time.perf_counter() - t0
    write_report(res, args.out, [f"Benchmark: {args.docs} planned demo documents, {args.per_qa} candidates per QA "
                                 f"pair, seed {args.seed}."])
    print(f"{len(items)} items from {args.docs} documents (dev {res.n_dev}, test {res.n_test}); synthesis "
          f"{t_synth:.1f} s, labelers {t_score:.1f} s, analysis {t_an:.1f} s")
    print("error types:", ", ".join(f"{k} {v}" for k, v in res.error_type_counts.items()))
    print(f"\n{'labeler':18s} {'kappa vs faithfulness gold':>30s} {'kappa vs factual gold':>30s}  "
          f"{'same labels: faith/fact':>24s}")
    for m in res.mismatch:
        f, c = m.kappa_faithfulness, m.kappa_factual
        print(f"{m.labeler:18s} {f.value:8.3f} [{f.low:.3f}, {f.high:.3f}]      {c.value:8.3f} [{c.low:.3f}, "
              f"{c.high:.3f}]      {m.kappa_faithfulness_same_labels:.3f} / {m.kappa_factual_same_labels:.3f}")
    print("\nflag rate per error type (faithfulness-calibrated labels); gold faithfulness / factual:")
    ets = sorted({d.error_type for d in res.drivers})
    print(f"{'labeler':18s}" + "".join(f"{e[:11]:>12s}" for e in ets))
    gold = {d.error_type: (d.gold_faithfulness, d.gold_factual) for d in res.drivers}
    print(f"{'gold faith/fact':18s}" + "".join(f"{gold[e][0]:>6.0f}/{gold[e][1]:<5.0f}" for e in ets))
    for lab in dict.fromkeys(d.labeler for d in res.drivers):
        rows = {d.error_type: d for d in res.drivers if d.labeler == lab}
        print(f"{lab:18s}" + "".join(f"{rows[e].flag_rate:>12.2f}" for e in ets))
    print("\ncontribution to accuracy(faith gold) - accuracy(factual gold), same labels:")
    for lab in dict.fromkeys(d.labeler for d in res.drivers):
        top = sorted((d for d in res.drivers if d.labeler == lab), key=lambda d: -abs(d.contribution))[:2]
        print(f"  {lab:18s} " + ", ".join(f"{d.error_type} {d.contribution:+.3f}" for d in top))
    print()
    bench_bootstrap()
    bench_llm(items)
    print(f"report: {Path(args.out) / 'report.md'}")


if __name__ == "__main__":
    main()
