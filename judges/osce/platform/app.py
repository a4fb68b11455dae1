"""The practice platform's web application (Starlette and Jinja2, both already installed with Prefect; plain
HTML forms, no JavaScript build).

A student signs in with a pseudonymous code (only its keyed hash is stored), gives or refuses two separately
versioned consents (privacy terms: required to practise; research use of the dialogues: optional), picks a
case (the case decides the language of the page and of the VSP) and takes the history turn by turn. The VSP
answers through the shared client with the case's persona prompt and the earlier turns as context
(``judges.osce.vsp``). With research consent every turn is committed to the database as it happens; without it
the encounter lives only in this process's memory for the session and is never written.

Security: a server-side session behind an HttpOnly, SameSite cookie; a CSRF token in every form, checked on every
POST; Jinja2 autoescaping on every page (user text is data, never markup); a per-session limit on VSP turns; an
encounter is found only through its owner's session (another session gets 404); the VSP endpoint's key lives in
the client's headers, never in a page or the database; the admin view needs the token from an environment
variable.
"""

from __future__ import annotations

import hmac
import os
import secrets
import time
from collections import deque
from collections.abc import Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import parse_qs

from jinja2 import Environment, FileSystemLoader, select_autoescape
from pydantic import BaseModel, ConfigDict, Field
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from synthdocqa.judges.llm import ChatClient, ChatRequest, EndpointConfig

from ..case_bank import Case
from ..fonts import HTML_FAMILY, cjk_chars, subset_font
from ..vsp import Responder, persona_prompt, persona_template, turn_messages
from .store import EncounterRow, PlatformStore, TurnRow

TEMPLATES = Path(__file__).resolve().parent / "templates"
COOKIE = "synthdocqa_osce"
CONSENT_VERSIONS = {"privacy": "privacy-v1", "research": "research-v1"}
"""The consent texts' versions: a new text is a new version, and a student is asked again."""
_CODE_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
MAX_QUESTION_CHARS = 2000
SESSION_IDLE_S = 12 * 3600
"""A session unused this long is dropped (with a practice-only encounter in it) once many sessions exist."""
SESSION_PRUNE_AT = 1000


class PlatformConfig(BaseModel):
    """What ``osce platform serve`` runs: the cases, the VSP, the database and the limits."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    cases: dict[str, Case]
    vsp: Responder
    db_url: str
    admin_token_env: str = "SYNTHDOCQA_PLATFORM_ADMIN_TOKEN"
    turns_per_minute: int = Field(default=20, ge=1, description="VSP turns one session may ask per minute")
    api_key: str | None = Field(default=None, description="the VSP endpoint's key (resolved by the caller)")
    judge: EndpointConfig | None = Field(default=None, description="the LLM rubric judge of the optional "
                                                                   "machine feedback page (none: no feedback)")
    judge_api_key: str | None = None
    retention_days: float | None = Field(default=None, gt=0, description="stored encounters older than this are "
                                                                         "deleted (at start, then hourly)")


@dataclass
class Session:
    sid: str
    last_seen: float = field(default_factory=time.monotonic)
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    student_id: str | None = None
    turn_times: deque = field(default_factory=lambda: deque(maxlen=1000))
    admin: bool = False
    csrf_sent: bool = False
    """Whether a page carried this session's CSRF token (a form with another token then is a forgery, not a
    form of a session the server lost)."""
    memory: dict[str, EncounterRow] = field(default_factory=dict)
    """Encounters of a student without research consent: never written, gone with the session."""
    feedback: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    """The machine feedback shown for an encounter (asked once per session)."""


class _State:
    def __init__(self, config: PlatformConfig, transport: object | None) -> None:
        self.config = config
        self.transport = transport
        self.sessions: dict[str, Session] = {}
        self.store: PlatformStore | None = None
        self.client = ChatClient(config.vsp.endpoint, api_key=config.api_key, transport=transport) \
            if config.vsp.endpoint is not None else None
        self.env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True))


UI: dict[str, dict[str, str]] = {
    "en": {"title": "OSCE history-taking practice", "ask": "Ask", "end": "End the encounter",
           "differential": "Your differential diagnosis", "elapsed": "elapsed", "you": "You", "patient": "Patient",
           "cases": "Cases", "start": "Start", "not_kept": "Practice only: nothing of this encounter is kept.",
           "kept": "Kept for research under your consent (you can withdraw it).", "failed": "(no answer)",
           "done": "Encounter ended", "back": "Back to the cases", "question": "Your question",
           "open": "Your open encounters", "turns": "questions", "new": "Start a new encounter",
           "metric": "Metric", "score": "Score", "reason": "The judge's reason", "not_scored": "(not scored)",
           "no_feedback": "No answered questions to give feedback on.", "feedback_link": "Machine feedback",
           "machine_note": "Machine feedback from an LLM rubric judge on the whole dialogue, not an examiner's rating; "
                           "read it as a prompt for reflection.",
           "withdrawn": "Research consent withdrawn",
           "deleted": "{n} stored encounter(s) deleted. You can go on practising; nothing more is kept.",
           "privacy_needed": "The privacy terms are needed to practise.",
           "bad_code": "The code is 4 to 32 letters, digits, - or _ (no names or e-mail addresses)."},
    "ko": {"title": "OSCE 병력 청취 연습", "ask": "질문하기", "end": "면담 종료", "differential": "감별 진단",
           "elapsed": "경과", "you": "학생", "patient": "환자", "cases": "증례", "start": "시작",
           "not_kept": "연습 전용: 이 면담의 내용은 저장되지 않습니다.",
           "kept": "연구 동의에 따라 저장됩니다 (동의는 철회할 수 있습니다).", "failed": "(응답 없음)",
           "done": "면담이 종료되었습니다", "back": "증례 목록으로", "question": "질문",
           "open": "진행 중인 면담", "turns": "질문", "new": "새 면담 시작",
           "metric": "항목", "score": "점수", "reason": "채점기의 근거", "not_scored": "(채점되지 않음)",
           "no_feedback": "피드백할 답변이 없습니다.", "feedback_link": "자동 피드백 보기",
           "machine_note": "대화 전체에 대한 LLM 루브릭 채점기의 자동 피드백이며 평가자의 점수가 아닙니다. "
                           "스스로 돌아보는 데 참고하세요.",
           "withdrawn": "연구 동의가 철회되었습니다",
           "deleted": "저장된 면담 {n}건이 삭제되었습니다. 계속 연습할 수 있으며, 이후에는 아무것도 저장되지 않습니다.",
           "privacy_needed": "연습하려면 개인정보 처리 방침에 동의해야 합니다.",
           "bad_code": "코드는 영문자, 숫자, - 또는 _ 4~32자입니다 (이름이나 이메일 주소는 안 됩니다)."},
}
UI["both"] = {k: f"{UI['en'][k]} · {UI['ko'][k]}" for k in UI["en"]}
"""The pages no case decides (sign-in, consent, the case list, withdrawal, admin) say everything in both
languages; an encounter's own pages (the encounter, its end, its feedback) speak the case's language only."""

METRIC_LABELS: dict[str, dict[str, str]] = {
    "en": {"comprehensibility": "Comprehensibility", "consistency": "Consistency",
           "hallucination_freeness": "Nothing invented", "engagement": "Engagement", "accuracy": "Accuracy",
           "overall": "Overall"},
    "ko": {"comprehensibility": "이해하기 쉬움", "consistency": "일관성", "hallucination_freeness": "지어낸 내용 없음",
           "engagement": "대화 참여", "accuracy": "의학적 정확성", "overall": "종합"},
}
"""The encounter-level rubric metrics as the feedback page names them (a metric not listed shows its own name)."""


def _euc_kr(ch: str) -> bool:
    try:
        ch.encode("euc-kr")
    except UnicodeEncodeError:
        return False
    return True


def _now() -> datetime:
    return datetime.now(UTC)


async def _form(request: Request) -> dict[str, str]:
    """An urlencoded form (the pages post nothing else), first value per field."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {k: v[0] for k, v in parse_qs(body, keep_blank_values=True).items()}


def create_app(config: PlatformConfig, *, transport: object | None = None) -> Starlette:
    """The application; ``transport`` replaces the VSP's HTTP (tests)."""
    state = _State(config, transport)

    def page(name: str, session: Session, status: int = 200, language: str = "both", **values: object
             ) -> HTMLResponse:
        """``language``: an encounter's (``en``/``ko``), or ``both`` for the pages no case decides."""
        html = state.env.get_template(name).render(csrf=session.csrf, ui=UI[language],
                                                   lang="en" if language == "both" else language,
                                                   hangul_family=HTML_FAMILY, **values)
        session.csrf_sent = True
        resp = HTMLResponse(html, status_code=status)
        resp.set_cookie(COOKIE, session.sid, httponly=True, samesite="lax")
        resp.headers["Content-Security-Policy"] = "default-src 'self'; style-src 'self' 'unsafe-inline'"
        resp.headers["X-Content-Type-Options"] = "nosniff"
        return resp

    def session_of(request: Request) -> Session:
        sid = request.cookies.get(COOKIE)
        s = state.sessions.get(sid or "")
        now = time.monotonic()
        if s is None:
            if len(state.sessions) >= SESSION_PRUNE_AT:  # every cookie-less request makes one: drop the idle
                for k in [k for k, v in state.sessions.items() if now - v.last_seen > SESSION_IDLE_S]:
                    del state.sessions[k]
            s = Session(sid=secrets.token_urlsafe(24))
            state.sessions[s.sid] = s
        s.last_seen = now
        return s

    async def checked(request: Request) -> tuple[Session, dict[str, str]] | Response:
        s = session_of(request)
        form = await _form(request)
        if not hmac.compare_digest(form.get("csrf", ""), s.csrf):
            if form.get("csrf") and s.student_id is None and not s.csrf_sent:
                # a form of a session this server does not know (it restarted, or the session expired): the
                # sign-in page says so; a form of a live session with a wrong token stays a bare 403
                return page("signin.html.j2", s, status=403, error=None, expired=True)
            return Response("CSRF token missing or wrong", status_code=403)
        return s, form

    def signed_in(s: Session) -> Response | None:
        return None if s.student_id is not None else RedirectResponse("/", status_code=303)

    def form_post(*, signed: bool = False):  # noqa: ANN202 (a decorator)
        """A POST handler called with (request, session, form) once the form's CSRF token is checked (403
        otherwise) and, with ``signed``, the student is signed in (else back to the sign-in page)."""
        def wrap(fn):  # noqa: ANN001, ANN202
            async def handler(request: Request) -> Response:
                got = await checked(request)
                if isinstance(got, Response):
                    return got
                s, form = got
                if signed and (r := signed_in(s)) is not None:
                    return r
                return await fn(request, s, form)
            return handler
        return wrap

    async def research(s: Session) -> bool:
        assert state.store is not None and s.student_id is not None
        c = (await state.store.consents(s.student_id)).get("research")
        return bool(c and c.granted and c.version == CONSENT_VERSIONS["research"])

    font: list[bytes] = []

    async def hangul_font(request: Request) -> Response:
        """NanumGothic reduced to the 2,350 Hangul syllables of KS X 1001 and the case texts' others: pages read in
        Korean on a machine without a CJK font (a browser with one uses its own first)."""
        if not font:
            texts = [c.model_dump_json() for c in config.cases.values()] + [" ".join(UI["ko"].values())]
            common = "".join(ch for ch in map(chr, range(0xAC00, 0xD7A4)) if _euc_kr(ch))
            font.append(await run_in_threadpool(subset_font, "".join(sorted(set(cjk_chars(texts)) | set(common)))))
        return Response(font[0], media_type="font/woff", headers={"Cache-Control": "public, max-age=86400"})

    async def index(request: Request) -> Response:
        s = session_of(request)
        return page("signin.html.j2", s, error=None, expired=False)

    @form_post()
    async def signin(request: Request, s: Session, form: dict[str, str]) -> Response:
        code = form.get("code", "").strip()
        if not 4 <= len(code) <= 32 or set(code) - _CODE_CHARS:
            return page("signin.html.j2", s, status=400, expired=False,
                        error=UI["both"]["bad_code"])
        assert state.store is not None
        s.student_id = await state.store.student_id(code)
        return RedirectResponse("/consent", status_code=303)

    async def consent_page(request: Request) -> Response:
        s = session_of(request)
        if (r := signed_in(s)) is not None:
            return r
        assert state.store is not None and s.student_id is not None
        return page("consent.html.j2", s, versions=CONSENT_VERSIONS, current=await state.store.consents(s.student_id))

    @form_post(signed=True)
    async def consent_post(request: Request, s: Session, form: dict[str, str]) -> Response:
        assert state.store is not None and s.student_id is not None
        if form.get("privacy") != "yes":
            return page("consent.html.j2", s, status=400, versions=CONSENT_VERSIONS,
                        current=await state.store.consents(s.student_id),
                        error=UI["both"]["privacy_needed"])
        await state.store.set_consent(s.student_id, "privacy", CONSENT_VERSIONS["privacy"], True)
        await state.store.set_consent(s.student_id, "research", CONSENT_VERSIONS["research"],
                                      form.get("research") == "yes")
        return RedirectResponse("/cases", status_code=303)

    @form_post(signed=True)
    async def withdraw(request: Request, s: Session, form: dict[str, str]) -> Response:
        assert state.store is not None and s.student_id is not None
        n = await state.store.withdraw(s.student_id)
        return page("message.html.j2", s, heading=UI["both"]["withdrawn"],
                    text=" · ".join(UI[lang]["deleted"].format(n=n) for lang in ("en", "ko")))

    async def cases(request: Request) -> Response:
        s = session_of(request)
        if (r := signed_in(s)) is not None:
            return r
        kept = await research(s)
        items = [{"id": c.id, "language": lang, "title": c.title(lang), "complaint": c.chief_complaint(lang),
                  "start": UI[lang]["start"]}
                 for c in config.cases.values() for lang in ("en", "ko")]
        assert state.store is not None and s.student_id is not None
        stored = await state.store.student_encounters(s.student_id) if kept else []
        held = [e for e in s.memory.values() if e.ended_at is None]
        open_encounters = [{"id": e.id, "language": e.language, "title": config.cases[e.case].title(e.language),
                            "turns": len(e.turns), "turns_label": UI[e.language]["turns"]}
                           for e in [*stored, *held] if e.case in config.cases]
        return page("cases.html.j2", s, cases=items, kept=kept, open_encounters=open_encounters)

    @form_post(signed=True)
    async def start(request: Request, s: Session, form: dict[str, str]) -> Response:
        case = config.cases.get(form.get("case", ""))
        lang = form.get("language", "en")
        if case is None or lang not in ("en", "ko"):
            return Response("unknown case or language", status_code=400)
        assert state.store is not None and s.student_id is not None
        model = config.vsp.endpoint.model if config.vsp.endpoint else "human"
        prompt = persona_template(lang)
        if await research(s):
            eid = await state.store.start_encounter(s.student_id, case.id, lang, model, prompt.sha256)
        else:
            eid = "m-" + secrets.token_urlsafe(16)
            s.memory[eid] = EncounterRow(id=eid, student_id=s.student_id, case=case.id, language=lang, model=model,
                                         prompt_sha256=prompt.sha256, started_at=_now(), ended_at=None,
                                         differential=None, turns=())
        return RedirectResponse(f"/encounters/{eid}", status_code=303)

    async def find(s: Session, eid: str) -> EncounterRow | None:
        if s.student_id is None:
            return None
        if eid in s.memory:
            return s.memory[eid]
        assert state.store is not None
        return await state.store.encounter(eid, s.student_id)

    async def encounter(request: Request) -> Response:
        s = session_of(request)
        if s.student_id is None:  # not signed in (a restart ends every session): no encounter, the way back
            return page("signin.html.j2", s, status=404, error=None, expired=True)
        e = await find(s, request.path_params["eid"])
        if e is None:
            return Response("no such encounter", status_code=404)
        case = config.cases[e.case]
        elapsed = int((_now() - e.started_at).total_seconds())
        return page("encounter.html.j2", s, language=e.language, e=e, case_title=case.title(e.language),
                    complaint=case.chief_complaint(e.language), kept=e.id not in s.memory,
                    elapsed=f"{elapsed // 60}:{elapsed % 60:02d}")

    def ask_vsp(e: EncounterRow, question: str) -> tuple[str | None, str, str | None, float]:
        case = config.cases[e.case]
        template = persona_template(e.language)
        history = [(t.question, t.answer) for t in e.turns if t.status == "ok" and t.answer]
        messages = turn_messages(template, persona_prompt(case, e.language, template), history, question)
        assert state.client is not None
        t0 = time.perf_counter()
        res = state.client.complete(ChatRequest(key=f"{e.id}/{len(e.turns) + 1}", prompt_hash=template.sha256,
                                                messages=messages))
        latency = time.perf_counter() - t0
        if res.status == "ok" and (res.content or "").strip():
            return res.content.strip(), "ok", None, latency
        return None, "failed", f"{res.invalid_reason}: {res.error}" if res.status != "ok" else "empty reply", latency

    @form_post()
    async def turn(request: Request, s: Session, form: dict[str, str]) -> Response:
        e = await find(s, request.path_params["eid"])
        if e is None:
            return Response("no such encounter", status_code=404)
        if e.ended_at is not None:
            return Response("the encounter has ended", status_code=409)
        question = form.get("question", "").strip()
        if not question or len(question) > MAX_QUESTION_CHARS:
            return RedirectResponse(f"/encounters/{e.id}", status_code=303)
        now = time.monotonic()
        while s.turn_times and now - s.turn_times[0] > 60:
            s.turn_times.popleft()
        if len(s.turn_times) >= config.turns_per_minute:
            return Response("too many questions in a minute; wait a moment", status_code=429,
                            headers={"Retry-After": "10"})
        s.turn_times.append(now)
        answer, status, failure, latency = await run_in_threadpool(ask_vsp, e, question)
        if e.id in s.memory:
            row = TurnRow(n=len(e.turns) + 1, question=question, answer=answer, status=status, failure=failure,
                          latency_s=latency, asked_at=_now())
            s.memory[e.id] = replace(e, turns=(*e.turns, row))
        else:
            assert state.store is not None and s.student_id is not None
            await state.store.add_turn(e.id, s.student_id, question, answer, status, failure, latency)
        return RedirectResponse(f"/encounters/{e.id}", status_code=303)

    @form_post()
    async def end(request: Request, s: Session, form: dict[str, str]) -> Response:
        e = await find(s, request.path_params["eid"])
        if e is None:
            return Response("no such encounter", status_code=404)
        differential = form.get("differential", "").strip()[:MAX_QUESTION_CHARS]
        if e.id in s.memory:  # practice only: ended in memory (for its feedback), gone with the session
            s.memory[e.id] = replace(e, ended_at=_now(), differential=differential)
        elif e.ended_at is None:
            assert state.store is not None and s.student_id is not None
            await state.store.end_encounter(e.id, s.student_id, differential)
        return page("message.html.j2", s, language=e.language, heading=UI[e.language]["done"],
                    text=differential and f"{UI[e.language]['differential']}: {differential}", back=True,
                    feedback=f"/encounters/{e.id}/feedback" if config.judge is not None else None)

    def score(e: EncounterRow) -> list[dict[str, object]]:
        """The LLM rubric judge on the whole dialogue: the encounter-level metrics, against the case script."""
        from ..rubric import score_dialogues
        from ..schema import Dialogue, Taxonomy, Turn
        from ..vsp import case_script

        turns = tuple(Turn(turn=t.n, utterance_id=f"T{t.n:02d}", question=t.question, response=t.answer or "")
                      for t in e.turns if t.status == "ok" and t.answer)
        if not turns:
            return []
        tax = Taxonomy()
        metrics = [m.name for m in tax.metrics if m.level == "encounter"]
        assert config.judge is not None
        with ChatClient(config.judge, api_key=config.judge_api_key, transport=state.transport) as judge:
            run = score_dialogues([Dialogue(case=e.case, encounter=e.id, responder="vsp", turns=turns)], judge, tax,
                                  metrics, case_scripts={e.case: case_script(config.cases[e.case], e.language)})
        by = {r["metric"]: r for r in run.ratings.to_dict("records")}
        return [{"metric": m, "scale": f"{tax.metric(m).scale_min}-{tax.metric(m).scale_max}",
                 "score": by[m]["score"] if m in by else None, "reason": by[m]["reason"] if m in by else ""}
                for m in metrics]

    async def feedback(request: Request) -> Response:
        s = session_of(request)
        e = await find(s, request.path_params["eid"])
        if e is None or config.judge is None:
            return Response("no such encounter" if e is None else "no feedback on this platform", status_code=404)
        if e.ended_at is None:
            return Response("feedback comes after the end of the encounter", status_code=409)
        if e.id not in s.feedback:
            s.feedback[e.id] = await run_in_threadpool(score, e)
        labels = METRIC_LABELS[e.language]
        rows = [{**r, "label": labels.get(str(r["metric"]), str(r["metric"]))} for r in s.feedback[e.id]]
        return page("feedback.html.j2", s, language=e.language, e=e,
                    case_title=config.cases[e.case].title(e.language), rows=rows)

    def token_ok(given: str) -> bool:
        token = os.environ.get(config.admin_token_env, "")
        return bool(token) and hmac.compare_digest(given.encode(), token.encode())

    def admin_ok(request: Request) -> bool:
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        return session_of(request).admin or (bool(given) and token_ok(given))

    @form_post()
    async def admin_login(request: Request, s: Session, form: dict[str, str]) -> Response:
        if not token_ok(form.get("token", "")):
            return page("admin_login.html.j2", s, status=401, error="wrong token")
        s.admin = True
        return RedirectResponse("/admin", status_code=303)

    async def admin(request: Request) -> Response:
        s = session_of(request)
        if not admin_ok(request):
            return page("admin_login.html.j2", s, status=401, error=None)
        assert state.store is not None
        rows = await state.store.encounters(consented_only=False)
        return page("admin.html.j2", s, counts=await state.store.counts_per_case(), encounters=rows)

    @asynccontextmanager
    async def lifespan(app: Starlette):  # noqa: ANN202 (Starlette's lifespan protocol)
        import asyncio

        state.store = await PlatformStore.open(config.db_url)
        purger = None
        if config.retention_days is not None:
            async def purge_hourly() -> None:
                while True:
                    await state.store.purge(config.retention_days)
                    await asyncio.sleep(3600)

            await state.store.purge(config.retention_days)  # before the first page: nothing older is ever shown
            purger = asyncio.create_task(purge_hourly())
        try:
            yield
        finally:
            if purger is not None:
                purger.cancel()
            await state.store.close()
            if state.client is not None:
                state.client.close()

    routes = [
        Route("/font/hangul.woff", hangul_font), Route("/", index), Route("/signin", signin, methods=["POST"]),
        Route("/consent", consent_page), Route("/consent", consent_post, methods=["POST"]),
        Route("/consent/withdraw", withdraw, methods=["POST"]),
        Route("/cases", cases), Route("/encounters", start, methods=["POST"]),
        Route("/encounters/{eid}", encounter), Route("/encounters/{eid}/turns", turn, methods=["POST"]),
        Route("/encounters/{eid}/end", end, methods=["POST"]), Route("/encounters/{eid}/feedback", feedback),
        Route("/admin", admin), Route("/admin/login", admin_login, methods=["POST"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.platform = state
    return app


def ui_text(language: str) -> Mapping[str, str]:
    return UI[language]


__all__ = ["CONSENT_VERSIONS", "PlatformConfig", "create_app", "ui_text"]
