"""Contrasts, estimated marginal means and fixed-effect tables from any fitted backend; multiplicity.

A contrast is ``L @ beta`` where ``L`` is the difference of two design rows (the responder's cell minus
the reference's cell, in the same stratum), so no coefficient names are parsed. An EMM is one design
row (emmeans' reference grid: with responder and stratum as the only factors, the cell itself). Every
estimate is t-based with the backend's Satterthwaite df when it has them (ours, R), z-based otherwise
(statsmodels). A row that is not estimable (a responder never rated in a stratum) yields no number but
a stated exclusion.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pandas as pd
from scipy import special, stats
from statsmodels.stats.multitest import multipletests

from .design import FixedDesign, is_estimable
from .lmm_solver import LmmFit
from .schema import Coefficient, Contrast, MarginalMean

ADJUST_METHODS = {"holm": "holm", "bh": "fdr_bh"}
ADJUST_NAMES = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


class Estimator(Protocol):
    """What contrasts need from a fit: design rows, and ``(estimate, se, df)`` of ``L beta``."""

    names: list[str]

    def row(self, cell: dict[str, str]) -> np.ndarray: ...

    def estimate(self, L: np.ndarray) -> tuple[float, float, float | None] | None: ...


@dataclass
class LmmEstimator:
    """Our solver's fit on the kept (non-aliased) columns of a ``FixedDesign``."""

    design: FixedDesign
    kept: np.ndarray
    null: np.ndarray
    fit: LmmFit

    @property
    def names(self) -> list[str]:
        return [self.design.names[i] for i in self.kept]

    def row(self, cell: dict[str, str]) -> np.ndarray:
        return self.design.row(cell)

    def estimate(self, L: np.ndarray) -> tuple[float, float, float | None] | None:
        if not is_estimable(L, self.null):
            return None
        return self.fit.contrast(L[self.kept])


@dataclass
class PatsyEstimator:
    """A statsmodels fit: rows from its patsy DesignInfo, z-based (no df)."""

    fe_params: pd.Series
    cov_fe: pd.DataFrame
    design_info: object
    template: pd.DataFrame

    @property
    def names(self) -> list[str]:
        return list(self.fe_params.index)

    def row(self, cell: dict[str, str]) -> np.ndarray:
        from patsy import build_design_matrices

        frame = self.template.iloc[[0]].copy()
        for k, v in cell.items():
            frame[k] = pd.Categorical([v], categories=self.template[k].cat.categories)
        (mat,) = build_design_matrices([self.design_info], frame, return_type="matrix")
        return np.asarray(mat, dtype=float)[0]

    def estimate(self, L: np.ndarray) -> tuple[float, float, float | None] | None:
        est = float(L @ self.fe_params.to_numpy())
        var = float(L @ self.cov_fe.to_numpy() @ L)
        return est, float(np.sqrt(max(var, 0.0))), None


def interval(est: float, se: float, df: float | None, confidence: float) -> tuple[float, float, float]:
    """``(ci_low, ci_high, p)``: t with ``df`` when given, z otherwise; NaN when df/se are unusable."""
    if df is not None and not (np.isfinite(df) and df > 0):
        return float("nan"), float("nan"), float("nan")
    level = 0.5 + confidence / 2
    if df is None:
        q = float(stats.norm.ppf(level))
        p = float(2 * stats.norm.sf(abs(est) / se)) if se > 0 else float("nan")
    else:  # scipy.special directly: a frozen scipy.stats.t costs ~1 ms to build
        q = float(special.stdtrit(df, level))
        p = float(2 * special.stdtr(df, -abs(est) / se)) if se > 0 else float("nan")
    return est - q * se, est + q * se, p


def responder_estimates(
    est: Estimator,
    metric: str,
    reference: str,
    responders: Sequence[str],
    *,
    stratifier: str | None = None,
    strata: Sequence[str] = (),
    confidence: float = 0.95,
    counts: dict[tuple[str, str | None], int] | None = None,
) -> tuple[list[Contrast], list[MarginalMean], list[str]]:
    """Per responder (x stratum): its contrast against ``reference`` and its emmeans-style EMM, and the
    contrasts that are not estimable, named. A non-estimable EMM cell is left out."""
    contrasts: list[Contrast] = []
    emms: list[MarginalMean] = []
    skipped: list[str] = []
    counts = counts or {}
    for stratum in [None] if stratifier is None else list(strata):
        extra = {} if stratum is None else {"strat": stratum}
        ref_row = est.row({"resp": reference, **extra})
        for resp in responders:
            row = est.row({"resp": resp, **extra})
            cell = dict(metric=metric, responder=resp, stratifier=stratifier, stratum=stratum,
                        n_obs=counts.get((resp, stratum), 0))
            mean = est.estimate(row)
            if mean is not None:
                e, se, df = mean
                lo, hi, _ = interval(e, se, df, confidence)
                emms.append(MarginalMean(estimate=e, se=se, df=df, ci_low=lo, ci_high=hi, **cell))
            if resp == reference:
                continue
            got = est.estimate(row - ref_row)
            if got is None:
                where = f"{metric}" + (f" x {stratifier}={stratum}" if stratum is not None else "")
                skipped.append(f"{where}: {resp} vs {reference} not estimable ({cell['n_obs']} vs "
                               f"{counts.get((reference, stratum), 0)} scores)")
                continue
            e, se, df = got
            lo, hi, p = interval(e, se, df, confidence)
            contrasts.append(Contrast(estimate=e, se=se, ci_low=lo, ci_high=hi, p_value=p, df=df, **cell))
    return contrasts, emms, skipped


def coefficient_table(est: Estimator) -> list[Coefficient]:
    """Every fixed effect with its t test (Satterthwaite df where the backend has them)."""
    rows = []
    p = len(est.names)
    for j, name in enumerate(est.names):
        L = np.zeros(p)
        L[j] = 1.0
        got = est.estimate(_full(est, L))
        if got is None:
            continue
        e, se, df = got
        _, _, pv = interval(e, se, df, 0.95)
        rows.append(Coefficient(name=name, estimate=e, se=se, df=df, t=e / se if se > 0 else float("nan"),
                                p_value=pv))
    return rows


def _full(est: Estimator, L_kept: np.ndarray) -> np.ndarray:
    if isinstance(est, LmmEstimator):
        full = np.zeros(len(est.design.names))
        full[est.kept] = L_kept
        return full
    return L_kept


def adjust(contrasts: list[Contrast], method: str, alpha: float = 0.05) -> list[Contrast]:
    """Multiplicity-adjusted p-values over ``contrasts`` as one family (Holm or BH)."""
    if method not in ADJUST_METHODS:
        raise ValueError(f"adjust method must be one of {sorted(ADJUST_METHODS)}, got {method!r}")
    if not contrasts:
        return []
    p = np.array([c.p_value for c in contrasts], dtype=float)
    ok = np.isfinite(p)
    adj = np.full(p.shape, np.nan)
    if ok.any():
        adj[ok] = multipletests(p[ok], alpha=alpha, method=ADJUST_METHODS[method])[1]
    return [
        c.model_copy(update={
            "p_adjusted": float(a), "adjust_method": method,
            "significant": bool(a < alpha) if np.isfinite(a) else None,
        })
        for c, a in zip(contrasts, adj, strict=True)
    ]


__all__ = ["ADJUST_NAMES", "Estimator", "LmmEstimator", "PatsyEstimator", "adjust", "coefficient_table",
           "interval", "responder_estimates"]
