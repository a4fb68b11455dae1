"""Simulator: seeded bytes, the study's size, and planted contrasts on the expected Likert scale."""

from __future__ import annotations

import numpy as np
import pytest

from synthdocqa.ir.rng import Rng
from synthdocqa.judges.osce.loaders import validate_ratings
from synthdocqa.judges.osce.simulate import (
    SimulationConfig,
    _expected_likert,
    make_unbalanced,
    simulate_study,
)

from .conftest import SMALL


def test_same_seed_same_tables_other_seed_differs():
    a = simulate_study(SMALL, Rng(3))
    b = simulate_study(SMALL, Rng(3))
    c = simulate_study(SMALL, Rng(4))
    assert a.ratings.to_csv(index=False) == b.ratings.to_csv(index=False)
    assert a.truth.equals(b.truth)
    assert a.ratings.to_csv(index=False) != c.ratings.to_csv(index=False)


def test_study_preset_is_the_reference_design():
    cfg = SimulationConfig()
    s = simulate_study(cfg, Rng(0))
    sizes = s.ratings.groupby("metric").size()
    for m in ("correctness", "relevance", "naturalness"):
        assert sizes[m] == 7480  # 5 responders x 17 raters x 88 questions
    assert sizes["overall"] == 5 * 17 * 3
    assert cfg.n_scores() == len(s.ratings)
    assert s.ratings["rater"].nunique() == 17 and s.ratings["case"].nunique() == 3
    # fully crossed: every rater scored every unit of every responder exactly once
    sent = s.ratings[s.ratings["metric"] == "correctness"]
    assert sent.groupby(["rater", "responder"]).size().eq(88).all()
    # strata are balanced by construction: 88 questions over 11 categories
    assert sent.drop_duplicates(["case", "utterance_id"])["history_category"].value_counts().eq(8).all()
    validate_ratings(s.ratings)
    assert s.ratings["score"].between(1, 5).all()


def test_single_metric_design_is_exactly_7480_scores():
    cfg = SimulationConfig(metrics=("correctness",))
    assert cfg.n_scores() == 7480 and len(simulate_study(cfg, Rng(1)).ratings) == 7480


def test_expected_likert_matches_monte_carlo():
    gen = np.random.default_rng(0)
    for mu, sd in [(3.2, 0.8), (4.7, 1.0), (1.1, 0.5)]:
        draws = np.clip(np.rint(gen.normal(mu, sd, 400_000)), 1, 5)
        assert _expected_likert(np.array([mu]), sd, 1, 5)[0] == pytest.approx(draws.mean(), abs=0.01)


def test_planted_contrast_is_shrunk_by_discretisation_and_zero_for_null_effects():
    cfg = SimulationConfig(utterances_per_case=(6, 6, 5), n_raters=5, baseline=4.6,
                           responder_effects={"llm_a": {"correctness": -1.0}}, form_interaction={})
    t = simulate_study(cfg, Rng(2)).truth
    main = t[t["stratifier"].isna() & (t["metric"] == "correctness")].set_index("responder")
    assert main.loc["llm_a", "planted_latent"] == pytest.approx(-1.0)
    # near the ceiling, a latent -1.0 is less than one Likert point on the expected score
    assert -1.0 < main.loc["llm_a", "planted"] < -0.5
    assert main.loc["llm_b", "planted"] == pytest.approx(0.0, abs=1e-12)


def test_config_rejects_bad_designs():
    with pytest.raises(ValueError, match="reference"):
        SimulationConfig(responders=("a", "b"))
    with pytest.raises(ValueError, match="unknown metric"):
        SimulationConfig(metrics=("charisma",))


def test_unbalanced_design_one_rater_one_case_five_percent_missing():
    s = simulate_study(SimulationConfig(), Rng(3))
    r = make_unbalanced(s.ratings, Rng(3).fork("unbalanced"))
    last = r[r["rater"] == "r17"]
    assert set(last["case"]) == {"case1"}
    others = s.ratings[~((s.ratings["rater"] == "r17") & (s.ratings["case"] != "case1"))]
    assert 0.04 < 1 - len(r) / len(others) < 0.06
    assert make_unbalanced(s.ratings, Rng(3).fork("unbalanced")).equals(r)
    validate_ratings(r)
