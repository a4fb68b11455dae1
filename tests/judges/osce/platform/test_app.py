"""The practice platform's application through HTTP (Starlette's test client on the real app, a real SQLite
file, the fake OpenAI server as the VSP): consent decides what is stored, turns are committed as they happen,
sessions cannot see each other's encounters, forms need their CSRF token, user text is escaped."""

from __future__ import annotations

import asyncio
import re

import pytest
from starlette.testclient import TestClient

from synthdocqa.judges.llm import EndpointConfig
from synthdocqa.judges.osce.case_bank import load_case_bank
from synthdocqa.judges.osce.platform.app import PlatformConfig, create_app
from synthdocqa.judges.osce.platform.store import PlatformStore
from synthdocqa.judges.osce.vsp import Responder
from tests.judges.fake_openai_server import FakeOpenAIServer

CASES = load_case_bank()
XSS = '<script>alert("x")</script>{{ 7*7 }}'


@pytest.fixture
def vsp():
    with FakeOpenAIServer(responder=lambda req: f"Answer {len(req['messages']) // 2}.") as srv:
        yield srv


def _app(tmp_path, srv, **kw):
    cfg = PlatformConfig(cases=CASES, db_url=f"sqlite+aiosqlite:///{tmp_path / 'p.db'}",
                         vsp=Responder(name="vsp", endpoint=EndpointConfig(base_url=srv.url, model="fake",
                                                                           max_retries=0)), **kw)
    return create_app(cfg)


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def _student(client: TestClient, code: str, research: bool) -> None:
    token = _csrf(client.get("/").text)
    assert client.post("/signin", data={"csrf": token, "code": code}).status_code == 200  # -> consent page
    form = {"csrf": token, "privacy": "yes", **({"research": "yes"} if research else {})}
    assert client.post("/consent", data=form).url.path == "/cases"


def _start(client: TestClient, case: str = "hematuria", language: str = "en") -> str:
    token = _csrf(client.get("/cases").text)
    r = client.post("/encounters", data={"csrf": token, "case": case, "language": language})
    assert r.status_code == 200 and r.url.path.startswith("/encounters/")
    return r.url.path.rsplit("/", 1)[1]


def _ask(client: TestClient, eid: str, question: str) -> str:
    token = _csrf(client.get(f"/encounters/{eid}").text)
    r = client.post(f"/encounters/{eid}/turns", data={"csrf": token, "question": question})
    assert r.status_code == 200, r.text
    return r.text


def _stored(tmp_path) -> list:
    async def read():
        store = await PlatformStore.open(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}")
        try:
            return await store.encounters(consented_only=False)
        finally:
            await store.close()
    return asyncio.run(read())


def test_without_research_consent_nothing_is_stored(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "PRACTICE-1", research=False)
        eid = _start(c)
        for q in ("What brings you in today?", "When did it start?", "Does it hurt?"):
            page = _ask(c, eid, q)
        assert "Answer 3." in page and "nothing of this encounter is kept" in page
        assert _stored(tmp_path) == []
        token = _csrf(page)
        assert c.post(f"/encounters/{eid}/end", data={"csrf": token, "differential": "stone"}).status_code == 200
        ended = c.get(f"/encounters/{eid}")  # ended, in this session's memory only (for its feedback)
        assert ended.status_code == 200 and 'name="question"' not in ended.text
        assert _stored(tmp_path) == []
    data = (tmp_path / "p.db").read_bytes()
    assert b"When did it start" not in data and b"PRACTICE-1" not in data


def test_a_five_turn_encounter_is_stored_turn_by_turn_and_ended(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "RESEARCH-1", research=True)
        eid = _start(c, "fever_in_pregnancy", "ko")
        for k in range(1, 6):
            _ask(c, eid, f"질문 {k}번이에요?")
            (e,) = _stored(tmp_path)  # read by another connection: committed before the page came back
            assert [t.question for t in e.turns] == [f"질문 {i}번이에요?" for i in range(1, k + 1)]
        assert [t.answer for t in e.turns] == [f"Answer {k}." for k in range(1, 6)]  # the context grows per turn
        page = c.get(f"/encounters/{eid}").text
        assert "연구 동의에 따라 저장됩니다" in page and 'lang="ko"' in page
        assert "Kept for research" not in page and "Ask" not in page  # the case's language only
        end = c.post(f"/encounters/{eid}/end", data={"csrf": _csrf(page), "differential": "신우신염"}).text
        assert "면담이 종료되었습니다" in end and "Encounter ended" not in end
        cases = c.get("/cases").text  # no case decides the case list: both languages, whatever came before
        assert "Cases · 증례" in cases and "Kept for research" in cases and "연구 동의에 따라" in cases
    (e,) = _stored(tmp_path)
    assert e.ended_at is not None and e.differential == "신우신염" and e.language == "ko"
    first = vsp.requests[0]["messages"]
    assert first[0]["role"] == "system" and "표준화 환자" in first[0]["content"]  # the case's persona prompt
    assert "Bearer" not in repr(vsp.requests) and "api_key" not in (tmp_path / "p.db").read_bytes().decode("latin-1")


def test_another_session_cannot_read_or_write_an_encounter(tmp_path, vsp):
    app = _app(tmp_path, vsp)
    with TestClient(app) as a, TestClient(app) as b:
        _student(a, "OWNER-1", research=True)
        eid = _start(a)
        _ask(a, eid, "private question")
        _student(b, "OTHER-1", research=True)
        assert b.get(f"/encounters/{eid}").status_code == 404
        token = _csrf(b.get("/cases").text)
        assert b.post(f"/encounters/{eid}/turns", data={"csrf": token, "question": "x"}).status_code == 404
        assert b.post(f"/encounters/{eid}/end", data={"csrf": token, "differential": "x"}).status_code == 404
    (e,) = _stored(tmp_path)
    assert [t.question for t in e.turns] == ["private question"] and e.ended_at is None


def test_a_form_without_its_csrf_token_is_refused(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "CSRF-1", research=True)
        eid = _start(c)
        assert c.post(f"/encounters/{eid}/turns", data={"question": "forged"}).status_code == 403
        assert c.post(f"/encounters/{eid}/turns", data={"csrf": "wrong", "question": "forged"}).status_code == 403
        assert c.post("/consent/withdraw", data={}).status_code == 403
    (e,) = _stored(tmp_path)
    assert e.turns == () and vsp.calls == 0


def test_user_text_is_escaped_in_the_students_and_the_admins_page(tmp_path, vsp, monkeypatch):
    monkeypatch.setenv("SYNTHDOCQA_PLATFORM_ADMIN_TOKEN", "admin-secret")
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "XSS-1", research=True)
        eid = _start(c)
        page = _ask(c, eid, XSS)
        assert XSS not in page and "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;{{ 7*7 }}" in page
        assert "&lt;/script&gt;49" not in page  # not evaluated as a template either (where its value would
        # stand: a bare "49" also turns up in the page's random tokens now and then)
        assert "default-src 'self'" in c.get(f"/encounters/{eid}").headers["content-security-policy"]
        assert c.get("/admin").status_code == 401
        assert c.get("/admin", headers={"Authorization": "Bearer wrong"}).status_code == 401
        admin = c.get("/admin", headers={"Authorization": "Bearer admin-secret"})
        assert admin.status_code == 200 and XSS not in admin.text and "&lt;script&gt;" in admin.text
        assert "<td>hematuria</td><td>1</td>" in admin.text


def test_turns_are_rate_limited_per_session_and_withdrawal_deletes(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp, turns_per_minute=2)) as c:
        _student(c, "LIMIT-1", research=True)
        eid = _start(c)
        _ask(c, eid, "one")
        _ask(c, eid, "two")
        token = _csrf(c.get(f"/encounters/{eid}").text)
        r = c.post(f"/encounters/{eid}/turns", data={"csrf": token, "question": "three"})
        assert r.status_code == 429 and vsp.calls == 2
        assert len(_stored(tmp_path)[0].turns) == 2
        page = c.post("/consent/withdraw", data={"csrf": token})
        assert page.status_code == 200 and "1 stored encounter(s) deleted" in page.text
        assert "연구 동의가 철회되었습니다" in page.text and "저장된 면담 1건이 삭제되었습니다" in page.text
        assert _stored(tmp_path) == [] and c.get(f"/encounters/{eid}").status_code == 404


def test_sign_in_refuses_what_looks_like_a_name_or_an_address(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp)) as c:
        token = _csrf(c.get("/").text)
        r = c.post("/signin", data={"csrf": token, "code": "kim.minsu@example.com"})
        assert r.status_code == 400 and "no names or e-mail addresses" in r.text
        assert c.get("/cases").url.path == "/"  # not signed in


def test_the_export_holds_exactly_the_consented_ended_encounters_pseudonymised_afresh(tmp_path, vsp, monkeypatch):
    import synthdocqa.flows.cli  # noqa: F401
    from synthdocqa import flows
    from synthdocqa.judges.osce.loaders import load_dialogues

    app = _app(tmp_path, vsp)
    with TestClient(app) as a, TestClient(app) as b, TestClient(app) as c:
        for client, code, research in ((a, "EXP-A", True), (b, "EXP-B", False), (c, "EXP-C", True)):
            _student(client, code, research)
            eid = _start(client, "chronic_cough", "en")
            for q in ("How long have you had the cough?", "Is it dry?"):
                page = _ask(client, eid, f"{code}: {q}")
            if code != "EXP-C":  # C's encounter is still open: not exported
                client.post(f"/encounters/{eid}/end", data={"csrf": _csrf(page), "differential": "reflux"})
    monkeypatch.setattr(flows.cli, "COMMAND_MODULES", ("synthdocqa.flows.commands.osce",))
    db = f"sqlite+aiosqlite:///{tmp_path / 'p.db'}"
    outs = []
    for k in (1, 2):
        out = tmp_path / f"export{k}"
        assert flows.cli.main(["osce", "platform", "export", "--db", db, "--out", str(out)]) == 0
        outs.append(out)
    (d,) = load_dialogues(outs[0] / "dialogues.csv")  # the dialogues table the rubric and packets read
    assert [t.question for t in d.turns] == ["EXP-A: How long have you had the cough?", "EXP-A: Is it dry?"]
    assert d.encounter == "E0001" and d.responder == "fake"
    text = "".join(p.read_text(encoding="utf-8") for out in outs for p in out.rglob("*") if p.is_file())
    assert "EXP-B" not in text and "EXP-C" not in text  # no practice-only and no unfinished encounter
    stored = _stored(tmp_path)
    assert not [e for e in stored for x in (e.id, e.student_id) if x in text]  # no stored id leaves the platform
    card = (outs[0] / "hf" / "README.md").read_text(encoding="utf-8")
    assert "1 ended encounters of 1 students" in card and "pseudonymised for this export" in card.lower()


def test_the_pages_bring_a_hangul_font_with_every_syllable_they_show(tmp_path, vsp):
    import io

    from fontTools.ttLib import TTFont

    with TestClient(_app(tmp_path, vsp)) as c:
        assert 'src:url(/font/hangul.woff)' in c.get("/").text
        r = c.get("/font/hangul.woff")
        assert r.status_code == 200 and r.headers["content-type"] == "font/woff"
        cmap = TTFont(io.BytesIO(r.content)).getBestCmap()
    shown = "".join(ch for case in CASES.values() for ch in case.model_dump_json() if "가" <= ch <= "힣")
    assert not {ch for ch in shown if ord(ch) not in cmap}  # every syllable of the cases, rare ones included
    assert len([k for k in cmap if 0xAC00 <= k <= 0xD7A3]) >= 2350  # and the common syllables a student types


def test_a_retention_period_purges_older_encounters_when_the_app_starts(tmp_path, vsp):
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "KEEP-1", research=True)
        _ask(c, _start(c), "an old question")
    assert len(_stored(tmp_path)) == 1
    with TestClient(_app(tmp_path, vsp, retention_days=30)):
        assert len(_stored(tmp_path)) == 1  # younger than 30 days: kept
    with TestClient(_app(tmp_path, vsp, retention_days=1e-9)):
        assert _stored(tmp_path) == []  # older than the period: gone before the first page

    async def audit():
        async with await PlatformStore.open(f"sqlite+aiosqlite:///{tmp_path / 'p.db'}") as store:
            return await store.audit()
    assert [a["action"] for a in asyncio.run(audit())][-1] == "purge"


def test_machine_feedback_after_the_end_scores_the_dialogue_and_says_what_it_is(tmp_path, vsp):
    import json as _json

    with FakeOpenAIServer(responder=lambda req: _json.dumps({"reason": "asked about onset <b>", "score": 4})) as judge:
        app = _app(tmp_path, vsp, judge=EndpointConfig(base_url=judge.url, model="judge", max_retries=0))
        with TestClient(app) as c:
            _student(c, "FEEDBACK-1", research=False)
            eid = _start(c)
            page = _ask(c, eid, "When did it start?")
            assert c.get(f"/encounters/{eid}/feedback").status_code == 409  # not before the end
            done = c.post(f"/encounters/{eid}/end", data={"csrf": _csrf(page), "differential": "stone"})
            assert f"/encounters/{eid}/feedback" in done.text
            fb = c.get(f"/encounters/{eid}/feedback")
            assert fb.status_code == 200 and "Machine feedback" in fb.text and "not an examiner" in fb.text
            assert fb.text.count("<td>4</td>") == 6 and "asked about onset &lt;b&gt;" in fb.text  # six encounter metrics
            calls = judge.calls
            c.get(f"/encounters/{eid}/feedback")
            assert judge.calls == calls == 6  # asked once per session
            c.cookies.clear()
            assert c.get(f"/encounters/{eid}/feedback").status_code == 404  # another session
            # a Korean case: its feedback page speaks Korean only
            _student(c, "FEEDBACK-2", research=False)
            eid = _start(c, "fever_in_pregnancy", "ko")
            page = _ask(c, eid, "언제부터 열이 났어요?")
            c.post(f"/encounters/{eid}/end", data={"csrf": _csrf(page), "differential": "신우신염"})
            fb = c.get(f"/encounters/{eid}/feedback").text
            assert "자동 피드백" in fb and "평가자의 점수가 아닙니다" in fb and 'lang="ko"' in fb
            assert "<th>항목</th>" in fb and "일관성 (1-5)" in fb and "지어낸 내용 없음 (1-5)" in fb
            assert "Machine feedback" not in fb and "metric" not in fb.lower().split("<body>")[1]
        assert "When did it start" in judge.requests[0]["messages"][-1]["content"]
    assert _stored(tmp_path) == []  # practice only: the feedback kept nothing either


def test_idle_sessions_are_dropped_once_many_exist(tmp_path, vsp, monkeypatch):
    import synthdocqa.judges.osce.platform.app as app_mod

    monkeypatch.setattr(app_mod, "SESSION_PRUNE_AT", 5)
    app = _app(tmp_path, vsp)
    with TestClient(app) as c:
        _student(c, "IDLE-1", research=False)
        sessions = app.state.platform.sessions
        mine = next(iter(sessions.values()))
        for _ in range(10):  # cookie-less visitors: one session each
            c.cookies.clear()
            c.get("/")
        assert len(sessions) == 11  # none idle yet: nothing dropped
        for v in sessions.values():
            v.last_seen -= app_mod.SESSION_IDLE_S + 1
        c.cookies.clear()
        c.get("/")
        assert len(sessions) == 1 and mine.sid not in sessions


def test_after_a_restart_a_student_is_sent_to_sign_in_and_finds_the_open_encounter(tmp_path, vsp):
    """Sessions live in the server's memory: after a restart (a new app on the same database) the page a
    student still has open posts a token the server never gave; it gets the sign-in page saying so (403, not
    a bare error), the encounter's address shows the same (404), and signed in again the case list links the
    open encounter with its stored turns. A live session's wrong token stays a bare 403 (a forgery)."""
    with TestClient(_app(tmp_path, vsp)) as c:
        _student(c, "RESTART-1", research=True)
        eid = _start(c)
        _ask(c, eid, "When did it start?")
        old_token = _csrf(c.get(f"/encounters/{eid}").text)
        assert "Your open encounters" in c.get("/cases").text
        cookie = dict(c.cookies)
    with TestClient(_app(tmp_path, vsp), cookies=cookie) as c:  # the restarted server, the same browser
        r = c.post(f"/encounters/{eid}/turns", data={"csrf": old_token, "question": "lost?"})
        assert r.status_code == 403 and "You are not signed in" in r.text and 'action="/signin"' in r.text
        r = c.get(f"/encounters/{eid}")
        assert r.status_code == 404 and "You are not signed in" in r.text and "When did it start?" not in r.text
        _student(c, "RESTART-1", research=True)
        cases = c.get("/cases").text
        assert "Your open encounters" in cases and f'href="/encounters/{eid}"' in cases and "questions: 1" in cases
        assert "When did it start?" in c.get(f"/encounters/{eid}").text
        token = _csrf(cases)
        assert c.post(f"/encounters/{eid}/turns", data={"csrf": "forged", "question": "x"}).text == \
            "CSRF token missing or wrong"
        assert c.post(f"/encounters/{eid}/turns", data={"csrf": token, "question": "Any pain?"}).status_code == 200
    (e,) = _stored(tmp_path)
    assert [t.question for t in e.turns] == ["When did it start?", "Any pain?"]  # "lost?" was never stored
