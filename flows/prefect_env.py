"""Prefect settings for this project's processes: one API per run, shared with worker processes.

With no ``PREFECT_API_URL`` the run starts one temporary local API server. That server is the run's
own: it runs in its own process group (a Ctrl-C at the terminal does not stop it under the run's feet),
it dies with the run (``PR_SET_PDEATHSIG``, so a ``kill -9`` of the run leaves no server behind), it is
stopped after the workers, and no log lines are sent to it (nobody reads a temporary server's logs, and
a log batch sent while it stops is only noise: "Error logging to API").
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_GUARD = ("import ctypes, os, signal, sys\n"
          "if sys.platform.startswith('linux'):\n"
          "    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)\n"
          "if os.getppid() != int(sys.argv[1]):\n"
          "    os._exit(1)\n"
          "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])\n")
"""Run as ``python -c _GUARD <parent pid> <python args...>``: ask for SIGKILL when the parent dies, then
exec the real command (the request survives ``exec``)."""


class _PopenInOwnGroup:
    """Stands in for the ``subprocess`` module inside Prefect's server module while it starts uvicorn."""

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)

    @staticmethod
    def Popen(args: list[str], **kwargs: Any) -> subprocess.Popen:  # noqa: N802 - subprocess.Popen's name
        if args and args[0] == sys.executable:
            args = [sys.executable, "-c", _GUARD, str(os.getpid()), *args[1:]]
        return subprocess.Popen(args, start_new_session=True, **kwargs)


def _server_class():
    import prefect.server.api.server as server_module
    from prefect.server.api.server import SubprocessASGIServer

    class RunScopedServer(SubprocessASGIServer):
        """Prefect's temporary API server, in its own process group and dying with this process."""

        def _run_uvicorn_command(self) -> subprocess.Popen[Any]:
            saved = server_module.subprocess
            server_module.subprocess = _PopenInOwnGroup()  # type: ignore[assignment]
            try:
                return super()._run_uvicorn_command()
            finally:
                server_module.subprocess = saved

    return RunScopedServer


@contextmanager
def prefect_api() -> Iterator[str | None]:
    """Use the configured Prefect API; with none, start one temporary local server for this run.

    Prefect's ephemeral mode would start a separate temporary server inside every worker process of a
    process or Dask task runner; exporting one server's URL lets the workers share it instead.
    """
    from prefect.settings import PREFECT_API_URL, PREFECT_LOGGING_TO_API_ENABLED, temporary_settings

    if PREFECT_API_URL.value():
        yield PREFECT_API_URL.value()
        return
    server = _server_class()()
    saved = {k: os.environ.get(k) for k in ("PREFECT_API_URL", "PREFECT_LOGGING_TO_API_ENABLED")}
    try:
        server.start(timeout=int(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")))
        os.environ["PREFECT_API_URL"] = server.api_url
        os.environ["PREFECT_LOGGING_TO_API_ENABLED"] = "false"  # workers inherit the environment
        with temporary_settings(updates={PREFECT_API_URL: server.api_url, PREFECT_LOGGING_TO_API_ENABLED: False}):
            yield server.api_url
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        with temporary_settings(updates={PREFECT_LOGGING_TO_API_ENABLED: False}):
            server.stop()
