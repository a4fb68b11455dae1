"""The per-metric analysis: mixed models, stratified contrasts, multiplicity control, reliability.

Model per metric (statsmodels, REML):

    score ~ C(responder)                       + (1 | rater) + (1 | item)          [main]
    score ~ C(responder) * C(stratum)          + (1 | rater) + (1 | item)          [per stratifier]

with treatment coding against the reference responder; ``item`` is the scripted question
(case, utterance) for sentence-level metrics and the case for encounter-level ones. Stratification
uses responder x stratum interaction terms in one fit per stratifier (not per-stratum fits), so
every stratum borrows the rater and item variances estimated from all the data: the smallest
history categories hold ~8 questions, too few to estimate an item variance on their own. Strata
apply to sentence-level metrics only (an encounter has no single category or form).

Optional third variance component ``response_effect=True``: item x responder (the rated answer),
for data where answers vary beyond rater noise; it makes each 7,480-row fit ~11x more expensive.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
from pydantic import BaseModel, Field

from judges.reliability import ReliabilityError, complete_targets, icc, krippendorff_alpha

from .contrasts import adjust, responder_contrasts
from .mixed import DEFAULT_METHODS, fit_crossed
from .schema import AnalysisResult, Contrast, MetricFit, ReliabilityRow, Taxonomy

STRATIFIERS: tuple[str, ...] = ("history_category", "linguistic_form")


class AnalysisOptions(BaseModel):
    stratifiers: tuple[str, ...] = STRATIFIERS
    adjust_main: str = Field(default="holm", pattern="^(holm|bh)$")
    adjust_strata: str = Field(default="bh", pattern="^(holm|bh)$")
    confidence: float = Field(default=0.95, gt=0.5, lt=1.0)
    alpha: float = Field(default=0.05, gt=0.0, lt=0.5)
    response_effect: bool = False
    methods: tuple[str, ...] = DEFAULT_METHODS
    reliability: bool = True
    backend: str = Field(default="statsmodels", pattern="^(statsmodels|r)$")


def model_formula(options: AnalysisOptions) -> str:
    extra = " + (1 | rater:item:responder)" if options.response_effect else ""
    engine = (
        "REML, R lme4/lmerTest, t-based CIs with Satterthwaite df" if options.backend == "r"
        else "REML, statsmodels MixedLM, z-based CIs"
    )
    return f"score ~ responder [treatment vs reference] (x stratum) + (1 | rater) + (1 | item){extra}; {engine}"


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


def _vc(frame: pd.DataFrame, options: AnalysisOptions) -> dict[str, str]:
    vc = {"rater": "0+C(rater)", "item": "0+C(item)"}
    if options.response_effect and frame.groupby("unit").size().max() > 1:
        vc["unit"] = "0+C(unit)"
    return vc


def fit_metric(
    frame: pd.DataFrame, metric: str, level: str, reference: str, options: AnalysisOptions,
    stratifier: str | None = None,
) -> MetricFit:
    responders = list(frame["resp"].cat.categories)
    if options.backend == "r":
        from .r_backend import fit_metric_r

        return fit_metric_r(frame, metric, level, reference, confidence=options.confidence, stratifier=stratifier,
                            response_effect=options.response_effect)
    if stratifier is None:
        fit = fit_crossed(frame, "score ~ C(resp)", _vc(frame, options), methods=options.methods)
        counts = {(r, None): int(n) for r, n in frame.groupby("resp", observed=True).size().items()}
        contrasts = responder_contrasts(
            fit, frame, metric, reference, responders, confidence=options.confidence, counts=counts
        )
    else:
        f = frame.dropna(subset=[stratifier]).copy()
        strata = sorted(f[stratifier].unique())
        f["strat"] = pd.Categorical(f[stratifier], categories=strata)
        fit = fit_crossed(f, "score ~ C(resp) * C(strat)", _vc(f, options), methods=options.methods)
        counts = {(r, s): int(n) for (r, s), n in f.groupby(["resp", "strat"], observed=True).size().items()}
        contrasts = responder_contrasts(
            fit, f, metric, reference, responders, stratifier=stratifier, strata=strata,
            confidence=options.confidence, counts=counts,
        )
    return MetricFit(metric=metric, level=level, stratifier=stratifier, contrasts=contrasts, diagnostics=fit.diagnostics)


def reliability_row(ratings: pd.DataFrame, metric: str) -> ReliabilityRow:
    """ICC(2,1)/ICC(2,k) over complete units and ordinal alpha over all units (rows = raters)."""
    d = ratings[ratings["metric"] == metric]
    parts = [d[c].astype("string").fillna("") for c in ("case", "encounter", "responder", "utterance_id")]
    unit = parts[0] + "|" + parts[1] + "|" + parts[2] + "|" + parts[3]
    table = pd.DataFrame({"unit": unit.to_numpy(), "rater": d["rater"].to_numpy(), "score": d["score"].astype(float).to_numpy()})
    wide = table.pivot(index="unit", columns="rater", values="score")
    nan = float("nan")
    try:
        r = icc(complete_targets(wide.to_numpy()))
        i1, ik = r.icc2_1, r.icc2_k
    except ReliabilityError:
        i1 = ik = nan
    try:
        alpha = krippendorff_alpha(wide.to_numpy().T, level="ordinal")
    except ReliabilityError:
        alpha = nan
    return ReliabilityRow(metric=metric, n_units=int(wide.shape[0]), n_raters=int(wide.shape[1]), icc2_1=i1, icc2_k=ik, alpha_ordinal=alpha)


def analyze(
    ratings: pd.DataFrame,
    taxonomy: Taxonomy | None = None,
    options: AnalysisOptions | None = None,
    metrics: Sequence[str] | None = None,
) -> AnalysisResult:
    """Fit every metric (main + stratified), adjust p-values, compute reliability.

    ``ratings`` must already be validated (``loaders.validate_ratings``).
    """
    tax = taxonomy or Taxonomy()
    opt = options or AnalysisOptions()
    ref = tax.reference_responder
    present = list(dict.fromkeys(ratings["metric"]))
    order = [m for m in tax.metric_names if m in present] if metrics is None else list(metrics)
    fits: list[MetricFit] = []
    rel: list[ReliabilityRow] = []
    main: list[Contrast] = []
    strata: list[Contrast] = []
    for metric in order:
        level = tax.metric(metric).level
        frame = metric_frame(ratings, metric, ref)
        mf = fit_metric(frame, metric, level, ref, opt)
        fits.append(mf)
        main.extend(mf.contrasts)
        if level == "sentence":
            for s in opt.stratifiers:
                if s in frame.columns and frame[s].notna().any():
                    sf = fit_metric(frame, metric, level, ref, opt, stratifier=s)
                    fits.append(sf)
                    strata.extend(adjust(sf.contrasts, opt.adjust_strata, opt.alpha))
        if opt.reliability:
            rel.append(reliability_row(ratings, metric))
    main = adjust(main, opt.adjust_main, opt.alpha)
    responders = [ref] + sorted(r for r in ratings["responder"].unique() if r != ref)
    return AnalysisResult(
        reference=ref, responders=responders, metrics=order,
        adjust_main=opt.adjust_main, adjust_strata=opt.adjust_strata, confidence=opt.confidence,
        main=main, strata=strata, fits=fits, reliability=rel,
        model_formula=model_formula(opt), n_scores=int(len(ratings)),
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
