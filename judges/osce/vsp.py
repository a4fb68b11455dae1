"""Virtual standardized patients (VSPs): a backbone model cast as the patient of a case by one persona prompt,
asked the case's scripted questions turn by turn; or the human expert's answers read from a file.

The study compares several backbones with a human expert playing the same script, so every responder answers
the same questions of the same cases in the same order. A responder is a name plus either an OpenAI-compatible
endpoint (``judges.llm.EndpointConfig``: the shared client with its cache keyed by request, retries,
concurrency and structured failures) or a file of answers (``kind == "human"``).

The persona prompt is a versioned template (``prompts/vsp_persona_<lang>_v<N>.md``) filled from the case: the
persona, the chief complaint, what the patient volunteers, what it says only when asked, and the red lines. Its
SHA-256 is in every turn record. A dialogue is multi-turn: question *k* is asked with the system prompt and the
earlier questions and answers as context (a turn that failed is left out of the later context and stated in its
record). Temperature and seed come from the endpoint configuration (0 and 0 by default), and the replies are
cached in the run folder, so a rerun makes no request and a run stopped halfway resumes where it was.

``script_check`` is a screening aid, not a judge: it flags an answer that uses a red-line term (the diagnosis,
results the patient cannot know, jargon) or that contradicts a scripted fact the question probes and whose value
is a number or a yes/no. A flag says "read this answer", never "this answer is wrong".

Outputs (``run_vsp``; each file written atomically when the run ends):

- ``turns.jsonl``: one record per (responder, case, question): the answer or the stated failure, the prompt's
  name and hash, model, latency, tokens, whether it came from the cache, the script-check flags;
- ``dialogues.csv``: the answered turns as the dialogues table (``schema.DIALOGUE_COLUMNS``) that ``osce rubric``
  and ``osce packets`` read;
- ``prompts/<case>.<lang>.txt``: the persona system prompt each case was given;
- ``case_scripts/<case>.md``: the script as a rater or rubric judge reads it (``osce rubric --case-script``);
- ``dialogues.html``: the dialogues side by side per case, to read (``run_view``);
- ``run.json``: the summary (responders, cases, language, counts, requests, cache hits, failures, flags).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

import httpx
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from synthdocqa.ir.files import atomic_write_bytes, atomic_write_text
from synthdocqa.ir.rng import Rng
from synthdocqa.judges.llm import ChatClient, ChatRequest, EndpointConfig, ResponseCache
from synthdocqa.judges.llm.prompts import PromptTemplate, load_prompt

from .case_bank import LANGUAGES, Case, ScriptedQuestion, read_yaml
from .loaders import OsceInputError, dialogues_frame, read_table, write_table
from .schema import Dialogue, Turn

PROMPT_DIR = Path(__file__).resolve().parent / "prompts"
PERSONA_PROMPTS: dict[str, str] = {"en": "vsp_persona_en_v1", "ko": "vsp_persona_ko_v1"}
"""The persona prompt template of each language (a new version is a new file, so old runs keep their hash)."""
RUN_FORMAT = "synthdocqa-vsp-run/1"
TURNS_FILE, DIALOGUES_FILE, RUN_FILE, CACHE_FILE = "turns.jsonl", "dialogues.csv", "run.json", "cache.sqlite"
DIALOGUES_HTML = "dialogues.html"
HUMAN_MODEL = "human"
_SEX = {"en": {"male": "man", "female": "woman"}, "ko": {"male": "남성", "female": "여성"}}


class Responder(BaseModel):
    """One VSP of the study: a model behind an endpoint cast by the persona prompt, or a human's answer file."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", description="the responder's label in the tables")
    endpoint: EndpointConfig | None = None
    answers: str | None = Field(default=None, description="file of answers (case, utterance_id, response_<lang> "
                                                          "or response): the human expert")
    prompt: str | None = Field(default=None, description="persona prompt template (name or .md path); default "
                                                         "the shipped one of the run's language")

    @model_validator(mode="after")
    def _one_source(self) -> Responder:
        if (self.endpoint is None) == (self.answers is None):
            raise ValueError("give either endpoint (a model) or answers (a file of human answers)")
        return self

    @property
    def kind(self) -> Literal["llm", "human"]:
        return "human" if self.answers is not None else "llm"


class TurnRecord(BaseModel):
    """One question of one case asked of one responder: the answer or why there is none, and how it was made."""

    model_config = ConfigDict(extra="forbid")

    responder: str
    kind: Literal["llm", "human"]
    case: str
    language: str
    encounter: str
    turn: int
    utterance_id: str
    history_category: str
    linguistic_form: str
    question: str
    response: str | None
    status: Literal["ok", "failed"]
    failure: str | None = None
    prompt_name: str
    prompt_sha256: str
    model: str
    latency_s: float = Field(description="seconds this turn took (0 for a cached reply or a human answer)")
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0
    flags: list[str] = Field(default_factory=list, description="script-check flags (a screening aid)")


class VspRun(BaseModel):
    """What a run did: its records and the counts a user checks (requests made, cache hits, failures, flags)."""

    out_dir: str
    language: str
    records: list[TurnRecord]
    requests: int = Field(description="HTTP requests made by this run (0 when every reply was cached)")
    cache_hits: int
    prompt_tokens: int
    completion_tokens: int

    @property
    def failures(self) -> list[TurnRecord]:
        return [r for r in self.records if r.status == "failed"]

    @property
    def flagged(self) -> list[TurnRecord]:
        return [r for r in self.records if r.flags]

    def summary(self) -> dict[str, object]:
        by: dict[str, dict[str, int]] = {}
        for r in self.records:
            d = by.setdefault(r.responder, {"turns": 0, "answered": 0, "failed": 0, "flagged": 0})
            d["turns"] += 1
            d["answered" if r.status == "ok" else "failed"] += 1
            d["flagged"] += bool(r.flags)
        return {"format": RUN_FORMAT, "language": self.language, "responders": by, "requests": self.requests,
                "cache_hits": self.cache_hits, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "prompts": sorted({f"{r.prompt_name} {r.prompt_sha256}" for r in self.records}),
                "failures": [f"{r.responder} {r.case} {r.utterance_id}: {r.failure}" for r in self.failures],
                "flags": [f"{r.responder} {r.case} {r.utterance_id}: {'; '.join(r.flags)}" for r in self.flagged]}


# ------------------------------------------------------------------------------------------------ inputs

def load_responders(path: str | os.PathLike[str]) -> list[Responder]:
    """The responders of a YAML file (``responders: [{name, endpoint: {...}} | {name, answers: file}]``).

    An answers path is relative to the YAML file. A problem names the file and the key (``responders.1.endpoint
    .base_url``); two responders with one name are refused."""
    p = Path(path)
    data = read_yaml(p)
    items = data.get("responders") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise OsceInputError(str(p), ["expected 'responders:' with a list of {name, endpoint} or {name, answers}"])
    out: list[Responder] = []
    problems: list[str] = []
    for i, item in enumerate(items):
        try:
            r = Responder.model_validate(item)
        except ValidationError as err:
            first = err.errors()[0]
            loc = ".".join(str(x) for x in ("responders", i, *first.get("loc", ())))
            problems.append(f"{loc}: {str(first.get('msg', 'invalid')).removeprefix('Value error, ')}")
            continue
        if r.answers is not None and not Path(r.answers).is_absolute():
            r = r.model_copy(update={"answers": str(p.parent / r.answers)})
        out.append(r)
    names = [r.name for r in out]
    problems += [f"responders: name {n!r} used twice" for n in sorted({n for n in names if names.count(n) > 1})]
    if problems:
        raise OsceInputError(str(p), problems)
    return out


def load_human_answers(path: str | os.PathLike[str], language: str) -> dict[tuple[str, str], str]:
    """(case, utterance_id) -> answer, from a table with ``response_<language>`` (or ``response``)."""
    df = read_table(path)
    cols = {str(c).strip().lower(): c for c in df.columns}
    text_col = cols.get(f"response_{language}", cols.get("response"))
    missing = [c for c in ("case", "utterance_id") if c not in cols] + ([] if text_col is not None else
                                                                       [f"response_{language} (or response)"])
    if missing:
        raise OsceInputError(str(path), [f"missing column(s) {', '.join(missing)}"])
    out: dict[tuple[str, str], str] = {}
    problems: list[str] = []
    for i, row in enumerate(df.to_dict("records")):
        key = (str(row[cols["case"]]).strip(), str(row[cols["utterance_id"]]).strip())
        if key in out:
            problems.append(f"row {i + 2}: {key[0]} {key[1]} answered twice")
        text = row[text_col]
        if isinstance(text, str) and text.strip():
            out[key] = text.strip()
    if problems:
        raise OsceInputError(str(path), problems)
    return out


# ------------------------------------------------------------------------------------------------ prompts

def persona_template(language: str, name_or_path: str | None = None) -> PromptTemplate:
    if language not in LANGUAGES:
        raise OsceInputError("language", [f"{language!r} is not one of {', '.join(LANGUAGES)}"])
    try:
        return load_prompt(name_or_path or PERSONA_PROMPTS[language], PROMPT_DIR)
    except ValueError as err:
        raise OsceInputError(str(name_or_path), [str(err)]) from None


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:] if text[:2].isupper() is False else text


def persona_values(case: Case, language: str) -> dict[str, str]:
    """The template fields of a case: the persona and the script, as the patient knows it."""
    def bullets(items: Sequence[str]) -> str:
        return "\n".join(f"- {x}" for x in items) or "- (nothing)"

    p = case.persona
    return {
        "patient_name": p.name(language), "age": str(p.age), "sex": _SEX[language][p.sex],
        "occupation": _lower_first(p.occupation(language)) if language == "en" else p.occupation(language),
        "manner": p.manner(language),
        "chief_complaint": case.chief_complaint(language),
        "volunteered": bullets([f.text(language) for f in case.facts if f.reveal == "volunteered"]),
        "on_request": bullets([f.text(language) for f in case.facts if f.reveal == "on_request"]),
        "red_lines": bullets([r.text(language) for r in case.red_lines]),
    }


def case_script(case: Case, language: str) -> str:
    """The case script as the rubric judge compares with it: every fact by category, and the red lines."""
    lines = [f"{case.title(language)} ({case.persona.name(language)}, {case.persona.age}, "
             f"{_SEX[language][case.persona.sex]}, {case.persona.occupation(language)})",
             f"Chief complaint: {case.chief_complaint(language)}"]
    for category, facts in case.facts_by_category().items():
        lines.append(f"{category.replace('_', ' ')}:")
        lines += [f"- {f.text(language)}" + (" (only when asked)" if f.reveal == "on_request" else "") for f in facts]
    lines.append("The patient never:")
    lines += [f"- {r.text(language)}" for r in case.red_lines]
    return "\n".join(lines) + "\n"


_FIELD = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")


def _fill(text: str, values: Mapping[str, str]) -> str:
    """Placeholders filled as written: the case and the scripted questions are the study's own texts, not
    untrusted input, so nothing is entity-escaped ("BP > 140" reaches the model as it stands)."""
    missing = sorted(set(_FIELD.findall(text)) - set(values))
    if missing:
        raise OsceInputError("persona prompt", [f"unknown field(s) {', '.join(missing)}"])
    return _FIELD.sub(lambda m: str(values[m.group(1)]), text)


def persona_prompt(case: Case, language: str, template: PromptTemplate | None = None) -> str:
    """The system prompt that casts a model as this case's patient."""
    t = template or persona_template(language)
    return _fill(t.system, persona_values(case, language)).strip() + "\n"


def turn_messages(template: PromptTemplate, system: str, history: Sequence[tuple[str, str]],
                  question: str) -> list[dict[str, str]]:
    """System prompt, then each earlier (question, answer), then this question: the multi-turn context."""
    def user(q: str) -> dict[str, str]:
        return {"role": "user", "content": _fill(template.user, {"question": q})}

    msgs: list[dict[str, str]] = [{"role": "system", "content": system}]
    for q, a in history:
        msgs += [user(q), {"role": "assistant", "content": a}]
    return [*msgs, user(question)]


# ------------------------------------------------------------------------------------------------ script check

_EN_NUMBERS = {w: float(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
_EN_NUMBERS.update({"thirty": 30.0, "forty": 40.0, "fifty": 50.0, "a couple of": 2.0, "half": 0.5})
_KO_NUMBERS = {"하루": 1.0, "이틀": 2.0, "사흘": 3.0, "나흘": 4.0, "닷새": 5.0, "엿새": 6.0, "이레": 7.0,
               "한 ": 1.0, "두 ": 2.0, "세 ": 3.0, "네 ": 4.0, "다섯": 5.0, "여섯": 6.0, "일곱": 7.0, "여덟": 8.0,
               "아홉": 9.0, "열 ": 10.0, "석 ": 3.0, "넉 ": 4.0, "스무": 20.0, "스물": 20.0, "서른": 30.0, "마흔": 40.0,
               "쉰": 50.0}
_DIGITS = re.compile(r"(?<![\w.\-])(\d+(?:[.,]\d+)?)")  # not the 19 of "COVID-19"
_YES = {"en": re.compile(r"^\W*(yes|yeah|yep|i do\b|i have\b|i am\b|i did\b|it does\b|it is\b|they do\b)", re.I),
        "ko": re.compile(r"^\W*(네|예|응|있어요|맞아요)")}
_NO = {"en": re.compile(r"^\W*(no\b|nope|not\b|never\b|i don't|i do not|i haven't|i have not|i'm not|i am not|"
                        r"i didn't|it doesn't|it does not|none\b|nothing\b)", re.I),
       "ko": re.compile(r"^\W*(아니요|아뇨|아니|없어요|안 )")}


def numbers_in(text: str, language: str) -> list[float]:
    """The numbers an answer states (digits, and number words of the language)."""
    found = [float(m.group(1).replace(",", ".")) for m in _DIGITS.finditer(text)]
    low = f" {text.lower()} "
    if language == "en":
        found += [v for w, v in _EN_NUMBERS.items() if re.search(rf"(?<![\w-]){re.escape(w)}(?![\w-])", low)]
    else:
        found += [v for w, v in _KO_NUMBERS.items() if w in low]
    return found


def polarity(text: str, language: str) -> Literal["yes", "no"] | None:
    """Whether an answer opens with yes or no (None when it does neither)."""
    if _NO[language].search(text):
        return "no"
    if _YES[language].search(text):
        return "yes"
    return None


def script_check(case: Case, question: ScriptedQuestion, answer: str, language: str) -> list[str]:
    """Flags for an answer: a red-line term, or a number / yes-no that differs from the probed scripted fact.

    English terms match as whole words (case-insensitive), Korean ones as substrings (Korean attaches particles).
    A screening aid: it reads words, not meaning ("I have not had a scan" names a scan)."""
    flags: list[str] = []
    low = answer.lower()
    for line in case.red_lines:
        for term in line.terms(language):
            hit = (re.search(rf"(?<!\w){re.escape(term.lower())}(?!\w)", low) if language == "en"
                   else term.lower() in low)
            if hit:
                flags.append(f"red line: {line.text(language)} (says {term!r})")
                break
    if question.expect is not None:
        said = polarity(answer, language)
        if said is not None and said != question.expect:
            flags.append(f"contradicts the script: answers {said!r}, the script says {question.expect!r}")
    if question.probes is not None:
        fact = case.fact(question.probes)
        if fact.value is not None and fact.value.type == "number":
            stated = numbers_in(answer, language)
            if stated and not any(abs(x - float(fact.value.value)) < 1e-9 for x in stated):
                says = ", ".join(f"{x:g}" for x in dict.fromkeys(stated))
                flags.append(f"contradicts the script: states {says}, the script says "
                             f"{float(fact.value.value):g} {fact.value.unit}".rstrip())
    return flags


# ------------------------------------------------------------------------------------------------ the run

Progress = Callable[[int, int, str], None]


def _encounter(case: str, responder: str) -> str:
    return f"{case}.{responder}"


def _record(r: Responder, case: Case, q: ScriptedQuestion, language: str, prompt: PromptTemplate, model: str,
            **kw: object) -> TurnRecord:
    return TurnRecord(responder=r.name, kind=r.kind, case=case.id, language=language,
                      encounter=_encounter(case.id, r.name), turn=q.turn, utterance_id=q.utterance_id,
                      history_category=q.category, linguistic_form=q.form, question=q.text(language),
                      prompt_name=prompt.name, prompt_sha256=prompt.sha256, model=model, **kw)


def _human_dialogue(r: Responder, case: Case, qs: Sequence[ScriptedQuestion], language: str,
                    answers: Mapping[tuple[str, str], str], prompt: PromptTemplate) -> list[TurnRecord]:
    out = []
    for q in qs:
        text = answers.get((case.id, q.utterance_id))
        if text is None:
            out.append(_record(r, case, q, language, prompt, HUMAN_MODEL, response=None, status="failed",
                               failure=f"no answer in {r.answers}", latency_s=0.0))
        else:
            out.append(_record(r, case, q, language, prompt, HUMAN_MODEL, response=text, status="ok",
                               latency_s=0.0, flags=script_check(case, q, text, language)))
    return out


def _model_dialogue(client: ChatClient, r: Responder, case: Case, qs: Sequence[ScriptedQuestion], language: str,
                    prompt: PromptTemplate, tick: Callable[[], None],
                    before: Mapping[tuple[str, str, str], TurnRecord]) -> list[TurnRecord]:
    system = persona_prompt(case, language, prompt)
    history: list[tuple[str, str]] = []
    out = []
    for q in qs:
        question = q.text(language)
        req = ChatRequest(key=f"{case.id}/{r.name}/{q.utterance_id}", prompt_hash=prompt.sha256,
                          messages=turn_messages(prompt, system, history, question))
        t0 = time.perf_counter()
        res = client.complete(req)
        latency = 0.0 if res.cached else time.perf_counter() - t0
        answer = (res.content or "").strip()
        attempts = res.attempts
        old = before.get((r.name, case.id, q.utterance_id))
        if res.cached and old is not None and old.response == answer and old.prompt_sha256 == prompt.sha256:
            latency, attempts = old.latency_s, old.attempts  # the measurement of the request that made the reply
        common = dict(latency_s=round(latency, 4), prompt_tokens=res.usage.prompt_tokens,
                      completion_tokens=res.usage.completion_tokens, cached=res.cached, attempts=attempts)
        if res.status == "ok" and answer:
            history.append((question, answer))
            out.append(_record(r, case, q, language, prompt, res.model or client.config.model, response=answer,
                               status="ok", flags=script_check(case, q, answer, language), **common))
        else:
            why = f"{res.invalid_reason}: {res.error}" if res.status != "ok" else "empty reply"
            out.append(_record(r, case, q, language, prompt, client.config.model, response=None, status="failed",
                               failure=why, **common))
        tick()
    return out


def run_vsp(cases: Mapping[str, Case], questions: Sequence[ScriptedQuestion], responders: Sequence[Responder],
            out_dir: str | os.PathLike[str], *, language: str = "en", cache_path: str | os.PathLike[str] | None = None,
            api_keys: Mapping[str, str] | None = None, transport: httpx.BaseTransport | None = None,
            progress: Progress | None = None) -> VspRun:
    """Ask every responder every scripted question of every case that has questions, and write the run.

    Dialogues of one model run ``endpoint.max_concurrency`` at a time (the turns of one dialogue are sequential:
    each needs the answers before it). ``api_keys`` maps a responder name to its key (the CLI resolves
    ``api_key_env``; a flow resolves Secret blocks); ``transport`` replaces HTTP (tests)."""
    if language not in LANGUAGES:
        raise OsceInputError("language", [f"{language!r} is not one of {', '.join(LANGUAGES)}"])
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OsceInputError(str(out), ["exists and is not a folder"])
    by_case: dict[str, list[ScriptedQuestion]] = {}
    for q in questions:
        by_case.setdefault(q.case, []).append(q)
    unknown = sorted(set(by_case) - set(cases))
    if unknown:
        raise OsceInputError("questions", [f"questions for unknown case(s): {', '.join(unknown)}"])
    if not by_case:
        raise OsceInputError("questions", ["no questions"])
    prompts = {r.name: persona_template(language, r.prompt) for r in responders}
    humans = {r.name: load_human_answers(r.answers, language) for r in responders if r.answers is not None}
    keys: dict[str, object] = {}
    for r in responders:  # every key before the first request: a missing one must not stop a run halfway
        if r.endpoint is not None:
            given = (api_keys or {}).get(r.name)
            try:
                keys[r.name] = given if given is not None else r.endpoint.resolve_api_key()
            except ValueError as err:
                raise OsceInputError(f"responder {r.name}", [str(err)]) from None
    before: dict[tuple[str, str, str], TurnRecord] = {}
    if (out / TURNS_FILE).is_file():
        try:
            before = {(t.responder, t.case, t.utterance_id): t for t in read_run(out)}
        except ValueError:
            before = {}  # an unreadable earlier record: measure again
    case_ids = sorted(by_case)
    total = len(responders) * sum(len(v) for v in by_case.values())
    done = 0
    lock = threading.Lock()

    def tick(label: str) -> Callable[[], None]:
        def bump() -> None:
            nonlocal done
            with lock:
                done += 1
                if progress is not None:
                    progress(done, total, label)
        return bump

    out.mkdir(parents=True, exist_ok=True)
    cache = ResponseCache(cache_path or out / CACHE_FILE)
    records: list[TurnRecord] = []
    requests = hits = p_tok = c_tok = 0
    try:
        for r in responders:
            if r.kind == "human":
                for cid in case_ids:
                    recs = _human_dialogue(r, cases[cid], by_case[cid], language, humans[r.name], prompts[r.name])
                    records += recs
                    for _ in recs:
                        tick(r.name)()
                continue
            assert r.endpoint is not None
            with ChatClient(r.endpoint, api_key=keys[r.name], cache=cache, rng=Rng(r.endpoint.seed or 0),
                            transport=transport) as client:
                def one(cid: str, client: ChatClient = client, r: Responder = r) -> list[TurnRecord]:
                    return _model_dialogue(client, r, cases[cid], by_case[cid], language, prompts[r.name],
                                           tick(r.name), before)

                with ThreadPoolExecutor(max_workers=r.endpoint.max_concurrency, thread_name_prefix="vsp") as pool:
                    for recs in pool.map(one, case_ids):
                        records += recs
                st = client.stats
                requests += st.http_calls
                hits += st.cache_hits
                p_tok += st.prompt_tokens
                c_tok += st.completion_tokens
    finally:
        cache.close()
    run = VspRun(out_dir=str(out), language=language, records=records, requests=requests, cache_hits=hits,
                 prompt_tokens=p_tok, completion_tokens=c_tok)
    _write(run, cases, responders, prompts, case_ids)
    return run


def dialogues_of(records: Sequence[TurnRecord]) -> list[Dialogue]:
    """The answered turns as dialogues (a failed turn has no answer to rate)."""
    groups: dict[tuple[str, str, str], list[TurnRecord]] = {}
    for r in records:
        if r.status == "ok" and r.response:
            groups.setdefault((r.case, r.encounter, r.responder), []).append(r)
    return [Dialogue(case=c, encounter=e, responder=p, turns=tuple(
        Turn(turn=t.turn, utterance_id=t.utterance_id, question=t.question, response=t.response or "",
             history_category=t.history_category, linguistic_form=t.linguistic_form)
        for t in sorted(ts, key=lambda t: t.turn))) for (c, e, p), ts in sorted(groups.items())]


def _write(run: VspRun, cases: Mapping[str, Case], responders: Sequence[Responder],
           prompts: Mapping[str, PromptTemplate], case_ids: Sequence[str]) -> None:
    """Every output is made in memory first (a failure writes nothing), then written; run.json last, so a folder
    whose run.json is current holds the outputs of that run."""
    from .run_view import render_run_html  # the view imports this module

    out = Path(run.out_dir)
    texts: dict[str, str] = {}
    for cid in case_ids:
        for t in {p.sha256: p for p in prompts.values()}.values():
            name = f"{cid}.{run.language}.txt" if t.name == PERSONA_PROMPTS[run.language] else \
                f"{cid}.{run.language}.{t.name}.txt"
            texts[f"prompts/{name}"] = persona_prompt(cases[cid], run.language, t)
        texts[f"case_scripts/{cid}.md"] = case_script(cases[cid], run.language)
    lines = [r.model_dump_json() for r in sorted(run.records, key=lambda r: (r.responder, r.case, r.turn))]
    texts[TURNS_FILE] = "\n".join(lines) + "\n"
    texts[DIALOGUES_HTML] = render_run_html(run.records, cases, run.language)
    frame = dialogues_frame(dialogues_of(run.records))
    (out / RUN_FILE).unlink(missing_ok=True)
    for rel, text in texts.items():
        atomic_write_bytes(out / rel, text.encode("utf-8"))
    write_table(frame, out / DIALOGUES_FILE)
    summary = {**run.summary(), "case_titles": {cid: cases[cid].title(run.language) for cid in case_ids},
               "responders_config": [
        {"name": r.name, "kind": r.kind, **({"model": r.endpoint.model, "base_url": r.endpoint.base_url,
                                             "temperature": r.endpoint.temperature, "seed": r.endpoint.seed,
                                             "max_tokens": r.endpoint.max_tokens} if r.endpoint else
                                            {"answers": r.answers})} for r in responders]}
    atomic_write_text(out / RUN_FILE, json.dumps(summary, indent=1, ensure_ascii=False) + "\n")


def read_run(out_dir: str | os.PathLike[str]) -> list[TurnRecord]:
    """The turn records of a finished run folder."""
    p = Path(out_dir) / TURNS_FILE
    if not p.is_file():
        raise OsceInputError(str(p), ["no turns.jsonl: not a finished VSP run folder"])
    return [TurnRecord.model_validate_json(line) for line in p.read_text(encoding="utf-8").splitlines() if line]


def case_titles(cases: Mapping[str, Case], language: str) -> dict[str, str]:
    return {cid: c.title(language) for cid, c in cases.items()}


def turns_frame(records: Sequence[TurnRecord]) -> pd.DataFrame:
    return pd.DataFrame([r.model_dump() for r in records])


__all__ = ["PERSONA_PROMPTS", "Responder", "TurnRecord", "VspRun", "case_script", "case_titles", "dialogues_of", "load_human_answers",
           "load_responders", "numbers_in", "persona_prompt", "persona_template", "polarity", "read_run", "run_vsp",
           "script_check", "turn_messages", "turns_frame"]
