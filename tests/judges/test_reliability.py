"""Reliability statistics against published worked examples and scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from synthdocqa.judges.reliability import (
    ReliabilityError,
    agreement_summary,
    cohen_kappa,
    complete_targets,
    exact_agreement,
    icc,
    krippendorff_alpha,
    krippendorff_alpha_ci,
    within_one_agreement,
)

N = None
# Krippendorff (2011) "Computing Krippendorff's Alpha-Reliability", section E: 4 observers x 12 units.
KRIPP_2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges.
SHROUT_FLEISS = [
    [9, 2, 5, 8],
    [6, 1, 3, 2],
    [8, 4, 6, 8],
    [7, 1, 2, 6],
    [10, 5, 6, 9],
    [6, 2, 4, 7],
]


@pytest.mark.parametrize(
    ("level", "published"),
    [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)],
)
def test_krippendorff_2011_worked_example(level, published):
    assert krippendorff_alpha(KRIPP_2011, level=level) == pytest.approx(published, abs=5e-4)


def test_alpha_accepts_nan_and_numpy_and_ignores_unpairable_units():
    arr = np.array([[np.nan if v is None else v for v in row] for row in KRIPP_2011], dtype=float)
    assert krippendorff_alpha(arr, level="interval") == pytest.approx(0.849, abs=5e-4)
    # Unit 12 has one value only: dropping it changes nothing.
    assert krippendorff_alpha(arr[:, :11], level="ordinal") == pytest.approx(
        krippendorff_alpha(arr, level="ordinal")
    )


def test_alpha_ordinal_with_labels_equals_numeric_ranks():
    names = {1: "none", 2: "low", 3: "mid", 4: "high", 5: "max"}
    labelled = [[None if v is None else names[v] for v in row] for row in KRIPP_2011]
    got = krippendorff_alpha(labelled, level="ordinal", value_domain=["none", "low", "mid", "high", "max"])
    assert got == pytest.approx(0.815, abs=5e-4)
    # Nominal alpha on string labels matches nominal alpha on numbers.
    assert krippendorff_alpha(labelled, level="nominal") == pytest.approx(0.743, abs=5e-4)


def test_alpha_perfect_agreement_is_one_and_undefined_without_variation():
    assert krippendorff_alpha([[1, 2, 3, 1], [1, 2, 3, 1]], level="ordinal") == pytest.approx(1.0)
    assert math.isnan(krippendorff_alpha([[2, 2, 2], [2, 2, 2]], level="nominal"))


def test_alpha_systematic_disagreement_is_negative():
    assert krippendorff_alpha([[1, 2, 1, 2], [2, 1, 2, 1]], level="nominal") < 0


def test_alpha_errors_name_the_problem():
    with pytest.raises(ReliabilityError, match="level"):
        krippendorff_alpha(KRIPP_2011, level="cardinal")
    with pytest.raises(ReliabilityError, match="row 1"):
        krippendorff_alpha([[1, 2], [1]], level="nominal")
    with pytest.raises(ReliabilityError, match="numeric"):
        krippendorff_alpha([["a", "b"], ["a", "b"]], level="interval")
    with pytest.raises(ReliabilityError, match="pairable"):
        krippendorff_alpha([[1, N], [N, 2]], level="nominal")
    with pytest.raises(ReliabilityError, match="value_domain"):
        krippendorff_alpha([["a", "z"], ["a", "b"]], level="ordinal", value_domain=["a", "b"])


def test_alpha_bootstrap_ci_brackets_point_and_is_seeded():
    rng_data = np.random.default_rng(3)
    truth = rng_data.integers(1, 6, size=60)
    data = np.vstack([np.clip(truth + rng_data.integers(-1, 2, size=60), 1, 5) for _ in range(3)]).astype(float)
    a1 = krippendorff_alpha_ci(data, "ordinal", rng=np.random.default_rng(0), n_boot=200)
    a2 = krippendorff_alpha_ci(data, "ordinal", rng=np.random.default_rng(0), n_boot=200)
    assert a1 == a2
    point, lo, hi = a1
    assert lo < point < hi
    assert 0.3 < point < 1.0


def test_icc_shrout_fleiss_table():
    r = icc(SHROUT_FLEISS)
    assert r.icc2_1 == pytest.approx(0.29, abs=0.005)
    assert r.icc2_k == pytest.approx(0.62, abs=0.005)
    assert r.icc3_1 == pytest.approx(0.71, abs=0.005)
    assert r.icc3_k == pytest.approx(0.91, abs=0.005)
    lo, hi = r.icc2_1_ci
    assert lo < r.icc2_1 < hi
    lo_k, hi_k = r.icc2_k_ci
    assert lo_k < r.icc2_k < hi_k


def test_icc_ci_covers_truth_in_simulation():
    """McGraw & Wong CI for ICC(2,1): nominal 95% coverage, checked loosely on 200 draws."""
    gen = np.random.default_rng(11)
    n, k, s_t, s_r, s_e = 30, 4, 1.0, 0.5, 1.0
    truth = s_t**2 / (s_t**2 + s_r**2 + s_e**2)
    hits = 0
    for _ in range(200):
        x = gen.normal(0, s_t, (n, 1)) + gen.normal(0, s_r, (1, k)) + gen.normal(0, s_e, (n, k))
        lo, hi = icc(x).icc2_1_ci
        hits += lo <= truth <= hi
    assert 0.88 <= hits / 200 <= 0.99


def test_icc_rejects_missing_and_complete_targets_drops_them():
    x = np.array(SHROUT_FLEISS, dtype=float)
    x[2, 1] = np.nan
    with pytest.raises(ReliabilityError, match=r"\[2\]"):
        icc(x)
    assert complete_targets(x).shape == (5, 4)
    with pytest.raises(ReliabilityError, match="2 targets"):
        icc([[1, 2, 3]])


@pytest.mark.parametrize("weights", ["quadratic", "linear", "none"])
def test_cohen_kappa_matches_sklearn(weights):
    gen = np.random.default_rng(5)
    a = gen.integers(1, 6, 200)
    b = np.clip(a + gen.integers(-2, 3, 200), 1, 5)
    sk = cohen_kappa_score(a, b, weights=None if weights == "none" else weights)
    assert cohen_kappa(a, b, weights=weights) == pytest.approx(sk, abs=1e-12)
    labels = [1, 2, 3, 4, 5, 6, 7]
    sk_l = cohen_kappa_score(a, b, weights=None if weights == "none" else weights, labels=labels)
    assert cohen_kappa(a, b, weights=weights, labels=labels) == pytest.approx(sk_l, abs=1e-12)


def test_agreement_rates_and_summary():
    a = [1, 2, 3, 4, 5, np.nan]
    b = [1, 3, 5, 4, 4, 2]
    assert exact_agreement(a, b) == pytest.approx(2 / 5)
    assert within_one_agreement(a, b) == pytest.approx(4 / 5)
    s = agreement_summary(a, b)
    assert s.n == 5
    assert s.mean_difference == pytest.approx((0 - 1 - 2 + 0 + 1) / 5)
    assert s.kappa_quadratic == pytest.approx(cohen_kappa_score([1, 2, 3, 4, 5], b[:5], weights="quadratic"))
    with pytest.raises(ReliabilityError, match="equal-length"):
        exact_agreement([1, 2], [1])
    with pytest.raises(ReliabilityError, match="not among labels"):
        cohen_kappa([1, 9], [1, 2], labels=[1, 2, 3])
