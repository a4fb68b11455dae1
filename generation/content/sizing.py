"""Rough heights (PDF points, full body width of a Letter page) used to keep each planned page's
content plausible for one page. The renderer carries real overflow; this only keeps plans sane.
"""

from __future__ import annotations

import math

from synthdocqa.ir.blocks import (
    AnnotationBlock,
    FigureBlock,
    FootnoteBlock,
    FormBlock,
    HeadingBlock,
    ListBlock,
    TableBlock,
    TextBlock,
)

PAGE_BUDGET = 560.0
CHARS_PER_LINE = 88
TABLE_ROW = 17.0
TABLE_OVERHEAD = 48.0
FIGURE_HEIGHT = 230.0
FORM_OVERHEAD = 74.0
FORM_FIELD = 22.0


def _lines(text: str, per_line: int = CHARS_PER_LINE) -> int:
    return max(1, math.ceil(len(text) / per_line))


def table_height(n_rows: int) -> float:
    return TABLE_OVERHEAD + TABLE_ROW * (n_rows + 1)


def form_height(n_fields: int, n_checks: int = 3) -> float:
    return FORM_OVERHEAD + FORM_FIELD * n_fields + 18 * math.ceil(n_checks / 2)


ANNOTATION_HEIGHT = {"stamp": 60.0, "handwritten_note": 50.0, "signature": 60.0, "highlight": 20.0}


def block_height(block) -> float:
    if isinstance(block, HeadingBlock):
        return 34.0 if block.level == 1 else 26.0
    if isinstance(block, TextBlock):
        return 14.0 * _lines("".join(s.text for s in block.spans)) + 10
    if isinstance(block, FootnoteBlock):
        return 12.0 * _lines("".join(s.text for s in block.spans), 100) + 6
    if isinstance(block, ListBlock):
        return 26.0 + sum(14.0 * _lines("".join(s.text for s in it), 80) for it in block.items)
    if isinstance(block, TableBlock):
        return table_height(len(block.rows))
    if isinstance(block, FigureBlock):
        return FIGURE_HEIGHT
    if isinstance(block, FormBlock):
        return form_height(len(block.fields), len(block.checkboxes))
    if isinstance(block, AnnotationBlock):
        return ANNOTATION_HEIGHT[block.kind]
    raise TypeError(f"no height for {type(block).__name__}")
