"""End-to-end entry points shared by the CLI and the Prefect flow: simulate, and load -> fit -> report."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import yaml
from pydantic import BaseModel, ValidationError

from synthdocqa.ir.base import describe_validation_error
from synthdocqa.ir.rng import Rng

from .analysis import AnalysisOptions, analyze
from .loaders import LoadedRatings, OsceInputError, read_ratings, write_table
from .report import render_report
from .schema import AnalysisResult, Taxonomy
from .simulate import SimulationConfig, make_unbalanced, simulate_study

PRESETS = {
    "study": {},  # 5 responders x 17 raters x 88 questions: 7,480 scores per sentence-level metric
    "small": {"utterances_per_case": (6, 6, 5), "n_raters": 5},
}


class RunSummary(BaseModel):
    out_dir: str
    n_scores: int
    metrics: list[str]
    significant: int
    contrasts: int
    refits: int = 0
    unconfirmed: int = 0
    exclusions: list[str] = []
    input_notes: list[str] = []
    files: dict[str, str]


def load_taxonomy(path: str | os.PathLike[str] | None) -> Taxonomy:
    """A Taxonomy from JSON/YAML (fields as in ``schema.Taxonomy``); defaults when ``path`` is None."""
    if path is None:
        return Taxonomy()
    p = Path(path)
    try:
        data = yaml.safe_load(p.read_text()) if p.suffix.lower() in (".yaml", ".yml") else json.loads(p.read_text())
        return Taxonomy.model_validate(data or {})
    except ValidationError as err:  # names the field: "linguistic_froms: Extra inputs are not permitted"
        raise OsceInputError(str(p), [f"invalid taxonomy: {describe_validation_error(err)}"]) from None
    except (OSError, ValueError, yaml.YAMLError) as err:
        raise OsceInputError(str(p), [f"invalid taxonomy: {str(err).splitlines()[0]}"]) from None


def simulate_to_files(seed: int, out: str | os.PathLike[str], preset: str = "study",
                      dialogues: str | os.PathLike[str] | None = None,
                      truth: str | os.PathLike[str] | None = None,
                      taxonomy: Taxonomy | None = None, unbalanced: bool = False) -> dict[str, int]:
    """Simulate one study from ``seed`` and write ratings (+ dialogues, planted contrasts) atomically.

    ``unbalanced``: one rater scores only the first case and 5% of the other scores are missing."""
    if preset not in PRESETS:
        raise OsceInputError("preset", [f"unknown preset {preset!r} (known: {', '.join(PRESETS)})"])
    cfg = SimulationConfig(taxonomy=taxonomy or Taxonomy(), **PRESETS[preset])
    root = Rng(seed).fork("osce-sim")
    study = simulate_study(cfg, root)
    if unbalanced:
        study = study.model_copy(update={"ratings": make_unbalanced(study.ratings, root.fork("unbalanced"))})
    write_table(study.ratings, out)
    if dialogues is not None:
        write_table(study.dialogues, dialogues)
    if truth is not None:
        write_table(study.truth, truth)
    return {"scores": len(study.ratings), "dialogue_turns": len(study.dialogues), "planted": len(study.truth)}


def analyze_file(ratings: str | os.PathLike[str], out_dir: str | os.PathLike[str], *,
                 taxonomy: Taxonomy | None = None, options: AnalysisOptions | None = None,
                 rubric: pd.DataFrame | None = None, judge: pd.DataFrame | None = None,
                 loaded: LoadedRatings | None = None,
                 encoding: str | None = None, columns: dict[str, str] | None = None,
                 sheet: str | None = None,
                 progress: Callable[[int, int, str], None] | None = None) -> tuple[RunSummary, AnalysisResult]:
    """Read, validate, fit every metric, write the report; nothing is written unless all of it succeeds. ``judge``
    (the LLM rubric judge's scores, a ratings table) adds the judge's responder gaps beside the raters'."""
    tax = taxonomy or Taxonomy()
    got = loaded or read_ratings(ratings, tax, encoding=encoding, columns=columns, sheet=sheet)
    result = analyze(got.table, tax, options, progress=progress)
    if not result.metrics:
        raise OsceInputError(str(ratings), ["nothing to analyse: " + "; ".join(result.exclusions)])
    gaps = None
    if judge is not None:
        from .rubric import judge_gaps

        gaps = judge_gaps(judge, result, tax)
    out = render_report(result, out_dir, rubric=rubric, judge_gaps=gaps, ratings=got.table)
    files = {k: str(out / v) for k, v in (("markdown", "report.md"), ("html", "report.html"), ("json", "analysis.json"))}
    read = got.read
    how = [f"read as {read.format}" + (f", encoding {read.encoding}" + (" (detected)" if read.encoding_detected else "")
                                       if read.encoding else "") + (f", sheet {read.sheet}" if read.sheet else "")]
    return RunSummary(
        out_dir=str(out), n_scores=result.n_scores, metrics=result.metrics,
        significant=sum(1 for c in result.main if c.significant), contrasts=len(result.main),
        refits=sum(1 for f in result.fits if f.diagnostics.refit),
        unconfirmed=sum(1 for f in result.fits if not f.diagnostics.converged),
        exclusions=result.exclusions, input_notes=how + got.notes, files=files,
    ), result
