"""Answers computed from drawn values: a column aggregate, a difference, a percent change, days between
dates. Each carries its derivation (operation, operands with evidence, exact result)."""

from __future__ import annotations

from ..answers import derive, numeric, unit_of
from ..blocks import ELEMENT_OF_BLOCK, TableBlock
from ..facts import Fact
from ..qa_models import AssertionDerivation, NumberAnswer
from ..rng import Rng
from .claims import Claim, Draft
from .compare import pick_pair
from .context import QAContext, caption_of, lc

AGGREGATES = ("sum", "mean", "max", "min", "count")


def table_aggregate(ctx: QAContext, t: TableBlock, rng: Rng) -> Draft | None:
    j = rng.choice(ctx.numeric_columns(t))
    cells = ctx.cells(t, j)
    col, cap = t.columns[j], caption_of(t)
    unit, cur = unit_of(cells[0][1].value)
    if any(unit_of(f.value) != (unit, cur) for _, f in cells):
        return None
    op = rng.choice(list(AGGREGATES))
    res = derive(op, [numeric(f.value) for _, f in cells])
    q = {"sum": f"What is the sum of the {col} values listed in the {cap}?",
         "mean": f"What is the average {col} across the rows of the {cap} (rounded to two decimals)?",
         "max": f"What is the highest {col} listed in the {cap}?",
         "min": f"What is the lowest {col} listed in the {cap}?",
         "count": f"How many rows with a {col} value does the {cap} list (excluding totals)?"}[op]
    ans = NumberAnswer(value=res, unit="" if op == "count" else unit, currency="" if op == "count" else cur)
    claim = f"The {op} of {col} in the {cap} is {res}{' ' + cur if cur and op != 'count' else ''}."
    der = AssertionDerivation(op=op, operands=[ctx.operand(f) for _, f in cells], result=res)
    return Draft("table_aggregate", "table", q, ans, None, [Claim(claim, ans, [f.id for _, f in cells], der)])


def _two_operands(ctx: QAContext, op: str, fa: Fact, fb: Fact, res: str) -> AssertionDerivation:
    return AssertionDerivation(op=op, operands=[ctx.operand(fa), ctx.operand(fb)], result=res)


def difference(ctx: QAContext, t: TableBlock, rng: Rng) -> Draft | None:
    pr = pick_pair(ctx, t, rng)
    if pr is None:
        return None
    la, fa, lb, fb, what, where = pr
    if numeric(fa.value) < numeric(fb.value):
        la, fa, lb, fb = lb, fb, la, fa
    res = derive("difference", [numeric(fa.value), numeric(fb.value)])
    unit, cur = unit_of(fa.value)
    ans = NumberAnswer(value=res, unit=unit, currency=cur)
    q = f"In the {where}, how much higher is the {what} of {la} than that of {lb}?"
    return Draft("difference", "table", q, ans, None, [
        ctx.claim_fact(fa, f"The {what} of {la} is {fa.text}."),
        ctx.claim_fact(fb, f"The {what} of {lb} is {fb.text}."),
        Claim(f"The {what} of {la} exceeds that of {lb} by {res}{' ' + cur if cur else ''}.", ans, [fa.id, fb.id],
              _two_operands(ctx, "difference", fa, fb, res))])


def percent_change(ctx: QAContext, t: TableBlock, rng: Rng) -> Draft | None:
    a, b = rng.choice(ctx.period_pairs(t))
    rows = [(row[0].text.strip(), ctx.numeric_fact(row[a]), ctx.numeric_fact(row[b])) for row in
            (t.rows[:-1] if t.total_row else t.rows)]
    rows = [r for r in rows if r[1] and r[2] and numeric(r[1].value) != 0]
    if not rows:
        return None
    label, fa, fb = rng.choice(rows)
    res = derive("percent_change", [numeric(fa.value), numeric(fb.value)])
    ans = NumberAnswer(value=res, unit="%")
    q = (f"In the {caption_of(t)}, by what percentage did {label} change from {t.columns[a]} to "
         f"{t.columns[b]} (one decimal)?")
    return Draft("percent_change", "table", q, ans, None,
                 [Claim(f"{label} changed by {res}% from {t.columns[a]} to {t.columns[b]}.", ans, [fa.id, fb.id],
                        _two_operands(ctx, "percent_change", fa, fb, res))])


def date_arithmetic(ctx: QAContext, dates: list[Fact], rng: Rng) -> Draft | None:
    """Days between two of the document's drawn dates (``dates``: its source, all of them)."""
    fa, fb = rng.sample(dates, 2)
    if fa.value.value == fb.value.value:
        return None
    if fa.value.value > fb.value.value:
        fa, fb = fb, fa
    res = derive("days_between", [fa.value.value, fb.value.value])
    ans = NumberAnswer(value=res, unit="days")
    q = f"How many days are there between the {lc(fa.label)} and the {lc(fb.label)}?"
    el = ELEMENT_OF_BLOCK[ctx.block_of(fa.id).type]
    return Draft("date_arithmetic", el, q, ans, None,
                 [Claim(f"{res} days separate the {lc(fa.label)} and the {lc(fb.label)}.", ans, [fa.id, fb.id],
                        _two_operands(ctx, "days_between", fa, fb, res))])
