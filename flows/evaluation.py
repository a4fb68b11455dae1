"""``evaluation-batch``: a scheduled judge run over a corpus regenerated (or reused) from its seed.

    corpus for (profile, seed, n_docs) -- reuse if complete and verified, else generate-corpus
      -> each configured judge flow (label-hallucinations, osce-analysis) -> dated report

The report folder is ``<out>/<scheduled date>/<corpus name>-seed<S>-n<N>-<batch key>``, the batch key a
hash of everything that decides the results (the corpus spec, the corpus folder, the judges and their
inputs), so two different batches on one day never write into the same folder and a retried run writes
into its own.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
from typing import Literal

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from pydantic import BaseModel, ConfigDict, Field

from corpus.store import default_corpus_dir
from corpus.verify import verify_corpus
from flows.errors import RunFailed, failing_in_one_line
from flows.generate import generate_corpus_flow
from flows.runtime import MAX_WORKERS
from ir.files import atomic_write_text
from ir.spec import spec_for_profile
from ir.vocab import ProfileName

Judge = Literal["hallucination", "osce"]


class EvaluationParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    seed: int = Field(default=0, ge=0)
    profile: ProfileName = "demo"
    n_docs: int | None = Field(default=None, ge=1)
    corpus_dir: str | None = None
    judges: list[Judge] = Field(default_factory=list, description="judge flows to run; empty: corpus only")
    judges_config: str | None = Field(default=None, description="judges.yaml for label-hallucinations")
    answers: str | None = Field(default=None, description="system-under-test answers file keyed by QA id")
    osce_ratings: str | None = Field(default=None, description="ratings file for osce-analysis")
    max_items: int = Field(default=0, ge=0, description="label at most this many items, and put at most this "
                                                        "many questions to the system under test (0: all)")
    out: str = "out/evaluations"
    workers: int = Field(default=2, ge=1, le=MAX_WORKERS)

    def batch_key(self, spec_hash: str) -> str:
        """12 hex digits over what decides the results (not ``out`` or ``workers``)."""
        import hashlib

        what = {"spec_hash": spec_hash, "corpus_dir": self.corpus_dir, "judges": sorted(self.judges),
                "judges_config": self.judges_config, "answers": self.answers, "osce_ratings": self.osce_ratings,
                **({"max_items": self.max_items} if self.max_items else {})}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def _run_date() -> str:
    """The scheduled date of this run (so a retried run writes into the same folder)."""
    from prefect.runtime import flow_run

    start = flow_run.scheduled_start_time
    return (start or dt.datetime.now(dt.UTC)).strftime("%Y-%m-%d")


@flow(name="evaluation-batch")
def evaluation_batch_flow(seed: int = 0, profile: str = "demo", n_docs: int | None = None,
                          corpus_dir: str | None = None, judges: list[str] | None = None,
                          judges_config: str | None = None, answers: str | None = None,
                          osce_ratings: str | None = None, out: str = "out/evaluations", workers: int = 2,
                          max_items: int = 0) -> dict:
    """Reuse or generate the corpus, run the judges, write the batch's report folder (expected failures: one
    line)."""
    with failing_in_one_line():
        p = EvaluationParams(seed=seed, profile=profile, n_docs=n_docs, corpus_dir=corpus_dir, judges=judges or [],
                             judges_config=judges_config, answers=answers, osce_ratings=osce_ratings, out=out,
                             workers=workers, max_items=max_items)
        logger = get_run_logger()
        spec = spec_for_profile(p.profile, p.seed, p.n_docs)
        cdir = os.path.abspath(p.corpus_dir or default_corpus_dir(spec))  # logs, artifact and evaluation.json
        if verify_corpus(cdir) == []:  # complete (manifest written) and verified
            logger.info(f"reusing verified corpus {cdir}")
            reused = True
        else:
            generate_corpus_flow(spec=spec.model_dump(mode="json"), out=cdir, workers=p.workers)
            reused = False
        batch = f"{spec.name}-seed{spec.seed}-n{spec.n_docs}-{p.batch_key(spec.spec_hash())}"
        day_dir = Path(p.out).absolute() / _run_date() / batch
        results: dict[str, dict] = {}
        if "hallucination" in p.judges:
            from flows.hallucination_flow import label_hallucinations

            results["hallucination"] = label_hallucinations(out=str(day_dir / "hallucination"), corpus=cdir,
                                                            judges=p.judges_config, answers=p.answers, seed=p.seed,
                                                            max_items=p.max_items)
        if "osce" in p.judges:
            if not p.osce_ratings:
                raise RunFailed("judge 'osce' needs osce_ratings (a ratings file)")
            from flows.osce_flow import osce_analysis

            results["osce"] = {"report": osce_analysis(ratings=p.osce_ratings, out_dir=str(day_dir / "osce"))}
        summary = {"date": _run_date(), "corpus_dir": cdir, "corpus_reused": reused, "seed": spec.seed,
                   "profile": p.profile, "n_docs": spec.n_docs, "judges": p.judges, "batch_key": day_dir.name[-12:],
                   "results": results}
        day_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(day_dir / "evaluation.json", json.dumps(summary, indent=1, sort_keys=True, default=str) + "\n")
        lines = [f"# Evaluation batch {summary['date']}", "",
                 f"corpus `{cdir}` ({'reused' if reused else 'generated'}), seed {spec.seed}, profile {p.profile}", "",
                 f"judges: {', '.join(p.judges) or 'none (corpus only)'}", "", f"report folder: `{day_dir}`"]
        atomic_write_text(day_dir / "README.md", "\n".join(lines) + "\n")
    create_markdown_artifact(key="evaluation-batch", markdown="\n".join(lines))
    return summary
