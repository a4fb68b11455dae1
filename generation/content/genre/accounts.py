"""The issuer's accounts, quarter by quarter, as its world books them (``DocContext.booked``).

An issuer's accounts are simulated once (``accounts``): from a balance sheet at the end of the year four years
before the issuer's year, each quarter's results and cash flows (the indirect method: the sheet balances at
every quarter end and the cash flow ends on its cash), drawn from the issuer's world stream forked by the
quarter. The simulation is a pure function of the issuer (its stream, its year, its trade and the world's
revenue by item), so any document of the issuer, planned in any order or process, reads the same accounts.

What a document prints of them is a question to the world (``line_query``): each line of a quarter is booked
as ``accounts.<line>`` of the item ``group`` (the consolidated group: measures in
``catalogue/booked/accounts.yaml``), a flow for the quarter and a balance at the quarter's end, and a year's
line is the world's answer over the year (the sum of its four booked quarters; the balance booked for its last
quarter). A document books exactly the quarters its periods need, so the world it records answers them. Where
the trade reports revenue by item (a ``Revenue``-like measure), revenue is the world's sum of the items' and the
revenue by segment is the world's own; else the simulation draws the revenue and splits it among the items
(``accounts.segment_revenue``). The notes' loan terms (the rate, the undrawn facility) and the auditor's
materiality rate are booked the same way.
"""

from __future__ import annotations

import datetime as dt
import math
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ...domains import Domain, Metric, get_domain
from ..book import DocContext
from ..calendar import period_months, quarter_label

ITEM = "group"
"""The one item of the issuer's accounts: the consolidated group."""

REVENUE_METRICS = ("Revenue", "Net sales", "Net revenue", "Sales", "Gross written premium", "Rental income",
                   "Room revenue", "Charter revenue", "Fare revenue", "Advertising revenue")
"""Domain metrics that are the organisation's revenue (summed over all items: the income statement's line)."""

IS_LINES = ("revenue", "cost_of_sales", "gross_profit", "distribution_costs", "administrative_expenses",
            "operating_expenses", "operating_profit", "finance_income", "finance_costs", "profit_before_tax",
            "income_tax", "profit")
BS_LINES = ("ppe", "intangibles", "inventories", "receivables", "cash", "total_assets", "share_capital",
            "retained_earnings", "total_equity", "borrowings", "payables", "current_tax", "total_liabilities",
            "total_equity_liabilities")
CF_LINES = ("dep_amort", "working_capital", "op_cash", "capex_ppe", "capex_intangibles", "investing", "repayment",
            "dividends", "financing", "net_change")

LINE_NAMES: dict[str, tuple[str, str]] = {
    "revenue": ("Revenue", "revenue"),
    "cost_of_sales": ("Cost of sales", "cost_of_sales"),
    "gross_profit": ("Gross profit", "gross_profit"),
    "distribution_costs": ("Distribution costs", "distribution_costs"),
    "administrative_expenses": ("Administrative expenses", "administrative_expenses"),
    "operating_expenses": ("Operating expenses", "operating_expenses"),
    "operating_profit": ("Operating profit", "operating_profit"),
    "finance_income": ("Finance income", "finance_income"),
    "finance_costs": ("Finance costs", "finance_costs"),
    "profit_before_tax": ("Profit before tax", "profit_before_tax"),
    "income_tax": ("Income tax expense", "income_tax_expense"),
    "profit": ("Profit", "profit_for_the_period"),
    "ppe": ("Property, plant and equipment", "property_plant_equipment"),
    "intangibles": ("Intangible assets", "intangible_assets"),
    "inventories": ("Inventories", "inventories"),
    "receivables": ("Trade and other receivables", "trade_receivables"),
    "cash": ("Cash and cash equivalents", "cash_and_equivalents"),
    "total_assets": ("Total assets", "total_assets"),
    "share_capital": ("Share capital", "share_capital"),
    "retained_earnings": ("Retained earnings", "retained_earnings"),
    "total_equity": ("Total equity", "total_equity"),
    "borrowings": ("Borrowings", "borrowings"),
    "payables": ("Trade and other payables", "trade_payables"),
    "current_tax": ("Current tax liabilities", "current_tax_liabilities"),
    "total_liabilities": ("Total liabilities", "total_liabilities"),
    "total_equity_liabilities": ("Total equity and liabilities", "total_equity_and_liabilities"),
    "dep_amort": ("Depreciation and amortisation", "depreciation_amortisation"),
    "working_capital": ("Changes in working capital", "working_capital_change"),
    "op_cash": ("Net cash from operating activities", "operating_cash_flow"),
    "capex_ppe": ("Purchase of property, plant and equipment", "capex_ppe"),
    "capex_intangibles": ("Purchase of intangible assets", "capex_intangibles"),
    "investing": ("Net cash used in investing activities", "investing_cash_flow"),
    "repayment": ("Repayment of borrowings", "repayment_of_borrowings"),
    "dividends": ("Dividends paid", "dividends_paid"),
    "financing": ("Net cash used in financing activities", "financing_cash_flow"),
    "net_change": ("Net change in cash and cash equivalents", "net_change_in_cash"),
}

FLOW_LINES = ("revenue", "cost_of_sales", "gross_profit", "distribution_costs", "administrative_expenses",
              "operating_expenses", "operating_profit", "finance_income", "finance_costs", "profit_before_tax",
              "income_tax", "profit", "dep_amort", "working_capital", "op_cash", "capex_ppe", "capex_intangibles",
              "investing", "repayment", "dividends", "financing", "net_change")
"""Statement lines that accrue over a period (a year's is the sum of its quarters'); the others are balances
at the period's end."""

MATERIALITY_RATES = (Decimal("5.0"), Decimal("5.0"), Decimal("4.5"), Decimal("5.5"))
"""The rates of profit before tax auditors set overall materiality at (drawn once a year per issuer)."""


def dec(x: float | Decimal) -> Decimal:
    return x if isinstance(x, Decimal) else Decimal(str(x))


def rounded(x: float | Decimal, unit: Decimal) -> Decimal:
    """``x`` rounded (half-even) to a multiple of ``unit`` (statements round to thousands)."""
    return (dec(x) / unit).quantize(Decimal(1), rounding=ROUND_HALF_EVEN) * unit


def money_scale(domain: Domain) -> float | None:
    """A yearly amount of the size the domain's money flows run at over all its items (None: no money flows)."""
    highs = [m.high for m in domain.metrics if m.kind == "money" and m.behaviour == "flow" and m.quantity == "amount"]
    return max(highs) * len(domain.items) if highs else None


def revenue_metric(domain: Domain) -> Metric | None:
    for name in REVENUE_METRICS:
        m = domain.metric(name)
        if m is not None and m.kind == "money" and m.behaviour == "flow" and m.quantity == "amount":
            return m
    return None


def quarters_of(period: str) -> list[int]:
    """The quarter indices a year, half or quarter label covers."""
    start, n = period_months(period) or (0, 0)
    return [m // 3 for m in range(start, start + n, 3)]


def _split(total: Decimal, weights: list[float], step: Decimal) -> list[Decimal]:
    """``total`` (a multiple of ``step``) shared in whole steps in proportion to ``weights`` (largest remainder:
    the parts add up to the total exactly)."""
    n = int(total / step)
    raw = [n * w / sum(weights) for w in weights]
    parts = [int(math.floor(x)) for x in raw]
    for i in sorted(range(len(raw)), key=lambda i: (parts[i] - raw[i], i))[:n - sum(parts)]:
        parts[i] += 1
    return [step * p for p in parts]


# ================================================================ the simulation

def accounts(ctx: DocContext) -> dict:
    """The issuer's accounts quarter by quarter (``v[(line, quarter index)]``, a balance at the quarter's end),
    one set for all its documents (kept with its world)."""
    assert ctx.world is not None
    return ctx.world.remember(("statements", "accounts"), lambda: _simulate(ctx))


def _simulate(ctx: DocContext) -> dict:
    assert ctx.world is not None
    world = ctx.world
    trade = get_domain(ctx.domain.slug)
    metric = revenue_metric(trade)
    root = world.rng.fork("accounts")
    rng = root.fork("rates")
    year = ctx.year
    first, last = (year - 4) * 4, year * 4 + 3  # Q1 four years back .. Q4 of the issuer's year

    def world_revenue(k: int) -> Decimal:
        assert metric is not None
        return world.value(world.query(metric, list(trade.items), k * 3, 3, quarter_label(k * 3)))
    rev: dict[int, Decimal] = {}
    if metric is not None:
        rev = {k: world_revenue(k) for k in range(first, last + 1)}
    segments: dict[tuple[str, int], Decimal] = {}
    if not rev or sum(rev[k] for k in range(first + 12, first + 16)) <= 0:
        metric = None  # no revenue by item to speak of: the statements' own, shared among the items
        scale = money_scale(trade)
        base = scale * rng.uniform(0.25, 0.6) if scale else math.exp(rng.uniform(math.log(8e6), math.log(2.5e8)))
        base = min(max(base, 3e6), 2e9)
        growth = rng.uniform(-0.06, 0.16)
        unit0 = Decimal(1000) if base >= 2e6 else Decimal(100)
        rev = {k: rounded(base / 4 * (1 + growth) ** ((k - last) / 4) * root.fork("revenue", k).uniform(0.98, 1.02),
                          unit0) for k in range(first, last + 1)}
        items = list(trade.items)
        sr = root.fork("segments")
        weights = [sr.uniform(0.5, 2.0) for _ in items]
        for k in range(first, last + 1):
            qr = root.fork("segments", k)
            for item, x in zip(items, _split(rev[k], [w * qr.uniform(0.95, 1.05) for w in weights], unit0),
                               strict=True):
                segments[(item, k)] = x
    yearly = sum(rev[k] for k in range(last - 7, last - 3))  # the issuer's last full year
    unit = Decimal(1000) if yearly >= 2_000_000 else Decimal(100)
    A = float(max(yearly, Decimal(1)))
    m = 0.25

    gm = rng.uniform(0.22, 0.58)
    op_share = rng.uniform(0.45, 0.75)
    dist_share = rng.uniform(0.35, 0.6)
    fi_ratio = rng.uniform(0.001, 0.004)
    tax_rate = rng.uniform(0.2, 0.3)
    rate = Decimal(str(round(rng.uniform(3.2, 7.4), 1)))
    payout = rng.uniform(0.3, 0.55)
    v: dict[tuple[str, int], Decimal] = {}

    # the balance sheet before the first quarter: retained earnings balance it
    b = {"ppe": rounded(A * rng.uniform(0.25, 0.8), unit), "intangibles": rounded(A * rng.uniform(0.04, 0.25), unit),
         "inventories": rounded(A * rng.uniform(0.04, 0.14), unit),
         "receivables": rounded(A * rng.uniform(0.1, 0.2), unit), "cash": rounded(A * rng.uniform(0.06, 0.18), unit),
         "share_capital": rounded(A * rng.uniform(0.04, 0.15), unit),
         "borrowings": rounded(A * rng.uniform(0.1, 0.35), unit), "payables": rounded(A * rng.uniform(0.07, 0.15), unit),
         "current_tax": rounded(A * rng.uniform(0.005, 0.02), unit)}
    assets = b["ppe"] + b["intangibles"] + b["inventories"] + b["receivables"] + b["cash"]
    others = b["share_capital"] + b["borrowings"] + b["payables"] + b["current_tax"]
    floor = rounded(A * 0.08, unit)
    if assets - others < floor:
        b["ppe"] += floor - (assets - others)
    b["retained_earnings"] = (b["ppe"] + b["intangibles"] + b["inventories"] + b["receivables"] + b["cash"]
                              - others)

    def pl(r: Decimal, borrowings: Decimal, qr: Rng) -> dict[str, Decimal]:
        g = gm + qr.uniform(-0.015, 0.015)
        cos = -rounded(r * dec(1 - g), unit)
        opex = rounded(r * dec(g * (op_share + qr.uniform(-0.03, 0.03))), unit)
        dist = -rounded(opex * dec(dist_share), unit)
        admin = -opex - dist
        fi = rounded(r * dec(fi_ratio), unit)
        fc = -rounded(borrowings * rate / 100 * dec(m), unit)
        gp = r + cos
        op = gp + dist + admin
        pbt = op + fi + fc
        tax = -rounded(pbt * dec(tax_rate), unit)
        return {"revenue": r, "cost_of_sales": cos, "gross_profit": gp, "distribution_costs": dist,
                "administrative_expenses": admin, "operating_expenses": dist + admin, "operating_profit": op,
                "finance_income": fi, "finance_costs": fc, "profit_before_tax": pbt, "income_tax": tax,
                "profit": pbt + tax}

    def store_bs(k: int, bs: dict[str, Decimal]) -> None:
        bs = dict(bs)
        bs["total_assets"] = bs["ppe"] + bs["intangibles"] + bs["inventories"] + bs["receivables"] + bs["cash"]
        bs["total_equity"] = bs["share_capital"] + bs["retained_earnings"]
        bs["total_liabilities"] = bs["borrowings"] + bs["payables"] + bs["current_tax"]
        bs["total_equity_liabilities"] = bs["total_equity"] + bs["total_liabilities"]
        assert bs["total_assets"] == bs["total_equity_liabilities"], "the balance sheet does not balance"
        for key, x in bs.items():
            v[(key, k)] = x

    store_bs(first - 1, b)
    for k in range(first, last + 1):
        qr = root.fork("quarter", k)
        lines = pl(rev[k], b["borrowings"], qr)
        for key, x in lines.items():
            v[(key, k)] = x
        profit = lines["profit"]
        for attempt in range(60):  # flows that keep cash positive (the indirect method: the sheet balances)
            dep = rounded(b["ppe"] * dec(qr.uniform(0.08, 0.14) * m), unit)
            amort = rounded(b["intangibles"] * dec(qr.uniform(0.1, 0.2) * m), unit)
            capex = rounded(A * qr.uniform(0.03, 0.09) * m, unit)
            intadd = rounded(A * qr.uniform(0.005, 0.03) * m, unit)
            d_inv = rounded(b["inventories"] * dec(qr.uniform(-0.03, 0.05)), unit)
            d_rec = rounded(b["receivables"] * dec(qr.uniform(-0.03, 0.05)), unit)
            d_pay = rounded(b["payables"] * dec(qr.uniform(-0.03, 0.05)), unit)
            d_tax = rounded(b["current_tax"] * dec(qr.uniform(-0.1, 0.12)), unit)
            repay = -rounded(b["borrowings"] * dec(qr.uniform(0.03, 0.15) * m), unit)
            div = -rounded(profit * dec(payout + qr.uniform(-0.05, 0.05)), unit) if profit > 0 else Decimal(0)
            wc = -d_inv - d_rec + d_pay + d_tax
            op_cash = profit + dep + amort + wc
            net = op_cash - capex - intadd + repay + div
            if op_cash > 0 and b["cash"] + net >= dec(A * 0.03) or attempt == 59:
                break
        if b["cash"] + net < 0:  # never in practice: defer the investment rather than overdraw
            capex = max(Decimal(0), capex + b["cash"] + net - rounded(A * 0.03, unit))
            net = op_cash - capex - intadd + repay + div
        cf = {"dep_amort": dep + amort, "working_capital": wc, "op_cash": op_cash, "capex_ppe": -capex,
              "capex_intangibles": -intadd, "investing": -capex - intadd, "repayment": repay, "dividends": div,
              "financing": repay + div, "net_change": net}
        for key, x in cf.items():
            v[(key, k)] = x
        b = {"ppe": b["ppe"] + capex - dep, "intangibles": b["intangibles"] + intadd - amort,
             "inventories": b["inventories"] + d_inv, "receivables": b["receivables"] + d_rec,
             "cash": b["cash"] + net, "share_capital": b["share_capital"],
             "retained_earnings": b["retained_earnings"] + profit + div, "borrowings": b["borrowings"] + repay,
             "payables": b["payables"] + d_pay, "current_tax": b["current_tax"] + d_tax}
        store_bs(k, b)
    return {"v": v, "first": first, "last": last, "rate": rate, "unit": unit, "metric": metric,
            "segments": segments, "items": list(trade.items), "split_opex": rng.bernoulli(0.6)}


# ================================================================ what documents ask of the world

def _book(ctx: DocContext, slug: str, item: str, k: int, value: Decimal) -> None:
    """Book ``value`` for quarter ``k`` (a flow over it, a balance at its end): the accounts' value, the same
    whichever document asks first."""
    ctx.booked(slug, item, k * 3, 3, quarter_label(k * 3), lambda _rng, x=value: x)


def _covered(acc: dict, period: str) -> list[int]:
    ks = quarters_of(period)
    if not ks or ks[0] < acc["first"] or ks[-1] > acc["last"]:
        raise ValueError(f"the issuer's accounts do not cover {period}")
    return ks


def line_query(ctx: DocContext, line: str, period: str) -> WorldQuery:
    """The world's question whose answer is statement ``line`` over ``period`` (a balance at its end): the
    items' revenue where the world has it, else the line booked for each quarter the period needs."""
    acc = accounts(ctx)
    ks = _covered(acc, period)
    if line == "revenue" and acc["metric"] is not None:
        return ctx.metric_query(acc["metric"], acc["items"], period)
    slug = f"accounts.{line}"
    for k in ks if line in FLOW_LINES else ks[-1:]:
        _book(ctx, slug, ITEM, k, acc["v"][(line, k)])
    start, months = period_months(period) or (0, 0)
    assert ctx.world is not None
    return ctx.world.booked_query(slug, [ITEM], start, months, period)


def segment_revenue(ctx: DocContext, period: str) -> dict[str, Decimal]:
    """Where the accounts draw their own revenue: each item's share of it over ``period`` (they add up to the
    statements' revenue), booked for each quarter."""
    acc = accounts(ctx)
    ks = _covered(acc, period)
    out: dict[str, Decimal] = {}
    for item in acc["items"]:
        for k in ks:
            _book(ctx, "accounts.segment_revenue", item, k, acc["segments"][(item, k)])
        out[item] = sum((acc["segments"][(item, k)] for k in ks), Decimal(0))
    return out


def segment_query(ctx: DocContext, items: list[str], period: str) -> WorldQuery:
    """The question whose answer is the revenue of ``items`` over ``period`` (booked by ``segment_revenue``)."""
    start, months = period_months(period) or (0, 0)
    assert ctx.world is not None
    return ctx.world.booked_query("accounts.segment_revenue", items, start, months, period)


def loan_rate(ctx: DocContext, period: str) -> tuple[Decimal, WorldQuery]:
    """The fixed rate of the group's bank term loan (one booking over all the accounts' quarters)."""
    acc = accounts(ctx)
    start, n = acc["first"] * 3, (acc["last"] - acc["first"] + 1) * 3
    assert ctx.world is not None
    value = ctx.booked("accounts.loan_rate", ITEM, start, n, period, lambda _rng: acc["rate"])[0]
    pm = period_months(period) or (0, 0)
    return value, ctx.world.booked_query("accounts.loan_rate", [ITEM], pm[0], pm[1], period)


def undrawn_facility(ctx: DocContext, period: str) -> tuple[Decimal, WorldQuery]:
    """The revolving credit facility left undrawn at the end of ``period``: a part of the borrowings then."""
    acc = accounts(ctx)
    k = _covered(acc, period)[-1]
    borrowings, unit = acc["v"][("borrowings", k)], acc["unit"] * 10

    def draw(rng: Rng) -> Decimal:
        return rounded(borrowings * dec(rng.uniform(0.3, 0.8)), unit) or unit
    value = ctx.booked("accounts.undrawn_facility", ITEM, k * 3, 3, quarter_label(k * 3), draw)[0]
    pm = period_months(period) or (0, 0)
    assert ctx.world is not None
    return value, ctx.world.booked_query("accounts.undrawn_facility", [ITEM], pm[0], pm[1], period)


def materiality_rate(ctx: DocContext, year: str) -> tuple[Decimal, WorldQuery]:
    """The rate of profit before tax the auditor set the group's materiality at for ``year``."""
    return ctx.booked_in("accounts.materiality_rate", ITEM, year, lambda rng: rng.choice(MATERIALITY_RATES))


def loan_dates(ctx: DocContext) -> tuple[dt.date, dt.date]:
    """The term loan's maturity and the revolving facility's expiry (the issuer's, in every document)."""
    assert ctx.world is not None
    r = ctx.world.rng.fork("accounts", "loan")
    maturity = dt.date(ctx.year + r.integers(2, 7), r.choice((3, 6, 9, 12)), r.choice((15, 28)))
    expiry = dt.date(ctx.year + r.integers(1, 5), r.choice((1, 4, 7, 10)), 1)
    return maturity, expiry


__all__ = ["BS_LINES", "CF_LINES", "FLOW_LINES", "IS_LINES", "ITEM", "LINE_NAMES", "REVENUE_METRICS", "accounts",
           "dec", "line_query", "loan_dates", "loan_rate", "materiality_rate", "money_scale", "quarters_of",
           "revenue_metric", "rounded", "segment_query", "segment_revenue", "undrawn_facility"]
