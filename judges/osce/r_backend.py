"""Reference backend: lme4 ``lmer`` + lmerTest Satterthwaite df (+ emmeans), and ordinal ``clmm``, via Rscript.

Same models and contrasts as our solver (treatment coding against the reference, crossed random
intercepts for rater and item, responder x stratum interaction for stratified fits), fitted by the
reference implementation: every fit of an analysis runs in one ``Rscript`` process. Each contrast's
``L`` is the difference of two rows of R's own ``model.matrix`` for the responder and reference cells
(restricted to the columns lme4 kept, and only when estimable), so no column order is shared. The
fit's CPU time of ``lme4::lmer`` alone is recorded (``model_cpu_seconds``) for the speed comparison.
``r_strict`` tightens lme4's optimizer (nloptwrap/BOBYQA, absolute tolerances 1e-12 on theta and 1e-14
on the deviance): lme4's defaults stop up to ~1e-8 deviance units short on flat 3-case likelihoods,
which moves a small variance component by up to ~4e-4 relative.

The ordinal sensitivity model is a cumulative link mixed model (``ordinal::clmm``, logit link,
Laplace approximation) with the same random intercepts; its responder coefficients are the contrasts
on the latent scale (log cumulative odds; > 0 means higher scores than the reference).

Needs ``Rscript`` with lme4 and lmerTest (Debian: ``apt-get install r-cran-lmertest``), emmeans for
the EMMs (``r-cran-emmeans``) and ordinal for ``clmm`` (``r-cran-ordinal``).
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .contrasts import interval
from .schema import Coefficient, Contrast, FitDiagnostics, MarginalMean, MetricFit

if TYPE_CHECKING:
    from .analysis import AnalysisOptions, FitJob

ORDINAL_FORMULA = ("ordered(score) ~ responder + (1 | rater) + (1 | item); cumulative link mixed model, "
                   "logit link, Laplace (R ordinal::clmm); contrasts on the latent scale (log cumulative odds), "
                   "Wald z")

_FIT_SCRIPT = r"""
suppressPackageStartupMessages({library(lme4); library(lmerTest)})
a <- commandArgs(TRUE)
jobs <- read.csv(a[1], colClasses = "character")
with_emm <- a[2] == "1" && requireNamespace("emmeans", quietly = TRUE)
for (k in seq_len(nrow(jobs))) {
  j <- jobs[k, ]
  d <- read.csv(j$data, colClasses = "character")
  d$score <- as.numeric(d$score)
  resp_levels <- readLines(j$resp)
  d$resp <- factor(d$resp, levels = resp_levels)
  strat <- j$strat == "1"
  if (strat) {
    strat_levels <- readLines(j$strata)
    d$strat <- factor(d$strat, levels = strat_levels)
    fixed <- ~ resp * strat
  } else {
    strat_levels <- NA
    fixed <- ~ resp
  }
  groups <- strsplit(j$groups, ";")[[1]]
  re <- vapply(groups, function(g) if (g == "rater" && j$slopes == "1") "(1 + resp | rater)" else
    sprintf("(1 | %s)", g), "")
  form <- as.formula(paste("score ~", deparse(fixed[[2]]), "+", paste(re, collapse = " + ")))
  warn <- character(0)
  keep_warn <- function(expr) withCallingHandlers(expr,
    warning = function(w) { warn <<- c(warn, conditionMessage(w)); invokeRestart("muffleWarning") },
    message = function(msg) { warn <<- c(warn, trimws(conditionMessage(msg))); invokeRestart("muffleMessage") })
  ctrl <- if (j$strict == "1") lmerControl(optimizer = "nloptwrap",
    optCtrl = list(xtol_abs = 1e-12, ftol_abs = 1e-14, xtol_rel = 0, ftol_rel = 0, maxeval = 1e5)) else lmerControl()
  cpu <- system.time(m0 <- keep_warn(lme4::lmer(form, data = d, REML = j$reml == "1", control = ctrl)))
  m <- keep_warn(lmerTest::as_lmerModLmerTest(m0))
  Xfull <- model.matrix(fixed, d)
  s <- svd(crossprod(Xfull))
  null <- s$v[, s$d <= 1e-14 * s$d[1], drop = FALSE]
  kept <- names(fixef(m))
  out <- data.frame()
  for (st in strat_levels) {
    for (p in resp_levels[-1]) {
      nd <- data.frame(resp = factor(c(p, resp_levels[1]), levels = resp_levels))
      if (strat) nd$strat <- factor(c(st, st), levels = strat_levels)
      X <- model.matrix(fixed, nd)
      L <- X[1, ] - X[2, ]
      ok <- ncol(null) == 0 || max(abs(crossprod(null, L))) <= 1e-6 * max(1, abs(L))
      if (!ok) next
      r <- contest(m, matrix(L[kept], 1), joint = FALSE, ddf = j$ddf)
      out <- rbind(out, data.frame(stratum = if (strat) st else "", responder = p, estimate = r$Estimate,
        se = r[["Std. Error"]], df = r$df, p = r[["Pr(>|t|)"]]))
    }
  }
  write.csv(out, paste0(j$out, "_contrasts.csv"), row.names = FALSE)
  co <- summary(m, ddf = j$ddf)$coefficients
  write.csv(data.frame(name = rownames(co), estimate = co[, 1], se = co[, 2], df = co[, 3], t = co[, 4],
    p = co[, 5]), paste0(j$out, "_coef.csv"), row.names = FALSE)
  vc <- as.data.frame(VarCorr(m))
  nm <- ifelse(vc$grp == "Residual", "Residual",
    ifelse(is.na(vc$var2), ifelse(vc$var1 == "(Intercept)" & !(vc$grp == "rater" & j$slopes == "1"), vc$grp,
      paste0(vc$grp, ": ", vc$var1)), paste0(vc$grp, ": ", vc$var2, " ~ ", vc$var1)))
  write.csv(data.frame(name = nm, variance = vc$vcov), paste0(j$out, "_vc.csv"), row.names = FALSE)
  if (with_emm) {
    spec <- if (strat) ~ resp | strat else ~ resp
    e <- as.data.frame(summary(emmeans::emmeans(m, spec, lmer.df = tolower(j$ddf), lmerTest.limit = Inf,
      pbkrtest.limit = Inf)))
    write.csv(data.frame(responder = as.character(e$resp), stratum = if (strat) as.character(e$strat) else "",
      estimate = e$emmean, se = e$SE, df = e$df), paste0(j$out, "_emm.csv"), row.names = FALSE)
  }
  crit <- if (isREML(m)) REMLcrit(m) else deviance(m)
  conv <- m@optinfo$conv$lme4$messages
  writeLines(c(if (isSingular(m)) "singular" else "regular", sprintf("%.12f", crit),
    sprintf("%.6f", cpu[["user.self"]] + cpu[["sys.self"]]), sprintf("%.6f", cpu[["elapsed"]]),
    paste(kept, collapse = "\t"), unique(c(warn, conv))), paste0(j$out, "_diag.txt"))
}
"""

_ORDINAL_SCRIPT = r"""
suppressPackageStartupMessages(library(ordinal))
a <- commandArgs(TRUE)
jobs <- read.csv(a[1], colClasses = "character")
for (k in seq_len(nrow(jobs))) {
  j <- jobs[k, ]
  d <- read.csv(j$data, colClasses = "character")
  d$y <- factor(as.integer(d$score), ordered = TRUE)
  resp_levels <- readLines(j$resp)
  d$resp <- factor(d$resp, levels = resp_levels)
  groups <- strsplit(j$groups, ";")[[1]]
  form <- as.formula(paste("y ~ resp +", paste(sprintf("(1 | %s)", groups), collapse = " + ")))
  m <- clmm(form, data = d, link = "logit", Hess = TRUE)
  co <- summary(m)$coefficients
  rows <- paste0("resp", resp_levels[-1])
  rows <- rows[rows %in% rownames(co)]
  write.csv(data.frame(responder = sub("^resp", "", rows), estimate = co[rows, 1], se = co[rows, 2],
    p = co[rows, 4]), paste0(j$out, "_clmm.csv"), row.names = FALSE)
}
"""


class RBackendError(RuntimeError):
    """R, lme4, lmerTest or ordinal is missing, or an R fit failed (message carries R's stderr tail)."""


@lru_cache(maxsize=4)
def r_missing(packages: tuple[str, ...] = ("lme4", "lmerTest")) -> str | None:
    """None when ``Rscript`` runs and loads ``packages``; otherwise what is missing, in words."""
    exe = shutil.which("Rscript")
    if exe is None:
        return "Rscript is not on PATH (apt-get install r-base-core)"
    code = ("m <- c(" + ", ".join(f'"{p}"' for p in packages) + "); "
            "cat(m[!vapply(m, requireNamespace, TRUE, quietly = TRUE)], sep = ' ')")
    try:
        proc = subprocess.run([exe, "--vanilla", "-e", code], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"Rscript failed to start: {err}"
    if proc.returncode != 0:
        return f"Rscript failed: {proc.stderr.strip()[-200:]}"
    absent = proc.stdout.split()
    if absent:
        debs = " ".join(f"r-cran-{p.lower()}" for p in absent)
        return f"R package(s) {', '.join(absent)} not installed (apt-get install {debs})"
    return None


def r_available(packages: tuple[str, ...] = ("lme4", "lmerTest")) -> bool:
    return r_missing(packages) is None


R_DDF = {"satterthwaite": "Satterthwaite", "kenward-roger": "Kenward-Roger"}
"""Our ``AnalysisOptions.ddf`` -> lmerTest's ``ddf`` (Kenward-Roger through pbkrtest)."""


def _write_jobs(jobs: Sequence[FitJob], tmp: Path, slopes: bool, reml: bool, strict: bool = False,
                ddf: str = "Satterthwaite") -> Path:
    rows = []
    for k, job in enumerate(jobs):
        f = job.frame
        data = pd.DataFrame({
            "score": f["score"].to_numpy(), "resp": f["resp"].astype(str).to_numpy(), "rater": f["rater"].to_numpy(),
            "item": f["item"].to_numpy(), "unit": f["unit"].to_numpy(),
            "strat": f["strat"].astype(str).to_numpy() if job.stratifier else "",
        })
        base = tmp / f"job{k}"
        data.to_csv(f"{base}.csv", index=False)
        Path(f"{base}_resp.txt").write_text("\n".join(job.responders) + "\n")
        Path(f"{base}_strata.txt").write_text("\n".join(job.strata) + "\n")
        rows.append({"data": f"{base}.csv", "resp": f"{base}_resp.txt", "strata": f"{base}_strata.txt",
                     "strat": "1" if job.stratifier else "0", "groups": ";".join(job.groups),
                     "slopes": "1" if slopes else "0", "reml": "1" if reml else "0",
                     "strict": "1" if strict else "0", "ddf": ddf, "out": str(base)})
    path = tmp / "jobs.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def _run(script: str, args: list[str], tmp: Path, timeout_s: float, what: str) -> None:
    (tmp / "script.R").write_text(script)
    proc = subprocess.run(["Rscript", "--vanilla", str(tmp / "script.R"), *args], capture_output=True, text=True,
                          timeout=timeout_s)
    if proc.returncode != 0:
        raise RBackendError(f"R {what} failed: {' '.join(proc.stderr.strip().split())[-400:]}")


def fit_jobs_r(jobs: Sequence[FitJob], reference: str, options: AnalysisOptions, *, emms: bool = True,
               timeout_s: float = 1800) -> list[tuple[MetricFit, list[str]]]:
    """Fit every job in one Rscript process; contrasts, coefficients, EMMs with Satterthwaite df."""
    if not jobs:
        return []
    missing = r_missing()
    if missing:
        raise RBackendError(f"the R backend needs lme4 and lmerTest: {missing}")
    if any(not j.groups for j in jobs):
        raise RBackendError("the R backend needs at least one grouping factor with >= 2 levels per metric")
    t0 = time.perf_counter()
    out = []
    with tempfile.TemporaryDirectory(prefix="osce-r-") as tmp_name:
        tmp = Path(tmp_name)
        manifest = _write_jobs(jobs, tmp, options.rater_slopes, options.reml, options.r_strict,
                               R_DDF[options.ddf])
        _run(_FIT_SCRIPT, [str(manifest), "1" if emms else "0"], tmp, timeout_s, "lmer fits")
        wall = (time.perf_counter() - t0) / len(jobs)
        for k, job in enumerate(jobs):
            out.append(_read_fit(tmp / f"job{k}", job, reference, options, wall))
    return out


def _read_fit(base: Path, job: FitJob, reference: str, options: AnalysisOptions,
              wall: float) -> tuple[MetricFit, list[str]]:
    try:
        con = pd.read_csv(f"{base}_contrasts.csv", keep_default_na=False)
    except pd.errors.EmptyDataError:  # no estimable contrast: R writes an empty table
        con = pd.DataFrame(columns=["stratum", "responder", "estimate", "se", "df", "p"])
    coef = pd.read_csv(f"{base}_coef.csv")
    vc = pd.read_csv(f"{base}_vc.csv")
    diag = Path(f"{base}_diag.txt").read_text().splitlines()
    counts = job.counts
    contrasts = []
    for r in con.itertuples(index=False):
        stratum = str(r.stratum) if job.stratifier else None
        lo, hi, _ = interval(float(r.estimate), float(r.se), float(r.df), options.confidence)
        contrasts.append(Contrast(
            metric=job.metric, responder=str(r.responder), stratifier=job.stratifier, stratum=stratum,
            estimate=float(r.estimate), se=float(r.se), ci_low=lo, ci_high=hi, p_value=float(r.p), df=float(r.df),
            n_obs=counts.get((str(r.responder), stratum), 0),
        ))
    got = {(c.responder, c.stratum) for c in contrasts}
    skipped = [f"{job.metric}" + (f" x {job.stratifier}={s}" if s is not None else "")
               + f": {p} vs {reference} not estimable"
               for s in ([None] if job.stratifier is None else job.strata) for p in job.responders[1:]
               if (p, s) not in got]
    emms = []
    if Path(f"{base}_emm.csv").is_file():
        for r in pd.read_csv(f"{base}_emm.csv", keep_default_na=False).itertuples(index=False):
            stratum = str(r.stratum) if job.stratifier else None
            if not np.isfinite(float(r.estimate)):
                continue
            lo, hi, _ = interval(float(r.estimate), float(r.se), float(r.df), options.confidence)
            emms.append(MarginalMean(metric=job.metric, responder=str(r.responder), stratifier=job.stratifier,
                                     stratum=stratum, estimate=float(r.estimate), se=float(r.se), df=float(r.df),
                                     ci_low=lo, ci_high=hi, n_obs=counts.get((str(r.responder), stratum), 0)))
    coefficients = [Coefficient(name=str(r.name), estimate=float(r.estimate), se=float(r.se), df=float(r.df),
                                t=float(r.t), p_value=float(r.p)) for r in coef.itertuples(index=False)]
    variances = {("item:responder" if n == "unit" else str(n)): float(v)
                 for n, v in zip(vc["name"], vc["variance"], strict=True)}
    resid = variances.pop("Residual", None)
    singular = diag[0] == "singular"
    crit = float(diag[1])
    kept = diag[4].split("\t") if len(diag) > 4 else []
    messages = [m for m in diag[5:] if m]
    names_full = _full_names(job)
    dropped = [n for n in names_full if n not in set(kept)]
    return MetricFit(
        metric=job.metric, level=job.level, stratifier=job.stratifier, unit_of_inference=job.unit_of_inference,
        response_effect_test=job.response_effect_test, contrasts=contrasts,
        coefficients=coefficients, emms=emms,
        diagnostics=FitDiagnostics(
            method=f"lme4/lmerTest ({R_DDF[options.ddf]})", attempts=[f"lmer: -2 {'REML' if options.reml else 'ML'} "
                                                              f"log-lik {crit:.6f}"],
            converged=not any("converge" in m.lower() for m in messages), refit=False,
            criterion="REML" if options.reml else "ML", loglik=-crit / 2, singular=singular,
            boundary=[k for k, v in variances.items() if v < 1e-6 * max(resid or 1.0, 1e-12)] if singular else [],
            dropped_columns=dropped, warnings=messages, variance_components=variances, residual_variance=resid,
            n_obs=len(job.frame), seconds=wall, model_cpu_seconds=float(diag[2]),
        ),
    ), skipped


def _full_names(job: FitJob) -> list[str]:
    from .design import FixedDesign

    levels = {"resp": tuple(job.responders)}
    factors: tuple[str, ...] = ("resp",)
    if job.stratifier:
        levels["strat"] = tuple(job.strata)
        factors = ("resp", "strat")
    return list(FixedDesign(factors, levels).names)


def fit_ordinal_r(jobs: Sequence[FitJob], reference: str, confidence: float = 0.95,
                  timeout_s: float = 3600) -> list[Contrast]:
    """CLMM per metric (main models only) in one Rscript process: latent-scale responder contrasts."""
    if not jobs:
        return []
    missing = r_missing(("ordinal",))
    if missing:
        raise RBackendError(f"the ordinal sensitivity model needs R ordinal: {missing}")
    out = []
    with tempfile.TemporaryDirectory(prefix="osce-clmm-") as tmp_name:
        tmp = Path(tmp_name)
        manifest = _write_jobs(jobs, tmp, slopes=False, reml=True)
        _run(_ORDINAL_SCRIPT, [str(manifest)], tmp, timeout_s, "clmm fits")
        for k, job in enumerate(jobs):
            counts = job.counts
            res = pd.read_csv(tmp / f"job{k}_clmm.csv")
            for r in res.itertuples(index=False):
                lo, hi, _ = interval(float(r.estimate), float(r.se), None, confidence)
                out.append(Contrast(metric=job.metric, responder=str(r.responder), estimate=float(r.estimate),
                                    se=float(r.se), ci_low=lo, ci_high=hi, p_value=float(r.p),
                                    n_obs=counts.get((str(r.responder), None), 0)))
    return out


__all__ = ["ORDINAL_FORMULA", "RBackendError", "fit_jobs_r", "fit_ordinal_r", "r_available", "r_missing"]
