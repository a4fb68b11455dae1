"""The ``generate-corpus`` flow: one task per document, resumable, on a process or Dask task runner.

    lock + claim the folder -> plan+render+degrade+QA per document (tasks, parallel)
      -> corpus tables + manifest -> artifacts (report.html)

``synthdocqa generate`` runs this same flow (against Prefect's API, or a temporary local one), so the
CLI and the deployments cannot drift apart. One run writes a folder at a time (``corpus.lock``): the run
checks it still holds the lock before every document and every corpus-level write, and a watch kills the
workers the moment the lock is lost. Expected failures (another spec's folder, a full disk, a read-only
folder, an unreachable Dask scheduler) fail the run with one line (``flows.errors``).
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from prefect import flow, get_run_logger, task
from pydantic import BaseModel, ConfigDict, Field, model_validator

from corpus.assemble import code_version
from corpus.generate import completed_document, doc_indices, generate_document, up_to_date
from corpus.lock import LockLost, LockToken, OutputLock
from corpus.store import (
    REPORT_FILE,
    DocFiles,
    DocRecord,
    check_claim,
    default_corpus_dir,
    doc_id_for,
    prepare_corpus_dir,
)
from corpus.tables import write_corpus
from flows.artifacts import publish_corpus_artifacts, publish_progress
from flows.errors import (
    RunFailed,
    check_stop,
    expected_failure,
    failing_in_one_line,
    naming,
    recording_sigterm,
)
from flows.prefect_env import prefect_api
from flows.run_start import SMALL_RUN_DOCS, EarlyStart, in_process, start_early, warm_up  # noqa: F401
from flows.timings import TIMINGS
from generation.planner import planned_page_count
from ir.spec import CorpusSpec, layered_spec, spec_for_profile

Runner = Literal["process", "dask", "inline"]


class GenerateParams(BaseModel):
    """Validated parameters of ``generate-corpus`` (deployment runs pass these as --param)."""

    model_config = ConfigDict(extra="forbid")
    seed: int = Field(default=0, ge=0)
    n_docs: int | None = Field(default=None, ge=1)
    profile: Literal["demo", "reference"] = "demo"
    out: str | None = Field(default=None, description="corpus directory (default: out/corpora/<name>-seed<S>-n<N>)")
    spec: dict[str, Any] | None = Field(
        default=None, description="a whole or partial spec laid over its own profile key (or profile); "
                                  "seed and n_docs apply when it does not set them")
    only: list[int] | None = None
    workers: int = Field(default=2, ge=1, le=256)
    runner: Runner = "process"
    dask_address: str | None = None
    force: bool = False

    @model_validator(mode="after")
    def _whole_spec(self) -> GenerateParams:
        self.corpus_spec()  # the whole spec is validated with the parameters, before any work
        return self

    def corpus_spec(self) -> CorpusSpec:
        if self.spec is not None:
            data = {"seed": self.seed, **({"n_docs": self.n_docs} if self.n_docs else {}), **self.spec}
            return layered_spec(data, self.profile)
        return spec_for_profile(self.profile, self.seed, self.n_docs)


_progress_hook = None
"""In-process progress callback ``(done, total, record)`` set by the CLI for its progress bar."""
_phase_hook: Callable[[str], None] | None = None
"""In-process callback told when the run enters a phase without a bar (server start, tables, report)."""


def _phase(text: str, timing: str | None = None) -> None:
    check_stop()
    TIMINGS.mark(timing or text)
    if _phase_hook is not None:
        _phase_hook(text)


def make_task_runner(runner: Runner, workers: int, dask_address: str | None = None, n_docs: int | None = None):
    """Process pool on one machine (CPU-bound work); Dask for a cluster (or a LocalCluster); this process for a
    small run (``in_process``)."""
    from prefect.task_runners import ThreadPoolTaskRunner

    from flows.workers import GuardedProcessPoolTaskRunner

    if in_process(runner, workers, SMALL_RUN_DOCS if n_docs is None else n_docs):
        return ThreadPoolTaskRunner(max_workers=1)
    if runner == "process":
        return GuardedProcessPoolTaskRunner(max_workers=workers)
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_class="distributed.LocalCluster",
                          cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                          "dashboard_address": None, "preload": ["flows.dask_worker_guard"]})


def check_dask_address(address: str, timeout: float = 5.0) -> None:
    """Fail in one line, before any work, when the Dask scheduler does not answer (Dask would wait 30 s)."""
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("tcp", "tls") or not parts.hostname or port is None:
        raise RunFailed(f"dask address {address!r}: expected tcp://HOST:PORT")
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            pass
    except OSError as err:
        reason = err.strerror or str(err) or err.__class__.__name__
        raise RunFailed(f"dask address {address}: cannot connect ({reason})") from None


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
        from flows.workers import kill_all_workers

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


def doc_cache_key(_ctx, params) -> str:
    spec: CorpusSpec = params["spec"]
    return (f"generate-document-{spec.spec_hash()}-{params['index']}-{code_version()}-"
            f"{os.path.abspath(params['corpus_dir'])}")


def retry_unexpected(_task, _task_run, state) -> bool:
    """Retry a document only after an unexpected error: a full disk or a lost lock will not heal."""
    try:
        state.result()
    except Exception as err:  # noqa: BLE001 - classifying, not handling
        return expected_failure(err) is None and not isinstance(err, LockLost)
    return True


@task(name="generate-document", cache_key_fn=doc_cache_key, persist_result=True,
      task_run_name="generate-document-{index}", retries=1, retry_condition_fn=retry_unexpected)
def generate_document_task(spec: CorpusSpec, index: int, corpus_dir: str, lock: LockToken | None = None,
                           kept: DocRecord | None = None) -> DocRecord:
    """The document's record: ``kept`` (the record the run found complete and verified on disk, checked once,
    in ``generate_documents``), else the record of the document built and written now."""
    if kept is not None:
        get_run_logger().info(f"{kept.doc_id}: complete and verified on disk, kept")
        return kept
    with naming(Path(corpus_dir) / DocFiles(doc_id_for(index)).dir):
        rec = generate_document(spec, index, corpus_dir, check=None if lock is None else lock.check, resume=False)
    get_run_logger().info(f"{rec.doc_id}: generated, {rec.n_pages} pages, {rec.n_qa} QA, "
                          f"{rec.n_assertions} assertions")
    return rec


@flow(name="generate-documents")
def generate_documents(spec: CorpusSpec, indices: list[int], corpus_dir: str,
                       lock: LockToken | None = None) -> list[DocRecord]:
    logger = get_run_logger()
    # The one completeness check of a run (every file of the document re-hashed): under the run's lock,
    # nothing else writes the folder, so a document found complete here is complete when it is collected.
    done = {i: r for i in indices if (r := completed_document(spec, i, corpus_dir)) is not None}
    logger.info(f"{len(done)} of {len(indices)} documents already complete; generating {len(indices) - len(done)}")
    with failing_in_one_line():
        if lock is None:
            return _collect(spec, indices, corpus_dir, done, None)
        with LockWatch(lock) as watch:
            try:
                return _collect(spec, indices, corpus_dir, done, lock)
            except Exception:
                if watch.lost is not None:
                    raise RunFailed(str(watch.lost)) from None
                raise


def submission_order(spec: CorpusSpec, indices: list[int], done: Iterable[int]) -> list[int]:
    """Documents to build, longest first (then by index), so no worker starts a long document when the others
    are finishing; complete ones first, they take a moment. The order does not change any byte."""
    done = set(done)
    return sorted(indices, key=lambda i: (i not in done, -planned_page_count(spec, i), i))


def _collect(spec: CorpusSpec, indices: list[int], corpus_dir: str, done: dict[int, DocRecord],
             lock: LockToken | None) -> list[DocRecord]:
    order = submission_order(spec, indices, done)
    futures = {i: generate_document_task.with_options(refresh_cache=i not in done).submit(spec, i, corpus_dir, lock,
                                                                                           done.get(i))
               for i in order}
    progress = publish_progress(None, 0, len(futures))
    if _progress_hook is not None:
        _progress_hook(0, len(futures), None)
    records: dict[int, DocRecord] = {}
    for n, i in enumerate(order, start=1):
        records[i] = _result(futures[i])
        if n == 1:
            TIMINGS.mark("the other documents")
        progress = publish_progress(progress, n, len(futures))
        if _progress_hook is not None:
            _progress_hook(n, len(futures), records[i])
    return [records[i] for i in indices]


def _result(fut, poll: float = 0.2):
    """``fut.result()``, waking up every ``poll`` seconds.

    A signal is handled in the main thread, but the kernel may deliver it to any thread; a main thread
    blocked in one long wait would not see a Ctrl-C until the document is done. Short waits let it stop
    the run at once."""
    wrapped = getattr(fut, "wrapped_future", None)
    done = getattr(wrapped, "done", None)
    if callable(done):
        while not done():
            check_stop()
            fut.wait(timeout=poll)
    return fut.result()


@flow(name="generate-corpus")
def generate_corpus_flow(seed: int = 0, n_docs: int | None = None, profile: str = "demo",
                         out: str | None = None, spec: dict | None = None, only: list[int] | None = None,
                         workers: int = 2, runner: str = "process", dask_address: str | None = None,
                         force: bool = False) -> dict:
    with failing_in_one_line(), recording_sigterm():
        p = GenerateParams(seed=seed, n_docs=n_docs, profile=profile, out=out, spec=spec, only=only,
                           workers=workers, runner=runner, dask_address=dask_address, force=force)
        cspec = p.corpus_spec()
        out_dir = p.out or default_corpus_dir(cspec)
        try:
            indices = doc_indices(cspec, p.only)
        except ValueError as err:
            raise RunFailed(str(err)) from None
        if p.runner == "dask" and p.dask_address:
            check_dask_address(p.dask_address)
        with claimed_output(out_dir, cspec, p.force) as lock:
            TIMINGS.mark("worker start and the first document")
            task_runner = make_task_runner(p.runner, p.workers, p.dask_address, n_docs=len(indices))
            recs = generate_documents.with_options(task_runner=task_runner)(cspec, indices, out_dir, lock.token)
            if p.only is not None:
                return {"documents": [r.doc_id for r in recs]}
            lock.check()
            _phase(f"writing the corpus tables and manifest ({len(recs)} documents)", "tables and manifest")
            with naming(out_dir):
                manifest = write_corpus(out_dir, cspec, recs, code_version(), check=lock.check)
            lock.check()
            _phase("writing report.html and the run's artifacts", "report.html and artifacts")
            publish_corpus_artifacts(out_dir, manifest)
            check_stop()
    get_run_logger().info(f"corpus written to {out_dir}: {manifest.stats['documents']} documents, "
                          f"{manifest.stats['pages']} pages, {manifest.stats['qa_pairs']} QA")
    return manifest.stats


def run_generate(spec: CorpusSpec, out: str | os.PathLike[str], workers: int = 1, only: Iterable[int] | None = None,
                 force: bool = False, runner: Runner = "process", dask_address: str | None = None, progress=None,
                 phase: Callable[[str], None] | None = None, early: EarlyStart | None = None):
    """Run ``generate-corpus`` for a spec; returns the corpus stats (or, with ``only``, the doc ids).

    Everything that can be checked without a server is checked first (indices, the Dask address, the
    folder's lock and claim), so those failures take a moment, not a server start. ``early``: what the
    caller started already (``flows.run_start.start_early``); stopped here when it is not needed."""
    global _progress_hook, _phase_hook
    try:
        doc_indices(spec, only)
        if runner == "dask" and dask_address:
            check_dask_address(dask_address)
        with OutputLock.of(out):
            check_claim(out, spec, force)
            if only is None and not force:
                TIMINGS.mark("check for a complete corpus")
                from corpus.views.report import report_is_current  # a view: kept off the workers' imports

                done = up_to_date(out, spec)
                if done is not None and not report_is_current(out, Path(out) / REPORT_FILE):
                    done = None  # the documents are whole but the report is not: the run draws it
                if done is not None:  # nothing to do: no server, no flow run (a deployment run still runs the flow)
                    if phase is not None:
                        phase("the corpus is complete and verified for this spec and code: nothing to generate")
                    return done.stats
            _progress_hook, _phase_hook = progress, phase
            from prefect.settings import PREFECT_API_URL

            if early is None:
                early = start_early(spec, out, len(doc_indices(spec, only)), workers, runner,
                                    api_configured=bool(PREFECT_API_URL.value()), skip_if_complete=False)
            if not PREFECT_API_URL.value():
                _phase("starting a temporary Prefect API server", "Prefect API server start")
            with prefect_api(early.server):
                early.server = None  # prefect_api stops it
                if early.warm is not None:
                    TIMINGS.mark("layout-CLIP load (after the server start)")
                    early.join_warm_up()
                TIMINGS.mark("flow run start (Prefect engine)")
                result = generate_corpus_flow(spec=spec.model_dump(mode="json"), out=str(out), workers=workers,
                                              only=list(only) if only is not None else None, force=force,
                                              runner=runner, dask_address=dask_address)
                TIMINGS.mark("flow run end, API server stop")
                return result
    finally:
        _progress_hook, _phase_hook = None, None
        if early is not None:
            early.stop()
