"""Chart builders: every point is a span whose text is the value label drawn on the chart.

Large money values are shown compactly (``$4.2M``, ``EUR 350K``) with ``MoneyValue.scale`` set, so the
fact's absolute value is exact. Series over time end at the last period complete as at the document's
date and follow the metric's trajectory (``generation.content.dynamics``: running totals never go down). Pie charts
show shares of the whole of a metric (``tables.whole``: the same share as any table of that whole), the
items left out grouped as "Other", summing to exactly 100.0%. A recipe says which charts it may hold.
"""

from __future__ import annotations

from decimal import Decimal

from ir.arithmetic_rules import quantity_allows
from ir.blocks import FigureBlock, Series, Span
from ir.facts import Fact
from ir.rng import Rng

from ..domains import Metric
from .book import DocContext, fs
from .tables import largest_remainder_shares, metric_fact, whole
from .wording import lower_common, plural

CHART_WEIGHTS = {"bar": 0.45, "line": 0.35, "pie": 0.2}


def _scale_for(metric: Metric, values: list[Decimal]) -> str:
    if metric.kind != "money":
        return ""
    top = max(values)
    return "million" if top >= 1_000_000 else ("thousand" if top >= 10_000 else "")


def _point(ctx: DocContext, metric: Metric, value: Decimal, scale: str, label: str, **kw) -> tuple[Fact, float]:
    if scale:
        div = Decimal(10**6 if scale == "million" else 10**3)
        step = Decimal(1) if scale == "thousand" else (Decimal("0.1") if value >= div else Decimal("0.01"))
        scaled = (value / div).quantize(step)
        f = ctx.book.money_compact(label, scaled, scale, quantity=metric.quantity, **kw)
        return f, float(scaled)
    f = metric_fact(ctx, metric, value, label, **kw)
    return f, float(f.value.amount if f.value.kind == "money" else f.value.value)


def _unit_label(ctx: DocContext, metric: Metric, scale: str) -> str:
    if metric.kind == "money":
        return f"{ctx.fmt.currency} {scale}s" if scale else ctx.fmt.currency
    return "%" if metric.kind == "percent" else metric.unit


def bar_or_line(ctx: DocContext, rng: Rng, chart: str) -> FigureBlock:
    d = ctx.domain
    bid = ctx.book.block_id()
    metric = rng.choice(d.metrics)
    over_time = chart == "line" or rng.bernoulli(0.4)
    if over_time:  # the periods up to the last one complete as at the document's date
        cats = ctx.cal.months(rng.integers(5, 7)) if rng.bernoulli(0.5) else ctx.cal.quarters(rng.integers(4, 7))
        names = rng.sample(d.items, 2) if rng.bernoulli(0.4) else [rng.choice(d.items)]
    else:
        cats = rng.sample(d.items, rng.integers(4, min(7, len(d.items)) + 1))
        names = list(ctx.periods(rng)) if rng.bernoulli(0.4) else [f"{ctx.cal.fy}"]
    raw: list[list[Decimal]] = []
    for name in names:  # the document's values: a chart never contradicts a table of the same quantity
        raw.append([ctx.metric_value(metric, name, cat) if over_time else ctx.metric_value(metric, cat, name)
                    for cat in cats])
    no = ctx.number("figure")
    scale = _scale_for(metric, [v for vals in raw for v in vals])
    series = []
    for name, vals in zip(names, raw, strict=True):
        pts: list[Span] = []
        nums: list[float] = []
        for cat, v in zip(cats, vals, strict=True):
            period = cat if over_time else name
            where = name if over_time else cat
            f, num = _point(ctx, metric, v, scale, f"{metric.name} of {where} in {period} shown in Figure {no}",
                            attribute=metric.slug, period=period, group=bid)
            pts.append(fs(f))
            nums.append(num)
        series.append(Series(name=name, points=pts, values=nums))
    title = (f"{metric.name} of {' and '.join(names)}, {cats[0]} to {cats[-1]}" if over_time
             else f"{metric.name} by {d.item_kind}")
    return FigureBlock(id=bid, chart=chart, title=f"Figure {no}. {title}", categories=cats, series=series,
                       unit_label=_unit_label(ctx, metric, scale),
                       caption=rng.choice(["", f"Source: {ctx.domain.departments[0]} reporting.",
                                           f"Figures as reported by {ctx.issuer.name}."]))


def pie(ctx: DocContext, rng: Rng) -> FigureBlock:
    d = ctx.domain
    bid = ctx.book.block_id()
    metrics = [m for m in d.metrics if quantity_allows(m.quantity, "share")] or [d.metrics[0]]
    metric = rng.choice(metrics)
    n_slices = rng.integers(3, min(6, len(d.items)) + 1)
    period = f"{ctx.cal.fy}"
    values, total, shares = whole(ctx, metric, period)
    if not shares:  # every count of the whole is zero: a pie of nothing says nothing, use an amount instead
        metric = next((m for m in d.metrics if m.kind == "money"), metric)
        values, total, shares = whole(ctx, metric, period)
    metric_lc = lower_common(metric.name)
    no = ctx.number("figure")
    if shares:  # the largest parts of the whole; the rest, and slivers below 1.5%, join "Other"
        ranked = sorted(d.items, key=lambda c: (-shares[c], d.items.index(c)))[:n_slices]
        shown = [c for c in ranked if shares[c] >= Decimal("1.5")] or ranked[:1]
        slices = [(c, shares[c]) for c in shown]
        rest = Decimal(100) - sum(s for _, s in slices)
        if rest > 0:
            slices.append((f"Other {plural(d.item_kind)}", rest))
    else:  # no amount either (never in the shipped domains): even slices, not an invented split
        cats = list(d.items[:n_slices])
        slices = list(zip(cats, largest_remainder_shares([Decimal(1)] * len(cats)), strict=True))
    pts, nums = [], []
    for i, (cat, s) in enumerate(slices):
        other = i == len(slices) - 1 and cat not in d.items
        who = f"the other {plural(d.item_kind)}" if other else cat
        f = ctx.book.percent(f"Share of {who} in {metric_lc} ({period}) shown in Figure {no}", s,
                             attribute=f"{metric.slug}_share", period=period, group=bid)
        pts.append(fs(f))
        nums.append(float(s))
    return FigureBlock(id=bid, chart="pie", title=f"Figure {no}. Share of {metric_lc} by {d.item_kind}, {period}",
                       categories=[c for c, _ in slices],
                       series=[Series(name=f"Share of {metric_lc}", points=pts, values=nums)], unit_label="%")


def figure(ctx: DocContext, rng: Rng) -> FigureBlock:
    """A chart of a kind the recipe may hold (a bar chart when it names none)."""
    kinds = [k for k in CHART_WEIGHTS if k in ctx.recipe.charts] or ["bar"]
    chart = rng.choice(kinds, p=[CHART_WEIGHTS[k] for k in kinds])
    return pie(ctx, rng) if chart == "pie" else bar_or_line(ctx, rng, chart)
