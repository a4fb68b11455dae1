"""Multi-hop questions never resolve to their own start: "Name the action in Table 30 whose owner is the owner of
the action 'X'" is never answered "X", and the second hop never lands on the anchor's row or item.

Checked on planned and rendered reference documents (their multi-hop questions, every one) and on the
hand-built fixture (whose list and tracker hold the same actions: the trap); the check
(``generation.qa.own_start``) is shown to fail on planted collapses.
"""

from collections import Counter

import pytest

from synthdocqa.generation.qa import build_evidence, derive_qa, drawn_render_map
from synthdocqa.generation.qa.claims import Claim, Draft
from synthdocqa.generation.qa.context import QAContext
from synthdocqa.generation.qa.mix import qa_mix
from synthdocqa.generation.qa.multi_hop import (
    bridges,
    mentions,
    named_in,
    record_links,
    same_item,
    unless_own_start,
    who,
)
from synthdocqa.generation.qa.own_start import (
    answer_forms_named,
    is_phrase_of,
    normalise,
    qa_own_start_reasons,
    resolves_to_own_start,
    row_index,
)
from synthdocqa.ir.answers import surface_forms
from synthdocqa.ir.qa_models import StringAnswer

from .qa_fixture import fixture_doc

N_DOCS = 12
MIN_MULTI_HOP = 200


@pytest.fixture(scope="module")
def documents():
    """``N_DOCS`` reference documents, planned, rendered (no scan) and derived: (doc, QAContext, qa, assertions)."""
    from synthdocqa.generation.planner import plan_document
    from synthdocqa.ir.spec import reference_spec
    from synthdocqa.renderers import render_document

    spec = reference_spec(seed=7, n_docs=N_DOCS)
    out = []
    for i in range(N_DOCS):
        doc = plan_document(spec, i)
        rm = render_document(doc).render_map
        ev = build_evidence(rm)
        qa, asr = derive_qa(doc, rm, ev, qa_per_page=spec.qa_per_page)
        out.append((doc, QAContext(doc, ev), qa, asr))
    return out


@pytest.fixture(scope="module")
def fixture_qa():
    doc = fixture_doc()
    rm = drawn_render_map(doc)
    ev = build_evidence(rm, dpi=144)
    qa, asr = derive_qa(doc, rm, ev, qa_per_page=12.0)
    return doc, QAContext(doc, ev), qa, asr


def own_assertions(qa, asr):
    by_id = {a.id: a for a in asr}
    return [by_id[i] for i in qa.assertion_ids]


def same_item_pairs(ctx) -> int:
    """How many (anchor mention, second-hop mention) of one entity sit in two rows about one item: the
    chances a bridge had to collapse."""
    return sum(1 for ms in mentions(ctx).values() for a in ms for m in ms
               if m.block is not a.block and same_item(a.record, m.record))


def assert_does_not_resolve_to_start(doc, qa, own):
    """The test's own reading of the rule, fact by fact, next to ``resolves_to_own_start``."""
    rows = row_index(doc)
    named = [f for f in qa.accepted_answers if answer_forms_named(qa.question, qa.answer, [f])]
    assert named == [], (qa.question, qa.answer_text)
    last = own[-1]
    if last.derivation is not None:  # a difference of two values: two distinct facts in two rows
        ops = [o.fact_id for o in last.derivation.operands]
        assert len(set(ops)) == len(ops) and len({rows.get(o, o) for o in ops}) == len(ops), qa.question
    else:
        answer_fact = last.fact_ids[-1]
        anchors = {f for a in own[:-1] for f in a.fact_ids}
        assert answer_fact not in anchors, qa.question
        anchor_boxes = {(e.block_id, e.bbox_pdf) for a in own[:-1] for e in a.evidence}
        answer_boxes = {(e.block_id, e.bbox_pdf) for e in last.evidence if e.fact_id == answer_fact}
        assert answer_boxes and not answer_boxes & anchor_boxes, qa.question
        ref = rows.get(answer_fact)
        if ref is not None:
            assert ref not in {rows.get(f) for f in anchors}, qa.question
            assert not (ref.item and is_phrase_of(ref.item, qa.question)), (qa.question, ref.item)
    assert not resolves_to_own_start(qa, own, doc), (qa.question, qa_own_start_reasons(qa, own, doc))


# ------------------------------------------------------------------ real documents

def test_the_documents_hold_the_trap_and_many_multi_hop_questions(documents):
    """The documents repeat items (an action in a list and in a tracker table), so a bridge could collapse;
    they hold enough multi-hop questions, and the mix keeps its multi-hop share."""
    # 6 on these documents since annual reports and archive files carry no action list (catalogue/standing.yaml):
    # the action a list and a tracker share is now a compliance report's; the fixture holds the trap by design
    assert sum(same_item_pairs(ctx) for _, ctx, _, _ in documents) >= 5
    n = sum(q.qa_type == "multi_hop" for _, _, qa, _ in documents for q in qa)
    assert n >= MIN_MULTI_HOP, n
    mix = qa_mix([(doc, qa) for doc, _, qa, _ in documents])
    assert mix.share(mix.multi_hop) >= 0.15


def test_no_multi_hop_question_resolves_to_its_start(documents):
    kinds: Counter = Counter()
    for doc, _, qa, asr in documents:
        rows = row_index(doc)
        for q in qa:
            own = own_assertions(q, asr)
            if q.qa_type != "multi_hop":
                continue
            assert_does_not_resolve_to_start(doc, q, own)
            first = own[0].fact_ids[0]
            kinds["derived" if own[-1].derivation else "through a row" if rows.get(first) and
                  rows.get(own[-1].fact_ids[-1]) else "other"] += 1
    assert sum(kinds.values()) >= MIN_MULTI_HOP
    assert kinds["through a row"] >= 30 and kinds["derived"] >= 10, kinds


def test_the_sources_leave_out_bridges_back_to_the_start(documents, fixture_qa):
    """No candidate bridge lands on the anchor's own item, or on an answer its description names; no join
    answers with its own key."""
    for _, ctx, _, _ in [*documents, fixture_qa]:
        for a, m, f in bridges(ctx):
            assert not same_item(a.record, m.record if m else None)
            assert not named_in(f, who(a.fact))
        for r1, k, r2, t in record_links(ctx):
            assert normalise(r2.fields[t].text) != normalise(r1.fields[k].text)


# ------------------------------------------------------------------ the fixture: the trap, deterministically

def test_the_fixture_trap_is_avoided(fixture_qa):
    doc, ctx, qa, asr = fixture_qa
    assert same_item_pairs(ctx) >= 4  # each action of the list is in the tracker, with its owner
    mh = [q for q in qa if q.qa_type == "multi_hop"]
    assert len(mh) >= 5
    for q in mh:
        assert_does_not_resolve_to_start(doc, q, own_assertions(q, asr))


# ------------------------------------------------------------------ planted collapses are caught

def _bridge_through_a_row(documents):
    """A real entity bridge that starts from a named item ("the owner of the action to renew X") and answers from a
    row of another block, with its document and assertions."""
    for doc, _, qa, asr in documents:
        rows = row_index(doc)
        for q in qa:
            own = own_assertions(q, asr)
            if q.qa_type != "multi_hop" or own[-1].derivation or len(own) < 2:
                continue
            anchor = rows.get(own[0].fact_ids[0])
            # the item is named in the question, quoted or not ("the action to renew the contract")
            if anchor and anchor.item and is_phrase_of(anchor.item, q.question) and rows.get(own[-1].fact_ids[-1]):
                return doc, q, own, anchor
    raise AssertionError("no entity bridge through a row in the documents")


def test_an_answer_replaced_by_its_start_is_flagged(documents):
    doc, q, own, anchor = _bridge_through_a_row(documents)
    assert not resolves_to_own_start(q, own, doc)
    start = anchor.item
    bad = q.model_copy(update={"answer": StringAnswer(value=start), "answer_text": start,
                               "accepted_answers": surface_forms(StringAnswer(value=start))})
    assert resolves_to_own_start(bad, own, doc)
    assert resolves_to_own_start(bad, own)  # the text alone shows it, without the document
    assert any("named in the question" in w for w in qa_own_start_reasons(bad, own, doc))
    with pytest.raises(AssertionError):
        assert_does_not_resolve_to_start(doc, bad, own)


def test_an_answer_from_the_anchor_fact_or_row_is_flagged(documents):
    doc, q, own, anchor = _bridge_through_a_row(documents)
    rows = row_index(doc)
    # the second hop answers with the anchor fact itself
    same_fact = own[-1].model_copy(update={"fact_ids": [*own[-1].fact_ids[:-1], own[0].fact_ids[0]]})
    assert resolves_to_own_start(q, [*own[:-1], same_fact])
    # the second hop answers from another cell of the anchor's own row
    other = next(f for f, r in rows.items() if r == anchor and f not in own[0].fact_ids)
    same_row = own[-1].model_copy(update={"fact_ids": [*own[-1].fact_ids[:-1], other]})
    reasons = qa_own_start_reasons(q, [*own[:-1], same_row], doc)
    assert any("anchor's row" in w for w in reasons), reasons
    with pytest.raises(AssertionError):
        assert_does_not_resolve_to_start(doc, q, [*own[:-1], same_row])


def test_a_hand_built_collapse_is_not_emitted(fixture_qa):
    """On the fixture: the owner of 'Close the audit finding' in the list is found again in the tracker
    (Table 2) on the same action. The draft naming that action back, or reading its status, is dropped;
    the one landing on the owner's other action is kept."""
    doc, ctx, _, _ = fixture_qa
    owner_in_list = next(f for f in doc.facts if f.label == "Owner of the action 'Close the audit finding'"
                         and ctx.block_of(f.id).id == "b007")
    tracker = {r.label: r for r in ctx.records(ctx.blocks["b008"][1])}
    first = ctx.claim_fact(owner_in_list)

    def draft(q: str, rec, field: str | None):
        f = rec.head if field is None else rec.fields[field]
        ans = StringAnswer(value=f.text)
        return Draft("multi_hop", "table", q, ans, f.text, [first, Claim("-", ans, [rec.fields["owner"].id, f.id])])

    back = draft("Name the action in Table 2 whose owner is the owner of the action 'Close the audit finding'.",
                 tracker["Close the audit finding"], None)
    status = draft("In Table 2, what is the status of the action whose owner is the owner of the action "
                   "'Close the audit finding'?", tracker["Close the audit finding"], "status")
    other = draft("Name the action in Table 2 whose owner is the owner of the action 'Close the audit finding'.",
                  tracker["Train the approvers"], None)
    assert unless_own_start(ctx, back) is None
    assert unless_own_start(ctx, status) is None
    assert unless_own_start(ctx, other) is other


def test_coincidences_are_not_collapses():
    """A bare number named as a figure number, or an answer word inside a block's title, is not the start."""
    from synthdocqa.ir.qa_models import NumberAnswer
    fifteen = NumberAnswer(value="15", unit="accounts")
    assert answer_forms_named("In Figure 15, what is the accounts opened of the category with the highest loans "
                              "in Figure 5?", fifteen, surface_forms(fifteen)) == []
    assert not is_phrase_of("Open", "What is the status in Table 2 of the action due 1 June 2026 in the list "
                                    "'Open actions'?")
    assert is_phrase_of("Renew P&I cover", "Name the action whose owner is the owner of the action 'Renew P&I cover'.")
    assert is_phrase_of("Dana Whitfield", "For the form whose requester is Dana Whitfield, what is the date?")
    assert not is_phrase_of("Dana", "For the form whose requester is Danae Whitfield, what is the date?")


def test_other_types_are_never_flagged(fixture_qa):
    _, _, qa, asr = fixture_qa
    lookups = [q for q in qa if q.qa_type == "lookup"]
    assert lookups
    for q in lookups:
        planted = q.model_copy(update={"question": f"{q.question} ({q.answer_text})"})
        assert not resolves_to_own_start(planted, own_assertions(q, asr))
