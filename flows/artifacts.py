"""Prefect artifacts for runs: corpus stats table, run summary, progress."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from prefect.artifacts import (
    create_markdown_artifact,
    create_progress_artifact,
    create_table_artifact,
    update_progress_artifact,
)

from synthdocqa.corpus.store import (
    ASSERTIONS_TABLE,
    DOCS_DIR,
    MANIFEST,
    QA_FILE,
    QA_TABLE,
    REPORT_FILE,
    CorpusManifest,
)


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
          f"- manifest: `{root / MANIFEST}`",
          f"- QA: `{root / QA_TABLE}`, `{root / QA_FILE}`",
          f"- assertions: `{root / ASSERTIONS_TABLE}`",
          f"- documents: `{root / DOCS_DIR}`", "",
          "Check it with `synthdocqa verify` and rebuild it bit for bit with `synthdocqa reproduce`."]
    create_markdown_artifact(key="corpus-summary", markdown="\n".join(md), description="generate-corpus run")
    write_legibility_tables(out)  # before the report, which shows them
    publish_report_artifact(out, manifest)  # <out>/report.html + a markdown artifact with its key figures


def write_legibility_tables(out: str | os.PathLike[str]) -> dict | None:
    """The legibility tables from the readings generation recorded on the evidence (no OCR here), so every
    corpus carries them. A view: a failure is logged, not raised; a corpus whose scans were not read (no
    Tesseract where it was generated) says so."""
    from prefect import get_run_logger

    from synthdocqa.corpus.views.legibility import LegibilityError, measure_legibility

    try:
        return measure_legibility(out, fresh=False)
    except LegibilityError as err:
        get_run_logger().warning(f"legibility tables not written: {err}")
    except Exception as err:  # noqa: BLE001 - the corpus is written; a view failure must not fail the run
        get_run_logger().warning(f"legibility tables not written: {err.__class__.__name__}: {err}")
    return None


def publish_report_artifact(out: str | os.PathLike[str], manifest: Any) -> str | None:
    """Write ``<corpus>/report.html`` (kept when the corpus did not change) and a markdown artifact with its
    path and key figures.

    Called at the end of ``generate-corpus``. The report is a view, but a run whose report could not be written
    (a full disk, a folder made read-only) did not do what it was asked: an ``OSError`` fails the run, naming the
    file, so the command exits 2; any other failure of the drawing is logged.
    """
    from prefect import get_run_logger

    from synthdocqa.corpus.views.report import write_report

    logger = get_run_logger()
    path = Path(out).resolve() / REPORT_FILE
    try:
        info = write_report(out, path, reuse=True)  # an unchanged corpus keeps its report (a rerun)
    except OSError:
        raise
    except Exception as err:  # noqa: BLE001 - the corpus is written; a drawing failure must not fail the run
        logger.warning(f"corpus report not written: {err.__class__.__name__}: {err}")
        return None
    s = manifest.stats
    elements = ", ".join(f"{k} {v}" for k, v in s["qa_by_element"].items())
    tiers = ", ".join(f"{k} {v}" for k, v in s["by_tier"].items())
    md = "\n".join([
        f"# Corpus report `{manifest.name}`", "",
        f"Open `{path}` in a browser ({info['bytes'] / 1e6:.1f} MB, self-contained).", "",
        "| figure | value |", "|---|---|",
        f"| documents | {s['documents']} |", f"| pages | {s['pages']} |", f"| QA pairs | {s['qa_pairs']} |",
        f"| assertions | {s['assertions']} |", f"| QA per page | {s['qa_per_page']} |",
        f"| assertions per QA | {s['assertions_per_qa']} |", f"| QA by element | {elements} |",
        f"| documents by tier | {tiers} |", "",
        "The corpus did not change since the report was drawn: it was kept." if info["reused"] else
        f"Gallery: {', '.join(info['gallery'])}; contact sheet: {info['contact_sheet'][0]} page "
        f"{info['contact_sheet'][1]}."])
    create_markdown_artifact(key="corpus-report", markdown=md, description=f"report of {manifest.name}")
    return str(path)
