"""Semantics and coherence of planned documents (issue 14, points 1 and 2), as property tests.

Every number and date has a semantic type; totals only sum additive columns; changes are plausible and
in percentage points for rates; running totals never go down; a share of one whole has one value;
every organisation has one address that holds together; one reference number per document; nothing is
reported after the document's as-at date; names keep their case; a recipe's length and charts. A broken
document is planted for each check, so the checks can fail.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from synthdocqa.generation.content.calendar import Calendar, period_end, period_months
from synthdocqa.generation.domains import (
    DOMAINS,
    RECIPE_BY_SLUG,
    RECIPES,
    Metric,
    get_domain,
    metric_semantics,
)
from synthdocqa.generation.planner import plan_document, planned_page_count, recipe_and_pages
from synthdocqa.generation.world import IssuerWorldBuilder
from synthdocqa.ir import Derivation, DocumentIR, Fact, Rng, TextBlock
from synthdocqa.ir.arithmetic_rules import quantity_allows, unit_for_count
from synthdocqa.ir.spec import REFERENCE_PLANNED_PAGES, REFERENCE_RECIPE_MIX, demo_spec, reference_spec
from synthdocqa.ir.values import NumberValue, PercentValue
from synthdocqa.ir.world import display
from synthdocqa.ir.world import raw as world_raw
from tests.generation.plan_checks import (
    all_problems,
    casing_problems,
    change_problems,
    coherence_problems,
    count_unit_problems,
    identity_problems,
    period_problems,
    quantity_problems,
    recipe_problems,
    reference_problems,
    semantic_problems,
    share_problems,
    status_problems,
    summary_problems,
    trajectory_problems,
    whole_problems,
)

SEEDS = st.integers(min_value=0, max_value=2**63 - 1)


# ----------------------------------------------------------------- properties
# (that any demo or reference document passes every check: test_consistency_properties)

@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, domain=st.sampled_from([d.slug for d in DOMAINS]))
def test_every_domain_plans_soundly(seed, domain):
    spec = demo_spec(seed=seed, n_docs=2).model_copy(update={"domains": [domain]})
    doc = plan_document(spec, 1)
    assert semantic_problems(doc) + coherence_problems(doc) + recipe_problems(doc) == []


def test_checks_are_not_vacuous():
    """The sample holds what the checks look at: percent and pp changes, averages of rates, running totals,
    shares of one whole in two blocks, addresses in several countries, action statuses."""
    seen: Counter[str] = Counter()
    countries = set()
    for i in range(40):
        spec = demo_spec(seed=41, n_docs=40) if i % 2 else reference_spec(seed=41, n_docs=40)
        doc = plan_document(spec, i)
        facts = doc.fact_index()
        for f in doc.facts:
            d = f.derivation
            if d is not None and d.op == "percent_change":
                seen["percent change"] += 1
            if d is not None and d.op == "difference" and facts[d.operands[0]].quantity == "rate":
                seen["pp change"] += 1
            if d is not None and d.op == "mean":
                seen["mean row"] += 1
            if f.label.startswith("Share of "):
                seen["share"] += 1
            if f.label.startswith("Status of the action"):
                seen["status"] += 1
            m = get_domain(doc.domain).metric(f.attribute)
            if m is not None and m.behaviour == "cumulative":
                seen["running total"] += 1
        countries |= {e.attributes["country"] for e in doc.entities if e.kind == "organisation"}
    assert set(seen) == {"percent change", "pp change", "mean row", "share", "status", "running total"}, seen
    assert len(countries) >= 5


# ----------------------------------------------------------------- planted errors

def _doc_with(pred, specs=None) -> DocumentIR:
    for spec in specs or [demo_spec(seed=s, n_docs=8) for s in range(30)]:
        for i in range(spec.n_docs):
            doc = plan_document(spec, i)
            if pred(doc):
                return doc
    raise AssertionError("no planned document has the feature")


def _with_paragraph(domain: str, text: str) -> DocumentIR:
    """A planned document of ``domain`` with one more paragraph, saying ``text``, on its first page."""
    doc = _doc_with(lambda d: d.domain == domain,
                    [demo_spec(seed=s, n_docs=8).model_copy(update={"domains": [domain]}) for s in range(3)])
    planted = TextBlock(id="b999", spans=[{"text": text}])
    pages = [p.model_copy(update={"blocks": [*p.blocks, planted]}) if p.page_no == 1 else p for p in doc.pages]
    return doc.model_copy(update={"pages": pages})


def _replace_fact(doc: DocumentIR, fid: str, **update) -> DocumentIR:
    return doc.model_copy(update={"facts": [f.model_copy(update=update) if f.id == fid else f for f in doc.facts]})


def _add_fact(doc: DocumentIR, fact: Fact) -> DocumentIR:
    return doc.model_copy(update={"facts": [*doc.facts, fact]})


def _with_op(doc: DocumentIR, op: str, quantity: str | None = None) -> Fact | None:
    facts = doc.fact_index()
    return next((f for f in doc.facts if f.derivation is not None and f.derivation.op == op and (
        quantity is None or facts[f.derivation.operands[0]].quantity == quantity)), None)


def test_planted_errors_are_caught():
    doc = _doc_with(lambda d: _with_op(d, "percent_change") is not None and _with_op(d, "difference", "rate")
                    is not None and len([f for f in d.facts if f.quantity == "rate"]) >= 2
                    and any(f.value.kind == "money" for f in d.facts))
    assert semantic_problems(doc) == [] and coherence_problems(doc) == [] and recipe_problems(doc) == []
    nid = f"f{len(doc.facts) + 1:04d}"

    # a number without a semantic type
    money = next(f for f in doc.facts if f.value.kind == "money")
    assert quantity_problems(_replace_fact(doc, money.id, quantity=None))
    # a sum of percentages ("546%")
    r1, r2 = [f for f in doc.facts if f.quantity == "rate"][:2]
    bad = Fact(id=nid, label="Total of two rates", value=PercentValue(value=r1.value.value + r2.value.value),
               quantity="rate", text="x", derivation=Derivation(op="sum", operands=[r1.id, r2.id]))
    assert summary_problems(_add_fact(doc, bad))
    # an implausible change (+15,194%) and a percent change of percentages
    pc = _with_op(doc, "percent_change")
    assert change_problems(_replace_fact(doc, pc.id, value=PercentValue(value=Decimal("15194.0"))))
    a, b = pc.derivation.operands
    pct_of_rates = Fact(id=nid, label="Change of two rates", value=PercentValue(value=Decimal(3)), quantity="rate",
                        text="3.0%", derivation=Derivation(op="percent_change", operands=[r1.id, r2.id]))
    assert change_problems(_add_fact(doc, pct_of_rates))
    # a difference of rates stated in "%" rather than percentage points
    pp = _with_op(doc, "difference", "rate")
    assert change_problems(_replace_fact(doc, pp.id, value=NumberValue(value=pp.value.value, unit="%")))
    # a share of X with two values
    share = next((f for f in doc.facts if f.label.startswith("Share of ") and "other" not in f.label), None)
    if share is not None:
        twin = share.model_copy(update={"id": nid, "label": share.label.replace("Table", "Tables"),
                                        "value": PercentValue(value=share.value.value + 1)})
        assert share_problems(_add_fact(doc, twin))

    # one total with two values in one document (two tables summing different rows under one name)
    total = next((f for f in doc.facts if f.label.startswith("Total ") and f.derivation is not None), None)
    if total is not None:
        twin = total.model_copy(update={"id": nid, "label": total.label + " (Table 99)", "text": total.text + "0"})
        assert whole_problems(_add_fact(doc, twin))

    # an address whose postcode belongs to another city (Stockholm / "Denver, CO")
    issuer = next(e for e in doc.entities if e.kind == "organisation")
    moved = issuer.model_copy(update={"attributes": {**issuer.attributes, "city": "Stockholm"}})
    assert identity_problems(doc.model_copy(update={"entities": [moved, *doc.entities[1:]]}))
    wrong_code = issuer.model_copy(update={"attributes": {**issuer.attributes, "postcode": "ZZ9 9ZZ"}})
    assert identity_problems(doc.model_copy(update={"entities": [wrong_code, *doc.entities[1:]]}))
    # a second reference number in the body
    other = doc.reference[:-5] + ("00000" if not doc.reference.endswith("00000") else "11111")
    block = TextBlock(id="b999", spans=[{"text": f"See reference {other}."}])
    pages = [p.model_copy(update={"blocks": [*p.blocks, block]}) if p.page_no == 1 else p for p in doc.pages]
    assert reference_problems(doc.model_copy(update={"pages": pages}))
    assert reference_problems(doc.model_copy(update={"reference": ""}))
    # a period after the as-at date (Q3/Q4 2024 in a report as at June 2024)
    dated = next(f for f in doc.facts if period_months(f.period))
    assert period_problems(doc.model_copy(update={"as_at": period_end(dated.period) - dt.timedelta(days=1)}))
    # a proper name lower-cased in prose ("zone d coastal")
    assert casing_problems(_with_paragraph("water_utilities", "The chart shows water supplied for zone d coastal."))
    # a count's unit that does not agree in number ("1 incidents")
    assert count_unit_problems(_with_paragraph("information_technology", "Only 1 incidents was logged."))
    # a 23-page invoice, an expense claim with a chart
    long_doc = plan_document(reference_spec(seed=3), 0)
    assert recipe_problems(long_doc.model_copy(update={"recipe": "invoice"}))
    with_chart = _doc_with(lambda d: any(b.type == "figure" for _, b in d.blocks()))
    assert recipe_problems(with_chart.model_copy(update={"recipe": "expense_claim"}))


def test_planted_decreasing_running_total_and_wrong_status_are_caught():
    spec = reference_spec(seed=5, n_docs=40).model_copy(update={"domains": ["construction",
                                                                             "public_administration"]})
    doc = _doc_with(lambda d: bool(_running(d)), [spec])
    assert trajectory_problems(doc) == []
    first, later = _running(doc)
    assert trajectory_problems(_replace_fact(doc, later.id, value=first.value.model_copy(update={
        "amount" if first.value.kind == "money" else "value":
            (first.value.amount if first.value.kind == "money" else first.value.value) - 1})))
    status = _doc_with(lambda d: any(f.label.startswith("Status of the action") for f in d.facts))
    assert status_problems(status) == []
    f = next(f for f in status.facts if f.label.startswith("Status of the action"))
    flipped = "Overdue" if f.value.value != "Overdue" else "Open"
    assert status_problems(_replace_fact(status, f.id, value=f.value.model_copy(update={"value": flipped})))


def _running(doc: DocumentIR) -> tuple[Fact, Fact] | None:
    """Two values of one running total of one item in one block, the later one larger."""
    d = get_domain(doc.domain)
    rows: dict[tuple[str, str], list[Fact]] = {}
    for f in doc.facts:
        m = d.metric(f.attribute)
        if m is not None and m.behaviour == "cumulative" and f.label.startswith(m.name + " of "):
            rows.setdefault((f.group, f.label.split(" in ")[0]), []).append(f)
    for fs in rows.values():
        fs = sorted(fs, key=lambda f: period_end(f.period))
        for a, b in zip(fs, fs[1:], strict=False):
            if period_end(b.period) > period_end(a.period) and b.value != a.value:
                return a, b
    return None


# ----------------------------------------------------------------- semantic types and dynamics

def test_every_metric_has_a_semantic_type_and_a_behaviour():
    for d in DOMAINS:
        for m in d.metrics:
            assert metric_semantics(m.name, m.kind, m.unit) == (m.quantity, m.behaviour)
            assert m.behaviour != "flow" or quantity_allows(m.quantity, "sum"), (d.slug, m.name)
    names = {m.name: m for d in DOMAINS for m in d.metrics}
    assert names["ARPU"].quantity == "ratio" and names["Loss ratio"].quantity == "rate"
    assert names["Hours billed"].quantity == "duration" and names["Incidents"].quantity == "count"
    assert names["Progress"].behaviour == "cumulative" and names["Headcount"].behaviour == "stock"


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**9), which=st.integers(min_value=0, max_value=10**6))
def test_trajectories_move_plausibly(seed, which):
    metrics = [m for d in DOMAINS for m in d.metrics]
    m = metrics[which % len(metrics)]
    trade = next(d for d in DOMAINS if m in d.metrics)
    cal = Calendar(dt.date(2026, 3, 14))
    world = IssuerWorldBuilder("t", Rng(seed, ["world"]), trade, cal.fy * 12 + 6)
    key, item = world.key(m), trade.items[which % len(trade.items)]

    def raw_value(q: str) -> float:
        return world_raw(world, key, item, *period_months(q))
    periods = [str(cal.fy - 1), str(cal.fy)] + cal.quarters(6) + cal.months(6)
    raw = {q: raw_value(q) for q in periods}
    if m.behaviour == "cumulative":  # never goes down, also after rounding
        for series in (cal.quarters(6), cal.months(6)):
            shown = [display(m, raw[q]) for q in series]
            assert shown == sorted(shown)
    elif m.quantity == "rate":  # a few percentage points a year, inside the range
        assert all(m.low <= v <= m.high for v in raw.values())
        assert abs(raw[str(cal.fy)] - raw[str(cal.fy - 1)]) <= 4.0
    else:  # bounded growth: year on year and quarter on quarter well inside +-60%
        for a, b in [(str(cal.fy - 1), str(cal.fy)), *zip(cal.quarters(6), cal.quarters(6)[1:], strict=False)]:
            assert abs(math.log(raw[b] / raw[a])) < math.log(1.6)
    if m.behaviour == "flow":  # a year holds its quarters
        year = str(cal.fy)
        quarters = [f"Q{q} {cal.fy}" for q in range(1, 5)]
        assert sum(raw[q] if q in raw else raw_value(q) for q in quarters) == pytest.approx(raw[year])


def test_units_agree_in_number():
    assert unit_for_count("incidents", 1) == "incident" and unit_for_count("incidents", 2) == "incidents"
    assert unit_for_count("breaches", 1) == "breach" and unit_for_count("people", 1) == "person"
    assert unit_for_count("policies", 1) == "policy" and unit_for_count("sq m", 1) == "sq m"


# ----------------------------------------------------------------- calendar and as-at

def test_calendar_reports_complete_periods_only():
    cal = Calendar(dt.date(2024, 6, 14))
    assert cal.fy == 2023 and cal.quarter() == (1, 2024) and cal.half() == "H2 2023"
    assert cal.quarters(3) == ["Q3 2023", "Q4 2023", "Q1 2024"] and cal.months(2) == ["Apr 2024", "May 2024"]
    assert cal.previous("Q1 2024") == "Q4 2023" and cal.year_ago("H2 2023") == "H2 2022"
    assert period_end("Q2 2024") == dt.date(2024, 6, 30) and period_end("Feb 2024") == dt.date(2024, 2, 29)
    assert period_end("2023") == dt.date(2023, 12, 31) and period_end("Revenue") is None
    for p in [*cal.quarters(8), *cal.months(12), cal.half(), str(cal.fy)]:
        assert period_end(p) < cal.as_at


# ----------------------------------------------------------------- recipes and page counts

def test_recipes_have_plausible_lengths_and_charts():
    r = RECIPE_BY_SLUG
    assert r["invoice"].pages[0] == 1 and r["invoice"].pages[2] == 3 and r["purchase_order"].pages[2] == 3
    assert (r["annual_report"].pages[0], r["annual_report"].pages[2]) == (20, 80)
    assert r["expense_claim"].pages[2] <= 6 and r["expense_claim"].charts == ()
    assert r["expense_claim"].element_weight("figure") == 0
    for rec in RECIPES:
        lo, typical, hi = rec.pages
        assert 1 <= lo <= typical <= hi, rec.slug
        assert set(rec.charts) <= {"bar", "line", "pie"} and set(rec.tables) <= {
            "comparison", "share", "line_items", "register", "actions"}, rec.slug
    assert set(REFERENCE_RECIPE_MIX) == set(RECIPE_BY_SLUG)


def test_every_domain_has_a_recipe_for_every_length():
    for d in DOMAINS:
        for n in range(1, 121):
            assert any(RECIPE_BY_SLUG[s].fits(n) for s in d.recipes), (d.slug, n)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_page_counts_stay_in_the_recipe_range_and_the_reference_mean(seed):
    spec = reference_spec(seed=seed)
    picks = [recipe_and_pages(spec, i) for i in range(100)]
    assert all(r.fits(n) for r, n in picks)
    mean = sum(n for _, n in picks) / 100
    assert abs(mean - REFERENCE_PLANNED_PAGES) / REFERENCE_PLANNED_PAGES < 0.05, mean
    demo = demo_spec(seed=seed, n_docs=60)
    for i in range(60):
        r, n = recipe_and_pages(demo, i)
        assert r.fits(n) and 2 <= n <= 5 and n == planned_page_count(demo, i)
    assert {r.slug for r, _ in picks} & {"annual_report", "research_report", "sustainability_report"}


def test_pages_per_recipe_in_the_reference_profile():
    """Which genres carry the reference profile's length: the long reports, never stretched invoices."""
    per: dict[str, list[int]] = {}
    for seed in range(3):
        spec = reference_spec(seed=seed)
        for i in range(100):
            r, n = recipe_and_pages(spec, i)
            per.setdefault(r.slug, []).append(n)
    assert not set(per) & {"invoice", "purchase_order", "expense_claim"}
    for slug, counts in per.items():
        lo, _, hi = RECIPE_BY_SLUG[slug].pages
        assert lo <= min(counts) and max(counts) <= hi, slug


def test_a_spec_that_insists_on_a_recipe_keeps_its_own_length_bounds():
    spec = demo_spec(seed=1, n_docs=3).model_copy(update={"recipes": ["annual_report"]})
    doc = plan_document(spec, 0)
    assert doc.recipe == "annual_report" and 2 <= len(doc.pages) <= 5  # the spec wins where they conflict
    assert all_problems(doc) == []


def test_metric_semantics_override_the_kind_rules():
    assert metric_semantics("Hours", "number", "hours") == ("duration", "flow")
    assert metric_semantics("Tonnes", "number", "tonnes") == ("amount", "flow")
    assert metric_semantics("Rate", "percent", "") == ("rate", "level")
    assert Metric("x", "count", 0, 40, "faults", "count").small_count
