"""Prefect settings for this project's processes: one API per run, shared with worker processes.

With no ``PREFECT_API_URL`` the run starts one temporary local API server (``TemporaryServer``): the
same uvicorn command Prefect's own ephemeral server runs, launched without importing Prefect's server
package in the run's process (3-4 s on a small machine), so a command can start it first and do its own
imports and warm-up while it comes up. That server is the run's own: it runs in its own process group (a
Ctrl-C at the terminal does not stop it under the run's feet), it dies with the run
(``PR_SET_PDEATHSIG``, so a ``kill -9`` of the run leaves no server behind), it is stopped after the
workers, and no log lines are sent to it (nobody reads a temporary server's logs, and a log batch sent
while it stops is only noise: "Error logging to API").
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from synthdocqa.flows.errors import OneLineError

_GUARD = ("import ctypes, os, signal, sys\n"
          "if sys.platform.startswith('linux'):\n"
          "    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)\n"
          "if os.getppid() != int(sys.argv[1]):\n"
          "    os._exit(1)\n"
          "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n")
"""Run as ``python -c _GUARD <parent pid> <python args...>``: ask for SIGKILL when the parent dies, then
exec the real command (the request survives ``exec``)."""

STARTUP_FAILED = 3
"""uvicorn's exit status when the app did not start: its port was taken between our check and its bind
(tried again on another port, a few times), or anything else (a database it cannot open: reported)."""
PORT_TRIES = 5


class ServerStartError(OneLineError):
    """The temporary API server exited or did not answer in time (one line, naming the server's reason)."""


_ERROR_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception)\b.*")


def _reason(log: bytes) -> str:
    """The last exception line of the server's output, else its last line."""
    lines = [ln.strip() for ln in log.decode("utf-8", "replace").splitlines() if ln.strip()]
    errors = [ln for ln in lines if _ERROR_LINE.match(ln)]
    return (errors or lines or ["no output"])[-1]


def _free_port() -> int:
    with closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _prefect_package_dir() -> Path:
    """Where the ``prefect`` package lies, without importing it (uvicorn's ``--app-dir``)."""
    import importlib.util

    spec = importlib.util.find_spec("prefect")
    if spec is None or not spec.submodule_search_locations:
        raise ServerStartError("the prefect package is not installed")
    return Path(next(iter(spec.submodule_search_locations))).parent


def _settings_env() -> dict[str, str]:
    """Prefect settings changed in this process (``temporary_settings``), when Prefect is loaded already."""
    if "prefect.settings" not in sys.modules:
        return {}
    from prefect.settings import get_current_settings

    return get_current_settings().to_environment_variables(exclude_unset=True)


class TemporaryServer:
    """A Prefect API server for one run: ``start()`` returns at once, ``wait()`` until it answers."""

    def __init__(self) -> None:
        self.port: int | None = None
        self.process: subprocess.Popen | None = None
        self._ready = False
        self._log = None  # the server's output: read for the reason when it does not start
        self._tries = 0

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def start(self) -> TemporaryServer:
        if self.process is None:
            self.port = _free_port()
            env = {**os.environ, **_settings_env(), "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
                   "PREFECT__SERVER_FINAL": "1"}
            env.pop("PREFECT_API_URL", None)
            self._tries += 1
            if self._log is not None:
                self._log.close()
            self._log = tempfile.TemporaryFile(prefix="synthdocqa-prefect-server-")
            args = [sys.executable, "-c", _GUARD, str(os.getpid()), "-m", "uvicorn",
                    "--app-dir", str(_prefect_package_dir()), "--factory", "prefect.server.api.server:create_app",
                    "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "error", "--lifespan", "on"]
            self.process = subprocess.Popen(args, env=env, start_new_session=True, stdout=self._log,
                                            stderr=subprocess.STDOUT)
        return self

    def wait(self, timeout: float | None = None) -> str:
        """Block until ``/api/health`` answers 200; returns the API URL."""
        if self._ready:
            return self.api_url
        if self.process is None:
            self.start()
        if timeout is None:
            timeout = float(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180"))
        deadline = time.monotonic() + timeout
        while True:
            code = self.process.poll()
            if code is not None:
                reason = self._output_reason()
                if code == STARTUP_FAILED and "address already in use" in reason and self._tries < PORT_TRIES:
                    self.process = None  # lost the port to another process: again on a new one
                    self.start()
                    continue
                self.stop()
                raise ServerStartError(f"the temporary Prefect API server did not start (exit status {code}): "
                                       f"{reason}")
            try:
                with urllib.request.urlopen(f"{self.api_url}/health", timeout=2) as resp:
                    if resp.status == 200:
                        self._ready = True
                        return self.api_url
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                reason = self._output_reason()
                self.stop()
                raise ServerStartError(f"the temporary Prefect API server did not answer within {timeout:.0f} s; "
                                       f"its last words: {reason}")
            time.sleep(0.05)

    def _output_reason(self) -> str:
        if self._log is None:
            return "no output"
        self._log.flush()
        self._log.seek(0)
        return _reason(self._log.read())

    def stop(self) -> None:
        proc, self.process, self._ready = self.process, None, False
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        if self._log is not None:
            self._log.close()
            self._log = None


@contextmanager
def environ(**values: str) -> Iterator[None]:
    """Set environment variables for a block (child processes inherit them), then put back what was there."""
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@contextmanager
def _global_settings() -> Iterator[None]:
    """Make the current settings the process-wide ones too, for Prefect's own threads (a process pool's
    event forwarder reads the process-wide settings: without the API URL there it would start a second
    temporary server). Prefect's test harness does the same; a Prefect without it only loses time."""
    import prefect.context as pc

    swap = getattr(pc, "_temporary_global_settings_context", None)
    if swap is None:
        yield
        return
    with swap(pc.SettingsContext.get()):
        yield


@contextmanager
def prefect_api(server: TemporaryServer | None = None) -> Iterator[str | None]:
    """Use the configured Prefect API; with none, a temporary local server for this run (``server`` when
    the caller started one already, so it came up while the caller did other work).

    Prefect's ephemeral mode would start a separate temporary server inside every worker process of a
    process or Dask task runner; exporting one server's URL lets the workers share it instead.
    """
    from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    if PREFECT_API_URL.value():
        if server is not None:
            server.stop()
        yield PREFECT_API_URL.value()
        return
    server = server or TemporaryServer()
    try:
        url = server.start().wait()
        with environ(PREFECT_API_URL=url, PREFECT_LOGGING_TO_API_ENABLED="false"), \
                temporary_settings(updates={PREFECT_API_URL: url, PREFECT_LOGGING_TO_API_ENABLED: False}), \
                _global_settings():
            yield url
    finally:
        _flush_events()
        server.stop()


def _flush_events(timeout: float = 5.0) -> None:
    """Send the events Prefect still queues (the last task states, those the killed workers of a stopped run
    forwarded) while the run's server is up. Left for the interpreter's exit they would go to a stopped
    server, whose client reconnects for a minute or more before the process can end."""
    if "prefect.events.worker" not in sys.modules:
        return
    import logging

    from prefect.events.worker import EventsWorker

    # the service warns "Still processing items" whenever it is stopped with a queue, which is what a flush is
    service_log = logging.getLogger(EventsWorker.__name__)
    level = service_log.level
    service_log.setLevel(logging.ERROR)
    try:
        EventsWorker.drain_all(timeout=timeout, at_exit=False)
    except Exception:  # noqa: BLE001, S110 - best effort: the run's outcome is decided already
        pass
    finally:
        service_log.setLevel(level)
