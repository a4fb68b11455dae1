"""Responder-minus-reference contrasts from a fitted fixed-effects design, and multiplicity control.

A contrast is ``L @ beta`` where ``L`` is the difference of two design rows built by patsy from the
fit's own ``DesignInfo`` (the responder's cell minus the reference's cell, in the same stratum), so
no coefficient names are parsed and any coding of the stratum term works.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from patsy import build_design_matrices
from scipy import stats
from statsmodels.stats.multitest import multipletests

from .mixed import MixedFit
from .schema import Contrast

ADJUST_METHODS = {"holm": "holm", "bh": "fdr_bh"}
ADJUST_NAMES = {"holm": "Holm (family-wise error)", "bh": "Benjamini-Hochberg (false discovery rate)"}


def design_row(fit: MixedFit, cell: dict[str, object], template: pd.DataFrame) -> np.ndarray:
    """The fixed-effects design row of one cell (e.g. ``{"resp": "llm_a", "strat": "open"}``)."""
    row = template.iloc[[0]].copy()
    for k, v in cell.items():
        row[k] = pd.Categorical([v], categories=template[k].cat.categories)
    (mat,) = build_design_matrices([fit.design_info], row, return_type="matrix")
    return np.asarray(mat, dtype=float)[0]


def linear_contrast(fit: MixedFit, L: np.ndarray, confidence: float = 0.95, df: float | None = None) -> tuple[float, float, float, float, float]:
    """``(estimate, se, ci_low, ci_high, p)``; z-based unless ``df`` is given (then t with df)."""
    beta = fit.fe_params.to_numpy()
    cov = fit.cov_fe.to_numpy()
    est = float(L @ beta)
    se = float(np.sqrt(max(L @ cov @ L, 0.0)))
    dist = stats.norm if df is None else stats.t(df)
    q = float(dist.ppf(0.5 + confidence / 2))
    p = float(2 * dist.sf(abs(est) / se)) if se > 0 else float("nan")
    return est, se, est - q * se, est + q * se, p


def responder_contrasts(
    fit: MixedFit,
    template: pd.DataFrame,
    metric: str,
    reference: str,
    responders: Sequence[str],
    *,
    stratifier: str | None = None,
    strata: Sequence[str] = (),
    confidence: float = 0.95,
    counts: dict[tuple[str, str | None], int] | None = None,
) -> list[Contrast]:
    """One contrast per responder (x stratum when ``stratifier`` is set) against ``reference``."""
    out = []
    cells = [None] if stratifier is None else list(strata)
    for stratum in cells:
        extra = {} if stratum is None else {"strat": stratum}
        ref_row = design_row(fit, {"resp": reference, **extra}, template)
        for resp in responders:
            if resp == reference:
                continue
            L = design_row(fit, {"resp": resp, **extra}, template) - ref_row
            est, se, lo, hi, p = linear_contrast(fit, L, confidence)
            out.append(
                Contrast(
                    metric=metric, responder=resp, stratifier=stratifier, stratum=stratum,
                    estimate=est, se=se, ci_low=lo, ci_high=hi, p_value=p,
                    n_obs=(counts or {}).get((resp, stratum), 0),
                )
            )
    return out


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
