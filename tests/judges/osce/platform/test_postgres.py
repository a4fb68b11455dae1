"""The practice platform on PostgreSQL (a real throwaway server from Debian's package; .ci/run installs it):
the migration, a five-turn encounter committed turn by turn, no storage without research consent, another
session's encounter 404, withdrawal and the export."""

from __future__ import annotations

import asyncio

import pytest
from starlette.testclient import TestClient

from synthdocqa.judges.llm import EndpointConfig
from synthdocqa.judges.osce.case_bank import load_case_bank
from synthdocqa.judges.osce.platform.app import PlatformConfig, create_app
from synthdocqa.judges.osce.platform.export import export_consented
from synthdocqa.judges.osce.platform.store import PlatformStore
from synthdocqa.judges.osce.vsp import Responder
from tests.judges.fake_openai_server import FakeOpenAIServer
from tests.judges.osce.platform.test_app import _ask, _csrf, _start, _student
from tests.postgres import postgres_server

pytestmark = [pytest.mark.slow, pytest.mark.needs("postgres")]


def _read(url: str):
    async def go():
        async with await PlatformStore.open(url) as store:
            return await store.encounters(consented_only=False)
    return asyncio.run(go())


def test_the_platform_on_postgresql(tmp_path):
    with postgres_server() as url, FakeOpenAIServer(responder=lambda r: f"Answer {len(r['messages']) // 2}.") as v:
        cfg = PlatformConfig(cases=load_case_bank(), db_url=url,
                             vsp=Responder(name="vsp", endpoint=EndpointConfig(base_url=v.url, model="fake")))
        # one client (one event loop, as under uvicorn: asyncpg's connections belong to the loop that made them);
        # a second student is the same client with its cookies cleared
        with TestClient(create_app(cfg)) as c:
            _student(c, "PG-RESEARCH", research=True)
            eid = _start(c, "hematuria", "ko")
            for k in range(1, 6):
                _ask(c, eid, f"질문 {k}")
                assert [t.question for t in _read(url)[0].turns] == [f"질문 {i}" for i in range(1, k + 1)]
            c.post(f"/encounters/{eid}/end", data={"csrf": _csrf(c.get(f"/encounters/{eid}").text),
                                                   "differential": "방광암"})
            c.cookies.clear()
            _student(c, "PG-PRACTICE", research=False)
            other = _start(c)
            _ask(c, other, "not kept")
            assert c.get(f"/encounters/{eid}").status_code == 404
        (e,) = _read(url)
        assert e.ended_at is not None and e.ended_at.tzinfo is not None and len(e.turns) == 5

        async def export_then_withdraw():
            async with await PlatformStore.open(url) as store:
                n = await export_consented(store, tmp_path / "export")
                sid = await store.student_id("PG-RESEARCH")
                return n, await store.withdraw(sid), await store.encounters(consented_only=False)

        n, withdrawn, left = asyncio.run(export_then_withdraw())
        assert n == {"encounters": 1, "students": 1, "turns": 5} and withdrawn == 1 and left == []
        assert "질문 5" in (tmp_path / "export" / "dialogues.csv").read_text(encoding="utf-8")
