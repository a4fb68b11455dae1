"""Answers computed from drawn values: a column aggregate (also over the items that pass a condition), a
difference, a range, a change between two periods, a percent change, days between dates. Each carries its
derivation (operation, operands with evidence, exact result), and only where it means something for the
values' semantic type (``semantic``): no sum of rates, differences of percentages in percentage points,
percent changes only of amounts and counts."""

from __future__ import annotations

import re

from synthdocqa.ir.answers import derive, numeric, surface_forms, unit_of
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block, FigureBlock, TableBlock
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import AssertionDerivation, ListAnswer, NumberAnswer
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import DateValue

from ..content.wording import plural
from .claims import Claim, Draft
from .compare import draw_condition, noun_of, pick_pair
from .context import Point, QAContext, lc
from .fact_arithmetic import facts_allow, quantity_of, unit_of_difference
from .naming import column_measure, describe, measure_of
from .phrasing import pick

AGGREGATES = ("sum", "mean", "max", "min")
"""The aggregates asked of a column ("count" is kept for its wording but not asked: "How many lots report
number of bids received?" counts the rows of a table, which no reader asks)."""
AGGREGATE = {
    "sum": ("What is the total {m} across all {nouns} in {where}?",
            "Adding up every {noun} in {where}, what is the total {m}?",
            "What do the {m} values in {where} sum to, leaving out any total row?",
            "In {where}, what is the combined {m} of the {nouns} listed?",
            "Summing the {nouns} of {where}, what {m} do you get?"),
    "mean": ("What is the average {m} per {noun} in {where}, to two decimals?",
             "In {where}, what is the mean {m} across the {nouns}, rounded to two decimals?",
             "Averaged over the {nouns} in {where}, what is the {m} (two decimals)?",
             "What is the mean of the {m} values in {where}, to two decimal places?",
             "Across the {nouns} of {where}, what is the average {m}, rounded to 0.01?"),
    "max": ("What is the highest {m} in {where}?", "In {where}, what is the largest {m} reported?",
            "What is the maximum {m} among the {nouns} in {where}?", "Reading {where}, what is the highest {m}?",
            "What is the highest {m} of any {noun} in {where}?"),
    "min": ("What is the lowest {m} in {where}?", "In {where}, what is the smallest {m} reported?",
            "What is the minimum {m} among the {nouns} in {where}?", "Reading {where}, what is the lowest {m}?",
            "What is the lowest {m} of any {noun} in {where}?"),
    "count": ("How many {nouns} in {where} report {m}?", "In {where}, how many {nouns} have a value for {m}?",
              "Count the {nouns} with {m} in {where}: how many are there?",
              "For how many {nouns} does {where} give {m}?", "In {where}, for how many {nouns} is the {m} stated?"),
}
OP_WORDS = {"sum": "total", "mean": "average", "max": "highest", "min": "lowest", "count": "number of"}


def number_answer(res: str, f: Fact, op: str) -> NumberAnswer:
    """The typed result of ``op`` over values like ``f`` (a count has no unit; a difference of rates is in
    percentage points)."""
    unit, cur = unit_of(f.value)
    if op == "count":
        return NumberAnswer(value=res)
    if op == "difference":
        unit = unit_of_difference(f, unit)
    return NumberAnswer(value=res, unit=unit, currency=cur)


def derivation(ctx: QAContext, op: str, facts: list[Fact]) -> tuple[str, AssertionDerivation]:
    res = derive(op, [numeric(f.value) for f in facts])
    return res, AssertionDerivation(op=op, operands=[ctx.operand(f) for f in facts], result=res)


def column(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> tuple[list[tuple[str, Fact]], str, bool] | None:
    """The drawn numbers of one table column (registers included) or chart series: (item, fact) pairs, the
    measure, and whether the items are things (not periods: sums across periods are not asked)."""
    if isinstance(b, TableBlock):
        cols = ctx.numeric_columns(b)
        if not cols:
            return None
        j = rng.choice(cols)
        cells = ctx.cells(b, j)
        if len(cells) < 2:
            return None
        measure = measure_of(cells[0][1], cells[0][0], b.columns[j])
        if any(measure_of(f, lab, b.columns[j]) != measure for lab, f in cells):
            measure = column_measure(cells[0][1], b.columns[j])
        return cells, measure, True
    groups = ctx.point_groups(b)
    if not groups:
        return None
    g = rng.choice(groups)
    over_periods = all(p.fact.period and p.item == g[0].item for p in g)
    return [(p.item, p.fact) for p in g], g[0].measure if not over_periods else g[0].stem, not over_periods


def table_aggregate(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    col = column(ctx, b, rng)
    if col is None:
        return None
    cells, m, across_items = col
    facts = [f for _, f in cells]
    if len(facts) < 2 or len({unit_of(f.value) for f in facts}) != 1:
        return None
    ops = [op for op in AGGREGATES if facts_allow(op, facts) and (op != "sum" or across_items)]
    if not ops:
        return None
    op = rng.choice(ops)
    res, der = derivation(ctx, op, facts)
    ans = number_answer(res, facts[0], op)
    noun = noun_of(b)
    ids = {f.id for f in facts}
    pts = [p for p in ctx.points(b) if p.fact.id in ids]
    named = len(pts) == len(facts) and all(p.measure == m for p in pts)
    where = ctx.place(b, measures=pts) if named else ctx.ref(b)
    q = pick(rng, AGGREGATE[op], m=m, noun=noun, nouns=plural(noun), where=where)
    claim = f"The {OP_WORDS[op]} {m} in {ctx.ref(b)} is {surface_forms(ans)[0]}."
    return Draft("table_aggregate", ELEMENT_OF_BLOCK[b.type], q, ans, None, [Claim(claim, ans, [], der)])


COND_AGGREGATE = {
    "sum": ("What is the total {m} in {where} of the {nouns} whose {mc} is above {thr} in {wc}?",
            "Adding up only the {nouns} with {mc} above {thr} ({wc}), what {m} do they have in {where}?",
            "In {where}, what is the combined {m} of the {nouns} with {mc} over {thr} according to {wc}?",
            "Considering only {nouns} whose {mc} exceeds {thr} in {wc}, what is their total {m} in {where}?",
            "What {m} do the {nouns} with {mc} greater than {thr} ({wc}) sum to in {where}?"),
    "mean": ("What is the average {m} in {where} of the {nouns} whose {mc} is above {thr} in {wc}, to two decimals?",
             "Averaged over the {nouns} with {mc} above {thr} ({wc}), what is the {m} in {where} (two decimals)?",
             "In {where}, what is the mean {m} of the {nouns} with {mc} over {thr} according to {wc}, "
             "rounded to two decimals?",
             "Considering only {nouns} whose {mc} exceeds {thr} in {wc}, what is their average {m} in {where} "
             "(two decimals)?",
             "What is the mean {m} in {where}, to 0.01, of the {nouns} with {mc} greater than {thr} in {wc}?"),
}


def conditional_aggregate(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """A sum or mean over the items whose other measure passes a threshold."""
    c = draw_condition(ctx, b, rng)
    if c is None:
        return None
    facts = [p.fact for p in c.keep]
    ops = [op for op in ("sum", "mean") if facts_allow(op, facts)]
    if len(c.keep) < 2 or not ops or any(p.period != c.target[0].period for p in c.target):
        return None
    op = rng.choice(ops)
    res, der = derivation(ctx, op, facts)
    ans = number_answer(res, facts[0], op)
    where, m = ctx.ref(b), c.target[0].measure
    q = pick(rng, COND_AGGREGATE[op], m=m, nouns=plural(c.noun), mc=c.cond[0].measure, thr=c.threshold,
             wc=ctx.place(c.cond[0].block, measures=c.cond), where=ctx.place(b, measures=c.target))
    return Draft("table_aggregate", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The {OP_WORDS[op]} {m} of those {plural(c.noun)} in {where} is {surface_forms(ans)[0]}.", ans, [], der),
        c.claim()])


DIFFERENCE = ("In {where}, how much higher is the {m} of {a} than that of {b}?",
              "By how much does the {m} of {a} exceed that of {b} in {where}?",
              "What is the difference in {m} between {a} and {b} according to {where}?",
              "How far apart are {a} and {b} on {m} in {where}?",
              "{Where}: how much more {m} does {a} show than {b}?")
DIFFERENCE_RATE = ("In {where}, by how many percentage points is the {m} of {a} higher than that of {b}?",
                   "How many percentage points separate the {m} of {a} from that of {b} in {where}?",
                   "By how many points does the {m} of {a} exceed that of {b} in {where}?",
                   "What is the gap in {m} between {a} and {b} in {where}, in percentage points?",
                   "{Where}: how much higher, in percentage points, is the {m} of {a} than of {b}?")


def difference(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    pr = pick_pair(ctx, b, rng)
    if pr is None:
        return None
    pa, pb = pr
    if not facts_allow("difference", [pa.fact, pb.fact]):
        return None
    if numeric(pa.fact.value) < numeric(pb.fact.value):
        pa, pb = pb, pa
    res, der = derivation(ctx, "difference", [pa.fact, pb.fact])
    ans = number_answer(res, pa.fact, "difference")
    rate = quantity_of(pa.fact) == "rate" and ans.unit == "percentage points"
    q = pick(rng, DIFFERENCE_RATE if rate else DIFFERENCE, where=ctx.place(b, [pa.fact, pb.fact]), m=pa.measure,
             a=pa.item, b=pb.item)
    return Draft("difference", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The {pa.measure} of {pa.item} ({pa.fact.text}) exceeds that of {pb.item} ({pb.fact.text}) by "
              f"{surface_forms(ans)[0]}.", ans, [pa.fact.id, pb.fact.id], der)])


RANGE = ("What is the difference between the highest and the lowest {m} in {where}?",
         "In {where}, how wide is the range of {m} from the lowest to the highest {noun}?",
         "By how much does the top {noun} exceed the bottom one on {m} in {where}?",
         "What is the spread between the largest and smallest {m} in {where}?",
         "{Where}: how far is the highest {m} above the lowest?")


def value_range(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """Highest minus lowest value of a column or series."""
    groups = [g for g in ctx.point_groups(b, least=3) if facts_allow("difference", [p.fact for p in g])]
    if not groups:
        return None
    g = rng.choice(groups)
    vals = [numeric(p.fact.value) for p in g]
    hi, lo = g[vals.index(max(vals))], g[vals.index(min(vals))]
    if hi is lo or vals.count(max(vals)) > 1 or vals.count(min(vals)) > 1:
        return None
    res, der = derivation(ctx, "difference", [hi.fact, lo.fact])
    ans = number_answer(res, hi.fact, "difference")
    m = g[0].measure if len({p.item for p in g}) == len(g) else g[0].stem
    q = pick(rng, RANGE, m=m, where=ctx.place(b, measures=g) if m == g[0].measure else ctx.ref(b), noun=noun_of(b))
    return Draft("difference", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The highest {m} in {ctx.ref(b)} ({hi.fact.text}, {hi.item}) exceeds the lowest ({lo.fact.text}, "
              f"{lo.item}) by {surface_forms(ans)[0]}.", ans, [hi.fact.id, lo.fact.id], der),
        Claim(f"Of the values of {m} in {ctx.ref(b)}, {hi.item} has the highest and {lo.item} the lowest.",
              ListAnswer(value=[hi.item, lo.item]), [p.fact.id for p in g])])


# ------------------------------------------------------------------ changes between two periods

PERIOD_KEY = re.compile(r"^(?:(Q[1-4]|H[12]|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) )?(?:FY ?)?(\d{4})$")
SUB = {**{f"Q{i}": (i - 1) * 3 + 1 for i in range(1, 5)}, "H1": 1, "H2": 7,
       **{m: i + 1 for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split())}}


def period_key(period: str) -> tuple[str, int, int] | None:
    """(granularity, year, first month) of "Q3 2026", "H1 2025", "Mar 2026", "2025", "FY2024"; None else."""
    m = PERIOD_KEY.match(period.strip())
    if not m:
        return None
    sub = m.group(1) or ""
    return sub[:1] if sub[:1] in ("Q", "H") else ("M" if sub else "Y"), int(m.group(2)), SUB.get(sub, 1)


def period_pairs(ctx: QAContext, b: Block) -> list[tuple[Point, Point]]:
    """(earlier, later) points of one item and one measure in two periods of the same granularity."""
    by: dict[tuple[str, str], list[Point]] = {}
    for p in ctx.points(b):
        if period_key(p.period):
            by.setdefault((p.item, p.stem), []).append(p)
    out = []
    for pts in by.values():
        pts = sorted(pts, key=lambda p: period_key(p.period)[1:])
        for a, c in zip(pts, pts[1:], strict=False):
            ka, kc = period_key(a.period), period_key(c.period)
            if ka[0] == kc[0] and ka != kc and unit_of(a.fact.value) == unit_of(c.fact.value):
                out.append((a, c))
    return out


PERCENT_CHANGE = ("By what percentage did the {m} of {item} change from {p1} to {p2} in {where} (one decimal)?",
                  "In {where}, what is the percent change in {m} for {item} between {p1} and {p2}, to one decimal?",
                  "According to {where}, how much did the {m} of {item} grow or shrink from {p1} to {p2}, "
                  "in percent to one decimal?",
                  "What is the relative change of the {m} of {item} from {p1} to {p2} in {where}, in percent "
                  "(one decimal)?",
                  "From {p1} to {p2}, by how many percent did the {m} of {item} move in {where} (one decimal)?")
PERIOD_CHANGE = ("By how much did the {m} of {item} change from {p1} to {p2} in {where}?",
                 "In {where}, what is the change in {m} for {item} between {p1} and {p2}?",
                 "How much did the {m} of {item} rise or fall from {p1} to {p2}, according to {where}?",
                 "What is the {p2} {m} of {item} minus its {p1} value in {where}?",
                 "From {p1} to {p2}, by how much did the {m} of {item} move in {where}?")
PERIOD_CHANGE_RATE = ("By how many percentage points did the {m} of {item} change from {p1} to {p2} in {where}?",
                      "In {where}, what is the change in {m} for {item} between {p1} and {p2}, in percentage points?",
                      "How many points did the {m} of {item} gain or lose from {p1} to {p2}, according to {where}?",
                      "What is the {p2} {m} of {item} minus its {p1} value in {where}, in percentage points?",
                      "From {p1} to {p2}, by how many percentage points did the {m} of {item} move in {where}?")


def percent_change(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """Percent change of one item between two periods: amounts and counts only (never of a rate)."""
    pairs = [(a, c) for a, c in period_pairs(ctx, b) if facts_allow("percent_change", [a.fact, c.fact])
             and numeric(a.fact.value) != 0]
    if not pairs:
        return None
    a, c = rng.choice(pairs)
    res, der = derivation(ctx, "percent_change", [a.fact, c.fact])
    ans = NumberAnswer(value=res, unit="%")
    q = pick(rng, PERCENT_CHANGE, m=a.stem, item=a.item, p1=a.period, p2=c.period, where=ctx.place(b, [a.fact, c.fact]))
    return Draft("percent_change", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The {a.stem} of {a.item} changed by {res}% from {a.period} ({a.fact.text}) to {c.period} "
              f"({c.fact.text}).", ans, [a.fact.id, c.fact.id], der)])


def period_change(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """Signed change of one item between two periods (percentage points for rates)."""
    pairs = [(a, c) for a, c in period_pairs(ctx, b) if facts_allow("difference", [a.fact, c.fact])]
    if not pairs:
        return None
    a, c = rng.choice(pairs)
    res, der = derivation(ctx, "difference", [c.fact, a.fact])
    ans = number_answer(res, a.fact, "difference")
    rate = ans.unit == "percentage points"
    q = pick(rng, PERIOD_CHANGE_RATE if rate else PERIOD_CHANGE, m=a.stem, item=a.item, p1=a.period, p2=c.period,
             where=ctx.place(b, [a.fact, c.fact]))
    return Draft("difference", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The {a.stem} of {a.item} changed by {surface_forms(ans)[0]} from {a.period} ({a.fact.text}) to "
              f"{c.period} ({c.fact.text}).", ans, [c.fact.id, a.fact.id], der)])


# ------------------------------------------------------------------ dates

DAYS = ("How many days are there between the {a} and the {b}?", "How many days separate the {a} from the {b}?",
        "Counting in days, how long is it from the {a} to the {b}?",
        "What is the number of days between the {a} and the {b}?",
        "How many calendar days lie between the {a} and the {b}?")


def date_arithmetic(ctx: QAContext, dates: list[Fact], rng: Rng) -> Draft | None:
    """Days between two of the document's drawn dates (``dates``: its source, all of them): half the time
    two dates of one block (a form's submission and decision, two postings of a register), else two dates
    the document states outside tables (an issue date and a stamp), on different pages where possible."""
    by_block: dict[str, list[Fact]] = {}
    for f in dates:
        by_block.setdefault(ctx.ev[f.id][0].block_id, []).append(f)
    same = [fs for fs in by_block.values() if len({f.value.value for f in fs}) >= 2]
    stated = [f for f in dates if not isinstance(ctx.block_of(f.id), TableBlock)]
    if same and (len(stated) < 2 or rng.bernoulli(0.5)):
        fa, fb = rng.sample(rng.choice(same), 2)
    elif len(stated) >= 2:  # two dates the document states once (issue date, a stamp, a deadline)
        fa = rng.choice(stated)
        apart = [f for f in stated if not (ctx.pages_of(f.id) & ctx.pages_of(fa.id))]
        fb = rng.choice(apart or [f for f in stated if f is not fa])
    else:
        return None
    return days_between(ctx, fa, fb, rng)


def block_dates(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """Days between two dates stated in one block (a review window's opening and closing)."""
    dates = [ctx.facts[f] for f in ctx.drawn_fact_ids(b) if isinstance(ctx.facts[f].value, DateValue)]
    if len({f.value.value for f in dates}) < 2:
        return None
    fa, fb = rng.sample(dates, 2)
    return days_between(ctx, fa, fb, rng)


def days_between(ctx: QAContext, fa: Fact, fb: Fact, rng: Rng) -> Draft | None:
    if fa.value.value == fb.value.value or describe(fa) == describe(fb):
        return None
    if fa.value.value > fb.value.value:
        fa, fb = fb, fa
    res = derive("days_between", [fa.value.value, fb.value.value])
    ans = NumberAnswer(value=res, unit="days")
    da, db = lc(describe(fa)), lc(describe(fb))
    q = pick(rng, DAYS, a=da, b=db)
    el = ELEMENT_OF_BLOCK[ctx.block_of(fa.id).type]
    der = AssertionDerivation(op="days_between", operands=[ctx.operand(fa), ctx.operand(fb)], result=res)
    return Draft("date_arithmetic", el, q, ans, None,
                 [Claim(f"The {da} and the {db} are {surface_forms(ans)[0]} apart.", ans, [fa.id, fb.id], der)])
