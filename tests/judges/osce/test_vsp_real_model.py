"""The VSP run against a real model: llama-cpp-python's OpenAI-compatible server with SmolLM2-135M-Instruct
(the ``[llm]`` extra; .ci/run installs it). What is checked is the protocol (multi-turn context on a real
server, the cache, the records), never the quality of the 135M model as a patient."""

from __future__ import annotations

import pytest

from synthdocqa.judges.llm import EndpointConfig
from synthdocqa.judges.llm.local_server import LocalModelServer
from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank, load_questions
from synthdocqa.judges.osce.loaders import load_dialogues
from synthdocqa.judges.osce.vsp import Responder, persona_template, read_run, run_vsp

pytestmark = [pytest.mark.slow, pytest.mark.needs("model")]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    with LocalModelServer(log=tmp_path_factory.mktemp("llm") / "server.log", threads=2) as srv:  # 2 cores, one test
        yield srv


@pytest.mark.parametrize("language", ["en", "ko"])
def test_two_vsps_on_the_local_model_answer_every_turn_and_a_rerun_is_free(model, tmp_path, language):
    cases = load_case_bank()
    qs = [q for q in load_questions(SHIPPED_CASES / "questions.csv", cases) if q.case == "hematuria"][:3]

    def vsp(name: str, **kw) -> Responder:
        return Responder(name=name, endpoint=EndpointConfig(base_url=model.base_url, model=model.alias, max_tokens=40,
                                                            max_concurrency=1, timeout_s=300, **kw))

    rs = [vsp("greedy"), vsp("sampled", temperature=0.7, seed=7)]
    run = run_vsp(cases, qs, rs, tmp_path / "run", language=language)
    assert len(run.records) == 6 and run.requests >= 6
    for r in run.records:  # answered, or a failure that says why
        assert (r.status == "ok" and r.response) or (r.status == "failed" and r.failure), r
        assert r.prompt_sha256 == persona_template(language).sha256 and r.model == model.alias
    ok = [r for r in run.records if r.status == "ok"]
    assert ok and all(r.latency_s > 0 and r.prompt_tokens > 0 and r.completion_tokens > 0 for r in ok)
    # the third turn's prompt holds the system prompt and the two earlier turns: more tokens than the first's
    first, third = (next(r for r in ok if r.responder == "greedy" and r.turn == t) for t in (1, 3))
    assert third.prompt_tokens > first.prompt_tokens + 20
    again = run_vsp(cases, qs, rs, tmp_path / "run", language=language)
    assert again.requests == 0 and [r.response for r in again.records] == [r.response for r in run.records]
    assert len(read_run(tmp_path / "run")) == 6
    assert {d.responder for d in load_dialogues(tmp_path / "run" / "dialogues.csv")} <= {"greedy", "sampled"}
