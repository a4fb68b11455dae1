"""Chart builders: every point is a span whose text is the value label drawn on the chart.

Large money values are shown compactly (``$4.2M``, ``EUR 350K``) with ``MoneyValue.scale`` set, so the
fact's absolute value is exact; pie charts show shares that sum to exactly 100.0% (largest remainder).
"""

from __future__ import annotations

from decimal import ROUND_DOWN, Decimal

from ..blocks import FigureBlock, Series, Span
from ..domains import Metric
from ..facts import Fact
from ..rng import Rng
from .book import DocContext, fs
from .tables import metric_fact, metric_value

MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


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
        f = ctx.book.money_compact(label, scaled, scale, **kw)
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
    if over_time:
        if rng.bernoulli(0.5):
            start = rng.integers(0, 6)
            cats = [f"{m} {ctx.year}" for m in MONTHS[start:start + rng.integers(5, 7)]]
        else:
            cats = [f"Q{q} {y}" for y in (ctx.year - 1, ctx.year) for q in (1, 2, 3, 4)][-rng.integers(4, 7):]
        names = rng.sample(d.items, 2) if rng.bernoulli(0.4) else [rng.choice(d.items)]
    else:
        cats = rng.sample(d.items, rng.integers(4, min(7, len(d.items)) + 1))
        names = list(ctx.periods(rng)) if rng.bernoulli(0.4) else [f"{ctx.year}"]
    raw: list[list[Decimal]] = []
    for name in names:
        vals: list[Decimal] = []
        for cat in cats:  # the document's values: a chart never contradicts a table of the same quantity
            if over_time:
                vals.append(metric_value(ctx, rng, metric, name, cat, prev=vals[-1] if vals else None))
            else:
                vals.append(metric_value(ctx, rng, metric, cat, name))
        raw.append(vals)
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


def largest_remainder_shares(parts: list[Decimal]) -> list[Decimal]:
    """Shares in 0.1 steps that sum to exactly 100.0 (Hamilton's method, ties by position)."""
    total = sum(parts, Decimal(0))
    raw = [p / total * 1000 for p in parts]
    floors = [r.to_integral_value(rounding=ROUND_DOWN) for r in raw]
    left = int(1000 - sum(floors))
    order = sorted(range(len(parts)), key=lambda i: (-(raw[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [(f / 10).quantize(Decimal("0.1")) for f in floors]


def pie(ctx: DocContext, rng: Rng) -> FigureBlock:
    d = ctx.domain
    bid = ctx.book.block_id()
    metrics = [m for m in d.metrics if m.kind in ("money", "count")] or [d.metrics[0]]
    metric = rng.choice(metrics)
    cats = rng.sample(d.items, rng.integers(3, min(6, len(d.items)) + 1))
    period = f"{ctx.year}"
    parts = [metric_value(ctx, rng, metric, cat, period) for cat in cats]
    total = sum(parts, Decimal(0))
    keep = [i for i, v in enumerate(parts) if total and v / total >= Decimal("0.015")]
    if len(keep) >= 2:  # slivers below 1.5% are left out of the pie, as chart makers do
        cats, parts = [cats[i] for i in keep], [parts[i] for i in keep]
    else:
        parts = [Decimal(str(round(rng.uniform(1, 10), 3))) for _ in cats]
    shares = largest_remainder_shares(parts)
    no = ctx.number("figure")
    pts, nums = [], []
    for cat, s in zip(cats, shares, strict=True):
        f = ctx.book.percent(f"Share of {cat} in {metric.name.lower()} ({period}) shown in Figure {no}", s,
                             attribute=f"{metric.slug}_share", period=period, group=bid)
        pts.append(fs(f))
        nums.append(float(s))
    return FigureBlock(id=bid, chart="pie", title=f"Figure {no}. Share of {metric.name.lower()} by {d.item_kind}, "
                                                  f"{period}",
                       categories=cats, series=[Series(name=f"Share of {metric.name.lower()}", points=pts,
                                                       values=nums)], unit_label="%")


def figure(ctx: DocContext, rng: Rng) -> FigureBlock:
    chart = rng.choice(("bar", "line", "pie"), p=(0.45, 0.35, 0.2))
    return pie(ctx, rng) if chart == "pie" else bar_or_line(ctx, rng, chart)
