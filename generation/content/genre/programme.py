"""The issuer's change programme as its world books it: the workstreams' budgets, the cost spent to date at each
month end and the forecast at completion, one set for all the issuer's status reports.

Which workstreams the programme has, their budgets and the programme's course (when it started, how long it
runs, how far each workstream runs ahead of or behind the programme, how far its forecast strays from its
budget) are drawn once from the issuer's world stream (``plan``). A status report as at a month asks the world
(``workstream_figures``): the budget (``programme.budget`` of the workstream, one booking over the programme's
years), the actual cost to date at the month's end (``programme.actual_to_date``: the budget times the share of
the programme done by then, never falling from one month to the next) and the forecast at completion that
month (``programme.forecast_at_completion``); measures in ``catalogue/booked/programme.yaml``.
"""

from __future__ import annotations

import math
from decimal import Decimal

from synthdocqa.ir.world import WorldQuery

from ...domains import get_domain
from ..book import DocContext
from ..calendar import period_months
from .accounts import dec, rounded

WORKSTREAMS = ("Discovery and design", "Build and configuration", "Data migration", "Integration",
               "Testing and assurance", "Training and change management", "Infrastructure", "Programme management")


def plan(ctx: DocContext) -> dict:
    """The issuer's programme: its workstreams (in the register's order) with their budgets, its first month and
    length, and each workstream's pace and overrun."""
    assert ctx.world is not None
    return ctx.world.remember(("programme", "plan"), lambda: _draw_plan(ctx))


def _draw_plan(ctx: DocContext) -> dict:
    assert ctx.world is not None
    rng = ctx.world.rng.fork("programme")
    trade = get_domain(ctx.domain.slug)
    scale = max((m.high for m in trade.metrics if m.kind == "money" and m.quantity == "amount"), default=0.0)
    total = min(max(scale * rng.uniform(0.2, 1.0), 250000.0), 25e6) if scale else \
        math.exp(rng.uniform(math.log(400000), math.log(12e6)))
    unit = Decimal(1000) if total >= 500000 else Decimal(100)
    drawn = rng.sample(WORKSTREAMS, rng.integers(4, 7))
    streams = [w for w in WORKSTREAMS if w in drawn]
    weights = [rng.uniform(0.5, 2.0) for _ in streams]
    start = ctx.year * 12 - rng.integers(6, 15)  # it started before the issuer's year and runs through it
    out = {"streams": streams, "unit": unit, "start": start, "months": rng.integers(24, 40),
           "budget": {w: rounded(total * wt / sum(weights), unit) or unit for w, wt in zip(streams, weights,
                                                                                             strict=True)},
           "pace": {w: rng.uniform(0.7, 1.25) for w in streams},
           "overrun": {w: rng.uniform(0.93, 1.12) for w in streams},
           "window": ((ctx.year - 2) * 12, 72)}
    return out


def _done(p: dict, month: int) -> float:
    """The share of the programme done by the end of ``month`` (an S-curve over its months)."""
    x = min(max((month + 1 - p["start"]) / p["months"], 0.0), 1.0)
    return x * x * (3 - 2 * x)


def workstream_figures(ctx: DocContext, stream: str, month: str
                       ) -> tuple[tuple[Decimal, WorldQuery], tuple[Decimal, WorldQuery], tuple[Decimal, WorldQuery]]:
    """``(budget, actual cost to date, forecast at completion)`` of ``stream`` as at the end of ``month`` (a month
    label), each with the world's question whose answer it is."""
    assert ctx.world is not None
    p = plan(ctx)
    unit = p["unit"]
    budget = p["budget"][stream]
    start, months = p["window"]
    m = (period_months(month) or (0, 0))[0]
    ctx.booked("programme.budget", stream, start, months, month, lambda _rng: budget)  # the window covers the month
    pm = budget, ctx.world.booked_query("programme.budget", [stream], m, 1, month)
    spent = rounded(budget * dec(min(1.0, _done(p, m) * p["pace"][stream])), unit)
    actual = ctx.booked_in("programme.actual_to_date", stream, month, lambda _rng: spent)
    floor = spent + rounded(budget * dec(0.02), unit)
    forecast = ctx.booked_in("programme.forecast_at_completion", stream, month, lambda rng: max(
        rounded(budget * dec(p["overrun"][stream] + rng.uniform(-0.01, 0.01)), unit), floor))
    return pm, actual, forecast


__all__ = ["WORKSTREAMS", "plan", "workstream_figures"]
