"""Our mixed-model solver against brute force: deviance, gradient, Hessian, dC/dvarpar, optimum checks.

Brute force builds the n x n marginal covariance on a small unbalanced design and evaluates the
REML/ML deviance as lmerTest's ``devfun_vp`` defines it; finite differences of that give the
derivatives our exact formulas must match.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce.analysis import AnalysisOptions, FitJob, fit_lmm, metric_frame, plan_jobs
from synthdocqa.judges.osce.design import (
    FixedDesign,
    RandomTerm,
    independent_columns,
    intercept_term,
    is_estimable,
    null_space,
)
from synthdocqa.judges.osce.lmm_solver import LmmModel, OptimizerRun
from synthdocqa.judges.osce.simulate import SimulationConfig, simulate_study


def _design(seed: int = 1):
    gen = np.random.default_rng(seed)
    n_r, n_i, n_p = 5, 7, 3
    r = np.repeat(np.arange(n_r), n_i * n_p)
    i = np.tile(np.repeat(np.arange(n_i), n_p), n_r)
    p = np.tile(np.arange(n_p), n_r * n_i)
    keep = gen.random(len(r)) > 0.1  # unbalanced
    r, i, p = r[keep], i[keep], p[keep]
    n = len(r)
    X = np.column_stack([np.ones(n)] + [(p == k).astype(float) for k in range(1, n_p)])
    y = 3 + 0.4 * gen.normal(size=n_r)[r] + 0.3 * gen.normal(size=n_i)[i] - 0.3 * (p == 1) + 0.7 * gen.normal(size=n)
    return X, y, r, i


def _model(slopes: bool, reml: bool) -> LmmModel:
    X, y, r, i = _design()
    terms = [intercept_term("rater", r), intercept_term("item", i)]
    if slopes:
        t = terms[0]
        terms[0] = RandomTerm("rater", t.levels, t.codes, X[:, :2].copy(), ("(Intercept)", "x"))
    return LmmModel(X, y, terms, reml=reml)


def _dense(model: LmmModel):
    n = model.n
    Z = np.zeros((n, model.q))
    off = 0
    for t in model.terms:
        for j in range(t.k):
            Z[np.arange(n), off + t.codes * t.k + j] = t.columns[:, j]
        off += t.n_levels * t.k
    X = model.X
    y = model.y
    p = X.shape[1]

    def dev(theta: np.ndarray, sigma: float | None = None) -> float:
        lam = model.lam_matrix(theta)
        vr = np.eye(n) + Z @ lam @ lam.T @ Z.T
        vi = np.linalg.inv(vr)
        xvx = X.T @ vi @ X
        beta = np.linalg.solve(xvx, X.T @ vi @ y)
        res = y - X @ beta
        rss = res @ vi @ res
        s2 = rss / (n - p if model.reml else n) if sigma is None else sigma ** 2
        out = np.linalg.slogdet(vr)[1] + n * np.log(2 * np.pi * s2) + rss / s2
        if model.reml:
            out += np.linalg.slogdet(xvx)[1] - p * np.log(2 * np.pi * s2)
        return float(out)

    def cov_beta(vp: np.ndarray) -> np.ndarray:
        lam = model.lam_matrix(vp[:-1])
        V = vp[-1] ** 2 * (np.eye(n) + Z @ lam @ lam.T @ Z.T)
        return np.linalg.inv(X.T @ np.linalg.solve(V, X))

    return dev, cov_beta


@pytest.mark.parametrize("slopes", [False, True])
@pytest.mark.parametrize("reml", [True, False])
def test_deviance_gradient_hessian_and_jacobian_match_brute_force(slopes, reml):
    model = _model(slopes, reml)
    dev, cov_beta = _dense(model)
    theta = np.resize(np.array([0.7, 0.2, 0.3, 0.5]), model.n_theta)
    f, g = model.deviance_and_gradient(theta)
    assert f == pytest.approx(dev(theta), rel=1e-12)
    eps = 1e-6
    g_num = [(dev(theta + eps * e) - dev(theta - eps * e)) / (2 * eps) for e in np.eye(len(theta))]
    np.testing.assert_allclose(g, g_num, atol=1e-5)

    fit = model.fit()
    assert fit.criterion == pytest.approx(dev(fit.theta), rel=1e-12)
    np.testing.assert_allclose(fit.cov_beta, cov_beta(np.r_[fit.theta, fit.sigma]), rtol=1e-9, atol=1e-14)
    parts = fit.varpar
    vp = np.r_[fit.theta, fit.sigma]
    k = len(vp)
    h = 1e-4

    def dvp(v: np.ndarray) -> float:
        return dev(v[:-1], v[-1])

    H = np.empty((k, k))
    for a in range(k):
        for b in range(k):
            ea, eb = np.eye(k)[a] * h, np.eye(k)[b] * h
            H[a, b] = (dvp(vp + ea + eb) - dvp(vp + ea - eb) - dvp(vp - ea + eb) + dvp(vp - ea - eb)) / (4 * h * h)
    np.testing.assert_allclose(parts.hessian, H, atol=1e-3 * np.abs(H).max())
    J = np.array([(cov_beta(vp + np.eye(k)[a] * 1e-6) - cov_beta(vp - np.eye(k)[a] * 1e-6)) / 2e-6 for a in range(k)])
    np.testing.assert_allclose(parts.jacobian, J, atol=1e-7)
    # d cov(beta) / d sigma = 2 C / sigma exactly
    np.testing.assert_allclose(parts.jacobian[-1], 2 * fit.cov_beta / fit.sigma, rtol=1e-9)
    # gradient at the optimum vanishes in every interior direction
    interior = np.r_[~model.theta_diagonal | (fit.theta > 1e-3), True]
    assert np.max(np.abs(parts.gradient[interior])) < 1e-3


def test_every_optimizer_run_is_kept_and_a_stalled_start_is_reported():
    """Seed 2 unbalanced, 'accuracy': L-BFGS-B from lme4's start stalls ~0.1 above the optimum."""
    from synthdocqa.judges.osce.simulate import make_unbalanced

    root = Rng(2).fork("osce-sim")
    s = simulate_study(SimulationConfig(metrics=("accuracy",), response_sd=0.0), root)  # the design that stalls
    ratings = make_unbalanced(s.ratings, root.fork("unbalanced"))
    frame = metric_frame(ratings, "accuracy", "human")
    opts = AnalysisOptions(stratifiers=(), response_effect="never")
    jobs, _ = plan_jobs(frame, "accuracy", "encounter", "human", opts, ["human"])
    est, diag = fit_lmm(jobs[0], opts)
    crit = [r.criterion for r in est.fit.runs]
    assert len(est.fit.runs) == 3 and est.fit.criterion == pytest.approx(min(crit), abs=1e-12)
    assert diag.converged  # the best value was reached by >= 2 runs
    assert diag.refit  # but not by the first one
    assert "optimizers disagree" in " ".join(diag.warnings)
    assert diag.criterion_spread > 0.05
    assert all("-2 REML log-lik" in a for a in diag.attempts)


def test_a_lone_optimum_is_not_confirmed(monkeypatch):
    """Fault injection: when both L-BFGS-B runs end higher, only Powell reaches the best: not confirmed."""
    real = LmmModel._lbfgsb

    def worse(self, start, label, tight=False):
        run = real(self, start, label, tight)
        if tight:  # the final polish from the best point stays honest
            return run
        return OptimizerRun(run.optimizer, run.start, run.criterion + 1.0, run.iterations, run.message, run.theta)

    monkeypatch.setattr(LmmModel, "_lbfgsb", worse)
    s = simulate_study(SimulationConfig(utterances_per_case=(4, 4, 4), n_raters=4, metrics=("correctness",)), Rng(3))
    job = FitJob("correctness", "sentence", metric_frame(s.ratings, "correctness", "human"),
                 ["human", "llm_a", "llm_b", "llm_c", "llm_d"], groups=["rater", "item"])
    _, diag = fit_lmm(job, AnalysisOptions())
    assert not diag.converged and diag.refit and diag.method.startswith("lmm: Powell")
    assert any("optimizers disagree" in w for w in diag.warnings)


def test_singular_fit_is_detected():
    cfg = SimulationConfig(utterances_per_case=(6, 6, 6), n_raters=6, metrics=("correctness",), rater_sd=0.0)
    s = simulate_study(cfg, Rng(5))
    frame = metric_frame(s.ratings, "correctness", "human")
    jobs, _ = plan_jobs(frame, "correctness", "sentence", "human", AnalysisOptions(stratifiers=()), ["human"])
    est, diag = fit_lmm(jobs[0], AnalysisOptions())
    if est.fit.theta[0] < 1e-4:
        assert diag.singular and diag.boundary == ["rater"]
    assert diag.variance_components["rater"] < 0.01


def test_rank_deficient_design_drops_columns_and_refuses_non_estimable_contrasts():
    levels = {"resp": ("human", "llm_a"), "strat": ("a", "b")}
    d = FixedDesign(("resp", "strat"), levels)
    assert d.names == ("(Intercept)", "respllm_a", "stratb", "respllm_a:stratb")
    import pandas as pd

    frame = pd.DataFrame({"resp": ["human", "human", "llm_a", "human", "human"],
                          "strat": ["a", "b", "a", "a", "b"]})  # llm_a never rated in stratum b
    X = d.matrix(frame)
    assert independent_columns(X).tolist() == [0, 1, 2]
    null = null_space(X)
    in_a = d.row({"resp": "llm_a", "strat": "a"}) - d.row({"resp": "human", "strat": "a"})
    in_b = d.row({"resp": "llm_a", "strat": "b"}) - d.row({"resp": "human", "strat": "b"})
    assert is_estimable(in_a, null) and not is_estimable(in_b, null)


def test_eliminating_the_answer_effect_gives_the_dense_criterion_gradient_and_optimum():
    """The answer effect (item x responder, 120 levels here) eliminated in closed form: the criterion and its
    gradient equal the dense factor's at any theta (REML and ML), and the fits land on the same optimum."""
    gen = np.random.default_rng(7)
    n_r, n_i, n_p = 6, 40, 3
    r, i, p = (a.ravel() for a in np.meshgrid(np.arange(n_r), np.arange(n_i), np.arange(n_p), indexing="ij"))
    keep = gen.random(len(r)) > 0.05
    r, i, p = r[keep], i[keep], p[keep]
    unit = i * n_p + p
    n = len(r)
    X = np.column_stack([np.ones(n)] + [(p == k).astype(float) for k in range(1, n_p)])
    y = (3 + 0.4 * gen.normal(size=n_r)[r] + 0.3 * gen.normal(size=n_i)[i] + 0.25 * gen.normal(size=n_i * n_p)[unit]
         + 0.6 * gen.normal(size=n))
    terms = [intercept_term("rater", r), intercept_term("item", i), intercept_term("item:responder", unit)]
    for reml in (True, False):
        fast, dense = LmmModel(X, y, terms, reml=reml), LmmModel(X, y, terms, reml=reml, eliminate=False)
        assert fast._elim is not None and dense._elim is None
        for th in ([1.0, 1.0, 1.0], [0.5, 0.3, 0.2], [0.2, 0.7, 0.0], [0.6, 0.0, 0.45]):
            th = np.array(th)
            assert fast.deviance(th) == pytest.approx(dense.deviance(th), abs=1e-8)
            if reml:
                f1, g1 = fast.deviance_and_gradient(th)
                f2, g2 = dense.deviance_and_gradient(th)
                assert f1 == pytest.approx(f2, abs=1e-8)
                np.testing.assert_allclose(g1, g2, rtol=1e-8, atol=1e-7)
    a, b = LmmModel(X, y, terms).fit(), LmmModel(X, y, terms, eliminate=False).fit()
    assert a.criterion == pytest.approx(b.criterion, abs=1e-7)
    np.testing.assert_allclose(a.beta, b.beta, atol=1e-6)
