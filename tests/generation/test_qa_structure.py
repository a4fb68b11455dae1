"""Questions on the structure: where sections start, from the table of contents; the contents is read by
those questions only."""

from __future__ import annotations

from generation import qa as qa_pkg
from generation.content.front_matter import contents_table, printed_pages
from generation.planner import plan_document
from generation.qa import build_evidence, derive_qa, drawn_render_map
from ir.spec import PageCountDist, reference_spec


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
