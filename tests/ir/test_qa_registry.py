"""The QA type registry is the one place that names QA types, their weights and their difficulties."""

import pytest

from ir.qa import QA_TYPE, REGISTRY
from ir.vocab import DIFFICULTIES, QA_TYPES

from .qa_fixture import fixture_doc, fixture_render_map

OLD_DRAW_ORDER = ("lookup table_aggregate comparison difference percent_change chart_reading annotation_reading "
                  "date_arithmetic multi_hop boolean list unanswerable").split()


def test_every_qa_type_has_exactly_one_entry():
    names = [e.name for e in REGISTRY]
    assert sorted(names) == sorted(QA_TYPES) and len(set(names)) == len(names)
    assert set(QA_TYPE) == set(QA_TYPES)


def test_draw_order_and_weights_are_unchanged():
    """Types are drawn in registry order with these weights: changing either changes corpus bytes."""
    assert [e.name for e in REGISTRY] == OLD_DRAW_ORDER
    assert sum(e.weight for e in REGISTRY) == pytest.approx(1.0)
    assert [e.weight for e in REGISTRY] == [0.29, 0.09, 0.05, 0.06, 0.04, 0.12, 0.07, 0.03, 0.05, 0.09, 0.05, 0.06]
    assert all(e.weight > 0 for e in REGISTRY)


def test_difficulties_come_from_the_registry():
    assert all(e.difficulty in DIFFICULTIES for e in REGISTRY)
    by_level = {d: sorted(e.name for e in REGISTRY if e.difficulty == d) for d in DIFFICULTIES}
    assert by_level["hard"] == ["list", "multi_hop"]
    assert by_level["easy"] == ["annotation_reading", "boolean", "chart_reading", "lookup"]


def test_every_type_finds_sources_in_the_fixture_and_pairs_get_its_difficulty():
    from ir.qa import build_evidence, derive_qa
    from ir.qa.context import QAContext

    doc = fixture_doc()
    rm = fixture_render_map(doc)
    ev = build_evidence(rm)
    ctx = QAContext(doc, ev)
    empty = [e.name for e in REGISTRY if not e.sources(ctx)]
    assert empty == []
    qa, _ = derive_qa(doc, rm, ev, qa_per_page=30)
    assert all(q.difficulty == QA_TYPE[q.qa_type].difficulty for q in qa)
