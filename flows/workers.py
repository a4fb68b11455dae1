"""Worker processes that die with their run: the process-pool task runner of ``generate-corpus``.

Each pool worker asks the kernel for SIGKILL when its parent, the run's fork server, goes
(``prctl(PR_SET_PDEATHSIG)``), and the fork server asks the same of the run, so a ``kill -9`` of the run
leaves no worker writing documents under PID 1. Workers ignore SIGINT: a Ctrl-C at
the terminal reaches the whole process group, and it is the run that decides what stops, in order: it
kills its workers (cancelling the documents they were building), then stops the temporary API server.
A run that leaves its task runner with an exception (a signal, a full disk) kills the workers instead of
waiting for the documents in flight.

Workers are forked from a fork server that has loaded the document pipeline once (``flows.pool_preload``:
the layout-CLIP (ONNX Runtime) and its library embeddings), so a pool's workers start warm and the load is paid
once per run, not once per worker; ``start_fork_server`` lets a command start it before it needs the
pool. Where there is no fork server (not Unix) workers are spawned and load on their first document.
"""

from __future__ import annotations

import logging
import os
import pickle
import signal
import threading
import weakref
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from prefect.task_runners import ProcessPoolTaskRunner

from synthdocqa.flows.fork_server import (
    die_with_parent,
    pool_context,
    quiet_resource_tracker,
    start_fork_server,
    start_worker,
)


class DropEngineErrors(logging.Filter):
    """Keep Prefect's engine errors (tracebacks of a failed or crashed run) off the console: the CLI says
    what happened in one line, and the run's state carries the message."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.levelno >= logging.ERROR and record.name.startswith("prefect"))


def quiet_engine_errors() -> None:
    """Add :class:`DropEngineErrors` to every Prefect console handler of this process."""
    from prefect.logging.handlers import PrefectConsoleHandler

    loggers = [logging.getLogger()] + [x for x in logging.Logger.manager.loggerDict.values()
                                       if isinstance(x, logging.Logger)]
    for lg in loggers:
        for h in lg.handlers:
            if isinstance(h, PrefectConsoleHandler) and not any(isinstance(f, DropEngineErrors) for f in h.filters):
                h.addFilter(DropEngineErrors())


def _parent_of(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return int(fh.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


def init_worker(parent_pid: int, quiet: bool) -> None:
    """Pool-worker initializer: die with the parent (the run, or the run's fork server), leave SIGINT to the
    run, optionally quiet."""
    die_with_parent()
    ppid = os.getppid()
    if ppid != parent_pid and _parent_of(ppid) != parent_pid:  # the run died before the request took effect
        os._exit(1)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if quiet:
        quiet_engine_errors()


_live: weakref.WeakValueDictionary[int, GuardedProcessPoolTaskRunner] = weakref.WeakValueDictionary()
"""Entered runners by ``id`` (Prefect's runners compare by value, so they are not hashable)."""
_live_lock = threading.Lock()


class GuardedProcessPoolTaskRunner(ProcessPoolTaskRunner):
    """Prefect's process pool with workers that die with the run and are killed when the run stops."""

    def __init__(self, max_workers: int | None = None, quiet: bool | None = None, **kwargs: Any) -> None:
        if quiet is None:
            quiet = os.environ.get("SYNTHDOCQA_QUIET_ENGINE") == "1"
        kwargs.setdefault("initializer", init_worker)
        kwargs.setdefault("initargs", (os.getpid(), quiet))
        super().__init__(max_workers=max_workers, **kwargs)

    def _processes(self) -> list[Any]:
        procs = getattr(self._executor, "_processes", None) or {}
        return [p for p in list(procs.values()) if p.pid is not None]

    def worker_pids(self) -> list[int]:
        return [p.pid for p in self._processes() if p.is_alive()]

    def kill_workers(self) -> list[int]:
        """SIGKILL every worker now and wait for them (documents in flight are cancelled; writes are atomic)."""
        killed = []
        procs = self._processes()
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGKILL)
                killed.append(p.pid)
            except ProcessLookupError:
                pass
        for p in procs:
            p.join(timeout=5)
        return killed

    def __enter__(self):
        quiet_resource_tracker()
        runner = super().__enter__()  # Prefect's pool of spawned workers; none is started before a submit
        self._pool_chosen = False
        with _live_lock:
            _live[id(self)] = self
        return runner

    def submit(self, task: Any, parameters: dict[str, Any], wait_for: Any = None, dependencies: Any = None) -> Any:
        self._fork_from_server()
        return super().submit(task, parameters, wait_for, dependencies)

    def _fork_from_server(self) -> None:
        """Before the first document: replace Prefect's spawning pool (no worker started yet) by one forked from
        the warm fork server, with the same worker initializer. Done at the first submit, not on entry: a
        worker enters a copy of this runner for every task it runs and must not pay for it."""
        if self._pool_chosen or self._executor is None:
            return
        self._pool_chosen = True
        if not start_fork_server():  # started here (if not yet), by the thread that runs the flow
            return
        ctx = pool_context()
        from prefect.settings import get_current_settings

        spawned = self._executor
        init, (queue, *rest) = spawned._initializer, spawned._initargs
        env = get_current_settings().to_environment_variables(exclude_unset=True) | dict(os.environ)
        self._executor = ProcessPoolExecutor(
            max_workers=self._max_workers, mp_context=ctx, initializer=start_worker,
            initargs=(env, queue, f"{init.__module__}:{init.__qualname__}", pickle.dumps(tuple(rest))))
        spawned.shutdown(wait=False)

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> None:
        with _live_lock:
            _live.pop(id(self), None)
        if exc_type is not None:
            self.kill_workers()
        super().__exit__(exc_type, exc_value, traceback)


def kill_all_workers() -> list[int]:
    """Kill the workers of every process pool of this process (a stopped run, a lost lock)."""
    with _live_lock:
        runners = list(_live.values())
    return [pid for r in runners for pid in r.kill_workers()]
