"""``verify-corpus`` and ``reproduce-corpus`` flows (thin over ``corpus.verify`` and ``corpus.reproduce``)."""

from __future__ import annotations

import os

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from synthdocqa.corpus.reproduce import reproduce_corpus
from synthdocqa.corpus.verify import verify_corpus


@task(name="verify", cache_policy=NO_CACHE)
def verify_task(corpus_dir: str) -> list[str]:
    return verify_corpus(corpus_dir)


@flow(name="verify-corpus")
def verify_corpus_flow(corpus_dir: str) -> dict:
    """Re-check hashes, evidence boxes and derivations; the run fails if anything is wrong."""
    corpus_dir = os.path.abspath(corpus_dir)  # the logs and the artifact name the folder wherever they are read
    problems = verify_task(corpus_dir)
    lines = [f"# verify `{corpus_dir}`", "", "**OK**" if not problems else f"**{len(problems)} problem(s)**", ""]
    lines += [f"- {p}" for p in problems[:200]]
    create_markdown_artifact(key="verify-corpus", markdown="\n".join(lines))
    if problems:
        raise RuntimeError(f"{corpus_dir}: {len(problems)} problem(s), first: {problems[0]}")
    get_run_logger().info(f"{corpus_dir}: verified")
    return {"corpus_dir": corpus_dir, "problems": 0}


@task(name="reproduce", cache_policy=NO_CACHE)
def reproduce_task(corpus_dir: str, sample: int | None) -> tuple[list[str], list[str]]:
    return reproduce_corpus(corpus_dir, sample=sample)


@flow(name="reproduce-corpus")
def reproduce_corpus_flow(corpus_dir: str, sample: int | None = None) -> dict:
    """Regenerate documents from the manifest's seed and compare bytes; fails on any difference."""
    corpus_dir = os.path.abspath(corpus_dir)
    checked, diffs = reproduce_task(corpus_dir, sample)
    create_markdown_artifact(key="reproduce-corpus", markdown="\n".join(
        [f"# reproduce `{corpus_dir}`", "", f"{len(checked)} document(s) regenerated, {len(diffs)} difference(s)",
         ""] + [f"- {d}" for d in diffs[:200]]))
    if diffs:
        raise RuntimeError(f"{corpus_dir}: {len(diffs)} byte difference(s), first: {diffs[0]}")
    return {"documents": checked, "differences": 0}
