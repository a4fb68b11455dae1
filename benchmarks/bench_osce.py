"""OSCE mixed-model benchmark: speed against lme4 and statsmodels, agreement with lme4/lmerTest, recovery.

All with one BLAS thread (set below before numpy loads; Rscript inherits it).

1. ``--speed``: one 7,480-row metric (correctness, seed ``--timing-seed``) side by side in one run:
   our fit (design, optimizer runs, Satterthwaite df, contrasts, EMMs) in CPU seconds, best of
   ``--reps``; statsmodels MixedLM (lbfgs, crossed variance components) in CPU seconds; ``lme4::lmer``
   timed inside Rscript (model time only, ``system.time``, best of ``--reps`` after a warm-up fit). Then
   the whole 9-metric analysis with both stratifiers, reliability and the report: in-process wall time
   and the ``synthdocqa osce analyze`` command's wall time (including Python start-up and imports).
2. ``--agreement``: ``--seeds`` simulated 23,970-score studies plus an unbalanced file (one rater
   scoring one case, 5% missing; both stratifiers): every fit compared with lme4/lmerTest (tightened
   optimizer, ``r_strict``) and, for the main models, with lme4's defaults; fixed effects, SEs and
   variance components within 1e-4 relative, Satterthwaite df within 0.5%, p-values within 1e-4. A
   planted error (every variance component +0.03%, one SE +0.02%) must fail the same check.
3. ``--recovery``: planted contrasts inside their 95% CIs in >= 90% of ``--seeds`` seeds.

    .venv/bin/python benchmarks/bench_osce.py --speed --agreement --seeds 20
"""

from __future__ import annotations

import os

for _v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import statsmodels.formula.api as smf  # noqa: E402

from synthdocqa.ir.rng import Rng  # noqa: E402
from synthdocqa.judges.osce.analysis import (  # noqa: E402
    AnalysisOptions,
    analyze,
    coverage,
    fit_job,
    metric_frame,
    plan_jobs,
)
from synthdocqa.judges.osce.crosscheck import Tolerances, compare_results, deviation_table  # noqa: E402
from synthdocqa.judges.osce.report import render_report  # noqa: E402
from synthdocqa.judges.osce.simulate import SimulationConfig, make_unbalanced, simulate_study  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MAIN_ONLY = AnalysisOptions(stratifiers=(), reliability=False)
LME4_TIMING = r"""
suppressPackageStartupMessages(library(lme4))
a <- commandArgs(TRUE)
d <- read.csv(a[1], colClasses = "character")
d$score <- as.numeric(d$score)
d$resp <- factor(d$resp, levels = c("human", "llm_a", "llm_b", "llm_c", "llm_d"))
f <- if (a[3] == "1") score ~ resp + (1 | rater) + (1 | item) + (1 | unit) else score ~ resp + (1 | rater) + (1 | item)
invisible(lmer(f, data = d))  # warm-up
cpu <- c(); wall <- c()
for (i in seq_len(as.integer(a[2]))) {
  t <- system.time(m <- lmer(f, data = d))
  cpu <- c(cpu, t[["user.self"]] + t[["sys.self"]]); wall <- c(wall, t[["elapsed"]])
}
t2 <- system.time({mt <- lmerTest::as_lmerModLmerTest(m); s <- summary(mt)})
cat(sprintf("%.6f", c(min(cpu), min(wall), median(cpu), t2[["user.self"]] + t2[["sys.self"]], REMLcrit(m))), "\n")
"""


def study(seed: int, unbalanced: bool = False) -> pd.DataFrame:
    root = Rng(seed).fork("osce-sim")
    s = simulate_study(SimulationConfig(), root)
    return make_unbalanced(s.ratings, root.fork("unbalanced")) if unbalanced else s.ratings


def speed(seed: int, reps: int) -> None:
    ratings = study(seed)
    frame = metric_frame(ratings, "correctness", "human")
    jobs, _ = plan_jobs(frame, "correctness", "sentence", "human", MAIN_ONLY, ["human"])
    ours_cpu, ours_wall = [], []
    for _ in range(reps):
        c0, w0 = time.process_time(), time.perf_counter()
        mf, _ = fit_job(jobs[0], "human", MAIN_ONLY)
        ours_cpu.append(time.process_time() - c0)
        ours_wall.append(time.perf_counter() - w0)
    solver_cpu = min(f.diagnostics.model_cpu_seconds for f in [mf])
    f = frame.copy()
    f["_all"] = 1
    sm_cpu = []
    for _ in range(max(1, min(reps, 2))):
        c0 = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = smf.mixedlm("score ~ C(resp)", f, groups="_all", re_formula="0",
                              vc_formula={"rater": "0+C(rater)", "item": "0+C(item)"}).fit(method="lbfgs")
        sm_cpu.append(time.process_time() - c0)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "d.csv"
        frame.assign(resp=frame["resp"].astype(str))[["score", "resp", "rater", "item", "unit"]].to_csv(data, index=False)
        (Path(tmp) / "t.R").write_text(LME4_TIMING)
        with_unit = "1" if "unit" in jobs[0].groups else "0"
        out = subprocess.run(["Rscript", "--vanilla", str(Path(tmp) / "t.R"), str(data), str(reps), with_unit],
                             capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        print("lme4 timing failed:", out.stderr[-400:])
        lme4 = [float("nan")] * 5
    else:
        lme4 = [float(x) for x in out.stdout.split()]
    o = min(ours_cpu)
    print(f"one 7,480-row metric (correctness, seed {seed}), CPU seconds, 1 BLAS thread, best of {reps}; model: "
          f"{' + '.join(jobs[0].groups)} ({mf.unit_of_inference}):")
    print(f"  ours (design + 3 optimizer runs + Satterthwaite + contrasts + EMMs): {o:.4f} s CPU "
          f"({min(ours_wall):.4f} s wall); optimizer runs alone {solver_cpu:.4f} s")
    print(f"  lme4::lmer model time: {lme4[0]:.4f} s CPU ({lme4[1]:.4f} s wall; median {lme4[2]:.4f}); "
          f"lmerTest df + summary afterwards {lme4[3]:.4f} s")
    print(f"  statsmodels MixedLM lbfgs: {min(sm_cpu):.3f} s CPU (REML log-lik {res.llf:.4f}; "
          f"ours {mf.diagnostics.loglik:.4f}; lme4 {-lme4[4] / 2:.4f})")
    print(f"  ratios: lme4 / ours {lme4[0] / o:.2f}x; statsmodels / ours {min(sm_cpu) / o:.1f}x "
          f"-> {'PASS' if o <= lme4[0] and min(sm_cpu) >= 10 * o else 'FAIL'}")

    w0 = time.perf_counter()
    full = analyze(ratings)
    with tempfile.TemporaryDirectory() as tmp:
        render_report(full, Path(tmp) / "report")
        in_process = time.perf_counter() - w0
        path = Path(tmp) / "ratings.csv"
        ratings.to_csv(path, index=False)
        w0 = time.perf_counter()
        cli = subprocess.run([str(ROOT / ".venv" / "bin" / "synthdocqa"), "osce", "analyze", str(path), "--out",
                              str(Path(tmp) / "cli")], capture_output=True, text=True, timeout=600)
        cli_wall = time.perf_counter() - w0
    print(f"whole analysis, 9 metrics x (main + history_category + linguistic_form for 3), {len(full.fits)} fits, "
          f"reliability, report: {in_process:.2f} s wall in-process; 'synthdocqa osce analyze': {cli_wall:.2f} s wall "
          f"(exit {cli.returncode}) -> {'PASS' if cli_wall < 20 and cli.returncode == 0 else 'FAIL'}")


def agreement(seeds: list[int], unbalanced_seed: int, default_too: bool) -> None:
    strict = MAIN_ONLY.model_copy(update={"backend": "r", "r_strict": True})
    checks, default_checks, timings = [], [], []
    for seed in seeds:
        ratings = study(seed)
        w0 = time.perf_counter()
        ours = analyze(ratings, options=MAIN_ONLY)
        t_ours = time.perf_counter() - w0
        w0 = time.perf_counter()
        ref = analyze(ratings, options=strict)
        timings.append((t_ours, time.perf_counter() - w0))
        c = compare_results(ours, ref)
        checks.append(c)
        line = f"  seed {seed:2d}: {'ok' if c.ok else 'FAIL ' + '; '.join(c.failures[:3])}"
        if default_too:
            d = compare_results(ours, analyze(ratings, options=MAIN_ONLY.model_copy(update={"backend": "r"})))
            default_checks.append(d)
            line += f" | vs lme4 defaults: max variance dev {d.max_deviation.get('variance', 0):.1e}"
        print(line, flush=True)
    full = AnalysisOptions(reliability=False)
    ratings = study(unbalanced_seed, unbalanced=True)
    ours = analyze(ratings, options=full)
    ref = analyze(ratings, options=full.model_copy(update={"backend": "r", "r_strict": True}))
    unb = compare_results(ours, ref)
    print(f"  unbalanced file (seed {unbalanced_seed}: r17 scores case1 only, 5% missing; {len(ratings)} scores, "
          f"{len(ours.fits)} fits incl. both stratifiers): {'ok' if unb.ok else 'FAIL ' + '; '.join(unb.failures[:3])}")
    tol = Tolerances()
    limits = {"estimate": tol.rel, "se": tol.rel, "variance": tol.rel, "df": tol.df_rel, "p": tol.p_abs,
              "loglik": tol.loglik_abs}
    table = deviation_table([*checks, unb])
    table["tolerance"] = [limits[q] for q in table.index]
    if default_checks:
        dt = deviation_table(default_checks)
        table["vs lme4 defaults (seeds)"] = dt["max_deviation"].reindex(table.index)
    print(f"agreement with lme4/lmerTest (tightened optimizer), {len(seeds)} seeds x 9 main fits + unbalanced file:")
    print(table.to_string(float_format=lambda v: f"{v:.2e}"))
    ok = all(c.ok for c in checks) and unb.ok
    print(f"  median wall per seed: ours {np.median([t[0] for t in timings]):.2f} s, R {np.median([t[1] for t in timings]):.2f} s")
    # planted errors must fail the same check
    fit = ours.fits[0]
    vc = {k: v * (1 + 3e-4) for k, v in fit.diagnostics.variance_components.items()}
    c0 = fit.contrasts[0]
    planted_fit = fit.model_copy(update={
        "diagnostics": fit.diagnostics.model_copy(update={"variance_components": vc}),
        "contrasts": [c0.model_copy(update={"se": c0.se * (1 + 2e-4)}), *fit.contrasts[1:]]})
    planted = compare_results(ours.model_copy(update={"fits": [planted_fit, *ours.fits[1:]]}), ref)
    print(f"  planted error (variance components +0.03%, one SE +0.02%): {len(planted.failures)} failure(s) "
          f"-> {'detected' if not planted.ok else 'NOT DETECTED'}")
    print("RESULT agreement", "PASS" if ok and not planted.ok else "FAIL")


def recovery(seeds: list[int]) -> None:
    rows = []
    for seed in seeds:
        s = simulate_study(SimulationConfig(), Rng(seed).fork("osce-sim"))
        res = analyze(s.ratings, options=MAIN_ONLY)
        rows.append(coverage(res, s.truth).assign(seed=seed))
    cv = pd.concat(rows, ignore_index=True)
    per = cv.groupby(["metric", "responder"], sort=False)["covered"].mean()
    ok = per >= 0.9
    print(f"recovery over {len(seeds)} seeds: pooled 95% CI coverage {cv['covered'].mean():.3f} "
          f"({int(cv['covered'].sum())}/{len(cv)}); contrasts covered in >= 90% of seeds {int(ok.sum())}/{len(ok)}; "
          f"lowest {per.min():.2f} ({per.idxmin()}); mean |error| {cv['error'].abs().mean():.4f}")
    print("RESULT recovery", "PASS" if ok.all() else "FAIL")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--speed", action="store_true")
    ap.add_argument("--agreement", action="store_true")
    ap.add_argument("--recovery", action="store_true")
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--seed0", type=int, default=1, help="first study seed (seeds seed0 .. seed0 + seeds - 1)")
    ap.add_argument("--timing-seed", type=int, default=0)
    ap.add_argument("--unbalanced-seed", type=int, default=1000)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-default-lme4", action="store_true", help="skip the comparison with lme4's default tolerances")
    args = ap.parse_args()
    if not (args.speed or args.agreement or args.recovery):
        ap.error("choose at least one of --speed, --agreement, --recovery")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (BLAS threads = 1); python {sys.version.split()[0]}")
    seeds = list(range(args.seed0, args.seed0 + args.seeds))
    if args.speed:
        speed(args.timing_seed, args.reps)
    if args.agreement:
        agreement(seeds, args.unbalanced_seed, not args.no_default_lme4)
    if args.recovery:
        recovery(seeds)


if __name__ == "__main__":
    main()
