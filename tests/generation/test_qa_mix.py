"""The QA mix: templates, and the shares a corpus must hold (multi-hop, multi-page, prose, no dominant
template) measured on the fixture and on a few planned and rendered documents."""

from synthdocqa.generation.qa import build_evidence, derive_qa, drawn_render_map
from synthdocqa.generation.qa.mix import QAMix, qa_mix, question_template

from .qa_fixture import fixture_doc


def test_a_template_is_the_question_without_its_values():
    names = ["Revenue by region", "North", "FY2025 revenue", "Zone B", "Open matters"]
    a = question_template("In the table 'Revenue by region', what is the FY2025 revenue for North?", names)
    b = question_template("In the table 'Costs', what is the Open matters for Zone B?", names)
    assert a == b == "In the table <Q>, what is the <N> for <N>?"
    assert question_template("How many days are there between 2 March 2026 and 2026-04-01?") == \
        "How many days are there between <D> and <D>?"
    assert question_template("Is the share 12.5% or $1,200.00 on page 3?") == "Is the share <#> or <#> on page <#>?"


def test_shares_on_the_fixture():
    doc = fixture_doc()
    rm = drawn_render_map(doc)
    qa, asr = derive_qa(doc, rm, build_evidence(rm), qa_per_page=8)
    mix = qa_mix([(doc, qa)])
    assert mix.n_qa == len(qa) == 24
    assert mix.share(mix.multi_hop) >= 0.10
    assert mix.share(mix.prose) >= 0.10
    assert mix.largest_template[1] <= 0.10
    assert sum(mix.by_type_difficulty_element.values()) == mix.n_qa
    assert {t for t in mix.hard_by_type} - {"list"}, "hard questions are not only lists"


def test_shares_on_planned_and_rendered_documents():
    """Three reference documents, planned and rendered (no scan): the issue's shares hold."""
    from synthdocqa.generation.planner import plan_document
    from synthdocqa.ir.answers import form_denotes
    from synthdocqa.ir.spec import reference_spec
    from synthdocqa.renderers import render_document

    spec = reference_spec(seed=7, n_docs=3)
    mix = QAMix()
    false_forms = []
    for i in range(3):
        doc = plan_document(spec, i)
        rmap = render_document(doc).render_map
        qa, asr = derive_qa(doc, rmap, build_evidence(rmap), qa_per_page=spec.qa_per_page)
        mix.add(doc, qa, n_pages=len(rmap.pages), n_assertions=len(asr))
        false_forms += [(q.id, f) for q in qa for f in q.accepted_answers if not form_denotes(q.answer, f)]
    assert false_forms == []  # accepted answers are true (K is thousand, T trillion, nothing rounded)
    assert mix.share(mix.multi_hop) >= 0.10
    assert mix.share(mix.multi_page) >= 0.20
    assert mix.share(mix.prose) >= 0.08  # prose facts are the content's: see docs/benchmarks.md
    assert mix.largest_template[1] <= 0.10
    assert abs(mix.n_qa / mix.n_pages - 3.8) <= 0.38
    assert abs(mix.n_assertions / mix.n_qa - 1.29) <= 0.129
