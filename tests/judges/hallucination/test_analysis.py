"""Statistics cross-checked against scikit-learn and statsmodels on the same labels."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    matthews_corrcoef,
    precision_score,
    recall_score,
)
from statsmodels.stats.contingency_tables import cochrans_q as sm_cochrans_q
from statsmodels.stats.contingency_tables import mcnemar as sm_mcnemar

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.hallucination.analysis import analyse
from synthdocqa.judges.hallucination.binary_stats import (
    binary_metrics,
    bootstrap_metrics,
    calibrate_threshold,
    cochrans_q,
    mcnemar_exact,
)
from synthdocqa.judges.hallucination.items import HallucinationItem
from synthdocqa.judges.reliability import krippendorff_alpha


def _labels(seed: int, n: int, p_true: float, agree: float):
    g = np.random.default_rng(seed)
    t = g.random(n) < p_true
    p = np.where(g.random(n) < agree, t, ~t)
    return t, p


@pytest.mark.parametrize("seed,n,p_true,agree", [(0, 200, 0.4, 0.8), (1, 57, 0.1, 0.6), (2, 500, 0.7, 0.95),
                                                  (3, 30, 0.5, 0.5)])
def test_metrics_match_sklearn(seed, n, p_true, agree):
    t, p = _labels(seed, n, p_true, agree)
    m = binary_metrics(t, p)
    assert m["accuracy"] == pytest.approx(accuracy_score(t, p))
    assert m["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(t, p))
    assert m["precision"] == pytest.approx(precision_score(t, p, zero_division=0))
    assert m["recall"] == pytest.approx(recall_score(t, p, zero_division=0))
    assert m["f1"] == pytest.approx(f1_score(t, p, zero_division=0))
    assert m["mcc"] == pytest.approx(matthews_corrcoef(t, p))
    assert m["kappa"] == pytest.approx(cohen_kappa_score(t, p))


def test_degenerate_predictions_match_sklearn():
    t = np.array([True, False, True, False, False])
    for p in (np.zeros(5, bool), np.ones(5, bool)):
        m = binary_metrics(t, p)
        assert m["precision"] == precision_score(t, p, zero_division=0)
        assert m["mcc"] == matthews_corrcoef(t, p)
        assert m["kappa"] == pytest.approx(cohen_kappa_score(t, p))
        assert m["balanced_accuracy"] == pytest.approx(balanced_accuracy_score(t, p))


def test_stratified_bootstrap_ci_covers_point_and_is_seeded():
    t, p = _labels(5, 300, 0.4, 0.8)
    a = bootstrap_metrics(t, p, np.random.default_rng(1), n_boot=500)
    b = bootstrap_metrics(t, p, np.random.default_rng(1), n_boot=500)
    assert a == b
    for k, ci in a.items():
        assert ci.low <= ci.value <= ci.high, k
    assert 0.02 < a["kappa"].high - a["kappa"].low < 0.3
    # recall is computed on resampled gold positives only, whose count is fixed by stratification
    assert a["recall"].value == pytest.approx(recall_score(t, p))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mcnemar_exact_matches_statsmodels(seed):
    a, b = _labels(seed, 80, 0.5, 0.75)
    ours = mcnemar_exact(a, b)
    table = [[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]]
    ref = sm_mcnemar(table, exact=True)
    assert ours.p_value == pytest.approx(ref.pvalue)
    assert ours.statistic == pytest.approx(ref.statistic)


def test_cochrans_q_matches_statsmodels():
    g = np.random.default_rng(4)
    x = (g.random((60, 4)) < np.array([0.3, 0.5, 0.55, 0.7])).astype(int)
    ours, ref = cochrans_q(x), sm_cochrans_q(x)
    assert ours.q == pytest.approx(ref.statistic) and ours.p_value == pytest.approx(ref.pvalue)
    assert ours.df == 3


def test_calibration_maximises_balanced_accuracy():
    g = np.random.default_rng(2)
    y = g.random(400) < 0.3
    s = np.where(y, g.normal(0.3, 0.15, 400), g.normal(0.7, 0.15, 400))
    t, ba = calibrate_threshold(s, y)
    assert ba == pytest.approx(balanced_accuracy_score(y, s < t))
    grid = np.linspace(-0.5, 1.5, 201)
    assert ba >= max(balanced_accuracy_score(y, s < x) for x in grid) - 1e-12
    # perfectly separable -> BA 1, cut between the classes
    t2, ba2 = calibrate_threshold([0.1, 0.2, 0.8, 0.9], [True, True, False, False])
    assert ba2 == 1.0 and 0.2 < t2 < 0.8
    with pytest.raises(ValueError, match="both classes"):
        calibrate_threshold([0.1, 0.2], [True, True])


def _items(n: int, seed: int):
    """``n`` items cycling through three error types (seeded dev/test split), and their error types."""
    g = np.random.default_rng(seed)
    items = []
    for i in range(n):
        et = ["correct", "extra_true", "wrong_value"][i % 3]
        faith, fact = {"correct": (False, False), "extra_true": (True, False), "wrong_value": (True, True)}[et]
        items.append(HallucinationItem(item_id=f"i{i}", question="q?", references=["a"], candidate="a",
                                       error_type=et, label_faithfulness=faith, label_factual=fact,
                                       split="dev" if g.random() < 0.5 else "test", doc_id=f"d{i}"))
    return items, np.array([it.error_type for it in items])


def _value_error_scores(et: np.ndarray, g: np.random.Generator | None = None, noise: float = 0.0) -> np.ndarray:
    """Support scores of a labeler that sees only value errors: 0.2 for ``wrong_value``, 0.8 for the other
    error types, plus normal noise of sd ``noise`` drawn from ``g``."""
    s = np.where(et == "wrong_value", 0.2, 0.8)
    return s + g.normal(0, noise, len(et)) if noise else s


def test_analyse_end_to_end_on_known_labels():
    items, et = _items(600, 0)
    g = np.random.default_rng(9)
    s = _value_error_scores(et, g, noise=0.05)
    judge_f = [bool(x) if i % 50 else None for i, x in enumerate(et != "correct")]
    judge_c = [bool(x) for x in et == "wrong_value"]
    res = analyse(items, {"lex": s}, {"j/faith": judge_f, "j/fact": judge_c}, rng=Rng(1), n_boot=200,
                  alpha_boot=50, judge_pairs={"j": ("j/faith", "j/fact")})
    test = np.array([it.split == "test" for it in items])
    assert res.n_test == int(test.sum()) and res.n_dev + res.n_test == 600
    row = {(m.labeler, m.criterion): m for m in res.metrics}
    # the value-only labeler agrees perfectly with the factual gold and not with the faithfulness gold
    assert row[("lex", "factual")].metrics["kappa"].value == pytest.approx(1.0)
    mm = res.mismatch[0]
    assert mm.kappa_factual.value > 0.95 > 0.6 > mm.kappa_faithfulness.value
    drv = {d.error_type: d for d in res.drivers}
    assert drv["extra_true"].contribution < 0 and drv["correct"].contribution == 0
    assert sum(d.contribution for d in res.drivers) == pytest.approx(
        binary_metrics([it.label_faithfulness for it, t in zip(items, test, strict=True) if t],
                       (s < res.thresholds["lex"]["faithfulness"])[test])["accuracy"]
        - binary_metrics([it.label_factual for it, t in zip(items, test, strict=True) if t],
                         (s < res.thresholds["lex"]["faithfulness"])[test])["accuracy"])
    # invalid judge labels are counted, not dropped or guessed
    jf = row[("j/faith", "faithfulness")]
    assert jf.n_invalid == sum(1 for i, t in enumerate(test) if t and i % 50 == 0)
    assert jf.n + jf.n_invalid == int(test.sum())
    assert res.invalid_counts["j/faith"] == {"invalid": 12, "n": 600}
    # McNemar on the paired prompt labels equals statsmodels'
    ok = [i for i in range(600) if judge_f[i] is not None]
    a = np.array([judge_f[i] for i in ok], bool)
    b = np.array([judge_c[i] for i in ok], bool)
    ref = sm_mcnemar([[int((a & b).sum()), int((a & ~b).sum())], [int((~a & b).sum()), int((~a & ~b).sum())]],
                     exact=True)
    assert res.mcnemar["j"].p_value == pytest.approx(ref.pvalue)
    # bias table: extra_true is a false positive for the factual criterion for the faithfulness judge
    bias = {(r.labeler, r.criterion, r.error_type): r for r in res.bias}
    assert bias[("j/faith", "factual", "extra_true")].fpr == 1.0
    assert bias[("lex", "factual", "wrong_value")].fnr == 0.0
    # Krippendorff's alpha comes from judges.reliability on the test-split predictions
    fa = next(a for a in res.alpha if a.criterion == "factual")
    data = [[None if v is None else bool(v) for v in
             ((s < res.thresholds["lex"]["factual"]).astype(object)[test] if k == "lex"
              else np.array({"j/faith": judge_f, "j/fact": judge_c}[k], dtype=object)[test])] for k in fa.labelers]
    assert fa.alpha == pytest.approx(krippendorff_alpha(data, level="nominal"))
    assert fa.low <= fa.alpha <= fa.high
    assert set(res.cochran) == {"faithfulness", "factual"}


def _cis(res, labeler: str) -> dict:
    rows = {(m.criterion, k): (ci.value, ci.low, ci.high) for m in res.metrics if m.labeler == labeler
            for k, ci in m.metrics.items()}
    rows.update({("mismatch", c): (getattr(m, f"kappa_{c}").low, getattr(m, f"kappa_{c}").high)
                 for m in res.mismatch if m.labeler == labeler for c in ("faithfulness", "factual")})
    return rows


def test_a_labelers_cis_do_not_depend_on_the_other_labelers():
    items, et = _items(300, 3)
    g = np.random.default_rng(4)
    x = _value_error_scores(et, g, noise=0.2)
    y = np.where(et == "correct", 0.9, 0.3) + g.normal(0, 0.2, len(items))
    judge = [bool(v) for v in (et != "correct") ^ (g.random(len(items)) < 0.2)]
    alone = analyse(items, {"x": x}, rng=Rng(5), n_boot=200, alpha_boot=0)
    # another score labeler listed first, and a binary judge: X's streams are forked by its own name
    crowded = analyse(items, {"y": y, "x": x}, {"j": judge}, rng=Rng(5), n_boot=200, alpha_boot=0)
    assert _cis(alone, "x") == _cis(crowded, "x")
    assert len(_cis(alone, "x")) == 2 * 7 + 2
    other_seed = analyse(items, {"x": x}, rng=Rng(6), n_boot=200, alpha_boot=0)
    a, b = _cis(alone, "x"), _cis(other_seed, "x")
    assert all(a[k][0] == b[k][0] for k in a if k[0] != "mismatch")  # same points: splits are the items' own
    assert a != b  # ... but other resamples
    # the mismatch table's kappas are the metrics table's kappa statistic: same stream, same CI
    assert a[("mismatch", "factual")] == a[("factual", "kappa")][1:]


def test_a_failed_report_write_leaves_no_temp_file(tmp_path, monkeypatch):
    from synthdocqa.judges.hallucination import report

    items, et = _items(60, 1)
    s = _value_error_scores(et)
    res = analyse(items, {"lex": s}, rng=Rng(1), n_boot=20, alpha_boot=0)
    paths = report.write_report(res, tmp_path)
    before = paths["html"].read_bytes()

    def broken(*_a, **_k):
        raise RuntimeError("boom")

    monkeypatch.setattr(report, "render_html", broken)
    with pytest.raises(RuntimeError, match="boom"):
        report.write_report(res, tmp_path)
    assert paths["html"].read_bytes() == before
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_labeler_names_reach_the_html_report_escaped(tmp_path):
    """Labeler names come from the user's judges.yaml; the template engine escapes them."""
    from synthdocqa.judges.hallucination import report

    evil = '<img src=x onerror="alert(1)">'
    items, et = _items(60, 1)
    s = _value_error_scores(et)
    res = analyse(items, {evil: s}, rng=Rng(1), n_boot=20, alpha_boot=0)
    html = report.render_html(res, header=[f"judges: {evil}"], images={"x.png": b"\x89PNG"})
    assert evil not in html and "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in html
    assert html.count("<img ") == 1 and 'src="data:image/png;base64,iVBORw=="' in html
