"""Contracts for the VSP/OSCE dialogue scoring analysis: taxonomy, ratings, dialogues, results.

Long format: one row per (rater, rated unit, metric). A rated unit is a VSP utterance (sentence
level: one answer of one responder to one scripted student question) or a whole encounter (encounter
level: one responder's dialogue in one case). The *item* is what all responders share: the scripted
question ``(case, utterance_id)`` for sentence-level metrics, the ``case`` for encounter-level ones.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Level = Literal["sentence", "encounter"]

#: Default history-taking categories (Calgary-Cambridge / OSCE history checklists): 11 strata.
DEFAULT_HISTORY_CATEGORIES: tuple[str, ...] = (
    "chief_complaint",
    "history_of_present_illness",
    "past_medical_history",
    "medications",
    "allergies",
    "family_history",
    "social_history",
    "sexual_history",
    "review_of_systems",
    "ideas_concerns_expectations",
    "other",
)

#: Linguistic form of the student's question.
DEFAULT_LINGUISTIC_FORMS: tuple[str, ...] = ("open", "focused", "closed")


class MetricSpec(BaseModel):
    """One rated metric: its level, Likert scale and the rubric text shown to raters and LLM judges."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    level: Level
    scale_min: int = 1
    scale_max: int = 5
    description: str = ""

    @property
    def uses_case_script(self) -> bool:
        """The rubric asks the judge to compare with the case script (then rubric scoring needs one)."""
        return "case script" in self.description.lower()

    @model_validator(mode="after")
    def _scale(self) -> MetricSpec:
        if self.scale_max <= self.scale_min:
            raise ValueError(f"metric {self.name}: scale_max must exceed scale_min")
        return self


def _m(name: str, level: Level, text: str) -> MetricSpec:
    return MetricSpec(name=name, level=level, description=text)


#: Sentence level (one VSP answer): is it right, does it answer, does it sound like a patient.
DEFAULT_SENTENCE_METRICS: tuple[MetricSpec, ...] = (
    _m("correctness", "sentence", "The answer agrees with the case script; nothing contradicts it."),
    _m("relevance", "sentence", "The answer addresses exactly what the student asked, no more, no less."),
    _m("naturalness", "sentence", "The answer sounds like a real patient: lay wording, plausible affect."),
)

#: Encounter level (whole dialogue), the six metrics of the reference study.
DEFAULT_ENCOUNTER_METRICS: tuple[MetricSpec, ...] = (
    _m("comprehensibility", "encounter", "Answers are easy to understand for a medical student."),
    _m("consistency", "encounter", "Answers never contradict each other across the dialogue."),
    _m("hallucination_freeness", "encounter", "No symptom, history or fact is invented beyond the case script."),
    _m("engagement", "encounter", "The patient behaves as an engaged, believable conversation partner."),
    _m("accuracy", "encounter", "Medical content across the dialogue matches the case script."),
    _m("overall", "encounter", "Overall quality as a standardized patient for OSCE history taking."),
)


class Taxonomy(BaseModel):
    """Allowed strata, metrics and the reference responder; every loader validates against it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    history_categories: tuple[str, ...] = DEFAULT_HISTORY_CATEGORIES
    linguistic_forms: tuple[str, ...] = DEFAULT_LINGUISTIC_FORMS
    metrics: tuple[MetricSpec, ...] = DEFAULT_SENTENCE_METRICS + DEFAULT_ENCOUNTER_METRICS
    reference_responder: str = Field(default="human", description="treatment-coding baseline")

    @model_validator(mode="after")
    def _unique(self) -> Taxonomy:
        for field in ("history_categories", "linguistic_forms"):
            values = getattr(self, field)
            if len(set(values)) != len(values) or not values:
                raise ValueError(f"taxonomy.{field} must be non-empty and unique")
        names = [m.name for m in self.metrics]
        if len(set(names)) != len(names) or not names:
            raise ValueError("taxonomy.metrics must be non-empty with unique names")
        return self

    def metric(self, name: str) -> MetricSpec:
        for m in self.metrics:
            if m.name == name:
                return m
        raise KeyError(name)

    @property
    def metric_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.metrics)


#: Columns of the long-format ratings table (utterance columns empty for encounter-level rows).
RATING_COLUMNS: tuple[str, ...] = (
    "case", "encounter", "responder", "utterance_id", "turn", "history_category",
    "linguistic_form", "rater", "level", "metric", "score",
)
REQUIRED_RATING_COLUMNS: tuple[str, ...] = ("case", "encounter", "responder", "rater", "level", "metric", "score")

#: Columns of the dialogues table: one row per turn.
DIALOGUE_COLUMNS: tuple[str, ...] = (
    "case", "encounter", "responder", "turn", "utterance_id", "history_category",
    "linguistic_form", "question", "response",
)


class Rating(BaseModel):
    """One score (documentation of a ratings row; tables are validated column-wise by the loader)."""

    model_config = ConfigDict(frozen=True)

    case: str
    encounter: str
    responder: str
    utterance_id: str | None = None
    turn: int | None = Field(default=None, ge=0)
    history_category: str | None = None
    linguistic_form: str | None = None
    rater: str
    level: Level
    metric: str
    score: int


class Turn(BaseModel):
    """One dialogue turn: the student's question and the responder's (VSP's) answer."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=0)
    utterance_id: str
    question: str
    response: str
    history_category: str | None = None
    linguistic_form: str | None = None


class Dialogue(BaseModel):
    """One encounter: a responder answering a case's scripted questions."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    case: str
    encounter: str
    responder: str
    turns: tuple[Turn, ...]


# ----------------------------------------------------------------------------- analysis results


class FitDiagnostics(BaseModel):
    """How a mixed model was obtained and what went wrong on the way (surfaced in the report)."""

    method: str = Field(description="engine/optimizer that produced the kept fit, or 'ols_cluster' fallback")
    attempts: list[str] = Field(default_factory=list, description="'optimizer: outcome' for every run")
    converged: bool = Field(description="the kept optimum was reached by >= 2 optimizer runs (ours), or the "
                                        "engine reported convergence without warnings (statsmodels, R)")
    refit: bool = Field(default=False, description="the first attempt was not the one kept")
    criterion: str | None = Field(default=None, description="'REML' or 'ML'")
    loglik: float | None = Field(default=None, description="log-likelihood (REML or ML) at the kept optimum")
    criterion_spread: float | None = Field(
        default=None, description="largest -2 log-likelihood difference between the optimizer runs")
    singular: bool = False
    boundary: list[str] = Field(default_factory=list, description="variance components at ~0")
    zeroed_fixed_effects: bool = Field(
        default=False, description="statsmodels #10239 signature seen on some attempt (all FE exactly 0)"
    )
    dropped_columns: list[str] = Field(default_factory=list, description="aliased fixed-effect columns dropped")
    warnings: list[str] = Field(default_factory=list)
    variance_components: dict[str, float] = Field(default_factory=dict)
    residual_variance: float | None = None
    n_obs: int
    seconds: float
    model_cpu_seconds: float | None = Field(default=None, description="CPU time of the model fit alone")


class Coefficient(BaseModel):
    """One fixed effect (R's name) with its t test."""

    name: str
    estimate: float
    se: float
    df: float | None = Field(default=None, description="Satterthwaite df; None = z-based")
    t: float
    p_value: float


class ResponderEstimate(BaseModel):
    """An estimate about one responder on one metric (within one stratum when stratified), with its
    standard error: what contrasts and marginal means share."""

    metric: str
    responder: str
    stratifier: str | None = None
    stratum: str | None = None
    estimate: float
    se: float


class Contrast(ResponderEstimate):
    """Difference of one responder from the reference on one metric (optionally within a stratum)."""

    estimate: float = Field(description="Likert points, responder minus reference (latent scale: ordinal model)")
    ci_low: float
    ci_high: float
    p_value: float
    df: float | None = Field(default=None, description="Satterthwaite df; None = z-based")
    p_adjusted: float | None = None
    adjust_method: str | None = None
    significant: bool | None = None
    n_obs: int


class MarginalMean(ResponderEstimate):
    """emmeans-style estimated marginal mean of one responder (within a stratum when stratified)."""

    df: float | None = None
    ci_low: float
    ci_high: float
    n_obs: int


class ReliabilityRow(BaseModel):
    """ICC from the two-way random-effects model on every rating and ordinal alpha over pairable units, each
    naming what it used; a statistic the design cannot give is None (never NaN)."""

    metric: str
    n_units: int = Field(description="rated units in the data")
    n_raters: int = Field(description="raters in the data")
    icc_units: int = Field(default=0, description="units the ICC used (all)")
    icc_raters: int = Field(default=0, description="raters the ICC used (all)")
    icc_excluded_raters: list[str] = Field(default_factory=list, description="raters left out (none: the model "
                                                                           "uses incomplete units)")
    icc_k: float | None = Field(default=None, description="k of ICC(2,k): mean ratings per unit")
    icc_method: str = Field(default="", description="how the ICC was estimated, or why it could not be")
    icc2_1: float | None
    icc2_k: float | None
    alpha_units: int = Field(default=0, description="units with >= 2 ratings (pairable) that alpha used")
    alpha_ordinal: float | None


class BootstrapCheck(BaseModel):
    """A main-model contrast's t-based CI beside its parametric bootstrap-t CI (the fitted model re-simulated and
    refitted ``draws`` times): a check of the Satterthwaite df on small designs."""

    metric: str
    responder: str
    estimate: float
    ci_low: float = Field(description="the reported (Satterthwaite t) CI")
    ci_high: float
    boot_ci_low: float = Field(description="parametric bootstrap-t CI: estimate - quantiles of t* x SE")
    boot_ci_high: float
    draws: int
    wider: bool = Field(description="the bootstrap CI is more than 10% wider than the reported one: its p-value is "
                                    "optimistic on this design")


class MetricFit(BaseModel):
    metric: str
    level: Level
    stratifier: str | None = None
    unit_of_inference: str | None = Field(
        default=None, description="what the contrasts' df rest on: the dialogues or answers (with their random "
                                  "effect) or the single ratings (without it)")
    response_effect_test: str | None = Field(
        default=None, description="sentence level: the likelihood-ratio test of the answer effect that chose the model")
    contrasts: list[Contrast]
    bootstrap: list[BootstrapCheck] = Field(default_factory=list, description="--bootstrap N: main models only")
    coefficients: list[Coefficient] = Field(default_factory=list)
    emms: list[MarginalMean] = Field(default_factory=list)
    diagnostics: FitDiagnostics


class AnalysisResult(BaseModel):
    """Everything the report renders; also written as ``analysis.json``."""

    reference: str
    responders: list[str]
    metrics: list[str]
    adjust_main: str
    adjust_strata: str
    confidence: float
    main: list[Contrast]
    strata: list[Contrast]
    fits: list[MetricFit]
    reliability: list[ReliabilityRow]
    model_formula: str
    n_scores: int
    backend: str = "lmm"
    emms: list[MarginalMean] = Field(default_factory=list, description="main-model marginal means")
    exclusions: list[str] = Field(default_factory=list, description="what was not analysed, and why")
    ordinal: list[Contrast] = Field(default_factory=list, description="CLMM contrasts on the latent scale")
    ordinal_model: str | None = None
