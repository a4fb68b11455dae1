"""The QA registry is the one place that names QA types, their variants, weights, difficulties and answer
rules."""

import ast
import inspect

import pytest

import synthdocqa.generation.qa as qa_pkg
from synthdocqa.generation.qa import QA_TYPE, REGISTRY, VARIANTS, build_evidence, derive_qa, drawn_render_map
from synthdocqa.generation.qa.context import QAContext
from synthdocqa.generation.qa.registry import ANSWER_RULES
from synthdocqa.ir.vocab import DIFFICULTIES, QA_TYPES

from .qa_fixture import fixture_doc

DRAW_ORDER = ("lookup.table lookup.form lookup.prose lookup.by_key lookup.list_by_key lookup.whose chart_reading "
              "annotation_reading boolean boolean.prose table_aggregate table_aggregate.conditional comparison "
              "comparison.superlative comparison.conditional comparison.cross difference difference.period "
              "difference.range percent_change date_arithmetic date_arithmetic.prose multi_hop.entity "
              "multi_hop.superlative multi_hop.difference multi_hop.join list.items list.matching list.matching_prose "
              "list.above unanswerable unanswerable.detail lookup.contents lookup.cross_reference table_aggregate.worked "
              "multi_hop.statement_ratio").split()


def test_every_qa_type_has_one_entry_with_variants_and_an_answer_rule():
    assert [e.name for e in REGISTRY] == list(QA_TYPES)
    assert set(QA_TYPE) == set(QA_TYPES) == set(ANSWER_RULES)
    assert all(e.variants and all(v.qa_type == e.name for v in e.variants) for e in REGISTRY)
    assert sorted(v.name for e in REGISTRY for v in e.variants) == sorted(v.name for v in VARIANTS)
    assert len({v.name for v in VARIANTS}) == len(VARIANTS)


def test_draw_order_is_pinned():
    """Variants are drawn in this order with their weights: changing either changes corpus bytes."""
    assert [v.name for v in VARIANTS] == DRAW_ORDER
    assert all(v.weight > 0 for v in VARIANTS)
    assert sum(v.weight for v in VARIANTS) == pytest.approx(1.0)


def test_hard_is_not_only_lists():
    """Hard questions cover joins of two elements, conditions and arithmetic over a filtered set."""
    assert all(v.difficulty in DIFFICULTIES for v in VARIANTS)
    hard = {v.qa_type for v in VARIANTS if v.difficulty == "hard"}
    assert {"multi_hop", "comparison", "table_aggregate", "difference", "list"} <= hard
    assert all(v.difficulty == "hard" for v in QA_TYPE["multi_hop"].variants)
    assert QA_TYPE["lookup"].difficulties == {"easy", "medium"}


def _phrasing_tables(module) -> dict[str, tuple[str, ...]]:
    """Module-level tuples of question templates (strings with a '{slot}'), also inside dicts."""
    out = {}
    tree = ast.parse(inspect.getsource(module))
    for node in tree.body:
        if not isinstance(node, ast.Assign) or not isinstance(node.targets[0], ast.Name):
            continue
        name = node.targets[0].id
        try:
            value = ast.literal_eval(node.value) if isinstance(node.value, ast.Tuple | ast.Dict) else None
        except ValueError:  # not a literal table (a dict built with ** or calls)
            continue
        tables = value.items() if isinstance(value, dict) else [("", value)] if isinstance(value, tuple) else []
        for key, t in tables:
            if isinstance(t, tuple) and t and all(isinstance(s, str) and "{" in s for s in t):
                out[f"{name}[{key}]" if key else name] = t
    return out


def test_every_question_has_five_or_more_phrasings():
    from synthdocqa.generation.qa import (
        arithmetic,
        compare,
        lists,
        lookup,
        multi_hop,
        structure,
        unanswerable,
    )

    tables = {}
    for mod in (arithmetic, compare, lists, lookup, multi_hop, structure, unanswerable):
        tables.update({f"{mod.__name__}.{k}": v for k, v in _phrasing_tables(mod).items()})
    assert len(tables) >= 30
    short = {k: len(v) for k, v in tables.items() if len(set(v)) < 5}
    assert short == {}


def test_every_variant_finds_sources_in_the_fixture_and_pairs_get_a_difficulty_of_their_type():
    doc = fixture_doc()
    rm = drawn_render_map(doc)
    ev = build_evidence(rm)
    ctx = QAContext(doc, ev)
    # the fixture has no contents page: the structure questions are tested on a planned report
    # (tests/generation/test_qa_structure.py)
    # nor genre blocks: their variants are tested on planned documents (tests/generation/test_qa_genre.py)
    assert [v.name for v in VARIANTS if not v.sources(ctx)] == ["lookup.contents", "lookup.cross_reference",
                                                                "table_aggregate.worked", "multi_hop.statement_ratio"]
    qa, asr = derive_qa(doc, rm, ev, qa_per_page=30)
    assert all(q.difficulty in QA_TYPE[q.qa_type].difficulties for q in qa)
    assert {q.difficulty for q in qa} == set(DIFFICULTIES)
    own = {a.id: a for a in asr}
    assert [p for q in qa for p in qa_pkg.check_answer(q, [own[i] for i in q.assertion_ids])] == []
