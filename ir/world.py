"""The issuer world: one simulated enterprise whose queries are every number its documents print.

An issuer (the organisation that issues documents) is simulated once, before any of its documents is
planned: for each measure it reports (units sold, revenue, claims, headcount, ...) and each item it
reports it for (a model, a store, a site, a department), a *driver* (``Trajectory``: a level, a yearly
growth, a seasonal swing and month-to-month noise from a seed of its own) or a *relation* to another
measure (``Relation``: revenue = units sold x a unit price that drifts with inflation; claims = units x a
claim rate; average order value = sales / orders). A document prints a measure for an item over a period
by asking the world (``IssuerWorld.value``), and the fact records the question (``WorldQuery``), so
``verify`` asks it again from the world stored in the document and names every fact that no longer
follows when a stored driver is edited.

Why relations and not independent draws: drawn on its own within a plausible range, each table of a
report was believable and their combination was not (161,425 cars for EUR 10.4M: EUR 64 a car; more
warranty claims than vans sold). With revenue defined as units x price, every implied ratio is the
catalogue's unit price by construction, and a check (``lint`` kind ``coherence``) can hold every
document to it.

This module holds the contract and the pure evaluation (``ir`` imports nothing else of the project, so
``corpus.verify`` and any reader can recompute a fact without the generator); ``generation.world`` draws
the parameters from the issuer's stream and the catalogue (``generation/catalogue/world.yaml``).
"""

from __future__ import annotations

import math
from decimal import ROUND_DOWN, Decimal
from functools import lru_cache
from typing import Literal

import numpy as np
from pydantic import Field, model_validator

from .base import Model

WORLD_VERSION = "2"
"""The world contract's version: a stored world of another version is refused, not misread (2: booked
entries)."""

WINDOW = 96
"""Months of noise per driver: eight years ending a year after the reference month."""

MeasureKind = Literal["money", "count", "number", "percent"]
MeasureQuantity = Literal["amount", "count", "rate", "ratio", "index", "duration"]
Behaviour = Literal["flow", "stock", "cumulative", "level"]
"""How a measure moves over time: a ``flow`` accrues over a period (a quarter holds about a quarter of a
year), a ``stock`` is a level at the period's end, a ``cumulative`` value never goes down (cost to date,
progress) and a ``level`` (rates, ratios, scores) is an average over the period."""


class Measure(Model):
    """What the world knows of a measure: enough to evaluate and round it without the catalogue."""

    slug: str = Field(min_length=1)
    name: str = Field(min_length=1)
    kind: MeasureKind
    quantity: MeasureQuantity
    behaviour: Behaviour
    low: float
    high: float
    unit: str = ""

    @model_validator(mode="after")
    def _range(self) -> Measure:
        if not self.low <= self.high:
            raise ValueError(f"measure {self.slug}: low {self.low} > high {self.high}")
        return self

    @property
    def small_count(self) -> bool:
        return self.quantity == "count" and self.high <= 200


class Trajectory(Model):
    """A driver: the path of one (measure, item) over the months. ``noise_seed`` regenerates its monthly
    noise (``noise``), so a stored world is a few numbers a driver, not 96."""

    level: float
    growth: float
    season: float = 0.0
    phase: float = 0.0
    noise_seed: int = Field(ge=0)
    noise_sd: float = Field(ge=0.0)
    start: int = Field(description="first month of a cumulative path's S-curve")
    span: int = Field(ge=1, description="months a cumulative path takes to reach its level")
    ref: int = Field(description="the reference month (growth is counted from it)")


class Relation(Model):
    """A measure that follows from another: ``per`` x a per-unit ``factor`` path (revenue = units x unit
    price), or the ratio of two of the item's measures (``ratio_of``: average order value = sales /
    orders)."""

    op: Literal["per", "ratio"]
    of: list[str] = Field(min_length=1, max_length=2, description="the measure slugs it follows from")
    factor: Trajectory | None = Field(default=None, description="``per``: the per-unit path (a unit price, a "
                                                                "claim rate), in the factor's own unit")
    scale: float = Field(default=1.0, description="``per``: the factor's unit per unit of the result (12 for a "
                                                  "yearly amount per unit of a stock); ``ratio``: the result's "
                                                  "unit per unit of the ratio (100 for a percent)")
    low: float | None = Field(default=None, description="``per``: the least the factor ever is")
    high: float | None = Field(default=None, description="``per``: the most the factor ever is")

    @model_validator(mode="after")
    def _shape(self) -> Relation:
        if self.op == "per" and (self.factor is None or len(self.of) != 1):
            raise ValueError("a 'per' relation names one measure and has a factor path")
        if self.op == "ratio" and len(self.of) != 2:
            raise ValueError("a 'ratio' relation names two measures (numerator, denominator)")
        return self


class Booked(Model):
    """What the world booked for (measure, item) over the months ``start`` .. ``start + months - 1``: the outcome of
    the issuer's own simulation rather than of a closed-form driver (a statement line of a quarter from the
    issuer's accounts, a ledger posting, a risk's likelihood score at the year's review, the votes cast on a
    resolution). Stored at the precision documents print it."""

    start: int
    months: int = Field(ge=1)
    value: Decimal


class Entry(Model):
    """One (measure, item) of the world: a driver, a relation or what the world booked."""

    measure: str
    item: str
    driver: Trajectory | None = None
    relation: Relation | None = None
    booked: list[Booked] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one(self) -> Entry:
        if (self.driver is not None) + (self.relation is not None) + bool(self.booked) != 1:
            raise ValueError(f"{self.measure}/{self.item}: exactly one of driver, relation and booked")
        spans = sorted((b.start, b.start + b.months) for b in self.booked)
        if len(set(spans)) != len(spans):
            raise ValueError(f"{self.measure}/{self.item}: two bookings for one period")
        return self


class WorldQuery(Model):
    """The question a fact's value answers: ``measure`` for ``items`` over the months ``start`` ..
    ``start + months - 1`` (month index = year x 12 + month - 1; ``period`` is the label printed). Several
    items: the sum of their printed values (a row of "the other stores", a total over the items)."""

    measure: str
    items: list[str] = Field(min_length=1)
    period: str
    start: int
    months: int = Field(ge=1)
    money_decimals: int = Field(default=0, ge=0, le=2)
    share_of: list[str] = Field(default_factory=list, description="when given, the answer is the share in percent "
                                "of ``items`` in the whole of these items (a pie's slice, the others' slice): the "
                                "whole's shares rounded to 0.1 together so they add up to exactly 100.0")

    @model_validator(mode="after")
    def _share(self) -> WorldQuery:
        if self.share_of and not set(self.items) <= set(self.share_of):
            raise ValueError(f"a share of {self.items} in a whole of {self.share_of} that does not hold them")
        return self


class IssuerWorld(Model):
    """The stored world of one issuer, as far as a document asks it (every entry its facts query, and
    what those follow from). Two documents of one issuer hold equal entries for the keys both ask."""

    version: str = WORLD_VERSION
    issuer: str = Field(min_length=1, description="the issuer's key in its corpus (its documents share it)")
    measures: list[Measure] = Field(default_factory=list)
    entries: list[Entry] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> IssuerWorld:
        if self.version != WORLD_VERSION:
            raise ValueError(f"world version {self.version!r}: this code reads version {WORLD_VERSION}")
        slugs = {m.slug for m in self.measures}
        for e in self.entries:
            if e.measure not in slugs:
                raise ValueError(f"entry {e.measure}/{e.item}: unknown measure")
            if e.relation is not None:
                missing = [s for s in e.relation.of if s not in slugs]
                if missing:
                    raise ValueError(f"entry {e.measure}/{e.item}: follows from unknown {missing}")
        return self

    def measure(self, slug: str) -> Measure:
        for m in self.measures:
            if m.slug == slug:
                return m
        raise KeyError(f"the world of {self.issuer} has no measure {slug!r}")

    def entry(self, measure: str, item: str) -> Entry:
        for e in self.entries:  # a few hundred entries at most: a scan is cheaper than keeping an index
            if e.measure == measure and e.item == item:
                return e
        raise KeyError(f"the world of {self.issuer} has no entry {measure}/{item}")

    def value(self, q: WorldQuery) -> Decimal:
        """The value of ``q`` as a document prints it (rounded the way reports round it)."""
        return evaluate(self, q)


# ---------------------------------------------------------------- evaluation (pure)

@lru_cache(maxsize=4096)
def noise(seed: int, sd: float) -> tuple[float, ...]:
    """The monthly noise of a driver: ``WINDOW`` normal draws, clipped at two standard deviations."""
    if sd == 0:
        return (0.0,) * WINDOW
    draws = np.random.Generator(np.random.PCG64(seed)).normal(0.0, sd, WINDOW)
    return tuple(float(min(max(x, -2 * sd), 2 * sd)) for x in draws)


def _noise_at(t: Trajectory, m: int) -> float:
    first = t.ref + 12 - WINDOW
    return noise(t.noise_seed, t.noise_sd)[min(max(m - first, 0), WINDOW - 1)]


def monthly(t: Trajectory, m: Measure, month: int) -> float:
    """One month of driver ``t``: a flow's amount for the month, a level's reading."""
    years = (month - t.ref) / 12
    if m.quantity == "rate":
        return min(max(t.level + t.growth * years + _noise_at(t, month), m.low), m.high)
    x = t.level * math.exp(t.growth * years + t.season * math.sin(2 * math.pi * (month % 12) / 12 + t.phase)
                           + _noise_at(t, month))
    if m.behaviour == "flow":
        return x / 12
    return min(max(x, m.low), m.high) if m.behaviour == "level" else x


def factor_at(rel: Relation, month: int) -> float:
    """A per-unit factor (a unit price, a claim rate) in a month: its level grown by inflation, inside the
    relation's bounds (so every implied ratio of two printed figures is in the catalogue's range)."""
    t = rel.factor
    assert t is not None
    years = (month - t.ref) / 12
    x = t.level * math.exp(t.growth * years + _noise_at(t, month))
    lo = rel.low if rel.low is not None else -math.inf
    hi = rel.high if rel.high is not None else math.inf
    return min(max(x, lo), hi)


def _month_values(world: IssuerWorld, measure: str, item: str, start: int, n: int) -> list[float]:
    """The monthly amounts of a flow (or readings of a level) of (measure, item) over ``n`` months."""
    m = world.measure(measure)
    e = world.entry(measure, item)
    if e.driver is not None:
        return [monthly(e.driver, m, k) for k in range(start, start + n)]
    if e.booked:
        raise KeyError(f"{measure}/{item} is booked, not driven: nothing follows from it month by month")
    rel = e.relation
    assert rel is not None
    if rel.op == "per":
        base = _month_values(world, rel.of[0], item, start, n)
        return [b * factor_at(rel, start + i) / rel.scale for i, b in enumerate(base)]
    num = _month_values(world, rel.of[0], item, start, n)
    den = _month_values(world, rel.of[1], item, start, n)
    return [a / b if b else 0.0 for a, b in zip(num, den, strict=True)]


def raw(world: IssuerWorld, measure: str, item: str, start: int, n: int) -> float:
    """The unrounded value of (measure, item) over ``n`` months from ``start``."""
    m = world.measure(measure)
    e = world.entry(measure, item)
    if e.booked:
        return float(booked_value(m, e, start, n))
    if e.relation is not None and e.relation.op == "ratio":  # a ratio of the period's totals, not of months
        a, b = (raw(world, s, item, start, n) for s in e.relation.of)
        return min(max(a / b * e.relation.scale if b else 0.0, m.low), m.high)
    end = start + n - 1
    if m.behaviour == "flow":
        return sum(_month_values(world, measure, item, start, n))
    if m.behaviour == "level":
        mean = sum(_month_values(world, measure, item, start, n)) / n
        return min(max(mean, m.low), m.high)
    if m.behaviour == "stock":
        return _month_values(world, measure, item, end, 1)[0]
    t = e.driver
    assert t is not None
    frac = min(max((end - t.start) / t.span, 0.0), 1.0)
    frac = frac * frac * (3 - 2 * frac)  # smoothstep: slow start, fast middle, slow finish
    return m.low + (t.level - m.low) * frac


def _origin(world: IssuerWorld, measure: str, item: str) -> int:
    """The first month of the noise window of the driver that (measure, item) follows from."""
    e = world.entry(measure, item)
    if e.driver is not None:
        return e.driver.ref + 12 - WINDOW
    assert e.relation is not None
    return _origin(world, e.relation.of[0], item)


def whole_count(world: IssuerWorld, measure: str, item: str, start: int, n: int, step: int = 1) -> Decimal:
    """A flow in whole steps over the months (whole events; money booked to the nearest ``step``): the rounded
    running total at the last month less the one before the first, so a year's figure is exactly the sum of
    its quarters' and of its months' (and an income statement's revenue of a year the sum of its quarters')."""
    first = _origin(world, measure, item)  # one origin for every period: the quarters add up to the year

    def running(last: int) -> int:
        if last < first:
            return 0
        return int(round(sum(_month_values(world, measure, item, first, last - first + 1)) / step)) * step
    return Decimal(max(0, running(start + n - 1) - running(start - 1)))


def money_step(m: Measure) -> int:
    """The step a money flow is booked to: a thousandth of its range's top decade, at least a unit (a revenue
    line of up to EUR 90 million is booked to EUR 10,000; a shrinkage of up to 300,000 to 100)."""
    return 10 ** max(0, int(math.floor(math.log10(max(m.high, 1.0)))) - 3)


def display(m: Measure, x: float, money_decimals: int = 0) -> Decimal:
    """A value rounded the way reports round it (monotone: a larger value never rounds lower)."""
    if m.kind == "percent":
        return Decimal(str(round(x, 1)))
    if m.kind == "count":
        return Decimal(max(0, int(round(x))))
    if m.kind == "money":
        if money_decimals and x < 100000:
            return Decimal(str(round(x, 2)))
        step = 10 ** max(0, int(math.log10(max(x, 1))) - 2)
        return Decimal(int(round(x / step)) * step)
    if x < 20:
        return Decimal(str(round(x, 1)))
    return Decimal(int(round(x)))


def booked_value(m: Measure, e: Entry, start: int, months: int) -> Decimal:
    """The booked value of entry ``e`` over the months ``start`` .. ``start + months - 1``: the booking of exactly
    that period; else, for a flow, the sum of the bookings that tile it (a year from its four quarters); for a
    stock, the booking that ends with it (a balance at the year end is the last quarter's); for a level, the
    booking that covers it (a score set at the year's review holds in each of its quarters)."""
    end = start + months
    for b in e.booked:
        if b.start == start and b.months == months:
            return b.value
    if m.behaviour == "flow":
        inside = sorted((b for b in e.booked if b.start >= start and b.start + b.months <= end), key=lambda b: b.start)
        at = start
        for b in inside:
            if b.start != at:
                break
            at += b.months
        if inside and at == end:
            return sum((b.value for b in inside), Decimal(0))
    elif m.behaviour == "stock":
        for b in e.booked:
            if b.start + b.months == end:
                return b.value
    else:
        for b in e.booked:
            if b.start <= start and b.start + b.months >= end:
                return b.value
    raise KeyError(f"{e.measure}/{e.item}: nothing booked for months {start}..{end - 1}")


def evaluate_item(world: IssuerWorld, q: WorldQuery, item: str) -> Decimal:
    """The printed value of ``q`` for one item: what the world booked for it, whole events for a flow of a count,
    else the rounded value."""
    m = world.measure(q.measure)
    e = world.entry(q.measure, item)
    if e.booked:
        return booked_value(m, e, q.start, q.months)
    if m.kind == "count" and m.behaviour == "flow":
        return whole_count(world, q.measure, item, q.start, q.months)
    if m.kind == "money" and m.behaviour == "flow":
        return whole_count(world, q.measure, item, q.start, q.months, money_step(m))
    return display(m, raw(world, q.measure, item, q.start, q.months), q.money_decimals)


def largest_remainder_shares(parts: list[Decimal]) -> list[Decimal]:
    """Shares in 0.1 steps that sum to exactly 100.0 (Hamilton's method, ties by position)."""
    total = sum(parts, Decimal(0))
    exact = [p / total * 1000 for p in parts]
    floors = [r.to_integral_value(rounding=ROUND_DOWN) for r in exact]
    left = int(1000 - sum(floors))
    order = sorted(range(len(parts)), key=lambda i: (-(exact[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [(f / 10).quantize(Decimal("0.1")) for f in floors]


def evaluate(world: IssuerWorld, q: WorldQuery) -> Decimal:
    """The printed value of query ``q``: the item's, or the sum of the items' printed values; with ``share_of``,
    their share in percent of that whole (each part's printed value, the whole's shares rounded together)."""
    if q.share_of:
        parts = [evaluate_item(world, q, item) for item in q.share_of]
        if not sum(parts, Decimal(0)):
            raise ValueError(f"a share of a whole of {q.measure} that is zero in {q.period}")
        shares = dict(zip(q.share_of, largest_remainder_shares(parts), strict=True))
        return sum((shares[item] for item in q.items), Decimal(0))
    return sum((evaluate_item(world, q, item) for item in q.items), Decimal(0))


__all__ = ["WINDOW", "WORLD_VERSION", "Behaviour", "Booked", "Entry", "IssuerWorld", "Measure", "Relation", "Trajectory",
           "WorldQuery", "booked_value", "display", "evaluate", "largest_remainder_shares", "evaluate_item", "money_step", "factor_at", "monthly", "noise", "raw", "whole_count"]
