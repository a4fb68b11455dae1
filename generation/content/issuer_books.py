"""The issuer's books as its documents quote them: its journal (the entries of each month, numbered through the
year), its price list, its delegation of authority, its retention schedule and what it states once a year (the
budget envelope its board approved, the rate it translates US dollars at).

Every number here is what the issuer's world books (``DocContext.booked``, measures in ``catalogue/booked/``):
one value per issuer, measure, item and period, drawn from the issuer's stream by its key alone, so every document
of the issuer that prints entry JE/2024/00153, the day rate of Network Planning services or the authority limit
of its finance director prints the same one. What must agree too but is not a number of the world (an entry's
date and counterparty, which rung of the ladder a person holds) is drawn from the issuer's world stream by a key
of the same kind (``_stream``) and kept in the world's memo; the ranges are data (``catalogue/books.yaml``).

A price, a limit or a retention period is a level the issuer's schedule sets (``level``): booked once for the
span the schedule holds and asked for the document's last complete month (a document asks nothing of a period
it has not seen end).
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal

from synthdocqa.ir.facts import Entity
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from .. import catalogue
from ..domains import Metric
from .book import DocContext
from .calendar import month_label


class Band(catalogue.Entry):
    low: float
    high: float
    step: float = 1


class LineKind(catalogue.Entry):
    price: Band
    quantity: Band


class Books(catalogue.Entry):
    postings_a_month: Band
    posting_spread: Band
    posting_without_flow: Band
    lines: dict[str, LineKind]
    price_growth: Band
    price_base_year: int
    authority_limits: list[int]
    envelope_headroom: Band
    fx_per_usd: Band


def books() -> Books:
    return catalogue.load("books.yaml", Books)


def _stream(ctx: DocContext, *key: str | int) -> Rng:
    """The issuer's stream for ``key`` (the same in every document of the issuer)."""
    assert ctx.world is not None
    return ctx.world.rng.fork("books", *key)


def _memo(ctx: DocContext, key: tuple, make: Callable[[], object]):
    """``make()`` once per issuer (a pure function of the issuer's stream and world)."""
    assert ctx.world is not None
    return ctx.world.remember(("books", *key), make)


SCHEDULE_MONTHS = 24
"""How long a schedule the issuer sets (its price list, delegation, retention schedule) holds: from the start of
its last full year to the end of its year of issue (``cal.fy`` is the same in every document of the issuer, so
each of them asks the one booking)."""


def level(ctx: DocContext, slug: str, item: str, draw: Callable[[Rng], object]) -> tuple[Decimal, WorldQuery]:
    """What the issuer's schedule sets for ``item`` (booked from the start of the last full year for
    ``SCHEDULE_MONTHS``), asked for the document's last complete month (a level: the booking covers it)."""
    assert ctx.world is not None
    start = ctx.cal.fy * 12
    month = ctx.cal.last_month
    assert start <= month < start + SCHEDULE_MONTHS
    value = ctx.world.book(slug, item, start, SCHEDULE_MONTHS, draw)
    ctx.asked.add((slug, item, start, SCHEDULE_MONTHS))
    return value, ctx.world.booked_query(slug, [item], month, 1, month_label(month))


def in_last_month(ctx: DocContext, slug: str, item: str, draw: Callable[[Rng], object]) -> tuple[Decimal, WorldQuery]:
    """What the world booked for ``item`` in the document's last complete month (a document's own line, an
    archive file's contents: recorded the month before it is issued)."""
    month = ctx.cal.last_month
    return ctx.booked(slug, item, month, 1, month_label(month), draw)


# ---------------------------------------------------------------- the journal

@dataclass(frozen=True)
class Posting:
    ref: str
    month: int
    day: dt.date
    counterparty: int
    """Index in the issuer's counterparties."""


def journal(ctx: DocContext, month: int) -> tuple[Posting, ...]:
    """The issuer's journal entries of ``month`` in date order, numbered on from the year's earlier months."""
    def make() -> tuple[Posting, ...]:
        rng = _stream(ctx, "journal", month)
        band = books().postings_a_month
        n = rng.integers(int(band.low), int(band.high) + 1)
        before = sum(len(journal(ctx, m)) for m in range(month - month % 12, month))
        first = dt.date(month // 12, month % 12 + 1, 1)
        days = (dt.date((month + 1) // 12, (month + 1) % 12 + 1, 1) - first).days
        offsets = sorted(rng.integers(0, days) for _ in range(n))
        k = len(ctx.counterparties)
        return tuple(Posting(f"JE/{month // 12}/{before + i + 1:05d}", month, first + dt.timedelta(days=o),
                             rng.integers(0, k)) for i, o in enumerate(offsets))
    return _memo(ctx, ("journal", month), make)


def _main_flow(ctx: DocContext) -> Metric | None:
    """The trade's first money flow (revenue, spend, fees): what its journal mostly posts."""
    assert ctx.world is not None
    return next((m for m in ctx.world.trade.metrics if m.kind == "money" and m.behaviour == "flow"
                 and m.quantity == "amount" and m.low >= 0), None)


def _flow(ctx: DocContext, metric: Metric, start: int, months: int) -> float:
    """The trade's total of ``metric`` over the months (read from the world, not asked: a booking that follows
    from it records only itself)."""
    assert ctx.world is not None
    w = ctx.world
    label = month_label(start) if months == 1 else str(start // 12)
    return float(w.value(w.query(metric, list(w.trade.items), start, months, label)))


def posting_amount(ctx: DocContext, p: Posting) -> tuple[Decimal, WorldQuery]:
    """The amount of entry ``p``: a multiple of the month's average posting of the trade's main money flow."""
    def draw(rng: Rng) -> Decimal:
        b = books()
        metric = _main_flow(ctx)
        if metric is None:
            avg = math.exp(rng.uniform(math.log(b.posting_without_flow.low), math.log(b.posting_without_flow.high)))
        else:
            avg = max(1.0, _flow(ctx, metric, p.month, 1) / len(journal(ctx, p.month)))
        s = b.posting_spread
        x = avg * math.exp(rng.uniform(math.log(s.low), math.log(s.high)))
        return max(Decimal("1.00"), Decimal(str(round(x, 2))))
    return ctx.booked("ledger.posting", p.ref, p.month, 1, month_label(p.month), draw)


# ---------------------------------------------------------------- the price list and lines

def line_kind(group: str, expense: bool = False) -> str:
    """The kind of a billed line (``catalogue/books.yaml`` lines) by the group it comes from
    (``tables.line_groups``)."""
    if expense:
        return "expenses"
    if group.endswith(" support"):
        return "support"
    return "reviews" if group == "reviews" else "services"


def unit_price(ctx: DocContext, description: str, kind: str) -> tuple[Decimal, WorldQuery]:
    """The price list's unit price of ``description``: the issuer's base price of it (a multiple of the kind's
    step) grown by the issuer's yearly rate from the base year to the schedule's first year."""
    year = ctx.cal.fy

    def draw(rng: Rng) -> Decimal:
        b = books()
        band = b.lines[kind].price
        base = _stream(ctx, "price", description).integers(math.ceil(band.low / band.step),
                                                           math.floor(band.high / band.step) + 1) * band.step
        growth = 1 + _stream(ctx, "price growth").uniform(b.price_growth.low, b.price_growth.high)
        x = base * growth ** (year - b.price_base_year)
        return Decimal(str(max(band.step, round(x / band.step) * band.step))).normalize() + 0
    return level(ctx, "trade.unit_price", description, draw)


def line_quantity(ctx: DocContext, line: str, kind: str) -> tuple[Decimal, WorldQuery]:
    """The quantity of one line (``line``: the document's number or key and the line's description)."""
    band = books().lines[kind].quantity
    return in_last_month(ctx, "trade.quantity", line, lambda rng: rng.integers(int(band.low), int(band.high) + 1))


# ---------------------------------------------------------------- delegation of authority

SENIORITY = (("chief", 5), ("president", 5), ("director", 4), ("head", 4), ("dean", 4), ("controller", 3),
             ("manager", 3), ("principal", 3), ("lead", 2), ("officer", 2))


def seniority(role: str) -> int:
    """How senior a job title reads (``Chief Financial Officer`` over ``Head of Tax`` over ``Treasury
    Manager`` over ``Analyst``): approvals go up the ladder."""
    low = role.lower()
    return next((rank for word, rank in SENIORITY if word in low), 1)


def delegation(ctx: DocContext) -> dict[str, Decimal]:
    """The issuer's delegation of authority: each of its people's limit, one rung of ``authority_limits`` each,
    rising with seniority (ties by name), the most senior on one of the top two rungs."""
    def make() -> dict[str, Decimal]:
        ladder = books().authority_limits
        rng = _stream(ctx, "delegation")
        ranked = sorted(ctx.people, key=lambda p: (seniority(p.role), p.name), reverse=True)
        out: dict[str, Decimal] = {}
        at = len(ladder) - 1 - rng.integers(0, 2)
        for i, p in enumerate(ranked):
            out[p.name] = Decimal(ladder[max(at, 0)])
            below = len(ranked) - i - 1
            at -= rng.integers(1, 3) if at - 2 >= below else 1
        return out
    return _memo(ctx, ("delegation",), make)


def authority_limit(ctx: DocContext, person: Entity) -> tuple[Decimal, WorldQuery]:
    """``person``'s authority limit under the issuer's delegation (booked for the year)."""
    limit = delegation(ctx)[person.name]
    return level(ctx, "trade.authority_limit", person.name, lambda rng: limit)


# ---------------------------------------------------------------- records and what a year states

def retention_years(ctx: DocContext, what: str, years: int) -> tuple[Decimal, WorldQuery]:
    """The retention schedule's years for a form or class of records ``what`` (the schedule's ``years``)."""
    return level(ctx, "records.retention_years", what, lambda rng: years)


def certificate_validity(ctx: DocContext, certificate: str, months: int) -> tuple[Decimal, WorldQuery]:
    """How many months certificate ``certificate`` is valid for (the issuer's schedule: the data's ``months``)."""
    return level(ctx, "records.certificate_validity", certificate, lambda rng: months)


def convention(ctx: DocContext, rule: str, item: str, value: Decimal) -> tuple[Decimal, WorldQuery]:
    """A rule of the issuer's jurisdiction stated as a number (a tax rate, the statutory late-payment interest,
    the fixed recovery charge: ``value`` from the countries table), as its world holds it."""
    return level(ctx, f"conventions.{rule}", item, lambda rng: value)


def documents_enclosed(ctx: DocContext, ref: str, low: int, high: int) -> tuple[Decimal, WorldQuery]:
    """How many documents archive file ``ref`` holds."""
    return in_last_month(ctx, "records.documents_enclosed", ref, lambda rng: rng.integers(low, high + 1))


def budget_envelope(ctx: DocContext) -> tuple[Decimal, WorldQuery] | None:
    """The budget envelope the board approved for the last full year: the year's main money flow with some
    headroom, to three significant figures (None for a trade without a money flow)."""
    metric = _main_flow(ctx)
    if metric is None:
        return None
    fy = ctx.cal.fy

    def draw(rng: Rng) -> Decimal:
        h = books().envelope_headroom
        x = max(1000.0, _flow(ctx, metric, fy * 12, 12) * rng.uniform(h.low, h.high))
        step = 10 ** max(0, math.floor(math.log10(x)) - 2)
        return Decimal(int(round(x / step)) * step)
    return ctx.booked_in("ledger.budget_envelope", "budget", str(fy), draw)


def fx_rate(ctx: DocContext, currency: str) -> tuple[Decimal, WorldQuery]:
    """The rate (``currency`` per USD, four places) the issuer translated US dollars at in the year."""
    def draw(rng: Rng) -> Decimal:
        band = books().fx_per_usd
        return Decimal(str(round(rng.uniform(band.low, band.high), 4)))
    return level(ctx, "ledger.fx_rate", f"{currency}/USD", draw)


__all__ = ["Books", "Posting", "authority_limit", "books", "budget_envelope", "delegation", "documents_enclosed",
           "fx_rate", "in_last_month", "journal", "level", "line_kind", "line_quantity", "posting_amount",
           "retention_years", "seniority", "unit_price"]
