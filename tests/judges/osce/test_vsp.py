"""VSP runs: the persona prompt from the case, multi-turn dialogues through the shared client, resumable runs,
stated failures, the human answer file and the script check (against a fake OpenAI server; the real local model
is in test_vsp_real_model.py)."""

from __future__ import annotations

import json

import pytest

from synthdocqa.judges.llm import EndpointConfig
from synthdocqa.judges.osce.case_bank import (
    SHIPPED_CASES,
    ScriptedQuestion,
    Text,
    load_case_bank,
    load_questions,
)
from synthdocqa.judges.osce.loaders import OsceInputError, load_dialogues
from synthdocqa.judges.osce.vsp import (
    Responder,
    load_responders,
    persona_prompt,
    persona_template,
    read_run,
    run_vsp,
    script_check,
)
from tests.judges.fake_openai_server import FakeOpenAIServer, FakeReply

CASES = load_case_bank()
QUESTIONS = load_questions(SHIPPED_CASES / "questions.csv", CASES)


def _first(case: str, n: int) -> list[ScriptedQuestion]:
    return [q for q in QUESTIONS if q.case == case][:n]


def _llm(name: str, url: str, **kw) -> Responder:
    return Responder(name=name, endpoint=EndpointConfig(base_url=url, model="fake", max_retries=0, **kw))


def _echo(req: dict) -> str:
    """Answers with the number of earlier turns it was given and the last question (multi-turn is visible)."""
    msgs = req["messages"]
    return f"turns before: {(len(msgs) - 2) // 2}; you asked: {msgs[-1]['content'].strip()}"


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_persona_prompt_casts_the_case_and_is_versioned(language):
    for case in CASES.values():
        text = persona_prompt(case, language)
        assert case.persona.name(language) in text and case.chief_complaint(language) in text
        for f in case.facts:
            assert f.text(language) in text  # as written: the study's own text is not entity-escaped
        for line in case.red_lines:
            assert line.text(language) in text
        # what is said only on request sits after the heading that says so, not with the volunteered facts
        on_request = [f.text(language) for f in case.facts if f.reveal == "on_request"]
        volunteered = [f.text(language) for f in case.facts if f.reveal == "volunteered"]
        assert max(text.index(v) for v in volunteered) < min(text.index(o) for o in on_request)
    t = persona_template(language)
    assert t.name == f"vsp_persona_{language}_v1" and len(t.sha256) == 64
    if language == "ko":
        assert "표준화 환자" in persona_prompt(CASES["hematuria"], "ko")


def test_a_run_is_multi_turn_complete_and_a_rerun_makes_no_request(tmp_path):
    qs = _first("hematuria", 4) + _first("chronic_cough", 3)
    with FakeOpenAIServer(responder=_echo) as srv:
        rs = [_llm("model-a", srv.url), _llm("model-b", srv.url, temperature=0.7, seed=7)]
        run = run_vsp(CASES, qs, rs, tmp_path / "run")
        assert srv.calls == 14 and run.requests == 14 and not run.failures
        sizes = [len(b["messages"]) for b in srv.requests if b["temperature"] == 0.0]
        assert sorted(sizes) == [2, 2, 4, 4, 6, 6, 8]  # system + earlier (q, a) pairs + this question
        assert {b["seed"] for b in srv.requests} == {0, 7}
        first = {(r.responder, r.utterance_id): r for r in read_run(tmp_path / "run")}
        again = run_vsp(CASES, qs, rs, tmp_path / "run")
        assert srv.calls == 14 and again.requests == 0 and again.cache_hits == 14
    recs = read_run(tmp_path / "run")
    assert len(recs) == 14 and all(r.status == "ok" and r.prompt_sha256 == persona_template("en").sha256 for r in recs)
    by = {(r.responder, r.utterance_id): r for r in recs}
    assert by[("model-a", "HEM-04")].response.startswith("turns before: 3; you asked: " + qs[3].text.en[:20])
    # the rerun's records: every reply from the cache, with the latency and attempts of the request that made it
    assert all(r.cached and not first[(r.responder, r.utterance_id)].cached for r in recs)
    assert [(r.latency_s, r.attempts) for r in recs] == [(first[(r.responder, r.utterance_id)].latency_s, 1)
                                                         for r in recs] and all(r.latency_s > 0 for r in recs)
    dialogues = load_dialogues(tmp_path / "run" / "dialogues.csv")
    assert [(d.case, d.responder, len(d.turns)) for d in dialogues] == [
        ("chronic_cough", "model-a", 3), ("chronic_cough", "model-b", 3), ("hematuria", "model-a", 4),
        ("hematuria", "model-b", 4)]
    summary = json.loads((tmp_path / "run" / "run.json").read_text())
    a = summary["responders"]["model-a"]
    assert summary["requests"] == 0 and (a["turns"], a["answered"], a["failed"]) == (7, 7, 0)
    # the echo states numbers ("turns before: 3") where a question probes a scripted number: screened, flagged
    assert a["flagged"] == sum(bool(r.flags) for r in recs if r.responder == "model-a") > 0
    assert (tmp_path / "run" / "prompts" / "hematuria.en.txt").read_text().startswith("You are a standardized patient")


def test_a_stopped_run_resumes_asking_only_what_is_missing(tmp_path):
    qs = _first("hematuria", 5)
    with FakeOpenAIServer(responder=_echo) as srv:
        srv.script("When did you first notice", FakeReply.server_error())  # HEM-03 fails once
        first = run_vsp(CASES, qs, [_llm("m", srv.url)], tmp_path / "run")
        failed = [r for r in first.records if r.status == "failed"]
        assert [r.utterance_id for r in failed] == ["HEM-03"]
        assert failed[0].failure.startswith("retries_exhausted") and failed[0].response is None
        # the failed turn is stated and left out of the later context: HEM-04 saw 2 earlier turns, not 3
        assert next(r for r in first.records if r.utterance_id == "HEM-04").response.startswith("turns before: 2")
        calls = srv.calls
        second = run_vsp(CASES, qs, [_llm("m", srv.url)], tmp_path / "run")
        # HEM-01/02 come from the cache; HEM-03 is asked again, and HEM-04/05 with the longer context are new
        assert second.requests == srv.calls - calls == 3 and not second.failures
    assert len(load_dialogues(tmp_path / "run" / "dialogues.csv")[0].turns) == 5


def test_the_human_responder_reads_its_file_and_states_a_missing_answer(tmp_path):
    answers = tmp_path / "human.csv"
    answers.write_text("case,utterance_id,response_en,response_ko\n"
                       "hematuria,HEM-01,I've seen blood in my urine.,소변에 피가 나와요.\n"
                       "hematuria,HEM-02,It is red all the way through.,처음부터 끝까지 빨개요.\n", encoding="utf-8")
    run = run_vsp(CASES, _first("hematuria", 3), [Responder(name="human", answers=str(answers))], tmp_path / "run",
                  language="ko")
    assert [(r.status, r.response) for r in run.records] == [("ok", "소변에 피가 나와요."), ("ok", "처음부터 끝까지 빨개요."),
                                                             ("failed", None)]
    assert run.records[2].failure == f"no answer in {answers}" and run.requests == 0
    assert run.records[0].question == _first("hematuria", 1)[0].text.ko and run.records[0].model == "human"


def _q(**kw) -> ScriptedQuestion:
    base = dict(case="hematuria", utterance_id="X", turn=1, text=Text(en="q", ko="q"), category="other", form="closed")
    return ScriptedQuestion(**{**base, **kw})


def test_the_script_check_flags_red_lines_and_contradictions_and_passes_a_faithful_answer():
    case = CASES["hematuria"]
    assert script_check(case, _q(), "I think it might be bladder cancer.", "en")[0].startswith("red line: Names the")
    assert script_check(case, _q(), "Could it be a tumour?", "en") != []
    assert script_check(case, _q(), "방광암인가요?", "ko")[0].startswith("red line: 진단명")
    assert script_check(case, _q(), "It doesn't hurt, and I've had no accident.", "en") == []  # 'scan' etc. absent
    onset = _q(probes="onset", form="focused")
    assert script_check(case, onset, "It started three days ago.", "en") == []
    assert script_check(case, onset, "It started 3 days ago.", "en") == []
    assert "states 5, the script says 3 days" in script_check(case, onset, "About five days ago.", "en")[0]
    assert script_check(case, onset, "사흘 전부터요.", "ko") == []
    assert script_check(case, onset, "Three days. Is it COVID-19?", "en") == []  # a name's digits are no number
    assert script_check(case, onset, "일주일 전, 7일 전부터요.", "ko") != []
    pain = _q(probes="no_pain", expect="no")
    assert script_check(case, pain, "No, it doesn't hurt at all.", "en") == []
    assert "answers 'yes', the script says 'no'" in script_check(case, pain, "Yes, it burns a lot.", "en")[0]
    assert script_check(case, pain, "네, 많이 아파요.", "ko") != [] and script_check(case, pain, "아니요, 안 아파요.", "ko") == []
    assert script_check(case, pain, "Well, I'm not sure.", "en") == []  # neither yes nor no: nothing to compare


def test_responders_file_errors_name_the_key_and_relative_answers_resolve(tmp_path):
    good = tmp_path / "r.yaml"
    good.write_text("responders:\n  - {name: a, endpoint: {base_url: 'http://127.0.0.1:1/v1', model: m}}\n"
                    "  - {name: human, answers: answers.csv}\n")
    rs = load_responders(good)
    assert [r.kind for r in rs] == ["llm", "human"] and rs[1].answers == str(tmp_path / "answers.csv")
    bad = tmp_path / "bad.yaml"
    bad.write_text("responders:\n  - {name: a, endpoint: {base_url: 'ftp://x', model: m}}\n"
                   "  - {name: b}\n  - {name: c, answers: x.csv}\n  - {name: c, answers: y.csv}\n")
    with pytest.raises(OsceInputError) as e:
        load_responders(bad)
    msg = str(e.value)
    assert "bad.yaml" in msg and "responders.0.endpoint" in msg and "base_url must start with http" in msg
    assert "responders.1: give either endpoint" in msg and "name 'c' used twice" in msg


def test_questions_of_an_unknown_case_are_refused_before_anything_runs(tmp_path):
    q = _q(case="nosuch")
    with pytest.raises(OsceInputError, match="unknown case"):
        run_vsp(CASES, [q], [Responder(name="h", answers=str(tmp_path / "x.csv"))], tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_the_docs_show_the_persona_prompt_of_each_shipped_case():
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "osce.md").read_text(encoding="utf-8")
    for case in CASES.values():
        assert persona_prompt(case, "en").rstrip() in docs, f"docs/osce.md: the {case.id} persona prompt is stale"
    assert persona_prompt(CASES["hematuria"], "ko").rstrip() in docs


def test_a_refused_turn_states_the_servers_reason_and_the_run_writes_a_readable_page(tmp_path):
    too_long = FakeReply(status=400, content=None, body=json.dumps({"error": {
        "message": "This model's maximum context length is 4096 tokens. However, you requested 4271 tokens"}}).encode())
    with FakeOpenAIServer(responder=_echo) as srv:
        srv.script(_first("hematuria", 4)[3].text.ko, too_long)
        run = run_vsp(CASES, _first("hematuria", 4), [_llm("m", srv.url)], tmp_path / "run", language="ko")
    failed = run.failures
    assert [r.utterance_id for r in failed] == ["HEM-04"]
    assert failed[0].failure == ("http_error: HTTP 400: This model's maximum context length is 4096 tokens. However, "
                                 "you requested 4271 tokens")
    page = (tmp_path / "run" / "dialogues.html").read_text(encoding="utf-8")
    assert CASES["hematuria"].title.ko in page and "[failed: http_error: HTTP 400" in page
    assert "@font-face" in page  # Hangul on the page: the embedded font subset comes with it


def test_the_case_text_reaches_the_model_as_written_and_a_missing_key_stops_the_run_before_any_request(
        tmp_path, monkeypatch):
    case = CASES["hematuria"]
    fact = case.facts[0].model_copy(update={"en": "My BP is > 140 & I feel <odd>."})
    odd = case.model_copy(update={"facts": [fact, *case.facts[1:]]})
    assert "My BP is > 140 & I feel <odd>." in persona_prompt(odd, "en")
    monkeypatch.delenv("VSP_TEST_KEY", raising=False)
    with FakeOpenAIServer(responder=_echo) as srv:
        rs = [_llm("free", srv.url), Responder(name="paid", endpoint=EndpointConfig(
            base_url=srv.url, model="fake", api_key_env="VSP_TEST_KEY"))]
        with pytest.raises(OsceInputError, match="VSP_TEST_KEY is not set"):
            run_vsp({**CASES, "hematuria": odd}, _first("hematuria", 2), rs, tmp_path / "run")
        assert srv.calls == 0 and not (tmp_path / "run").exists()
        run_vsp({**CASES, "hematuria": odd}, _first("hematuria", 1), rs[:1], tmp_path / "run2")
        assert "My BP is > 140 & I feel <odd>." in srv.requests[0]["messages"][0]["content"]
