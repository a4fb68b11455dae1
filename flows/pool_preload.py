"""Imported once by the process pool's fork server (``flows.workers.pool_context``), before it forks any
worker: the document pipeline's modules and the layout-CLIP (ONNX Runtime) with its library embeddings are
loaded there once, and every worker forked from it starts warm instead of importing and loading them
itself (seconds of CPU per worker on a small machine).

Prefect's task engine is imported too; a worker refreshes Prefect's process-wide settings from the run's
environment when it starts (``flows.fork_server.start_worker``), as this server may predate the run's API.
Everything here is best effort: a failure leaves the worker to load on its first document, where the
error is raised to the run.
"""

from __future__ import annotations

import os


def _die_with_the_run() -> None:
    """The fork server ends with the process (the thread) that started it: its workers hold the pipe it would
    otherwise watch for that, so after a ``kill -9`` of the run neither it nor its workers would end."""
    if os.environ.pop("SYNTHDOCQA_FORK_SERVER", None) != "1":  # imported somewhere else: not a fork server
        return
    parent = int(os.environ.pop("SYNTHDOCQA_FORK_SERVER_PARENT", "0"))
    listener_dir = os.environ.pop("SYNTHDOCQA_FORK_SERVER_TMP", "")
    import signal

    from synthdocqa.flows.fork_server import die_with_parent

    server = os.getpid()

    def _end(signum: int, frame: object) -> None:
        """The run ended without removing the folder of this server's socket (``kill -9``): remove it, end.
        Workers forked from here inherit this handler and keep the default end of a SIGTERM."""
        if os.getpid() != server:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGTERM)
            return
        if listener_dir and os.path.basename(listener_dir).startswith("pymp-"):
            import shutil

            shutil.rmtree(listener_dir, ignore_errors=True)
        os._exit(1)  # the workers follow (they die with their parent, flows.workers.init_worker)

    signal.signal(signal.SIGTERM, _end)
    die_with_parent(signal.SIGTERM)
    if os.getppid() != parent:
        _end(signal.SIGTERM, None)  # the run ended before the request took effect


def _warm() -> None:
    try:
        from synthdocqa.corpus.assemble import default_layout_chooser, one_thread_per_worker

        one_thread_per_worker()  # before any OpenCV or ONNX Runtime work, so no thread pool exists to fork
        default_layout_chooser()
        import prefect.task_engine  # noqa: F401
        import prefect.task_runners  # noqa: F401

        import synthdocqa.corpus.generate  # noqa: F401 - the document task's own imports
        import synthdocqa.degradations  # noqa: F401
        import synthdocqa.flows.generate  # noqa: F401 - the task's module, unpickled by reference
        from synthdocqa.renderers import raster  # noqa: F401
        from synthdocqa.renderers.pdf import render  # noqa: F401
    except Exception:  # noqa: BLE001, S110 - see the module docstring
        pass
    import gc

    gc.collect()
    gc.freeze()  # the loaded modules are never garbage: workers' collections skip them (and do not copy them)


_die_with_the_run()
_warm()
