"""Where each QA type finds its sources: blocks that pass a test, or one document-wide candidate list.

A source finder maps the document's ``QAContext`` to the list a question's source is drawn from
(blocks in document order; a document-level type gets ``[candidates]`` or nothing).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..blocks import AnnotationBlock, Block, FigureBlock, FormBlock, ListBlock, TableBlock
from ..values import DateValue
from .context import QAContext
from .lists import drawn_items
from .multi_hop import multi_hop_pairs

BlockTest = Callable[[QAContext, Block], bool]
SourceFinder = Callable[[QAContext], list[Any]]


def blocks_where(*tests: BlockTest) -> SourceFinder:
    """The blocks, in document order, that pass any of ``tests``."""
    def find(ctx: QAContext) -> list[Any]:
        return [b for _, b in ctx.doc.blocks() if any(t(ctx, b) for t in tests)]
    return find


def has_drawn_facts(ctx: QAContext, b: Block) -> bool:
    return bool(ctx.drawn_fact_ids(b))


def numeric_table(ctx: QAContext, b: Block) -> bool:
    """A table with at least one column of two or more drawn numbers."""
    return isinstance(b, TableBlock) and bool(ctx.numeric_columns(b))


def period_table(ctx: QAContext, b: Block) -> bool:
    """A table with two consecutive numeric period columns (FY2024, FY2025)."""
    return isinstance(b, TableBlock) and bool(ctx.period_pairs(b))


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


def date_sets(ctx: QAContext) -> list[Any]:
    """The document's drawn dates as one source, when at least two distinct dates are drawn."""
    dates = [f for f in ctx.doc.facts if isinstance(f.value, DateValue) and ctx.drawn(f.id)]
    return [dates] if len({f.value.value for f in dates}) >= 2 else []


def hop_pairs(ctx: QAContext) -> list[Any]:
    """The document's multi-hop pairs as one source, when there are any."""
    pairs = multi_hop_pairs(ctx)
    return [pairs] if pairs else []
