"""A sustainability report reports on the issuer's footprint, not its trade. Before: a law firm's report filled
"Resources" with open matters by matter, "People" with hours billed per matter and legal fees, and its
paragraphs with contract backlog and privilege; a bank's filled them with deposits by branch. Its sections are
now seen through lenses (``generation.domains.LENSES``): energy, water and waste by site, headcount and turnover
by department, speak-up reports by concern category. Each check is shown failing with the lenses planted out."""

from __future__ import annotations

import dataclasses
import re
from decimal import Decimal

import pytest

from synthdocqa.generation import planner
from synthdocqa.generation.domains import LENSES, RECIPE_BY_SLUG, get_domain, view
from synthdocqa.ir.spec import PageCountDist, reference_spec
from tests.generation.plan_checks import all_problems

RECIPE = "sustainability_report"
DOMAINS = ("legal", "retail_banking", "oil_gas", "esg_sustainability", "hospitality")
CASES = tuple((d, seed, pages) for d in DOMAINS for seed, pages in ((1, 24), (2, 36)))


def _plan(domain: str, seed: int, pages: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [RECIPE], "domains": [domain], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    doc = planner.plan_document(spec, 0)
    assert doc.recipe == RECIPE and doc.domain == domain
    return doc


def _text(b) -> str:
    return "".join(s.text for s in getattr(b, "spans", None) or [])


def _words(name: str) -> re.Pattern:
    return re.compile(rf"(?<![A-Za-z]){re.escape(name)}(?![a-z])", re.IGNORECASE)


def trade_problems(doc) -> list[str]:
    """The issuer's trade where the report should speak of its footprint: a row, category or series of a
    general exhibit that is one of the trade's items, an exhibit titled by one of the trade's metrics, a
    paragraph on one of the trade's topics (vocabulary the lenses share with the trade aside)."""
    trade = get_domain(doc.domain)
    lensed = [view(trade, slug) for slug in LENSES]
    shared = {w.lower() for v in lensed for w in (*v.items, *(m.name for m in v.metrics), *v.topics)}
    shared |= {d.lower() for d in trade.departments}
    items = [i for i in trade.items if i.lower() not in shared]
    metrics = [m.name for m in trade.metrics if m.name.lower() not in shared]
    topics = [t for t in trade.topics if t.lower() not in shared]
    out = []
    for page in doc.pages:
        for b in page.blocks:
            if b.genre_block:  # the statements are the trade's own figures (emissions, targets)
                continue
            if b.type == "table":
                labels, title = [row[0] for row in _rows(b)], b.caption
            elif b.type == "figure":
                labels, title = [*b.categories, *(s.name for s in b.series)], b.title
            else:
                labels, title = [], ""
            out += [f"p{page.page_no} {b.id}: row {x!r} is the trade's" for x in labels if x in items]
            named = re.sub(r"^(Table|Figure) \d+\. ", "", title)
            for dept in trade.departments:  # "Voluntary turnover of Production Operations": a department
                named = named.replace(dept, "")
            out += [f"p{page.page_no} {b.id}: {title!r}" for m in metrics if _words(m).search(named)]
            if b.type == "text_block":
                out += [f"p{page.page_no} {b.id}: topic {t!r}" for t in topics if _words(t).search(_text(b))]
    return out


def _rows(table) -> list[list[str]]:
    return [[cell.text for cell in row] for row in table.rows]


@pytest.mark.parametrize(("domain", "seed", "pages"), CASES)
def test_sections_report_the_footprint(domain, seed, pages):
    doc = _plan(domain, seed, pages)
    assert trade_problems(doc) == []
    assert all_problems(doc) == []  # totals, shares, changes, periods, casing of the sites, "1 injury"
    lens_metrics = {m.name for slug in LENSES for m in view(get_domain(domain), slug).metrics}
    exhibits = [b for p in doc.pages for b in p.blocks if b.type in ("table", "figure") and not b.genre_block]
    about = [b for b in exhibits if any(m.lower() in (b.caption if b.type == "table" else b.title).lower()
                                        for m in lens_metrics)]
    assert len(about) >= len(exhibits) // 2 >= 1, [b.caption if b.type == "table" else b.title for b in exhibits]


def test_checks_fail_without_the_lenses(monkeypatch):
    """Planted: the grammar without its lenses (the report before) fills the sections with the trade."""
    recipe = RECIPE_BY_SLUG[RECIPE]
    bare = dataclasses.replace(recipe, lens="", grammar=tuple(dataclasses.replace(s, lens="") for s in recipe.grammar))
    monkeypatch.setitem(planner.RECIPE_BY_SLUG, RECIPE, bare)
    found = [len(trade_problems(_plan(d, seed, pages))) for d, seed, pages in CASES[:4]]
    assert all(n >= 5 for n in found), found


def test_people_by_department_and_sites_by_lens():
    """People's rows are the issuer's departments; a plant operator's sites are plants, an office firm's offices."""
    for domain, sites in (("legal", "Head Office"), ("oil_gas", "Plant North")):
        seen = view(get_domain(domain), "resources").items
        assert sites in seen
        assert view(get_domain(domain), "people").items == get_domain(domain).departments
    for seed in range(1, 6):  # a report whose drawn exhibits include a people table
        doc = _plan("legal", seed, 24)
        people = [b for p in doc.pages for b in p.blocks if b.type == "table" and "by department" in b.caption]
        if people:
            break
    assert people and all(r[0] in (*get_domain("legal").departments, "Other departments", "Total", "Average")
                          for t in people for r in _rows(t))


def test_water_target_progress_is_the_sites_total():
    """The targets table's water withdrawal for the year is the total a Resources table gives for the sites."""
    checked = 0
    for seed in range(1, 40):
        doc = _plan("retail_banking", seed, 30)
        y1 = str(doc.as_at.year - 1) if doc.as_at.month < 12 else str(doc.as_at.year)
        progress = [f for f in doc.facts if f.label.startswith("Progress in") and "'Water withdrawal'" in f.label]
        totals = [f for f in doc.facts if f.label.lower().startswith("total water withdrawal") and f.period in
                  {p.period for p in progress}]
        if progress and totals:
            assert {Decimal(str(f.value.value)) for f in totals} == {Decimal(str(progress[0].value.value))}, y1
            checked += 1
        if checked >= 2:
            break
    assert checked >= 2


def test_no_chart_of_zeros():
    """A chart shows something: small counts by quarter, never a line of zeros (a speak-up chart was one)."""
    for d, seed, pages in CASES:
        for p in _plan(d, seed, pages).pages:
            for b in p.blocks:
                if b.type == "figure" and b.chart in ("bar", "line"):
                    assert any(v for s in b.series for v in s.values), b.title


@pytest.mark.parametrize("seed", range(40))
def test_counts_of_events_add_up_over_periods(seed):
    """A count of events (lost-time injuries, speak-up reports) is whole in every period: the quarters and the
    months add up to the year (rounded one period at a time, four quarters of 2 made a year of 7)."""
    import datetime as dt

    from synthdocqa.generation.content.calendar import Calendar, period_months
    from synthdocqa.generation.world import IssuerWorldBuilder
    from synthdocqa.ir.rng import Rng
    from synthdocqa.ir.world import whole_count as world_count

    metrics = [m for slug in LENSES for m in view(get_domain("retail_banking"), slug).metrics
               if m.kind == "count" and m.behaviour == "flow"]
    cal = Calendar(dt.date(2026, 3, 14))
    world = IssuerWorldBuilder("t", Rng(seed, ["world"]), get_domain("retail_banking"), cal.fy * 12 + 6)
    for m in metrics:
        key = world.key(m)

        def whole_count(period: str, key=key) -> int:
            return world_count(world, key, "Finance", *period_months(period))
        year = whole_count(str(cal.fy))
        assert sum(whole_count(f"Q{q} {cal.fy}") for q in range(1, 5)) == year
        assert sum(whole_count(h) for h in (f"H1 {cal.fy}", f"H2 {cal.fy}")) == year
        months = [x for x in cal.months(14) if x.endswith(str(cal.fy))]
        assert len(months) == 12 and sum(whole_count(x) for x in months) == year
