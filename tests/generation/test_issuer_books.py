"""The issuer's books (``generation.content.issuer_books``): a journal entry, a price, a quantity of a document's
line, an authority limit and a retention period are what the issuer's world booked, the same in every document of
the issuer whichever asks first, and every table that prints them answers ``verify``."""

from __future__ import annotations

from decimal import Decimal

from synthdocqa.generation.content import issuer_books as ib
from synthdocqa.generation.content import tables
from synthdocqa.generation.domains import get_domain, get_recipe
from synthdocqa.generation.planner import document_context, shared_world
from synthdocqa.ir import Rng
from synthdocqa.ir.derivations import derivation_problems, world_problems


def _ctx(day: int, recipe: str = "audit_memo", domain: str = "logistics"):
    """A document of the one issuer ``acme``, dated by ``day``, with a world of its own (as in another process)."""
    shared_world.cache_clear()
    ctx, _ = document_context(Rng(day).fork("doc", day), get_domain(domain), get_recipe(recipe),
                              issuer=Rng(11).fork("issuer", "acme"), issuer_key="acme")
    return ctx


def test_a_journal_entry_is_the_issuer_s_whichever_document_asks_first():
    a, b = _ctx(1), _ctx(2)
    assert a.anchor != b.anchor and a.cal.fy == b.cal.fy
    months = range(a.cal.fy * 12, a.cal.fy * 12 + 3)
    first = [(p, ib.posting_amount(a, p)[0]) for m in months for p in ib.journal(a, m)]
    second = [(p, ib.posting_amount(b, p)[0]) for m in reversed(months) for p in reversed(ib.journal(b, m))]
    assert first == second[::-1]
    refs = [p.ref for p, _ in first]
    assert refs == [f"JE/{a.cal.fy}/{i + 1:05d}" for i in range(len(refs))]  # numbered through the year
    days = [p.day for p, _ in first]
    assert days == sorted(days) and all(amount >= 1 for _, amount in first)


def test_a_price_is_the_price_list_s_and_a_limit_the_delegation_s_in_every_document():
    a, b = _ctx(3, "invoice"), _ctx(4, "purchase_order")
    for kind, desc in (("services", "Transport services, Hamburg to Milan"), ("reviews", "Fuel surcharges review")):
        pa, qa = ib.unit_price(a, desc, kind)
        pb, qb = ib.unit_price(b, desc, kind)
        band = ib.books().lines[kind].price
        assert pa == pb and band.low <= pa and pa % Decimal(str(band.step)) == 0
    limits = ib.delegation(a)
    assert limits == ib.delegation(b)
    ranked = sorted(a.people, key=lambda p: (ib.seniority(p.role), p.name))
    values = [limits[p.name] for p in ranked]
    assert values == sorted(values) and len(set(values)) == len(values)
    assert values[-1] >= Decimal(5_000_000)  # the most senior can approve any order the issuer places
    assert {ib.authority_limit(a, p)[0] for p in a.people} == set(values)


def test_a_register_and_line_items_are_queries_that_verify():
    ctx = _ctx(5)
    reg = tables.register_table(ctx, Rng(1), 30)
    lines = tables.line_item_table(ctx, Rng(2), 6)
    facts = ctx.book.facts
    assert world_problems(facts, ctx.world_record()) == [] and derivation_problems(facts) == []
    numbers = [f for f in facts if f.value.kind in ("money", "number") and f.derivation is None]
    assert numbers and all(f.query is not None for f in numbers)
    assert len(reg.rows) == 31 and lines.rows


def test_the_others_share_is_within_a_tenth_of_its_exact_share():
    values = {k: Decimal(v) for k, v in zip("abcdefgh", (301, 299, 151, 149, 51, 49, 3, 1), strict=True)}
    total = sum(values.values())
    ranked = sorted(values, key=lambda k: -values[k])
    shares = dict(zip(ranked, tables.largest_remainder_shares([values[k] for k in ranked]), strict=True))
    for most in range(1, 8):
        shown = tables.other_split(ranked, values, total, shares, most)
        rest = sum(values[k] for k in ranked[len(shown):])
        assert 1 <= len(shown) <= most
        assert abs(Decimal(100) - sum(shares[k] for k in shown) - rest / total * 100) < Decimal("0.1")
