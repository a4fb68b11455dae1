"""The QA types: one entry each, the single source of their names, weights, difficulties, sources and
generators.

The order of ``REGISTRY`` is the order types are drawn in (it fixes corpus bytes): never reorder it;
a new type goes at the end with its own weight.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..rng import Rng
from ..vocab import QA_TYPES, Difficulty, QAType
from .arithmetic import date_arithmetic, difference, percent_change, table_aggregate
from .claims import Draft
from .compare import boolean, comparison
from .context import QAContext
from .lists import list_items
from .lookup import annotation_reading, chart_reading, lookup
from .multi_hop import multi_hop
from .sources import (
    SourceFinder,
    blocks_where,
    charted_figure,
    date_sets,
    drawn_list,
    filled_annotation,
    filled_form,
    has_drawn_facts,
    hop_pairs,
    numeric_table,
    period_table,
)
from .unanswerable import unanswerable

Generator = Callable[[QAContext, Any, Rng], Draft | None]
"""(context, one source, the question's stream) -> a draft, or None when this source gives none."""


@dataclass(frozen=True)
class QATypeEntry:
    name: QAType
    weight: float
    difficulty: Difficulty
    sources: SourceFinder
    generate: Generator


REGISTRY: tuple[QATypeEntry, ...] = (
    QATypeEntry("lookup", 0.29, "easy", blocks_where(has_drawn_facts), lookup),
    QATypeEntry("table_aggregate", 0.09, "medium", blocks_where(numeric_table), table_aggregate),
    QATypeEntry("comparison", 0.05, "medium", blocks_where(numeric_table, charted_figure), comparison),
    QATypeEntry("difference", 0.06, "medium", blocks_where(numeric_table), difference),
    QATypeEntry("percent_change", 0.04, "medium", blocks_where(period_table), percent_change),
    QATypeEntry("chart_reading", 0.12, "easy", blocks_where(charted_figure), chart_reading),
    QATypeEntry("annotation_reading", 0.07, "easy", blocks_where(filled_annotation), annotation_reading),
    QATypeEntry("date_arithmetic", 0.03, "medium", date_sets, date_arithmetic),
    QATypeEntry("multi_hop", 0.05, "hard", hop_pairs, multi_hop),
    QATypeEntry("boolean", 0.09, "easy", blocks_where(has_drawn_facts), boolean),
    QATypeEntry("list", 0.05, "hard", blocks_where(numeric_table, drawn_list), list_items),
    QATypeEntry("unanswerable", 0.06, "medium", blocks_where(numeric_table, filled_form), unanswerable),
)

QA_TYPE: dict[QAType, QATypeEntry] = {e.name: e for e in REGISTRY}
"""Registry entry by QA type name."""

if len(QA_TYPE) != len(REGISTRY) or set(QA_TYPE) != set(QA_TYPES):
    raise RuntimeError("the QA type registry must hold each type of ir.vocab.QA_TYPES exactly once")
