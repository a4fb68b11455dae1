"""Property tests over random seeds: every planned document is internally consistent.

Totals add up exactly, shares and percent changes match their parts, paired dates are ordered, pie
shares sum to 100, names are tied to entities, and every fact span draws its fact's exact text.
"""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import demo_spec, reference_spec
from tests.generation.plan_checks import (
    ORDERED_DATES,
    all_problems,
    date_problems,
    derivation_problems,
    recipe_problems,
    span_problems,
)

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


@pytest.mark.parametrize(("make_spec", "examples"), [(demo_spec, 25), (reference_spec, 8)], ids=["demo", "reference"])
def test_planned_documents_are_consistent(make_spec, examples):
    """Every check holds for any document of the demo and the reference spec, the recipe's length and
    charts included (reference documents are long: fewer examples)."""

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=SEEDS, index=st.integers(min_value=0, max_value=10_000))
    def planned_consistently(seed, index):
        doc = plan_document(make_spec(seed=seed, n_docs=index + 1), index)
        assert all_problems(doc) + recipe_problems(doc) == []

    planned_consistently()


@settings(max_examples=5, deadline=None)
@given(seed=SEEDS)
def test_checks_are_not_vacuous(seed):
    """The sample exercises totals, shares or changes, and ordered dates (so the checks can fail)."""
    ops, pairs = set(), 0
    for i in range(40):  # demo documents are short genres (memos, forms, invoices): look at enough of them
        doc = plan_document(demo_spec(seed=seed, n_docs=40), i)
        ops |= {f.derivation.op for f in doc.facts if f.derivation}
        attrs = [f.attribute for f in doc.facts]
        pairs += sum(min(attrs.count(a), attrs.count(b)) for a, b in ORDERED_DATES)
    assert "sum" in ops and ops & {"share", "percent_change", "difference", "mean"} and pairs > 0


def test_checks_catch_broken_documents():
    doc, total = next((d, f) for d in (plan_document(demo_spec(seed=s), 0) for s in range(50)) for f in d.facts
                      if f.derivation and f.derivation.op == "sum")
    broken_value = total.value.model_copy(update={("amount" if total.value.kind == "money" else "value"):
                                                  (total.value.amount if total.value.kind == "money"
                                                   else total.value.value) + 1})
    bad = doc.model_copy(update={"facts": [f.model_copy(update={"value": broken_value}) if f.id == total.id else f
                                           for f in doc.facts]})
    assert any(total.id in p for p in derivation_problems(bad))
    renamed = doc.model_copy(update={"facts": [f.model_copy(update={"text": f.text + "!"}) if f.id == total.id else f
                                               for f in doc.facts]})
    assert any(total.id in p for p in span_problems(renamed))


def test_date_check_catches_swapped_dates():
    for seed in range(40):
        doc = plan_document(demo_spec(seed=seed), 0)
        by = {f.attribute: f for f in doc.facts}
        pair = next(((a, b) for a, b in ORDERED_DATES if a in by and b in by and by[a].group == by[b].group), None)
        if pair is None:
            continue
        a, b = by[pair[0]], by[pair[1]]
        swapped = doc.model_copy(update={"facts": [
            f.model_copy(update={"value": b.value}) if f.id == a.id else
            f.model_copy(update={"value": a.value}) if f.id == b.id else f for f in doc.facts]})
        assert date_problems(doc) == [] and date_problems(swapped)
        return
    raise AssertionError("no document with an ordered date pair in 40 seeds")


ELEMENTS = ("table", "figure", "form", "annotation", "text")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS,
       weights=st.lists(st.sampled_from([0.0, 0.0, 0.1, 1.0, 3.0]), min_size=5, max_size=5).filter(
           lambda w: sum(w) > 0),
       per_page=st.floats(min_value=0.5, max_value=6.0),
       mean_pages=st.integers(min_value=1, max_value=6),
       tier=st.sampled_from(["pristine", "good", "fair", "degraded", "poor"]))
def test_any_valid_spec_plans_consistently(seed, weights, per_page, mean_pages, tier):
    from synthdocqa.generation.planner import qa_bearing_blocks
    from synthdocqa.ir.spec import CorpusSpec, PageCountDist

    mix = dict(zip(ELEMENTS, weights, strict=True))
    spec = CorpusSpec(seed=seed, n_docs=2, pages=PageCountDist(mean=mean_pages, sigma=0.3, min=1, max=8),
                      element_mix=mix, blocks_per_page=per_page, tier_mix={tier: 1.0})
    doc = plan_document(spec, 1)
    assert all_problems(doc) == []
    assert doc.perturbation.tier == tier and 1 <= len(doc.pages) <= 8
    # the spec's element mix governs the general content; genre blocks are the genre's anatomy (an invoice has
    # its lines whatever the mix)
    genre = {b.id for _, b in doc.blocks() if b.genre_block}
    used = {e for bid, e in qa_bearing_blocks(doc) if bid not in genre}
    assert used <= {e for e, w in mix.items() if w > 0}
