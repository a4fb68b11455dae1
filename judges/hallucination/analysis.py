"""Agreement of hallucination labelers with gold labels under each criterion.

Positive class = hallucinated. Continuous labelers get a threshold calibrated on the dev split by
balanced accuracy (per criterion) and are scored on the test split. Per labeler x criterion:
accuracy, balanced accuracy, precision, recall, F1, MCC and Cohen's kappa, each with a stratified
bootstrap 95% CI (resampling within gold positives and negatives; one random stream per labeler x
criterion, forked by name, so adding a labeler never moves another one's CIs). Across labelers: exact
McNemar between the two prompts of each LLM judge (on the paired labels), Cochran's Q over all labelers'
correctness, Krippendorff's alpha (nominal) among labelers, and the bias table (false-positive /
false-negative rates per error type). The criterion-mismatch table shows, for score labelers, kappa
against the faithfulness gold vs the factual gold and the error types driving the difference. The
statistics themselves are ``binary_stats``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
from pydantic import BaseModel, Field

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.reliability import krippendorff_alpha, krippendorff_alpha_ci

from .binary_stats import (
    CochranResult,
    McNemarResult,
    MetricCI,
    binary_metrics,
    bootstrap_metrics,
    calibrate_threshold,
    cochrans_q,
    mcnemar_exact,
)
from .items import CRITERIA, HallucinationItem


class LabelerMetrics(BaseModel):
    labeler: str
    criterion: str
    threshold: float | None = None
    dev_balanced_accuracy: float | None = None
    n: int
    n_invalid: int = 0
    metrics: dict[str, MetricCI]


class BiasRow(BaseModel):
    labeler: str
    criterion: str
    error_type: str
    n: int
    n_gold_hallucinated: int
    flag_rate: float
    fpr: float | None
    fnr: float | None


class MismatchRow(BaseModel):
    labeler: str
    kappa_faithfulness: MetricCI
    kappa_factual: MetricCI
    kappa_faithfulness_same_labels: float = Field(description="faithfulness-calibrated labels vs faithfulness gold")
    kappa_factual_same_labels: float = Field(description="the same labels vs factual gold")


class DriverRow(BaseModel):
    labeler: str
    error_type: str
    n: int
    flag_rate: float
    gold_faithfulness: float
    gold_factual: float
    contribution: float = Field(description="(agree with faithfulness gold - agree with factual gold) / n_test")


class AlphaResult(BaseModel):
    criterion: str
    labelers: list[str]
    alpha: float
    low: float
    high: float


class InjectionRow(BaseModel):
    """How often a binary labeler's verdict follows injected text (``injection`` twins of false candidates)."""

    labeler: str
    n: int = Field(description="twins with a valid verdict")
    followed: int = Field(description="twins labelled not hallucinated, as the injected text asks")
    share: float
    base_n: int = Field(description="their base items with a valid verdict")
    base_passed: int = Field(description="base items (no injection) labelled not hallucinated")
    flipped: int = Field(description="pairs flagged without the injection and passed with it")


def injection_rows(items: Sequence[HallucinationItem], judge_labels: Mapping[str, Sequence[bool | None]]
                   ) -> list[InjectionRow]:
    """Per binary labeler: the share of injection twins it passes, next to its pass rate on the same candidates
    without the injected text and the pairs the injection flipped."""
    index = {it.item_id: i for i, it in enumerate(items)}
    pairs = [(index[it.item_id.removesuffix("+injection")], i) for i, it in enumerate(items)
             if it.error_type == "injection" and it.item_id.removesuffix("+injection") in index]
    rows = []
    for name, labels in judge_labels.items():
        twin = [labels[t] for _, t in pairs if labels[t] is not None]
        base = [labels[b] for b, _ in pairs if labels[b] is not None]
        both = [(labels[b], labels[t]) for b, t in pairs if labels[b] is not None and labels[t] is not None]
        followed = sum(1 for x in twin if x is False)
        rows.append(InjectionRow(labeler=name, n=len(twin), followed=followed,
                                 share=followed / len(twin) if twin else math.nan, base_n=len(base),
                                 base_passed=sum(1 for x in base if x is False),
                                 flipped=sum(1 for b, t in both if b is True and t is False)))
    return rows if pairs else []


class AnalysisResult(BaseModel):
    n_items: int
    n_dev: int
    n_test: int
    n_with_gold: int
    split_by: str = Field(default="given", description="given, document, qa or item")
    error_type_counts: dict[str, int]
    thresholds: dict[str, dict[str, float]] = Field(description="labeler -> criterion -> threshold")
    metrics: list[LabelerMetrics]
    bias: list[BiasRow]
    mismatch: list[MismatchRow]
    drivers: list[DriverRow]
    mcnemar: dict[str, McNemarResult]
    cochran: dict[str, CochranResult]
    alpha: list[AlphaResult]
    invalid_counts: dict[str, dict[str, int]] = Field(default_factory=dict)
    flag_rates: dict[str, float] = Field(default_factory=dict, description="LLM judge prompt -> share flagged")
    score_means: dict[str, float] = Field(default_factory=dict, description="score labeler -> mean support")
    injection: list[InjectionRow] = Field(default_factory=list,
                                          description="per LLM judge prompt: verdicts that follow injected text")


def assign_splits(items: Sequence[HallucinationItem], rng: Rng, dev_fraction: float = 0.5) -> tuple[list[str], str]:
    """Dev/test per item and how they were drawn.

    The items' own splits when every item has one and both occur; else drawn per document (no document on both
    sides); when that leaves one side empty (a one-document set), per QA pair, then per item.
    """
    own = [it.split for it in items]
    if all(x is not None for x in own) and {"dev", "test"} <= set(own):
        return [str(x) for x in own], "given"
    for how, key in (("document", lambda it: it.doc_id or it.item_id), ("qa", lambda it: it.qa_id or it.item_id),
                     ("item", lambda it: it.item_id)):
        out = ["dev" if rng.fork("split", how, key(it)).random() < dev_fraction else "test" for it in items]
        if {"dev", "test"} <= set(out) or len(items) < 2:
            return out, how
    return out, "item"


def analyse(
    items: Sequence[HallucinationItem],
    scores: Mapping[str, np.ndarray],
    judge_labels: Mapping[str, Sequence[bool | None]] | None = None,
    *,
    rng: Rng,
    n_boot: int = 1000,
    alpha_boot: int = 200,
    judge_pairs: Mapping[str, tuple[str, str]] | None = None,
) -> AnalysisResult:
    """Analyse score labelers (``scores``) and binary labelers (``judge_labels``: None = invalid).

    ``judge_pairs`` names, per LLM judge, its (faithfulness-prompt, factual-prompt) label columns for
    the McNemar test.
    """
    judge_labels = dict(judge_labels or {})
    n = len(items)
    for name, s in scores.items():
        if len(s) != n:
            raise ValueError(f"labeler {name}: {len(s)} scores for {n} items")
    for name, lab in judge_labels.items():
        if len(lab) != n:
            raise ValueError(f"judge {name}: {len(lab)} labels for {n} items")
    split_list, split_by = assign_splits(items, rng.fork("splits"))
    split = np.array(split_list)
    dev, test = split == "dev", split == "test"
    gold = {c: np.array([it.label(c) for it in items], dtype=object) for c in CRITERIA}
    has_gold = np.array([all(it.label(c) is not None for c in CRITERIA) for it in items])
    etypes = np.array([it.error_type or "unknown" for it in items])
    et_counts = {str(k): int(v) for k, v in zip(*np.unique(etypes, return_counts=True), strict=True)}
    metrics: list[LabelerMetrics] = []
    bias: list[BiasRow] = []
    thresholds: dict[str, dict[str, float]] = {}
    predictions: dict[str, dict[str, np.ndarray]] = {}  # labeler -> criterion -> pred (object: bool/None)
    boot = rng.fork("bootstrap")

    calib_ok = {c: bool(has_gold[dev].any() and len({*gold[c][dev & has_gold]}) == 2) for c in CRITERIA}
    for name, s in scores.items():
        s = np.asarray(s, dtype=float)
        thresholds[name] = {}
        predictions[name] = {}
        for c in CRITERIA:
            if not calib_ok[c]:
                continue
            m = dev & has_gold
            t, dev_ba = calibrate_threshold(s[m], gold[c][m].astype(bool))
            thresholds[name][c] = t
            predictions[name][c] = (s < t).astype(object)
            metrics.append(_metrics_row(name, c, predictions[name][c], gold[c], test & has_gold, boot, n_boot,
                                        threshold=t, dev_ba=dev_ba))
    for name, lab in judge_labels.items():
        arr = np.array(list(lab), dtype=object)
        predictions[name] = {c: arr for c in CRITERIA}
        for c in CRITERIA:
            if has_gold.any():
                metrics.append(_metrics_row(name, c, arr, gold[c], test & has_gold, boot, n_boot))

    eval_mask = test & has_gold
    for name, per_c in predictions.items():
        for c, pred in per_c.items():
            for et in sorted(set(etypes[eval_mask])):
                m = eval_mask & (etypes == et) & np.array([p is not None for p in pred])
                if not m.any():
                    continue
                g, p = gold[c][m].astype(bool), pred[m].astype(bool)
                fp, fn = int((p & ~g).sum()), int((~p & g).sum())
                bias.append(BiasRow(labeler=name, criterion=c, error_type=str(et), n=int(m.sum()),
                                    n_gold_hallucinated=int(g.sum()), flag_rate=float(p.mean()),
                                    fpr=float(fp / (~g).sum()) if (~g).any() else None,
                                    fnr=float(fn / g.sum()) if g.any() else None))

    mismatch, drivers = _criterion_mismatch(scores, thresholds, predictions, gold, etypes, eval_mask, boot, n_boot)
    mcnemar = {}
    for judge, (fa, fc) in (judge_pairs or {}).items():
        a, b = np.array(judge_labels[fa], dtype=object), np.array(judge_labels[fc], dtype=object)
        ok = np.array([x is not None and y is not None for x, y in zip(a, b, strict=True)])
        mcnemar[judge] = mcnemar_exact(a[ok].astype(bool), b[ok].astype(bool))

    cochran: dict[str, CochranResult] = {}
    alpha: list[AlphaResult] = []
    names = [k for k in predictions if predictions[k]]
    for c in CRITERIA:
        cols = [k for k in names if c in predictions[k]]
        if len(cols) < 2:
            continue
        mask = test if test.any() else np.ones(n, dtype=bool)
        data = [[None if p is None else bool(p) for p in predictions[k][c][mask]] for k in cols]
        if eval_mask.any():
            valid = eval_mask & np.array([all(predictions[k][c][i] is not None for k in cols) for i in range(n)])
            corr = np.column_stack([predictions[k][c][valid].astype(bool) == gold[c][valid].astype(bool)
                                    for k in cols])
            cochran[c] = cochrans_q(corr.astype(int))
        a_val = krippendorff_alpha(data, level="nominal")
        if alpha_boot > 0 and not math.isnan(a_val):
            _, lo, hi = krippendorff_alpha_ci(data, level="nominal", rng=rng.fork("alpha", c).gen, n_boot=alpha_boot)
        else:
            lo = hi = math.nan
        alpha.append(AlphaResult(criterion=c, labelers=cols, alpha=float(a_val), low=float(lo), high=float(hi)))

    invalid_counts = {name: {"invalid": sum(1 for x in lab if x is None), "n": len(lab)}
                      for name, lab in judge_labels.items()}
    flag_rates = {name: float(np.mean([bool(x) for x in lab if x is not None])) if any(
        x is not None for x in lab) else math.nan for name, lab in judge_labels.items()}
    return AnalysisResult(injection=injection_rows(items, judge_labels), n_items=n, split_by=split_by, n_dev=int(dev.sum()), n_test=int(test.sum()), n_with_gold=int(has_gold.sum()),
                          error_type_counts=et_counts, thresholds=thresholds, metrics=metrics, bias=bias,
                          mismatch=mismatch, drivers=drivers, mcnemar=mcnemar, cochran=cochran, alpha=alpha,
                          invalid_counts=invalid_counts, flag_rates=flag_rates,
                          score_means={k: float(np.mean(v)) for k, v in scores.items()})


def bootstrap_stream(boot: Rng, labeler: str, criterion: str, stat: str = "metrics") -> np.random.Generator:
    """The resampling stream of one (labeler, criterion, statistic), forked by name.

    A labeler's CIs depend only on its own name and data (and the analysis seed), never on which other
    labelers are in the run or in what order they come. ``stat="metrics"`` is the one joint resample
    behind all of ``METRICS``; the criterion-mismatch kappas are that same statistic on the same test
    items, so they share its stream and equal the metrics table's kappa CIs."""
    return boot.fork(labeler, criterion, stat).gen


def _metrics_row(name, c, pred, gold_c, mask, boot: Rng, n_boot, threshold=None, dev_ba=None) -> LabelerMetrics:
    valid = mask & np.array([p is not None for p in pred])
    n_invalid = int((mask & ~valid).sum())
    g, p = gold_c[valid].astype(bool), pred[valid].astype(bool)
    return LabelerMetrics(labeler=name, criterion=c, threshold=threshold, dev_balanced_accuracy=dev_ba,
                          n=int(valid.sum()), n_invalid=n_invalid,
                          metrics=bootstrap_metrics(g, p, bootstrap_stream(boot, name, c), n_boot))


def _criterion_mismatch(scores, thresholds, predictions, gold, etypes, mask, boot: Rng, n_boot):
    mismatch: list[MismatchRow] = []
    drivers: list[DriverRow] = []
    if not mask.any():
        return mismatch, drivers
    gf, gc = gold["faithfulness"][mask].astype(bool), gold["factual"][mask].astype(bool)
    n_test = int(mask.sum())
    for name in scores:
        if set(thresholds.get(name, {})) != set(CRITERIA):
            continue
        pf = predictions[name]["faithfulness"][mask].astype(bool)
        pc = predictions[name]["factual"][mask].astype(bool)
        kf = bootstrap_metrics(gf, pf, bootstrap_stream(boot, name, "faithfulness"), n_boot)["kappa"]
        kc = bootstrap_metrics(gc, pc, bootstrap_stream(boot, name, "factual"), n_boot)["kappa"]
        mismatch.append(MismatchRow(labeler=name, kappa_faithfulness=kf, kappa_factual=kc,
                                    kappa_faithfulness_same_labels=binary_metrics(gf, pf)["kappa"],
                                    kappa_factual_same_labels=binary_metrics(gc, pf)["kappa"]))
        et = etypes[mask]
        for t in sorted(set(et)):
            m = et == t
            agree_f = int((pf[m] == gf[m]).sum())
            agree_c = int((pf[m] == gc[m]).sum())
            drivers.append(DriverRow(labeler=name, error_type=str(t), n=int(m.sum()), flag_rate=float(pf[m].mean()),
                                     gold_faithfulness=float(gf[m].mean()), gold_factual=float(gc[m].mean()),
                                     contribution=(agree_f - agree_c) / n_test))
    return mismatch, drivers
