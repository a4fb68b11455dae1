"""The VSP study end to end on the local model (llama-cpp-python's server with SmolLM2-135M, the [llm] extra):
the shipped cases, two VSPs on the model plus the human expert's answers, blinded packets for the raters filled
with planted scores (a rehearsal: no person rated anything), collected back, the LLM rubric judge on the same
dialogues (the same local model), and the analysis with the judge-vs-rater agreement table.

    .venv/bin/python benchmarks/osce_study_local.py OUT [--language en|ko] [--n-ctx 4096] [--port 8091] [--raters 17]
        [--seed 0] [--max-questions N] [--rubric-metrics a,b] [--skip-rubric]

Writes OUT/run (the VSP run), OUT/packets and OUT/packets-key.json, OUT/ratings.csv, OUT/judge.csv, OUT/report and
OUT/summary.json (counts, requests, timings, the rerun's requests). What a 135M model answers as a patient or as a
judge says nothing about quality: these figures are about the protocol.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import pandas as pd  # noqa: E402

from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.judges.llm import ChatClient, EndpointConfig, ResponseCache  # noqa: E402
from synthdocqa.judges.llm.local_server import LocalModelServer  # noqa: E402
from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank, load_questions  # noqa: E402
from synthdocqa.judges.osce.loaders import load_dialogues, load_ratings, write_table  # noqa: E402
from synthdocqa.judges.osce.packets import collect_packets, fill_packets, write_packets  # noqa: E402
from synthdocqa.judges.osce.pipeline import analyze_file  # noqa: E402
from synthdocqa.judges.osce.rubric import judge_agreement, score_dialogues  # noqa: E402
from synthdocqa.judges.osce.schema import Taxonomy  # noqa: E402
from synthdocqa.judges.osce.vsp import DIALOGUES_FILE, load_responders, run_vsp  # noqa: E402

EFFECT = {"human": 1.0, "smollm2-greedy": -0.5, "smollm2-sampled": -1.0}
"""The planted rater scores: 3 + the responder's effect + the rater's severity + noise, rounded onto the scale."""


def _u(*parts: object) -> float:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:12], 16) / 16**12


def planted(rater: str, metric, item) -> int:  # noqa: ANN001 (KeyMetric, KeyUtterance | KeyEncounter)
    unit = f"{item.encounter}|{getattr(item, 'utterance_id', '')}"
    latent = 3 + EFFECT.get(item.responder, 0.0) + (_u("sev", rater) - 0.5) + 1.2 * (_u("n", rater, unit, metric.name) - 0.5)
    return max(metric.scale_min, min(metric.scale_max, int(latent + 0.5)))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--language", default="en", choices=["en", "ko"])
    ap.add_argument("--n-ctx", type=int, default=4096)
    ap.add_argument("--port", type=int, default=8091,
                    help="the server's port: part of every cache key, so a rerun on the same port asks nothing")
    ap.add_argument("--raters", type=int, default=17)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-questions", type=int)
    ap.add_argument("--rubric-metrics")
    ap.add_argument("--skip-rubric", action="store_true")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    import shutil

    for derived in ("packets", "report"):  # made again from the cached run each time
        shutil.rmtree(out / derived, ignore_errors=True)
    (out / "packets-key.json").unlink(missing_ok=True)
    summary: dict[str, object] = {"language": a.language, "n_ctx": a.n_ctx, "raters": a.raters, "seed": a.seed}
    cases = load_case_bank()
    questions = load_questions(SHIPPED_CASES / "questions.csv", cases)
    if a.max_questions:
        questions = [q for q in questions if q.turn <= a.max_questions]
    with LocalModelServer(n_ctx=a.n_ctx, port=a.port, log=out / "server.log") as srv:
        responders = [r if r.endpoint is None else r.model_copy(update={"endpoint": r.endpoint.model_copy(
            update={"base_url": srv.base_url, "model": srv.alias})})
            for r in load_responders(ROOT / "examples" / "osce" / "responders.yaml")]
        t0 = time.perf_counter()
        run = run_vsp(cases, questions, responders, out / "run", language=a.language)
        summary["vsp_s"] = round(time.perf_counter() - t0, 1)
        summary["vsp"] = run.summary()
        t0 = time.perf_counter()
        again = run_vsp(cases, questions, responders, out / "run", language=a.language)
        summary["rerun"] = {"requests": again.requests, "cache_hits": again.cache_hits,
                            "s": round(time.perf_counter() - t0, 2)}
        print(f"vsp: {run.requests} requests in {summary['vsp_s']} s; rerun {again.requests} requests", flush=True)
        dialogues = load_dialogues(out / "run" / DIALOGUES_FILE)
        key = out / "packets-key.json"
        made = write_packets(dialogues, a.raters, a.seed, out / "packets", key_path=key,
                             case_titles={c: x.title(a.language) for c, x in cases.items()})
        summary["packets"] = {"files": len(made.files), "utterances": made.n_utterances,
                              "encounters": made.n_encounters, "cells": fill_packets(made.out_dir, key, planted)}
        ratings = collect_packets(made.out_dir, key)
        write_table(ratings, out / "ratings.csv")
        judge_path = None
        if not a.skip_rubric:
            tax = Taxonomy()
            metrics = a.rubric_metrics.split(",") if a.rubric_metrics else None
            scripts = {p.stem: p.read_text(encoding="utf-8") for p in (out / "run" / "case_scripts").glob("*.md")}
            cfg = EndpointConfig(base_url=srv.base_url, model=srv.alias, max_concurrency=1, timeout_s=300,
                                 max_tokens=96)
            t0 = time.perf_counter()
            with ResponseCache(out / "judge.sqlite") as cache, ChatClient(cfg, cache=cache, rng=Rng(a.seed)) as c:
                scored = score_dialogues(dialogues, c, tax, metrics, case_scripts=scripts)
                summary["rubric"] = {"requests": scored.n_requests, "scores": len(scored.ratings),
                                     "http_calls": c.stats.http_calls, "invalid": c.stats.invalid,
                                     "repaired": c.stats.repaired, "s": round(time.perf_counter() - t0, 1)}
            judge_path = out / "judge.csv"
            write_table(scored.ratings, judge_path)
            agreement = judge_agreement(load_ratings(judge_path, tax), ratings, tax)
            summary["agreement"] = agreement.to_dict(orient="records")
            print(f"rubric: {scored.n_requests} requests in {summary['rubric']['s']} s", flush=True)
    tax = Taxonomy()
    rubric = judge_agreement(load_ratings(judge_path, tax), ratings, tax) if judge_path else None
    res, _ = analyze_file(out / "ratings.csv", out / "report", taxonomy=tax, rubric=rubric)
    summary["analysis"] = {"scores": res.n_scores, "metrics": len(res.metrics), "significant": res.significant,
                           "contrasts": res.contrasts}
    (out / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False, default=str) + "\n",
                                      encoding="utf-8")
    print(json.dumps({k: summary[k] for k in ("vsp_s", "rerun", "packets", "analysis")}, default=str))
    if rubric is not None:
        print(pd.DataFrame(summary["agreement"]).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
