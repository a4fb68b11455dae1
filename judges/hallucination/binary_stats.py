"""Statistics of binary labels (positive = hallucinated) that the labeler analysis is made of.

Metrics from confusion counts, vectorised over bootstrap replicates (scikit-learn's conventions), their
stratified percentile bootstrap CIs, a score threshold calibrated by balanced accuracy, the exact McNemar
test on paired labels and Cochran's Q over several labelers (each as statsmodels computes it). A
statistic over fewer than ``MIN_N`` items is undefined (NaN), not 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field
from scipy import stats

METRICS: tuple[str, ...] = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa")


# ----------------------------------------------------------------------------- metrics from counts
def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))


def metrics_from_counts(tp, fp, fn, tn) -> dict[str, np.ndarray]:
    """All metrics from confusion counts (scalars or arrays, vectorised over bootstrap replicates).

    Conventions follow scikit-learn: precision/recall/F1/MCC are 0 when undefined; balanced accuracy
    averages the recall of the classes present in the gold labels; kappa is NaN when p_e = 1.
    """
    tp, fp, fn, tn = (np.asarray(x, dtype=float) for x in (tp, fp, fn, tn))
    n = tp + fp + fn + tn
    pos, neg = tp + fn, tn + fp
    prec = _div(tp, tp + fp)
    rec = _div(tp, pos)
    spec = _div(tn, neg)
    f1 = _div(2 * tp, 2 * tp + fp + fn)
    present = (pos > 0).astype(float) + (neg > 0).astype(float)
    ba = _div(np.where(pos > 0, rec, 0) + np.where(neg > 0, spec, 0), present)
    denom = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = _div(tp * tn - fp * fn, denom)
    po = _div(tp + tn, n)
    pe = _div((tp + fp) * pos + (tn + fn) * neg, n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(1 - pe == 0, np.nan, (po - pe) / np.where(1 - pe == 0, 1, 1 - pe))
    return {"accuracy": po, "balanced_accuracy": ba, "precision": prec, "recall": rec, "f1": f1, "mcc": mcc,
            "kappa": kappa}


def confusion(y_true: Sequence[bool], y_pred: Sequence[bool]) -> tuple[int, int, int, int]:
    t, p = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    if t.shape != p.shape:
        raise ValueError(f"label arrays differ in length: {t.shape} vs {p.shape}")
    return int((t & p).sum()), int((~t & p).sum()), int((t & ~p).sum()), int((~t & ~p).sum())


def binary_metrics(y_true: Sequence[bool], y_pred: Sequence[bool]) -> dict[str, float]:
    return {k: float(v) for k, v in metrics_from_counts(*confusion(y_true, y_pred)).items()}


MIN_N = 2
"""Fewer paired items than this and a statistic is undefined (n/a), not 0."""


class MetricCI(BaseModel):
    value: float
    low: float
    high: float


def bootstrap_metrics(y_true: Sequence[bool], y_pred: Sequence[bool], rng: np.random.Generator,
                      n_boot: int = 1000, confidence: float = 0.95) -> dict[str, MetricCI]:
    """Point estimates + stratified percentile bootstrap CIs (gold positives/negatives resampled apart)."""
    t, p = np.asarray(y_true, dtype=bool), np.asarray(y_pred, dtype=bool)
    if len(t) < MIN_N:  # nothing to estimate: undefined, not 0 (the report prints n/a with the n)
        return {k: MetricCI(value=math.nan, low=math.nan, high=math.nan) for k in METRICS}
    point = metrics_from_counts(*confusion(t, p))
    pp, pn = p[t], p[~t]
    tp = (pp[rng.integers(0, len(pp), (n_boot, len(pp)))].sum(axis=1) if len(pp) else np.zeros(n_boot))
    fp = (pn[rng.integers(0, len(pn), (n_boot, len(pn)))].sum(axis=1) if len(pn) else np.zeros(n_boot))
    boot = metrics_from_counts(tp, fp, len(pp) - tp, len(pn) - fp)
    a = (1 - confidence) / 2 * 100
    out = {}
    for k in METRICS:
        vals = boot[k][~np.isnan(boot[k])]
        lo, hi = (np.percentile(vals, [a, 100 - a]) if len(vals) else (math.nan, math.nan))
        out[k] = MetricCI(value=float(point[k]), low=float(lo), high=float(hi))
    return out


# ----------------------------------------------------------------------------- calibration
def calibrate_threshold(scores: Sequence[float], hallucinated: Sequence[bool]) -> tuple[float, float]:
    """Threshold t maximising balanced accuracy of ``score < t => hallucinated`` on these (dev) items.

    Candidate cuts lie midway between consecutive distinct scores (plus both ends); ties go to the
    cut with the smallest number of flagged items. Returns ``(t, balanced accuracy at t)``.
    """
    s, y = np.asarray(scores, dtype=float), np.asarray(hallucinated, dtype=bool)
    if len(s) == 0 or y.all() or (~y).all():
        raise ValueError("calibration needs dev items of both classes")
    order = np.argsort(s, kind="stable")
    s, y = s[order], y[order]
    P, N = y.sum(), (~y).sum()
    cum_pos = np.concatenate([[0], np.cumsum(y)])  # flagged positives when the first k are flagged
    cum_neg = np.concatenate([[0], np.cumsum(~y)])
    ks = np.concatenate([[0], np.nonzero(np.diff(s) > 0)[0] + 1, [len(s)]])
    ba = (cum_pos[ks] / P + (N - cum_neg[ks]) / N) / 2
    best = int(np.argmax(ba))
    k = int(ks[best])
    if k == 0:
        t = float(s[0]) - 1e-9
    elif k == len(s):
        t = float(s[-1]) + 1e-9
    else:
        t = float((s[k - 1] + s[k]) / 2)
    return t, float(ba[best])


# ----------------------------------------------------------------------------- paired tests
class McNemarResult(BaseModel):
    b: int = Field(description="first says hallucinated, second not")
    c: int = Field(description="second says hallucinated, first not")
    n: int
    statistic: float
    p_value: float


def mcnemar_exact(a: Sequence[bool], b: Sequence[bool]) -> McNemarResult:
    """Exact (binomial) McNemar test on paired binary labels, as statsmodels' mcnemar(exact=True)."""
    x, y = np.asarray(a, dtype=bool), np.asarray(b, dtype=bool)
    n01, n10 = int((x & ~y).sum()), int((~x & y).sum())
    m = n01 + n10
    if len(x) < MIN_N:
        return McNemarResult(b=n01, c=n10, n=len(x), statistic=math.nan, p_value=math.nan)
    p = 1.0 if m == 0 else min(1.0, 2 * float(stats.binom.cdf(min(n01, n10), m, 0.5)))
    return McNemarResult(b=n01, c=n10, n=len(x), statistic=float(min(n01, n10)), p_value=p)


class CochranResult(BaseModel):
    q: float
    df: int
    p_value: float
    n: int


def cochrans_q(matrix: np.ndarray) -> CochranResult:
    """Cochran's Q over a (items x k) binary matrix; as statsmodels' cochrans_q."""
    x = np.asarray(matrix, dtype=float)
    n, k = x.shape
    if k < 2:
        raise ValueError("Cochran's Q needs at least two labelers")
    if n < MIN_N:
        return CochranResult(q=math.nan, df=k - 1, p_value=math.nan, n=n)
    col, row = x.sum(axis=0), x.sum(axis=1)
    total = x.sum()
    denom = k * total - (row ** 2).sum()
    q = 0.0 if denom == 0 else (k - 1) * (k * (col ** 2).sum() - total ** 2) / denom
    return CochranResult(q=float(q), df=k - 1, p_value=float(stats.chi2.sf(q, k - 1)), n=n)


__all__ = ["METRICS", "MIN_N", "CochranResult", "McNemarResult", "MetricCI", "binary_metrics", "bootstrap_metrics",
           "calibrate_threshold", "cochrans_q", "confusion", "mcnemar_exact", "metrics_from_counts"]
