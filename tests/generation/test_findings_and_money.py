"""A research report's findings name their figures, and a report prints whole money. Before: an abstract said
"We conclude that less of the variation is due to rent reviews than is often assumed" and no number, and a
property valuation read "GBP 32,000,000.00". Now the abstract states the largest part of the whole with its share
and the conclusion the change over the year, as facts of the paragraph that agree with the tables of the same
measure and year; only documents of transactions (an invoice, a claim, a log) print cents."""

from __future__ import annotations

import re

import pytest

from synthdocqa.generation import planner
from synthdocqa.generation.content import prose
from synthdocqa.generation.domains import get_recipe
from synthdocqa.ir.spec import PageCountDist, reference_spec
from tests.generation.plan_checks import all_problems

SEEDS = (1, 2, 3, 4, 5, 6)


def _plan(recipe: str, seed: int, pages: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    return planner.plan_document(spec, 0)


def _after_heading(doc, title: str):
    """The first paragraph under the heading ``title`` (its number aside)."""
    blocks = [b for p in doc.pages for b in p.blocks]
    for i, b in enumerate(blocks):
        if b.type == "heading" and re.sub(r"^\d+ ", "", b.spans[0].text) == title:
            return next(x for x in blocks[i + 1:] if x.type == "text_block")
    raise AssertionError(f"no {title} in {doc.doc_id}")


def findings(doc) -> dict[str, list]:
    """The facts stated in the abstract's and the conclusion's first paragraphs."""
    facts = {f.id: f for f in doc.facts}
    return {where: [facts[i] for s in _after_heading(doc, where).spans for i in s.fact_ids]
            for where in ("Abstract", "Conclusion")}


@pytest.mark.parametrize("seed", SEEDS)
def test_research_findings_name_their_figures(seed):
    doc = _plan("research_report", seed, 16)
    said = findings(doc)
    for where, op in (("Abstract", "share"), ("Conclusion", "percent_change")):
        assert len(said[where]) == 3 and [f.derivation.op for f in said[where] if f.derivation] == [op], where
    assert all_problems(doc) == []  # the derivations hold and every total of the measure and year is one number
    totals = {}  # a table's total of the same measure and year prints the same number
    for f in doc.facts:
        m = re.match(r"Total (.+?)(?: of the \d+ \w+)? in (\d{4})(?: \(Table \d+\)| stated in the \w+)$", f.label)
        if m:
            totals.setdefault(m.groups(), set()).add(f.value.absolute())
    assert totals and all(len(v) == 1 for v in totals.values()), totals


def test_findings_planted_out_name_nothing(monkeypatch):
    monkeypatch.setattr(prose, "FINDINGS", {})
    doc = _plan("research_report", 1, 16)
    said = findings(doc)  # the paragraphs still state the world's figures, but no finding of the document
    assert not [f for where, fs in said.items() for f in fs if f.label.endswith(f"stated in the {where.lower()}")]


def _money_texts(doc) -> list[str]:
    return [s.text for p in doc.pages for b in p.blocks for s in getattr(b, "spans", None) or []
            if s.fact_ids and re.search(r"(?:[$£€]|\b[A-Z]{3} )[\d,]+\.\d\d\b", s.text)]


def test_reports_print_whole_money_and_transactions_may_print_cents():
    for recipe in ("research_report", "annual_report", "quarterly_report", "compliance_report"):
        assert get_recipe(recipe).genre_class != "transactional"
        for seed in SEEDS:
            doc = _plan(recipe, seed, 14)
            assert _money_texts(doc) == [], (recipe, seed)
    cents = sum(bool(_money_texts(_plan("invoice", seed, 2))) for seed in range(1, 13))
    assert cents >= 2  # a third of the invoices are drawn with cents
