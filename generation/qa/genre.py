"""Questions from the genre blocks: the arithmetic a clerk of the trade does with them.

- ``worked``: a number of a genre block that follows from others of it, asked as the working a reader does
  (an invoice line's amount from its quantity and unit price, the tax at the stated rate, a risk's rating
  from its likelihood and impact, a variance from budget and forecast, gross profit from revenue and cost of
  sales). The answer is recomputed from the operands (``ir.answers.derive``), and a fact is asked only where
  that working gives exactly the printed value.
- ``statement_ratio``: a ratio across two statements of a financial report (return on equity from the income
  statement and the balance sheet, cash conversion from the cash-flow and income statements; a margin where
  revenue and profit stand in two exhibits), a question that needs two exhibits.
"""

from __future__ import annotations

from dataclasses import dataclass

from synthdocqa.ir.answers import dec_str, derive, numeric, surface_forms
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import AssertionDerivation, NumberAnswer
from synthdocqa.ir.rng import Rng

from .claims import Claim, Draft
from .context import QAContext, lc
from .naming import describe, field_name
from .phrasing import pick

WORKED_OPS = ("product", "percent_of", "difference")

WORKED = {
    "product": ("What is the {d}, taking the {a} times the {b}?", "Multiplying the {a} by the {b}, what is the {d}?",
                "What does the {d} come to, {a} times {b}?"),
    "percent_of": ("Applying the {b} to the {a}, what is the {d}?", "At the stated {b}, what is the {d}?",
                   "What is the {d}, working it out from the {a} and the {b}?"),
    "difference": ("What is the {d}, that is the {a} less the {b}?", "Taking the {b} from the {a}, what is the {d}?",
                   "Working from the {a} and the {b}, what is the {d}?"),
}


def _operand_name(f: Fact, other: Fact) -> str:
    """An operand as the question names it: its field ("unit price") where both operands describe one row,
    else its own description."""
    if f.attribute and other.attribute and f.attribute != other.attribute and f.group == other.group:
        return field_name(f.attribute)
    return lc(describe(f))


def worked_facts(ctx: QAContext) -> list[Fact]:
    """Drawn facts of genre blocks whose derivation a reader can redo exactly from drawn operands."""
    out = []
    for f in ctx.doc.facts:
        d = f.derivation
        if d is None or d.op not in WORKED_OPS or len(d.operands) != 2 or not ctx.drawn(f.id):
            continue
        if not ctx.block_of(f.id).genre_block:
            continue
        ops = [ctx.facts.get(o) for o in d.operands]
        if any(o is None or not ctx.drawn(o.id) or numeric(o.value) is None for o in ops):
            continue
        got = numeric(f.value)
        if got is None or derive(d.op, [numeric(o.value) for o in ops]) != dec_str(got):
            continue
        out.append(f)
    return out


def worked(ctx: QAContext, f: Fact, rng: Rng) -> Draft | None:
    ops = [ctx.facts[o] for o in f.derivation.operands]
    a, b = _operand_name(ops[0], ops[1]), _operand_name(ops[1], ops[0])
    if a == b:
        return None
    res = derive(f.derivation.op, [numeric(o.value) for o in ops])
    answer = NumberAnswer(value=res, unit=getattr(f.value, "unit", "") if f.value.kind == "number" else
                          "%" if f.value.kind == "percent" else "",
                          currency=getattr(f.value, "currency", "") if f.value.kind == "money" else "")
    der = AssertionDerivation(op=f.derivation.op, operands=[ctx.operand(o) for o in ops], result=res)
    q = pick(rng, WORKED[f.derivation.op], d=lc(describe(f)), a=a, b=b)
    block = ctx.block_of(f.id)
    return Draft("table_aggregate", ELEMENT_OF_BLOCK[block.type], q, answer, f.text, [
        Claim(f"The {lc(describe(f))} is {surface_forms(answer)[0]} ({ops[0].text} and {ops[1].text}).", answer,
              [f.id], der)])


@dataclass(frozen=True)
class Ratio:
    name: str
    part: tuple[str, ...]
    """attributes the part may have (the first the document has is taken)"""
    whole: tuple[str, ...]


STATEMENT_RATIOS = (
    Ratio("operating margin", ("operating_profit",), ("revenue",)),
    Ratio("net margin", ("profit_for_the_period", "profit_for_the_year", "net_profit"), ("revenue",)),
    Ratio("return on equity", ("profit_for_the_period", "profit_for_the_year", "net_profit"), ("total_equity",)),
    Ratio("cash conversion", ("net_cash_from_operating_activities", "operating_cash_flow"),
          ("operating_profit",)),
)
"""Ratios across a financial report's statements: the part and the whole by the attributes the statement
builders give their facts (``generation.content.genre.statements``)."""

RATIO = ("What is the {name} for {period}: {part} as a percentage of {whole}?",
         "Expressing {part} as a share of {whole}, what is the {name} for {period}?",
         "What {name} do the statements give for {period} ({part} over {whole})?")


def statement_pairs(ctx: QAContext) -> list[tuple[Ratio, Fact, Fact]]:
    """``(ratio, part, whole)`` of the same period, drawn in two different genre blocks, the whole not zero."""
    by: dict[tuple[str, str], Fact] = {}
    for f in ctx.doc.facts:
        if f.attribute and f.period and f.value.kind == "money" and ctx.drawn(f.id) and \
                ctx.block_of(f.id).genre_block:
            by.setdefault((f.attribute, f.period), f)
    periods = sorted({p for _, p in by})
    out = []
    for r in STATEMENT_RATIOS:
        for p in periods:
            part = next((by[(a, p)] for a in r.part if (a, p) in by), None)
            whole = next((by[(a, p)] for a in r.whole if (a, p) in by), None)
            if part is None or whole is None or numeric(whole.value) == 0:
                continue
            out.append((r, part, whole))
    return out


def statement_ratio(ctx: QAContext, src: tuple[Ratio, Fact, Fact], rng: Rng) -> Draft | None:
    r, part, whole = src
    res = derive("share", [numeric(part.value), numeric(whole.value)])
    answer = NumberAnswer(value=res, unit="%")
    der = AssertionDerivation(op="share", operands=[ctx.operand(part), ctx.operand(whole)], result=res)
    q = pick(rng, RATIO, name=r.name, period=part.period, part=lc(describe(part)), whole=lc(describe(whole)))
    if ctx.block_of(part.id).id == ctx.block_of(whole.id).id:  # one statement: not a question of two
        return None
    # a multi-hop answer is its last assertion's value: the ratio's claim
    return Draft("multi_hop", "table", q, answer, None, [
        ctx.claim_fact(part),
        Claim(f"The {r.name} for {part.period} is {surface_forms(answer)[0]}.", answer, [part.id, whole.id], der)])


__all__ = ["statement_pairs", "statement_ratio", "worked", "worked_facts"]
