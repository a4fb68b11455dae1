"""Chart builders: every point is a span whose text is the value label drawn on the chart.

Large money values are shown compactly (``$4.2M``, ``EUR 350K``) with ``MoneyValue.scale`` set, so the
fact's absolute value is exact. Series over time end at the last period complete as at the document's
date and follow the metric's trajectory (the issuer's world, ``ir.world``: running totals never go down). Pie charts
show shares of the whole of a metric (``tables.whole``: the same share as any table of that whole), the
items left out grouped as "Other", summing to exactly 100.0%. A recipe says which charts it may hold.
A chart's title says what it shows (metric, items or periods) and no other title or caption of the document
says the same (``DocContext.caption_free``): a builder draws again, or takes an earlier period, until it is new.
"""

from __future__ import annotations

from decimal import Decimal
from itertools import chain

from synthdocqa.ir.arithmetic_rules import quantity_allows
from synthdocqa.ir.blocks import FigureBlock, Series, Span
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.rng import Rng

from ..domains import Metric
from .book import DocContext, fs
from .tables import largest_remainder_shares, metric_fact, period_key, rotated, share_period_options, whole
from .wording import lower_common, plural

CHART_WEIGHTS = {"bar": 0.45, "line": 0.35, "pie": 0.2}


def _scale_for(metric: Metric, values: list[Decimal]) -> str:
    if metric.kind != "money":
        return ""
    top = max(values)
    least = min((v for v in values if v > 0), default=top)  # no bar's label may round to zero in the scale
    if top >= 1_000_000 and least >= 10_000:
        return "million"
    return "thousand" if top >= 10_000 and least >= 10 else ""


def label_step(x: Decimal, scale: str) -> Decimal:
    """The rounding step of a chart label in thousands or millions: two significant figures at least (a
    store's EUR 460 shrinkage is "0.46" thousand, never "0"), no finer than a thousand's unit or a million's
    tenth once the value is that large, and never finer than a hundredth."""
    coarsest = Decimal(1) if scale == "thousand" else Decimal("0.1")
    if x <= 0:
        return coarsest
    two_figures = Decimal(1).scaleb(x.adjusted() - 1)
    return max(min(two_figures, coarsest), Decimal("0.01"))


def _point(ctx: DocContext, metric: Metric, value: Decimal, scale: str, label: str, item: str,
           **kw) -> tuple[Fact, float]:
    """A chart's point of ``metric`` for ``item``: a query of the issuer's world, in thousands or millions when
    the chart is (its fact records the query; verify rounds the world's value the way the label is)."""
    if scale:
        div = Decimal(10**6 if scale == "million" else 10**3)
        scaled = (value / div).quantize(label_step(value / div, scale))
        f = ctx.book.money_compact(label, scaled, scale, quantity=metric.quantity,
                                   query=ctx.metric_query(metric, item, kw["period"]), **kw)
        return f, float(scaled)
    f = metric_fact(ctx, metric, value, label, items=item, **kw)
    return f, float(f.value.amount if f.value.kind == "money" else f.value.value)


def _unit_label(ctx: DocContext, metric: Metric, scale: str) -> str:
    if metric.kind == "money":
        return f"{ctx.fmt.currency} {plural(scale)}" if scale else ctx.fmt.currency
    return "%" if metric.kind == "percent" else metric.unit


FIGURE_TRIES = 12
"""Draws of a chart's content before the builder walks the options in order for a title not yet printed."""


def _bar_or_line_draw(ctx: DocContext, rng: Rng, chart: str):
    """One draw of what a bar or line chart shows: ``(metric, over_time, categories, series names)``."""
    d = ctx.domain
    metric = rng.choice(d.metrics)
    over_time = chart == "line" or rng.bernoulli(0.4)
    if over_time:  # the periods up to the last one complete as at the document's date (a count that is
        monthly = rng.bernoulli(0.5) and not metric.small_count  # often in single digits a year: by quarter)
        cats = ctx.cal.months(rng.integers(5, 7)) if monthly else ctx.cal.quarters(rng.integers(4, 7))
        names = rng.sample(d.items, 2) if rng.bernoulli(0.4) else [rng.choice(d.items)]
    else:
        cats = rng.sample(d.items, rng.integers(4, min(7, len(d.items)) + 1))
        names = list(ctx.periods(rng)) if rng.bernoulli(0.4) else [ctx.focus]
    return metric, over_time, cats, names


def _chart_title(ctx: DocContext, metric: Metric, over_time: bool, cats: list[str], names: list[str]) -> str:
    if over_time:
        return f"{metric.name} of {' and '.join(names)}, {cats[0]} to {cats[-1]}"
    return f"{metric.name} by {ctx.domain.item_kind}, {' and '.join(names)}"


def _shows_something(ctx: DocContext, metric: Metric, over_time: bool, cats: list[str], names: list[str]) -> bool:
    """Whether a chart would show a value other than zero (a line of zeros tells a reader nothing)."""
    return any(ctx.metric_value(metric, name, cat) if over_time else ctx.metric_value(metric, cat, name)
               for name in names for cat in cats)


def _chart_options(ctx: DocContext):
    """Every chart over time of one item, in order (what is left when the draws keep meeting printed titles)."""
    for back in range(0, 24, 3):
        for n in (6, 5, 4):
            for metric in ctx.domain.metrics:
                for item in ctx.domain.items:
                    yield metric, True, ctx.cal.quarters(n, back), [item]


def bar_or_line(ctx: DocContext, rng: Rng, chart: str) -> FigureBlock:
    """A bar or line chart of one metric: over time (months or quarters, one or two items) or by item (one or
    two periods); its title says which, and no other title of the document says the same."""
    draws = (_bar_or_line_draw(ctx, rng, chart) for _ in range(FIGURE_TRIES))
    metric, over_time, cats, names = next((c for c in chain(draws, _chart_options(ctx))
                                           if ctx.caption_free(_chart_title(ctx, *c)) and _shows_something(ctx, *c)),
                                          None) \
        or _bar_or_line_draw(ctx, rng, chart)  # never: hundreds of charts over time are left
    bid = ctx.book.block_id()
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
                            where, attribute=metric.slug, period=period, group=bid)
            pts.append(fs(f))
            nums.append(num)
        series.append(Series(name=name, points=pts, values=nums))
    title = ctx.claim_caption(_chart_title(ctx, metric, over_time, cats, names))
    return FigureBlock(id=bid, chart=chart, title=f"Figure {no}. {title}", categories=cats, series=series,
                       unit_label=_unit_label(ctx, metric, scale),
                       caption=rng.choice(["", f"Source: {ctx.domain.departments[0]} reporting.",
                                           f"Figures as reported by {ctx.issuer.name}."]))


def pie_title(metric: Metric, item_kind: str, period: str) -> str:
    return f"Share of {lower_common(metric.name)} by {item_kind}, {period}"


def pie(ctx: DocContext, rng: Rng) -> FigureBlock:
    """Shares of the whole of one metric over one period (the last full year first, then other periods once
    that pie is printed); a bar chart when every period of every metric has its pie."""
    d = ctx.domain
    metrics = [m for m in d.metrics if quantity_allows(m.quantity, "share")] or [d.metrics[0]]
    metric0 = rng.choice(metrics)
    n_slices = rng.integers(3, min(6, len(d.items)) + 1)
    used = ctx.used("pie")
    periods = [ctx.focus, *(p for p in share_period_options(ctx) if p != ctx.focus)]
    choice = None
    for period in periods:
        for metric in rotated(metrics, metric0):
            if whole(ctx, metric, period)[2] == {}:  # every count of the whole is zero: a pie of nothing
                metric = next((m for m in d.metrics if m.kind == "money"), metric)
            if (metric.slug, period_key(metric, period)) not in used \
                    and ctx.caption_free(pie_title(metric, d.item_kind, period)):
                choice = metric, period
                break
        if choice:
            break
    if choice is None:
        return bar_or_line(ctx, rng, "bar")
    metric, period = choice
    used.add((metric.slug, period_key(metric, period)))
    bid = ctx.book.block_id()
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
    named = [c for c, _ in slices if c in d.items]
    for i, (cat, s) in enumerate(slices):
        other = i == len(slices) - 1 and cat not in d.items
        who = f"the other {plural(d.item_kind)}" if other else cat
        query = None
        if shares:  # the slice's share of the whole, asked of the world (the others': the items not named)
            parts = [c for c in d.items if c not in named] if other else [cat]
            query = ctx.metric_query(metric, parts, period).model_copy(update={"share_of": list(d.items)})
            ctx.asked.update((query.measure, item) for item in d.items)
        f = ctx.book.percent(f"Share of {who} in {metric_lc} ({period}) shown in Figure {no}", s,
                             attribute=f"{metric.slug}_share", period=period, group=bid, query=query)
        pts.append(fs(f))
        nums.append(float(s))
    title = ctx.claim_caption(pie_title(metric, d.item_kind, period))
    return FigureBlock(id=bid, chart="pie", title=f"Figure {no}. {title}",
                       categories=[c for c, _ in slices],
                       series=[Series(name=f"Share of {metric_lc}", points=pts, values=nums)], unit_label="%")


def figure(ctx: DocContext, rng: Rng) -> FigureBlock:
    """A chart of a kind the recipe may hold (a bar chart when it names none)."""
    kinds = [k for k in CHART_WEIGHTS if k in ctx.recipe.charts] or ["bar"]
    chart = rng.choice(kinds, p=[CHART_WEIGHTS[k] for k in kinds])
    return pie(ctx, rng) if chart == "pie" else bar_or_line(ctx, rng, chart)
