"""Prefect artifacts for runs: corpus stats table, run summary, progress."""

from __future__ import annotations

from pathlib import Path

from prefect.artifacts import (
    create_markdown_artifact,
    create_progress_artifact,
    create_table_artifact,
    update_progress_artifact,
)

from ir.store import CorpusManifest


def publish_progress(artifact_id, done: int, total: int):
    """Create (``artifact_id=None``) or update the run's progress artifact; returns its id."""
    pct = 100.0 * done / total if total else 100.0
    if artifact_id is None:
        return create_progress_artifact(progress=pct, description=f"documents generated: {done}/{total}")
    update_progress_artifact(artifact_id=artifact_id, progress=pct,
                             description=f"documents generated: {done}/{total}")
    return artifact_id


def _rows(title: str, counts: dict) -> list[dict]:
    return [{"breakdown": title, "key": str(k), "count": v} for k, v in counts.items()]


def publish_corpus_artifacts(out: str, manifest: CorpusManifest) -> None:
    s = manifest.stats
    headline = [{"metric": k, "value": s[k]} for k in
                ("documents", "pages", "qa_pairs", "assertions", "pages_per_doc", "qa_per_page",
                 "assertions_per_qa", "domains")]
    create_table_artifact(key="corpus-stats", table=headline, description=f"Corpus {manifest.name} at {out}")
    breakdown = (_rows("qa type", s["qa_by_type"]) + _rows("element", s["qa_by_element"])
                 + _rows("tier", s["by_tier"]) + _rows("recipe", s["by_recipe"]))
    create_table_artifact(key="corpus-breakdown", table=breakdown, description="QA and documents by category")
    root = Path(out).resolve()
    md = [f"# Corpus `{manifest.name}`", "",
          f"seed **{manifest.spec.seed}**, {s['documents']} documents, {s['pages']} pages, "
          f"{s['qa_pairs']} QA pairs, {s['assertions']} assertions; code `{manifest.code_version}`.", "",
          f"- manifest: `{root / 'corpus.json'}`",
          f"- QA: `{root / 'qa.parquet'}`, `{root / 'qa.jsonl'}`",
          f"- assertions: `{root / 'assertions.parquet'}`",
          f"- documents: `{root / 'docs'}`", "",
          "Check it with `synthdocqa verify` and rebuild it bit for bit with `synthdocqa reproduce`."]
    create_markdown_artifact(key="corpus-summary", markdown="\n".join(md), description="generate-corpus run")
    from flows.report import publish_report_artifact

    publish_report_artifact(out, manifest)  # <out>/report.html + a markdown artifact with its key figures
