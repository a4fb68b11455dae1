"""One-off metric values (a budget envelope, a form's amount): log-uniform within the domain's range, rounded like
people round them. Values that recur over periods are queries of the issuer's world (``generation.world``)."""

from __future__ import annotations

import math
from decimal import Decimal

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import display

from ..domains import Metric


def draw_value(rng: Rng, metric: Metric, money_decimals: int = 0) -> Decimal:
    """One value of ``metric``: money/number with sensible precision, counts integral, percents 0.1."""
    lo, hi = metric.low, metric.high
    if metric.kind == "percent":
        return Decimal(str(round(rng.uniform(lo, hi), 1)))
    if metric.kind == "count" and lo == 0 and rng.random() < 0.04:
        return Decimal(0)  # "no exceptions this period" happens, but rarely
    floor = max(lo, hi / 300, 1e-6)  # log-uniform over the top 2.5 decades: no pile-up near zero
    x = math.exp(rng.uniform(math.log(floor), math.log(hi))) if hi / floor > 20 else rng.uniform(max(lo, floor), hi)
    if metric.kind == "count":
        return Decimal(max(1, int(round(x))))  # a one-off count is never zero (zero is drawn above)
    return display(metric, x, money_decimals)


def number_places(metric: Metric, value: Decimal) -> int:
    """Places a number of ``metric`` is printed with: none for counts; one below 20, where values are rounded to
    a tenth (``ir.world.display``), so 1.0 tonnes never prints as "1 tonnes" next to 8.7 tonnes; else one only
    when the value has a fraction."""
    if metric.kind in ("count",):
        return 0
    if abs(value) < 20:
        return 1
    return 0 if value == value.to_integral_value() else 1
