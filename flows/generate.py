"""The ``generate-corpus`` flow: one task per document, resumable, on a process, Dask or Ray task runner.

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
from collections.abc import Callable, Iterable
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from synthdocqa.corpus.assemble import code_version
from synthdocqa.corpus.generate import completed_document, doc_indices, generate_document, up_to_date
from synthdocqa.corpus.lock import LockLost, LockToken, OutputLock
from synthdocqa.corpus.store import REPORT_FILE, DocFiles, DocRecord, check_claim, doc_id_for
from synthdocqa.corpus.tables import write_corpus
from synthdocqa.flows.artifacts import publish_corpus_artifacts, publish_progress
from synthdocqa.flows.errors import RunFailed, check_stop, expected_failure, failing_in_one_line, naming
from synthdocqa.flows.prefect_env import prefect_api
from synthdocqa.flows.runtime import (
    CLI_HOOKS,
    TIMINGS,
    DaskAddressParam,
    EarlyStart,
    ForceParam,
    LockWatch,
    NDocsParam,
    OnlyParam,
    OutParam,
    ProfileParam,
    RayAddressParam,
    RunnerParam,
    SeedParam,
    SpecParam,
    WorkersParam,
    check_cluster,
    corpus_run,
    enter_phase,
    start_early,
    with_parameter_docs,
)
from synthdocqa.generation.planner import planned_page_count
from synthdocqa.ir.spec import CorpusSpec
from synthdocqa.ir.vocab import Runner


def retry_unexpected(_task, _task_run, state) -> bool:
    """Retry a document only after an unexpected error: a full disk or a lost lock will not heal."""
    try:
        state.result()
    except Exception as err:  # noqa: BLE001 - classifying, not handling
        return expected_failure(err) is None and not isinstance(err, LockLost)
    return True


@task(name="generate-document", cache_policy=NO_CACHE, persist_result=False,
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
    if CLI_HOOKS.progress is not None:
        CLI_HOOKS.progress(0, len(futures), None)
    records: dict[int, DocRecord] = {}
    for n, i in enumerate(order, start=1):
        records[i] = _result(futures[i])
        if n == 1:
            TIMINGS.mark("the other documents")
        progress = publish_progress(progress, n, len(futures))
        if CLI_HOOKS.progress is not None:
            CLI_HOOKS.progress(n, len(futures), records[i])
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
@with_parameter_docs
def generate_corpus_flow(seed: SeedParam = 0, n_docs: NDocsParam = None, profile: ProfileParam = "demo",
                         out: OutParam = None, spec: SpecParam = None, only: OnlyParam = None,
                         workers: WorkersParam = 2, runner: RunnerParam = "process",
                         dask_address: DaskAddressParam = None, force: ForceParam = False,
                         ray_address: RayAddressParam = None) -> dict:
    """Generate (or resume) a corpus from a seed: one task per document, then the tables, the manifest and the
    report; returns the corpus stats."""
    with corpus_run(seed=seed, n_docs=n_docs, profile=profile, out=out, spec=spec, only=only, workers=workers,
                    runner=runner, dask_address=dask_address, ray_address=ray_address, force=force) as run:
        recs = generate_documents.with_options(task_runner=run.task_runner())(
            run.spec, run.indices, run.out_dir, run.lock.token)
        if run.params.only is not None:
            return {"documents": [r.doc_id for r in recs]}
        run.phase(f"writing the corpus tables and manifest ({len(recs)} documents)", "tables and manifest")
        manifest = write_corpus(run.out_dir, run.spec, recs, code_version(), check=run.lock.check)
        run.phase("writing report.html and the run's artifacts", "report.html and artifacts")
        publish_corpus_artifacts(run.out_dir, manifest)
    get_run_logger().info(f"corpus written to {run.out_dir}: {manifest.stats['documents']} documents, "
                          f"{manifest.stats['pages']} pages, {manifest.stats['qa_pairs']} QA")
    return manifest.stats


def run_generate(spec: CorpusSpec, out: str | os.PathLike[str], workers: int = 1, only: Iterable[int] | None = None,
                 force: bool = False, runner: Runner = "process", dask_address: str | None = None, progress=None,
                 phase: Callable[[str], None] | None = None, early: EarlyStart | None = None,
                 ray_address: str | None = None):
    """Run ``generate-corpus`` for a spec; returns the corpus stats (or, with ``only``, the doc ids).

    Everything that can be checked without a server is checked first (indices, the Dask address, the
    folder's lock and claim), so those failures take a moment, not a server start; the flow checks the claim
    again under its own lock (a deployment run comes to it directly). ``early``: what the caller started
    already (``flows.runtime.start_early``); stopped here when it is not needed. The flow is handed the spec
    itself, not its JSON, so it is built once."""
    try:
        doc_indices(spec, only)
        check_cluster(runner, dask_address, ray_address)
        with OutputLock.of(out), CLI_HOOKS.told(progress, phase):
            check_claim(out, spec, force)
            if only is None and not force:
                TIMINGS.mark("check for a complete corpus")
                from synthdocqa.corpus.views.report import (
                    report_is_current,  # a view: kept off the workers' imports
                )

                done = up_to_date(out, spec)
                if done is not None and not report_is_current(out, Path(out) / REPORT_FILE):
                    done = None  # the documents are whole but the report is not: the run draws it
                if done is not None:  # nothing to do: no server, no flow run (a deployment run still runs the flow)
                    enter_phase("the corpus is complete and verified for this spec and code: nothing to generate",
                                "nothing to generate")
                    return done.stats
            from prefect.settings import PREFECT_API_URL

            from synthdocqa.corpus.ocr import tesseract_version

            if tesseract_version() is None:  # said, not silent: the records will not say what the scans lost
                enter_phase("tesseract is not installed: the evidence is not read on the scans, so no QA pair is "
                            "marked answerable_from_scan (Debian/Ubuntu: apt-get install tesseract-ocr)",
                            "no tesseract")
            if early is None:
                early = start_early(spec, out, len(doc_indices(spec, only)), workers, runner,
                                    api_configured=bool(PREFECT_API_URL.value()), skip_if_complete=False)
            if not PREFECT_API_URL.value():
                enter_phase("starting a temporary Prefect API server", "Prefect API server start")
            with prefect_api(early.server):
                early.server = None  # prefect_api stops it
                if early.warm is not None:
                    TIMINGS.mark("layout-CLIP load (after the server start)")
                    early.join_warm_up()
                TIMINGS.mark("flow run start (Prefect engine)")
                result = generate_corpus_flow(spec=spec, out=str(out), workers=workers,
                                              only=list(only) if only is not None else None, force=force,
                                              runner=runner, dask_address=dask_address, ray_address=ray_address)
                TIMINGS.mark("flow run end, API server stop")
                return result
    finally:
        if early is not None:
            early.stop()
