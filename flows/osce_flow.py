"""Prefect flow ``osce-analysis``: validate ratings, fit each metric as a task, render the report.

Thin over ``judges.osce``: the library does the work, the flow only orders it, runs the per-metric
fits as tasks (so a process/Dask task runner can spread them) and publishes the table as artifacts.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
from prefect import flow, task
from prefect.artifacts import create_markdown_artifact
from prefect.cache_policies import NO_CACHE

from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze
from synthdocqa.judges.osce.columns import parse_mapping
from synthdocqa.judges.osce.loaders import OsceInputError, load_ratings
from synthdocqa.judges.osce.pipeline import load_taxonomy
from synthdocqa.judges.osce.report import render_report
from synthdocqa.judges.osce.schema import AnalysisResult, Taxonomy


@task(name="osce-load-ratings", cache_policy=NO_CACHE)
def load_task(path: str, taxonomy: Taxonomy, encoding: str | None = None, columns: str | None = None) -> pd.DataFrame:
    return load_ratings(path, taxonomy, encoding=encoding, columns=parse_mapping(columns))


@task(name="osce-fit-metric", cache_policy=NO_CACHE)
def fit_task(ratings: pd.DataFrame, taxonomy: Taxonomy, options: AnalysisOptions, metric: str) -> AnalysisResult:
    return analyze(ratings, taxonomy, options, metrics=[metric])


@task(name="osce-report", cache_policy=NO_CACHE)
def report_task(parts: list[AnalysisResult], ratings: pd.DataFrame, taxonomy: Taxonomy, options: AnalysisOptions,
                out_dir: str, rubric: pd.DataFrame | None = None) -> str:
    from synthdocqa.judges.osce.contrasts import adjust

    metrics = [m for p in parts for m in p.metrics]
    if not metrics:
        raise OsceInputError("ratings", ["nothing to analyse: " + "; ".join(x for p in parts for x in p.exclusions)])
    main = adjust([c for p in parts for c in p.main], options.adjust_main, options.alpha)
    ordinal = adjust([c for p in parts for c in p.ordinal], options.adjust_main, options.alpha)
    first = parts[0]
    result = first.model_copy(update={
        "metrics": metrics, "main": main, "ordinal": ordinal,
        "strata": [c for p in parts for c in p.strata], "fits": [f for p in parts for f in p.fits],
        "emms": [e for p in parts for e in p.emms], "exclusions": [x for p in parts for x in p.exclusions],
        "reliability": [r for p in parts for r in p.reliability], "n_scores": int(len(ratings)),
        "ordinal_model": next((p.ordinal_model for p in parts if p.ordinal_model), None),
        "responders": [taxonomy.reference_responder]
        + sorted(r for r in ratings["responder"].unique() if r != taxonomy.reference_responder),
    })
    return str(render_report(result, out_dir, rubric=rubric))


@flow(name="osce-analysis")
def osce_analysis(ratings: str, out_dir: str, taxonomy: str | None = None, adjust: str = "holm",
                  strata: bool = True, backend: str = "lmm", response_effect: str = "auto",
                  ordinal: bool = False, encoding: str | None = None, columns: str | None = None,
                  judge_ratings: str | None = None) -> str:
    """Analyse a ratings file into ``out_dir`` (report.md, report.html, analysis.json, PNGs); with
    ``judge_ratings`` (the LLM rubric judge's scores) the report compares the judge with the raters."""
    out_dir = os.path.abspath(out_dir)  # the returned report folder, wherever it is read
    tax = load_taxonomy(taxonomy)
    options = AnalysisOptions(adjust_main=adjust, stratifiers=("history_category", "linguistic_form") if strata else (),
                              backend=backend, response_effect=response_effect, ordinal=ordinal)
    table = load_task(ratings, tax, encoding, columns)
    metrics = [m for m in tax.metric_names if m in set(table["metric"])]
    futures = [fit_task.submit(table, tax, options, m) for m in metrics]
    parts = [f.result() for f in futures]
    rubric = None
    if judge_ratings:
        from synthdocqa.judges.osce.rubric import judge_agreement

        rubric = judge_agreement(load_task(judge_ratings, tax), table, tax)
    out = report_task(parts, table, tax, options, out_dir, rubric)
    create_markdown_artifact(key="osce-report", markdown=(Path(out) / "report.md").read_text(),
                             description="OSCE/VSP scoring analysis")
    return out
