"""QA arithmetic respects the semantic type of its values: no sum of rates, differences of percentages in
percentage points, percent changes only of amounts and counts; list answers name the list's items."""

import pytest

import synthdocqa.generation.qa.arithmetic as arithmetic
from synthdocqa.generation.qa import build_evidence, derive_qa, drawn_render_map
from synthdocqa.generation.qa.fact_arithmetic import quantity_of, semantic_misuses
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.values import MoneyValue, NumberValue, PercentValue

from .qa_fixture import fixture_doc


def _qa(seed: int, qa_per_page: float = 40):
    doc = fixture_doc().model_copy(update={"seed": seed})
    rm = drawn_render_map(doc)
    qa, asr = derive_qa(doc, rm, build_evidence(rm), qa_per_page=qa_per_page)
    return doc, qa, asr


def _fact(value, quantity=None) -> Fact:
    return Fact(id="f0001", label="x", value=value, text="x", quantity=quantity)


def test_quantity_comes_from_the_ir_or_is_inferred_from_the_value():
    assert quantity_of(_fact(PercentValue(value=1))) == "rate"
    assert quantity_of(_fact(MoneyValue(amount=1, currency="USD"))) == "amount"
    assert quantity_of(_fact(NumberValue(value=1, unit="incidents"))) == "count"
    assert quantity_of(_fact(NumberValue(value=1, unit="hours"))) == "duration"
    assert quantity_of(_fact(NumberValue(value=1, unit="t/ha"))) == "ratio"
    assert quantity_of(_fact(NumberValue(value=1, unit=""))) == "index"
    assert quantity_of(_fact(MoneyValue(amount=1, currency="USD"), quantity="ratio")) == "ratio"  # the IR decides


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_no_derivation_misuses_its_values(seed):
    doc, qa, asr = _qa(seed)
    assert semantic_misuses(doc.fact_index(), asr) == []
    facts = doc.fact_index()
    for a in asr:
        der = a.derivation
        if der is None:
            continue
        kinds = {quantity_of(facts[op.fact_id]) for op in der.operands}
        if der.op in ("sum", "percent_change"):
            assert kinds <= {"amount", "count", "duration"}, (a.claim, kinds)
        if der.op == "difference" and kinds == {"rate"}:
            assert a.value.unit == "percentage points", a.claim


def test_a_difference_of_rates_is_in_percentage_points():
    found = []
    for seed in range(11, 17):
        _, qa, _ = _qa(seed)
        found += [q for q in qa if q.qa_type == "difference" and "share" in q.question]
    assert found
    for q in found:
        assert q.answer.unit == "percentage points" and q.answer_text.endswith("percentage points"), q


def test_a_planted_sum_over_rates_is_caught(monkeypatch):
    """With the semantic rule switched off, a sum of percentages appears and the check reports it."""
    monkeypatch.setattr(arithmetic, "facts_allow", lambda op, facts: True)
    monkeypatch.setattr(arithmetic, "AGGREGATES", ("sum",))
    problems = []
    for seed in range(11, 15):
        doc, _, asr = _qa(seed)
        problems += semantic_misuses(doc.fact_index(), asr)
    assert any("sum over rate" in p for p in problems), problems


def test_list_answers_name_the_items_not_their_fields():
    doc = fixture_doc()
    lst = next(b for _, b in doc.blocks() if b.type == "list")
    heads = [item[0].text for item in lst.items]
    seen = False
    for seed in range(11, 17):
        _, qa, _ = _qa(seed)
        for q in qa:
            if q.qa_type == "list" and "open actions list" in q.question and q.answer.value == heads:
                seen = True
            if q.qa_type == "list" and q.element_type == "text":
                assert set(q.answer.value) <= set(heads), q
    assert seen


def test_no_question_is_asked_about_standing_text():
    """A fact of standing text (here the form's issue date relabelled as a review window's opening, issue 51)
    is no question's source; the same fact under its own label is asked about."""
    from synthdocqa.generation.qa import derive_qa, drawn_render_map

    def asked(doc, fid):
        n = 0
        for seed in range(11, 17):
            d = doc.model_copy(update={"seed": seed})
            qa, asr = derive_qa(d, drawn_render_map(d))
            n += sum(fid in q.fact_ids for q in qa) + sum(fid in a.fact_ids for a in asr)
        return n

    doc = fixture_doc()
    issued = next(f for f in doc.facts if f.label == "Issue date")
    assert asked(doc, issued.id) > 0
    window = issued.model_copy(update={"label": "Opening date of the budget review window"})
    standing = doc.model_copy(update={"facts": [window if f.id == issued.id else f for f in doc.facts]})
    assert asked(standing, issued.id) == 0


def test_comparisons_of_signed_amounts_go_by_size_and_direction():
    """Revenue planted as outflows (North and South negative, East and West positive): no comparison sets
    an outflow against an inflow, two outflows are compared as outflows, and the lint finds nothing."""
    from decimal import Decimal

    from synthdocqa.corpus.views.question_lint import fact_problems

    doc = fixture_doc()
    neg = {f"Revenue of {r} in FY2024" for r in ("North", "South")}
    facts = [f.model_copy(update={"value": f.value.model_copy(update={"amount": -f.value.amount}),
                                  "text": f"-{f.text}"}) if f.label in neg else f for f in doc.facts]
    doc = doc.model_copy(update={"facts": facts})
    by_id = doc.fact_index()
    outflow = 0
    for seed in range(11, 23):
        d = doc.model_copy(update={"seed": seed})
        qa, asr = derive_qa(d, drawn_render_map(d), qa_per_page=40)
        assert [c for c, _ in fact_problems(qa, asr, d) if c == "signed_comparison"] == []
        for q in qa:
            if q.qa_type != "comparison":
                continue
            signs = {by_id[f].value.amount < 0 for f in q.fact_ids if by_id[f].value.kind == "money"}
            if "outflow" in q.question:
                outflow += 1
                assert signs == {True}, q.question
            elif len(q.fact_ids) == 2:
                assert len(signs) <= 1, q.question
    assert outflow > 0
    assert Decimal(0) > by_id[next(f.id for f in facts if f.label in neg)].value.amount
