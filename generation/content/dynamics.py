"""Plausible values over time: one trajectory per (metric, item), so every period a document reports on
comes from the same path and a change between two periods stays believable.

A trajectory has a level (drawn in the metric's range, log-uniform like ``quantities.draw_value``), a
bounded yearly growth, a seasonal swing and month-to-month noise (one vector per trajectory, drawn once).
A period's value follows the metric's behaviour (``generation.domains.Behaviour``):

- ``flow``: the sum of its months (a quarter holds about a quarter of the year, and changes between two
  years stay within about -20%..+35%);
- ``stock``: the level at the period's last month;
- ``level`` (rates, ratios, scores): the mean of its months, kept inside the metric's range (a rate moves
  by a few percentage points a year);
- ``cumulative`` (cost to date, progress): an S-curve that never goes down, heading for its total.

Every value is a pure function of (document stream, metric, item, period): the order in which blocks ask
does not matter, so a chart and a table of the same quantity always agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

from synthdocqa.ir.rng import Rng

from ..domains import Metric
from .calendar import period_months

WINDOW = 96
"""Months of noise drawn per trajectory (eight years ending a year after the reference month)."""


@dataclass(frozen=True)
class Path:
    level: float
    growth: float
    season: float
    phase: float
    start: int
    span: int
    noise: tuple[float, ...]
    first: int
    ref: int


def _log_uniform(rng: Rng, low: float, high: float) -> float:
    if high / max(low, 1e-9) <= 20:
        return rng.uniform(low, high)
    return math.exp(rng.uniform(math.log(low), math.log(high)))


def level_range(metric: Metric) -> tuple[float, float]:
    """Where a level is drawn: the top 2.5 decades of the range (no pile-up near zero); small counts >= 1."""
    lo, hi = metric.low, metric.high
    floor = max(lo, 1.0) if metric.small_count else max(lo, hi / 300, 1e-6)
    return floor, hi


def draw_path(rng: Rng, timing: Rng, metric: Metric, ref: int, total: float | None = None) -> Path:
    """The trajectory of one (metric, item); ``timing`` is the item's own stream (a work package's cost to
    date and its progress share one S-curve); ``total``: where a cumulative metric heads."""
    b = metric.behaviour
    if metric.quantity == "rate":
        level = rng.uniform(metric.low, metric.high)
        growth = rng.uniform(-2.5, 2.5)  # percentage points a year
    else:
        level = _log_uniform(rng, *level_range(metric))
        growth = {"flow": rng.uniform(-0.12, 0.22), "stock": rng.uniform(-0.08, 0.12)}.get(b, rng.uniform(-0.06, 0.06))
    season = rng.uniform(0.0, 0.12) if b == "flow" else 0.0
    phase = rng.uniform(0.0, 2 * math.pi)
    sd = {"flow": 0.06, "stock": 0.015}.get(b, 0.5 if metric.quantity == "rate" else 0.03)
    noise = tuple(float(min(max(x, -2 * sd), 2 * sd)) for x in rng.gen.normal(0.0, sd, WINDOW))
    start = ref - timing.integers(6, 30)
    span = timing.integers(18, 48)
    if b == "cumulative":
        level = 100.0 if metric.quantity == "rate" else (total * rng.uniform(0.85, 1.05) if total else level)
    return Path(level=level, growth=growth, season=season, phase=phase, start=start, span=span, noise=noise,
                first=ref + 12 - WINDOW, ref=ref)


def _noise(p: Path, m: int) -> float:
    return p.noise[min(max(m - p.first, 0), WINDOW - 1)]


def _monthly(p: Path, metric: Metric, m: int) -> float:
    """The value of one month: a flow's monthly amount, a level's monthly reading."""
    t = (m - p.ref) / 12
    if metric.quantity == "rate":
        return min(max(p.level + p.growth * t + _noise(p, m), metric.low), metric.high)
    x = p.level * math.exp(p.growth * t + p.season * math.sin(2 * math.pi * (m % 12) / 12 + p.phase) + _noise(p, m))
    if metric.behaviour == "flow":
        return x / 12
    return min(max(x, metric.low), metric.high) if metric.behaviour == "level" else x


def raw_value(p: Path, metric: Metric, period: str) -> float:
    """The unrounded value of ``metric`` over ``period`` on trajectory ``p``."""
    pm = period_months(period)
    if pm is None:
        raise ValueError(f"not a period: {period!r}")
    start, n = pm
    end = start + n - 1
    b = metric.behaviour
    if b == "flow":
        return sum(_monthly(p, metric, m) for m in range(start, end + 1))
    if b == "level":  # the mean of readings inside the range stays inside it (also in floating point)
        mean = sum(_monthly(p, metric, m) for m in range(start, end + 1)) / n
        return min(max(mean, metric.low), metric.high)
    if b == "stock":
        return _monthly(p, metric, end)
    frac = min(max((end - p.start) / p.span, 0.0), 1.0)
    frac = frac * frac * (3 - 2 * frac)  # smoothstep: slow start, fast middle, slow finish
    return metric.low + (p.level - metric.low) * frac


def whole_count(p: Path, metric: Metric, period: str) -> Decimal:
    """A count of whole events (a flow of a count metric) over ``period``: the rounded running total at its last
    month less the rounded running total before its first, the running total starting at the trajectory's first
    month. Rounding each period on its own made four quarters of 0-6 injuries a year disagree with the year; this
    way a year's count is the sum of its quarters' and of its months', and stays within one of the unrounded
    total."""
    pm = period_months(period)
    if pm is None:
        raise ValueError(f"not a period: {period!r}")
    start, n = pm

    def running(m: int) -> int:
        return int(round(sum(_monthly(p, metric, k) for k in range(p.first, m + 1)))) if m >= p.first else 0
    return Decimal(max(0, running(start + n - 1) - running(start - 1)))


def display(metric: Metric, x: float, money_decimals: int = 0) -> Decimal:
    """A value rounded the way reports round it (monotone: a larger value never rounds lower)."""
    if metric.kind == "percent":
        return Decimal(str(round(x, 1)))
    if metric.kind == "count":
        return Decimal(max(0, int(round(x))))
    if metric.kind == "money":
        if money_decimals and x < 100000:
            return Decimal(str(round(x, 2)))
        step = 10 ** max(0, int(math.log10(max(x, 1))) - 2)
        return Decimal(int(round(x / step)) * step)
    if x < 20:
        return Decimal(str(round(x, 1)))
    return Decimal(int(round(x)))


__all__ = ["Path", "WINDOW", "display", "draw_path", "level_range", "raw_value", "whole_count"]
