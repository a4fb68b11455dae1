"""The shared reading of one document that every QA generator works from.

Built once per document: the fact and entity indexes, the blocks by id, the document's text (to keep
"absent" rows and fields really absent), the evidence of drawn facts and the numeric points of every table
and chart. A fact without evidence was not drawn and is never asked about.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from synthdocqa.ir.answers import answer_for_value, numeric, unit_of
from synthdocqa.ir.blocks import (
    Block,
    FigureBlock,
    FormBlock,
    ListBlock,
    Span,
    TableBlock,
    block_spans,
    fact_spans,
)
from synthdocqa.ir.document import DocumentIR
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import Evidence, Operand
from synthdocqa.ir.rng import Rng

from ..catalogue import Entry, load
from ..content.front_matter import is_contents
from .claims import Claim
from .naming import (
    UNIT,
    block_ref,
    content_ref,
    describe,
    field_name,
    form_name,
    measure_of,
    strip_location,
)
from .own_start import RowRef, row_index

PERIOD = re.compile(r"(19|20)\d{2}\b|\bQ[1-4]\b|\bH[12]\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)",
                    re.IGNORECASE)
"""A column header that names a period (a year, quarter, half or month): percent changes run between two."""


def _identity(f: Fact) -> str:
    return " ".join(strip_location(f.label).lower().split())


def lc(label: str) -> str:
    """A label inside a sentence: first letter lowered unless the label starts with an acronym."""
    return label[:1].lower() + label[1:] if label[:2] != label[:2].upper() else label


@dataclass(frozen=True)
class Point:
    """One drawn number of a table column or chart series: ``item`` is what it is about (a row label or a
    chart category/series), ``measure`` what is measured ("bids received in Q3 2026")."""

    block: TableBlock | FigureBlock
    item: str
    measure: str
    fact: Fact
    column: int = -1
    """table column (-1 for a chart)"""
    series: int = -1
    """chart series (-1 for a table)"""

    @property
    def period(self) -> str:
        return self.fact.period

    @property
    def stem(self) -> str:
        """The measure without its period ("bids received in Q3 2026" -> "bids received")."""
        p = self.fact.period
        if not p:
            return self.measure
        return " ".join(self.measure.replace(f" in {p}", "").replace(f"({p})", "").replace(p, "").split())

    @property
    def key(self) -> tuple[str, int, int]:
        """The column or series the point belongs to (points of one key are compared with each other)."""
        return self.block.id, self.column, self.series


@dataclass(frozen=True)
class Record:
    """One row of a table, item of a list or filled form: its drawn facts by field name ("owner",
    "due date"), and its head (the fact that names the row, e.g. the action) when it has one."""

    block: Block
    noun: str
    """what a row is ("action", "lot", "entry")"""
    label: str
    head: Fact | None
    fields: dict[str, Fact]


KEY_COLUMNS = ("reference", "ref", "ref.", "claim no.", "action no.", "risk id", "control id", "finding no.")
"""Headers of the column that identifies a row (a register's entries by reference, not by their dates)."""


def _key_column(t: TableBlock) -> int:
    """The column that names a table's rows: a reference column where the table has one, else the first."""
    return next((j for j, c in enumerate(t.columns) if UNIT.sub("", c).strip().lower() in KEY_COLUMNS), 0)


ROW_NOUNS = {"description": "line item", "date": "entry", "reference": "entry", "ref": "entry", "ref.": "entry",
             "item": "item"}


ID_SUFFIX = re.compile(r"\s+(?:id|no\.?|number|ref\.?|code)$")
"""A key column names the row's thing and its identifier ("Risk ID"): the row is "the risk", not "the risk id"."""


def row_noun(header: str) -> str:
    h = UNIT.sub("", header).strip().lower()
    h = ROW_NOUNS.get(h, h)
    return ID_SUFFIX.sub("", h) or "row"


UNRANKED_BLOCKS = frozenset({"income_statement", "balance_sheet", "cash_flow", "reserve_movement"})
"""Genre blocks whose rows are different quantities (a statement's lines), never items of one kind."""


class StandingText(Entry):
    """Which facts are standing text (``catalogue/questions.yaml``: ``standing``)."""

    attributes: frozenset[str]
    labels: tuple[str, ...]


class QuestionsCatalogue(Entry):
    standing: StandingText
    totals: str


@cache
def _total_label() -> re.Pattern[str]:
    return re.compile(load("questions.yaml", QuestionsCatalogue).totals, re.IGNORECASE)


def is_total_row(label: str) -> bool:
    """Whether a table row's label names a total of other rows ("Total direct costs"): no item of its table."""
    return bool(_total_label().match(label.strip()))


@cache
def _standing_label() -> re.Pattern[str]:
    return re.compile("|".join(load("questions.yaml", QuestionsCatalogue).standing.labels), re.IGNORECASE)


def is_standing(f: Fact) -> bool:
    """Whether a fact is standing text of its genre (a review window, the period a report covers, a currency
    note): no question is asked about it (``catalogue/questions.yaml``)."""
    if f.attribute and f.attribute in load("questions.yaml", QuestionsCatalogue).standing.attributes:
        return True
    return bool(_standing_label().search(f.label))


class QAContext:
    """One document's facts, blocks and evidence, with the lookups the generators share. A fact of standing
    text (``is_standing``) counts as not drawn: no question is asked about it."""

    def __init__(self, doc: DocumentIR, evidence: dict[str, list[Evidence]]) -> None:
        self.doc = doc
        self.facts = doc.fact_index()
        self.ev = {fid: ev for fid, ev in evidence.items() if fid not in self.facts or not is_standing(self.facts[fid])}
        self.entities = {e.id: e for e in doc.entities}
        self.blocks = {b.id: (p, b) for p, b in doc.blocks()}
        self.all_text = " ".join(s.text for _, b in doc.blocks() for s in block_spans(b)).lower()
        self._apart: dict[tuple, tuple[list, list]] = {}  # prefer_apart's split of each candidate list
        self.located = True
        """Whether questions drawn now name where their block is ("Table 11", "page 4") or identify it by its
        content ("the table 'Remediation plan'"); ``derive_qa`` sets it per question (the locator policy)."""

    def drawn(self, fid: str) -> bool:
        return fid in self.ev

    def drawn_fact_ids(self, block: Block) -> list[str]:
        """Drawn facts of a block's fact-bearing spans (checkboxes included), in drawing order; none for a
        table of contents (a finding aid: only the structure questions read it)."""
        if is_contents(block):
            return []
        return [f for s in fact_spans(block) for f in s.fact_ids if self.drawn(f)]

    def block_of(self, fid: str) -> Block:
        """The block where a drawn fact first appears."""
        return self.blocks[self.ev[fid][0].block_id][1]

    def pages_of(self, fid: str) -> set[int]:
        return {e.page_no for e in self.ev.get(fid, [])}

    @cached_property
    def block_pages(self) -> dict[str, int]:
        """The rendered page where each block with a drawn fact starts."""
        out: dict[str, int] = {}
        for evs in self.ev.values():
            for e in evs:
                out[e.block_id] = min(out.get(e.block_id, e.page_no), e.page_no)
        return out

    def page_of(self, block: Block) -> int:
        return self.block_pages.get(block.id) or self.blocks[block.id][0]

    @cached_property
    def _refs(self) -> dict[str, str]:
        refs = {bid: block_ref(b, self.page_of(b)) for bid, (_, b) in self.blocks.items()}
        seen: dict[str, int] = {}
        for r in refs.values():
            seen[r] = seen.get(r, 0) + 1
        return {bid: (r if seen[r] == 1 or "page " in r else f"{r} on page {self.page_of(self.blocks[bid][1])}")
                for bid, r in refs.items()}

    def ref(self, block: Block) -> str:
        """How questions name a block: by its locator ("Table 11", "the stamp on page 3") while ``located``, else
        by its content ("the table 'Remediation plan'", "the list 'Next steps'") where that names one block of
        the document (else by its locator after all); unique in the document either way."""
        if not self.located:
            named = self._content_refs.get(block.id)
            if named is not None:
                return named
        return self._refs[block.id]

    def place(self, block: Block, facts: list[Fact] | None = None, measures: list[Point] | None = None) -> str:
        """Where a question says its values are read: ``""`` (no place: the question names them by what they
        are) when the question is not ``located`` and what it asks is unambiguous in the whole document: each
        of ``facts`` has no rival (``rivals``), and each measure of ``measures`` (the column or series a
        question ranks, filters or adds up) is measured in this block alone (``sole_measure``); else
        ``ref(block)``."""
        if self.located or (facts is None and measures is None):
            return self.ref(block)
        if facts and self.rivals([f.id for f in facts]):
            return self.ref(block)
        if measures and not all(self.sole_measure(p) for p in measures):
            return self.ref(block)
        return ""

    @cached_property
    def _content_refs(self) -> dict[str, str]:
        """Content names of the blocks whose name no other block of the document shares."""
        out: dict[str, str] = {}
        for short in (True, False):  # the short title where it is unique, else the whole title
            names = {bid: content_ref(b, short) for bid, (_, b) in self.blocks.items()}
            count: dict[str, int] = {}
            for n in names.values():
                if n:
                    count[n.lower()] = count.get(n.lower(), 0) + 1
            for bid, n in names.items():
                if n and count[n.lower()] == 1:
                    out.setdefault(bid, n)
        return out

    @cached_property
    def _identities(self) -> dict[str, list[Fact]]:
        """Drawn facts by what a question says of them without a locator (their label without where it is
        drawn), to find the other candidates an unlocated question could mean."""
        out: dict[str, list[Fact]] = {}
        for fid in self.ev:
            f = self.facts.get(fid)
            if f is not None:
                out.setdefault(_identity(f), []).append(f)
        return out

    def rivals(self, fact_ids: list[str]) -> list[tuple[Fact, Fact]]:
        """``(fact, rival)`` pairs: another drawn fact of the document that a question naming ``fact`` without
        its locator could equally mean (same label once the location is taken out) but that holds another value.
        An unlocated question with a rival is ambiguous in the document and is not asked."""
        out = []
        for fid in fact_ids:
            f = self.facts.get(fid)
            if f is None:
                continue
            for other in self._identities.get(_identity(f), []):
                if other.id != f.id and other.text != f.text:
                    out.append((f, other))
        return out

    def numeric_fact(self, span: Span) -> Fact | None:
        for fid in span.fact_ids:
            f = self.facts.get(fid)
            if f is not None and numeric(f.value) is not None and self.drawn(fid):
                return f
        return None

    def drawn_fact(self, span: Span) -> Fact | None:
        fid = next((f for f in span.fact_ids if self.drawn(f)), None)
        return self.facts[fid] if fid else None

    def numeric_columns(self, t: TableBlock) -> list[int]:
        """Columns (after the label column) with at least two drawn numeric body cells."""
        body = t.rows[:-1] if t.total_row else t.rows
        return [j for j in range(1, len(t.columns)) if sum(1 for row in body if self.numeric_fact(row[j])) >= 2]

    def cells(self, t: TableBlock, j: int) -> list[tuple[str, Fact]]:
        """``(row label, fact)`` of the drawn numeric body cells of column ``j``, subtotals of other cells of
        the column left out (a budget's "Total direct costs" is not one of its lines); none for a statement,
        whose lines are no items of one kind."""
        if t.genre_block in UNRANKED_BLOCKS:
            return []
        body = t.rows[:-1] if t.total_row else t.rows
        out = []
        for row in body:
            f = self.numeric_fact(row[j])
            if f is not None:
                out.append((row[0].text.strip(), f))
        ids = {f.id for _, f in out}
        return [(lab, f) for lab, f in out if f.derivation is None or not ids & set(f.derivation.operands)]

    def period_pairs(self, t: TableBlock) -> list[tuple[int, int]]:
        """Consecutive numeric columns whose headers name periods."""
        cols = [j for j in self.numeric_columns(t) if PERIOD.search(t.columns[j])]
        return [(a, b) for a, b in zip(cols, cols[1:], strict=False)]

    # ------------------------------------------------------------ points of tables and charts
    @cached_property
    def _measure_blocks(self) -> dict[str, set[str]]:
        """The blocks whose points measure each measure ("water supplied in Q3 2023")."""
        out: dict[str, set[str]] = {}
        for bid, pts in self._points.items():
            for p in pts:
                out.setdefault(p.measure.lower(), set()).add(bid)
        return out

    def sole_measure(self, p: Point) -> bool:
        """Whether ``p``'s measure is measured in its block alone in the whole document: "the zone with the
        highest water supplied in Q3 2023" then needs no table named to be unambiguous."""
        return self._measure_blocks.get(p.measure.lower(), set()) == {p.block.id}

    def points(self, b: Block) -> list[Point]:
        """The drawn numeric points of a table's body (rows named by a literal label) or of a chart."""
        return self._points.get(b.id, [])

    @cached_property
    def _points(self) -> dict[str, list[Point]]:
        out: dict[str, list[Point]] = {}
        for _, b in self.doc.blocks():
            if is_contents(b):
                continue
            pts: list[Point] = []
            if isinstance(b, TableBlock):
                body = b.rows[:-1] if b.total_row else b.rows
                for row in body:
                    if row[0].fact_ids:  # rows keyed by a drawn value (registers by date) have no item name
                        continue
                    item = row[0].text.strip()
                    if is_total_row(item):  # "Total direct costs" is no budget line
                        continue
                    if item.isdigit():  # a row named only by its number ("1", "2") is no item to ask about
                        continue
                    for j in range(1, len(b.columns)):
                        f = self.numeric_fact(row[j])
                        if f is not None and item:
                            pts.append(Point(b, item, measure_of(f, item, b.columns[j]), f, column=j))
            elif isinstance(b, FigureBlock):
                for k, s in enumerate(b.series):
                    for i, p in enumerate(s.points):
                        f = self.numeric_fact(p) if i < len(b.categories) else None
                        if f is None:
                            continue
                        cat = b.categories[i]
                        item = s.name if (f.period and cat == f.period) or f" of {s.name}" in f.label else cat
                        pts.append(Point(b, item, measure_of(f, item, s.name), f, series=k))
            if pts:
                out[b.id] = pts
        return out

    @cached_property
    def _item_blocks(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for bid, pts in self._points.items():
            for item in dict.fromkeys(p.item for p in pts):
                out.setdefault(item, []).append(bid)
        return out

    def item_blocks(self, items: set[str]) -> list[Block]:
        """Tables and charts (document order) with a drawn point for every one of ``items``."""
        ids = [set(self._item_blocks.get(i, ())) for i in items]
        common = set.intersection(*ids) if ids else set()
        return [b for bid, (_, b) in self.blocks.items() if bid in common]

    def whole(self, pts: list[Point]) -> bool:
        """Whether a table column's points are every item of the column: no other row (one keyed by a drawn
        value, say) holds a drawn number in it, totals aside. A set filtered from a column that is not whole
        would be answered with part of itself."""
        b = pts[0].block
        if not isinstance(b, TableBlock):
            return True
        j = pts[0].column
        body = b.rows[:-1] if b.total_row else b.rows
        ids = {f.id for row in body if (f := self.numeric_fact(row[j])) is not None
               and not is_total_row(row[0].text)}
        ids = {i for i in ids if (d := self.facts[i].derivation) is None or not ids & set(d.operands)}
        return ids <= {p.fact.id for p in pts}

    def point_groups(self, b: Block, least: int = 2) -> list[list[Point]]:
        """The points of each column or series of a block with one measure, one unit and distinct items: the
        items a question may rank, compare, add up or filter. A subtotal or total of other points of its
        column is not one of them (a budget's "Total" is not its highest line), and the lines of a financial
        statement are no items of one kind (revenue is not ranked against cost of sales)."""
        if getattr(b, "genre_block", "") in UNRANKED_BLOCKS:
            return []
        groups: dict[tuple, list[Point]] = {}
        for p in self.points(b):
            groups.setdefault(p.key, []).append(p)
        out = []
        for pts in groups.values():
            ids = {p.fact.id for p in pts}
            pts = [p for p in pts if p.fact.derivation is None or not ids & set(p.fact.derivation.operands)]
            if len(pts) < least or len({p.item for p in pts}) != len(pts) or len({p.measure for p in pts}) != 1:
                continue
            if len({unit_of(p.fact.value) for p in pts}) != 1:
                continue
            out.append(pts)
        return out

    # ------------------------------------------------------------ records
    @cached_property
    def rows(self) -> dict[str, RowRef]:
        """The row (table row, list item, form) of every fact drawn in one: what a multi-hop answer must
        not share with its anchor (``own_start``)."""
        return row_index(self.doc)

    def records(self, b: Block) -> list[Record]:
        return self._records.get(b.id, [])

    @cached_property
    def _records(self) -> dict[str, list[Record]]:
        out: dict[str, list[Record]] = {}
        for _, b in self.doc.blocks():
            if is_contents(b):
                continue
            recs: list[Record] = []
            if isinstance(b, TableBlock):
                key = _key_column(b)  # a register's entry is named by its reference, not by its date
                noun = row_noun(b.columns[key]) if key else row_noun(b.columns[0])
                for row in (b.rows[:-1] if b.total_row else b.rows):
                    head = self.drawn_fact(row[key])
                    fields = {field_name(b.columns[j]): f for j in range(len(b.columns))
                              if j != key and (f := self.drawn_fact(row[j])) is not None}
                    if fields and row[key].text.strip():
                        recs.append(Record(b, noun, row[key].text.strip(), head, fields))
            elif isinstance(b, ListBlock):
                for item in b.items:
                    facts = [self.facts[f] for s in item for f in s.fact_ids if self.drawn(f)]
                    if not facts:
                        continue
                    head = facts[0]
                    fields = {field_name(f.attribute or "value"): f for f in facts[1:]}
                    recs.append(Record(b, row_noun(field_name(head.attribute or "item")), head.text, head, fields))
            elif isinstance(b, FormBlock):
                fields = {field_name(fl.label): f for fl in b.fields if (f := self.drawn_fact(fl.value)) is not None}
                if fields:
                    recs.append(Record(b, "form", form_name(b), None, fields))
            if recs:
                out[b.id] = recs
        return out

    def prefer_apart(self, items: list, blocks: Callable[[Any], tuple[Block, Block]], rng: Rng) -> Any:
        """One of ``items`` (each joining two blocks), mostly one whose two blocks start on different pages:
        a question that needs two pages is what a join is for."""
        key = (id(items), blocks.__code__)  # one call site splits one list one way
        held = self._apart.get(key)
        if held is None or held[0] is not items:  # the list is kept with its split, so its id is not reused
            held = (items, [x for x in items if len({self.page_of(b) for b in blocks(x)}) == 2])
            self._apart[key] = held
        apart = held[1]
        return rng.choice(apart if apart and rng.bernoulli(0.85) else items)

    # ------------------------------------------------------------ claims
    def operand(self, f: Fact) -> Operand:
        return Operand(fact_id=f.id, value=f.value, evidence=self.ev[f.id])

    def claim_fact(self, f: Fact, text: str | None = None) -> Claim:
        """The claim that a fact holds its value (worded by default from its label)."""
        return Claim(text or f"The {lc(describe(f))} is {f.text}.", answer_for_value(f.value), [f.id])
