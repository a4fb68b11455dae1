"""Preloaded in every worker of the Dask LocalCluster that ``generate-corpus`` starts (``preload``): the
worker exits at once when the run that started it is gone.

Dask closes a worker gracefully when its parent's pipe closes, and a document in flight in the worker's
task thread can still be written after a ``kill -9`` of the run. A thread here watches the parent pid
and ends the process with ``os._exit`` the moment the worker is re-parented, so nothing is written later.
"""

from __future__ import annotations

import os
import threading
import time

POLL_S = 0.02


def _watch(parent: int) -> None:
    while True:
        if os.getppid() != parent:
            os._exit(1)
        time.sleep(POLL_S)


def dask_setup(worker: object = None) -> None:
    """Dask's preload hook: start the watcher (once per process)."""
    if not any(t.name == "synthdocqa-parent-watch" for t in threading.enumerate()):
        threading.Thread(target=_watch, args=(os.getppid(),), name="synthdocqa-parent-watch", daemon=True).start()
