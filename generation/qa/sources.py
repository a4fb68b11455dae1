"""Where each QA variant finds its sources: blocks that pass a test, or one document-wide candidate list.

A source finder maps the document's ``QAContext`` to the list a question's source is drawn from
(blocks in document order; a document-level variant gets ``[candidates]`` or nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from synthdocqa.ir.blocks import (
    ELEMENT_OF_BLOCK,
    AnnotationBlock,
    Block,
    FigureBlock,
    FormBlock,
    ListBlock,
    TableBlock,
)
from synthdocqa.ir.values import DateValue, PersonValue

from .context import QAContext
from .lists import drawn_items
from .multi_hop import bridges, cross_pairs, point_links, record_links

BlockTest = Callable[[QAContext, Block], bool]
SourceFinder = Callable[[QAContext], list[Any]]


def blocks_where(*tests: BlockTest) -> SourceFinder:
    """The blocks, in document order, that pass any of ``tests``."""
    def find(ctx: QAContext) -> list[Any]:
        return [b for _, b in ctx.doc.blocks() if any(t(ctx, b) for t in tests)]
    return find


def has_drawn_facts(ctx: QAContext, b: Block) -> bool:
    return bool(ctx.drawn_fact_ids(b))


def table_with_facts(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, TableBlock) and has_drawn_facts(ctx, b)


def prose_with_facts(ctx: QAContext, b: Block) -> bool:
    """A text block, list, heading or footnote with a drawn fact."""
    return ELEMENT_OF_BLOCK[b.type] == "text" and has_drawn_facts(ctx, b)


def numeric_table(ctx: QAContext, b: Block) -> bool:
    """A table with at least one column of two or more drawn numbers."""
    return isinstance(b, TableBlock) and bool(ctx.numeric_columns(b))


def compared_block(ctx: QAContext, b: Block) -> bool:
    """A table or chart with a column or series of two or more comparable points."""
    return bool(ctx.point_groups(b))


def ranked_block(ctx: QAContext, b: Block) -> bool:
    """A table or chart with a column or series of three or more comparable points."""
    return bool(ctx.point_groups(b, least=3))


def period_block(ctx: QAContext, b: Block) -> bool:
    """A table or chart with one item in two periods."""
    from .arithmetic import period_pairs
    return bool(period_pairs(ctx, b))


def conditional_block(ctx: QAContext, b: Block) -> bool:
    from .compare import condition_groups
    return bool(condition_groups(ctx, b))


def keyed_records(ctx: QAContext, b: Block) -> bool:
    """A table or list whose rows can be found by a value unique to each."""
    from .lookup import unique_keys
    recs = ctx.records(b)
    return isinstance(b, TableBlock | ListBlock) and len(recs) >= 2 and bool(unique_keys(recs))


def keyed_table(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, TableBlock) and keyed_records(ctx, b)


def keyed_list(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, ListBlock) and keyed_records(ctx, b)


def filterable(ctx: QAContext, b: Block) -> bool:
    """Rows or items with a field to select on (a date, or a name or status some share)."""
    from .lists import usable
    recs = ctx.records(b)
    if len(recs) < 3 or isinstance(b, TableBlock) and ctx.points(b):
        return False
    return any(all(k in r.fields for r in recs) and usable(recs, k) for k in recs[0].fields)


def filterable_table(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, TableBlock) and filterable(ctx, b)


def filterable_list(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, ListBlock) and filterable(ctx, b)


def charted_figure(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, FigureBlock) and any(ctx.drawn(f) for s in b.series for p in s.points
                                              for f in p.fact_ids)


def filled_annotation(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, AnnotationBlock) and has_drawn_facts(ctx, b)


def filled_form(ctx: QAContext, b: Block) -> bool:
    return isinstance(b, FormBlock) and has_drawn_facts(ctx, b)


def drawn_list(ctx: QAContext, b: Block) -> bool:
    """A list with at least two drawn items."""
    return isinstance(b, ListBlock) and drawn_items(ctx, b) >= 2


def prose_with_dates(ctx: QAContext, b: Block) -> bool:
    return prose_with_facts(ctx, b) and len({ctx.facts[f].value.value for f in ctx.drawn_fact_ids(b)
                                             if isinstance(ctx.facts[f].value, DateValue)}) >= 2


def prose_with_person_details(ctx: QAContext, b: Block) -> bool:
    from .lookup import person_details
    return prose_with_facts(ctx, b) and bool(person_details(ctx, b))


def prose_naming_people(ctx: QAContext, b: Block) -> bool:
    return prose_with_facts(ctx, b) and any(isinstance(ctx.facts[f].value, PersonValue)
                                            for f in ctx.drawn_fact_ids(b))


def date_sets(ctx: QAContext) -> list[Any]:
    """The document's drawn dates as one source, when at least two distinct dates are drawn."""
    dates = [f for f in ctx.doc.facts if isinstance(f.value, DateValue) and ctx.drawn(f.id)]
    return [dates] if len({f.value.value for f in dates}) >= 2 else []


def as_one(find: Callable[[QAContext], list[Any]]) -> SourceFinder:
    """A document-wide candidate list as one source (none when empty)."""
    def one(ctx: QAContext) -> list[Any]:
        found = find(ctx)
        return [found] if found else []
    return one


entity_bridges = as_one(bridges)
superlative_links = as_one(point_links)
cross_element_pairs = as_one(cross_pairs)
joined_records = as_one(record_links)
