"""Analysis level: planted-effect recovery, contrasts and EMMs, the statsmodels cross-check backend, multiplicity,
reliability and the missing-design exclusions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.regression.mixed_linear_model import MixedLM

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze, coverage, metric_frame
from synthdocqa.judges.osce.contrasts import adjust
from synthdocqa.judges.osce.schema import Contrast
from synthdocqa.judges.osce.simulate import SimulationConfig, make_unbalanced, simulate_study
from synthdocqa.judges.osce.statsmodels_backend import fit_crossed, fixed_effects_zeroed

VC = {"rater": "0+C(rater)", "item": "0+C(item)"}
MAIN_ONLY = AnalysisOptions(stratifiers=(), reliability=False)


def test_planted_contrasts_recovered_over_seeds():
    """A small design (6 raters, 24 questions) with the simulator's dialogue and answer effects, under the default
    model: over 10 seeds the CIs cover their planted contrasts at ~90% (20 seeds: 89-90%; the coverage study on
    the full design, benchmarks/osce_coverage.py, is where 95% is checked)."""
    cfg = SimulationConfig(utterances_per_case=(8, 8, 8), n_raters=6, metrics=("correctness", "overall"))
    covered = []
    errors = []
    for seed in range(11, 21):
        s = simulate_study(cfg, Rng(seed))
        res = analyze(s.ratings, options=MAIN_ONLY)
        cv = coverage(res, s.truth)
        assert len(cv) == 8  # 4 responders x 2 metrics
        covered += cv["covered"].tolist()
        errors += (cv["error"] / cv["se"]).tolist()
    assert np.mean(covered) >= 0.85
    assert np.max(np.abs(errors)) < 3.5


def test_balanced_contrast_equals_difference_of_means(small_study):
    frame = metric_frame(small_study.ratings, "correctness", "human")
    res = analyze(small_study.ratings, options=MAIN_ONLY, metrics=["correctness"])
    means = frame.groupby("resp", observed=True)["score"].mean()
    for c in res.main:
        assert c.estimate == pytest.approx(means[c.responder] - means["human"], abs=1e-6)
        assert c.ci_low < c.estimate < c.ci_high
        assert c.adjust_method == "holm" and c.p_adjusted >= c.p_value
        assert c.df is not None and 0 < c.df < len(frame)  # Satterthwaite, t-based
    # balanced: the EMM of a responder is its mean score; every fixed effect has a t test
    for e in res.emms:
        assert e.estimate == pytest.approx(means[e.responder], abs=1e-6) and e.df > 0
    coefs = res.fits[0].coefficients
    assert [c.name for c in coefs] == ["(Intercept)", "respllm_a", "respllm_b", "respllm_c", "respllm_d"]
    assert all(c.df is not None and np.isfinite(c.p_value) for c in coefs)


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
        assert c.n_obs > 0 and c.df is not None
    emm = {(e.responder, e.stratum): e.estimate for e in res.fits[1].emms}
    for (form, resp), v in cell.items():
        assert emm[(resp, form)] == pytest.approx(v, abs=1e-6)


def _lbfgs_stops_early():
    """The first study seed where statsmodels' lbfgs stops with converged=False on 'consistency'. Which seeds
    do depends on the machine's floating point (seed 1 on one CPU, seeds 2 and 6 on another), so the test
    looks for one instead of naming it."""
    for seed in range(40):
        s = simulate_study(SimulationConfig(metrics=("consistency",)), Rng(seed))
        fit = fit_crossed(metric_frame(s.ratings, "consistency", "human"), "score ~ C(resp)", VC)
        if not fit.diagnostics.attempts[0].startswith("lbfgs: ok"):
            return fit
    pytest.fail("lbfgs converged on all 40 study seeds: the non-convergence path is not exercised")


def test_real_lbfgs_nonconvergence_is_recorded_and_best_kept():
    fit = _lbfgs_stops_early()
    d = fit.diagnostics
    assert d.attempts[0].startswith("lbfgs: ") and not d.attempts[0].startswith("lbfgs: ok")
    assert d.method != "lbfgs" and d.converged and d.refit
    assert len(d.attempts) == 4 and d.loglik is not None
    assert np.all(np.isfinite(fit.fe_params)) and not fixed_effects_zeroed(fit.fe_params)


def test_statsmodels_false_convergence_is_flagged_against_our_optimum():
    """Seed 0 of the study ('osce-sim' stream), 'engagement': lbfgs reports converged at a REML log-lik
    below the optimum (-319.604 on one CPU, -319.180 on another, vs -319.120); with only lbfgs the backend
    says so instead of 'yes'."""
    s = simulate_study(SimulationConfig(metrics=("engagement",), response_sd=0.0), Rng(0).fork("osce-sim"))
    only_lbfgs = AnalysisOptions(stratifiers=(), reliability=False, backend="statsmodels", methods=("lbfgs",),
                                 response_effect="never")
    res = analyze(s.ratings, options=only_lbfgs)
    d = res.fits[0].diagnostics
    assert d.method == "lbfgs" and not d.converged
    assert any("below the optimum" in w for w in d.warnings)
    ours = analyze(s.ratings, options=MAIN_ONLY.model_copy(update={"response_effect": "never"})).fits[0].diagnostics
    assert ours.converged and ours.loglik - d.loglik > 1e-3  # the flagging threshold (judges.osce.analysis)
    best = analyze(s.ratings, options=only_lbfgs.model_copy(update={"methods": ("lbfgs", "bfgs", "powell", "nm")}))
    assert best.fits[0].diagnostics.loglik == pytest.approx(ours.loglik, abs=1e-3)


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
    assert f"{out.diagnostics.method}: ok, log-lik" in " ".join(out.diagnostics.attempts)
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


def test_statsmodels_backend_agrees_with_ours(small_study):
    kw = dict(stratifiers=("linguistic_form",), reliability=False)
    ours = analyze(small_study.ratings, options=AnalysisOptions(**kw), metrics=["correctness", "overall"])
    sm = analyze(small_study.ratings, options=AnalysisOptions(backend="statsmodels", **kw), metrics=["correctness", "overall"])
    for a, b in zip(ours.main + ours.strata, sm.main + sm.strata, strict=True):
        assert (a.metric, a.responder, a.stratum) == (b.metric, b.responder, b.stratum)
        assert a.estimate == pytest.approx(b.estimate, abs=1e-4)
        assert a.se == pytest.approx(b.se, rel=2e-3)
        assert b.df is None and a.df is not None


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
        assert r.icc_units == r.n_units and r.icc_raters == r.n_raters and not r.icc_excluded_raters
        assert r.alpha_units == r.n_units
        assert 0 < r.icc2_1 < r.icc2_k < 1
        assert -0.2 < r.alpha_ordinal < 1


def test_the_icc_keeps_every_rater_and_matches_shrout_fleiss_on_complete_data():
    """A rater who scored one case of three and 5% scattered missing scores: every rater stays in the ICC (the
    random-effects model uses incomplete units), and on the complete file the model's ICCs are Shrout and
    Fleiss's ICC(2,1) and ICC(2,k) (judges.reliability.icc, checked against R psych elsewhere)."""
    from synthdocqa.judges.osce.analysis import model_icc
    from synthdocqa.judges.reliability import icc

    s = simulate_study(SimulationConfig(metrics=("correctness", "overall")), Rng(4))
    res = analyze(make_unbalanced(s.ratings, Rng(4).fork("unbalanced")), options=AnalysisOptions(stratifiers=()))
    rows = {r.metric: r for r in res.reliability}
    for r in rows.values():
        assert r.icc_raters == r.n_raters == 17 and r.icc_units == r.n_units and not r.icc_excluded_raters
        assert 0 < r.icc2_1 < r.icc2_k < 1 and "all" in r.icc_method
    assert rows["overall"].n_units == 15 and rows["overall"].alpha_units == 15
    assert rows["correctness"].icc_k < 17  # fewer than 17 ratings per unit on average: k says so
    d = s.ratings[s.ratings["metric"] == "overall"]
    unit = (d["case"] + "|" + d["responder"]).to_numpy()
    i1, ik, k, _ = model_icc(unit, d["rater"].to_numpy(), d["score"].to_numpy(dtype=float))
    wide = d.assign(unit=unit).pivot(index="unit", columns="rater", values="score").to_numpy(dtype=float)
    classic = icc(wide)
    assert k == 17 and i1 == pytest.approx(classic.icc2_1, abs=1e-5) and ik == pytest.approx(classic.icc2_k, abs=1e-5)


def test_missing_design_is_excluded_and_stated_never_a_number(small_study):
    r = small_study.ratings
    no_ref = r[~((r["metric"] == "overall") & (r["responder"] == "human"))]
    no_llm_b_in_open = no_ref[~((no_ref["metric"] == "relevance") & (no_ref["responder"] == "llm_b")
                                & (no_ref["linguistic_form"] == "open"))]
    no_llm_c = no_llm_b_in_open[~((no_llm_b_in_open["metric"] == "correctness")
                                  & (no_llm_b_in_open["responder"] == "llm_c"))]
    res = analyze(no_llm_c, options=AnalysisOptions(stratifiers=("linguistic_form",), reliability=False),
                  metrics=["correctness", "relevance", "overall"])
    text = " | ".join(res.exclusions)
    assert "metric overall excluded: no ratings of the reference responder 'human'" in text
    assert "metric correctness: no ratings of llm_c: no contrast for them" in text
    assert "relevance x linguistic_form=open: llm_b vs human not estimable (0 vs" in text
    assert "overall" not in res.metrics and all(c.metric != "overall" for c in res.main)
    assert not any(c.metric == "relevance" and c.responder == "llm_b" and c.stratum == "open" for c in res.strata)
    assert all(np.isfinite(c.estimate) and np.isfinite(c.ci_high) and abs(c.ci_high) < 10 for c in res.main + res.strata)
    strat_fit = [f for f in res.fits if f.metric == "relevance" and f.stratifier][0]
    assert strat_fit.diagnostics.dropped_columns == ["respllm_b:stratopen"]


def test_metric_frame_shape(small_study):
    frame = metric_frame(small_study.ratings, "overall", "human")
    assert list(frame["resp"].cat.categories)[0] == "human"
    assert isinstance(frame, pd.DataFrame) and frame["item"].nunique() == 3


def test_parametric_bootstrap_checks_the_df_of_a_small_design():
    """--bootstrap N: the bootstrap-t CI of each main contrast beside the reported one, the same numbers from the
    same seed; on 15 dialogues whose own effect is large, a z-like CI (the old model's df of ~230) is flagged as too
    narrow, and the dialogue model's Satterthwaite CI (df 8) comes out within 15% of the bootstrap's width."""
    from synthdocqa.judges.osce.analysis import bootstrap_check, fit_lmm, metric_frame, plan_jobs

    cfg = SimulationConfig(utterances_per_case=(8, 8, 8), n_raters=6, metrics=("overall",), response_sd=1.0)
    ratings = simulate_study(cfg, Rng(11)).ratings
    opts = AnalysisOptions(stratifiers=(), reliability=False, bootstrap=200, bootstrap_seed=3)
    a, b = analyze(ratings, options=opts), analyze(ratings, options=opts)
    checks = a.fits[0].bootstrap
    assert len(checks) == 4 and checks == b.fits[0].bootstrap  # same seed, same draws
    for c in checks:
        assert c.boot_ci_low < c.estimate < c.boot_ci_high
        assert 0.85 < (c.boot_ci_high - c.boot_ci_low) / (c.ci_high - c.ci_low) < 1.15
    frame = metric_frame(ratings, "overall", "human")
    job = plan_jobs(frame, "overall", "encounter", "human", opts, ["human"])[0][0]
    est, _ = fit_lmm(job, opts)
    z_like = [c.model_copy(update={"ci_low": c.estimate - 1.97 * c.se, "ci_high": c.estimate + 1.97 * c.se})
              for c in a.fits[0].contrasts]
    flagged, _ = bootstrap_check(job, est, z_like, "human", opts)
    assert all(c.wider for c in flagged)
