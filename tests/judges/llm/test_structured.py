"""The cache keyed by the whole request, structured verdicts with format fallback, one repair retry, progress."""

from __future__ import annotations

import json

from synthdocqa.judges.hallucination.labelers.llm_judge import PARSE_VERDICT, REPAIR_HINT, VERDICT_SCHEMA
from synthdocqa.judges.llm import ChatClient, ChatRequest, EndpointConfig, ResponseCache, cache_key
from tests.judges.fake_openai_server import FakeOpenAIServer, FakeReply

GOOD = '{"verdict": "hallucinated", "reason": "wrong value"}'


def _cfg(url: str, **kw) -> EndpointConfig:
    return EndpointConfig(**{"base_url": url, "model": "fake-judge", "timeout_s": 2, "max_retries": 1,
                             "backoff_base_s": 0.01, "max_concurrency": 1, **kw})


def _req(key: str, candidate: str, schema: bool = True) -> ChatRequest:
    return ChatRequest(key=key, prompt_hash="p", messages=[{"role": "user", "content": f"judge: {candidate}"}],
                       schema=VERDICT_SCHEMA if schema else None, repair_hint=REPAIR_HINT)


def test_an_edited_candidate_misses_the_cache_and_the_same_request_hits_it(tmp_path):
    """Items keep their ids (``qa_id:model``) when a system under test changes its answers: the key must not."""
    with FakeOpenAIServer(lambda req: GOOD) as srv, ResponseCache(tmp_path / "c.sqlite") as cache:
        with ChatClient(_cfg(srv.url), cache=cache) as c:
            c.complete_many([_req("q1:sut", "42 units"), _req("q2:sut", "7 days")], parse=PARSE_VERDICT)
        assert srv.calls == 2
        with ChatClient(_cfg(srv.url), cache=cache) as c:
            again = c.complete_many([_req("q1:sut", "42 units"), _req("q2:sut", "8 days")], parse=PARSE_VERDICT)
        assert srv.calls == 3 and [r.cached for r in again] == [True, False]  # the edited one asked again
        with ChatClient(_cfg(srv.url, temperature=0.5), cache=cache) as c:  # other sampling: another request
            c.complete(_req("q1:sut", "42 units"), parse=PARSE_VERDICT)
        assert srv.calls == 4
    body = {"model": "m", "messages": [{"role": "user", "content": "x"}]}
    assert cache_key("http://u:pw@127.0.0.1:8000/v1/?k=1", body) == cache_key("http://127.0.0.1:8000/v1", body)
    assert cache_key("http://127.0.0.1:8001/v1", body) != cache_key("http://127.0.0.1:8000/v1", body)


def test_verdicts_are_asked_with_a_json_schema():
    with FakeOpenAIServer(lambda req: GOOD) as srv:
        with ChatClient(_cfg(srv.url)) as c:
            r = c.complete(_req("a", "x"), parse=PARSE_VERDICT)
        fmt = srv.requests[0]["response_format"]
    assert r.status == "ok" and r.response_format == "json_schema"
    assert fmt == {"type": "json_schema", "json_schema": {"name": "reply", "strict": True, "schema": VERDICT_SCHEMA}}


def test_a_server_that_rejects_a_format_gets_the_next_and_the_cache_remembers(tmp_path):
    """llama-cpp-python's server answers OpenAI json_schema with 422; it takes {"type": "json_object",
    "schema": ...}."""
    def server(req):
        if req.get("response_format", {}).get("type") == "json_schema":
            return FakeReply(status=422, content=None, body=json.dumps(
                {"detail": [{"loc": ["body", "response_format", "type"], "msg": "unexpected value"}]}).encode())
        return GOOD

    with FakeOpenAIServer(server) as srv, ResponseCache(tmp_path / "c.sqlite") as cache:
        with ChatClient(_cfg(srv.url), cache=cache) as c:
            res = c.complete_many([_req("a", "x"), _req("b", "y")], parse=PARSE_VERDICT)
            assert c.stats.format_fallbacks == ["json_schema"]
        assert [r.response_format for r in res] == ["json_object+schema"] * 2 and srv.calls == 3
        assert srv.requests[1]["response_format"] == {"type": "json_object", "schema": VERDICT_SCHEMA}
        with ChatClient(_cfg(srv.url), cache=cache) as c:  # a rerun: no rejected call, every reply cached
            c.complete_many([_req("a", "x"), _req("b", "y")], parse=PARSE_VERDICT)
            assert c.stats.http_calls == 0 and c.stats.cache_hits == 2
        with ChatClient(_cfg(srv.url, response_format="text"), cache=cache) as c:
            c.complete(_req("c", "z"), parse=PARSE_VERDICT)
        assert "response_format" not in srv.requests[-1]


def test_an_unparsable_reply_is_repaired_once_and_both_replies_are_kept(tmp_path):
    with FakeOpenAIServer(lambda req: GOOD) as srv, ResponseCache(tmp_path / "c.sqlite") as cache:
        srv.script("judge: x", FakeReply.text("It is hallucinated, I think."))
        srv.script("judge: y", FakeReply.text("no"), FakeReply.text("still no"))
        with ChatClient(_cfg(srv.url), cache=cache) as c:
            fixed, broken = c.complete_many([_req("a", "x"), _req("b", "y")], parse=PARSE_VERDICT)
            stats = c.stats
        assert fixed.status == "ok" and fixed.repaired and fixed.raw == "It is hallucinated, I think."
        assert fixed.verdict["verdict"] is True and fixed.attempts == 2
        repair = srv.requests[1]["messages"]
        assert repair[-2] == {"role": "assistant", "content": "It is hallucinated, I think."}
        assert "could not be read (not JSON" in repair[-1]["content"] and REPAIR_HINT in repair[-1]["content"]
        assert broken.status == "invalid" and broken.invalid_reason == "unparseable" and broken.raw == "no"
        assert "after repair" in broken.error
        assert stats.repairs == 2 and stats.repaired == 1 and srv.calls == 4
        with ChatClient(_cfg(srv.url), cache=cache) as c:
            again = c.complete_many([_req("a", "x"), _req("b", "y")], parse=PARSE_VERDICT)
            assert c.stats.http_calls == 0 and [r.status for r in again] == ["ok", "invalid"]


def test_progress_is_told_after_every_item():
    seen = []
    with FakeOpenAIServer(lambda req: GOOD) as srv:
        srv.script("judge: b", FakeReply.status_code(401))
        with ChatClient(_cfg(srv.url), progress=seen.append) as c:
            c.complete_many([_req("a", "a"), _req("b", "b"), _req("c", "c")], parse=PARSE_VERDICT)
    assert [s.items for s in seen] == [1, 2, 3] and seen[-1].ok == 2 and seen[-1].invalid == {"auth": 1}
