"""Questions a person would ask: the locator policy (at most ``LOCATED_MAX`` of a document's questions name
their table, figure or page), no question over ``QUESTION_MAX_WORDS`` words, and no question without a
locator that the document answers two ways (``QAContext.rivals``), shown failing with the check planted away."""

from __future__ import annotations

from synthdocqa.generation.planner import plan_document
from synthdocqa.generation.qa import derive as derive_mod
from synthdocqa.generation.qa import derive_qa, drawn_render_map
from synthdocqa.generation.qa.context import QAContext
from synthdocqa.generation.qa.derive import LOCATED_MAX, QUESTION_MAX_WORDS, located
from synthdocqa.ir.spec import demo_spec, reference_spec
from tests.generation.qa_fixture import fixture_doc


def _fact_ids(q, asr):
    ids = list(q.fact_ids)
    for a in asr:
        if a.qa_id == q.id and a.derivation:
            ids += [op.fact_id for op in a.derivation.operands]
    return ids


def _corpus(spec, n):
    for i in range(n):
        doc = plan_document(spec, i)
        rm = drawn_render_map(doc)
        qa, asr = derive_qa(doc, rm)
        yield QAContext(doc, derive_mod.build_evidence(rm)), qa, asr


def _figures(spec, n):
    total = loc = ambiguous = too_long = 0
    for ctx, qa, asr in _corpus(spec, n):
        for q in qa:
            total += 1
            too_long += len(q.question.split()) > QUESTION_MAX_WORDS
            if located(q.question):
                loc += 1
            elif ctx.rivals(_fact_ids(q, asr)):
                ambiguous += 1
    return total, loc, ambiguous, too_long


def test_questions_are_short_mostly_unlocated_and_unambiguous():
    for spec, n in ((demo_spec(seed=3, n_docs=6), 6), (reference_spec(seed=29).model_copy(update={"n_docs": 2}), 2)):
        total, loc, ambiguous, too_long = _figures(spec, n)
        assert total > 20
        assert loc / total <= LOCATED_MAX, (loc, total)
        assert ambiguous == 0 and too_long == 0


def test_the_ambiguity_check_catches_a_planted_rival(monkeypatch):
    doc = fixture_doc()
    ctx = QAContext(doc, derive_mod.build_evidence(drawn_render_map(doc)))
    f24 = next(f for f in doc.facts if f.label == "Revenue of North in FY2024")
    assert ctx.rivals([f24.id]) == []
    # planted: a second fact drawn elsewhere that a question without a locator could equally mean
    f25 = next(f for f in doc.facts if f.label == "Revenue of North in FY2025")
    clash = doc.model_copy(update={"facts": [f.model_copy(update={"label": "Revenue of North in FY2024 (Table 2)"})
                                             if f.id == f25.id else f for f in doc.facts]})
    ctx = QAContext(clash, derive_mod.build_evidence(drawn_render_map(clash)))
    assert [(a.id, b.id) for a, b in ctx.rivals([f24.id])] == [(f24.id, f25.id)]


def test_without_the_policy_questions_point_at_their_answer(monkeypatch):
    spec = reference_spec(seed=29).model_copy(update={"n_docs": 2})  # long reports: numbered tables and figures
    monkeypatch.setattr(derive_mod, "LOCATED_P", 1.0)
    monkeypatch.setattr(derive_mod, "LOCATED_P_ONE", 1.0)
    monkeypatch.setattr(derive_mod, "LOCATED_MAX", 1.0)
    total, loc, _, _ = _figures(spec, 2)
    assert loc / total > 0.5  # the old behaviour: most questions name their table


def test_without_the_askable_check_long_and_ambiguous_questions_get_through(monkeypatch):
    monkeypatch.setattr(derive_mod, "askable", lambda *a: True)
    _, _, ambiguous, too_long = _figures(demo_spec(seed=3, n_docs=6), 6)
    assert ambiguous + too_long > 0
