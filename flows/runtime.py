"""The run plumbing of ``generate-corpus`` in one module, so that the flow body reads as the pipeline
(parameters, claim, map documents, write tables, publish).

- Before Prefect is imported (the CLI): ``start_early`` starts what a run will wait for, so that the fixed
  costs overlap: the temporary Prefect API server (a process), the layout-CLIP load (a thread, for a run
  built in this process) or the pool's fork server (a process that loads it once for every worker). A
  corpus that looks complete for its spec and code starts nothing (``corpus.generate.up_to_date`` decides,
  under the folder's lock).
- The run: ``corpus_run`` is the one ``with`` of the flow. It turns expected failures into one line,
  records SIGTERM, validates the parameters and builds the spec once, locks and claims the output folder
  and yields a ``CorpusRun`` whose ``phase`` checks the lock and a stop before each corpus-level step.
  ``LockWatch`` polls the lock while documents are built and kills the workers the moment it is lost.
- ``TIMINGS``: wall time per phase (``synthdocqa generate --timings``); ``CLI_HOOKS``: the CLI's progress
  bar and phase lines, told in-process.

Nothing here imports Prefect at module level (the CLI imports this before Prefect, to start the server).
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, model_validator

from synthdocqa.corpus.lock import LockLost, LockToken, OutputLock
from synthdocqa.corpus.store import check_claim, default_corpus_dir, prepare_corpus_dir
from synthdocqa.flows.errors import RunFailed, check_stop, failing_in_one_line, naming, recording_sigterm
from synthdocqa.flows.fork_server import start_fork_server
from synthdocqa.flows.prefect_env import TemporaryServer
from synthdocqa.ir.spec import MAX_DOCS, CorpusSpec, layered_spec, spec_for_profile
from synthdocqa.ir.vocab import ProfileName, Runner

# ---------------------------------------------------------------- before Prefect: the early start

MAX_WORKERS = 256
"""Most worker processes a run may ask for."""

SMALL_RUN_DOCS = 8
"""Below this many documents the process runner builds them in the run's own process: even warm, a pool
costs a fork server and a Prefect task hand-off per document, which a few documents do not pay back.
The flow and the bytes are the same."""


def in_process(runner: Runner, workers: int, n_docs: int) -> bool:
    """Whether ``generate-corpus`` builds its documents in this process (no pool, no cluster).
    ``SYNTHDOCQA_SMALL_RUN_DOCS`` overrides ``SMALL_RUN_DOCS`` (0: always a pool, as the tests of the pool do)."""
    small = int(os.environ.get("SYNTHDOCQA_SMALL_RUN_DOCS", SMALL_RUN_DOCS))
    return runner == "inline" or (runner == "process" and (workers == 1 or n_docs < small))


def warm_up() -> None:
    """Import the document pipeline and load the layout-CLIP with its library embeddings (cached per process),
    so an in-process run does it while the Prefect API server starts.

    Best effort, silent: the run loads what failed here again on its own thread, where an error is the run's
    (and a stop or a failed start may end the process while this thread is still importing)."""
    try:
        from synthdocqa.corpus.assemble import default_layout_chooser

        default_layout_chooser()
    except BaseException:  # noqa: BLE001, S110 - see the docstring
        pass


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
    from synthdocqa.corpus.assemble import code_version
    from synthdocqa.corpus.store import MANIFEST, load_manifest

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


# ---------------------------------------------------------------- timings

# Phases are marked in order by the code that enters them; each lasts until the next mark. The first phase
# starts when the process started (``/proc/self/stat``), so the interpreter start and the imports before the
# command ran are counted too.


def process_start() -> float | None:
    """The process's start as a ``time.time()`` value (Linux; None elsewhere)."""
    try:
        fields = open("/proc/self/stat").read().rsplit(")", 1)[1].split()  # noqa: SIM115
        start_ticks = int(fields[19])
        btime = next(int(line.split()[1]) for line in open("/proc/stat") if line.startswith("btime"))  # noqa: SIM115
        return btime + start_ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, StopIteration):
        return None


class Timings:
    """A process-wide, thread-safe list of (phase, start) marks; off unless enabled."""

    def __init__(self) -> None:
        self.enabled = False
        self._marks: list[tuple[str, float]] = []
        self._lock = threading.Lock()

    def enable(self, first_phase: str = "interpreter start and imports") -> None:
        self.enabled = True
        start = process_start()
        now = time.time()
        self._marks = [(first_phase, start if start is not None and start <= now else now)]

    def mark(self, phase: str) -> None:
        if self.enabled:
            with self._lock:
                self._marks.append((phase, time.time()))

    def phases(self) -> list[tuple[str, float]]:
        """(phase, seconds) in order, the last one up to now."""
        with self._lock:
            marks = [*self._marks, ("", time.time())]
        return [(name, t1 - t0) for (name, t0), (_, t1) in zip(marks, marks[1:], strict=False)]

    def print(self, file=None) -> None:  # noqa: ANN001
        rows = self.phases()
        total = sum(s for _, s in rows)
        out = file or sys.stderr
        print("timings (wall):", file=out)
        for name, s in rows:
            print(f"  {s:7.2f} s  {100 * s / total if total else 0:5.1f} %  {name}", file=out)
        print(f"  {total:7.2f} s  100.0 %  total", file=out, flush=True)


TIMINGS = Timings()

# ---------------------------------------------------------------- the CLI's hooks

@dataclass
class CliHooks:
    """In-process callbacks of the CLI: ``progress(done, total, record)`` for its bar, ``phase(text)`` when
    the run enters a phase without a bar (server start, tables, report). Unset outside a CLI run."""

    progress: Callable[[int, int, Any], None] | None = None
    phase: Callable[[str], None] | None = None

    @contextmanager
    def told(self, progress: Callable[[int, int, Any], None] | None, phase: Callable[[str], None] | None
             ) -> Iterator[None]:
        self.progress, self.phase = progress, phase
        try:
            yield
        finally:
            self.progress, self.phase = None, None


CLI_HOOKS = CliHooks()


def enter_phase(text: str, timing: str | None = None) -> None:
    """Mark a phase: stop if asked to, time it, tell the CLI."""
    check_stop()
    TIMINGS.mark(timing or text)
    if CLI_HOOKS.phase is not None:
        CLI_HOOKS.phase(text)


# ---------------------------------------------------------------- the run's parameters

# The parameters of ``generate-corpus``, typed and described once: the flow's signature (what a Prefect server
# validates a deployment run's parameters against, and shows in its form) and ``GenerateParams`` use them.
SeedParam = Annotated[int, Field(ge=0, lt=2**63, description="root seed: every draw of the corpus derives from it")]
NDocsParam = Annotated[Annotated[int, Field(ge=1, le=MAX_DOCS)] | None,
                       Field(description="number of documents (default: the profile's)")]
ProfileParam = Annotated[ProfileName, Field(description="the embedded profile the corpus starts from")]
OutParam = Annotated[str | None, Field(description="corpus directory, made absolute where the run starts (default: "
                                                   "out/corpora/<name>-seed<S>-n<N>)")]
SpecParam = Annotated[CorpusSpec | dict[str, Any] | None, Field(
    description="a whole spec, or a partial one laid over its own profile key (or profile); seed and n_docs apply "
                "when it does not set them")]
OnlyParam = Annotated[list[Annotated[int, Field(ge=0)]] | None,
                      Field(description="only these document indices (their files, no tables or manifest)")]
WorkersParam = Annotated[int, Field(ge=1, le=MAX_WORKERS, description="parallel worker processes")]
RunnerParam = Annotated[Runner, Field(description="task runner: process (a pool), dask (a Dask cluster), ray (a Ray "
                                                  "cluster, the [ray] extra) or inline")]
DaskAddressParam = Annotated[str | None, Field(description="Dask scheduler address (default: a LocalCluster)")]
RayAddressParam = Annotated[str | None, Field(description="Ray cluster address, HOST:PORT of its head or "
                                                          "ray://HOST:PORT (default: a local Ray instance)")]
ForceParam = Annotated[bool, Field(description="reuse a folder that holds another spec")]


def with_parameter_docs(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add an ``Args:`` section (Google style) to ``fn``'s docstring from the ``Field`` descriptions of its
    ``Annotated`` parameters: Prefect takes a parameter's description (the deployment's form, its schema) from
    the docstring only, and this keeps the text in one place, the parameter's type."""
    import inspect
    import typing

    hints = typing.get_type_hints(fn, include_extras=True)
    lines = []
    for name in inspect.signature(fn).parameters:
        hint = hints.get(name)
        meta = getattr(hint, "__metadata__", ()) if typing.get_origin(hint) is Annotated else ()
        text = next((m.description for m in meta if getattr(m, "description", None)), None)
        if text:
            lines.append(f"    {name}: {text}")
    if lines:
        fn.__doc__ = inspect.cleandoc(fn.__doc__ or "") + "\n\nArgs:\n" + "\n".join(lines)
    return fn


class GenerateParams(BaseModel):
    """Validated parameters of ``generate-corpus`` (deployment runs pass these as --param). The spec is built
    once, when they are validated: a whole ``CorpusSpec`` is taken as it is, a mapping is laid over its
    profile."""

    model_config = ConfigDict(extra="forbid")
    seed: SeedParam = 0
    n_docs: NDocsParam = None
    profile: ProfileParam = "demo"
    out: OutParam = None
    spec: SpecParam = None
    only: OnlyParam = None
    workers: WorkersParam = 2
    runner: RunnerParam = "process"
    dask_address: DaskAddressParam = None
    ray_address: RayAddressParam = None
    force: ForceParam = False
    _spec: CorpusSpec | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _whole_spec(self) -> GenerateParams:
        if isinstance(self.spec, CorpusSpec):
            self._spec = self.spec
        elif self.spec is not None:
            data = {"seed": self.seed, **({"n_docs": self.n_docs} if self.n_docs else {}), **self.spec}
            self._spec = layered_spec(data, self.profile)
        else:
            self._spec = spec_for_profile(self.profile, self.seed, self.n_docs)
        return self

    def corpus_spec(self) -> CorpusSpec:
        assert self._spec is not None  # set by the validator
        return self._spec


# ---------------------------------------------------------------- the run

def check_address(kind: str, address: str, default_scheme: str, schemes: tuple[str, ...], expected: str,
                  timeout: float = 5.0) -> None:
    """Fail in one line, before any work, when a cluster's address is malformed or nothing answers on it (Dask
    would wait 30 s, Ray longer)."""
    parts = urlsplit(address if "://" in address else f"{default_scheme}://{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in schemes or not parts.hostname or port is None:
        raise RunFailed(f"{kind} address {address!r}: expected {expected}")
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as err:
        reason = err.strerror or str(err) or err.__class__.__name__
        raise RunFailed(f"{kind} address {address}: cannot connect ({reason})") from None


def check_dask_address(address: str, timeout: float = 5.0) -> None:
    """The Dask scheduler answers (``check_address``)."""
    check_address("dask", address, "tcp", ("tcp", "tls"), "tcp://HOST:PORT", timeout)


def check_cluster(runner: Runner, dask_address: str | None, ray_address: str | None) -> None:
    """The cluster a run is given answers (and its runner is installed): checked before any work."""
    if runner == "dask" and dask_address:
        check_dask_address(dask_address)
    if runner == "ray":
        if ray_address:
            check_ray_address(ray_address)
        else:
            ray_runner_class()


def check_ray_address(address: str, timeout: float = 5.0) -> None:
    """prefect-ray is installed and the Ray head answers (``check_address``)."""
    ray_runner_class()
    if address != "auto":
        check_address("ray", address, "ray", ("ray",), "HOST:PORT (the head's GCS port) or ray://HOST:PORT", timeout)


def ray_runner_class():
    """prefect-ray's ``RayTaskRunner``, or a one-line failure naming the extra that brings it."""
    try:
        from prefect_ray import RayTaskRunner
    except ImportError:
        raise RunFailed("--runner ray needs Ray and prefect-ray: pip install 'synthdocqa[ray]'") from None
    return RayTaskRunner


RAY_LOCAL_OBJECT_STORE = 256 * 2**20
"""Object store of the local Ray instance a run starts: records and specs are small; Ray's default (30% of
memory) would reserve shared memory the documents' rendering needs."""


def make_task_runner(runner: Runner, workers: int, dask_address: str | None = None, n_docs: int | None = None,
                     ray_address: str | None = None):
    """Process pool on one machine (CPU-bound work); Dask or Ray for a cluster (or a local one); this process for
    a small run (``in_process``)."""
    from prefect.task_runners import ThreadPoolTaskRunner

    from synthdocqa.flows.workers import GuardedProcessPoolTaskRunner

    if in_process(runner, workers, SMALL_RUN_DOCS if n_docs is None else n_docs):
        return ThreadPoolTaskRunner(max_workers=1)
    if runner == "process":
        return GuardedProcessPoolTaskRunner(max_workers=workers)
    if runner == "ray":
        ray_runner = ray_runner_class()
        quiet = {"log_to_driver": False, "logging_level": "error"}
        if ray_address:
            return ray_runner(address=ray_address, init_kwargs=quiet)
        return ray_runner(init_kwargs={**quiet, "num_cpus": workers, "include_dashboard": False,
                                       "object_store_memory": RAY_LOCAL_OBJECT_STORE})
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_class="distributed.LocalCluster",
                          cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                          "dashboard_address": None, "preload": ["synthdocqa.flows.dask_worker_guard"]})


@contextmanager
def claimed_output(out_dir: str | os.PathLike[str], spec: CorpusSpec, force: bool) -> Iterator[OutputLock]:
    """Lock ``out_dir``, check it may take ``spec``, drop its manifest and write ``spec.json``."""
    with OutputLock.of(out_dir) as lock:
        check_claim(out_dir, spec, force)
        lock.check()
        prepare_corpus_dir(out_dir, spec, force=True)  # checked above; the lock file is not "another corpus"
        yield lock


class LockWatch:
    """Polls the run's lock while documents are built; on loss it kills the workers at once."""

    def __init__(self, token: LockToken, interval: float = 0.2) -> None:
        self.token, self.interval = token, interval
        self.lost: LockLost | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="synthdocqa-lock-watch", daemon=True)

    def _run(self) -> None:
        from synthdocqa.flows.workers import kill_all_workers

        while not self._stop.wait(self.interval):
            try:
                self.token.check()
            except LockLost as err:
                self.lost = err
                kill_all_workers()
                return

    def __enter__(self) -> LockWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)


@dataclass
class CorpusRun:
    """One ``generate-corpus`` run, once its parameters hold and its folder is claimed."""

    params: GenerateParams
    spec: CorpusSpec
    out_dir: str
    indices: list[int]
    lock: OutputLock

    def task_runner(self):
        """The task runner the documents are mapped on (``make_task_runner``)."""
        p = self.params
        return make_task_runner(p.runner, p.workers, p.dask_address, n_docs=len(self.indices),
                                ray_address=p.ray_address)

    def phase(self, text: str, timing: str | None = None) -> None:
        """Before a corpus-level step: the run still holds its folder and was not asked to stop."""
        self.lock.check()
        enter_phase(text, timing)


@contextmanager
def corpus_run(**params: Any) -> Iterator[CorpusRun]:
    """The plumbing around a ``generate-corpus`` flow body: failures in one line, SIGTERM recorded, parameters
    validated (``GenerateParams``), the document indices and the Dask address checked, the folder locked and
    claimed. An OSError that names no file (a full disk) is reported naming the corpus folder."""
    from synthdocqa.corpus.generate import (
        doc_indices,  # the tables' imports (pandas): not on the CLI's early path
    )

    with failing_in_one_line(), recording_sigterm():
        p = GenerateParams(**params)
        spec = p.corpus_spec()
        # absolute here, where the run starts: a worker of a cluster resolves a relative path in its own folder
        out_dir = os.path.abspath(p.out or default_corpus_dir(spec))
        try:
            indices = doc_indices(spec, p.only)
        except ValueError as err:
            raise RunFailed(str(err)) from None
        check_cluster(p.runner, p.dask_address, p.ray_address)
        with claimed_output(out_dir, spec, p.force) as lock, naming(out_dir):
            TIMINGS.mark("worker start and the first document")
            yield CorpusRun(p, spec, out_dir, indices, lock)
            check_stop()
