"""Mixed models: planted-effect recovery, the refit chain on real failures, contrasts and multiplicity."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.regression.mixed_linear_model import MixedLM

from ir.rng import Rng
from judges.osce.analysis import AnalysisOptions, analyze, coverage, metric_frame
from judges.osce.contrasts import adjust
from judges.osce.mixed import fit_crossed, fixed_effects_zeroed
from judges.osce.schema import Contrast
from judges.osce.simulate import SimulationConfig, simulate_study

VC = {"rater": "0+C(rater)", "item": "0+C(item)"}
MAIN_ONLY = AnalysisOptions(stratifiers=(), reliability=False)


def test_planted_contrasts_recovered_over_seeds():
    """Few seeds here; the 20-seed >= 90% check on the full 7,480-score design is benchmarks/bench_osce.py."""
    cfg = SimulationConfig(utterances_per_case=(8, 8, 8), n_raters=6, metrics=("correctness", "overall"))
    covered = []
    errors = []
    for seed in (11, 12, 13):
        s = simulate_study(cfg, Rng(seed))
        res = analyze(s.ratings, options=MAIN_ONLY)
        cv = coverage(res, s.truth)
        assert len(cv) == 8  # 4 responders x 2 metrics
        covered += cv["covered"].tolist()
        errors += (cv["error"] / cv["se"]).tolist()
    assert np.mean(covered) >= 0.9
    assert np.max(np.abs(errors)) < 3.5


def test_balanced_contrast_equals_difference_of_means(small_study):
    frame = metric_frame(small_study.ratings, "correctness", "human")
    res = analyze(small_study.ratings, options=MAIN_ONLY, metrics=["correctness"])
    means = frame.groupby("resp", observed=True)["score"].mean()
    for c in res.main:
        assert c.estimate == pytest.approx(means[c.responder] - means["human"], abs=1e-6)
        assert c.ci_low < c.estimate < c.ci_high
        assert c.adjust_method == "holm" and c.p_adjusted >= c.p_value


def test_stratified_contrasts_equal_within_stratum_differences(small_study):
    opts = AnalysisOptions(stratifiers=("linguistic_form",), reliability=False)
    res = analyze(small_study.ratings, options=opts, metrics=["relevance"])
    frame = metric_frame(small_study.ratings, "relevance", "human")
    cell = frame.groupby(["linguistic_form", "resp"], observed=True)["score"].mean()
    assert {c.stratum for c in res.strata} == {"open", "focused", "closed"}
    for c in res.strata:
        expect = cell[(c.stratum, c.responder)] - cell[(c.stratum, "human")]
        assert c.estimate == pytest.approx(expect, abs=1e-6)
        assert c.adjust_method == "bh"
        assert c.n_obs > 0


def test_real_lbfgs_nonconvergence_is_refit_and_recorded():
    """Seed 1 of the study design: statsmodels' lbfgs stops with converged=False on 'consistency'."""
    s = simulate_study(SimulationConfig(metrics=("consistency",)), Rng(1))
    fit = fit_crossed(metric_frame(s.ratings, "consistency", "human"), "score ~ C(resp)", VC)
    d = fit.diagnostics
    assert d.attempts[0].startswith("lbfgs: ") and d.attempts[0] != "lbfgs: ok"
    assert d.method != "lbfgs" and d.converged
    assert np.all(np.isfinite(fit.fe_params)) and not fixed_effects_zeroed(fit.fe_params)


def test_zeroed_fixed_effects_10239_are_detected_and_refit(small_study, monkeypatch):
    """Fault injection: lbfgs returns the #10239 signature (all FE exactly 0, converged=True)."""
    real_fit = MixedLM.fit

    def fit(self, *args, **kwargs):
        res = real_fit(self, *args, **kwargs)
        if kwargs.get("method") == "lbfgs":
            res.params[: self.k_fe] = 0.0
            res.fe_params = res.fe_params * 0.0
        return res

    monkeypatch.setattr(MixedLM, "fit", fit)
    frame = metric_frame(small_study.ratings, "correctness", "human")
    out = fit_crossed(frame, "score ~ C(resp)", VC)
    assert out.diagnostics.zeroed_fixed_effects
    assert out.diagnostics.attempts[0] == "lbfgs: all fixed effects exactly 0 (statsmodels #10239)"
    assert out.diagnostics.method in ("bfgs", "powell", "nm")
    assert out.diagnostics.attempts[-1] == f"{out.diagnostics.method}: ok"
    assert not fixed_effects_zeroed(out.fe_params)


def test_every_optimizer_failing_falls_back_to_cluster_robust_ols(small_study):
    frame = metric_frame(small_study.ratings, "correctness", "human")
    lmm = fit_crossed(frame, "score ~ C(resp)", VC)
    ols = fit_crossed(frame, "score ~ C(resp)", VC, methods=())
    assert ols.diagnostics.method == "ols_cluster" and not ols.diagnostics.converged
    assert "ols_cluster: ok" in ols.diagnostics.attempts[-1]
    # balanced design: the same point estimates, finite robust SEs
    np.testing.assert_allclose(ols.fe_params.to_numpy()[1:], lmm.fe_params.to_numpy()[1:], atol=1e-6)
    assert np.all(np.isfinite(np.sqrt(np.diag(ols.cov_fe))))


def test_boundary_variance_is_reported_not_hidden():
    cfg = SimulationConfig(utterances_per_case=(6, 6, 6), n_raters=6, metrics=("correctness",), rater_sd=0.0)
    s = simulate_study(cfg, Rng(5))
    fit = fit_crossed(metric_frame(s.ratings, "correctness", "human"), "score ~ C(resp)", VC)
    assert fit.diagnostics.variance_components["rater"] < 0.01
    assert np.all(np.isfinite(fit.fe_params))


def test_holm_and_bh_adjustment():
    ps = [0.01, 0.04, 0.03, 0.5]
    cs = [Contrast(metric="m", responder=f"r{i}", estimate=0, se=1, ci_low=-1, ci_high=1, p_value=p, n_obs=1)
          for i, p in enumerate(ps)]
    holm = [c.p_adjusted for c in adjust(cs, "holm")]
    assert holm == pytest.approx([0.04, 0.09, 0.09, 0.5])
    bh = [c.p_adjusted for c in adjust(cs, "bh")]
    assert bh == pytest.approx([0.04, 0.0533333, 0.0533333, 0.5], abs=1e-6)
    assert [c.significant for c in adjust(cs, "holm")] == [True, False, False, False]
    with pytest.raises(ValueError, match="adjust method"):
        adjust(cs, "bonferroni")


def test_reliability_rows(small_study):
    res = analyze(small_study.ratings, options=AnalysisOptions(stratifiers=()), metrics=["correctness", "overall"])
    rows = {r.metric: r for r in res.reliability}
    assert rows["correctness"].n_units == 17 * 5 and rows["correctness"].n_raters == 5
    assert rows["overall"].n_units == 3 * 5
    for r in rows.values():
        assert 0 < r.icc2_1 < r.icc2_k < 1
        assert -0.2 < r.alpha_ordinal < 1


def test_unused_helper_frame_shape(small_study):
    frame = metric_frame(small_study.ratings, "overall", "human")
    assert list(frame["resp"].cat.categories)[0] == "human"
    assert isinstance(frame, pd.DataFrame) and frame["item"].nunique() == 3
