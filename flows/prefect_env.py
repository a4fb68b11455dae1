"""Prefect settings for this project's processes: one API per run, shared with worker processes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def prefect_api() -> Iterator[str | None]:
    """Use the configured Prefect API; with none, start one temporary local server for this run.

    Prefect's ephemeral mode would start a separate temporary server inside every worker process of a
    process or Dask task runner; exporting one server's URL lets the workers share it instead.
    """
    from prefect.settings import PREFECT_API_URL

    if PREFECT_API_URL.value():
        yield PREFECT_API_URL.value()
        return
    from prefect.server.api.server import SubprocessASGIServer
    from prefect.settings import temporary_settings

    server = SubprocessASGIServer()
    server.start(timeout=int(os.environ.get("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "180")))
    old = os.environ.get("PREFECT_API_URL")
    os.environ["PREFECT_API_URL"] = server.api_url
    try:
        with temporary_settings(updates={PREFECT_API_URL: server.api_url}):
            yield server.api_url
    finally:
        from prefect.logging.handlers import APILogHandler

        try:
            APILogHandler.flush()  # deliver the run's last log lines before the server goes away
        except Exception:  # noqa: BLE001 - logging must never fail the run
            pass
        if old is None:
            os.environ.pop("PREFECT_API_URL", None)
        else:
            os.environ["PREFECT_API_URL"] = old
        from prefect.settings import PREFECT_LOGGING_TO_API_ENABLED

        with temporary_settings(updates={PREFECT_LOGGING_TO_API_ENABLED: False}):
            server.stop()  # its own "stopping" line must not be sent to the server it stops
