"""The issuer's greenhouse gas inventory and sustainability targets, as its world books them.

The inventory (``inventory``) is simulated once per issuer from its world stream: scope 1 and scope 2
(location-based) emissions year by year (the world's own measures where the trade reports them by item, else a
level that falls slowly, with noise, from the issuer's own draws), scope 2 market-based as a share of
location-based, and the scope 3 categories the issuer reports, each in proportion to scope 1. A document prints
each figure of a year as a question to the world (``emission``): the trade's measure over its items, or the
year booked as ``emissions.<scope>`` of the item ``group`` (a scope 3 category: of the category), measures in
``catalogue/booked/emissions.yaml``.

The targets (``targets``, ``target_figures``) are the issuer's too: which it has, the year each was set and is
due, its baseline and the value set for it, and the progress reported each year. A baseline is the world's
figure of the baseline year where the world has one (the total emissions, the sites' water withdrawal), else
booked for it (``catalogue/booked/targets.yaml``); the progress of a year is the world's figure of the year, or
booked from the baseline, the value set and the share of the time elapsed at the target's own pace.
"""

from __future__ import annotations

import math
from decimal import Decimal

from synthdocqa.ir.world import WorldQuery

from ...domains import HEAVY_TAGS, get_domain
from ...world import applies
from ..book import DocContext
from .accounts import ITEM, dec, rounded

SCOPE3_CATEGORIES = ("Purchased goods and services", "Capital goods", "Fuel- and energy-related activities",
                     "Upstream transportation and distribution", "Waste generated in operations", "Business travel",
                     "Employee commuting", "Downstream transportation and distribution")

ESG_TARGETS: tuple[tuple[str, str, str, str], ...] = (
    # name, kind (number/percent), unit, direction (down: lower is better)
    ("Cut absolute emissions, scope 1, 2 and 3 (tCO2e)", "emissions", "tCO2e", "down"),
    ("Renewable electricity (% of consumption)", "percent", "%", "up"),
    ("Water withdrawal (m3)", "number", "m3", "down"),
    ("Waste diverted from landfill (%)", "percent", "%", "up"),
    ("Women in senior leadership roles (%)", "percent", "%", "up"),
    ("Lost-time injury frequency rate (per million hours worked)", "ratio", "per million hours worked", "down"),
)

PERCENT_TARGETS: dict[str, tuple[float, float, tuple[int, ...]]] = {
    "Renewable electricity (% of consumption)": (8.0, 45.0, (60, 80, 100)),
    "Waste diverted from landfill (%)": (25.0, 60.0, (75, 90)),
    "Women in senior leadership roles (%)": (18.0, 32.0, (40, 50)),
}
"""Where a percentage target's baseline lies and the levels such targets are set at."""

SCOPES = ("scope_1", "scope_2_location", "scope_2_market", "scope_3", "total")
ONE = Decimal(1)
HUNDREDTH = Decimal("0.01")


# ================================================================ the inventory

def inventory(ctx: DocContext) -> dict:
    """The issuer's emissions by year (``v[(scope or scope 3 category, year)]``, tCO2e) and its scope 3
    categories, one set for all its documents (kept with its world)."""
    assert ctx.world is not None
    return ctx.world.remember(("statements", "emissions"), lambda: _simulate(ctx))


def _simulate(ctx: DocContext) -> dict:
    assert ctx.world is not None
    world = ctx.world
    trade = get_domain(ctx.domain.slug)
    rng = world.rng.fork("emissions")
    heavy = any(t in trade.tags for t in HEAVY_TAGS)
    base = math.exp(rng.uniform(math.log(15000), math.log(600000)) if heavy else
                    rng.uniform(math.log(400), math.log(15000)))
    trend = rng.uniform(-0.02, 0.07)  # emissions fall slowly, with noise
    ratio = rng.uniform(0.3, 1.4)
    market = rng.uniform(0.35, 0.9)
    drawn = rng.sample(SCOPE3_CATEGORIES, rng.integers(2, 5))
    cats = [c for c in SCOPE3_CATEGORIES if c in drawn]
    mult = {c: rng.uniform(0.15, 2.5) for c in cats}
    metrics = {"scope_1": trade.metric("Scope 1 emissions"), "scope_2_location": trade.metric("Scope 2 emissions")}
    metrics = {k: m for k, m in metrics.items() if m is not None}
    items = {k: [i for i in trade.items if applies(trade, m, i)] for k, m in metrics.items()}
    ref = ctx.year - 1
    v: dict[tuple[str, str], Decimal] = {}
    for y in range(ctx.year - 9, ctx.year + 1):
        yr = rng.fork("year", y)
        level = base * math.exp(-trend * (y - ref))
        year = str(y)
        for key, scale in (("scope_1", 1.0), ("scope_2_location", ratio)):
            if key in metrics:
                v[(key, year)] = world.value(world.query(metrics[key], items[key], y * 12, 12, year))
            else:
                v[(key, year)] = rounded(level * scale * yr.uniform(0.93, 1.07), ONE)
        v[("scope_2_market", year)] = rounded(v[("scope_2_location", year)] * dec(market + yr.uniform(-0.04, 0.04)),
                                              ONE)
        s1 = float(v[("scope_1", year)])
        for c in cats:
            v[(c, year)] = rounded(s1 * mult[c] * yr.uniform(0.9, 1.1), ONE) or ONE
        v[("scope_3", year)] = sum((v[(c, year)] for c in cats), Decimal(0))
        v[("total", year)] = v[("scope_1", year)] + v[("scope_2_market", year)] + v[("scope_3", year)]
    return {"v": v, "categories": cats, "metrics": metrics, "items": items}


def emission(ctx: DocContext, key: str, year: str) -> tuple[Decimal, WorldQuery]:
    """Emissions of ``key`` (a scope or a scope 3 category) in ``year`` and the world's question whose answer
    they are."""
    inv = inventory(ctx)
    value = inv["v"][(key, year)]
    if key in inv["metrics"]:
        return value, ctx.metric_query(inv["metrics"][key], inv["items"][key], year)
    slug, item = (f"emissions.{key}", ITEM) if key in SCOPES else ("emissions.scope_3_category", key)
    return ctx.booked_in(slug, item, year, lambda _rng: value)


# ================================================================ the targets

def targets(ctx: DocContext) -> list[tuple[str, str, str, str]]:
    """The issuer's targets (``ESG_TARGETS`` rows): the emissions target and two to four others."""
    assert ctx.world is not None
    rng = ctx.world.rng.fork("targets")
    others = rng.sample(ESG_TARGETS[1:], rng.integers(2, 5))
    return [ESG_TARGETS[0], *(t for t in ESG_TARGETS[1:] if t in others)]


def _water(ctx: DocContext, year: str) -> tuple[Decimal, WorldQuery]:
    """The year's water withdrawal over every site (``domains.LENSES["resources"]``): the number a Resources
    table totals, so a target's figures and the table of the sites never disagree."""
    with ctx.through("resources"):
        metric = ctx.domain.metric("Water withdrawal")
        assert metric is not None
        items = list(ctx.domain.items)
        value = sum((ctx.metric_value(metric, i, year) for i in items), Decimal(0))
        return value, ctx.metric_query(metric, items, year)


def target_figures(ctx: DocContext, name: str, kind: str, year: str
                   ) -> tuple[int, int, list[tuple[Decimal, WorldQuery]]]:
    """``(baseline year, target year, [baseline, value set, progress in year])`` of target ``name``, each
    figure with the world's question whose answer it is."""
    assert ctx.world is not None
    r = ctx.world.rng.fork("targets", name)
    fy = ctx.year - 1
    base_year = fy - r.integers(3, 7)
    target_year = 2030 if fy <= 2027 else fy + 5
    pace = r.uniform(0.7, 1.4)
    b = str(base_year)

    def done(at: str) -> Decimal:
        return dec(min(1.0, (int(at) - base_year) / (target_year - base_year) * pace))

    if kind == "emissions":
        base = emission(ctx, "total", b)
        goal = ctx.booked_in("targets.goal_emissions", name, b,
                             lambda rng: rounded(base[0] * dec(1 - rng.uniform(0.3, 0.5)), ONE))
        return base_year, target_year, [base, goal, emission(ctx, "total", year)]
    if kind == "number":
        base = _water(ctx, b)
        goal = ctx.booked_in("targets.goal_water", name, b,
                             lambda rng: rounded(base[0] * dec(1 - rng.uniform(0.15, 0.35)), Decimal(100)))
        return base_year, target_year, [base, goal, _water(ctx, year)]
    if kind == "percent":
        lo, hi, levels = PERCENT_TARGETS[name]
        base = ctx.booked_in("targets.baseline_rate", name, b, lambda rng: Decimal(str(round(rng.uniform(lo, hi), 1))))
        goal = ctx.booked_in("targets.goal_rate", name, b, lambda rng: Decimal(rng.choice(levels)))
        now = ctx.booked_in("targets.progress_rate", name, year, lambda _rng: (
            base[0] + (goal[0] - base[0]) * done(year)).quantize(Decimal("0.1")))
        return base_year, target_year, [base, goal, now]
    base = ctx.booked_in("targets.baseline_frequency", name, b,
                         lambda rng: Decimal(str(round(rng.uniform(1.2, 4.5), 2))))
    goal = ctx.booked_in("targets.goal_frequency", name, b,
                         lambda rng: (base[0] * dec(rng.uniform(0.4, 0.7))).quantize(HUNDREDTH))
    now = ctx.booked_in("targets.progress_frequency", name, year, lambda _rng: (
        base[0] - (base[0] - goal[0]) * done(year)).quantize(HUNDREDTH))
    return base_year, target_year, [base, goal, now]


__all__ = ["ESG_TARGETS", "PERCENT_TARGETS", "SCOPE3_CATEGORIES", "SCOPES", "emission", "inventory",
           "target_figures", "targets"]
