"""A heading stays with what it heads: it never ends a PDF page while the first block of its section opens the
next one (an expense claim's 'Approval' heading at a page's foot with its approval record overleaf). Shown
failing with the old rule (three free lines, whatever follows) planted back."""

from __future__ import annotations

from synthdocqa.generation.planner import plan_document
from synthdocqa.ir.spec import demo_spec
from synthdocqa.renderers import render_document
from synthdocqa.renderers.pdf import pager

RECIPES = ("expense_claim", "risk_assessment", "inspection_report")
SEEDS = (5151, 5152, 5153)


def _orphans(doc, rmap) -> list[str]:
    first_page: dict[str, int] = {}
    for b in rmap.blocks:
        first_page.setdefault(b.block_id, b.page_no)
    last_page = {b.block_id: b.page_no for b in rmap.blocks}
    out = []
    for page in doc.pages:
        body = [b for b in page.blocks if b.type not in ("footnote", "annotation")]
        for h, nxt in zip(body, body[1:], strict=False):
            if h.type == "heading" and nxt.id in first_page and first_page[nxt.id] > last_page[h.id]:
                out.append(f"{doc.recipe} {doc.doc_id}: '{''.join(s.text for s in h.spans)}' on page {last_page[h.id]}, its {nxt.type} "
                           f"on page {first_page[nxt.id]}")
    return out


def _all_orphans() -> list[str]:
    out = []
    for recipe in RECIPES:
        for seed in SEEDS:
            spec = demo_spec(seed=seed, n_docs=1).model_copy(update={"recipes": [recipe]})
            doc = plan_document(spec, 0)
            out += _orphans(doc, render_document(doc).render_map)
    return out


def test_no_heading_ends_a_page_apart_from_its_section(monkeypatch):
    assert _all_orphans() == []
    # planted: the old rule, three free lines below a heading whatever follows it
    monkeypatch.setattr(pager._Pager, "_room_after",
                        lambda self, following, width, avail: avail >= 3 * self.page.theme.line_h)
    assert _all_orphans() != []
