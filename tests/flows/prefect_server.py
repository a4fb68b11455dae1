"""A real Prefect server (SQLite, loopback) for tests, with an isolated PREFECT_HOME."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def prefect_env(home: Path, api_url: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update({
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS": "180",
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{home}/prefect.db",
        "PREFECT_LOGGING_LEVEL": "INFO",
        "HF_HUB_OFFLINE": "1",
    })
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


class PrefectServer:
    def __init__(self, home: Path) -> None:
        self.home = home
        self.port = free_port()
        self.api_url = f"http://127.0.0.1:{self.port}/api"
        self.env = prefect_env(home, self.api_url)
        self.log = open(home / "server.log", "w")
        self.proc = subprocess.Popen(
            [str(BIN / "prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(self.port)],
            env=prefect_env(home, None), stdout=self.log, stderr=subprocess.STDOUT, cwd=REPO)
        deadline = time.time() + 240
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"prefect server exited: {(home / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError("prefect server did not answer /api/health within 240 s")

    def run(self, *args: str, timeout: float = 600, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(list(args), env=self.env, cwd=REPO, capture_output=True, text=True, timeout=timeout,
                              **kw)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()
