"""The fork server that process-pool workers of ``generate-corpus`` are forked from (no Prefect import
here, so a command can start it before it imports Prefect).

It imports ``flows.pool_preload`` once when it starts; each worker forked from it inherits the loaded
pipeline. It ends when the thread that started it ends (``die_with_parent``, SIGTERM: its workers hold the
pipe it would otherwise watch, so it would not see a ``kill -9`` of the run), and its workers with it; it
removes the folder of its listening socket then, which the run's own exit would have removed.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
from multiprocessing.context import BaseContext

PRELOAD = "synthdocqa.flows.pool_preload"
PR_SET_PDEATHSIG = 1
TRACKER_QUIET = "ignore::UserWarning:multiprocessing.resource_tracker"


def quiet_resource_tracker() -> None:
    """Killed workers leave their semaphores to multiprocessing's resource tracker, which removes them and
    warns at exit; after a deliberate stop that is noise. The tracker inherits ``-W`` options when it starts."""
    if TRACKER_QUIET not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_QUIET)


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send ``sig`` to this process when the thread that started it ends (Linux only)."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def pool_context() -> BaseContext:
    """The fork-server context with the pipeline preloaded, where there is one; spawn elsewhere."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([PRELOAD])
    return ctx


def start_fork_server() -> bool:
    """Start the fork server now, if it is not running (it loads the pipeline while the caller goes on);
    False where there is none. It ends with the thread that calls this (``flows.pool_preload``)."""
    if pool_context().get_start_method() != "forkserver":
        return False
    from multiprocessing import forkserver

    quiet_resource_tracker()  # the fork server starts the tracker
    from multiprocessing import util

    from synthdocqa.flows.prefect_env import environ

    # the folder of the server's listening socket: removed by this process at exit, and by the server when a
    # ``kill -9`` of this process ends it first (``flows.pool_preload``)
    with environ(SYNTHDOCQA_FORK_SERVER="1", SYNTHDOCQA_FORK_SERVER_PARENT=str(os.getpid()),
                 SYNTHDOCQA_FORK_SERVER_TMP=util.get_temp_dir()):
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
