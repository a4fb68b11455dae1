"""Lint kind ``coherence``: each defect a reader found is planted and caught; planned documents are clean."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from synthdocqa.corpus.views import coherence
from synthdocqa.generation import world as world_mod
from synthdocqa.generation.planner import plan_document
from synthdocqa.generation.world import WorldCatalogue, world_catalogue
from synthdocqa.ir import values
from synthdocqa.ir.blocks import TextBlock
from synthdocqa.ir.facts import Fact
from synthdocqa.ir.spec import CorpusSpec, spec_for_profile
from synthdocqa.ir.world import WorldQuery


def _doc(domain: str, seed: int = 71):
    base = spec_for_profile("reference", seed, 1)
    spec = CorpusSpec.model_validate({**base.model_dump(), "domains": [domain]})
    return plan_document(spec, 0)


def _fact(n: int, measure: str, item: str, period: str, start: int, months: int, value, quantity="amount",
          label: str = "") -> Fact:
    text = str(value)
    return Fact(id=f"f{9000 + n}", label=label or f"{measure} of {item} in {period}", value=value, text=text,
                quantity=quantity, query=WorldQuery(measure=measure, items=[item], period=period, start=start,
                                                    months=months))


def _with(doc, *facts):
    """The document with only the planted facts (its own would pair with them too)."""
    return doc.model_copy(update={"facts": list(facts)})


def _money(x) -> values.MoneyValue:
    return values.MoneyValue(amount=Decimal(x), currency="EUR")


def _count(x, unit="vehicles") -> values.NumberValue:
    return values.NumberValue(value=Decimal(x), unit=unit)


def _pages(doc):
    return [(p.page_no, " ".join(s.text for b in p.blocks if isinstance(b, TextBlock) for s in b.spans))
            for p in doc.pages]


@pytest.mark.parametrize(("seed", "domain"), [(72, "automotive"), (73, "ecommerce"), (74, "retail"),
                                              (75, "healthcare_admin"), (76, "insurance")])
def test_planned_documents_are_coherent(seed, domain):
    doc = _doc(domain, seed)
    assert coherence.coherence_problems(doc, _pages(doc)) == []


def test_eur_64_a_car_and_more_claims_than_vans_are_caught():
    doc = _doc("automotive")
    y = 2025 * 12
    cars = _fact(1, "units_sold", "Electric Crossover", "2025", y, 12, _count(161425), "count")
    revenue = _fact(2, "revenue", "Electric Crossover", "2025", y, 12, _money(10_400_000))
    vans = _fact(3, "units_sold", "Van", "2025", y, 12, _count(1798), "count")
    claims = _fact(4, "warranty_claims", "Van", "2025", y, 12, _count(3284, "claims"), "count")
    found = coherence.ratio_problems(_with(doc, cars, revenue, vans, claims))
    assert [c for c, _, _ in found] == ["implied_ratio", "implied_ratio"]
    assert "Electric Crossover" in found[0][1] and "per vehicle" in found[0][1]
    assert "Van" in found[1][1]
    fair = _fact(2, "revenue", "Electric Crossover", "2025", y, 12, _money(7_100_000_000))
    assert coherence.ratio_problems(_with(doc, cars, fair)) == []  # EUR 44,000 a car


def test_an_average_order_that_is_not_sales_over_orders_is_caught():
    doc = _doc("ecommerce")
    q = 2025 * 12 + 6
    orders = _fact(1, "orders", "Paid search", "Q3 2025", q, 3, _count(18485, "orders"), "count")
    gmv = _fact(2, "gross_merchandise_value", "Paid search", "Q3 2025", q, 3, _money(7_800))
    aov = _fact(3, "average_order_value", "Paid search", "Q3 2025", q, 3, _money(212), "ratio")
    found = coherence.ratio_problems(_with(doc, orders, gmv, aov))
    assert {c for c, _, _ in found} == {"implied_ratio"} and len(found) == 2  # GMV per order, and the AOV
    right = _fact(3, "average_order_value", "Paid search", "Q3 2025", q, 3, _money("0.42"), "ratio")
    assert [d for _, d, _ in coherence.ratio_problems(_with(doc, orders, gmv, right))
            if "Average" in d or "average" in d.split(" over ")[0]] == []


def test_a_chart_label_of_zero_against_its_table_is_caught():
    doc = _doc("retail")
    y = 2025 * 12
    cell = _fact(1, "shrinkage", "Mall East", "2025", y, 12, _money(460))
    label = _fact(2, "shrinkage", "Mall East", "2025", y, 12,
                  values.MoneyValue(amount=Decimal(0), currency="USD", scale="thousand"))
    found = coherence.same_figure_problems(_with(doc, cell, label))
    assert [c for c, _, _ in found] == ["same_figure"] and "zero" in found[0][1]
    close = _fact(2, "shrinkage", "Mall East", "2025", y, 12,
                  values.MoneyValue(amount=Decimal("0.46"), currency="USD", scale="thousand"))
    assert coherence.same_figure_problems(_with(doc, cell, close)) == []


def test_a_measure_for_an_item_it_does_not_exist_for_is_caught(monkeypatch):
    doc = _doc("healthcare_admin")
    wards = ["Emergency", "Cardiology", "Orthopaedics", "Oncology", "Paediatrics", "Maternity", "Surgery",
             "Neurology", "General Medicine"]
    cat = WorldCatalogue(domains=world_catalogue().domains, lenses=world_catalogue().lenses,
                         only={"healthcare_admin": {"Bed occupancy": wards}})
    monkeypatch.setattr(world_mod, "world_catalogue", lambda: cat)
    beds = _fact(1, "bed_occupancy", "Geriatrics", "2025", 2025 * 12, 12, values.PercentValue(value=Decimal("58.8")),
                 "rate")
    found = coherence.applies_problems(_with(doc, beds))
    assert [c for c, _, _ in found] == ["measure_applies"] and "Geriatrics has no bed occupancy" in found[0][1]
    ok = _fact(1, "bed_occupancy", "Surgery", "2025", 2025 * 12, 12, values.PercentValue(value=Decimal("88.0")),
               "rate")
    assert coherence.applies_problems(_with(doc, ok)) == []


def test_periods_after_the_document_date_are_caught():
    doc = _doc("automotive").model_copy(update={"as_at": dt.date(2024, 3, 15)})
    pages = [(1, "The committee heard the position as at April 2024 from the finance director.")]
    found = coherence.period_problems(doc.model_copy(update={"facts": []}), pages)
    assert [c for c, _, _ in found] == ["period_after_date"]
    assert coherence.period_problems(doc.model_copy(update={"facts": []}),
                                     [(1, "the position as at 29 February 2024")]) == []
    late = _fact(1, "units_sold", "Van", "Q2 2024", 2024 * 12 + 3, 3, _count(500), "count")
    found = coherence.period_problems(doc.model_copy(update={"facts": [late]}), [])
    assert [c for c, _, _ in found] == ["period_after_date"] and "Q2 2024" in found[0][1]


def test_unaudited_in_an_audited_document_is_caught():
    pages = [(3, "Independent Auditor's Report to the members"), (9, "These figures are unaudited and may change.")]
    assert [(c, p) for c, _, p in coherence.standing_text_problems(pages)] == [("standing_text", 9)]
    assert coherence.standing_text_problems(pages[1:]) == []


def test_one_figure_two_values_across_an_issuers_documents_is_caught():
    doc = _doc("automotive")
    y = 2025 * 12
    a = _fact(1, "units_sold", "Van", "2025", y, 12, _count(1798), "count")
    b = _fact(1, "units_sold", "Van", "2025", y, 12, _count(2400), "count")
    one, two = _with(doc, a), _with(doc, b)
    found = coherence.issuer_problems([("doc-a", one), ("doc-b", two)])
    assert [(d, c) for d, c, _ in found] == [("doc-b", "same_figure")]
    assert coherence.shared_figures([("doc-a", one), ("doc-b", two)])[0] >= 1
    other = two.model_copy(update={"world": two.world.model_copy(update={"issuer": "someone-else"})})
    assert coherence.issuer_problems([("doc-a", one), ("doc-b", other)]) == []


@pytest.mark.parametrize("text", ["As at 30 April 2024 the backlog stood", "as of April 30, 2024, the backlog",
                                  "the position as at Apr 2024"])
def test_an_as_at_date_after_the_document_is_caught_however_written(text):
    doc = _doc("automotive").model_copy(update={"as_at": dt.date(2024, 3, 15), "facts": []})
    assert [c for c, _, _ in coherence.period_problems(doc, [(2, text)])] == ["period_after_date"]
    early = text.replace("2024", "2023")
    assert coherence.period_problems(doc, [(2, early)]) == []


def test_two_balance_sheets_of_one_issuer_at_one_date_must_agree():
    """The annual report's "2025" column and the quarterly's "Q4 2025" column are one balance sheet."""
    doc = _doc("automotive")

    def assets(n, period, amount):
        return Fact(id=f"f{9100 + n}", label=f"Total assets at 31 December 2025 ({period})", value=_money(amount),
                    text=str(amount), attribute="total_assets", period=period, quantity="amount")
    annual = doc.model_copy(update={"facts": [assets(1, "2025", 6_907_228_000)]})
    quarterly = doc.model_copy(update={"facts": [assets(2, "Q4 2025", 7_129_195_000)]})
    found = coherence.issuer_problems([("doc-a", annual), ("doc-b", quarterly)])
    assert [(d, c) for d, c, _ in found] == [("doc-b", "same_figure")]
    same = doc.model_copy(update={"facts": [assets(2, "Q4 2025", 6_907_228_000)]})
    assert coherence.issuer_problems([("doc-a", annual), ("doc-b", same)]) == []


def test_two_documents_storing_two_worlds_of_one_issuer_are_caught():
    """A risk scored 4 in one document and 3 in another of the same issuer (a booking), or a driver drawn twice:
    the stored worlds of an issuer's documents must be one world."""
    from synthdocqa.ir.world import Booked, Entry, IssuerWorld, Measure

    m = Measure(slug="risk.impact", name="impact score", kind="count", quantity="index", behaviour="level",
                low=1, high=5)

    def doc_with(score: int, issuer: str = "acme-0"):
        world = IssuerWorld(issuer=issuer, measures=[m], entries=[Entry(measure="risk.impact", item="R-07", booked=[
            Booked(start=2025 * 12, months=12, value=Decimal(score))])])
        return _doc("automotive").model_copy(update={"facts": [], "world": world})
    a, b = doc_with(4), doc_with(3)
    found = coherence.issuer_problems([("doc-a", a), ("doc-b", b)])
    assert [(d, c) for d, c, _ in found] == [("doc-b", "same_world")] and "R-07" in found[0][2]
    assert coherence.issuer_problems([("doc-a", a), ("doc-b", doc_with(4))]) == []
    assert coherence.issuer_problems([("doc-a", a), ("doc-b", doc_with(3, "other-0"))]) == []
    planned = _doc("retail")
    entry = planned.world.entries[0]
    assert entry.driver is not None
    moved = entry.driver.model_copy(update={"level": entry.driver.level * 2})
    twin = planned.model_copy(update={"facts": [], "world": planned.world.model_copy(update={"entries": [
        entry.model_copy(update={"driver": moved}), *planned.world.entries[1:]]})})
    found = coherence.issuer_problems([("doc-a", planned.model_copy(update={"facts": []})), ("doc-b", twin)])
    assert [(d, c) for d, c, _ in found] == [("doc-b", "same_world")]


def test_a_balance_asked_for_a_year_and_for_its_last_quarter_is_one_figure():
    """A stock is its value at the period's end: the annual report's balance for 2025 and the quarterly's for
    Q4 2025 are one printing of the same quantity, compared across the issuer's documents."""
    from synthdocqa.ir.world import Booked, Entry, IssuerWorld, Measure

    m = Measure(slug="accounts.cash", name="cash", kind="money", quantity="amount", behaviour="stock", low=0,
                high=1e12)
    y = 2025 * 12

    def doc_with(start: int, months: int, amount: int):
        world = IssuerWorld(issuer="acme-0", measures=[m], entries=[Entry(measure="accounts.cash", item="group",
                            booked=[Booked(start=start, months=months, value=Decimal(amount))])])
        f = _fact(1, "accounts.cash", "group", "2025", start, months, _money(amount))
        return _doc("automotive").model_copy(update={"facts": [f], "world": world})
    annual, quarterly = doc_with(y, 12, 13_394_958_000), doc_with(y + 9, 3, 12_792_761_000)
    found = coherence.issuer_problems([("doc-a", annual), ("doc-b", quarterly)])
    assert [(d, c) for d, c, _ in found if c == "same_figure"] == [("doc-b", "same_figure")]
    same = doc_with(y + 9, 3, 13_394_958_000)
    assert coherence.shared_figures([("doc-a", annual), ("doc-b", same)]) == (1, 1)
