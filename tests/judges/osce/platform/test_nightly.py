"""The nightly evaluation's OSCE job over the practice platform (``judges.osce.platform.nightly`` and the
``osce-platform`` judge of ``evaluation-batch``): real SQLite stores, the fake OpenAI server as the rubric judge.

Batches in a row score each consented, ended encounter once; an open, a non-consented and a practice-only encounter
never; a run that fails before its commit leaves the cursor, so the next run scores the same encounters; a
withdrawal between batches keeps the student out of later batches; expected failures are one line."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.llm import ChatClient, EndpointConfig
from synthdocqa.judges.osce.case_bank import load_case_bank
from synthdocqa.judges.osce.platform.nightly import (
    STATE_FILE,
    PlatformNightlyError,
    encounter_key,
    score_new_encounters,
    state_token,
)
from synthdocqa.judges.osce.platform.store import PlatformStore, PlatformStoreError
from tests.judges.fake_openai_server import FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[4]
CASES = load_case_bank()
SENTENCE, ENCOUNTER = 3, 6  # rubric metrics per answered turn and per dialogue
BAD = "JUDGE-CANNOT-SCORE"


def url(db: Path) -> str:
    return f"sqlite+aiosqlite:///{db}"


async def _student(store: PlatformStore, code: str, research: bool = True) -> str:
    sid = await store.student_id(code)
    await store.set_consent(sid, "privacy", "p1", True)
    await store.set_consent(sid, "research", "r1", research)
    return sid


async def _encounter(store: PlatformStore, sid: str, questions: list[str], *, end: bool = True,
                     case: str = "hematuria", language: str = "en") -> str:
    eid = await store.start_encounter(sid, case, language, "fake-vsp", "ab" * 32)
    for q in questions:
        await store.add_turn(eid, sid, q, f"Answer to {q}", "ok", None, 0.1)
    if end:
        await store.end_encounter(eid, sid, "stone")
    return eid


def populate(db: Path, plan: list[dict]) -> dict[str, str]:
    """Make the encounters of ``plan`` (each: code, questions, and optional end / case / language / research) in
    the store at ``db``; their stored ids by their first question."""

    async def go():
        store = await PlatformStore.open(url(db))
        try:
            ids = {}
            for e in plan:
                sid = await _student(store, e["code"])
                ids[e["questions"][0] if e["questions"] else e["code"]] = await _encounter(
                    store, sid, e["questions"], end=e.get("end", True), case=e.get("case", "hematuria"),
                    language=e.get("language", "en"))
                if e.get("research") is False:  # consent turned off afterwards (not withdrawn: the rows stay)
                    await store.set_consent(sid, "research", "r1", False)
            return ids
        finally:
            await store.close()

    return asyncio.run(go())


def withdraw(db: Path, code: str) -> int:
    async def go():
        async with await PlatformStore.open(url(db)) as store:
            return await store.withdraw(await store.student_id(code))
    return asyncio.run(go())


def end(db: Path, code: str, eid: str) -> None:
    async def go():
        async with await PlatformStore.open(url(db)) as store:
            await store.end_encounter(eid, await store.student_id(code), "cyst")
    asyncio.run(go())


def stored(db: Path) -> list:
    async def go():
        async with await PlatformStore.open(url(db)) as store:
            return await store.encounters(consented_only=False)
    return asyncio.run(go())


def judge_reply(req: dict) -> str:
    text = req["messages"][-1]["content"]
    return "not a verdict" if BAD in text else json.dumps({"reason": "fake", "score": 4})


@pytest.fixture
def judge():
    with FakeOpenAIServer(responder=judge_reply) as srv:
        yield srv


def batch(db, root: Path, name: str, srv, *, commit: bool = True, cases=CASES):
    """One batch: score into ``root/name/osce-platform`` and (when ``commit``) move the cursor."""
    cfg = EndpointConfig(base_url=srv.url, model="fake-judge", max_retries=0, repair_retries=0)
    made = score_new_encounters(db, root / name / "osce-platform", root / STATE_FILE,
                                lambda: ChatClient(cfg, rng=Rng(0)), cases)
    if commit:
        made.commit()
    return made


def folder_text(folder: Path) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted(folder.rglob("*")) if p.is_file())


def test_two_batches_score_the_first_encounters_then_exactly_the_two_new_ones(tmp_path, judge):
    db = tmp_path / "p.db"
    ids = populate(db, [
        {"code": "NA-1", "questions": ["When did the blood start?", "Any pain?"]},
        {"code": "NA-1", "questions": ["Do you smoke?"], "case": "chronic_cough"},
        {"code": "NA-2", "questions": ["소변에 피가 보이나요?", "언제부터요?"], "language": "ko"},
        {"code": "NA-3", "questions": ["Still talking?"], "end": False},  # open: not yet
        {"code": "NA-4", "questions": ["Consent later withdrawn from research?"], "research": False},
    ])
    first = batch(str(db), tmp_path, "day1", judge)
    assert first.summary["counts"] == {"found": 3, "new": 3, "scored": 3, "failed": 0, "empty": 0}
    assert judge.calls == SENTENCE * 5 + ENCOUNTER * 3
    folder = tmp_path / "day1" / "osce-platform"
    scores = pd.read_csv(folder / "scores.csv")
    assert len(scores) == judge.calls and set(scores["score"]) == {4} and set(scores["rater"]) == {"llm:fake-judge"}
    assert first.summary["mean_scores"]["overall"] == {"mean": 4.0, "n": 3}
    assert first.summary["mean_scores"]["correctness"] == {"mean": 4.0, "n": 5}
    dialogues = pd.read_csv(folder / "dialogues.csv")
    assert sorted(dialogues["question"]) == sorted(["When did the blood start?", "Any pain?", "Do you smoke?",
                                                    "소변에 피가 보이나요?", "언제부터요?"])
    # the hematuria case script in Korean for the Korean encounter, in English for the English one
    ko = [r for r in judge.requests if "소변에 피가 보이나요?" in r["messages"][-1]["content"]]
    en = [r for r in judge.requests if "When did the blood start?" in r["messages"][-1]["content"]]
    title = CASES["hematuria"].title
    assert ko and all(title("ko") in r["messages"][-1]["content"] for r in ko)
    assert en and all(title("en") in r["messages"][-1]["content"] and title("ko") not in r["messages"][-1]["content"]
                      for r in en)
    text = folder_text(folder) + (tmp_path / STATE_FILE).read_text()
    assert "Still talking?" not in text and "Consent later withdrawn" not in text
    for e in stored(db):  # no stored id, student id or sign-in code leaves the platform
        assert e.id not in text and e.student_id not in text
    assert "NA-1" not in text and "NA-2" not in text
    state = json.loads((tmp_path / STATE_FILE).read_text())
    (entry,) = state["databases"].values()
    assert sorted(entry["scored"]) == sorted(encounter_key(i) for i in list(ids.values())[:3])

    end(db, "NA-3", ids["Still talking?"])  # the open one ends, and one more encounter
    populate(db, [{"code": "NA-5", "questions": ["Any weight loss?", "Night sweats?"]}])
    calls = judge.calls
    second = batch(str(db), tmp_path, "day2", judge)
    assert second.summary["counts"] == {"found": 5, "new": 2, "scored": 2, "failed": 0, "empty": 0}
    assert judge.calls - calls == SENTENCE * 3 + ENCOUNTER * 2  # exactly the two new dialogues were asked about
    dialogues = pd.read_csv(tmp_path / "day2" / "osce-platform" / "dialogues.csv")
    assert sorted(dialogues["question"]) == ["Any weight loss?", "Night sweats?", "Still talking?"]
    assert second.summary["cursor"]["scored_before"] == 3 and second.summary["cursor"]["scored_after"] == 5

    calls = judge.calls
    third = batch(str(db), tmp_path, "day3", judge)  # nothing new: an empty batch, nothing asked
    assert third.summary["counts"]["new"] == 0 and third.summary["judge"] is None and judge.calls == calls
    assert pd.read_csv(tmp_path / "day3" / "osce-platform" / "scores.csv").empty


def test_a_run_that_fails_before_its_commit_leaves_the_cursor_and_the_next_run_scores_them(tmp_path, judge):
    db = tmp_path / "p.db"
    populate(db, [{"code": "F-1", "questions": ["Any fever?"]}, {"code": "F-2", "questions": ["Any rash?"]}])
    before = state_token(tmp_path / STATE_FILE)
    failed = batch(str(db), tmp_path, "day1", judge, commit=False)  # scored and written, then the report fails
    assert failed.summary["counts"]["scored"] == 2
    assert not (tmp_path / STATE_FILE).exists() and state_token(tmp_path / STATE_FILE) == before == "none"
    again = batch(str(db), tmp_path, "day2", judge)
    assert again.summary["counts"] == {"found": 2, "new": 2, "scored": 2, "failed": 0, "empty": 0}
    assert state_token(tmp_path / STATE_FILE) != before
    assert batch(str(db), tmp_path, "day3", judge).summary["counts"]["new"] == 0


def test_an_encounter_the_judge_cannot_score_stays_new_and_an_empty_one_is_done(tmp_path, judge):
    db = tmp_path / "p.db"
    populate(db, [{"code": "J-1", "questions": ["Any nausea?"]},
                  {"code": "J-2", "questions": [f"{BAD} here?"]},
                  {"code": "J-3", "questions": []}])  # ended without a question
    made = batch(str(db), tmp_path, "day1", judge)
    assert made.summary["counts"] == {"found": 3, "new": 3, "scored": 1, "failed": 1, "empty": 1}
    folder = tmp_path / "day1" / "osce-platform"
    assert BAD not in folder_text(folder)  # not in this folder: scored next batch
    assert len(pd.read_csv(folder / "encounters.csv")) == 2 and len(pd.read_csv(folder / "invalid.csv")) == 9
    assert made.summary["judge"]["invalid"] == SENTENCE + ENCOUNTER  # every request about it (its turn is in each)
    judge.responder = lambda req: json.dumps({"reason": "fixed", "score": 3})
    later = batch(str(db), tmp_path, "day2", judge)
    assert later.summary["counts"] == {"found": 3, "new": 1, "scored": 1, "failed": 0, "empty": 0}
    assert later.summary["mean_scores"]["overall"] == {"mean": 3.0, "n": 1}


def test_a_withdrawal_between_batches_keeps_the_student_out_of_later_batches(tmp_path, judge):
    db = tmp_path / "p.db"
    populate(db, [{"code": "W-1", "questions": ["Withdrawn student's first question?"]},
                  {"code": "W-2", "questions": ["Staying student's question?"]}])
    batch(str(db), tmp_path, "day1", judge)
    assert withdraw(db, "W-1") == 1
    populate(db, [{"code": "W-1", "questions": ["Asked after re-consenting?"]},
                  {"code": "W-2", "questions": ["Staying student's second question?"]}])
    withdraw(db, "W-1")  # and withdrawn again before the batch
    made = batch(str(db), tmp_path, "day2", judge)
    assert made.summary["counts"] == {"found": 2, "new": 1, "scored": 1, "failed": 0, "empty": 0}
    text = folder_text(tmp_path / "day2" / "osce-platform")
    assert "Staying student's second question?" in text and "Withdrawn" not in text and "re-consenting" not in text
    (entry,) = json.loads((tmp_path / STATE_FILE).read_text())["databases"].values()
    assert len(entry["scored"]) == 2  # the withdrawn encounter's key is dropped from the cursor
    assert "Withdrawn student's first question?" in folder_text(tmp_path / "day1" / "osce-platform")  # kept: docs


def test_a_practice_only_encounter_is_never_scored(tmp_path, judge):
    from starlette.testclient import TestClient

    from synthdocqa.judges.osce.platform.app import PlatformConfig, create_app
    from synthdocqa.judges.osce.vsp import Responder
    from tests.judges.osce.platform.test_app import _ask, _csrf, _start, _student

    with FakeOpenAIServer(responder=lambda req: "It started last week.") as vsp:
        cfg = PlatformConfig(cases=CASES, db_url=url(tmp_path / "p.db"), vsp=Responder(
            name="vsp", endpoint=EndpointConfig(base_url=vsp.url, model="fake", max_retries=0)))
        app = create_app(cfg)
        with TestClient(app) as practice, TestClient(app) as research:
            for client, code, kept in ((practice, "PRACTICE-9", False), (research, "RESEARCH-9", True)):
                _student(client, code, research=kept)
                eid = _start(client)
                page = _ask(client, eid, f"{code}: when did it start?")
                client.post(f"/encounters/{eid}/end", data={"csrf": _csrf(page), "differential": "stone"})
    made = batch(str(tmp_path / "p.db"), tmp_path, "day1", judge)
    assert made.summary["counts"] == {"found": 1, "new": 1, "scored": 1, "failed": 0, "empty": 0}
    text = folder_text(tmp_path / "day1" / "osce-platform")
    assert "RESEARCH-9: when did it start?" in text and "PRACTICE-9" not in text
    assert not any("PRACTICE-9" in json.dumps(r) for r in judge.requests)


def test_expected_failures_are_one_line_and_write_nothing(tmp_path, judge):
    missing = tmp_path / "nowhere.db"
    with pytest.raises(PlatformStoreError, match=r"^no platform database at .*nowhere\.db \(platform_db\)$"):
        batch(str(missing), tmp_path, "day1", judge)
    assert not missing.exists()  # never created
    with pytest.raises(PlatformStoreError, match="the folder of the SQLite database does not exist"):
        batch(url(tmp_path / "no" / "p.db"), tmp_path, "day1", judge)
    with pytest.raises(PlatformStoreError, match="^not a database URL"):
        batch("not a url://x", tmp_path, "day1", judge)
    with pytest.raises(PlatformStoreError, match=r"^cannot open the platform database postgresql\+asyncpg://u:\*\*\*@"
                                                 r"127\.0\.0\.1:1/db: ") as err:  # nothing listens on port 1
        batch("postgresql://u:s3cret-pw@127.0.0.1:1/db", tmp_path, "day1", judge)
    assert "s3cret" not in str(err.value) and "\n" not in str(err.value)
    db = tmp_path / "p.db"
    populate(db, [{"code": "E-1", "questions": ["Any cough?"], "case": "chronic_cough"}])
    with pytest.raises(PlatformNightlyError, match="case\\(s\\) chronic_cough that the case bank does not hold"):
        batch(str(db), tmp_path, "day1", judge, cases={"hematuria": CASES["hematuria"]})
    judge.responder = lambda req: "no verdict"
    with pytest.raises(PlatformNightlyError, match=r"^the rubric judge gave no valid score for any of 9 requests "
                                                   r"\(first: .*\); nothing is written, the 1 new encounters stay new$"):
        batch(str(db), tmp_path, "day1", judge)
    assert not (tmp_path / "day1").exists() and not (tmp_path / STATE_FILE).exists()
    (tmp_path / STATE_FILE).write_text("{not json")
    with pytest.raises(PlatformNightlyError, match="not an osce-platform state file"):
        batch(str(db), tmp_path, "day1", judge)


FLOW = """
import json, sys
from pathlib import Path

import synthdocqa.flows.evaluation as ev
from synthdocqa.flows.evaluation import evaluation_batch_flow
from synthdocqa.flows.prefect_env import prefect_api
from synthdocqa.flows.workers import quiet_engine_errors
from tests.judges.fake_openai_server import FakeOpenAIServer
from tests.judges.osce.platform.test_nightly import judge_reply, populate

tmp = Path(sys.argv[1])
db, out, endpoint = tmp / "p.db", tmp / "evals", tmp / "judge.yaml"
populate(db, [{"code": "FL-1", "questions": ["First question?", "Second?"]},
              {"code": "FL-2", "questions": ["Third?"]}, {"code": "FL-3", "questions": ["Fourth?"]}])
real = ev.atomic_write_text

def report_fails(path, text, fsync=True):
    if Path(path).name == "README.md":
        raise OSError(28, "No space left on device", str(path))
    return real(path, text, fsync)

def run(**kw):
    s = evaluation_batch_flow(**{"judges": ["osce-platform"], "out": str(out), **kw}, return_state=True)
    return [s.name, s.message, s.result()["results"]["osce-platform"]["counts"] if s.name == "Completed" else None]

quiet_engine_errors()
res = {}
with prefect_api(), FakeOpenAIServer(responder=judge_reply) as srv:
    endpoint.write_text(f"base_url: {srv.url}\\nmodel: fake-judge\\nmax_retries: 0\\n")
    ok = {"platform_db": str(db), "rubric_endpoint": str(endpoint)}
    res["first"] = run(**ok)
    populate(db, [{"code": "FL-4", "questions": ["Fifth?"]}, {"code": "FL-1", "questions": ["Sixth?"]}])
    ev.atomic_write_text = report_fails
    res["planted"] = run(**ok)
    ev.atomic_write_text = real
    res["calls_before_retry"] = srv.calls
    res["second"] = run(**ok)
    res["calls_after_retry"] = srv.calls
    res["errors"] = [run(rubric_endpoint=str(endpoint)), run(platform_db=str(db)),
                     run(platform_db=str(tmp / "missing.db"), rubric_endpoint=str(endpoint)),
                     run(platform_db=str(db), rubric_endpoint=str(tmp / "missing.yaml"))]
print(json.dumps(res))
"""


@pytest.mark.slow  # a temporary Prefect server (~30 s here)
def test_the_evaluation_batch_flow_scores_new_encounters_and_fails_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({"PYTHONPATH": str(ROOT), "PREFECT_HOME": str(tmp_path / "prefect-home"), "HF_HUB_OFFLINE": "1",
                "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180"})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(FLOW), str(tmp_path)], capture_output=True, text=True,
                          cwd=ROOT, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res["first"][0] == "Completed" and res["first"][2] == {"found": 3, "new": 3, "scored": 3, "failed": 0,
                                                                  "empty": 0}
    assert res["planted"][0] == "Failed" and "README.md: No space left on device" in res["planted"][1]
    assert res["second"][2] == {"found": 5, "new": 2, "scored": 2, "failed": 0, "empty": 0}  # the same two again
    assert res["calls_after_retry"] == res["calls_before_retry"]  # from the retried batch's cache
    days = sorted((tmp_path / "evals").glob("*/demo-seed0-*"))
    assert len(days) == 2  # the first batch's folder, and the failed one's that its retry rewrote
    for day in days:
        summary = json.loads((day / "evaluation.json").read_text())
        assert summary["corpus_dir"] is None and "osce-platform" in summary["results"]
        readme = (day / "README.md").read_text()
        assert "## osce-platform" in readme and "| overall | 4.00 |" in readme
    second = next(d for d in days if json.loads((d / "evaluation.json").read_text())["results"]["osce-platform"]
                  ["counts"]["new"] == 2)
    assert sorted(pd.read_csv(second / "osce-platform" / "dialogues.csv")["question"]) == ["Fifth?", "Sixth?"]
    assert not (tmp_path / "corpora").exists() and not list(tmp_path.glob("**/corpus.json"))
    errors = res["errors"]
    assert all(e[0] == "Failed" and "RunFailed" in e[1] for e in errors)
    assert "judge 'osce-platform' needs platform_db (" in errors[0][1]
    assert "judge 'osce-platform' needs rubric_endpoint (" in errors[1][1]
    assert f"osce-platform: no platform database at {tmp_path / 'missing.db'} (platform_db)" in errors[2][1]
    assert f"rubric_endpoint {tmp_path / 'missing.yaml'}: no such file" in errors[3][1]
    assert not (tmp_path / "missing.db").exists()
