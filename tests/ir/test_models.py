"""IR contracts: validation names the field; JSON round-trips exactly."""

import datetime as dt
from decimal import Decimal

import pytest
from pydantic import ValidationError

from synthdocqa.ir import (
    CorpusSpec,
    DocumentIR,
    Fact,
    MoneyValue,
    PagePlan,
    PerturbationProfile,
    Span,
    TableBlock,
    demo_spec,
    describe_validation_error,
    reference_spec,
)
from synthdocqa.ir.values import DateValue


def _doc(**over):
    facts = [
        Fact(id="f0001", label="Q1 revenue", value=MoneyValue(amount=Decimal("1200.50"), currency="USD"),
             text="$1,200.50"),
        Fact(id="f0002", label="Close date", value=DateValue(value=dt.date(2026, 3, 14)), text="14 March 2026"),
    ]
    table = TableBlock(id="b001", columns=["Quarter", "Revenue"],
                       rows=[[Span(text="Q1"), Span(text="$1,200.50", fact_ids=["f0001"])]])
    base = dict(doc_id="doc-00000", index=0, seed=1, seed_path=["doc", 0], domain="corporate_finance", recipe="invoice",
                title="Invoice", topic_brief="An invoice.", facts=facts,
                pages=[PagePlan(page_no=1, blocks=[table])], perturbation=PerturbationProfile(tier="good"))
    base.update(over)
    return DocumentIR(**base)


def test_document_json_round_trip_is_exact():
    doc = _doc()
    text = doc.to_json()
    again = DocumentIR.model_validate_json(text)
    assert again == doc and again.to_json() == text
    assert '"amount": "1200.50"' in text  # decimals stay exact strings


def test_unknown_fact_reference_is_rejected_with_its_name():
    bad = TableBlock(id="b001", columns=["A"], rows=[[Span(text="x", fact_ids=["f9999"])]])
    with pytest.raises(ValidationError, match="unknown fact f9999"):
        _doc(pages=[PagePlan(page_no=1, blocks=[bad])])


def test_ragged_table_and_page_numbers_rejected():
    with pytest.raises(ValidationError, match=r"rows\[0\] has 1 cells, expected 2"):
        TableBlock(id="b001", columns=["A", "B"], rows=[[Span(text="x")]])
    with pytest.raises(ValidationError, match="page_no is 2, expected 1"):
        _doc(pages=[PagePlan(page_no=2)])


def test_extra_fields_are_errors_not_dropped():
    with pytest.raises(ValidationError):
        CorpusSpec.model_validate({**demo_spec().model_dump(), "n_dcos": 3})


def test_spec_validation_message_names_the_field():
    data = demo_spec().model_dump()
    data["n_docs"] = 0
    with pytest.raises(ValidationError) as info:
        CorpusSpec.model_validate(data)
    msg = describe_validation_error(info.value, "spec.json")
    assert msg.startswith("spec.json: n_docs:") and "\n" not in msg
    data = demo_spec().model_dump()
    data["tier_mix"] = {"awful": 1.0}
    with pytest.raises(ValidationError, match="unknown tier .awful."):
        CorpusSpec.model_validate(data)


def test_profiles_and_spec_hash():
    assert reference_spec().n_docs == 100 and reference_spec().pages.mean == pytest.approx(47.5)
    assert demo_spec(1).spec_hash() == demo_spec(1).spec_hash() != demo_spec(2).spec_hash()
    assert sum(reference_spec().element_mix.values()) == pytest.approx(1.0)


def test_ids_are_written_and_read_in_one_place():
    from synthdocqa.ir import ids

    d = ids.doc_id(17)
    q = ids.qa_id(d, 3)
    a = ids.assertion_id(q, 1)
    assert (d, q, a) == ("doc-00017", "doc-00017-q0003", "doc-00017-q0003-a1")
    assert ids.DOC_ID.fullmatch(d) and ids.qa_id_pattern(d).fullmatch(q) and ids.assertion_id_pattern(q).fullmatch(a)
    assert not ids.qa_id_pattern(ids.doc_id(18)).fullmatch(q)  # anchored to its own document
    assert not ids.DOC_ID.fullmatch("doc-17") and not ids.DOC_ID.fullmatch("../doc-00017")
