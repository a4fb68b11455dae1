"""Questions on the structure: where sections start, from the table of contents; the contents is read by
those questions only."""

from __future__ import annotations

from synthdocqa.generation import qa as qa_pkg
from synthdocqa.generation.content.front_matter import contents_table, printed_pages
from synthdocqa.generation.planner import plan_document
from synthdocqa.generation.qa import build_evidence, derive_qa, drawn_render_map
from synthdocqa.ir.spec import PageCountDist, reference_spec


def _report():
    spec = reference_spec(seed=9, n_docs=1).model_copy(update={
        "recipes": ["compliance_report"], "pages": PageCountDist(mean=14, sigma=0, min=14, max=14)})
    return plan_document(spec, 0)


def test_contents_questions_answer_the_page_the_contents_give_and_nothing_else_reads_the_contents():
    doc = _report()
    table = contents_table(doc)
    assert table is not None
    pages = printed_pages(doc)
    rm = drawn_render_map(doc)
    qa, asr = derive_qa(doc, rm, build_evidence(rm), qa_per_page=12)
    own = {a.id: a for a in asr}
    contents_q = [q for q in qa if set(q.fact_ids) & set(pages)]
    assert contents_q, "a 14-page report with a contents page gets contents questions"
    for q in [q for q in contents_q if len(q.fact_ids) == 1]:
        (a,) = [own[i] for i in q.assertion_ids]
        assert a.fact_ids and a.fact_ids[0] in pages
        assert q.answer_text == str(pages[a.fact_ids[0]])
        title = next(r[0].text for r in table.rows if r[1].fact_ids == a.fact_ids)
        number, name = title.split(" ", 1)
        assert number in q.question or name.lower() in q.question.lower()
        assert qa_pkg.check_answer(q, [a]) == []
    # only the contents question reads the contents: one fact, a lookup (no sum of page numbers)
    assert all(q.qa_type == "lookup" and len(q.fact_ids) == 1 for q in contents_q), \
        [q.question for q in contents_q if q.qa_type != "lookup" or len(q.fact_ids) != 1]


def _long_report(recipe: str = "compliance_report", pages: int = 24, seed: int = 9):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    return plan_document(spec, 0)


def test_cross_reference_questions_name_the_section_and_its_one_exhibit_holds_the_answer():
    from synthdocqa.generation.content.front_matter import NUMBERED_HEADING, heading_text
    from synthdocqa.generation.qa.context import QAContext
    from synthdocqa.generation.qa.structure import cross_reference, section_exhibits
    from synthdocqa.ir.rng import Rng

    doc = _long_report()
    rm = drawn_render_map(doc)
    ctx = QAContext(doc, build_evidence(rm))
    items = section_exhibits(ctx)
    assert items, "a 24-page report with numbered sections has sections with one table or chart"
    # the exhibit lies in the section (between its heading and the next heading of the same or a higher rank)
    order = [b for _, b in doc.blocks()]
    for it in items:
        start = next(i for i, b in enumerate(order) if b.type == "heading" and heading_text(b) == it.section.title)
        end = next((i for i, b in enumerate(order) if i > start and b.type == "heading"
                    and NUMBERED_HEADING.match(heading_text(b))
                    and not heading_text(b).startswith(it.section.number + ".")), len(order))
        assert it.block in order[start:end]
        kind = type(it.block)
        assert sum(isinstance(b, kind) for b in order[start:end]) == 1  # "the table" is unambiguous
    for n, it in enumerate(items):
        d = cross_reference(ctx, it, Rng(n))
        assert d is not None and (it.section.number in d.question or it.section.name in d.question)
        assert "Table " not in d.question and "Figure " not in d.question  # named by its section, not its number
        (fid,) = d.claims[0].fact_ids
        assert any(s.fact_ids and fid in s.fact_ids for s in _spans(it.block))
    qa, asr = derive_qa(doc, rm, build_evidence(rm), qa_per_page=12)
    asked = [q for q in qa if " refers to" in q.question or "discussed in section" in q.question
             or "points to" in q.question]
    assert asked, "the corpus's QA draws cross-reference questions"
    own = {a.id: a for a in asr}
    assert all(qa_pkg.check_answer(q, [own[i] for i in q.assertion_ids]) == [] for q in asked)


def _spans(block):
    from synthdocqa.ir.blocks import FigureBlock
    if isinstance(block, FigureBlock):
        return [p for s in block.series for p in s.points]
    return [c for row in block.rows for c in row]


def test_long_reports_end_with_an_appendix_in_the_contents_and_the_introduction_points_to_it():
    from synthdocqa.generation.content.front_matter import heading_text

    doc = _long_report()
    last = doc.pages[-1]
    heads = [heading_text(b) for p in doc.pages for b in p.blocks if b.type == "heading"]
    assert "Appendix A Supporting schedules" in heads
    # the report's own data tables, as many as its page holds; no ledger of postings in a report
    from synthdocqa.generation.content.sizing import PAGE_BUDGET, block_height

    tables = [b for b in last.blocks if b.type == "table"]
    assert len(tables) >= 2 and sum(block_height(b) for b in last.blocks) >= 0.75 * PAGE_BUDGET
    assert not any(w in b.caption for b in tables for w in ("register", "Ledger", "postings"))
    rows = [r[0].text for r in contents_table(doc).rows]
    assert rows[-1] == "Appendix A Supporting schedules"
    body_text = " ".join(s.text for p in doc.pages[2:-1] for b in p.blocks if b.type == "text_block"
                         for s in b.spans)
    assert "Appendix A" in body_text
    # minutes and short reports have none
    assert not any(heading_text(b).startswith("Appendix") for p in _long_report("board_minutes").pages
                   for b in p.blocks if b.type == "heading")
    assert not any(heading_text(b).startswith("Appendix") for p in _long_report(pages=12).pages
                   for b in p.blocks if b.type == "heading")
