"""The question checks that read a question's facts in its document (``corpus.views.question_lint.fact_problems``,
issue 51), each shown failing on a defect planted as it was met in a reference corpus, and passing on the
same question made right."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from synthdocqa.corpus.views.question_lint import fact_problems
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import (
    Assertion,
    AssertionDerivation,
    ListAnswer,
    NumberAnswer,
    Operand,
    QAPair,
    StringAnswer,
)
from synthdocqa.ir.values import DateValue, MoneyValue
from tests.generation.qa_fixture import fixture_doc


def _doc_with(*extra: Fact):
    doc = fixture_doc()
    return doc.model_copy(update={"facts": [*doc.facts, *extra]})


def _revenue(doc, region: str, period: str = "FY2024") -> Fact:
    return next(f for f in doc.facts if f.label == f"Revenue of {region} in {period}")


def _qa(question, answer, facts, qa_type="list", n_asr=0, answer_text="x"):
    return QAPair(id="d-q0", doc_id="d", question=question, answer=answer, answer_text=answer_text,
                  accepted_answers=[answer_text], qa_type=qa_type, element_type="table", difficulty="medium",
                  page_nos=[1], fact_ids=[f.id for f in facts], assertion_ids=[f"d-q0-a{k}" for k in range(n_asr)])


def _asr(k, claim, value, facts, derivation=None):
    return Assertion(id=f"d-q0-a{k}", qa_id="d-q0", doc_id="d", claim=claim, value=value,
                     fact_ids=[f.id for f in facts], evidence=[], derivation=derivation)


def _checks(qa, asr, doc):
    return [c for c, _ in fact_problems([qa], asr, doc)]


def test_partial_set_is_found_in_a_question_and_in_a_claim():
    doc = fixture_doc()
    north, east = _revenue(doc, "North"), _revenue(doc, "East")  # 1,200.00 and 1,780.25 are above 950.50
    q = "Which regions have revenue in FY2024 above $950.50?"
    part = _qa(q, ListAnswer(value=["North"]), [north])
    assert _checks(part, [], doc) == ["partial_set"]
    whole = _qa(q, ListAnswer(value=["North", "East"]), [north, east])
    assert _checks(whole, [], doc) == []
    claim = "The regions with revenue in FY2024 above $950.50 in Table 1 are North."
    qa = _qa("Among the regions with revenue in FY2024 above $950.50, which has the lowest revenue in FY2025?",
             StringAnswer(value="North"), [north], qa_type="comparison", n_asr=1)
    assert "partial_set" in _checks(qa, [_asr(0, claim, ListAnswer(value=["North"]), [north])], doc)
    fixed = _asr(0, claim.replace("North.", "North, East."), ListAnswer(value=["North", "East"]), [north, east])
    assert "partial_set" not in _checks(qa, [fixed], doc)


def test_signed_comparison_is_found():
    cost = Fact(id="f9001", label="Cost of sales in 2024", value=MoneyValue(amount=Decimal("-500"), currency="USD"),
                text="-$500.00", period="2024")
    paid = Fact(id="f9002", label="Dividends paid in 2024", value=MoneyValue(amount=Decimal("-120"), currency="USD"),
                text="-$120.00", period="2024")
    doc = _doc_with(cost, paid)
    bad = _qa("Does Cost of sales or Dividends paid have the larger amount in 2024?",
              StringAnswer(value="Dividends paid"), [cost, paid], qa_type="comparison")
    assert "signed_comparison" in _checks(bad, [], doc)
    good = _qa("Which was the larger outflow in 2024: Cost of sales or Dividends paid?",
               StringAnswer(value="Cost of sales"), [cost, paid], qa_type="comparison")
    assert "signed_comparison" not in _checks(good, [], doc)


def test_difference_of_unrelated_measures_is_found():
    profit = Fact(id="f9003", label="Operating profit for 2023", text="$900.00", period="2023",
                  value=MoneyValue(amount=Decimal("900"), currency="USD"))
    cash = Fact(id="f9004", label="Net change in cash for 2023", text="$300.00", period="2023",
                value=MoneyValue(amount=Decimal("300"), currency="USD"))
    doc = _doc_with(profit, cash)

    def diff(a, b):
        der = AssertionDerivation(op="difference", result="600", operands=[
            Operand.model_construct(fact_id=a.id, value=a.value, evidence=[]),
            Operand.model_construct(fact_id=b.id, value=b.value, evidence=[])])
        ans = NumberAnswer(value="600", unit="", currency="USD")
        return (_qa("How much larger is the x than the y?", ans, [a, b], qa_type="multi_hop", n_asr=1),
                [_asr(0, "x exceeds y by $600.00.", ans, [a, b], der)])

    assert "unrelated_measures" in _checks(*diff(profit, cash), doc)
    north, south = _revenue(doc, "North"), _revenue(doc, "South")
    assert "unrelated_measures" not in _checks(*diff(north, south), doc)


def test_question_about_standing_text_is_found():
    window = Fact(id="f9005", label="Opening date of the contractor performance review window",
                  value=DateValue(value=dt.date(2025, 5, 19)), text="19 May 2025", attribute="window_open")
    doc = _doc_with(window)
    qa = _qa("Is 19 May 2025 the opening date of the contractor performance review window?",
             StringAnswer(value="yes"), [window], qa_type="lookup")
    assert _checks(qa, [], doc) == ["standing_text"]
    north = _revenue(doc, "North")
    assert _checks(_qa("What was the revenue of North in FY2024?", StringAnswer(value="$1,200.00"), [north],
                       qa_type="lookup"), [], doc) == []


def test_multi_hop_whose_hops_meet_in_one_fact_is_found():
    doc = fixture_doc()
    north, south = _revenue(doc, "North"), _revenue(doc, "South")
    north25 = _revenue(doc, "North", "FY2025")
    ans = NumberAnswer(value="1320.00", unit="", currency="USD")
    qa = _qa("What is the FY2025 revenue of the region with the highest revenue in FY2024?", ans, [north, north25],
             qa_type="multi_hop", n_asr=2, answer_text="$1,320.00")
    met = [_asr(0, "North leads FY2024.", StringAnswer(value="North"), [north]),
           _asr(1, "North's revenue ...", ans, [north, north25])]  # the second hop starts from the first's fact
    assert "own_start" in _checks(qa, met, doc)
    apart = [met[0], _asr(1, "North's FY2025 revenue is $1,320.00.", ans, [south, north25])]
    assert not any("meet" in d for c, d in fact_problems([qa], apart, doc))
