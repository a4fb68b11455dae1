"""LLM judges through the real client against the local fake server: verdicts, invalids, cache, report.

The fake server's verdicts are scripted, so nothing here measures judge quality; it checks the
plumbing: every item ends as a verdict or an explicit invalid, counts add up, reruns cost nothing.
"""

from __future__ import annotations

import json
import re

import yaml

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.hallucination.pipeline import load_judges_config, run_labeling
from synthdocqa.judges.hallucination.synthesize import synthesize_for_document
from tests.judges.fake_openai_server import FakeOpenAIServer, FakeReply


def _responder(req):
    """Flags a candidate as hallucinated when it has text beyond the reference (a scripted rule)."""
    user = next(m["content"] for m in req["messages"] if m["role"] == "user")  # a repair request adds turns
    ref = re.search(r"<reference_answer>(.*?)</reference_answer>", user, re.S).group(1)
    cand = re.search(r"<candidate_answer>(.*?)</candidate_answer>", user, re.S).group(1)
    verdict = "not_hallucinated" if cand.strip() == ref.split(" (also accepted")[0].strip() else "hallucinated"
    return json.dumps({"verdict": verdict, "reason": "scripted"})


def test_two_judges_two_prompts_with_faults_then_cached_rerun(tmp_path, doc_and_qas):
    doc, qas = doc_and_qas
    items = synthesize_for_document(doc, qas[:12], Rng(2), per_qa=3)
    n = len(items)
    with FakeOpenAIServer(_responder) as srv:
        first, second = items[0].candidate, items[1].candidate
        srv.script(f"<candidate_answer>{first}</candidate_answer>", FakeReply.rate_limit(0.01))
        srv.script(f"<candidate_answer>{second}</candidate_answer>", FakeReply.text("I think it is fine"))
        srv.script(f"<candidate_answer>{items[2].candidate}</candidate_answer>", FakeReply.truncated(),
                   FakeReply.server_error())
        judges = {"judges": [{"name": "j1", "base_url": srv.url, "model": "m1", "backoff_base_s": 0.01,
                              "max_concurrency": 3},
                             {"name": "j2", "base_url": srv.url, "model": "m2", "backoff_base_s": 0.01,
                              "rate_limit_rps": 500}],
                  "labelers": ["exact_match", "token_f1"], "n_boot": 100, "alpha_boot": 20}
        (tmp_path / "judges.yaml").write_text(yaml.safe_dump(judges))
        cfg = load_judges_config(tmp_path / "judges.yaml")
        summary, res = run_labeling(items, cfg, tmp_path / "out", seed=1)
        calls = srv.calls
        for name in ("j1", "j2"):
            s = summary.judges[name]
            assert s.items == 2 * n and s.ok + sum(s.invalid.values()) == 2 * n
            assert s.cache_hits == 0 and s.prompt_tokens > 0
        invalid_total = sum(sum(s.invalid.values()) for s in summary.judges.values())
        assert invalid_total == 0  # the malformed verdict reply (first matching request only) was repaired
        assert sum(s.repaired for s in summary.judges.values()) == 1
        labels = [json.loads(x) for x in (tmp_path / "out" / "labels.jsonl").read_text().splitlines()]
        assert len(labels) == n
        statuses = [v for row in labels for k, v in row.items() if k.startswith("status:")]
        assert len(statuses) == 4 * n and statuses.count("ok:repaired") == 1
        repaired = [(row, k[7:]) for row in labels for k, v in row.items() if v == "ok:repaired"]
        (row, col), = repaired
        assert row[f"reply:{col}"] == "I think it is fine" and "not JSON" in row[f"error:{col}"]
        assert row[f"reason:{col}"] == "scripted"
        for row in labels:
            for k, v in row.items():
                if k.startswith("label:"):
                    assert (v is None) == (not row["status:" + k[6:]].startswith("ok"))
        assert {r.labeler for r in res.metrics} >= {"j1/faithfulness-prompt", "j2/factual-prompt", "token_f1"}
        assert set(res.mcnemar) == {"j1", "j2"}
        assert res.invalid_counts["j1/faithfulness-prompt"]["n"] == n
        report = (tmp_path / "out" / "report.md").read_text()
        assert "Exact McNemar" in report and "hallucination_faithfulness_v2@" in report
        assert "<img" in (tmp_path / "out" / "report.html").read_text()

        summary2, res2 = run_labeling(items, cfg, tmp_path / "out", seed=1)
        assert srv.calls == calls  # served from the SQLite cache
        for name in ("j1", "j2"):
            assert summary2.judges[name].http_calls == 0 and summary2.judges[name].cache_hits == 2 * n
            assert summary2.judges[name].invalid == summary.judges[name].invalid
        assert res2.model_dump() == res.model_dump()
