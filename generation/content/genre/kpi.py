"""The targets the issuer set its key performance indicators for a period, as its world books them.

A KPI's target for (measure, item, period) is booked as ``kpi.target_<kind>`` of the item ``<measure>/<item>``
(the world's key of the measure, so a lens's measure is not the trade's), drawn once per issuer near the
world's actual figure of the period (within three points for a rate, a tenth either way otherwise) at the
precision reports print the measure; the amber tolerance of its RAG rating is the issuer's policy, booked for
the period. Measures in ``catalogue/booked/kpi.yaml``.
"""

from __future__ import annotations

import math
from decimal import Decimal

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery, display

from ...domains import Metric
from ..book import DocContext

AMBER_TOLERANCE = Decimal("5.0")
"""How far adverse of target (percent of target) a KPI is still Amber, not Red."""


def target(ctx: DocContext, metric: Metric, item: str, period: str, actual: Decimal) -> tuple[Decimal, WorldQuery]:
    """The target of ``metric`` for ``item`` over ``period`` (``actual``: the world's figure then)."""
    assert ctx.world is not None

    def draw(rng: Rng) -> Decimal:
        if metric.kind == "percent":  # inside the metric's range at the places shown (99.99 is never 100.0)
            x = round(min(max(float(actual) + rng.uniform(-3.0, 3.0), metric.low), metric.high), 1)
            return Decimal(str(min(max(x, math.ceil(metric.low * 10) / 10), math.floor(metric.high * 10) / 10)))
        x = float(actual) * (1 + rng.uniform(-0.1, 0.1))
        if metric.kind == "count":
            return Decimal(max(1, int(round(x))))
        return display(metric, x)
    return ctx.booked_in(f"kpi.target_{metric.kind}", f"{ctx.world.key(metric)}/{item}", period, draw)


def tolerance(ctx: DocContext, period: str) -> tuple[Decimal, WorldQuery]:
    """The amber tolerance of the issuer's KPI ratings over ``period``."""
    return ctx.booked_in("kpi.amber_tolerance", "group", period, lambda _rng: AMBER_TOLERANCE)


__all__ = ["AMBER_TOLERANCE", "target", "tolerance"]
