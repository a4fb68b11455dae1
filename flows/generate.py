"""The ``generate-corpus`` flow: one task per document, resumable, on a process or Dask task runner.

    plan+render+degrade+QA per document (tasks, parallel) -> corpus tables + manifest -> artifacts

``synthdocqa generate`` runs this same flow (against Prefect's API, or a temporary local one), so the
CLI and the deployments cannot drift apart.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Literal

from prefect import flow, get_run_logger, task
from pydantic import BaseModel, ConfigDict, Field

from corpus.assemble import code_version
from corpus.generate import completed_document, doc_indices, generate_document
from corpus.store import DocRecord, default_corpus_dir, prepare_corpus_dir
from corpus.tables import write_corpus
from flows.artifacts import publish_corpus_artifacts, publish_progress
from flows.prefect_env import prefect_api
from ir.spec import CorpusSpec, spec_for_profile

Runner = Literal["process", "dask", "inline"]


class GenerateParams(BaseModel):
    """Validated parameters of ``generate-corpus`` (deployment runs pass these as --param)."""

    model_config = ConfigDict(extra="forbid")
    seed: int = Field(default=0, ge=0)
    n_docs: int | None = Field(default=None, ge=1)
    profile: Literal["demo", "reference"] = "demo"
    out: str | None = Field(default=None, description="corpus directory (default: out/corpora/<name>-seed<S>-n<N>)")
    spec: CorpusSpec | None = Field(default=None, description="full spec; overrides seed/n_docs/profile")
    only: list[int] | None = None
    workers: int = Field(default=2, ge=1, le=256)
    runner: Runner = "process"
    dask_address: str | None = None
    force: bool = False

    def corpus_spec(self) -> CorpusSpec:
        if self.spec is not None:
            return self.spec
        return spec_for_profile(self.profile, self.seed, self.n_docs)


_progress_hook = None
"""In-process progress callback ``(done, total, record)`` set by the CLI for its progress bar."""


def make_task_runner(runner: Runner, workers: int, dask_address: str | None = None):
    """Process pool on one machine (CPU-bound work); Dask for a cluster (or a LocalCluster)."""
    from prefect.task_runners import ProcessPoolTaskRunner, ThreadPoolTaskRunner

    if runner == "inline" or (runner == "process" and workers == 1):
        return ThreadPoolTaskRunner(max_workers=1)
    if runner == "process":
        return ProcessPoolTaskRunner(max_workers=workers)
    from prefect_dask import DaskTaskRunner

    if dask_address:
        return DaskTaskRunner(address=dask_address)
    return DaskTaskRunner(cluster_class="distributed.LocalCluster",
                          cluster_kwargs={"n_workers": workers, "threads_per_worker": 1, "processes": True,
                                          "dashboard_address": None})


def doc_cache_key(_ctx, params) -> str:
    spec: CorpusSpec = params["spec"]
    return (f"generate-document-{spec.spec_hash()}-{params['index']}-{code_version()}-"
            f"{os.path.abspath(params['corpus_dir'])}")


@task(name="generate-document", cache_key_fn=doc_cache_key, persist_result=True,
      task_run_name="generate-document-{index}", retries=1)
def generate_document_task(spec: CorpusSpec, index: int, corpus_dir: str) -> dict:
    done = completed_document(spec, index, corpus_dir)
    if done is not None:
        get_run_logger().info(f"{done.doc_id}: complete and verified on disk, kept")
        return done.model_dump(mode="json")
    rec = generate_document(spec, index, corpus_dir)
    get_run_logger().info(f"{rec.doc_id}: generated, {rec.n_pages} pages, {rec.n_qa} QA, "
                          f"{rec.n_assertions} assertions")
    return rec.model_dump(mode="json")


@flow(name="generate-documents")
def generate_documents(spec: CorpusSpec, indices: list[int], corpus_dir: str) -> list[dict]:
    logger = get_run_logger()
    done = {i for i in indices if completed_document(spec, i, corpus_dir) is not None}
    logger.info(f"{len(done)} of {len(indices)} documents already complete; generating {len(indices) - len(done)}")
    futures = [generate_document_task.with_options(refresh_cache=i not in done).submit(spec, i, corpus_dir)
               for i in indices]
    progress = publish_progress(None, 0, len(futures))
    if _progress_hook is not None:
        _progress_hook(0, len(futures), None)
    records = []
    for n, fut in enumerate(futures, start=1):
        records.append(fut.result())
        progress = publish_progress(progress, n, len(futures))
        if _progress_hook is not None:
            _progress_hook(n, len(futures), DocRecord.model_validate(records[-1]))
    return records


@flow(name="generate-corpus")
def generate_corpus_flow(seed: int = 0, n_docs: int | None = None, profile: str = "demo",
                         out: str | None = None, spec: dict | None = None, only: list[int] | None = None,
                         workers: int = 2, runner: str = "process", dask_address: str | None = None,
                         force: bool = False) -> dict:
    p = GenerateParams(seed=seed, n_docs=n_docs, profile=profile, out=out, spec=spec, only=only,
                       workers=workers, runner=runner, dask_address=dask_address, force=force)
    cspec = p.corpus_spec()
    out_dir = p.out or default_corpus_dir(cspec)
    indices = doc_indices(cspec, p.only)
    prepare_corpus_dir(out_dir, cspec, force=p.force)
    task_runner = make_task_runner(p.runner, p.workers, p.dask_address)
    records = generate_documents.with_options(task_runner=task_runner)(cspec, indices, out_dir)
    recs = [DocRecord.model_validate(r) for r in records]
    if p.only is not None:
        return {"documents": [r.doc_id for r in recs]}
    manifest = write_corpus(out_dir, cspec, recs, code_version())
    publish_corpus_artifacts(out_dir, manifest)
    get_run_logger().info(f"corpus written to {out_dir}: {manifest.stats['documents']} documents, "
                          f"{manifest.stats['pages']} pages, {manifest.stats['qa_pairs']} QA")
    return manifest.stats


def run_generate(spec: CorpusSpec, out: str | os.PathLike[str], workers: int = 1, only: Iterable[int] | None = None,
                 force: bool = False, runner: Runner = "process", dask_address: str | None = None, progress=None):
    """Run ``generate-corpus`` for a spec; returns the corpus stats (or, with ``only``, the doc ids)."""
    global _progress_hook
    doc_indices(spec, only)  # validate before any server starts
    _progress_hook = progress
    try:
        with prefect_api():
            return generate_corpus_flow(spec=spec.model_dump(mode="json"), out=str(out), workers=workers,
                                        only=list(only) if only is not None else None, force=force,
                                        runner=runner, dask_address=dask_address)
    finally:
        _progress_hook = None
