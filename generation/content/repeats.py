"""Repeated content within one document: tables that print another table's rows again, captions and
titles that say the same thing twice. Pure functions of a ``DocumentIR`` (a document-level lint can import
them); the builders use the same test (``repeated_rows``) to keep a document free of both.

A row's key is the exact printed text of every cell of the row (numeric cells included; a total row is left
out). Two tables are a repeated pair when the smaller (by rows) shares at least ``REPEAT_SHARE`` of its row
keys with the other, or at least that share of its row labels (first cells) while both have the same column
headers. A caption's text is what follows ``Table N.`` / ``Figure N.``, compared case-insensitively over
table captions, figure titles and form titles together.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from synthdocqa.ir.blocks import FigureBlock, FormBlock, TableBlock
from synthdocqa.ir.document import DocumentIR

REPEAT_SHARE = 0.6
"""The share of the smaller table's rows (or row labels) that makes a pair of tables a repeat."""
NUMBER_PREFIX = re.compile(r"^\s*(?:table|figure|chart|form)\s+\d+\s*[.:]\s*", re.IGNORECASE)


@dataclass(frozen=True)
class RepeatedTables:
    """Two tables of one document that print the same rows: ``shared`` of the smaller's ``of`` rows."""

    first: str
    second: str
    shared: int
    of: int
    by: str
    """``rows`` (whole row keys) or ``labels`` (row labels under the same column headers)."""


@dataclass(frozen=True)
class RepeatedCaption:
    """A caption or title text that more than one block of a document carries."""

    text: str
    block_ids: tuple[str, ...]


def body_rows(table: TableBlock) -> list[list[str]]:
    """The printed texts of a table's rows, its total row left out."""
    rows = table.rows[:-1] if table.total_row else table.rows
    return [[s.text.strip() for s in row] for row in rows]


def row_keys(rows: Sequence[Sequence[str]]) -> list[tuple[str, ...]]:
    return [tuple(r) for r in rows]


def repeated_rows(a_rows: Sequence[Sequence[str]], a_columns: Sequence[str], b_rows: Sequence[Sequence[str]],
                  b_columns: Sequence[str]) -> tuple[str, int, int] | None:
    """``(by, shared, of)`` when two tables' rows (cell texts, totals left out) repeat each other, else None."""
    if not a_rows or not b_rows:
        return None
    small, big = (a_rows, b_rows) if len(a_rows) <= len(b_rows) else (b_rows, a_rows)
    keys = set(row_keys(big))
    shared = sum(1 for k in row_keys(small) if k in keys)
    if shared >= REPEAT_SHARE * len(small):
        return "rows", shared, len(small)
    if list(a_columns) == list(b_columns):
        labels = {r[0] for r in big if r}
        shared = sum(1 for r in small if r and r[0] in labels)
        if shared >= REPEAT_SHARE * len(small):
            return "labels", shared, len(small)
    return None


def tables_of(doc: DocumentIR) -> list[TableBlock]:
    return [b for _, b in doc.blocks() if isinstance(b, TableBlock)]


def repeated_tables(doc: DocumentIR) -> list[RepeatedTables]:
    """Every pair of tables of ``doc`` that print the same rows (see the module's definition)."""
    tables = [(t, body_rows(t)) for t in tables_of(doc)]
    out: list[RepeatedTables] = []
    for i, (a, ra) in enumerate(tables):
        for b, rb in tables[i + 1:]:
            hit = repeated_rows(ra, a.columns, rb, b.columns)
            if hit is not None:
                by, shared, of = hit
                out.append(RepeatedTables(first=a.id, second=b.id, shared=shared, of=of, by=by))
    return out


def caption_text(text: str) -> str:
    """A caption or title without its number (``Table 3. Revenue by region`` -> ``revenue by region``)."""
    return " ".join(NUMBER_PREFIX.sub("", text).strip().rstrip(".").split()).casefold()


def captions_of(doc: DocumentIR) -> list[tuple[str, str]]:
    """``(block id, caption text)`` of every table caption, figure title and form title of ``doc``."""
    out = []
    for _, b in doc.blocks():
        text = b.caption if isinstance(b, TableBlock) else b.title if isinstance(b, FigureBlock | FormBlock) else ""
        if caption_text(text):
            out.append((b.id, text))
    return out


def repeated_captions(doc: DocumentIR) -> list[RepeatedCaption]:
    """Every caption text (numbers stripped, case folded) that more than one block of ``doc`` carries."""
    seen: dict[str, list[str]] = {}
    for bid, text in captions_of(doc):
        seen.setdefault(caption_text(text), []).append(bid)
    return [RepeatedCaption(text=t, block_ids=tuple(ids)) for t, ids in seen.items() if len(ids) > 1]


__all__ = ["REPEAT_SHARE", "RepeatedCaption", "RepeatedTables", "body_rows", "caption_text", "captions_of",
           "repeated_captions", "repeated_rows", "repeated_tables", "row_keys", "tables_of"]
