"""The shared reading of one document that every QA generator works from.

Built once per document: the fact and entity indexes, the blocks by id, the document's text (to keep
"absent" rows and fields really absent) and the evidence of drawn facts. A fact without evidence was
not drawn and is never asked about.
"""

from __future__ import annotations

import re

from ..answers import answer_for_value, numeric
from ..blocks import Block, Span, TableBlock, block_spans, fact_spans
from ..document import DocumentIR
from ..facts import Fact
from ..qa_models import Evidence, Operand
from .claims import Claim

PERIOD = re.compile(r"(19|20)\d{2}\b|\bQ[1-4]\b|\bH[12]\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)",
                    re.IGNORECASE)
"""A column header that names a period (a year, quarter, half or month): percent changes run between two."""


def lc(label: str) -> str:
    """A label inside a sentence: first letter lowered unless the label starts with an acronym."""
    return label[:1].lower() + label[1:] if label[:2] != label[:2].upper() else label


def caption_of(block) -> str:
    """How a question names a table (or a block with a title)."""
    cap = (getattr(block, "caption", "") or getattr(block, "title", "")).strip().rstrip(".")
    return f"table '{cap}'" if cap else "table"


class QAContext:
    """One document's facts, blocks and evidence, with the lookups the generators share."""

    def __init__(self, doc: DocumentIR, evidence: dict[str, list[Evidence]]) -> None:
        self.doc = doc
        self.ev = evidence
        self.facts = doc.fact_index()
        self.entities = {e.id: e for e in doc.entities}
        self.blocks = {b.id: (p, b) for p, b in doc.blocks()}
        self.all_text = " ".join(s.text for _, b in doc.blocks() for s in block_spans(b)).lower()

    def drawn(self, fid: str) -> bool:
        return fid in self.ev

    def drawn_fact_ids(self, block: Block) -> list[str]:
        """Drawn facts of a block's fact-bearing spans (checkboxes included), in drawing order."""
        return [f for s in fact_spans(block) for f in s.fact_ids if self.drawn(f)]

    def block_of(self, fid: str) -> Block:
        """The block where a drawn fact first appears."""
        return self.blocks[self.ev[fid][0].block_id][1]

    def numeric_fact(self, span: Span) -> Fact | None:
        for fid in span.fact_ids:
            f = self.facts.get(fid)
            if f is not None and numeric(f.value) is not None and self.drawn(fid):
                return f
        return None

    def numeric_columns(self, t: TableBlock) -> list[int]:
        """Columns (after the label column) with at least two drawn numeric body cells."""
        body = t.rows[:-1] if t.total_row else t.rows
        return [j for j in range(1, len(t.columns)) if sum(1 for row in body if self.numeric_fact(row[j])) >= 2]

    def cells(self, t: TableBlock, j: int) -> list[tuple[str, Fact]]:
        """``(row label, fact)`` of the drawn numeric body cells of column ``j``."""
        body = t.rows[:-1] if t.total_row else t.rows
        out = []
        for row in body:
            f = self.numeric_fact(row[j])
            if f is not None:
                out.append((row[0].text.strip(), f))
        return out

    def period_pairs(self, t: TableBlock) -> list[tuple[int, int]]:
        """Consecutive numeric columns whose headers name periods."""
        cols = [j for j in self.numeric_columns(t) if PERIOD.search(t.columns[j])]
        return [(a, b) for a, b in zip(cols, cols[1:], strict=False)]

    def operand(self, f: Fact) -> Operand:
        return Operand(fact_id=f.id, value=f.value, evidence=self.ev[f.id])

    def claim_fact(self, f: Fact, text: str | None = None) -> Claim:
        """The claim that a fact holds its value (worded by default from its label)."""
        return Claim(text or f"The {lc(f.label)} is {f.text}.", answer_for_value(f.value), [f.id])
