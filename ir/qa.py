"""QA pairs and atomic assertions derived from the facts that filled the page.

Nothing is annotated after the fact: every question is built from IR facts, every answer is the fact's
typed value (or an exact derivation over facts), and every assertion carries the evidence boxes the
renderer recorded for those facts. A fact that was not drawn has no evidence and is never asked about.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from .answers import answer_for_value, dec_str, derive, numeric, operand_value, surface_forms, unit_of
from .blocks import (
    ELEMENT_OF_BLOCK,
    AnnotationBlock,
    FigureBlock,
    FormBlock,
    ListBlock,
    TableBlock,
    block_spans,
    fact_spans,
)
from .document import DocumentIR
from .facts import Fact
from .qa_models import (
    Assertion,
    AssertionDerivation,
    BooleanAnswer,
    Evidence,
    ListAnswer,
    NotAnswerable,
    NumberAnswer,
    Operand,
    QAPair,
    StringAnswer,
    TypedAnswer,
)
from .rendermap import RenderMap
from .rng import Rng
from .values import DateValue, MoneyValue, NumberValue, OrganisationValue, PercentValue, PersonValue

ScanMapper = Callable[[int, tuple[float, float, float, float]], tuple[tuple, tuple]]
"""(page_no, bbox on the clean page image in px) -> (quad, axis-aligned box) on the scan image."""

QA_TYPE_WEIGHTS: dict[str, float] = {
    "lookup": 0.29, "table_aggregate": 0.09, "comparison": 0.05, "difference": 0.06, "percent_change": 0.04,
    "chart_reading": 0.12, "annotation_reading": 0.07, "date_arithmetic": 0.03, "multi_hop": 0.05,
    "boolean": 0.09, "list": 0.05, "unanswerable": 0.06,
}
DIFFICULTY = {
    "lookup": "easy", "chart_reading": "easy", "annotation_reading": "easy", "boolean": "easy",
    "table_aggregate": "medium", "comparison": "medium", "difference": "medium", "percent_change": "medium",
    "date_arithmetic": "medium", "list": "hard", "multi_hop": "hard", "unanswerable": "medium",
}
_PERIOD = re.compile(r"(19|20)\d{2}\b|\bQ[1-4]\b|\bH[12]\b|\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)",
                     re.IGNORECASE)
ABSENT_FIELDS = ("Fax number", "Secondary contact", "Tax exemption code", "Cost centre override",
                 "Witness name", "Escalation reference", "Insurance rider code", "Backup approver")
ABSENT_ROWS = ("Contingency reserve", "Other regions", "Discontinued lines", "Pilot programme",
               "Intercompany eliminations", "Legacy systems", "Special projects", "Unallocated items")


def build_evidence(render_map: RenderMap, dpi: int | None = None,
                   scan_mapper: ScanMapper | None = None) -> dict[str, list[Evidence]]:
    """Evidence records per fact id, from the RenderMap (+ page-image and scan boxes when given)."""
    out: dict[str, list[Evidence]] = {}
    for s in render_map.spans:
        px = tuple(round(v * dpi / 72.0, 2) for v in s.bbox) if dpi else None
        quad = sbox = None
        if scan_mapper is not None and px is not None:
            quad, sbox = scan_mapper(s.page_no, px)
        for fid in s.fact_ids:
            out.setdefault(fid, []).append(Evidence(
                fact_id=fid, block_id=s.block_id, page_no=s.page_no, bbox_pdf=s.bbox, text=s.text,
                bbox_page_px=px, scan_quad=quad, scan_bbox=sbox))
    return out


def _lc(label: str) -> str:
    return label[:1].lower() + label[1:] if label[:2] != label[:2].upper() else label


@dataclass
class _Draft:
    qa_type: str
    element: str
    question: str
    answer: TypedAnswer
    drawn: str | None
    claims: list[tuple[str, TypedAnswer, list[str], AssertionDerivation | None]]


class _Deriver:
    def __init__(self, doc: DocumentIR, evidence: dict[str, list[Evidence]], rng: Rng) -> None:
        self.doc = doc
        self.ev = evidence
        self.rng = rng
        self.facts = doc.fact_index()
        self.entities = {e.id: e for e in doc.entities}
        self.blocks = {b.id: (p, b) for p, b in doc.blocks()}
        self.all_text = " ".join(s.text for _, b in doc.blocks() for s in block_spans(b)).lower()
        self.by_type: dict[str, list] = {t: [] for t in QA_TYPE_WEIGHTS}
        for _, b in doc.blocks():
            fids = [f for s in fact_spans(b) for f in s.fact_ids if f in self.ev]
            if fids:
                self.by_type["lookup"].append(b)
                self.by_type["boolean"].append(b)
            if isinstance(b, TableBlock) and self._numeric_columns(b):
                for t in ("table_aggregate", "comparison", "difference", "list", "unanswerable"):
                    self.by_type[t].append(b)
                if self._period_pairs(b):
                    self.by_type["percent_change"].append(b)
            if isinstance(b, FigureBlock) and any(f in self.ev for s in b.series for p in s.points
                                                  for f in p.fact_ids):
                self.by_type["chart_reading"].append(b)
                self.by_type["comparison"].append(b)
            if isinstance(b, AnnotationBlock) and fids:
                self.by_type["annotation_reading"].append(b)
            if isinstance(b, FormBlock) and fids:
                self.by_type["unanswerable"].append(b)
            if isinstance(b, ListBlock) and sum(1 for it in b.items if any(f in self.ev for s in it
                                                                          for f in s.fact_ids)) >= 2:
                self.by_type["list"].append(b)
        dates = [f for f in doc.facts if isinstance(f.value, DateValue) and f.id in self.ev]
        if len({f.value.value for f in dates}) >= 2:
            self.by_type["date_arithmetic"].append(None)
        self.multi_hop = self._multi_hop_pairs()
        if self.multi_hop:
            self.by_type["multi_hop"].append(None)

    # ------------------------------------------------------------ helpers
    def drawn(self, fid: str) -> bool:
        return fid in self.ev

    def _numeric_fact(self, span) -> Fact | None:
        for fid in span.fact_ids:
            f = self.facts.get(fid)
            if f is not None and numeric(f.value) is not None and self.drawn(fid):
                return f
        return None

    def _numeric_columns(self, t: TableBlock) -> list[int]:
        body = t.rows[:-1] if t.total_row else t.rows
        cols = []
        for j in range(1, len(t.columns)):
            if sum(1 for row in body if self._numeric_fact(row[j])) >= 2:
                cols.append(j)
        return cols

    def _cells(self, t: TableBlock, j: int) -> list[tuple[str, Fact]]:
        body = t.rows[:-1] if t.total_row else t.rows
        out = []
        for row in body:
            f = self._numeric_fact(row[j])
            if f is not None:
                out.append((row[0].text.strip(), f))
        return out

    def _period_pairs(self, t: TableBlock) -> list[tuple[int, int]]:
        cols = [j for j in self._numeric_columns(t) if _PERIOD.search(t.columns[j])]
        return [(a, b) for a, b in zip(cols, cols[1:], strict=False)]

    def _cap(self, t) -> str:
        cap = (getattr(t, "caption", "") or getattr(t, "title", "")).strip().rstrip(".")
        return f"table '{cap}'" if cap else "table"

    def _operand(self, f: Fact) -> Operand:
        return Operand(fact_id=f.id, value=f.value, evidence=self.ev[f.id])

    def _claim_fact(self, f: Fact, claim: str | None = None):
        return (claim or f"The {_lc(f.label)} is {f.text}.", answer_for_value(f.value), [f.id], None)

    def _multi_hop_pairs(self) -> list[tuple[Fact, Fact]]:
        pairs = []
        by_subject: dict[str, list[Fact]] = {}
        for f in self.doc.facts:
            if f.subject and self.drawn(f.id) and not isinstance(f.value, PersonValue | OrganisationValue):
                by_subject.setdefault(f.subject, []).append(f)
        names = [f for f in self.doc.facts if isinstance(f.value, PersonValue | OrganisationValue)
                 and f.value.entity_id and self.drawn(f.id)]
        for nf in names:
            p1 = {e.page_no for e in self.ev[nf.id]}
            for f in by_subject.get(nf.value.entity_id, []):
                if f.id != nf.id and not ({e.page_no for e in self.ev[f.id]} & p1):
                    pairs.append((nf, f))
        return pairs

    # ------------------------------------------------------------ generators
    def gen(self, qa_type: str, source, rng: Rng) -> _Draft | None:
        return getattr(self, f"_q_{qa_type}")(source, rng)

    def _q_lookup(self, b, rng: Rng) -> _Draft | None:
        el = ELEMENT_OF_BLOCK[b.type]
        if isinstance(b, TableBlock):
            cols = self._numeric_columns(b) or list(range(1, len(b.columns)))
            j = rng.choice(cols)
            cells = [(row[0].text.strip(), row[j]) for row in b.rows if any(self.drawn(f) for f in row[j].fact_ids)]
            if not cells:
                return None
            row_label, span = rng.choice(cells)
            f = self.facts[next(fid for fid in span.fact_ids if self.drawn(fid))]
            q = rng.choice([f"In the {self._cap(b)}, what is the {b.columns[j]} for {row_label}?",
                            f"What {b.columns[j]} does the {self._cap(b)} report for {row_label}?",
                            f"According to the {self._cap(b)}, what is the {b.columns[j]} of {row_label}?"])
        elif isinstance(b, FormBlock):
            fields = [fl for fl in b.fields if any(self.drawn(f) for f in fl.value.fact_ids)]
            if not fields:
                return self._q_boolean(b, rng)
            fl = rng.choice(fields)
            f = self.facts[next(fid for fid in fl.value.fact_ids if self.drawn(fid))]
            form = f"form '{b.title}'" if b.title else "form"
            q = rng.choice([f"What is entered in the '{fl.label}' field of the {form}?",
                            f"On the {form}, what is the {fl.label}?"])
        elif isinstance(b, FigureBlock):
            return self._q_chart_reading(b, rng)
        elif isinstance(b, AnnotationBlock):
            return self._q_annotation_reading(b, rng)
        else:
            fids = [fid for s in block_spans(b) for fid in s.fact_ids if self.drawn(fid)]
            f = self.facts[rng.choice(fids)]
            q = rng.choice([f"What is the {_lc(f.label)}?", f"According to the document, what is the {_lc(f.label)}?",
                            f"What {_lc(f.label)} does the document state?"])
        return _Draft("lookup", el, q, answer_for_value(f.value), f.text, [self._claim_fact(f)])

    def _q_chart_reading(self, b: FigureBlock, rng: Rng) -> _Draft | None:
        pts = [(s.name, b.categories[i], p) for s in b.series for i, p in enumerate(s.points)
               if i < len(b.categories) and any(self.drawn(f) for f in p.fact_ids)]
        if not pts:
            return None
        series, cat, p = rng.choice(pts)
        f = self.facts[next(fid for fid in p.fact_ids if self.drawn(fid))]
        title = f"chart '{b.title}'" if b.title else f"{b.chart} chart"
        what = f"{series} for {cat}" if len(b.series) > 1 else cat
        q = rng.choice([f"In the {title}, what value is shown for {what}?",
                        f"What does the {title} report for {what}?"])
        return _Draft("chart_reading", "figure", q, answer_for_value(f.value), f.text, [self._claim_fact(f)])

    def _q_annotation_reading(self, b: AnnotationBlock, rng: Rng) -> _Draft | None:
        fids = [fid for s in b.spans for fid in s.fact_ids if self.drawn(fid)]
        if not fids:
            return None
        f = self.facts[rng.choice(fids)]
        page = self.ev[f.id][0].page_no
        kind = {"stamp": "stamp", "handwritten_note": "handwritten note", "signature": "signature",
                "highlight": "highlighted passage"}[b.kind]
        if isinstance(f.value, DateValue):
            q = f"What date is written on the {kind} on page {page}?"
        elif isinstance(f.value, PersonValue):
            q = rng.choice([f"Whose name is on the {kind} on page {page}?", f"Who signed on page {page}?"]
                           if b.kind == "signature" else [f"Which person is named in the {kind} on page {page}?"])
        elif b.kind == "stamp":
            q = f"What does the {kind} on page {page} say about the {_lc(f.label)}?"
        else:
            q = f"According to the {kind} on page {page}, what is the {_lc(f.label)}?"
        return _Draft("annotation_reading", "annotation", q, answer_for_value(f.value), f.text,
                      [self._claim_fact(f)])

    def _agg(self, op: str, cells: list[tuple[str, Fact]], res: str) -> AssertionDerivation:
        return AssertionDerivation(op=op, operands=[self._operand(f) for _, f in cells], result=res)

    def _q_table_aggregate(self, t: TableBlock, rng: Rng) -> _Draft | None:
        j = rng.choice(self._numeric_columns(t))
        cells = self._cells(t, j)
        col, cap = t.columns[j], self._cap(t)
        unit, cur = unit_of(cells[0][1].value)
        if any(unit_of(f.value) != (unit, cur) for _, f in cells):
            return None
        op = rng.choice(["sum", "mean", "max", "min", "count"])
        vals = [numeric(f.value) for _, f in cells]
        res = derive(op, vals)
        q = {"sum": f"What is the sum of the {col} values listed in the {cap}?",
             "mean": f"What is the average {col} across the rows of the {cap} (rounded to two decimals)?",
             "max": f"What is the highest {col} listed in the {cap}?",
             "min": f"What is the lowest {col} listed in the {cap}?",
             "count": f"How many rows with a {col} value does the {cap} list (excluding totals)?"}[op]
        ans = NumberAnswer(value=res, unit="" if op == "count" else unit, currency="" if op == "count" else cur)
        claim = f"The {op} of {col} in the {cap} is {res}{' ' + cur if cur and op != 'count' else ''}."
        return _Draft("table_aggregate", "table", q, ans, None, [(claim, ans, [f.id for _, f in cells],
                                                                  self._agg(op, cells, res))])

    def _pair(self, b, rng: Rng):
        if isinstance(b, TableBlock):
            j = rng.choice(self._numeric_columns(b))
            cells, what, where = self._cells(b, j), b.columns[j], self._cap(b)
        else:
            s = rng.choice(b.series)
            cells = [(b.categories[i], self.facts[fid]) for i, p in enumerate(s.points) if i < len(b.categories)
                     for fid in p.fact_ids[:1] if self.drawn(fid) and numeric(self.facts[fid].value) is not None]
            what = s.name
            where = f"chart '{b.title}'" if b.title else "chart"
        if len(cells) < 2:
            return None
        (la, fa), (lb, fb) = rng.sample(cells, 2)
        if numeric(fa.value) == numeric(fb.value) or la == lb or unit_of(fa.value) != unit_of(fb.value):
            return None
        return la, fa, lb, fb, what, where

    def _q_comparison(self, b, rng: Rng) -> _Draft | None:
        pr = self._pair(b, rng)
        if pr is None:
            return None
        la, fa, lb, fb, what, where = pr
        hi, lo = ("higher", "lower") if rng.bernoulli(0.5) else ("lower", "higher")
        a_wins = (numeric(fa.value) > numeric(fb.value)) == (hi == "higher")
        q = (f"In the {where}, which has the {hi} {what}: {la} or {lb}?" if isinstance(b, TableBlock) else
             f"In the {where}, which is {hi} for {what}: {la} or {lb}?")
        ans = StringAnswer(value=la if a_wins else lb)
        el = "table" if isinstance(b, TableBlock) else "figure"
        return _Draft("comparison", el, q, ans, None, [
            self._claim_fact(fa, f"The {what} of {la} is {fa.text}."),
            self._claim_fact(fb, f"The {what} of {lb} is {fb.text}.")])

    def _q_difference(self, t: TableBlock, rng: Rng) -> _Draft | None:
        pr = self._pair(t, rng)
        if pr is None:
            return None
        la, fa, lb, fb, what, where = pr
        if numeric(fa.value) < numeric(fb.value):
            la, fa, lb, fb = lb, fb, la, fa
        res = derive("difference", [numeric(fa.value), numeric(fb.value)])
        unit, cur = unit_of(fa.value)
        ans = NumberAnswer(value=res, unit=unit, currency=cur)
        q = f"In the {where}, how much higher is the {what} of {la} than that of {lb}?"
        der = AssertionDerivation(op="difference", operands=[self._operand(fa), self._operand(fb)], result=res)
        return _Draft("difference", "table", q, ans, None, [
            self._claim_fact(fa, f"The {what} of {la} is {fa.text}."),
            self._claim_fact(fb, f"The {what} of {lb} is {fb.text}."),
            (f"The {what} of {la} exceeds that of {lb} by {res}{' ' + cur if cur else ''}.", ans, [fa.id, fb.id],
             der)])

    def _q_percent_change(self, t: TableBlock, rng: Rng) -> _Draft | None:
        a, b = rng.choice(self._period_pairs(t))
        rows = [(row[0].text.strip(), self._numeric_fact(row[a]), self._numeric_fact(row[b])) for row in
                (t.rows[:-1] if t.total_row else t.rows)]
        rows = [r for r in rows if r[1] and r[2] and numeric(r[1].value) != 0]
        if not rows:
            return None
        label, fa, fb = rng.choice(rows)
        res = derive("percent_change", [numeric(fa.value), numeric(fb.value)])
        ans = NumberAnswer(value=res, unit="%")
        q = (f"In the {self._cap(t)}, by what percentage did {label} change from {t.columns[a]} to "
             f"{t.columns[b]} (one decimal)?")
        der = AssertionDerivation(op="percent_change", operands=[self._operand(fa), self._operand(fb)], result=res)
        return _Draft("percent_change", "table", q, ans, None,
                      [(f"{label} changed by {res}% from {t.columns[a]} to {t.columns[b]}.", ans, [fa.id, fb.id],
                        der)])

    def _q_date_arithmetic(self, _src, rng: Rng) -> _Draft | None:
        dates = [f for f in self.doc.facts if isinstance(f.value, DateValue) and self.drawn(f.id)]
        fa, fb = rng.sample(dates, 2)
        if fa.value.value == fb.value.value:
            return None
        if fa.value.value > fb.value.value:
            fa, fb = fb, fa
        res = derive("days_between", [fa.value.value, fb.value.value])
        ans = NumberAnswer(value=res, unit="days")
        q = f"How many days are there between the {_lc(fa.label)} and the {_lc(fb.label)}?"
        der = AssertionDerivation(op="days_between", operands=[self._operand(fa), self._operand(fb)], result=res)
        el = ELEMENT_OF_BLOCK[self.blocks[self.ev[fa.id][0].block_id][1].type]
        return _Draft("date_arithmetic", el, q, ans, None,
                      [(f"{res} days separate the {_lc(fa.label)} and the {_lc(fb.label)}.", ans, [fa.id, fb.id],
                        der)])

    def _q_multi_hop(self, _src, rng: Rng) -> _Draft | None:
        nf, f = rng.choice(self.multi_hop)
        ent = self.entities.get(nf.value.entity_id)
        role = (ent.role if ent and ent.role else nf.label).strip()
        p1 = self.ev[nf.id][0].page_no
        attr = f.attribute.replace("_", " ") if f.attribute else _lc(f.label)
        q = f"What is the {attr} of the {_lc(role)} named on page {p1}?"
        el = ELEMENT_OF_BLOCK[self.blocks[self.ev[f.id][0].block_id][1].type]
        return _Draft("multi_hop", el, q, answer_for_value(f.value), f.text, [
            self._claim_fact(nf, f"The {_lc(role)} named on page {p1} is {nf.text}."),
            self._claim_fact(f)])

    def _false_text(self, f: Fact, rng: Rng) -> str | None:
        v = f.value
        if isinstance(v, MoneyValue | NumberValue | PercentValue):
            n = numeric(v)
            factor = Decimal(rng.choice(["0.8", "0.9", "1.1", "1.25", "1.5"]))
            wrong = (n * factor).quantize(Decimal(1) if n == n.to_integral_value() else Decimal("0.01"))
            if wrong == n:
                return None
            forms = surface_forms(answer_for_value(v.model_copy(update={"amount": wrong, "scale": ""}) if
                                                   isinstance(v, MoneyValue) else
                                                   (v.model_copy(update={"value": wrong, "scale": ""}) if
                                                    isinstance(v, NumberValue) else
                                                    v.model_copy(update={"value": wrong}))))
            return forms[0]
        if isinstance(v, DateValue):
            d = v.value + dt.timedelta(days=rng.choice([-30, -7, 7, 14, 31]))
            return f"{d.day} {d:%B %Y}"
        if isinstance(v, PersonValue):
            others = [e.name for e in self.doc.entities if e.kind == "person" and e.name != v.name]
            return rng.choice(others) if others else None
        return None

    def _q_boolean(self, b, rng: Rng) -> _Draft | None:
        if isinstance(b, FormBlock) and b.checkboxes and rng.bernoulli(0.5):
            cbs = [cb for cb in b.checkboxes if any(self.drawn(f) for f in cb.fact_ids)]
            if cbs:
                cb = rng.choice(cbs)
                f = self.facts[next(fid for fid in cb.fact_ids if self.drawn(fid))]
                form = f"form '{b.title}'" if b.title else "form"
                q = rng.choice([f"Is the box '{cb.label}' checked on the {form}?",
                                f"On the {form}, is '{cb.label}' ticked?"])
                ans = BooleanAnswer(value=cb.checked)
                state = "checked" if cb.checked else "not checked"
                return _Draft("boolean", "form", q, ans, None,
                              [(f"The box '{cb.label}' on the {form} is {state}.", ans, [f.id], None)])
        fids = [fid for s in block_spans(b) for fid in s.fact_ids if self.drawn(fid)]
        if not fids:
            return None
        f = self.facts[rng.choice(fids)]
        truth = rng.bernoulli(0.5)
        stated = f.text if truth else self._false_text(f, rng)
        if stated is None:
            return None
        q = rng.choice([f"Is the {_lc(f.label)} {stated}?",
                        f"True or false: the document gives the {_lc(f.label)} as {stated}."])
        return _Draft("boolean", ELEMENT_OF_BLOCK[b.type], q, BooleanAnswer(value=truth), None,
                      [self._claim_fact(f)])

    def _q_list(self, b, rng: Rng) -> _Draft | None:
        if isinstance(b, ListBlock):
            items = [(s.text, self.facts[fid]) for it in b.items for s in it for fid in s.fact_ids[:1]
                     if self.drawn(fid)]
            if len(items) < 2:
                return None
            title = f"under '{b.title}'" if b.title else f"in the list on page {self.ev[items[0][1].id][0].page_no}"
            ans = ListAnswer(value=[f.text for _, f in items])
            return _Draft("list", "text", f"Which items are listed {title}?", ans, None,
                          [self._claim_fact(f, f"'{f.text}' is listed {title}.") for _, f in items])
        j = rng.choice(self._numeric_columns(b))
        cells = self._cells(b, j)
        vals = sorted({numeric(f.value) for _, f in cells})
        if len(vals) < 3 or len({lab for lab, _ in cells}) != len(cells):
            return None
        thr = vals[rng.integers(0, len(vals) - 2)]
        above = [(lab, f) for lab, f in cells if numeric(f.value) > thr]
        thr_text = next(f.text for _, f in cells if numeric(f.value) == thr)
        if not (2 <= len(above) <= 6):
            return None
        col = b.columns[j]
        ans = ListAnswer(value=[lab for lab, _ in above])
        q = f"In the {self._cap(b)}, which rows have a {col} greater than {thr_text}?"
        return _Draft("list", "table", q, ans, None,
                      [self._claim_fact(f, f"The {col} of {lab} is {f.text}, above {thr_text}.") for lab, f in above])

    def _q_unanswerable(self, b, rng: Rng) -> _Draft | None:
        if isinstance(b, FormBlock):
            pool = [x for x in ABSENT_FIELDS if x.lower() not in self.all_text]
            if not pool:
                return None
            field = rng.choice(pool)
            form = f"form '{b.title}'" if b.title else "form"
            q = f"What is entered in the '{field}' field of the {form}?"
            claim = f"The {form} has no '{field}' field."
            el = "form"
        else:
            j = rng.choice(self._numeric_columns(b))
            pool = [x for x in ABSENT_ROWS if x.lower() not in self.all_text]
            if not pool:
                return None
            row = rng.choice(pool)
            q = f"In the {self._cap(b)}, what is the {b.columns[j]} for {row}?"
            claim = f"The {self._cap(b)} does not list {row}."
            el = "table"
        return _Draft("unanswerable", el, q, NotAnswerable(), None, [(claim, NotAnswerable(), [], None)])


def derive_qa(doc: DocumentIR, render_map: RenderMap, evidence: dict[str, list[Evidence]] | None = None,
              qa_per_page: float = 3.8) -> tuple[list[QAPair], list[Assertion]]:
    """QA pairs for one document: about ``qa_per_page`` per rendered page, types mixed by weight."""
    evidence = evidence if evidence is not None else build_evidence(render_map)
    rng = Rng(doc.seed, doc.seed_path).fork("qa")
    d = _Deriver(doc, evidence, rng)
    n_pages = max(1, len(render_map.pages))
    target = max(1, round(qa_per_page * n_pages))
    types = [t for t in QA_TYPE_WEIGHTS if d.by_type[t]]
    if not types:
        return [], []
    weights = [QA_TYPE_WEIGHTS[t] for t in types]
    qas: list[QAPair] = []
    asrs: list[Assertion] = []
    seen: set[str] = set()
    attempt = 0
    while len(qas) < target and attempt < target * 8:
        r = rng.fork("q", attempt)
        attempt += 1
        qa_type = r.choice(types, p=weights)
        src = r.choice(d.by_type[qa_type])
        draft = d.gen(qa_type, src, r.fork("gen"))
        if draft is None or draft.question in seen:
            continue
        seen.add(draft.question)
        qa_id = f"{doc.doc_id}-q{len(qas):04d}"
        a_ids = []
        pages: set[int] = set()
        fids: list[str] = []
        for k, (claim, value, fact_ids, der) in enumerate(draft.claims):
            ev = [e for fid in fact_ids for e in evidence.get(fid, [])]
            if der is not None:
                ev = [e for op in der.operands for e in op.evidence]
            a = Assertion(id=f"{qa_id}-a{k}", qa_id=qa_id, doc_id=doc.doc_id, claim=claim, value=value,
                          fact_ids=fact_ids, evidence=ev, derivation=der)
            asrs.append(a)
            a_ids.append(a.id)
            pages |= {e.page_no for e in ev}
            fids += [f for f in fact_ids if f not in fids]
        qas.append(QAPair(
            id=qa_id, doc_id=doc.doc_id, question=draft.question, answer=draft.answer,
            answer_text=surface_forms(draft.answer, draft.drawn)[0],
            accepted_answers=surface_forms(draft.answer, draft.drawn), qa_type=draft.qa_type,
            element_type=draft.element if draft.qa_type != "unanswerable" or draft.element else "none",
            difficulty=DIFFICULTY[draft.qa_type], page_nos=sorted(pages), fact_ids=fids, assertion_ids=a_ids))
    return qas, asrs


def recompute_assertion(a: Assertion) -> list[str]:
    """Problems found when recomputing an assertion's derivation from its operands (empty: fine)."""
    if a.derivation is None:
        return []
    der = a.derivation
    try:
        got = derive(der.op, [operand_value(op.value) for op in der.operands])
    except (TypeError, ValueError, ArithmeticError) as err:
        return [f"{a.id}: derivation {der.op} cannot be recomputed: {err}"]
    problems = []
    if got != der.result:
        problems.append(f"{a.id}: derivation {der.op} gives {got}, recorded {der.result}")
    if a.value.kind == "number" and a.value.value != der.result:
        problems.append(f"{a.id}: value {a.value.value} differs from its derivation result {der.result}")
    return problems


__all__ = ["QA_TYPE_WEIGHTS", "build_evidence", "dec_str", "derive_qa", "recompute_assertion"]
