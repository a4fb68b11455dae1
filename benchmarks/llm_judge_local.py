"""The LLM judge path on a real local model: llama-cpp-python's server with SmolLM2-135M (the [llm] extra).

    .venv/bin/python benchmarks/llm_judge_local.py CORPUS [--items 60] [--seed 0] [--out DIR]

Prints, per prompt: valid verdicts (first reply / after a repair request), the response format the server
took, the flag rate, a few raw replies, the injection table, the wall time, and the rerun's HTTP calls. What a
135M model answers says nothing about judge quality; these figures are about the protocol.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from synthdocqa.corpus.store import open_corpus  # noqa: E402
from synthdocqa.judges.hallucination.pipeline import JudgesConfig, prepare_items, run_labeling  # noqa: E402
from synthdocqa.judges.llm.local_server import LocalModelServer  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("corpus")
    ap.add_argument("--items", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out = Path(args.out or tempfile.mkdtemp(prefix="llm-judge-"))
    with LocalModelServer(log=out / "server.log") as srv:
        cfg = JudgesConfig.model_validate({
            "judges": [{"name": "smollm2", "base_url": srv.base_url, "model": srv.alias, "max_concurrency": 1,
                        "timeout_s": 300, "max_tokens": 96}],
            "labelers": ["exact_match"], "n_boot": 200, "alpha_boot": 0})
        items, what = prepare_items(cfg, source=open_corpus(args.corpus), seed=args.seed, max_items=args.items)
        t0 = time.perf_counter()
        summary, result = run_labeling(items, cfg, out, seed=args.seed)
        wall = time.perf_counter() - t0
        t1 = time.perf_counter()
        rerun, _ = run_labeling(items, cfg, out, seed=args.seed)
        rerun_wall = time.perf_counter() - t1
    rows = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    s = summary.judges["smollm2"]
    per_prompt = {}
    for crit in ("faithfulness", "factual"):
        col = f"smollm2/{crit}-prompt"
        st = [r[f"status:{col}"] for r in rows]
        labels = [r[f"label:{col}"] for r in rows if r[f"label:{col}"] is not None]
        per_prompt[crit] = {
            "valid": sum(x.startswith("ok") for x in st), "valid_first_reply": st.count("ok"),
            "repaired": st.count("ok:repaired"), "n": len(st),
            "flag_rate": round(sum(labels) / len(labels), 3) if labels else None,
            "examples": [r[f"reply:{col}"] for r in rows[:3]]}
    report = {"items": len(items), "source": what, "verdict_requests": s.items, "valid": s.ok,
              "valid_share": round(s.ok / s.items, 4), "repairs": s.repairs, "repaired": s.repaired,
              "format_fallbacks": s.format_fallbacks, "http_calls": s.http_calls, "wall_s": round(wall, 1),
              "s_per_request": round(wall / max(1, s.http_calls), 2),
              "rerun_http_calls": rerun.judges["smollm2"].http_calls, "rerun_wall_s": round(rerun_wall, 1),
              "per_prompt": per_prompt,
              "injection": [r.model_dump() for r in result.injection], "out": str(out)}
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
