"""The QA types and their variants: the single source of their names, weights, difficulties, sources,
generators and of how a verifier checks their answers.

A QA type (``ir.vocab.QAType``) has one entry; each entry has one or more variants (a lookup of a table
cell, of a form field, of a fact in prose; a row found by one of its values). A question's variant is drawn
by weight among those with sources in the document, so the weights set the mix; the variant also sets the
difficulty: a variant is hard when it needs several steps (a join of two elements, a condition, an
arithmetic over a filtered set). The order of ``VARIANTS`` is the order they are drawn in (it fixes corpus
bytes): a new variant goes at the end.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import QA_TYPES, Difficulty, QAType

from .arithmetic import (
    block_dates,
    conditional_aggregate,
    date_arithmetic,
    difference,
    percent_change,
    period_change,
    table_aggregate,
    value_range,
)
from .claims import Draft
from .compare import boolean, comparison, conditional_superlative, cross_comparison, superlative
from .context import QAContext
from .genre import statement_pairs, statement_ratio, worked, worked_facts
from .lists import above_threshold, list_items, matching_records
from .lookup import annotation_reading, chart_reading, lookup, reverse_lookup, whose
from .multi_hop import cross_difference, entity_bridge, record_join, superlative_bridge
from .sources import (
    SourceFinder,
    blocks_where,
    charted_figure,
    compared_block,
    conditional_block,
    cross_element_pairs,
    date_sets,
    drawn_list,
    entity_bridges,
    filled_annotation,
    filled_form,
    filterable_list,
    filterable_table,
    has_drawn_facts,
    joined_records,
    keyed_list,
    keyed_table,
    numeric_table,
    period_block,
    prose_naming_people,
    prose_with_dates,
    prose_with_facts,
    prose_with_person_details,
    ranked_block,
    superlative_links,
    table_with_facts,
)
from .structure import contents_lookup, contents_rows, cross_reference, section_exhibits
from .unanswerable import unanswerable, unstated_detail

Generator = Callable[[QAContext, Any, Rng], Draft | None]
"""(context, one source, the question's stream) -> a draft, or None when this source gives none."""

AnswerRule = Literal["fact", "derivation", "claims"]
"""How the answer of a QA pair follows from its assertions: ``fact``: it equals the value of its last
assertion; ``derivation``: it is the result of its first assertion with a derivation; ``claims``: it is
read off its assertions as a whole (a comparison, a yes/no, a list, "not stated")."""


@dataclass(frozen=True)
class QAVariant:
    name: str
    qa_type: QAType
    weight: float
    difficulty: Difficulty
    sources: SourceFinder
    generate: Generator


@dataclass(frozen=True)
class QATypeEntry:
    name: QAType
    answer_rule: AnswerRule
    variants: tuple[QAVariant, ...]

    @property
    def weight(self) -> float:
        return sum(v.weight for v in self.variants)

    @property
    def difficulties(self) -> frozenset[Difficulty]:
        return frozenset(v.difficulty for v in self.variants)


V = QAVariant
VARIANTS: tuple[QAVariant, ...] = (
    V("lookup.table", "lookup", 0.015, "easy", blocks_where(table_with_facts), lookup),
    V("lookup.form", "lookup", 0.02, "easy", blocks_where(filled_form), lookup),
    V("lookup.prose", "lookup", 0.2, "easy", blocks_where(prose_with_facts), lookup),
    V("lookup.by_key", "lookup", 0.02, "medium", blocks_where(keyed_table), reverse_lookup),
    V("lookup.list_by_key", "lookup", 0.02, "medium", blocks_where(keyed_list), reverse_lookup),
    V("lookup.whose", "lookup", 0.02, "medium", blocks_where(prose_with_person_details), whose),
    V("chart_reading", "chart_reading", 0.03, "easy", blocks_where(charted_figure), chart_reading),
    V("annotation_reading", "annotation_reading", 0.02, "easy", blocks_where(filled_annotation),
      annotation_reading),
    V("boolean", "boolean", 0.015, "easy", blocks_where(has_drawn_facts), boolean),
    V("boolean.prose", "boolean", 0.03, "easy", blocks_where(prose_with_facts), boolean),
    V("table_aggregate", "table_aggregate", 0.03, "medium", blocks_where(numeric_table, compared_block),
      table_aggregate),
    V("table_aggregate.conditional", "table_aggregate", 0.015, "hard", blocks_where(conditional_block),
      conditional_aggregate),
    V("comparison", "comparison", 0.02, "medium", blocks_where(compared_block), comparison),
    V("comparison.superlative", "comparison", 0.025, "medium", blocks_where(ranked_block), superlative),
    V("comparison.conditional", "comparison", 0.02, "hard", blocks_where(conditional_block),
      conditional_superlative),
    V("comparison.cross", "comparison", 0.02, "medium", cross_element_pairs, cross_comparison),
    V("difference", "difference", 0.02, "medium", blocks_where(compared_block), difference),
    V("difference.period", "difference", 0.02, "medium", blocks_where(period_block), period_change),
    V("difference.range", "difference", 0.015, "hard", blocks_where(ranked_block), value_range),
    V("percent_change", "percent_change", 0.02, "medium", blocks_where(period_block), percent_change),
    V("date_arithmetic", "date_arithmetic", 0.02, "medium", date_sets, date_arithmetic),
    V("date_arithmetic.prose", "date_arithmetic", 0.015, "medium", blocks_where(prose_with_dates), block_dates),
    V("multi_hop.entity", "multi_hop", 0.05, "hard", entity_bridges, entity_bridge),
    V("multi_hop.superlative", "multi_hop", 0.055, "hard", superlative_links, superlative_bridge),
    V("multi_hop.difference", "multi_hop", 0.04, "hard", cross_element_pairs, cross_difference),
    V("multi_hop.join", "multi_hop", 0.035, "hard", joined_records, record_join),
    V("list.items", "list", 0.03, "medium", blocks_where(drawn_list), list_items),
    V("list.matching", "list", 0.015, "hard", blocks_where(filterable_table), matching_records),
    V("list.matching_prose", "list", 0.015, "hard", blocks_where(filterable_list), matching_records),
    V("list.above", "list", 0.02, "medium", blocks_where(ranked_block), above_threshold),
    V("unanswerable", "unanswerable", 0.015, "medium", blocks_where(numeric_table, filled_form), unanswerable),
    V("unanswerable.detail", "unanswerable", 0.01, "medium", blocks_where(prose_naming_people), unstated_detail),
    V("lookup.contents", "lookup", 0.01, "easy", contents_rows, contents_lookup),
    V("lookup.cross_reference", "lookup", 0.01, "medium", section_exhibits, cross_reference),
    V("table_aggregate.worked", "table_aggregate", 0.03, "medium", worked_facts, worked),
    V("multi_hop.statement_ratio", "multi_hop", 0.035, "hard", statement_pairs, statement_ratio),
)

ANSWER_RULES: dict[QAType, AnswerRule] = {
    "lookup": "fact", "chart_reading": "fact", "annotation_reading": "fact", "multi_hop": "fact",
    "table_aggregate": "derivation", "difference": "derivation", "percent_change": "derivation",
    "date_arithmetic": "derivation",
    "comparison": "claims", "boolean": "claims", "list": "claims", "unanswerable": "claims",
}

REGISTRY: tuple[QATypeEntry, ...] = tuple(
    QATypeEntry(t, ANSWER_RULES[t], tuple(v for v in VARIANTS if v.qa_type == t)) for t in QA_TYPES)
"""One entry per QA type, in the vocabulary's order."""

QA_TYPE: dict[QAType, QATypeEntry] = {e.name: e for e in REGISTRY}
"""Registry entry by QA type name."""

VARIANT: dict[str, QAVariant] = {v.name: v for v in VARIANTS}

if len(VARIANT) != len(VARIANTS) or any(not e.variants for e in REGISTRY) or set(ANSWER_RULES) != set(QA_TYPES):
    raise RuntimeError("every QA type of ir.vocab.QA_TYPES needs an answer rule and at least one variant, "
                       "and variant names must be unique")
