"""Two values side by side (which is higher) and yes/no checks of one stated value."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

from ..answers import answer_for_value, numeric, surface_forms, unit_of
from ..blocks import ELEMENT_OF_BLOCK, Block, FigureBlock, FormBlock, TableBlock, block_spans
from ..facts import Fact
from ..qa_models import BooleanAnswer, StringAnswer
from ..rng import Rng
from ..values import DateValue, MoneyValue, NumberValue, PercentValue, PersonValue
from .claims import Claim, Draft
from .context import QAContext, caption_of, lc

Pair = tuple[str, Fact, str, Fact, str, str]
"""``(label a, fact a, label b, fact b, what is measured, where)``."""


def pick_pair(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Pair | None:
    """Two distinct, comparable values of one table column or one chart series."""
    if isinstance(b, TableBlock):
        j = rng.choice(ctx.numeric_columns(b))
        cells, what, where = ctx.cells(b, j), b.columns[j], caption_of(b)
    else:
        s = rng.choice(b.series)
        cells = [(b.categories[i], ctx.facts[fid]) for i, p in enumerate(s.points) if i < len(b.categories)
                 for fid in p.fact_ids[:1] if ctx.drawn(fid) and numeric(ctx.facts[fid].value) is not None]
        what = s.name
        where = f"chart '{b.title}'" if b.title else "chart"
    if len(cells) < 2:
        return None
    (la, fa), (lb, fb) = rng.sample(cells, 2)
    if numeric(fa.value) == numeric(fb.value) or la == lb or unit_of(fa.value) != unit_of(fb.value):
        return None
    return la, fa, lb, fb, what, where


def comparison(ctx: QAContext, b: TableBlock | FigureBlock, rng: Rng) -> Draft | None:
    pr = pick_pair(ctx, b, rng)
    if pr is None:
        return None
    la, fa, lb, fb, what, where = pr
    hi, lo = ("higher", "lower") if rng.bernoulli(0.5) else ("lower", "higher")
    a_wins = (numeric(fa.value) > numeric(fb.value)) == (hi == "higher")
    q = (f"In the {where}, which has the {hi} {what}: {la} or {lb}?" if isinstance(b, TableBlock) else
         f"In the {where}, which is {hi} for {what}: {la} or {lb}?")
    ans = StringAnswer(value=la if a_wins else lb)
    el = "table" if isinstance(b, TableBlock) else "figure"
    return Draft("comparison", el, q, ans, None, [
        ctx.claim_fact(fa, f"The {what} of {la} is {fa.text}."),
        ctx.claim_fact(fb, f"The {what} of {lb} is {fb.text}.")])


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


def boolean(ctx: QAContext, b: Block, rng: Rng) -> Draft | None:
    """A form's checkbox state (half the time when it has one), else a stated value true or false."""
    if isinstance(b, FormBlock) and b.checkboxes and rng.bernoulli(0.5):
        cbs = [cb for cb in b.checkboxes if any(ctx.drawn(f) for f in cb.fact_ids)]
        if cbs:
            cb = rng.choice(cbs)
            f = ctx.facts[next(fid for fid in cb.fact_ids if ctx.drawn(fid))]
            form = f"form '{b.title}'" if b.title else "form"
            q = rng.choice([f"Is the box '{cb.label}' checked on the {form}?",
                            f"On the {form}, is '{cb.label}' ticked?"])
            ans = BooleanAnswer(value=cb.checked)
            state = "checked" if cb.checked else "not checked"
            return Draft("boolean", "form", q, ans, None,
                         [Claim(f"The box '{cb.label}' on the {form} is {state}.", ans, [f.id])])
    fids = [fid for s in block_spans(b) for fid in s.fact_ids if ctx.drawn(fid)]
    if not fids:
        return None
    f = ctx.facts[rng.choice(fids)]
    truth = rng.bernoulli(0.5)
    stated = f.text if truth else false_text(ctx, f, rng)
    if stated is None:
        return None
    q = rng.choice([f"Is the {lc(f.label)} {stated}?",
                    f"True or false: the document gives the {lc(f.label)} as {stated}."])
    return Draft("boolean", ELEMENT_OF_BLOCK[b.type], q, BooleanAnswer(value=truth), None, [ctx.claim_fact(f)])
