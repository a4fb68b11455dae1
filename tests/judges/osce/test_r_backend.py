"""Our solver against the reference: lme4 + lmerTest (+ emmeans, ordinal) through Rscript.

Needs ``Rscript`` with lme4 and lmerTest (``apt-get install r-cran-lmertest``; CI installs them), emmeans
for the EMM check and ordinal for the CLMM check; without them each test is skipped with a reason that
names what is missing. The 20-seed version of the agreement check is ``benchmarks/bench_osce.py
--agreement``.
"""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce.analysis import AnalysisOptions, analyze
from synthdocqa.judges.osce.crosscheck import compare_results
from synthdocqa.judges.osce.pipeline import analyze_file
from synthdocqa.judges.osce.r_backend import r_missing
from synthdocqa.judges.osce.report import render_report
from synthdocqa.judges.osce.simulate import SimulationConfig, make_unbalanced, simulate_study

pytestmark = pytest.mark.needs("R")
OPTS = AnalysisOptions(stratifiers=("linguistic_form",), reliability=False)


def _study(seed: int, unbalanced: bool = False):
    root = Rng(seed).fork("osce-sim")
    ratings = simulate_study(SimulationConfig(), root).ratings
    return make_unbalanced(ratings, root.fork("unbalanced")) if unbalanced else ratings


@pytest.fixture(scope="module")
def pairs():
    """(ours, lme4 at its optimum) on two study seeds and one unbalanced file (one rater, one case; 5% missing)."""
    out = {}
    for label, seed, unb in (("seed 1", 1, False), ("seed 2", 2, False), ("unbalanced seed 3", 3, True)):
        ratings = _study(seed, unb)
        ours = analyze(ratings, options=OPTS)
        ref = analyze(ratings, options=OPTS.model_copy(update={"backend": "r", "r_strict": True}))
        out[label] = (ours, ref)
    return out


def test_ours_matches_lme4_lmertest_within_the_issue_tolerances(pairs):
    for label, (ours, ref) in pairs.items():
        check = compare_results(ours, ref)
        assert check.ok, f"{label}: " + "; ".join(check.failures[:5])
        # rater, item, the dialogue's or answer's own effect and the residual of 9 main + 3 stratified fits
        assert check.compared["variance"] == sum(len(f.diagnostics.variance_components) + 1 for f in ours.fits) == 48
        assert check.compared["df"] >= 9 * 5 + 3 * 15
        # ours is at least as good an optimum as lme4 with tightened tolerances
        for a, b in zip(ours.fits, ref.fits, strict=True):
            assert a.diagnostics.loglik >= b.diagnostics.loglik - 1e-7


def test_planted_errors_fail_the_agreement_check(pairs):
    ours, ref = pairs["seed 1"]
    fit = ours.fits[0]
    bad_vc = fit.diagnostics.model_copy(update={"variance_components": {
        k: v * (1 + 3e-4) for k, v in fit.diagnostics.variance_components.items()}})
    planted = ours.model_copy(update={"fits": [fit.model_copy(update={"diagnostics": bad_vc}), *ours.fits[1:]]})
    failures = compare_results(planted, ref).failures
    assert failures and all("variance" in f and f.startswith("correctness main") for f in failures)
    c = fit.contrasts[0]
    bad_se = fit.model_copy(update={"contrasts": [c.model_copy(update={"se": c.se * (1 + 2e-4),
                                                                       "df": c.df * 1.01}), *fit.contrasts[1:]]})
    failures = compare_results(ours.model_copy(update={"fits": [bad_se, *ours.fits[1:]]}), ref).failures
    assert len(failures) == 2
    assert any(" llm_a se " in f for f in failures) and any(" llm_a df " in f for f in failures)


@pytest.mark.skipif(r_missing(("emmeans",)) is not None, reason=f"R emmeans unavailable: {r_missing(('emmeans',))}")
def test_marginal_means_match_emmeans(pairs):
    ours, ref = pairs["unbalanced seed 3"]
    a = {(f.metric, f.stratifier, e.responder, e.stratum): e for f in ours.fits for e in f.emms}
    b = {(f.metric, f.stratifier, e.responder, e.stratum): e for f in ref.fits for e in f.emms}
    assert set(a) == set(b) and len(a) == 9 * 5 + 3 * 15
    for k, e in a.items():
        assert e.estimate == pytest.approx(b[k].estimate, rel=1e-6)
        assert e.se == pytest.approx(b[k].se, rel=1e-4)
        assert e.df == pytest.approx(b[k].df, rel=5e-3)


def test_r_backend_reports_no_refits_and_satterthwaite_df(small_study, tmp_path):
    path = tmp_path / "ratings.csv"
    small_study.ratings.to_csv(path, index=False)
    summary, r = analyze_file(path, tmp_path / "rep", options=AnalysisOptions(backend="r", stratifiers=()))
    assert summary.refits == 0 and summary.unconfirmed == 0
    assert {f.diagnostics.method for f in r.fits} == {"lme4/lmerTest (Satterthwaite)"}
    assert all(f.diagnostics.model_cpu_seconds is not None for f in r.fits)
    assert all(c.df < 100 for c in r.main if c.metric == "overall")  # 75 encounter-level scores
    assert "Satterthwaite" in r.model_formula
    assert "| df |" in (render_report(r, tmp_path / "rep2") / "report.md").read_text()


def test_r_backend_never_sees_a_metric_without_reference(small_study):
    r = small_study.ratings
    no_ref = r[~((r["metric"] == "overall") & (r["responder"] == "human"))]
    res = analyze(no_ref, options=AnalysisOptions(backend="r", stratifiers=(), reliability=False),
                  metrics=["correctness", "overall"])
    assert res.metrics == ["correctness"] and "metric overall excluded" in res.exclusions[0]


@pytest.mark.skipif(r_missing(("ordinal",)) is not None, reason=f"R ordinal unavailable: {r_missing(('ordinal',))}")
def test_ordinal_sensitivity_model_gives_latent_contrasts(small_study):
    res = analyze(small_study.ratings, options=AnalysisOptions(stratifiers=(), reliability=False, ordinal=True),
                  metrics=["correctness"])
    assert len(res.ordinal) == 4 and "clmm" in res.ordinal_model
    lin = {c.responder: c for c in res.main}
    for c in res.ordinal:
        assert c.df is None and c.adjust_method == "holm" and np.isfinite(c.p_value)
        if lin[c.responder].significant:  # a clear linear-model difference keeps its sign on the latent scale
            assert np.sign(c.estimate) == np.sign(lin[c.responder].estimate)


def test_kenward_roger_df_through_pbkrtest():
    """--ddf kenward-roger (R backend): the same estimates and SEs as Satterthwaite, and on a design whose dialogue
    variance is away from 0 both df rest on the 15 dialogues (KR 8, Satterthwaite 8-10 here); the fit names its
    df."""
    cfg = SimulationConfig(metrics=("overall", "accuracy"), utterances_per_case=(4, 4, 4), n_raters=6,
                           response_sd=0.5)
    ratings = simulate_study(cfg, Rng(21).fork("osce-sim")).ratings
    base = AnalysisOptions(stratifiers=(), reliability=False, backend="r")
    sat = analyze(ratings, options=base)
    kr = analyze(ratings, options=base.model_copy(update={"ddf": "kenward-roger"}))
    assert "Kenward-Roger" in kr.model_formula and all("Kenward-Roger" in f.diagnostics.method for f in kr.fits)
    by_key = {(c.metric, c.responder): c for c in sat.main}
    for c in kr.main:
        s = by_key[(c.metric, c.responder)]
        assert c.estimate == pytest.approx(s.estimate, abs=1e-9) and c.se == pytest.approx(s.se, rel=1e-3)
        assert 4 < c.df < 12 and 4 < s.df < 12  # both rest on the 15 dialogues, not on the ratings
    with pytest.raises(ValueError, match="kenward-roger"):
        AnalysisOptions(ddf="kenward-roger")  # our solver computes Satterthwaite only
