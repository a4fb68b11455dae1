"""What a ``generate`` command starts before it imports Prefect, so that the fixed cost of a run overlaps:
the temporary Prefect API server (a process), the layout-CLIP load (a thread, for a run built in this
process) or the pool's fork server (a process that loads it once for every worker).

Nothing here imports Prefect. A corpus that looks complete for its spec and code starts nothing: the run
will most likely return at once (``corpus.generate.up_to_date`` decides, under the folder's lock).
"""

from __future__ import annotations

import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from flows.fork_server import start_fork_server
from flows.prefect_env import TemporaryServer

Runner = Literal["process", "dask", "inline"]

SMALL_RUN_DOCS = 8
"""Below this many documents the process runner builds them in the run's own process: even warm, a pool
costs a fork server and a Prefect task hand-off per document, which a few documents do not pay back.
The flow and the bytes are the same."""


def in_process(runner: Runner, workers: int, n_docs: int) -> bool:
    """Whether ``generate-corpus`` builds its documents in this process (no pool, no cluster).
    ``SYNTHDOCQA_SMALL_RUN_DOCS`` overrides ``SMALL_RUN_DOCS`` (0: always a pool, as the tests of the pool do)."""
    small = int(os.environ.get("SYNTHDOCQA_SMALL_RUN_DOCS", SMALL_RUN_DOCS))
    return runner == "inline" or (runner == "process" and (workers == 1 or n_docs < small))


TORCH_OVERRIDE_WARNING = r"Warning only once for all operators"
"""torch's import registers its own kernel overrides (``torch._native``); imported in a thread while the
main thread works (or exits, after a failed start), it now and then warns that it overrode a kernel it had
registered itself. Harmless and not ours to fix, and it would be a second line under a one-line error."""


def quiet_torch_import() -> None:
    """Filter ``TORCH_OVERRIDE_WARNING`` in this process (before torch is imported off the main thread)."""
    import warnings

    warnings.filterwarnings("ignore", message=TORCH_OVERRIDE_WARNING, category=UserWarning)


def warm_up() -> None:
    """Import the document pipeline and load the layout-CLIP with its library embeddings (cached per process),
    so an in-process run does it while the Prefect API server starts."""
    quiet_torch_import()
    from corpus.assemble import default_layout_chooser

    default_layout_chooser()


@dataclass
class EarlyStart:
    """What ``start_early`` started; ``run_generate`` waits for it or stops it."""

    server: TemporaryServer | None = None
    warm: threading.Thread | None = None

    def join_warm_up(self) -> None:
        if self.warm is not None:
            self.warm.join()
            self.warm = None

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()
            self.server = None


def looks_complete(out: str | os.PathLike[str], spec) -> bool:  # noqa: ANN001 - a CorpusSpec
    """A manifest of this spec and code is there (cheap; ``up_to_date`` checks every file)."""
    from corpus.assemble import code_version
    from corpus.store import MANIFEST, load_manifest

    if not (Path(out) / MANIFEST).is_file():
        return False
    try:
        m = load_manifest(out)
    except Exception:  # noqa: BLE001 - an unreadable manifest: the run will say so
        return False
    return m.spec_hash == spec.spec_hash() and m.code_version == code_version()


def start_early(spec, out: str | os.PathLike[str], n_docs: int, workers: int, runner: Runner,  # noqa: ANN001
                *, api_configured: bool, skip_if_complete: bool = True) -> EarlyStart:
    """Start the API server and the model load a run of ``spec`` will wait for (nothing when
    ``skip_if_complete`` and the corpus looks complete)."""
    early = EarlyStart()
    if skip_if_complete and looks_complete(out, spec):
        return early
    if not api_configured:
        early.server = TemporaryServer().start()
    if in_process(runner, workers, n_docs):
        early.warm = threading.Thread(target=warm_up, name="warm-up", daemon=True)
        early.warm.start()
    elif runner == "process":
        start_fork_server()
    return early
