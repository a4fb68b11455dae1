"""Inter-rater reliability and agreement statistics shared by the judge flows.

Conventions (chosen to match the literature each statistic comes from):

* ``krippendorff_alpha(data, level=...)``: ``data`` is Krippendorff's *reliability data matrix*,
  one row per coder/rater, one column per unit; missing values are ``None``/``NaN``. Units with fewer
  than two values are not pairable and are ignored (Krippendorff 2011, "Computing Krippendorff's
  Alpha-Reliability").
* ``icc(matrix)``: Shrout & Fleiss (1979) layout, one row per target (unit), one column per rater, no
  missing values (two-way ANOVA needs a complete table; drop incomplete targets first with
  ``complete_targets``).
* Pairwise statistics (``cohen_kappa``, ``exact_agreement``, ``within_one_agreement``) take two
  equal-length sequences of scores, e.g. judge vs human.

Everything is pure numpy; no global random state (the bootstrap takes a Generator).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field
from scipy import stats

AlphaLevel = Literal["nominal", "ordinal", "interval", "ratio"]
ALPHA_LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio")


class ReliabilityError(ValueError):
    """Input that a reliability statistic cannot be computed from (says which input and why)."""


# --------------------------------------------------------------------------- Krippendorff's alpha


def _is_missing(v: Any) -> bool:
    if v is None:
        return True
    if isinstance(v, float) and math.isnan(v):
        return True
    if isinstance(v, np.floating) and np.isnan(v):
        return True
    return False


def _value_matrix(data: Any) -> list[list[Any]]:
    if hasattr(data, "to_numpy"):  # pandas DataFrame
        data = data.to_numpy(dtype=object)
    rows = [list(r) for r in data]
    if not rows:
        raise ReliabilityError("reliability data is empty (expected rows = raters, columns = units)")
    width = len(rows[0])
    for i, r in enumerate(rows):
        if len(r) != width:
            raise ReliabilityError(f"reliability data row {i} has {len(r)} units, row 0 has {width}")
    return rows


def _units_by_values(
    rows: list[list[Any]], level: str, value_domain: Sequence[Hashable] | None
) -> tuple[np.ndarray, list[Any]]:
    """Counts matrix (units x distinct values) and the sorted list of distinct values."""
    n_units = len(rows[0])
    observed = [v for r in rows for v in r if not _is_missing(v)]
    if value_domain is not None:
        domain = list(value_domain)
        if len(set(domain)) != len(domain):
            raise ReliabilityError("value_domain has duplicate values")
        unknown = sorted({repr(v) for v in observed if v not in set(domain)})
        if unknown:
            raise ReliabilityError(f"values not in value_domain: {', '.join(unknown[:10])}")
    else:
        distinct = set(observed)
        if level == "nominal":
            try:
                domain = sorted(distinct)
            except TypeError:
                domain = sorted(distinct, key=repr)
        else:
            bad = [v for v in distinct if not isinstance(v, (int, float, np.integer, np.floating)) or isinstance(v, bool)]
            if bad:
                raise ReliabilityError(
                    f"{level} alpha needs numeric values (or an ordered value_domain for ordinal); "
                    f"got {', '.join(sorted(repr(b) for b in bad)[:5])}"
                )
            domain = sorted(distinct)
    index = {v: i for i, v in enumerate(domain)}
    counts = np.zeros((n_units, len(domain)), dtype=float)
    for r in rows:
        for u, v in enumerate(r):
            if not _is_missing(v):
                counts[u, index[v]] += 1.0
    return counts, domain


def _delta2(level: str, domain: list[Any], n_c: np.ndarray) -> np.ndarray:
    """Squared difference function delta^2(c, k) over the value domain (Krippendorff 2011)."""
    m = len(domain)
    if level == "nominal":
        return 1.0 - np.eye(m)
    if level == "ordinal":
        # (sum_{g=c..k} n_g - (n_c + n_k)/2)^2 over ranks; works for any ordered domain.
        cum = np.concatenate([[0.0], np.cumsum(n_c)])
        i = np.arange(m)
        lo = np.minimum.outer(i, i)
        hi = np.maximum.outer(i, i)
        span = cum[hi + 1] - cum[lo]
        return (span - (n_c[:, None] + n_c[None, :]) / 2.0) ** 2
    x = np.asarray(domain, dtype=float)
    if level == "interval":
        return (x[:, None] - x[None, :]) ** 2
    if level == "ratio":
        s = x[:, None] + x[None, :]
        with np.errstate(invalid="ignore", divide="ignore"):
            d = ((x[:, None] - x[None, :]) / s) ** 2
        return np.where(s == 0, 0.0, d)
    raise ReliabilityError(f"level must be one of {ALPHA_LEVELS}, got {level!r}")


def coincidence_matrix(data: Any, value_domain: Sequence[Hashable] | None = None) -> tuple[np.ndarray, list[Any]]:
    """Krippendorff's coincidence matrix o_ck over pairable units, with its value list."""
    rows = _value_matrix(data)
    counts, domain = _units_by_values(rows, "nominal" if value_domain is None else "ordinal", value_domain)
    return _coincidences(counts), domain


def _coincidences(counts: np.ndarray) -> np.ndarray:
    m_u = counts.sum(axis=1)
    keep = m_u >= 2
    c = counts[keep]
    w = 1.0 / (m_u[keep] - 1.0)
    o = (c * w[:, None]).T @ c
    o -= np.diag((c * w[:, None]).sum(axis=0))
    return o


def krippendorff_alpha(
    data: Any,
    level: AlphaLevel = "nominal",
    value_domain: Sequence[Hashable] | None = None,
) -> float:
    """Krippendorff's alpha for ``data`` (rows = raters, columns = units; None/NaN = missing).

    ``level`` is the metric: nominal, ordinal, interval or ratio. For ordinal data with non-numeric
    labels pass the ordered ``value_domain`` (e.g. ``["low", "mid", "high"]``). Returns ``nan`` when
    there is no variation at all among pairable values (alpha is undefined: D_e = 0).
    """
    if level not in ALPHA_LEVELS:
        raise ReliabilityError(f"level must be one of {ALPHA_LEVELS}, got {level!r}")
    rows = _value_matrix(data)
    counts, domain = _units_by_values(rows, level, value_domain)
    if level in ("interval", "ratio") and value_domain is not None:
        try:
            [float(v) for v in domain]
        except (TypeError, ValueError):
            raise ReliabilityError(f"{level} alpha needs a numeric value_domain") from None
    o = _coincidences(counts)
    n_c = o.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        raise ReliabilityError("no pairable values: every unit has fewer than two ratings")
    d2 = _delta2(level, domain, n_c)
    d_o = float((o * d2).sum())
    d_e = float((np.outer(n_c, n_c) * d2).sum())
    if d_e == 0.0:
        return float("nan")
    return 1.0 - (n - 1.0) * d_o / d_e


def krippendorff_alpha_ci(
    data: Any,
    level: AlphaLevel = "nominal",
    *,
    rng: np.random.Generator,
    n_boot: int = 1000,
    confidence: float = 0.95,
    value_domain: Sequence[Hashable] | None = None,
) -> tuple[float, float, float]:
    """Alpha with a percentile bootstrap CI over units: ``(alpha, low, high)``.

    Units (columns) are resampled with replacement; the value domain and the ordinal ranks are
    recomputed per replicate, as a rerun of the study on other units would.
    """
    rows = _value_matrix(data)
    point = krippendorff_alpha(rows, level, value_domain)
    arr = np.empty((len(rows), len(rows[0])), dtype=object)
    for i, r in enumerate(rows):
        arr[i, :] = r
    n_units = arr.shape[1]
    reps = []
    for _ in range(n_boot):
        idx = rng.integers(0, n_units, size=n_units)
        try:
            a = krippendorff_alpha(arr[:, idx], level, value_domain)
        except ReliabilityError:
            continue
        if not math.isnan(a):
            reps.append(a)
    if not reps:
        return point, float("nan"), float("nan")
    tail = (1.0 - confidence) / 2.0
    lo, hi = np.quantile(np.asarray(reps), [tail, 1.0 - tail])
    return point, float(lo), float(hi)


# --------------------------------------------------------------------------- ICC (Shrout & Fleiss)


class IccResult(BaseModel):
    """Two-way random-effects ICCs (Shrout & Fleiss 1979 case 2) with McGraw & Wong (1996) CIs."""

    model_config = ConfigDict(frozen=True)

    n_targets: int
    n_raters: int
    icc2_1: float = Field(description="ICC(2,1): absolute agreement of a single rater")
    icc2_k: float = Field(description="ICC(2,k): absolute agreement of the mean of k raters")
    icc3_1: float = Field(description="ICC(3,1): consistency of a single rater (raters fixed)")
    icc3_k: float = Field(description="ICC(3,k): consistency of the mean of k raters")
    icc2_1_ci: tuple[float, float]
    icc2_k_ci: tuple[float, float]
    ms_targets: float
    ms_raters: float
    ms_error: float


def complete_targets(matrix: Any) -> np.ndarray:
    """Rows (targets) of a targets x raters table that have no missing value."""
    x = np.asarray(matrix, dtype=float)
    if x.ndim != 2:
        raise ReliabilityError(f"expected a 2-D targets x raters table, got shape {x.shape}")
    return x[~np.isnan(x).any(axis=1)]


def icc(matrix: Any, confidence: float = 0.95) -> IccResult:
    """ICC(2,1), ICC(2,k), ICC(3,1), ICC(3,k) from a complete targets x raters table."""
    x = np.asarray(matrix, dtype=float)
    if x.ndim != 2:
        raise ReliabilityError(f"expected a 2-D targets x raters table, got shape {x.shape}")
    if np.isnan(x).any():
        bad = np.flatnonzero(np.isnan(x).any(axis=1))[:10].tolist()
        raise ReliabilityError(
            f"ICC needs a complete table; targets (rows) with missing ratings: {bad} "
            "(use complete_targets() to drop them)"
        )
    n, k = x.shape
    if n < 2 or k < 2:
        raise ReliabilityError(f"ICC needs >= 2 targets and >= 2 raters, got {n} x {k}")
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_tot = ((x - grand) ** 2).sum()
    ss_err = ss_tot - ss_rows - ss_cols
    bms = ss_rows / (n - 1)
    jms = ss_cols / (k - 1)
    ems = ss_err / ((n - 1) * (k - 1))

    def _div(a: float, b: float) -> float:
        return a / b if b != 0 else float("nan")

    icc21 = _div(bms - ems, bms + (k - 1) * ems + k * (jms - ems) / n)
    icc2k = _div(bms - ems, bms + (jms - ems) / n)
    icc31 = _div(bms - ems, bms + (k - 1) * ems)
    icc3k = _div(bms - ems, bms)

    # McGraw & Wong (1996) CI for ICC(A,1) (= ICC(2,1)), Satterthwaite-type df.
    alpha = 1.0 - confidence
    lo1 = hi1 = lok = hik = float("nan")
    if ems > 0 and math.isfinite(icc21):
        p = icc21
        a = k * p / (n * (1 - p)) if p < 1 else float("inf")
        b = 1 + k * p * (n - 1) / (n * (1 - p)) if p < 1 else float("inf")
        if math.isfinite(a) and math.isfinite(b):
            v_num = (a * jms + b * ems) ** 2
            v_den = (a * jms) ** 2 / (k - 1) + (b * ems) ** 2 / ((n - 1) * (k - 1))
            v = v_num / v_den if v_den > 0 else float("inf")
            f_u = stats.f.ppf(1 - alpha / 2, n - 1, v)
            f_l = stats.f.ppf(1 - alpha / 2, v, n - 1)
            lo1 = n * (bms - f_u * ems) / (f_u * (k * jms + (k * n - k - n) * ems) + n * bms)
            hi1 = n * (f_l * bms - ems) / (k * jms + (k * n - k - n) * ems + n * f_l * bms)
            # Spearman-Brown step-up for the mean of k raters.
            lok = k * lo1 / (1 + (k - 1) * lo1)
            hik = k * hi1 / (1 + (k - 1) * hi1)
    return IccResult(
        n_targets=n,
        n_raters=k,
        icc2_1=float(icc21),
        icc2_k=float(icc2k),
        icc3_1=float(icc31),
        icc3_k=float(icc3k),
        icc2_1_ci=(float(lo1), float(hi1)),
        icc2_k_ci=(float(lok), float(hik)),
        ms_targets=float(bms),
        ms_raters=float(jms),
        ms_error=float(ems),
    )


# --------------------------------------------------------------------------- pairwise agreement


def _pair(a: Sequence[Any], b: Sequence[Any]) -> tuple[np.ndarray, np.ndarray]:
    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1:
        raise ReliabilityError(f"expected two equal-length 1-D score sequences, got {x.shape} and {y.shape}")
    keep = ~(np.isnan(x) | np.isnan(y))
    if not keep.any():
        raise ReliabilityError("no pair of scores where both raters have a value")
    return x[keep], y[keep]


def exact_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """Share of units where both raters gave the same score (pairs with a missing value dropped)."""
    x, y = _pair(a, b)
    return float(np.mean(x == y))


def within_one_agreement(a: Sequence[Any], b: Sequence[Any]) -> float:
    """Share of units where the two scores differ by at most one scale point."""
    x, y = _pair(a, b)
    return float(np.mean(np.abs(x - y) <= 1.0))


def cohen_kappa(
    a: Sequence[Any],
    b: Sequence[Any],
    weights: Literal["none", "linear", "quadratic"] = "quadratic",
    labels: Sequence[float] | None = None,
) -> float:
    """Cohen's kappa between two raters; quadratic weights by default (ordinal Likert scores).

    ``labels`` fixes the category set (e.g. the full Likert scale 1..5); by default the union of
    observed scores. Weights use category *positions*, as scikit-learn's ``cohen_kappa_score`` does.
    """
    x, y = _pair(a, b)
    cats = np.asarray(sorted(set(x.tolist()) | set(y.tolist())) if labels is None else list(labels), dtype=float)
    idx = {v: i for i, v in enumerate(cats.tolist())}
    try:
        xi = np.array([idx[v] for v in x.tolist()])
        yi = np.array([idx[v] for v in y.tolist()])
    except KeyError as err:
        raise ReliabilityError(f"score {err.args[0]!r} is not among labels {cats.tolist()}") from None
    m = len(cats)
    conf = np.zeros((m, m))
    np.add.at(conf, (xi, yi), 1.0)
    expected = np.outer(conf.sum(axis=1), conf.sum(axis=0)) / conf.sum()
    pos = np.arange(m, dtype=float)
    if weights == "none":
        w = 1.0 - np.eye(m)
    elif weights == "linear":
        w = np.abs(pos[:, None] - pos[None, :])
    elif weights == "quadratic":
        w = (pos[:, None] - pos[None, :]) ** 2
    else:
        raise ReliabilityError(f"weights must be none, linear or quadratic, got {weights!r}")
    denom = (w * expected).sum()
    if denom == 0:
        return float("nan")
    return float(1.0 - (w * conf).sum() / denom)


class AgreementSummary(BaseModel):
    """Judge-vs-reference agreement on one metric (what the rubric report prints)."""

    model_config = ConfigDict(frozen=True)

    n: int
    exact: float
    within_one: float
    kappa_quadratic: float
    icc2_1: float
    mean_difference: float = Field(description="mean(a - b) in scale points")


def agreement_summary(a: Sequence[Any], b: Sequence[Any], labels: Sequence[float] | None = None) -> AgreementSummary:
    """Exact, within-one, quadratic kappa and ICC(2,1) between two score vectors."""
    x, y = _pair(a, b)
    try:
        icc21 = icc(np.column_stack([x, y])).icc2_1 if len(x) >= 2 else float("nan")
    except ReliabilityError:
        icc21 = float("nan")
    return AgreementSummary(
        n=len(x),
        exact=exact_agreement(x, y),
        within_one=within_one_agreement(x, y),
        kappa_quadratic=cohen_kappa(x, y, "quadratic", labels),
        icc2_1=float(icc21),
        mean_difference=float(np.mean(x - y)),
    )
