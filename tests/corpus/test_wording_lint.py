"""Wording lint of running text (``corpus.views.wording_lint``, lint kind ``grammar``): each agreement and article
slip the issue met is caught when planted into a clean document's paragraph; planned documents of every recipe
are clean; sentences that only look like slips are not flagged."""

from __future__ import annotations

import pytest

from synthdocqa.corpus.views.wording_lint import agreement_slips, article_slips, wording_lint_problems
from synthdocqa.generation.domains import RECIPES
from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.blocks import TextBlock
from synthdocqa.ir.spec import demo_spec

PLANTED = {
    "agreement": [
        ("Readers should note that recalls is measured on the same basis as in the previous report.", "recalls is"),
        ("Readers should note that international transfers is measured on the same basis.",
         "international transfers is"),
        ("The figures was reconciled to the source systems.", "The figures was"),
        ("The position is in line with peers, although recalls remains an area of attention.", "recalls remains"),
        ("Patch compliance are reported monthly.", "Patch compliance are"),
    ],
    "article": [
        ("The report follows a incident in the data centre.", "a incident"),
        ("Each site files an report every quarter.", "an report"),
    ],
}
PHRASES = {"recalls", "international transfers", "patch compliance"}
CLEAN = [
    "Readers should note that recalls are measured on the same basis as in the previous report.",
    "The review of recalls is complete, and the position on international transfers has stabilised.",
    "Further work on recalls is planned; the peak of 35 shipments was reached in June.",
    "The figures were reconciled. An incident was reported in an hour by a user of a one-off system.",
    "Supporting schedules are given in Appendix A in full. These minutes were approved.",
    "Patch compliance and recalls are reported together; patch compliance is measured monthly.",
]


@pytest.mark.parametrize(("check", "text", "slip"), [(c, t, s) for c, cases in PLANTED.items() for t, s in cases])
def test_each_slip_is_found(check, text, slip):
    found = agreement_slips(text, PHRASES) if check == "agreement" else article_slips(text)
    assert slip in found


@pytest.mark.parametrize("text", CLEAN)
def test_sentences_that_agree_are_not_flagged(text):
    assert agreement_slips(text, PHRASES) == [] and article_slips(text) == []


def _doc(recipe: str, seed: int = 31):
    spec = demo_spec(seed=seed, n_docs=1).model_copy(update={"recipes": [recipe], "domains": None})
    return plan_document(spec, 0)


def _planted(doc, text: str):
    """``doc`` with a paragraph saying ``text`` after the first page's first block."""
    page = doc.pages[0]
    block = TextBlock(id="b9999", spans=[{"text": text, "fact_ids": []}])
    pages = [page.model_copy(update={"blocks": [*page.blocks[:1], block, *page.blocks[1:]]}), *doc.pages[1:]]
    return doc.model_copy(update={"pages": pages})


@pytest.mark.parametrize(("check", "text", "slip"), [(c, t, s) for c, cases in PLANTED.items() for t, s in cases])
def test_a_slip_planted_in_a_clean_document_fails_the_lint(check, text, slip, monkeypatch):
    from synthdocqa.corpus.views import wording_lint

    doc = _doc("quarterly_report")
    assert wording_lint_problems(doc.doc_id, doc) == []
    real = wording_lint.domain_phrases  # the planted phrase is one of the document's domain phrases
    monkeypatch.setattr(wording_lint, "domain_phrases", lambda d: real(d) | PHRASES)
    problems = wording_lint_problems(doc.doc_id, _planted(doc, text))
    assert [(p.kind, p.check) for p in problems] == [("grammar", check)], problems
    assert slip in problems[0].detail and problems[0].page_no == 1


@pytest.mark.parametrize("recipe", [r.slug for r in RECIPES])
def test_planned_documents_are_clean(recipe):
    for seed in (31, 32):
        doc = _doc(recipe, seed)
        assert [p.detail for p in wording_lint_problems(doc.doc_id, doc)] == []
