"""The platform as it runs: ``synthdocqa osce platform serve`` in its own process (uvicorn), a student's
encounter over real HTTP, the server killed with SIGKILL mid-encounter: every turn asked before the kill is in
the database."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from synthdocqa.judges.llm.local_server import free_port
from synthdocqa.judges.osce.platform.store import PlatformStore
from tests.judges.fake_openai_server import FakeOpenAIServer

BIN = Path(sys.executable).parent


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


@pytest.mark.slow
def test_a_killed_server_loses_no_turn_that_was_answered(tmp_path):
    db = f"sqlite+aiosqlite:///{tmp_path / 'p.db'}"
    port = free_port()
    with FakeOpenAIServer(responder=lambda req: "It started three days ago.") as vsp:
        (tmp_path / "vsp.yaml").write_text(f"responders:\n  - {{name: vsp, endpoint: {{base_url: '{vsp.url}', "
                                           f"model: fake, max_retries: 0}}}}\n")
        proc = subprocess.Popen([str(BIN / "synthdocqa"), "osce", "platform", "serve", "--vsp",
                                 str(tmp_path / "vsp.yaml"), "--db", db, "--port", str(port)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.time() + 60
            while True:
                try:
                    httpx.get(base + "/", timeout=2)
                    break
                except httpx.TransportError:
                    assert proc.poll() is None and time.time() < deadline, proc.communicate()[1][-2000:]
                    time.sleep(0.2)
            with httpx.Client(base_url=base, follow_redirects=True, timeout=30) as c:
                token = _csrf(c.get("/").text)
                c.post("/signin", data={"csrf": token, "code": "KILL-1"})
                c.post("/consent", data={"csrf": token, "privacy": "yes", "research": "yes"})
                r = c.post("/encounters", data={"csrf": token, "case": "hematuria", "language": "en"})
                eid = r.url.path.rsplit("/", 1)[1]
                for k in range(3):
                    assert c.post(f"/encounters/{eid}/turns", data={"csrf": token, "question": f"q{k}"}).status_code == 200
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)

    async def read():
        store = await PlatformStore.open(db)
        try:
            return await store.encounter(eid, None)
        finally:
            await store.close()

    e = asyncio.run(read())
    assert e is not None and [t.question for t in e.turns] == ["q0", "q1", "q2"] and e.ended_at is None
    assert all(t.answer == "It started three days ago." for t in e.turns)
