"""Every page of a plan holds something to read. A page whose one drawn text became a footnote held that
footnote alone (reference seed 7171, document 91, page 38: a compliance report), a note on nothing, and
the renderer failed on it. The planner now draws one exhibit more for such a page; the renderer lays out a
page of notes without failing. Both shown on the document that found it, the planner's rule planted out."""

from __future__ import annotations

from synthdocqa.generation import page_fill, planner
from synthdocqa.ir.spec import reference_spec
from synthdocqa.renderers import render_document

FOUND_IN = (7171, 91)


def _pages_without_body(doc) -> list[int]:
    return [p.page_no for p in doc.pages if not any(b.type not in ("heading", "annotation", "footnote")
                                                    for b in p.blocks)]


def test_no_page_holds_notes_alone(monkeypatch):
    seed, index = FOUND_IN
    spec = reference_spec(seed=seed)
    assert _pages_without_body(planner.plan_document(spec, index)) == []
    monkeypatch.setattr(page_fill, "_has_body", lambda blocks: True)  # planted: the rule taken out
    planted = planner.plan_document(spec, index)
    bare = _pages_without_body(planted)
    assert bare == [38]
    # the renderer lays such a page out (its footnote at a page's foot) instead of failing
    note = next(b.id for p in planted.pages if p.page_no == 38 for b in p.blocks)
    rendered = render_document(planted)
    assert note in {b.block_id for b in rendered.render_map.blocks}
