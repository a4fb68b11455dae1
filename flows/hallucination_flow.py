"""Prefect flow ``label-hallucinations``: a thin wrapper over ``judges.hallucination.pipeline``.

It opens the corpus (the judges take its reader, not a folder), resolves Prefect Secret blocks named in
judges.yaml into API keys (passed to the library, never logged or written) and publishes the report
tables as Prefect artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from synthdocqa.corpus.store import open_corpus
from synthdocqa.corpus.verify import check_corpus
from synthdocqa.flows.errors import RunFailed, failing_in_one_line
from synthdocqa.judges.hallucination.pipeline import (
    JudgesConfig,
    load_judges_config,
    prepare_items,
    run_labeling,
)


def resolve_secret_keys(cfg: JudgesConfig) -> tuple[dict[str, str], str | None]:
    """Judge name -> key for judges with ``api_key_secret_block``; and the answerer's key."""
    from prefect.blocks.system import Secret

    def load(name: str) -> str:
        try:
            return str(Secret.load(name).get())
        except ValueError as err:
            raise ValueError(f"Prefect Secret block {name!r} cannot be loaded: {str(err).splitlines()[0]}") from None

    keys = {j.name: load(j.api_key_secret_block) for j in cfg.judges if j.api_key_secret_block}
    answerer = cfg.answerer.api_key_secret_block if cfg.answerer else None
    return keys, (load(answerer) if answerer else None)


def check_verified(corpus: str, no_verify: bool) -> None:
    """Refuse a corpus that does not verify (``corpus.verify.check_corpus``) unless told otherwise."""
    if no_verify:
        return
    problems = check_corpus(corpus)
    if problems:
        raise RunFailed(f"{corpus} does not verify: {problems[0]}; run `synthdocqa verify {corpus}`, or pass "
                        "no_verify=True")


@task(name="prepare-items")
def prepare_task(cfg: JudgesConfig, corpus, items, answers, seed, per_qa, answerer_key, no_verify: bool = False,
                 max_items: int = 0, cache_path: str | None = None):
    source = open_corpus(corpus, checked=not no_verify) if corpus is not None else None
    return prepare_items(cfg, source=source, items_path=items, answers=answers, seed=seed, per_qa=per_qa,
                         answerer_key=answerer_key, max_items=max_items, cache_path=cache_path)


@task(name="label-and-report")
def label_task(items, cfg: JudgesConfig, out: str, seed: int, keys, header):
    return run_labeling(items, cfg, out, seed=seed, api_keys=keys, header=header)


@flow(name="label-hallucinations")
def label_hallucinations(out: str, corpus: str | None = None, items: str | None = None, judges: str | None = None,
                         answers: str | None = None, seed: int = 0, per_qa: int = 1, no_verify: bool = False,
                         max_items: int = 0) -> dict:
    """Label answers under both criteria and publish the report; returns the run summary.

    A ``corpus`` must verify (``corpus.verify.check_corpus``) unless ``no_verify``; expected failures
    (a bad judges.yaml, a corpus that does not verify, an unreadable file) fail the run in one line."""
    out = os.path.abspath(out)  # the summary and the artifact name the folder wherever they are read
    corpus = None if corpus is None else os.path.abspath(corpus)
    with failing_in_one_line():
        try:
            cfg = load_judges_config(judges)
            if corpus is not None:
                check_verified(corpus, no_verify)
            keys, answerer_key = resolve_secret_keys(cfg)
            if max_items < 0:
                raise ValueError(f"max_items must be >= 0, got {max_items}")
            its, source = prepare_task(cfg, corpus, items, answers, seed, per_qa, answerer_key, no_verify,
                                       max_items, str(Path(out) / cfg.cache))
            summary, result = label_task(its, cfg, out, seed, keys, [f"Items: {source}."])
        except ValueError as err:  # the library's way to say "bad input" or "no valid verdict"
            raise RunFailed(" ".join(str(err).split())) from err
    create_markdown_artifact(key="hallucination-report", markdown=Path(summary.files["markdown"]).read_text(),
                             description="Hallucination labeling report")
    if result.mismatch:
        create_table_artifact(key="hallucination-criterion-mismatch", table=[
            {"labeler": m.labeler, "kappa_faithfulness": round(m.kappa_faithfulness.value, 4),
             "kappa_factual": round(m.kappa_factual.value, 4)} for m in result.mismatch])
    return summary.model_dump()
