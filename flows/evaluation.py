"""``evaluation-batch``: a scheduled judge run over a corpus regenerated (or reused) from its seed.

    corpus for (profile, seed, n_docs) -- reuse if complete and verified, else generate-corpus
      -> each configured judge flow (label-hallucinations, osce-analysis) -> dated report

The ``osce-platform`` judge reads no corpus (a batch of it alone skips the corpus step): it scores the practice
platform's new consented, ended encounters with the LLM rubric judge (``judges.osce.platform.nightly``) into
``<report folder>/osce-platform/``, and moves its cursor (``<out>/osce-platform-state.json``) only after the
report folder is written, so a failed run scores the same encounters again.

The report folder is ``<out>/<scheduled date>/<corpus name>-seed<S>-n<N>-<batch key>``, the batch key a
hash of everything that decides the results (the corpus spec, the corpus folder, the judges and their
inputs, and for ``osce-platform`` the state of its cursor), so two different batches on one day never write into
the same folder and a retried run writes into its own.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from prefect import flow, get_run_logger
from prefect.artifacts import create_markdown_artifact
from pydantic import BaseModel, ConfigDict, Field

from synthdocqa.corpus.store import default_corpus_dir
from synthdocqa.corpus.verify import verify_corpus
from synthdocqa.flows.errors import RunFailed, failing_in_one_line
from synthdocqa.flows.generate import generate_corpus_flow
from synthdocqa.flows.runtime import MAX_WORKERS
from synthdocqa.ir.files import atomic_write_text
from synthdocqa.ir.spec import spec_for_profile
from synthdocqa.ir.vocab import ProfileName

Judge = Literal["hallucination", "osce", "osce-platform"]
CORPUS_FREE_JUDGES = frozenset({"osce-platform"})
"""Judges that read no corpus: a batch of only these does not reuse or generate one."""


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
    platform_db: str | None = Field(default=None, description="osce-platform: the practice platform's database URL "
                                                              "or SQLite file")
    rubric_endpoint: str | None = Field(default=None, description="osce-platform: the rubric judge's endpoint YAML")
    platform_cases: str | None = Field(default=None, description="osce-platform: the case bank the platform serves "
                                                                 "(default: the shipped cases)")
    max_items: int = Field(default=0, ge=0, description="label at most this many items, and put at most this "
                                                        "many questions to the system under test (0: all)")
    out: str = "out/evaluations"
    workers: int = Field(default=2, ge=1, le=MAX_WORKERS)

    @property
    def needs_corpus(self) -> bool:
        return not self.judges or any(j not in CORPUS_FREE_JUDGES for j in self.judges)

    def batch_key(self, spec_hash: str, platform_state: str | None = None) -> str:
        """12 hex digits over what decides the results (not ``out`` or ``workers``); with ``osce-platform``, also
        its inputs and the state of its cursor (``platform_state``), which decides which encounters are new."""
        import hashlib

        what = {"spec_hash": spec_hash, "corpus_dir": self.corpus_dir, "judges": sorted(self.judges),
                "judges_config": self.judges_config, "answers": self.answers, "osce_ratings": self.osce_ratings,
                **({"max_items": self.max_items} if self.max_items else {})}
        if "osce-platform" in self.judges:
            what |= {"platform_db": self.platform_db, "rubric_endpoint": self.rubric_endpoint,
                     "platform_cases": self.platform_cases, "platform_state": platform_state}
        return hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:12]


def _check_platform(p: EvaluationParams) -> None:
    """The osce-platform judge's parameters, before anything runs (its database is opened later)."""
    from synthdocqa.judges.osce.platform.nightly import platform_url
    from synthdocqa.judges.osce.platform.store import PlatformStoreError

    missing = [name for name in ("platform_db", "rubric_endpoint") if not getattr(p, name)]
    if missing:
        raise RunFailed(f"judge 'osce-platform' needs {' and '.join(missing)} (platform_db: the practice platform's "
                        "database URL or SQLite file; rubric_endpoint: the rubric judge's endpoint YAML)")
    try:
        platform_url(p.platform_db)
    except PlatformStoreError as err:
        raise RunFailed(f"osce-platform: {err}") from None
    if not Path(p.rubric_endpoint).is_file():
        raise RunFailed(f"rubric_endpoint {p.rubric_endpoint}: no such file (the rubric judge's endpoint YAML)")


def _rubric_endpoint(path: str):
    """The endpoint YAML as a config and its API key (a Prefect Secret block when it names one), as
    ``osce-collect-analyze``'s ``judge_endpoint``."""
    import yaml

    from synthdocqa.judges.llm import EndpointConfig

    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as err:
        raise RunFailed(f"rubric_endpoint {path}: not YAML ({str(err).splitlines()[0]})") from None
    if not isinstance(raw, dict):
        raise RunFailed(f"rubric_endpoint {path}: expected a mapping (base_url, model, ...)")
    cfg = EndpointConfig.model_validate(raw)
    if cfg.api_key_secret_block:
        from prefect.blocks.system import Secret

        return cfg, cfg.resolve_api_key(str(Secret.load(cfg.api_key_secret_block).get()))
    try:
        return cfg, cfg.resolve_api_key()
    except ValueError as err:  # a named environment variable that is unset (the message names it, never a value)
        raise RunFailed(f"rubric_endpoint {path}: {err}") from None


def _platform_job(p: EvaluationParams, day_dir: Path, state_file: Path):
    """Score the platform's new encounters into ``day_dir/osce-platform`` (the cursor is not moved here)."""
    from synthdocqa.ir.rng import Rng
    from synthdocqa.judges.llm import ChatClient, ResponseCache
    from synthdocqa.judges.osce.case_bank import SHIPPED_CASES, load_case_bank
    from synthdocqa.judges.osce.platform.nightly import (
        CACHE_FILE,
        JUDGE,
        PlatformNightlyError,
        score_new_encounters,
    )
    from synthdocqa.judges.osce.platform.store import PlatformStoreError

    cfg, key = _rubric_endpoint(p.rubric_endpoint)
    cases = load_case_bank(p.platform_cases or SHIPPED_CASES)

    @contextmanager
    def judge() -> Iterator[ChatClient]:
        with ResponseCache(day_dir / CACHE_FILE) as cache, ChatClient(cfg, api_key=key, cache=cache, rng=Rng(0)) as c:
            yield c

    try:
        return score_new_encounters(p.platform_db, day_dir / JUDGE, state_file, judge, cases)
    except (PlatformStoreError, PlatformNightlyError) as err:
        raise RunFailed(f"osce-platform: {' '.join(str(err).split())}") from err


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
                          max_items: int = 0, platform_db: str | None = None, rubric_endpoint: str | None = None,
                          platform_cases: str | None = None) -> dict:
    """Reuse or generate the corpus, run the judges, write the batch's report folder (expected failures: one
    line)."""
    with failing_in_one_line():
        p = EvaluationParams(seed=seed, profile=profile, n_docs=n_docs, corpus_dir=corpus_dir, judges=judges or [],
                             judges_config=judges_config, answers=answers, osce_ratings=osce_ratings, out=out,
                             workers=workers, max_items=max_items, platform_db=platform_db,
                             rubric_endpoint=rubric_endpoint, platform_cases=platform_cases)
        logger = get_run_logger()
        platform_state = None
        if "osce-platform" in p.judges:
            from synthdocqa.judges.osce.platform.nightly import state_path, state_token

            _check_platform(p)
            platform_state = state_path(Path(p.out).absolute())
        spec = spec_for_profile(p.profile, p.seed, p.n_docs)
        cdir: str | None = os.path.abspath(p.corpus_dir or default_corpus_dir(spec))  # logs, artifact, summary
        reused: bool | None = None
        if not p.needs_corpus:
            cdir = None
        elif verify_corpus(cdir) == []:  # complete (manifest written) and verified
            logger.info(f"reusing verified corpus {cdir}")
            reused = True
        else:
            generate_corpus_flow(spec=spec.model_dump(mode="json"), out=cdir, workers=p.workers)
            reused = False
        key = p.batch_key(spec.spec_hash(), state_token(platform_state) if platform_state else None)
        batch = f"{spec.name}-seed{spec.seed}-n{spec.n_docs}-{key}"
        day_dir = Path(p.out).absolute() / _run_date() / batch
        results: dict[str, dict] = {}
        if "hallucination" in p.judges:
            from synthdocqa.flows.hallucination_flow import label_hallucinations

            results["hallucination"] = label_hallucinations(out=str(day_dir / "hallucination"), corpus=cdir,
                                                            judges=p.judges_config, answers=p.answers, seed=p.seed,
                                                            max_items=p.max_items)
        if "osce" in p.judges:
            if not p.osce_ratings:
                raise RunFailed("judge 'osce' needs osce_ratings (a ratings file)")
            from synthdocqa.flows.osce_flow import osce_analysis

            results["osce"] = {"report": osce_analysis(ratings=p.osce_ratings, out_dir=str(day_dir / "osce"))}
        platform = None
        if platform_state is not None:
            platform = _platform_job(p, day_dir, platform_state)
            results["osce-platform"] = platform.summary
            c = platform.summary["counts"]
            logger.info(f"osce-platform: {c['found']} encounters, {c['new']} new, {c['scored']} scored, "
                        f"{c['failed']} failed")
        summary = {"date": _run_date(), "corpus_dir": cdir, "corpus_reused": reused, "seed": spec.seed,
                   "profile": p.profile, "n_docs": spec.n_docs, "judges": p.judges, "batch_key": day_dir.name[-12:],
                   "results": results}
        day_dir.mkdir(parents=True, exist_ok=True)
        atomic_write_text(day_dir / "evaluation.json", json.dumps(summary, indent=1, sort_keys=True, default=str) + "\n")
        corpus_line = (f"corpus `{cdir}` ({'reused' if reused else 'generated'}), seed {spec.seed}, profile {p.profile}"
                       if cdir else "corpus: none (no judge of this batch reads one)")
        lines = [f"# Evaluation batch {summary['date']}", "", corpus_line, "",
                 f"judges: {', '.join(p.judges) or 'none (corpus only)'}", "", f"report folder: `{day_dir}`"]
        if platform is not None:
            lines += ["", *platform.markdown()]
        atomic_write_text(day_dir / "README.md", "\n".join(lines) + "\n")
        if platform is not None:  # only now: a run that failed before scores the same encounters next time
            from synthdocqa.judges.osce.platform.nightly import PlatformNightlyError

            try:
                platform.commit()
            except PlatformNightlyError as err:
                raise RunFailed(f"osce-platform: {err}") from err
    create_markdown_artifact(key="evaluation-batch", markdown="\n".join(lines))
    return summary
