"""The issuer's claims reserve and its large claims, quarter by quarter, as its world books them.

The reserve is simulated once per issuer from its world stream (``reserves``): from a reserve at the end of the
year four years before the issuer's year, each quarter's claims paid (the world's ``Claims paid`` over the
trade's items where the trade reports it, else the issuer's own), reserves set up for new claims notified and
releases and adjustments roll it forward, so a quarter's closing reserve is the next one's opening. A document
asks the world for each movement of a quarter (``movement``: ``claims.<movement>`` of the item ``group``) and for
the reserve at a quarter's end (``claims.reserve``). The large claims open or settled at a quarter's end
(``large_claims``) are the issuer's too: their numbers, claimants, dates and statuses drawn from the world
stream forked by the quarter, their incurred and paid amounts booked by claim number (``claims.incurred``,
``claims.paid_to_date``). Measures in ``catalogue/booked/claims.yaml``.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import Decimal

from synthdocqa.ir.facts import Entity
from synthdocqa.ir.world import WorldQuery

from ...domains import get_domain
from ...world import applies
from ..book import DocContext
from ..calendar import period_end, period_months, quarter_label
from ..names import unused_person_name
from .accounts import ITEM, dec, money_scale, quarters_of, rounded

CLAIM_STATUSES_OPEN = ("Open", "Open", "Open", "In litigation", "Reopened")
MOVEMENTS = ("new", "paid", "adjustments")


def reserves(ctx: DocContext) -> dict:
    """The issuer's claims reserve by quarter: ``v[(movement, quarter index)]`` and ``v[("reserve", k)]`` at the
    quarter's end (``first - 1``: the reserve the simulation starts from)."""
    assert ctx.world is not None
    return ctx.world.remember(("claims", "reserves"), lambda: _draw_reserves(ctx))


def _draw_reserves(ctx: DocContext) -> dict:
    assert ctx.world is not None
    world = ctx.world
    trade = get_domain(ctx.domain.slug)
    rng = world.rng.fork("claims")
    first, last = (ctx.year - 4) * 4, ctx.year * 4 + 3
    metric = trade.metric("Claims paid")
    paid: dict[int, Decimal] = {}
    if metric is not None and metric.kind == "money" and metric.behaviour == "flow":
        items = [i for i in trade.items if applies(trade, metric, i)]
        paid = {k: world.value(world.query(metric, items, k * 3, 3, quarter_label(k * 3))) for k in
                range(first, last + 1)}
    if not paid or min(paid.values()) <= 0:
        scale = money_scale(trade)
        base = (scale / 4 * rng.uniform(0.1, 0.3)) if scale else math.exp(rng.uniform(math.log(2e6), math.log(4e7)))
        base = max(base, 500000.0)
        growth = rng.uniform(-0.04, 0.1)
        paid = {k: rounded(base * (1 + growth) ** ((k - last) / 4) * rng.fork("paid", k).uniform(0.9, 1.15),
                           Decimal(1000)) for k in range(first, last + 1)}
    unit = Decimal(1000) if paid[last - 4] >= 1_000_000 else Decimal(100)
    v: dict[tuple[str, int], Decimal] = {("reserve", first - 1): rounded(paid[first] * dec(rng.uniform(2.5, 4.5)),
                                                                         unit)}
    for k in range(first, last + 1):
        qr = rng.fork("quarter", k)
        v[("paid", k)] = -paid[k]
        v[("new", k)] = rounded(paid[k] * dec(qr.uniform(0.9, 1.25)), unit)
        v[("adjustments", k)] = rounded(paid[k] * dec(qr.uniform(-0.1, 0.05)), unit)
        v[("reserve", k)] = v[("reserve", k - 1)] + v[("new", k)] + v[("paid", k)] + v[("adjustments", k)]
    out = {"v": v, "first": first, "last": last, "unit": unit}
    return out


def _quarter(ctx: DocContext, period: str) -> int:
    acc = reserves(ctx)
    ks = quarters_of(period)
    if len(ks) != 1 or not acc["first"] <= ks[0] <= acc["last"]:
        raise ValueError(f"the issuer's claims reserve does not cover {period}")
    return ks[0]


def movement(ctx: DocContext, key: str, period: str) -> tuple[Decimal, WorldQuery]:
    """A movement of the reserve over the quarter ``period`` (``new``, ``paid`` (negative), ``adjustments``), or
    the reserve at its end (``reserve``), and the world's question whose answer it is."""
    acc = reserves(ctx)
    value = acc["v"][(key, _quarter(ctx, period))]
    return ctx.booked_in(f"claims.{key}", ITEM, period, lambda _rng: value)


def opening(ctx: DocContext, period: str) -> tuple[Decimal, WorldQuery]:
    """The reserve at the start of the quarter ``period``: the one at the end of the quarter before."""
    k = _quarter(ctx, period) - 1
    value = reserves(ctx)["v"][("reserve", k)]
    return ctx.booked("claims.reserve", ITEM, k * 3, 3, quarter_label(k * 3), lambda _rng: value)


def large_claims(ctx: DocContext, period: str) -> list[dict]:
    """The largest claims open or settled at the end of the quarter ``period``, largest first: ``number``,
    ``claimant`` (a counterparty's index or a person's name), ``notified``, ``settled``, ``status``, ``incurred``
    and ``paid`` (with their queries)."""
    assert ctx.world is not None
    k = _quarter(ctx, period)
    acc = reserves(ctx)
    closing, unit = acc["v"][("reserve", k)], acc["unit"]
    end = period_end(period)
    assert end is not None
    rng = ctx.world.rng.fork("claims", "large", k)
    taken = {e.name for e in (ctx.issuer, *ctx.people, *ctx.counterparties)}
    numbers: list[str] = []
    plans = []
    for _ in range(rng.integers(4, 9)):
        number = f"CLM/{end.year}/{rng.integers(10000, 100000)}"
        while number in numbers:
            number = f"CLM/{end.year}/{rng.integers(10000, 100000)}"
        numbers.append(number)
        person = rng.bernoulli(0.5) or not ctx.counterparties
        claimant: int | str = unused_person_name(rng, taken) if person else rng.integers(0, len(ctx.counterparties))
        if person:
            taken.add(str(claimant))
        settled = rng.bernoulli(0.2)
        plans.append({"number": number, "claimant": claimant, "notified": end - dt.timedelta(days=rng.integers(0, 540)),
                      "settled": settled, "status": "Settled" if settled else rng.choice(CLAIM_STATUSES_OPEN)})
    start = (period_months(period) or (0, 0))[0]
    for c in plans:
        incurred = ctx.booked("claims.incurred", c["number"], start, 3, period,
                              lambda r: rounded(closing * dec(r.uniform(0.008, 0.05)), unit) or unit)
        paid = ctx.booked("claims.paid_to_date", c["number"], start, 3, period,
                          lambda r, x=incurred[0], s=c["settled"]: x if s else rounded(x * dec(r.uniform(0.05, 0.85)),
                                                                                        unit))
        c.update(incurred=incurred, paid=paid)
    return sorted(plans, key=lambda c: (-c["incurred"][0], c["number"]))


def claimant(ctx: DocContext, c: dict, make_person) -> Entity:
    """The claimant of planned claim ``c``: one of the issuer's counterparties, or a policyholder
    (``make_person(name)`` makes the document's entity)."""
    if isinstance(c["claimant"], int):
        return ctx.counterparties[c["claimant"]]
    return make_person(c["claimant"])


__all__ = ["CLAIM_STATUSES_OPEN", "MOVEMENTS", "claimant", "large_claims", "movement", "opening", "reserves"]
