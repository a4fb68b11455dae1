"""Load on the practice platform: N simultaneous students on loopback against ``synthdocqa osce platform serve``
(its own process, SQLite), the VSP a fake OpenAI endpoint that takes ``--vsp-latency`` seconds per answer.

    .venv/bin/python benchmarks/platform_load.py [--students 20] [--turns 5] [--vsp-latency 1.0] [--out FILE.json]

Each student signs in, consents to research, starts an encounter, asks ``--turns`` questions and ends it. Every
page request is timed (a turn's POST includes the VSP's answer, so its floor is the VSP latency); afterwards the
database is read back and every turn must be there. Prints median, p95 and worst per kind of page.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from synthdocqa.judges.llm.local_server import free_port  # noqa: E402
from synthdocqa.judges.osce.platform.store import PlatformStore  # noqa: E402
from tests.judges.fake_openai_server import FakeOpenAIServer, FakeReply  # noqa: E402

BIN = Path(sys.executable).parent


def _csrf(html: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', html).group(1)


def student(base: str, k: int, turns: int, times: dict[str, list[float]], lock: threading.Lock,
            errors: list[str], start: threading.Barrier) -> None:
    def timed(kind: str, fn, *a, **kw) -> httpx.Response:
        t0 = time.perf_counter()
        r = fn(*a, **kw)
        with lock:
            times.setdefault(kind, []).append(time.perf_counter() - t0)
        if r.status_code != 200:
            errors.append(f"student {k} {kind}: HTTP {r.status_code}")
        return r

    with httpx.Client(base_url=base, follow_redirects=True, timeout=120) as c:
        start.wait()
        token = _csrf(timed("sign-in page", c.get, "/").text)
        timed("sign in", c.post, "/signin", data={"csrf": token, "code": f"LOAD-{k:03d}"})
        timed("consent", c.post, "/consent", data={"csrf": token, "privacy": "yes", "research": "yes"})
        r = timed("start", c.post, "/encounters", data={"csrf": token, "case": "hematuria", "language": "en"})
        eid = r.url.path.rsplit("/", 1)[1]
        for t in range(turns):
            timed("turn (with the VSP)", c.post, f"/encounters/{eid}/turns",
                  data={"csrf": token, "question": f"student {k} question {t}"})
        timed("end", c.post, f"/encounters/{eid}/end", data={"csrf": token, "differential": "x"})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=20)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--vsp-latency", type=float, default=1.0)
    ap.add_argument("--out")
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="platform-load-"))
    db = f"sqlite+aiosqlite:///{tmp / 'load.db'}"
    port = free_port()
    with FakeOpenAIServer(responder=lambda req: FakeReply.slow(a.vsp_latency, "It started three days ago.")) as vsp:
        (tmp / "vsp.yaml").write_text(f"responders:\n  - {{name: vsp, endpoint: {{base_url: '{vsp.url}', model: fake, "
                                      f"max_retries: 0, max_concurrency: 64, timeout_s: 60}}}}\n")
        proc = subprocess.Popen([str(BIN / "synthdocqa"), "osce", "platform", "serve", "--vsp", str(tmp / "vsp.yaml"),
                                 "--db", db, "--port", str(port), "--turns-per-minute", "1000"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            base = f"http://127.0.0.1:{port}"
            for _ in range(300):
                try:
                    httpx.get(base + "/", timeout=2)
                    break
                except httpx.TransportError:
                    time.sleep(0.2)
            times: dict[str, list[float]] = {}
            errors: list[str] = []
            lock = threading.Lock()
            barrier = threading.Barrier(a.students)
            t0 = time.perf_counter()
            threads = [threading.Thread(target=student, args=(base, k, a.turns, times, lock, errors, barrier))
                       for k in range(a.students)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            wall = time.perf_counter() - t0
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)

    async def stored() -> list:
        store = await PlatformStore.open(db)
        try:
            return await store.encounters(consented_only=False)
        finally:
            await store.close()

    rows = asyncio.run(stored())
    n_turns = sum(len(e.turns) for e in rows)

    def q(xs: list[float], p: float) -> float:
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]

    result = {"students": a.students, "turns_each": a.turns, "vsp_latency_s": a.vsp_latency, "wall_s": round(wall, 2),
              "errors": errors, "stored_encounters": len(rows), "stored_turns": n_turns,
              "expected_turns": a.students * a.turns,
              "pages": {k: {"n": len(v), "median_s": round(statistics.median(v), 3), "p95_s": round(q(v, 0.95), 3),
                            "max_s": round(max(v), 3)} for k, v in times.items()}}
    print(json.dumps(result, indent=1))
    if a.out:
        Path(a.out).write_text(json.dumps(result, indent=1) + "\n")
    return 0 if not errors and n_turns == a.students * a.turns else 1


if __name__ == "__main__":
    raise SystemExit(main())
