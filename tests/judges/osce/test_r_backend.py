"""Optional R backend (lme4 + lmerTest): same contrasts as statsmodels, plus Satterthwaite df.

Needs ``Rscript`` with lme4/lmerTest (``apt-get install r-cran-lmertest``); without it the skip
reason says so in the ``-ra`` summary.
"""

from __future__ import annotations

import pytest

from judges.osce.analysis import AnalysisOptions, analyze
from judges.osce.r_backend import r_available
from judges.osce.report import render_report

pytestmark = pytest.mark.skipif(not r_available(), reason="Rscript with lme4/lmerTest not installed")


def test_r_and_statsmodels_agree_and_r_reports_satterthwaite_df(small_study, tmp_path):
    kw = dict(stratifiers=("linguistic_form",), reliability=False)
    r = analyze(small_study.ratings, options=AnalysisOptions(backend="r", **kw), metrics=["correctness", "overall"])
    s = analyze(small_study.ratings, options=AnalysisOptions(**kw), metrics=["correctness", "overall"])
    assert len(r.main) == len(s.main) == 8 and len(r.strata) == len(s.strata) == 12
    for a, b in zip(r.main + r.strata, s.main + s.strata, strict=True):
        assert (a.metric, a.responder, a.stratum) == (b.metric, b.responder, b.stratum)
        assert a.estimate == pytest.approx(b.estimate, abs=1e-4)
        assert a.se == pytest.approx(b.se, rel=0.02)
        assert a.df is not None and a.df > 0 and b.df is None
        # t with finite df gives a wider interval than z
        assert a.ci_high - a.ci_low > b.ci_high - b.ci_low
    enc = [c for c in r.main if c.metric == "overall"]
    assert all(c.df < 100 for c in enc)  # 75 encounter-level scores: df far from the z limit
    assert {f.diagnostics.method for f in r.fits} == {"lme4/lmerTest (Satterthwaite)"}
    assert "Satterthwaite" in r.model_formula
    md = (render_report(r, tmp_path / "rep") / "report.md").read_text()
    assert "| df |" in md
