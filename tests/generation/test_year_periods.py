"""An annual report reports on its year. Before: a 2024 annual report issued in October 2025 compared "H1 2025
against H1 2024" and charted "Q2 2024 to Q3 2025". Now its calendar closes at the year end
(``book.YEAR_RECIPES``): no figure of an annual, sustainability or compliance report "2024" is of a period after
its year."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from synthdocqa.generation import planner
from synthdocqa.generation.content import book
from synthdocqa.generation.content.calendar import period_end
from synthdocqa.ir.spec import PageCountDist, reference_spec

CASES = tuple((recipe, seed) for recipe in ("annual_report", "sustainability_report", "compliance_report")
              for seed in range(1, 7))


def _plan(recipe: str, seed: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": [recipe], "pages": PageCountDist(mean=24, sigma=0, min=24, max=24)})
    return planner.plan_document(spec, 0)


def after_the_year(doc) -> list[str]:
    """Facts of a period that ends after the year the report is of (the year before its issue)."""
    year_end = dt.date(doc.as_at.year - 1, 12, 31)
    out = []
    for f in doc.facts:
        try:
            end = period_end(f.period) if f.period else None
        except (ValueError, TypeError, KeyError):
            end = None
        if end is not None and end > year_end:
            out.append(f"{f.period}: {f.label}")
    return out


@pytest.mark.parametrize(("recipe", "seed"), CASES)
def test_no_figure_after_the_year(recipe, seed):
    assert after_the_year(_plan(recipe, seed)) == []


def test_later_periods_return_without_the_year_end(monkeypatch):
    """Planted: the calendar as at the issue date again."""
    monkeypatch.setattr(book, "YEAR_RECIPES", frozenset())
    assert sum(bool(after_the_year(_plan(r, s))) for r, s in CASES) >= 4


def test_the_period_a_report_says_it_covers_is_its_year_or_quarter():
    """"This quarterly report ... covers the period February 22, 2023 to July 28, 2023" in a Q1 2023 report, and
    any such dates in an annual one: now the quarter's or the year's first and last day."""
    seen = 0
    for recipe in ("annual_report", "quarterly_report"):
        for seed in range(1, 40):
            spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
                "recipes": [recipe], "pages": PageCountDist(mean=8, sigma=0, min=8, max=8)})
            doc = planner.plan_document(spec, 0)
            said = {f.label.split(" ")[0]: f.value.value for f in doc.facts
                    if f.label.startswith(("Start of the period covered by this", "End of the period covered by this"))}
            if not said:
                continue
            seen += 1
            year = doc.as_at.year - 1
            if recipe == "annual_report":
                assert (said["Start"], said["End"]) == (dt.date(year, 1, 1), dt.date(year, 12, 31)), doc.title
            else:
                q, y = re.search(r"Q(\d) (\d{4})", doc.title).groups()
                first = dt.date(int(y), 3 * int(q) - 2, 1)
                assert said["Start"] == first and said["End"] == period_end(f"Q{q} {y}"), doc.title
    assert seen >= 6
