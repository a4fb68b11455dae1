"""The per-metric analysis: mixed models, stratified contrasts, EMMs, multiplicity control, reliability.

Model per metric (REML; our solver by default, ``backend="statsmodels"`` or ``"r"`` as checks):

    score ~ responder                 + (1 | rater) + (1 | item)          [main]
    score ~ responder * stratum       + (1 | rater) + (1 | item)          [per stratifier]

with treatment coding against the reference responder; ``item`` is the scripted question
(case, utterance) for sentence-level metrics and the case for encounter-level ones. Stratification
uses responder x stratum interaction terms in one fit per stratifier (not per-stratum fits), so
every stratum borrows the rater and item variances estimated from all the data: the smallest
history categories hold ~8 questions, too few to estimate an item variance on their own. Strata
apply to sentence-level metrics only (an encounter has no single category or form).

The unit of inference. Every encounter-level score is one of several raters' scores of the same dialogue
(case x responder), and every sentence-level score one of several raters' scores of the same answer (scripted
question x responder): ``(1 | item:responder)`` is that dialogue's or answer's own effect. Without it the
ratings of one dialogue count as independent evidence and the contrasts' df are the ratings' (232 for 255
scores where 15 dialogues carry the information). ``response_effect="auto"`` (the default) therefore
includes it for encounter-level metrics always, and for sentence-level metrics when a REML likelihood-ratio
test against the model without it (boundary-corrected: p = P(chi2_1 >= LR) / 2) gives p < ``RESPONSE_EFFECT_ALPHA``;
the choice and the units the df rest on are recorded per fit (``MetricFit.unit_of_inference``,
``response_effect_test``). ``"always"`` / ``"never"`` force it. ``rater_slopes`` replaces ``(1 | rater)`` by
``(1 + responder | rater)``. Inference is t-based with Satterthwaite df.

Missing-design problems never become numbers: a metric without reference ratings, a responder
without ratings, a contrast that is not estimable in a stratum, a grouping factor with one level are
each left out and named in ``AnalysisResult.exclusions``.

One module, though long: planning the fits, fitting them, their contrasts and the reliability rows are the
steps of ``analyze``, one per-metric pipeline, and read best in its order.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from scipy.stats import chi2

from synthdocqa.judges.reliability import ReliabilityError, krippendorff_alpha

from .contrasts import (
    LmmEstimator,
    PatsyEstimator,
    adjust,
    coefficient_table,
    responder_estimates,
)
from .design import FixedDesign, RandomTerm, independent_columns, intercept_term, null_space, slope_term
from .lmm_solver import AGREE_TOL, LmmError, LmmFit, LmmModel, single_blas_thread
from .schema import (
    AnalysisResult,
    BootstrapCheck,
    Contrast,
    FitDiagnostics,
    MarginalMean,
    MetricFit,
    ReliabilityRow,
    Taxonomy,
)
from .statsmodels_backend import DEFAULT_METHODS, fit_crossed

STRATIFIERS: tuple[str, ...] = ("history_category", "linguistic_form")
BACKENDS: tuple[str, ...] = ("lmm", "statsmodels", "r")
OPTIMIZERS: tuple[str, ...] = ("lbfgsb", "lbfgsb_small", "powell")
RESPONSE_EFFECTS: tuple[str, ...] = ("auto", "always", "never")
LR_ZERO = 1e-6  # deviance units: a likelihood ratio this small is the optimizer's noise, the component at 0
RESPONSE_EFFECT_ALPHA = 0.05
"""Sentence level, ``response_effect="auto"``: the answer effect is kept when its likelihood-ratio test gives p
below this (a variance component that is not there costs the contrasts df for nothing)."""


class AnalysisOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt option is an error, not the default

    stratifiers: tuple[str, ...] = STRATIFIERS
    adjust_main: str = Field(default="holm", pattern="^(holm|bh)$")
    adjust_strata: str = Field(default="bh", pattern="^(holm|bh)$")
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0)
    alpha: float = Field(default=0.05, gt=0.0, lt=0.5)
    response_effect: str = Field(default="auto", pattern="^(auto|always|never)$",
                                 description="(1 | item:responder): auto = encounter level always, sentence level "
                                             "when its likelihood-ratio test says so; True/False = always/never")
    rater_slopes: bool = Field(default=False, description="(1 + responder | rater) instead of (1 | rater)")
    reml: bool = True
    optimizers: tuple[str, ...] = Field(default=OPTIMIZERS, description="our solver's runs (best kept)")
    methods: tuple[str, ...] = Field(default=DEFAULT_METHODS, description="statsmodels backend's optimizers")
    reliability: bool = True
    ordinal: bool = Field(default=False, description="CLMM sensitivity model through R ordinal::clmm")
    backend: str = Field(default="lmm", pattern="^(lmm|statsmodels|r)$")
    ddf: str = Field(default="satterthwaite", pattern="^(satterthwaite|kenward-roger)$",
                     description="denominator df: Satterthwaite (every backend but statsmodels), Kenward-Roger "
                                 "(the R backend, through pbkrtest; REML only)")
    r_strict: bool = Field(default=False, description="R backend: lme4 optimizer tolerances tightened (agreement checks)")
    bootstrap: int = Field(default=0, ge=0, le=10000, description="parametric bootstrap-t draws per main model "
                                                                  "(our solver; 0 = none)")
    bootstrap_seed: int = 0

    @model_validator(mode="after")
    def _ddf_backend(self) -> AnalysisOptions:
        if self.ddf == "kenward-roger" and (self.backend != "r" or not self.reml):
            raise ValueError("ddf='kenward-roger' needs backend='r' (lmerTest through pbkrtest) and REML")
        return self

    @field_validator("response_effect", mode="before")
    @classmethod
    def _bool_response_effect(cls, v: object) -> object:
        """``True``/``False`` (the option's old form) mean always/never."""
        return {True: "always", False: "never"}.get(v, v) if isinstance(v, bool) else v


def model_formula(options: AnalysisOptions) -> str:
    rater = "(1 + responder | rater)" if options.rater_slopes else "(1 | rater)"
    extra = {"always": " + (1 | item:responder)", "never": "",
             "auto": " [+ (1 | item:responder): encounter level always, sentence level when its LR test says so]"
             }[options.response_effect]
    crit = "REML" if options.reml else "ML"
    engine = {
        "lmm": f"{crit}, our solver (profiled deviance as lme4, best of {len(options.optimizers)} optimizer runs), "
               "t-based CIs with Satterthwaite df",
        "r": f"REML, R lme4/lmerTest, t-based CIs with {'Kenward-Roger' if options.ddf == 'kenward-roger' else 'Satterthwaite'} df",
        "statsmodels": "REML, statsmodels MixedLM (best of its optimizers), z-based CIs",
    }[options.backend]
    return f"score ~ responder [treatment vs reference] (x stratum) + {rater} + (1 | item){extra}; {engine}"


def metric_frame(ratings: pd.DataFrame, metric: str, reference: str) -> pd.DataFrame:
    """Model frame of one metric: score, resp (reference first), rater, item, unit, strata."""
    d = ratings[ratings["metric"] == metric]
    sentence = (d["level"] == "sentence").all()
    case = d["case"].astype("string").fillna("")
    item = case + "/" + (d["utterance_id"].astype("string").fillna("") if sentence else "")
    responders = [reference] + sorted(r for r in d["responder"].unique() if r != reference)
    frame = pd.DataFrame({
        "score": d["score"].astype(float).to_numpy(),
        "resp": pd.Categorical(d["responder"].to_numpy(), categories=responders),
        "rater": d["rater"].astype(str).to_numpy(),
        "item": item.to_numpy(),
        "unit": (item + "|" + d["responder"].astype(str)).to_numpy(),
    })
    for s in STRATIFIERS:
        if s in d.columns:
            frame[s] = d[s].to_numpy()
    return frame


@dataclass
class FitJob:
    """One model to fit: a metric's main model, or its responder x stratum model."""

    metric: str
    level: str
    frame: pd.DataFrame
    responders: list[str]
    stratifier: str | None = None
    strata: list[str] = field(default_factory=list)
    groups: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    unit_of_inference: str | None = None
    response_effect_test: str | None = None

    @property
    def counts(self) -> dict[tuple[str, str | None], int]:
        if self.stratifier is None:
            return {(str(r), None): int(n) for r, n in self.frame.groupby("resp", observed=True).size().items()}
        g = self.frame.groupby(["resp", "strat"], observed=True).size()
        return {(str(r), str(s)): int(n) for (r, s), n in g.items()}


def metric_problem(frame: pd.DataFrame, metric: str, reference: str, level: str = "sentence",
                   options: AnalysisOptions | None = None) -> str | None:
    """Why a metric cannot be analysed at all (a stated exclusion), or None."""
    scores = frame["score"].to_numpy(dtype=float)
    if len(scores) and np.all(scores == scores[0]):
        return f"metric {metric} excluded: every score is {scores[0]:g} (no variance to analyse)"
    opt = options or AnalysisOptions()
    per_resp = frame.groupby("resp", observed=True)["unit"].nunique()
    if (level == "encounter" and opt.response_effect != "never" and len(per_resp) and per_resp.min() < 2
            and frame.groupby("unit").size().max() > 1):
        return (f"metric {metric} excluded: one dialogue per responder ({frame['item'].nunique()} case): a responder's "
                "effect cannot be told from its dialogue's, so no contrast is replicated (--no-response-effect "
                "compares these dialogues only)")
    n_ref = int((frame["resp"] == reference).sum())
    if n_ref == 0:
        others = ", ".join(f"{r}={n}" for r, n in frame["resp"].value_counts().sort_index().items() if n)
        return f"metric {metric} excluded: no ratings of the reference responder {reference!r} ({others})"
    if frame["resp"].nunique() < 2:
        return f"metric {metric} excluded: only the reference responder {reference!r} was rated"
    return None


def plan_jobs(frame: pd.DataFrame, metric: str, level: str, reference: str, options: AnalysisOptions,
              all_responders: Sequence[str]) -> tuple[list[FitJob], list[str]]:
    """The fits one metric needs, and what is left out of it (missing responders, one-level factors)."""
    notes: list[str] = []
    missing = [r for r in all_responders if r not in set(frame["resp"].astype(str))]
    if missing:
        notes.append(f"metric {metric}: no ratings of {', '.join(missing)}: no contrast for them")
    responders = list(frame["resp"].cat.categories)
    spread = frame.groupby("resp", observed=True)["score"].agg(["min", "max"])
    for r, row in spread.iterrows():
        if row["min"] == row["max"]:
            notes.append(f"metric {metric}: {r} gave every score {row['min']:g}: its contrast rests on the other "
                         "responders' residual variance (the model assumes one variance for all)")
    groups = []
    for g in ("rater", "item"):
        k = frame[g].nunique()
        if k >= 2:
            groups.append(g)
        else:
            notes.append(f"metric {metric}: only {k} {g} level: no {g} variance component")
    include, unit, test = response_unit(frame, level, responders, groups, options)
    if include:
        groups.append("unit")
    units = {"unit_of_inference": unit, "response_effect_test": test}
    jobs = [FitJob(metric, level, frame, responders, groups=groups, **units)]
    if level == "sentence":
        for s in options.stratifiers:
            if s in frame.columns and frame[s].notna().any():
                f = frame.dropna(subset=[s]).copy()
                strata = sorted(map(str, f[s].unique()))
                f["strat"] = pd.Categorical(f[s].astype(str), categories=strata)
                jobs.append(FitJob(metric, level, f, responders, stratifier=s, strata=strata, groups=groups, **units))
    return jobs, notes


def response_unit(frame: pd.DataFrame, level: str, responders: Sequence[str], groups: Sequence[str],
                  options: AnalysisOptions) -> tuple[bool, str, str | None]:
    """Whether the metric's models get ``(1 | item:responder)``, the units the contrasts' df rest on, and the
    likelihood-ratio test that decided it (sentence level, ``auto``)."""
    what = "dialogues (case x responder)" if level == "encounter" else "answers (question x responder)"
    n_units = int(frame["unit"].nunique())
    repeated = bool(frame.groupby("unit").size().max() > 1)
    test = None
    if not repeated:
        include, why = False, f"each of the {n_units} {what} was rated once"
    elif options.response_effect == "never":
        include, why = False, f"the ratings of each of the {n_units} {what} treated as independent (asked for)"
    elif options.response_effect == "always" or level == "encounter":
        include, why = True, ""
    else:
        lr, p = response_effect_lrt(frame, responders, groups, options)
        include = p < RESPONSE_EFFECT_ALPHA
        test = (f"(1 | item:responder) against the model without it: LR = {lr:.2f}, p = {_p_text(p)} (REML, "
                f"boundary-corrected): {'kept' if include else 'left out'}")
        why = f"no answer effect found (p >= {RESPONSE_EFFECT_ALPHA})"
    if include:
        return True, f"{n_units} {what}, each with its own random effect", test
    return False, f"{len(frame)} ratings: {why}", test


def _p_text(p: float) -> str:
    return f"{p:.3g}" if p >= 1e-4 else "< 1e-4"


def response_effect_lrt(frame: pd.DataFrame, responders: Sequence[str], groups: Sequence[str],
                        options: AnalysisOptions) -> tuple[float, float]:
    """REML likelihood ratio of the main model with ``(1 | item:responder)`` against it without, and its p-value
    under the boundary mixture 0.5 chi2_0 + 0.5 chi2_1 (the variance tested sits on the edge of its space).
    Both fits have the same fixed effects, so REML likelihoods are comparable."""
    design = FixedDesign(("resp",), {"resp": tuple(responders)})
    X_full = design.matrix(frame)
    X = X_full[:, independent_columns(X_full)]
    y = frame["score"].to_numpy(dtype=float)
    terms = [intercept_term(g, frame[g]) for g in groups]
    with single_blas_thread():
        without = LmmModel(X, y, terms, reml=True).fit(("lbfgsb",)).criterion
        with_unit = LmmModel(X, y, [*terms, intercept_term("item:responder", frame["unit"])], reml=True)
        crit = with_unit.fit(("lbfgsb", "lbfgsb_small")).criterion
    lr = max(float(without - crit), 0.0)
    return lr, (0.5 * float(chi2.sf(lr, 1)) if lr > LR_ZERO else 1.0)


# ----------------------------------------------------------------------------- our solver


def _terms(job: FitJob, options: AnalysisOptions) -> list[RandomTerm]:
    f = job.frame
    terms = []
    for g in job.groups:
        if g == "rater" and options.rater_slopes:
            resp_design = FixedDesign(("resp",), {"resp": tuple(job.responders)})
            terms.append(slope_term("rater", f["rater"], resp_design, f))
        elif g == "unit":
            terms.append(intercept_term("item:responder", f["unit"]))
        else:
            terms.append(intercept_term(g, f[g]))
    return terms


def lmm_diagnostics(fit: LmmFit, n_obs: int, seconds: float, dropped: list[str], notes: list[str]) -> FitDiagnostics:
    """Every optimizer run's criterion, the kept one, agreement, singularity (shown in the report)."""
    crit = "REML" if fit.model.reml else "ML"
    attempts = [f"{r.optimizer} from {r.start}: -2 {crit} log-lik {r.criterion:.6f} ({r.iterations} evaluations)"
                for r in fit.runs]
    if fit.polish is not None:
        attempts.append(f"polish: {fit.polish.optimizer} from {fit.polish.start}: -2 {crit} log-lik "
                        f"{fit.polish.criterion:.6f} ({fit.polish.iterations} evaluations)")
    attempts += [f"{c.start}: -2 {crit} log-lik {c.criterion:.6f} ({c.iterations} evaluations)"
                 for c in fit.confirmed.values()]
    reached = fit.reached
    warnings = list(notes)
    if not fit.agree:
        worst = max((r for r in fit.runs if r not in reached), key=lambda r: r.criterion)
        warnings.append(f"optimizers disagree: {worst.optimizer} from {worst.start} stopped "
                        f"{worst.criterion - fit.criterion:.4g} above the best -2 {crit} log-lik; the best is kept")
    if fit.model.n_theta and fit.varpar.negative_eigenvalues:
        warnings.append(f"Hessian of the deviance has {fit.varpar.negative_eigenvalues} negative eigenvalue(s)")
    if dropped:
        warnings.append(f"fixed-effect model matrix is rank deficient: dropped {', '.join(dropped)}")
    return FitDiagnostics(
        method=f"lmm: {fit.best.optimizer} from {fit.best.start}", attempts=attempts,
        converged=len(reached) >= min(2, len(fit.runs)), refit=fit.runs[0].criterion - fit.criterion > AGREE_TOL,
        criterion=crit, loglik=fit.loglik, criterion_spread=fit.spread, singular=bool(fit.singular),
        boundary=fit.singular, dropped_columns=dropped, warnings=warnings,
        variance_components=fit.variance_components(), residual_variance=fit.sigma2, n_obs=n_obs,
        seconds=seconds, model_cpu_seconds=fit.cpu_seconds,
    )


def fit_lmm(job: FitJob, options: AnalysisOptions) -> tuple[LmmEstimator, FitDiagnostics]:
    t0 = time.perf_counter()
    factors = ("resp",) if job.stratifier is None else ("resp", "strat")
    levels = {"resp": tuple(job.responders)}
    if job.stratifier is not None:
        levels["strat"] = tuple(job.strata)
    design = FixedDesign(factors, levels)
    X_full = design.matrix(job.frame)
    kept = independent_columns(X_full)
    dropped = [design.names[i] for i in range(len(design.names)) if i not in set(kept.tolist())]
    with single_blas_thread():
        model = LmmModel(X_full[:, kept], job.frame["score"].to_numpy(dtype=float), _terms(job, options),
                         reml=options.reml)
        fit = model.fit(options.optimizers)
        if model.n_theta:
            _ = fit.varpar  # the Satterthwaite parts, under the same one-thread limit
    est = LmmEstimator(design=design, kept=kept, null=null_space(X_full), fit=fit)
    return est, lmm_diagnostics(fit, len(job.frame), time.perf_counter() - t0, dropped, job.notes)


def fit_statsmodels(job: FitJob, options: AnalysisOptions) -> tuple[PatsyEstimator, FitDiagnostics]:
    vc = {g: f"0+C({g})" for g in job.groups}
    if not vc:
        raise LmmError("the statsmodels backend needs at least one grouping factor with >= 2 levels")
    formula = "score ~ C(resp)" if job.stratifier is None else "score ~ C(resp) * C(strat)"
    fit = fit_crossed(job.frame, formula, vc, methods=options.methods, reml=options.reml)
    diag = fit.diagnostics
    # cross-check against our solver: a statsmodels "optimum" below the REML maximum is flagged
    if diag.loglik is not None and diag.method != "ols_cluster":
        _, ours = fit_lmm(job, options.model_copy(update={"rater_slopes": False}))
        if ours.loglik is not None and ours.loglik - diag.loglik > 1e-3:
            diag.warnings.append(f"statsmodels stopped at log-lik {diag.loglik:.3f}, below the optimum "
                                 f"{ours.loglik:.3f} found by our solver")
            diag.converged = False
    est = PatsyEstimator(fit.fe_params, fit.cov_fe, fit.design_info, job.frame)
    return est, diag


def fit_job(job: FitJob, reference: str, options: AnalysisOptions) -> tuple[MetricFit, list[str]]:
    """Fit one job with the lmm or statsmodels backend: contrasts, EMMs, coefficients, diagnostics."""
    est, diag = fit_lmm(job, options) if options.backend == "lmm" else fit_statsmodels(job, options)
    unit = job.unit_of_inference
    if "unit" in job.groups and _at_boundary(diag, "item:responder"):
        unit = f"{unit}; its variance is estimated at 0, so the df are the single ratings' again"
    counts = job.counts
    kw = dict(stratifier=job.stratifier, strata=job.strata, confidence=options.confidence, counts=counts)
    contrasts, emms, skipped = responder_estimates(est, job.metric, reference, job.responders, **kw)
    boot: list[BootstrapCheck] = []
    if options.bootstrap and job.stratifier is None and isinstance(est, LmmEstimator):
        boot, why = bootstrap_check(job, est, contrasts, reference, options)
        skipped = [*skipped, *why]
    return MetricFit(metric=job.metric, level=job.level, stratifier=job.stratifier,
                     unit_of_inference=unit, response_effect_test=job.response_effect_test,
                     contrasts=contrasts, bootstrap=boot, coefficients=coefficient_table(est), emms=emms,
                     diagnostics=diag), skipped


BOOTSTRAP_WIDER = 1.1
"""A bootstrap-t CI this much wider than the reported one flags the contrast (``BootstrapCheck.wider``)."""


def bootstrap_check(job: FitJob, est: LmmEstimator, contrasts: Sequence[Contrast], reference: str,
                    options: AnalysisOptions) -> tuple[list[BootstrapCheck], list[str]]:
    """Parametric bootstrap-t of the main model's contrasts: ``options.bootstrap`` data sets drawn from the fitted
    model (fixed effects, each term's variance, the residual; Gaussian), each refitted (REML, one L-BFGS-B run);
    per contrast the quantiles of ``t* = (L b* - L b) / se*`` give ``[est - q_hi se, est - q_lo se]``. Where the
    Satterthwaite df are too many for the design (few dialogues), this CI comes out wider. Draws come from
    ``Rng(bootstrap_seed, ("osce-bootstrap", metric))``: same seed, same numbers."""
    from synthdocqa.ir.rng import Rng

    fit = est.fit
    model = fit.model
    if any(t.k != 1 for t in model.terms):
        return [], [f"metric {job.metric}: no bootstrap check with random slopes"]
    gen = Rng(options.bootstrap_seed, ("osce-bootstrap", job.metric)).gen
    sd = {t.group: np.sqrt(max(fit.variance_components().get(t.group, 0.0), 0.0)) for t in model.terms}
    mu = model.X @ fit.beta
    Ls = [(est.row({"resp": c.responder}) - est.row({"resp": reference}))[est.kept] for c in contrasts]
    t_draws = np.empty((options.bootstrap, len(Ls)))
    with single_blas_thread():
        for b in range(options.bootstrap):
            y = mu + gen.normal(0.0, fit.sigma, model.n)
            for t in model.terms:
                y = y + gen.normal(0.0, sd[t.group], t.n_levels)[t.codes]
            refit = LmmModel(model.X, y, model.terms, reml=True).fit(("lbfgsb",))
            for k, L in enumerate(Ls):
                se = float(np.sqrt(max(L @ refit.cov_beta @ L, 1e-300)))
                t_draws[b, k] = (L @ refit.beta - L @ fit.beta) / se
    a = (1.0 - options.confidence) / 2.0
    out = []
    for k, c in enumerate(contrasts):
        q_lo, q_hi = np.quantile(t_draws[:, k], [a, 1.0 - a])
        lo, hi = c.estimate - q_hi * c.se, c.estimate - q_lo * c.se
        out.append(BootstrapCheck(metric=job.metric, responder=c.responder, estimate=c.estimate, ci_low=c.ci_low,
                                  ci_high=c.ci_high, boot_ci_low=float(lo), boot_ci_high=float(hi),
                                  draws=options.bootstrap,
                                  wider=bool(hi - lo > BOOTSTRAP_WIDER * (c.ci_high - c.ci_low))))
    return out, []


ZERO_RESIDUAL = 1e-8
"""A residual variance below this share of the scores' variance is zero: the model reproduces every score."""


def degenerate_fit(mf: MetricFit, job: FitJob) -> str | None:
    """Why a fit's numbers mean nothing (a stated exclusion), or None: a residual variance of zero leaves no error
    to estimate SEs from (CIs of width 0, df of 1e44)."""
    resid = mf.diagnostics.residual_variance
    total = float(np.var(job.frame["score"].to_numpy(dtype=float)))
    if resid is not None and resid <= ZERO_RESIDUAL * max(total, 1e-300):
        where = "" if job.stratifier is None else f" x {job.stratifier}"
        return (f"metric {mf.metric}{where} excluded: zero residual variance (the model reproduces every score: "
                f"{len(job.frame)} scores, {job.frame['rater'].nunique()} rater(s); no error is left to test against)")
    return None


def finite_only(mf: MetricFit) -> tuple[MetricFit, list[str]]:
    """The fit without any estimate whose numbers are not finite, and a note for each one dropped."""
    def finite(values: Sequence[float | None]) -> bool:
        return all(v is None or bool(np.isfinite(v)) for v in values)

    where = mf.metric if mf.stratifier is None else f"{mf.metric} x {mf.stratifier}"
    notes: list[str] = []
    contrasts = []
    for c in mf.contrasts:
        if finite((c.estimate, c.se, c.ci_low, c.ci_high, c.p_value, c.df)):
            contrasts.append(c)
        else:
            notes.append(f"{where}: {c.responder}" + (f" ({c.stratum})" if c.stratum else "")
                         + " vs the reference not estimable (non-finite SE or df)")
    emms = [e for e in mf.emms if finite((e.estimate, e.se, e.ci_low, e.ci_high, e.df))]
    coefs = [c for c in mf.coefficients if finite((c.estimate, c.se, c.df, c.t, c.p_value))]
    if len(coefs) < len(mf.coefficients):
        notes.append(f"{where}: {len(mf.coefficients) - len(coefs)} fixed effect(s) with non-finite SE left out")
    return mf.model_copy(update={"contrasts": contrasts, "emms": emms, "coefficients": coefs}), notes


def _at_boundary(diag: FitDiagnostics, component: str) -> bool:
    """A variance component estimated at (numerically) zero, relative to the residual variance."""
    v = diag.variance_components.get(component)
    return v is not None and v <= 1e-8 * max(diag.residual_variance or 1.0, 1e-12)


# ----------------------------------------------------------------------------- reliability


def model_icc(unit: np.ndarray, rater: np.ndarray, score: np.ndarray) -> tuple[float | None, float | None, float, str]:
    """ICC(2,1) and ICC(2,k) from the two-way random-effects model ``score ~ 1 + (1 | unit) + (1 | rater)`` fitted
    by REML to every rating (a missing score leaves its cell out; nobody is dropped): ``s_u / (s_u + s_r + s_e)``
    and ``s_u / (s_u + (s_r + s_e) / k)`` with ``k`` the mean number of ratings per unit. On complete data these
    are Shrout and Fleiss's ICC(2,1) and ICC(2,k) (REML = the ANOVA estimates when none is truncated at 0).
    Returns (ICC(2,1), ICC(2,k), k, how); None where the design cannot say (one rater, one unit, no variance)."""
    n_units, n_raters = len(np.unique(unit)), len(np.unique(rater))
    k = float(len(score) / max(n_units, 1))
    if n_raters < 2 or n_units < 2:
        return None, None, k, f"not estimable: {n_raters} rater(s), {n_units} unit(s)"
    if np.all(score == score[0]):
        return None, None, k, "not estimable: every score is the same"
    terms = [intercept_term("unit", unit), intercept_term("rater", rater)]
    with single_blas_thread():
        fit = LmmModel(np.ones((len(score), 1)), score.astype(float), terms, reml=True).fit(("lbfgsb", "lbfgsb_small"))
    vc = fit.variance_components()
    su, sr, se = vc["unit"], vc["rater"], fit.sigma2
    if not su + sr + se > 0:
        return None, None, k, "not estimable: no variance"
    how = (f"two-way random-effects model (REML) on all {len(score)} ratings of {n_units} units by {n_raters} "
           f"raters; k = {k:.2f} ratings per unit")
    return float(su / (su + sr + se)), float(su / (su + (sr + se) / k)), k, how


def reliability_row(ratings: pd.DataFrame, metric: str) -> ReliabilityRow:
    """ICC(2,1)/ICC(2,k) from the random-effects model on every rating (``model_icc``: every rater kept);
    ordinal Krippendorff alpha over the units with two or more ratings."""
    d = ratings[ratings["metric"] == metric]
    parts = [d[c].astype("string").fillna("") for c in ("case", "encounter", "responder", "utterance_id")]
    unit = parts[0] + "|" + parts[1] + "|" + parts[2] + "|" + parts[3]
    table = pd.DataFrame({"unit": unit.to_numpy(), "rater": d["rater"].astype(str).to_numpy(),
                          "score": d["score"].astype(float).to_numpy()})
    wide = table.pivot(index="unit", columns="rater", values="score")
    mat = wide.to_numpy(dtype=float)
    i1, ik, k, how = model_icc(table["unit"].to_numpy(), table["rater"].to_numpy(), table["score"].to_numpy())
    pairable = int((np.sum(~np.isnan(mat), axis=1) >= 2).sum())
    alpha = None
    if mat.shape[1] >= 2 and pairable:
        try:
            a = krippendorff_alpha(mat.T, level="ordinal")
            alpha = float(a) if np.isfinite(a) else None
        except ReliabilityError:
            alpha = None
    return ReliabilityRow(
        metric=metric, n_units=int(mat.shape[0]), n_raters=int(mat.shape[1]), icc_units=int(mat.shape[0]),
        icc_raters=int(mat.shape[1]), icc_k=k, icc_method=how, icc2_1=i1, icc2_k=ik, alpha_units=pairable,
        alpha_ordinal=alpha,
    )


# ----------------------------------------------------------------------------- the analysis


def analyze(
    ratings: pd.DataFrame,
    taxonomy: Taxonomy | None = None,
    options: AnalysisOptions | None = None,
    metrics: Sequence[str] | None = None,
    progress: Callable[[int, int, str], None] | None = None,
) -> AnalysisResult:
    """Fit every metric (main + stratified), adjust p-values, compute reliability.

    ``ratings`` must already be validated (``loaders.validate_ratings``). ``progress(done, total, label)`` is
    told before the first fit and after each (the R backend fits all models in one call: one step).
    """
    tax = taxonomy or Taxonomy()
    opt = options or AnalysisOptions()
    ref = tax.reference_responder
    present = list(dict.fromkeys(ratings["metric"]))
    order = [m for m in tax.metric_names if m in present] if metrics is None else list(metrics)
    all_resp = [ref] + sorted(r for r in ratings["responder"].unique() if r != ref)
    exclusions: list[str] = []
    jobs: list[FitJob] = []
    analysed: list[str] = []
    for metric in order:
        frame = metric_frame(ratings, metric, ref)
        problem = metric_problem(frame, metric, ref, tax.metric(metric).level, opt)
        if problem:
            exclusions.append(problem)
            continue
        mjobs, notes = plan_jobs(frame, metric, tax.metric(metric).level, ref, opt, all_resp)
        exclusions.extend(notes)
        jobs.extend(mjobs)
        analysed.append(metric)

    tell = progress or (lambda done, total, label: None)
    if opt.backend == "r":
        from .r_backend import fit_jobs_r

        tell(0, 1, f"{len(jobs)} models in R")
        results = fit_jobs_r(jobs, ref, opt)
        tell(1, 1, f"{len(jobs)} models in R")
    else:
        results = []
        for i, j in enumerate(jobs):
            tell(i, len(jobs), f"{j.metric} {j.stratifier or 'main'}")
            results.append(fit_job(j, ref, opt))
        tell(len(jobs), len(jobs), "done")
    fits: list[MetricFit] = []
    main: list[Contrast] = []
    strata: list[Contrast] = []
    emms: list[MarginalMean] = []
    degenerate: set[str] = set()
    for job, (mf, skipped) in zip(jobs, results, strict=True):
        if mf.metric in degenerate:
            continue
        reason = degenerate_fit(mf, job)
        if reason is not None:
            exclusions.append(reason)
            if mf.stratifier is None:  # the metric's main model: the metric goes
                degenerate.add(mf.metric)
            continue
        mf, dropped = finite_only(mf)
        fits.append(mf)
        exclusions.extend(skipped + dropped)
        if mf.stratifier is None:
            main.extend(mf.contrasts)
            emms.extend(mf.emms)
        else:
            strata.extend(adjust(mf.contrasts, opt.adjust_strata, opt.alpha))
    analysed = [m for m in analysed if m not in degenerate]
    rel = [reliability_row(ratings, m) for m in analysed] if opt.reliability else []
    ordinal: list[Contrast] = []
    ordinal_model = None
    if opt.ordinal and analysed:
        from .r_backend import ORDINAL_FORMULA, fit_ordinal_r

        ordinal = adjust(fit_ordinal_r([j for j in jobs if j.stratifier is None and j.metric in analysed], ref,
                                       opt.confidence),
                         opt.adjust_main, opt.alpha)
        ordinal_model = ORDINAL_FORMULA
    main = adjust(main, opt.adjust_main, opt.alpha)
    return AnalysisResult(
        reference=ref, responders=all_resp, metrics=analysed,
        adjust_main=opt.adjust_main, adjust_strata=opt.adjust_strata, confidence=opt.confidence,
        main=main, strata=strata, fits=fits, reliability=rel,
        model_formula=model_formula(opt), n_scores=int(len(ratings)), backend=opt.backend, emms=emms,
        exclusions=exclusions, ordinal=ordinal, ordinal_model=ordinal_model,
    )


def coverage(result: AnalysisResult, truth: pd.DataFrame, strata: bool = False) -> pd.DataFrame:
    """Join contrasts with planted values: one row per contrast with ``covered`` (truth in CI)."""
    rows = result.strata if strata else result.main
    est = pd.DataFrame([c.model_dump() for c in rows])
    t = truth.copy()
    if not strata:
        t = t[t["stratifier"].isna()]
        key = ["metric", "responder"]
    else:
        t = t[t["stratifier"].notna()]
        key = ["metric", "responder", "stratifier", "stratum"]
    merged = est.merge(t[key + ["planted", "planted_latent"]], on=key, how="inner")
    merged["covered"] = (merged["ci_low"] <= merged["planted"]) & (merged["planted"] <= merged["ci_high"])
    merged["error"] = merged["estimate"] - merged["planted"]
    return merged.reset_index(drop=True)
