"""Cross-check backend: crossed random intercepts with statsmodels MixedLM, every optimizer, best kept.

The default engine is our own solver (``lmm.py``); this backend stays as an independent check.

Crossed random effects in statsmodels: one all-ones group, *no* group random intercept
(``re_formula="0"``: a single group's variance is not identifiable, and its estimate collapsing to 0
is exactly what triggers statsmodels #10239) and one variance component per crossed factor
(``vc_formula={"rater": "0+C(rater)", "item": "0+C(item)"}``).

Every optimizer in ``methods`` is run and the usable fit with the highest REML log-likelihood is kept:
statsmodels' lbfgs can report "converged" at a point below the optimum (seen on 255-row
encounter-level metrics: -306.067 vs -305.044), so a claim of convergence is not trusted on its own.
An attempt is unusable on any of the known bad outcomes; if all are, the last resort is OLS with
cluster-robust (by item) SEs.

* an exception (e.g. ``LinAlgError: Singular matrix`` from lbfgs at a singular start),
* ``converged=False``,
* non-finite fixed effects or standard errors (non-positive-definite Hessian),
* every fixed effect exactly 0.0 (statsmodels #10239: with lbfgs, a variance that falls below
  ``tol`` makes ``get_fe_params`` return zeros while still reporting convergence).

Variances at the boundary (< 1e-6 of the residual variance) are legitimate REML estimates; they are
listed in the diagnostics, not refit.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import statsmodels.formula.api as smf

from .schema import FitDiagnostics

DEFAULT_METHODS: tuple[str, ...] = ("lbfgs", "bfgs", "powell", "nm")
BOUNDARY_RATIO = 1e-6


@dataclass
class MixedFit:
    """Fixed effects with their covariance, the design info to build contrasts, and diagnostics."""

    fe_params: pd.Series
    cov_fe: pd.DataFrame
    design_info: object  # patsy DesignInfo of the fixed-effects design
    diagnostics: FitDiagnostics


def fixed_effects_zeroed(fe_params: Sequence[float]) -> bool:
    """The statsmodels #10239 signature: every fixed effect exactly 0.0."""
    arr = np.asarray(fe_params, dtype=float)
    return arr.size > 0 and bool(np.all(arr == 0.0))


def _short(msg: object) -> str:
    text = " ".join(str(msg).split())
    return text[:160]


def fit_crossed(
    data: pd.DataFrame,
    formula: str,
    vc: dict[str, str],
    *,
    methods: Sequence[str] = DEFAULT_METHODS,
    reml: bool = True,
    cluster: str = "item",
    maxiter: int = 300,
) -> MixedFit:
    """Fit ``formula`` with crossed variance components ``vc`` by every method; keep the best (module doc)."""
    t0 = time.perf_counter()
    frame = data.copy()
    frame["_all"] = 1
    attempts: list[str] = []
    seen_warnings: list[str] = []
    zeroed = False
    model = smf.mixedlm(formula, frame, groups="_all", re_formula="0", vc_formula=vc)
    k_fe = model.k_fe
    best: tuple[float, str, object, np.ndarray, np.ndarray] | None = None
    for method in methods:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                res = model.fit(method=method, reml=reml, maxiter=maxiter)
            except (np.linalg.LinAlgError, ValueError, FloatingPointError, ZeroDivisionError) as err:
                attempts.append(f"{method}: error {type(err).__name__}: {_short(err)}")
                continue
        msgs = sorted({_short(w.message) for w in caught})
        fe = np.asarray(res.fe_params, dtype=float)
        cov = np.asarray(res.cov_params(), dtype=float)[:k_fe, :k_fe]
        se = np.sqrt(np.diag(cov)) if np.all(np.isfinite(cov)) else np.full(k_fe, np.nan)
        if fixed_effects_zeroed(fe):
            zeroed = True
            attempts.append(f"{method}: all fixed effects exactly 0 (statsmodels #10239)")
            continue
        if not np.all(np.isfinite(fe)) or not np.all(np.isfinite(se)) or np.any(se <= 0):
            attempts.append(f"{method}: non-finite fixed effects or standard errors")
            continue
        if not res.converged:
            attempts.append(f"{method}: converged=False")
            continue
        llf = float(res.llf)
        attempts.append(f"{method}: ok, log-lik {llf:.6f}")
        seen_warnings.extend(m for m in msgs if m not in seen_warnings)
        if best is None or llf > best[0]:
            best = (llf, method, res, fe, cov)
    if best is not None:
        llf, method, res, fe, cov = best
        lls = [float(a.rsplit(" ", 1)[1]) for a in attempts if ": ok, log-lik " in a]
        spread = 2 * (max(lls) - min(lls))
        if spread > 1e-3:
            seen_warnings.append(f"optimizers disagree: log-lik {min(lls):.3f} to {max(lls):.3f}; kept {method}")
        vcomp = dict(zip(model.exog_vc.names, (float(v) for v in np.atleast_1d(res.vcomp)), strict=True))
        scale = float(res.scale)
        boundary = [k for k, v in vcomp.items() if v < BOUNDARY_RATIO * max(scale, 1e-12)]
        names = list(model.exog_names[:k_fe])
        return MixedFit(
            fe_params=pd.Series(fe, index=names),
            cov_fe=pd.DataFrame(cov, index=names, columns=names),
            design_info=model.data.model_spec,
            diagnostics=FitDiagnostics(
                method=method, attempts=attempts, converged=True, refit=method != methods[0],
                criterion="REML" if reml else "ML", loglik=llf, criterion_spread=spread,
                boundary=boundary, zeroed_fixed_effects=zeroed,
                warnings=seen_warnings, variance_components=vcomp, residual_variance=scale,
                n_obs=len(frame), seconds=time.perf_counter() - t0,
            ),
        )
    return _ols_fallback(frame, formula, cluster, attempts, zeroed, t0)


def _ols_fallback(
    frame: pd.DataFrame, formula: str, cluster: str, attempts: list[str], zeroed: bool, t0: float
) -> MixedFit:
    """OLS point estimates with cluster-robust SEs: still valid inference when every LMM fit failed."""
    groups = pd.factorize(frame[cluster])[0]
    ols = smf.ols(formula, frame).fit(cov_type="cluster", cov_kwds={"groups": groups})
    attempts.append(f"ols_cluster: ok (clusters={cluster}, n={int(groups.max()) + 1})")
    names = list(ols.params.index)
    return MixedFit(
        fe_params=pd.Series(np.asarray(ols.params, dtype=float), index=names),
        cov_fe=pd.DataFrame(np.asarray(ols.cov_params(), dtype=float), index=names, columns=names),
        design_info=ols.model.data.model_spec,
        diagnostics=FitDiagnostics(
            method="ols_cluster", attempts=attempts, converged=False, refit=True, zeroed_fixed_effects=zeroed,
            warnings=["all mixed-model attempts failed; OLS with cluster-robust SEs used"],
            residual_variance=float(ols.scale), n_obs=len(frame), seconds=time.perf_counter() - t0,
        ),
    )


__all__ = ["DEFAULT_METHODS", "MixedFit", "fit_crossed", "fixed_effects_zeroed"]
