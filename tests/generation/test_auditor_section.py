"""An annual report's "Independent Auditor's Report" is the auditor's report alone: one page holding the
opinion, its basis, the key audit matters, going concern, responsibilities and the signature, and nothing of
management's (reference seed 8383, document 31, ran four pages of general tables and commentary under the
auditor's heading). Shown failing with the section's one-page weight and its no-fill rule planted out."""

from __future__ import annotations

from synthdocqa.generation import planner
from synthdocqa.ir.spec import reference_spec

DOCS = (31, 4, 7)  # annual reports of reference seed 8383


def _auditor_pages(spec, index):
    doc = planner.plan_document(spec, index)
    assert doc.recipe == "annual_report"
    pages, on = [], False
    for p in doc.pages:
        heads = ["".join(s.text for s in b.spans) for b in p.blocks if b.type == "heading" and b.level == 1]
        on = any("Auditor" in h for h in heads) or (on and not heads)
        if on:
            pages.append([b for b in p.blocks if b.type not in ("heading", "annotation")])
    return pages


def test_the_auditors_report_is_one_page_of_its_own():
    spec = reference_spec(seed=8383)
    for i in DOCS:
        pages = _auditor_pages(spec, i)
        assert len(pages) == 1, (i, len(pages))
        kinds = {b.genre_block for b in pages[0]}
        assert kinds == {"auditor_opinion"}, (i, kinds)
        said = " ".join(s.text for b in pages[0] for s in b.spans)
        assert "Key audit matters" in said or "Critical audit matters" in said


def test_planted_the_section_runs_on_with_general_content(monkeypatch):
    monkeypatch.setattr(planner, "FIXED_PAGES", ())
    monkeypatch.setattr(planner, "_voice", lambda section: "")
    spec = reference_spec(seed=8383)
    pages = _auditor_pages(spec, 31)
    assert len(pages) > 1 or {b.genre_block for b in pages[0]} != {"auditor_opinion"}
