"""Optional R backend: lme4 ``lmer`` + lmerTest Satterthwaite degrees of freedom, via ``Rscript``.

Same model and contrasts as the statsmodels backend (treatment coding against the reference,
crossed random intercepts for rater and item, responder x stratum interaction for stratified fits),
but t-based CIs and p-values with Satterthwaite df (``lmerTest::contest``). Each contrast's ``L`` is
the difference of two rows of R's own ``model.matrix`` for the responder and reference cells, so the
R column order never has to match patsy's. Needs ``Rscript`` with lme4 and lmerTest on PATH
(Debian: ``apt-get install r-cran-lmertest``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from functools import lru_cache
from pathlib import Path

import pandas as pd

from .schema import Contrast, FitDiagnostics, MetricFit

_SCRIPT = r"""
suppressPackageStartupMessages(library(lmerTest))
a <- commandArgs(TRUE)
d <- read.csv(a[1], colClasses = "character")
d$score <- as.numeric(d$score)
resp_levels <- readLines(a[2])
d$resp <- factor(d$resp, levels = resp_levels)
strat <- a[3] == "1"
conf <- as.numeric(a[4])
use_unit <- a[5] == "1"
if (strat) {
  strat_levels <- readLines(a[6])
  d$strat <- factor(d$strat, levels = strat_levels)
  fixed <- ~ resp * strat
} else {
  strat_levels <- NA
  fixed <- ~ resp
}
rhs <- paste(deparse(fixed[[2]]), "+ (1 | rater) + (1 | item)", if (use_unit) "+ (1 | unit)" else "")
warn <- character(0)
m <- withCallingHandlers(
  lmer(as.formula(paste("score ~", rhs)), data = d, REML = TRUE),
  warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") },
  message = function(msg) { warn <<- c(warn, trimws(conditionMessage(msg))); invokeRestart("muffleMessage") })
out <- data.frame()
for (s in strat_levels) {
  for (p in resp_levels[-1]) {
    nd <- data.frame(resp = factor(c(p, resp_levels[1]), levels = resp_levels))
    if (strat) nd$strat <- factor(c(s, s), levels = strat_levels)
    X <- model.matrix(fixed, nd)
    L <- matrix(X[1, ] - X[2, ], 1)
    r <- contest(m, L, joint = FALSE, ddf = "Satterthwaite", confint = TRUE, level = conf)
    out <- rbind(out, data.frame(stratum = if (strat) s else "", responder = p, estimate = r$Estimate,
      se = r[["Std. Error"]], df = r$df, lower = r$lower, upper = r$upper, p = r[["Pr(>|t|)"]]))
  }
}
write.csv(out, a[7], row.names = FALSE)
vc <- as.data.frame(VarCorr(m))
write.csv(data.frame(name = vc$grp, variance = vc$vcov), a[8], row.names = FALSE)
conv <- m@optinfo$conv$lme4$messages
writeLines(c(if (isSingular(m)) "singular" else "regular", unique(c(warn, conv))), a[9])
"""


class RBackendError(RuntimeError):
    """R, lme4 or lmerTest is missing, or the R fit failed (message carries R's stderr tail)."""


@lru_cache(maxsize=1)
def r_available() -> bool:
    """True when ``Rscript`` runs and loads lmerTest."""
    exe = shutil.which("Rscript")
    if exe is None:
        return False
    try:
        proc = subprocess.run([exe, "-e", "suppressPackageStartupMessages(library(lmerTest))"],
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return proc.returncode == 0


def fit_metric_r(
    frame: pd.DataFrame, metric: str, level: str, reference: str, *, confidence: float = 0.95,
    stratifier: str | None = None, response_effect: bool = False, timeout_s: float = 600,
) -> MetricFit:
    """Fit one metric in R (main, or x ``stratifier``) and return its contrasts with Satterthwaite df."""
    if not r_available():
        raise RBackendError("the R backend needs Rscript with lme4 and lmerTest (apt-get install r-cran-lmertest)")
    t0 = time.perf_counter()
    responders = list(frame["resp"].cat.categories)
    f = frame if stratifier is None else frame.dropna(subset=[stratifier])
    data = pd.DataFrame({
        "score": f["score"].to_numpy(), "resp": f["resp"].astype(str).to_numpy(), "rater": f["rater"].to_numpy(),
        "item": f["item"].to_numpy(), "unit": f["unit"].to_numpy(),
        "strat": f[stratifier].astype(str).to_numpy() if stratifier else "",
    })
    strata = sorted(data["strat"].unique()) if stratifier else []
    with tempfile.TemporaryDirectory(prefix="osce-r-") as tmp:
        t = Path(tmp)
        data.to_csv(t / "data.csv", index=False)
        (t / "resp.txt").write_text("\n".join(responders) + "\n")
        (t / "strat.txt").write_text("\n".join(strata) + "\n")
        (t / "fit.R").write_text(_SCRIPT)
        cmd = ["Rscript", "--vanilla", str(t / "fit.R"), str(t / "data.csv"), str(t / "resp.txt"),
               "1" if stratifier else "0", str(confidence), "1" if response_effect else "0", str(t / "strat.txt"),
               str(t / "out.csv"), str(t / "vc.csv"), str(t / "diag.txt")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
        if proc.returncode != 0 or not (t / "out.csv").is_file():
            raise RBackendError(f"R fit of {metric} failed: {proc.stderr.strip()[-400:]}")
        out = pd.read_csv(t / "out.csv", keep_default_na=False)
        vc = pd.read_csv(t / "vc.csv")
        diag = (t / "diag.txt").read_text().splitlines()
    counts = f.groupby(["resp", stratifier] if stratifier else ["resp"], observed=True).size()
    contrasts = []
    for r in out.itertuples(index=False):
        stratum = str(r.stratum) if stratifier else None
        key = (r.responder, stratum) if stratifier else r.responder
        contrasts.append(Contrast(
            metric=metric, responder=str(r.responder), stratifier=stratifier, stratum=stratum,
            estimate=float(r.estimate), se=float(r.se), ci_low=float(r.lower), ci_high=float(r.upper),
            p_value=float(r.p), df=float(r.df), n_obs=int(counts.get(key, 0)),
        ))
    variances = {str(n): float(v) for n, v in zip(vc["name"], vc["variance"], strict=True)}
    resid = variances.pop("Residual", None)
    messages = [m for m in diag[1:] if m]
    return MetricFit(
        metric=metric, level=level, stratifier=stratifier, contrasts=contrasts,
        diagnostics=FitDiagnostics(
            method="lme4/lmerTest (Satterthwaite)", attempts=["lmer: ok"],
            converged=not any("converge" in m.lower() for m in messages),
            boundary=[k for k, v in variances.items() if v < 1e-6 * max(resid or 1.0, 1e-12)]
            if diag and diag[0] == "singular" else [],
            warnings=messages, variance_components=variances, residual_variance=resid,
            n_obs=len(data), seconds=time.perf_counter() - t0,
        ),
    )
