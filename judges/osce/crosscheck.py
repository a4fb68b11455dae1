"""Agreement of two analyses of the same ratings (ours vs the lme4/lmerTest reference), within tolerances.

Compared per fit (metric x model): every fixed effect's estimate, SE, df and p-value, every contrast's,
every variance component including the residual, and the log-likelihood. Relative differences use
``|a - b| / max(|b|, floor)`` so that values near zero are judged on a meaningful scale: an estimate's
floor is its standard error, a variance component's is ``VC_FLOOR`` x the residual variance. p-values
are compared absolutely. The tolerances default to the issue's acceptance: 1e-4 relative for
estimates, SEs and variance components, 0.5% for Satterthwaite df, 1e-4 absolute for p-values.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
from pydantic import BaseModel, ConfigDict

from .schema import AnalysisResult, MetricFit

VC_FLOOR = 1e-4


class Tolerances(BaseModel):
    model_config = ConfigDict(extra="forbid")

    rel: float = 1e-4
    df_rel: float = 5e-3
    p_abs: float = 1e-4
    loglik_abs: float = 1e-4


class CrossCheck(BaseModel):
    """Every compared quantity's largest deviation, and each one outside its tolerance, named."""

    max_deviation: dict[str, float]
    compared: dict[str, int]
    failures: list[str]

    @property
    def ok(self) -> bool:
        return not self.failures


def _key(f: MetricFit) -> tuple[str, str]:
    return f.metric, f.stratifier or "main"


def _rows(a: MetricFit, b: MetricFit) -> Iterable[tuple[str, str, float, float, float]]:
    """(quantity, name, ours, reference, denominator floor) for one pair of fits."""
    ca = {c.name: c for c in a.coefficients}
    cb = {c.name: c for c in b.coefficients}
    for name in sorted(set(ca) | set(cb)):
        if name not in ca or name not in cb:
            yield "missing", f"coefficient {name}", np.nan, np.nan, 0.0
            continue
        x, y = ca[name], cb[name]
        yield "estimate", f"coefficient {name}", x.estimate, y.estimate, y.se
        yield "se", f"coefficient {name}", x.se, y.se, 0.0
        yield "df", f"coefficient {name}", np.nan if x.df is None else x.df, np.nan if y.df is None else y.df, 0.0
        yield "p", f"coefficient {name}", x.p_value, y.p_value, 0.0
    ka = {(c.responder, c.stratum): c for c in a.contrasts}
    kb = {(c.responder, c.stratum): c for c in b.contrasts}
    for k in sorted(set(ka) | set(kb), key=str):
        label = f"contrast {k[0]}" + (f" in {k[1]}" if k[1] is not None else "")
        if k not in ka or k not in kb:
            yield "missing", label, np.nan, np.nan, 0.0
            continue
        x, y = ka[k], kb[k]
        yield "estimate", label, x.estimate, y.estimate, y.se
        yield "se", label, x.se, y.se, 0.0
        yield "df", label, np.nan if x.df is None else x.df, np.nan if y.df is None else y.df, 0.0
        yield "p", label, x.p_value, y.p_value, 0.0
    da, db = a.diagnostics, b.diagnostics
    resid = db.residual_variance or 0.0
    va = {**da.variance_components, "residual": da.residual_variance or np.nan}
    vb = {**db.variance_components, "residual": db.residual_variance or np.nan}
    for name in sorted(set(va) | set(vb)):
        if name not in va or name not in vb:
            yield "missing", f"variance {name}", np.nan, np.nan, 0.0
            continue
        yield "variance", f"variance {name}", va[name], vb[name], VC_FLOOR * resid
    if da.loglik is not None and db.loglik is not None:
        yield "loglik", "log-likelihood", da.loglik, db.loglik, 0.0


def compare_results(ours: AnalysisResult, ref: AnalysisResult, tol: Tolerances | None = None) -> CrossCheck:
    """Compare every fit of ``ours`` with the same fit of ``ref`` (see module doc)."""
    t = tol or Tolerances()
    fa = {_key(f): f for f in ours.fits}
    fb = {_key(f): f for f in ref.fits}
    worst: dict[str, float] = {}
    count: dict[str, int] = {}
    failures: list[str] = []
    for key in sorted(set(fa) | set(fb)):
        where = f"{key[0]} {key[1]}"
        if key not in fa or key not in fb:
            failures.append(f"{where}: fitted by only one side")
            continue
        for quantity, name, x, y, floor in _rows(fa[key], fb[key]):
            if quantity == "missing":
                failures.append(f"{where}: {name} present on only one side")
                continue
            if quantity in ("p", "loglik"):
                dev, limit = abs(x - y), (t.p_abs if quantity == "p" else t.loglik_abs)
            else:
                dev = abs(x - y) / max(abs(y), floor, 1e-300)
                limit = t.df_rel if quantity == "df" else t.rel
            if np.isnan(x) and np.isnan(y):
                continue
            count[quantity] = count.get(quantity, 0) + 1
            if not np.isfinite(dev) or dev > limit:
                failures.append(f"{where}: {name} {quantity} {x:.6g} vs {y:.6g} (deviation {dev:.2g} > {limit:g})")
                dev = np.inf if not np.isfinite(dev) else dev
            worst[quantity] = max(worst.get(quantity, 0.0), float(dev))
    return CrossCheck(max_deviation=worst, compared=count, failures=failures)


def deviation_table(checks: Iterable[CrossCheck]) -> pd.DataFrame:
    """Largest deviation per quantity over several checks (e.g. 20 seeds)."""
    rows: dict[str, dict[str, float]] = {}
    for c in checks:
        for q, v in c.max_deviation.items():
            r = rows.setdefault(q, {"max_deviation": 0.0, "compared": 0})
            r["max_deviation"] = max(r["max_deviation"], v)
            r["compared"] += c.compared.get(q, 0)
    return pd.DataFrame.from_dict(rows, orient="index")


__all__ = ["CrossCheck", "Tolerances", "compare_results", "deviation_table"]
