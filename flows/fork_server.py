"""The fork server that process-pool workers of ``generate-corpus`` are forked from (no Prefect import
here, so a command can start it before it imports Prefect).

It imports ``flows.pool_preload`` once when it starts; each worker forked from it inherits the loaded
pipeline. It exits when the process that started it exits, and its workers with it
(``flows.workers.die_with_parent``).
"""

from __future__ import annotations

import multiprocessing
from multiprocessing.context import BaseContext

PRELOAD = "flows.pool_preload"


def pool_context() -> BaseContext:
    """The fork-server context with the pipeline preloaded, where there is one; spawn elsewhere."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([PRELOAD])
    return ctx


def start_fork_server() -> bool:
    """Start the fork server now (it loads the pipeline while the caller goes on); False where there is none."""
    if pool_context().get_start_method() != "forkserver":
        return False
    from multiprocessing import forkserver

    forkserver.ensure_running()
    return True


def start_worker(env: dict[str, str], message_queue, initializer: str, packed_args: bytes) -> None:  # noqa: ANN001
    """Pool-worker entry: take the run's environment first, then run Prefect's worker initializer.

    A worker forked from the fork server has the environment the server started with, which may predate
    the run's API URL; Prefect's process-wide settings are read again from it. ``initializer`` is ``module:function``; ``packed_args`` its arguments after the queue, pickled."""
    import importlib
    import os
    import pickle
    import sys

    os.environ.update(env)
    if "prefect.context" in sys.modules:  # imported by the fork server, before this run's settings existed
        sys.modules["prefect.context"].refresh_global_settings_context()
    module, name = initializer.split(":")
    init = getattr(importlib.import_module(module), name)
    init(message_queue, *pickle.loads(packed_args))  # noqa: S301 - pickled by the run that forked us
