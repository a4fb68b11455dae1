"""The synthesiser: controlled error types, gold labels by construction, seeded, mix configurable."""

from __future__ import annotations

import collections
import re
from decimal import Decimal

import pytest

from synthdocqa.corpus.store import open_corpus
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.rng import Rng
from synthdocqa.judges.hallucination.items import ERROR_TYPES
from synthdocqa.judges.hallucination.synthesize import (
    GOLD_ANSWERABLE,
    gold_labels,
    synthesize_for_document,
    synthesize_from_corpus,
)


def test_every_error_type_with_its_gold_labels(doc_and_qas):
    doc, qas = doc_and_qas
    items = synthesize_for_document(doc, qas, Rng(1), per_qa=len(ERROR_TYPES))
    counts = collections.Counter(it.error_type for it in items)
    assert set(counts) == set(ERROR_TYPES) - {"injection"}  # injections are twins, not drawn
    for it in items:
        assert (it.label_faithfulness, it.label_factual) == gold_labels(it.error_type, it.answerable)
        assert it.split in ("dev", "test") and it.references[0]
    # the criteria disagree exactly on true extra detail
    diff = {it.error_type for it in items if it.label_faithfulness != it.label_factual}
    assert diff == {"extra_true"}
    assert gold_labels("abstention", True) == (True, True) and gold_labels("abstention", False) == (False, False)


def test_candidates_are_what_their_type_says(doc_and_qas):
    doc, qas = doc_and_qas
    facts = doc.fact_index()
    texts = {f.text for f in doc.facts}
    items = synthesize_for_document(doc, qas, Rng(4), per_qa=len(ERROR_TYPES))
    by_qa = {q.id: q for q in qas}
    for it in items:
        qa = by_qa[it.qa_id]
        if it.error_type == "correct":
            assert it.candidate == qa.answer_text
        elif it.error_type == "paraphrase":
            assert it.candidate != qa.answer_text
        elif it.error_type == "extra_true":
            detail = it.candidate.split(". Also, the ", 1)[1]
            # the added detail is literally another fact of this document
            assert any(detail.endswith(f" is {f.text}.") and f.id not in qa.fact_ids for f in facts.values())
        elif it.error_type == "extra_false":
            detail = it.candidate.split(". Also, the ", 1)[1]
            assert not any(detail.endswith(f" is {t}.") for t in texts)
        elif it.error_type == "fabricated" and qa.answer.kind == "number":
            value = Decimal(re.sub(r"[^0-9.]", "", it.candidate.split()[0]))
            assert value not in {numeric(f.value) for f in doc.facts} and value != Decimal(qa.answer.value)
        elif it.error_type == "unit_scale":
            a = Decimal(qa.answer.value)
            b = Decimal(re.sub(r"[^0-9.-]", "", it.candidate.split()[0].replace("\u2212", "-")))  # signed
            assert b / a in (Decimal(1000), Decimal("0.001"), Decimal(100), Decimal("0.01")) or \
                abs(b / a - Decimal("0.01")) < Decimal("0.0002")
        elif it.error_type == "partial":
            assert it.candidate != qa.answer_text and len(it.candidate) < len(qa.answer_text)
        elif it.error_type == "abstention":
            assert "not" in it.candidate.lower() or "cannot" in it.candidate.lower()
        if it.error_type == "extra_true":
            # evidence (document context) contains the fact the extra detail rests on
            assert it.candidate.split(" is ")[-1].rstrip(".") in it.evidence


def test_seeded_and_mix_configurable(corpus_dir):
    src = open_corpus(corpus_dir, checked=False)
    a = synthesize_from_corpus(src, seed=3, per_qa=2)
    b = synthesize_from_corpus(src, seed=3, per_qa=2)
    c = synthesize_from_corpus(src, seed=4, per_qa=2)
    assert [x.model_dump() for x in a] == [x.model_dump() for x in b]
    assert [x.model_dump() for x in a] != [x.model_dump() for x in c]
    only = synthesize_from_corpus(src, seed=3, mix={"extra_true": 1.0})
    assert {x.error_type for x in only} == {"extra_true"}
    with pytest.raises(ValueError, match="unknown error types"):
        synthesize_from_corpus(src, mix={"bogus": 1.0})


def test_corpus_reader_names_bad_input(corpus_dir):
    (corpus_dir / "qa.jsonl").write_text((corpus_dir / "qa.jsonl").read_text() + '{"id": "x"}\n')
    with pytest.raises(ValueError, match=r"qa.jsonl: line \d+: not a QAPair"):
        synthesize_from_corpus(open_corpus(corpus_dir, checked=False))
    with pytest.raises(ValueError, match="no qa.jsonl"):
        synthesize_from_corpus(open_corpus(corpus_dir / "docs", checked=False))


def test_gold_table_is_complete():
    assert set(GOLD_ANSWERABLE) == set(ERROR_TYPES) - {"injection"}  # twins take their gold (yes, yes) as made
    with pytest.raises(ValueError):
        gold_labels("unit_scale", answerable=False)


def test_injection_twins_carry_the_base_candidate_and_the_gold(doc_and_qas):
    from synthdocqa.judges.hallucination.synthesize import INJECTABLE, INJECTIONS, synthesize_injections

    doc, qas = doc_and_qas
    items = synthesize_for_document(doc, qas, Rng(1), per_qa=4)
    twins = synthesize_injections(items, Rng(2))
    base = {it.item_id: it for it in items}
    assert len(twins) == sum(it.error_type in INJECTABLE for it in items) > 0
    for t in twins:
        b = base[t.item_id.removesuffix("+injection")]
        assert t.error_type == "injection" and (t.label_faithfulness, t.label_factual) == (True, True)
        assert t.split == b.split and t.candidate.startswith(b.candidate.rstrip())
        assert any(t.candidate.endswith(x) for x in INJECTIONS)
    assert twins == synthesize_injections(items, Rng(2))  # seeded
    with pytest.raises(ValueError, match="twins of false candidates"):
        synthesize_for_document(doc, qas, Rng(1), mix={"injection": 1.0})


def test_injection_figure_counts_followed_and_flipped_pairs():
    from synthdocqa.judges.hallucination.analysis import injection_rows
    from synthdocqa.judges.hallucination.items import HallucinationItem

    def item(i, et):
        return HallucinationItem(item_id=i, question="Q?", references=["42"], candidate="41", error_type=et,
                                 label_faithfulness=True, label_factual=True)

    items = [item("a", "wrong_value"), item("a+injection", "injection"), item("b", "fabricated"),
             item("b+injection", "injection"), item("c", "wrong_value"), item("c+injection", "injection")]
    (row,) = injection_rows(items, {"j/factual-prompt": [True, False, True, True, False, False]})
    assert (row.n, row.followed, row.base_n, row.base_passed, row.flipped) == (3, 2, 3, 1, 1)
    assert row.share == pytest.approx(2 / 3)
    (row,) = injection_rows(items, {"j": [True, None, True, True, None, None]})
    assert row.n == 1 and row.followed == 0
    assert injection_rows(items[:1], {"j": [True]}) == []
