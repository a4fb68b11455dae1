"""Prefect flow ``label-hallucinations``: a thin wrapper over ``judges.hallucination.pipeline``.

It opens the corpus (the judges take its reader, not a folder), resolves Prefect Secret blocks named in
judges.yaml into API keys (passed to the library, never logged or written) and publishes the report
tables as Prefect artifacts.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from corpus.store import open_corpus
from judges.hallucination.pipeline import JudgesConfig, load_judges_config, prepare_items, run_labeling


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


@task(name="prepare-items")
def prepare_task(cfg: JudgesConfig, corpus, items, answers, seed, per_qa, answerer_key):
    source = open_corpus(corpus, checked=False) if corpus is not None else None
    return prepare_items(cfg, source=source, items_path=items, answers=answers, seed=seed, per_qa=per_qa,
                         answerer_key=answerer_key)


@task(name="label-and-report")
def label_task(items, cfg: JudgesConfig, out: str, seed: int, keys, header):
    return run_labeling(items, cfg, out, seed=seed, api_keys=keys, header=header)


@flow(name="label-hallucinations")
def label_hallucinations(out: str, corpus: str | None = None, items: str | None = None, judges: str | None = None,
                         answers: str | None = None, seed: int = 0, per_qa: int = 1) -> dict:
    """Label answers under both criteria and publish the report; returns the run summary."""
    cfg = load_judges_config(judges)
    keys, answerer_key = resolve_secret_keys(cfg)
    its, source = prepare_task(cfg, corpus, items, answers, seed, per_qa, answerer_key)
    summary, result = label_task(its, cfg, out, seed, keys, [f"Items: {source}."])
    create_markdown_artifact(key="hallucination-report", markdown=Path(summary.files["markdown"]).read_text(),
                             description="Hallucination labeling report")
    if result.mismatch:
        create_table_artifact(key="hallucination-criterion-mismatch", table=[
            {"labeler": m.labeler, "kappa_faithfulness": round(m.kappa_faithfulness.value, 4),
             "kappa_factual": round(m.kappa_factual.value, 4)} for m in result.mismatch])
    return summary.model_dump()
