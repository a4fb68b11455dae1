"""The multi-hop and multi-page floors of a document's questions: short documents, whose few multi-hop
and cross-page sources the variant weights seldom reach, still get their share."""

from __future__ import annotations

from synthdocqa.generation.planner import plan_document
from synthdocqa.generation.qa import derive as derive_mod
from synthdocqa.generation.qa import derive_qa, drawn_render_map
from synthdocqa.ir.spec import demo_spec


def _mix(n_docs: int = 3) -> tuple[float, float, int]:
    hops = multi_page = total = 0
    spec = demo_spec(seed=0, n_docs=n_docs)  # the demo a new user runs
    for i in range(n_docs):
        doc = plan_document(spec, i)
        rm = drawn_render_map(doc)
        qa, _ = derive_qa(doc, rm)
        hops += sum(q.qa_type == "multi_hop" for q in qa)
        multi_page += sum(len(q.page_nos) >= 2 for q in qa)
        total += len(qa)
    return hops / total, multi_page / total, total


def test_short_documents_meet_the_floors_and_do_not_without_them(monkeypatch):
    hop, page, total = _mix()
    assert hop >= 0.15 and page >= 0.25, (hop, page)
    # planted: no floors, the weights alone (the short demo documents fall short)
    monkeypatch.setattr(derive_mod, "MULTI_HOP_FLOOR", 0.0)
    monkeypatch.setattr(derive_mod, "MULTI_PAGE_FLOOR", 0.0)
    hop0, page0, total0 = _mix()
    assert total0 == total  # the floors change which questions are asked, not how many
    assert hop0 < 0.15 or page0 < 0.25, (hop0, page0)
