"""A report is signed where a report is signed: a general annotation is a signature only on the last page of
the text (a transactional document - a claim, an order, a log - may carry one on any page); a 34-page annual
report had a stranger's signature under a chart on page 8. Planted: signatures allowed everywhere again."""

from __future__ import annotations

from synthdocqa.generation import planner
from synthdocqa.generation.content import annotations
from synthdocqa.ir.spec import PageCountDist, reference_spec

CASES = (("annual_report", 36), ("research_report", 30), ("compliance_report", 26), ("sustainability_report", 40))


def _stray_signatures() -> tuple[list[str], int]:
    stray, general = [], 0
    for recipe, pages in CASES:
        for seed in (61, 62, 63):
            spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
                "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
            doc = planner.plan_document(spec, 0)
            appendix = next((p.page_no for p in doc.pages for b in p.blocks if b.type == "heading"
                             and "".join(s.text for s in b.spans).startswith("Appendix")), len(doc.pages) + 1)
            for p in doc.pages:
                for b in p.blocks:
                    if b.type == "annotation" and not b.genre_block:
                        general += 1
                        if b.kind == "signature" and p.page_no != appendix - 1:
                            stray.append(f"{recipe} seed {seed} page {p.page_no} of {appendix - 1}")
    return stray, general


def test_a_report_carries_no_signature_in_the_middle_of_its_text(monkeypatch):
    stray, general = _stray_signatures()
    assert general >= 20 and stray == [], stray
    real = annotations.annotation
    monkeypatch.setattr(annotations, "annotation", lambda ctx, rng, targets, signed=True: real(ctx, rng, targets))
    assert len(_stray_signatures()[0]) >= 3
