"""Values side by side: which of two is higher, which item leads a column or series (also among the items
that pass a condition), and yes/no checks of a stated value."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal

from synthdocqa.ir.answers import answer_for_value, derive, numeric, surface_forms, unit_of
from synthdocqa.ir.blocks import ELEMENT_OF_BLOCK, Block, FigureBlock, FormBlock, TableBlock
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.qa_models import AssertionDerivation, BooleanAnswer, ListAnswer, NumberAnswer, StringAnswer
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.values import DateValue, MoneyValue, NumberValue, PercentValue, PersonValue

from ..content.wording import plural
from .claims import Claim, Draft
from .context import Point, QAContext, lc
from .naming import describe
from .phrasing import pick

Pair = tuple[Point, Point]


def pick_pair(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Pair | None:
    """Two points of one table column or chart series with distinct items and values of one sign (an
    outflow is not compared with an inflow: which is "larger" has no one meaning)."""
    groups = ctx.point_groups(b)
    if not groups:
        return None
    pa, pb = rng.sample(rng.choice(groups), 2)
    va, vb = numeric(pa.fact.value), numeric(pb.fact.value)
    if va == vb or (va < 0) != (vb < 0):
        return None
    return pa, pb


def outflows(pa: Point, pb: Point) -> bool:
    """Two negative amounts of money: compared by size, as outflows ("which was the larger outflow")."""
    return numeric(pa.fact.value) < 0 and numeric(pb.fact.value) < 0 and isinstance(pa.fact.value, MoneyValue)


def noun_of(b: Block) -> str:
    """What the items of a table or chart are ("lot", "matter"); charts say "category"."""
    if isinstance(b, TableBlock):
        from .context import row_noun
        return row_noun(b.columns[0])
    return "category"


COMPARE = ("In {where}, which has the {hi} {m}: {a} or {b}?", "Which {noun} has the {hi} {m} in {where}, {a} or {b}?",
           "According to {where}, is the {m} {hi} for {a} or for {b}?",
           "Between {a} and {b}, which shows the {hi} {m} in {where}?",
           "{Where}: does {a} or {b} have the {hi} {m}?")


OUTFLOW = ("Which was the {hi} outflow{when}: {a} or {b}?", "Was {a} or {b} the {hi} outflow{when}?",
           "Of {a} and {b}, which was the {hi} outflow{when}?", "Between {a} and {b}, which was the {hi} outflow{when}?",
           "Which of {a} and {b} was the {hi} outflow{when}?")
"""Two negative amounts compared by size: "larger" of -5 and -9 is -9 as an outflow, never as an amount."""


def comparison(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    pr = pick_pair(ctx, b, rng)
    if pr is None:
        return None
    pa, pb = pr
    hi = "higher" if rng.bernoulli(0.5) else "lower"
    va, vb = numeric(pa.fact.value), numeric(pb.fact.value)
    if outflows(pa, pb):  # by size: the larger outflow is the more negative amount
        word = "larger" if hi == "higher" else "smaller"
        a_wins = (abs(va) > abs(vb)) == (word == "larger")
        when = f" in {pa.period}" if pa.period and pa.period == pb.period else ""
        q = pick(rng, OUTFLOW, hi=word, when=when, a=pa.item, b=pb.item)
        ans = StringAnswer(value=pa.item if a_wins else pb.item)
        win, lose = (pa, pb) if a_wins == (word == "larger") else (pb, pa)
        return Draft("comparison", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
            Claim(f"The outflow of {win.item} ({win.fact.text}) is larger than that of {lose.item} ({lose.fact.text}).",
                  ans, [pa.fact.id, pb.fact.id])])
    a_wins = (va > vb) == (hi == "higher")
    q = pick(rng, COMPARE, where=ctx.place(b, [pa.fact, pb.fact]), hi=hi, m=pa.measure, a=pa.item, b=pb.item,
             noun=noun_of(b))
    ans = StringAnswer(value=pa.item if a_wins else pb.item)
    return Draft("comparison", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
        Claim(f"The {pa.measure} of {pa.item} ({pa.fact.text}) is {'higher' if a_wins == (hi == 'higher') else 'lower'}"
              f" than that of {pb.item} ({pb.fact.text}).", ans, [pa.fact.id, pb.fact.id])])


SUPERLATIVE = ("Which {noun} has the {most} {m} in {where}?", "In {where}, which {noun} shows the {most} {m}?",
               "According to {where}, which {noun} ranks {rank} by {m}?",
               "Which {noun} does {where} show with the {most} {m}?",
               "{Where}: which {noun} has the {most} {m}?")


def extreme_claim(ctx: QAContext, pts: list[Point], op: str, where: str) -> tuple[Point, Claim] | None:
    """The point with the highest (``max``) or lowest (``min``) value, and the claim that says so, carrying
    the derivation over every point compared."""
    vals = [numeric(p.fact.value) for p in pts]
    best = max(vals) if op == "max" else min(vals)
    if vals.count(best) != 1:
        return None
    top = pts[vals.index(best)]
    res = derive(op, vals)
    unit, cur = unit_of(top.fact.value)
    word = "highest" if op == "max" else "lowest"
    claim = Claim(f"{top.item} has the {word} {top.measure} in {where} ({top.fact.text}).",
                  NumberAnswer(value=res, unit=unit, currency=cur), [top.fact.id],
                  AssertionDerivation(op=op, operands=[ctx.operand(p.fact) for p in pts], result=res))
    return top, claim


def superlative(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """Which item leads (or trails) a column or series."""
    groups = ctx.point_groups(b, least=3)
    if not groups:
        return None
    pts = rng.choice(groups)
    op = "max" if rng.bernoulli(0.6) else "min"
    found = extreme_claim(ctx, pts, op, ctx.ref(b))
    if found is None:
        return None
    top, claim = found
    q = pick(rng, SUPERLATIVE, noun=noun_of(b), most="highest" if op == "max" else "lowest", m=top.measure,
             where=ctx.place(b, measures=pts), rank="first" if op == "max" else "last")
    return Draft("comparison", ELEMENT_OF_BLOCK[b.type], q, StringAnswer(value=top.item), None, [claim])


CONDITIONAL = (
    "Among the {nouns} with {mc} above {thr} in {wc}, which has the {most} {m} in {where}?",
    "Which {noun} has the {most} {m} in {where} among those whose {mc} exceeds {thr} in {wc}?",
    "Considering only {nouns} with {mc} above {thr} ({wc}), which shows the {most} {m} ({where})?",
    "Of the {nouns} whose {mc} is greater than {thr} according to {wc}, which has the {most} {m} in {where}?",
    "Restrict {where} to the {nouns} with {mc} over {thr} in {wc}: which of them has the {most} {m}?",
)


def condition_groups(ctx: QAContext, b: Block) -> list[tuple[list[Point], list[Point]]]:
    """(target, condition) pairs of point groups over the same items: in the block itself, or a condition
    from another table or chart that reports the same items."""
    out = []
    for g in ctx.point_groups(b, least=3):
        items = {p.item for p in g}
        for other_b in [b] + [ob for ob in ctx.item_blocks(items) if ob is not b]:
            for c in ctx.point_groups(other_b, least=3):
                if c is not g and c[0].measure != g[0].measure and items <= {p.item for p in c} and ctx.whole(c):
                    out.append((g, c))
    return out


@dataclass(frozen=True)
class Condition:
    """A column or series of a block (``target``) restricted to the items whose value of another measure
    (``cond``, in the block itself or in another table or chart) is above a drawn threshold."""

    target: list[Point]
    cond: list[Point]
    threshold: str
    """the threshold as drawn (one of the condition's values)"""
    keep: list[Point]
    """the target points of the items that pass"""
    passing: list[Point]
    """the condition points of those items"""
    where: str
    """how questions name the block the condition is read in"""
    noun: str
    """what the items are ("lot", "category")"""

    def claim(self) -> Claim:
        """The claim naming every item that passes the condition (the whole set: the condition's column may
        hold items the target does not)."""
        passing = [p for p in self.cond if numeric(p.fact.value) > self.threshold_value]
        items = [p.item for p in passing]
        return Claim(f"The {plural(self.noun)} with {self.cond[0].measure} above {self.threshold} in {self.where} "
                     f"are {', '.join(items)}.", ListAnswer(value=items), [p.fact.id for p in passing])

    @property
    def threshold_value(self):
        return next(numeric(p.fact.value) for p in self.cond if p.fact.text == self.threshold)


def draw_condition(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Condition | None:
    """A target column or series of ``b`` and a threshold on another measure of its items: one of the
    condition's distinct values below its two highest, so that some items pass and some do not."""
    pairs = condition_groups(ctx, b)
    if not pairs:
        return None
    target, cond = ctx.prefer_apart(pairs, lambda x: (x[0][0].block, x[1][0].block), rng)
    cond_by_item = {p.item: p for p in cond}
    vals = sorted({numeric(cond_by_item[p.item].fact.value) for p in target})
    if len(vals) < 3:
        return None
    thr = vals[rng.integers(0, len(vals) - 2)]
    keep = [p for p in target if numeric(cond_by_item[p.item].fact.value) > thr]
    thr_text = next(p.fact.text for p in cond if numeric(p.fact.value) == thr)
    return Condition(target=target, cond=cond, threshold=thr_text, keep=keep,
                     passing=[cond_by_item[p.item] for p in keep], where=ctx.ref(cond[0].block), noun=noun_of(b))


def conditional_superlative(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    """Which item leads a column among the items whose other measure passes a threshold."""
    c = draw_condition(ctx, b, rng)
    if c is None:
        return None
    op = "max" if rng.bernoulli(0.6) else "min"
    found = extreme_claim(ctx, c.keep, op, ctx.ref(b)) if len(c.keep) >= 2 else None
    overall = extreme_claim(ctx, c.target, op, ctx.ref(b))
    if found is None or (overall is not None and overall[0].item == found[0].item and rng.bernoulli(0.7)):
        return None  # mostly ask where the condition changes the answer
    top, claim = found
    q = pick(rng, CONDITIONAL, noun=c.noun, nouns=plural(c.noun), mc=c.cond[0].measure, thr=c.threshold,
             wc=ctx.place(c.cond[0].block, measures=c.cond), most="highest" if op == "max" else "lowest",
             m=top.measure, where=ctx.place(b, measures=c.target))
    return Draft("comparison", ELEMENT_OF_BLOCK[b.type], q, StringAnswer(value=top.item), None, [c.claim(), claim])


CROSS_ITEMS = ("Which is higher: the {m} of {a} in {wa} or that of {b} in {wb}?",
               "Comparing {wa} and {wb}, does {a} or {b} have the larger {m}?",
               "Which has the greater {m}, {a} according to {wa} or {b} according to {wb}?",
               "{Wa} gives the {m} of {a}, {wb} that of {b}: which of the two is higher?",
               "Of {a} ({wa}) and {b} ({wb}), which shows the higher {m}?")
CROSS_PERIODS = ("Was the {m} of {item} higher in {pa} ({wa}) or in {pb} ({wb})?",
                 "Comparing {wa} and {wb}, in which period was the {m} of {item} larger: {pa} or {pb}?",
                 "Which period shows the greater {m} for {item}, {pa} according to {wa} or {pb} according to {wb}?",
                 "{Wa} gives the {m} of {item} for {pa}, {wb} for {pb}: which period is higher?",
                 "Of {pa} ({wa}) and {pb} ({wb}), when was the {m} of {item} higher?")

CROSS_PERIODS_BARE = ("Was the {m} of {item} higher in {pa} or in {pb}?",
                      "In which period was the {m} of {item} larger: {pa} or {pb}?",
                      "Which period shows the greater {m} for {item}, {pa} or {pb}?",
                      "Of {pa} and {pb}, when was the {m} of {item} higher?",
                      "Did {item} have a higher {m} in {pa} or in {pb}?")
"""The same without the tables where each period's measure is measured in one block of the document."""


def cross_comparison(ctx: QAContext, pairs: list[tuple[Point, Point]], rng: Rng) -> Draft | None:
    """Which of two values of one measure, drawn in two different tables or charts, is higher: two items in
    one period (answer: the item), or one item in two periods (answer: the period)."""
    a, c = ctx.prefer_apart(pairs, lambda x: (x[0].block, x[1].block), rng)
    if numeric(a.fact.value) < 0 or numeric(c.fact.value) < 0:
        return None  # which of two outflows is "higher" is no question: compared by size in one block only
    wa, wb = ctx.ref(a.block), ctx.ref(c.block)
    if not ctx.located and not ctx.rivals([a.fact.id, c.fact.id]):
        wa = wb = ""
    hi, lo = (a, c) if numeric(a.fact.value) > numeric(c.fact.value) else (c, a)
    if a.item != c.item and a.period == c.period:
        q = pick(rng, CROSS_ITEMS, m=a.measure, a=a.item, b=c.item, wa=wa, wb=wb)
        ans = StringAnswer(value=hi.item)
    elif a.item == c.item and a.period and c.period and a.period != c.period:
        bare = not ctx.located and ctx.sole_measure(a) and ctx.sole_measure(c)
        q = pick(rng, CROSS_PERIODS_BARE if bare else CROSS_PERIODS, m=a.stem, item=a.item, pa=a.period,
                 pb=c.period, wa=wa, wb=wb)
        ans = StringAnswer(value=hi.period)
    else:
        return None
    return Draft("comparison", ELEMENT_OF_BLOCK[a.block.type], q, ans, None, [
        Claim(f"The {lc(describe(hi.fact))} ({hi.fact.text}, {ctx.ref(hi.block)}) is higher than the "
              f"{lc(describe(lo.fact))} ({lo.fact.text}, {ctx.ref(lo.block)}).", ans, [hi.fact.id, lo.fact.id])])


# ------------------------------------------------------------------ yes / no

def false_text(ctx: QAContext, f: Fact, rng: Rng) -> str | None:
    """A plausible wrong rendering of a fact's value (scaled number, shifted date, another person)."""
    v = f.value
    if isinstance(v, MoneyValue | NumberValue | PercentValue):
        n = numeric(v)
        factor = Decimal(rng.choice(["0.8", "0.9", "1.1", "1.25", "1.5"]))
        wrong = (n * factor).quantize(Decimal(1) if n == n.to_integral_value() else Decimal("0.01"))
        if wrong == n:
            return None
        if isinstance(v, MoneyValue):
            changed = v.model_copy(update={"amount": wrong, "scale": ""})
        elif isinstance(v, NumberValue):
            changed = v.model_copy(update={"value": wrong, "scale": ""})
        else:
            changed = v.model_copy(update={"value": wrong})
        return surface_forms(answer_for_value(changed))[0]
    if isinstance(v, DateValue):
        d = v.value + dt.timedelta(days=rng.choice([-30, -7, 7, 14, 31]))
        return f"{d.day} {d:%B %Y}"
    if isinstance(v, PersonValue):
        others = [e.name for e in ctx.doc.entities if e.kind == "person" and e.name != v.name]
        return rng.choice(others) if others else None
    return None


STATED = ("Is the {d} {v}?", "True or false: the document gives the {d} as {v}.",
          "Does {where} give {v} as the {d}?", "Is {v} the {d} according to {where}?",
          "According to {where}, is the {d} {v}? Answer yes or no.", "Is it correct that the {d} is {v}?")
CHECKBOX = ("Is the box '{label}' checked on {form}?", "On {form}, is '{label}' ticked?",
            "Was '{label}' marked on {form}?", "Does {form} have '{label}' checked?",
            "On {form}, has the '{label}' box been ticked?")
HIGHER = ("Is the {m} of {a} higher than that of {b} in {where}?", "In {where}, does {a} have a higher {m} than {b}?",
          "True or false: {where} shows a higher {m} for {a} than for {b}.",
          "According to {where}, is {a} above {b} in {m}?", "Does {a} exceed {b} on {m} in {where}?")


def unit_once(d: str, value: str) -> str:
    """``d`` without its trailing "in <unit>" when the stated value carries that unit ("Is the change in
    conversion rate 0.16 percentage points?", not "... in percentage points 0.16 percentage points?")."""
    head, _, unit = d.rpartition(" in ")
    return head if head and re.fullmatch(r"[a-z][a-z ]+", unit) and value.endswith(unit) else d


def boolean(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A checkbox state, a stated value true or false, or (for tables and charts) one value above another."""
    if isinstance(b, FormBlock) and b.checkboxes and rng.bernoulli(0.5):
        cbs = [cb for cb in b.checkboxes if any(ctx.drawn(f) for f in cb.fact_ids)]
        if cbs:
            cb = rng.choice(cbs)
            f = ctx.facts[next(fid for fid in cb.fact_ids if ctx.drawn(fid))]
            form = ctx.ref(b)
            q = pick(rng, CHECKBOX, label=cb.label, form=form)
            ans = BooleanAnswer(value=cb.checked)
            state = "checked" if cb.checked else "not checked"
            return Draft("boolean", "form", q, ans, None,
                         [Claim(f"The box '{cb.label}' on {form} is {state}.", ans, [f.id])])
    if isinstance(b, TableBlock | FigureBlock) and rng.fork("higher").bernoulli(0.3):
        pr = pick_pair(ctx, b, rng.fork("higher"))
        if pr is not None:
            pa, pb = pr
            ans = BooleanAnswer(value=numeric(pa.fact.value) > numeric(pb.fact.value))
            q = pick(rng, HIGHER, m=pa.measure, a=pa.item, b=pb.item, where=ctx.place(b, [pa.fact, pb.fact]))
            return Draft("boolean", ELEMENT_OF_BLOCK[b.type], q, ans, None, [
                ctx.claim_fact(pa.fact, f"The {pa.measure} of {pa.item} is {pa.fact.text}."),
                ctx.claim_fact(pb.fact, f"The {pb.measure} of {pb.item} is {pb.fact.text}.")])
    fids = ctx.drawn_fact_ids(b)
    fids = [f for f in fids if not ctx.facts[f].value.kind == "boolean"]
    if not fids:
        return None
    f = ctx.facts[rng.choice(fids)]
    truth = rng.bernoulli(0.5)
    stated = f.text if truth else false_text(ctx, f, rng)
    if stated is None:
        return None
    q = pick(rng, STATED, d=unit_once(lc(describe(f)), stated), v=stated, where=ctx.place(b, [f]))
    return Draft("boolean", ELEMENT_OF_BLOCK[b.type], q, BooleanAnswer(value=truth), None, [ctx.claim_fact(f)])
