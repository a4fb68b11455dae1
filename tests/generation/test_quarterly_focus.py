"""A quarterly report reports on its quarter. Before: a Q1 2024 report's "Results by site" opened with an action
tracker, its tables compared 2023 with 2022, its pie showed 2023, and its Outlook held two tables of past results.
Now its comparisons, shares and charts by item are of the quarter (``DocContext.by_quarter``), it keeps no action
tracker, and its Outlook is written, not tabulated."""

from __future__ import annotations

import re

import pytest

from synthdocqa.generation import planner
from synthdocqa.generation.content import book
from synthdocqa.ir.spec import PageCountDist, reference_spec

CASES = tuple((seed, pages) for seed in (1, 2, 3, 4) for pages in (6, 10))
QUARTER = re.compile(r"\bQ[1-4] \d{4}\b")


def _plan(seed: int, pages: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": ["quarterly_report"], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    return planner.plan_document(spec, 0)


def _general_exhibits(doc):
    return [(b.caption if b.type == "table" else b.title) for p in doc.pages for b in p.blocks
            if b.type in ("table", "figure") and not b.genre_block]


def quarter_share(docs) -> float:
    """The share of the general exhibits of one or two periods (not series over time, "Jan 2025 to May 2025";
    not the contents) whose title names a quarter."""
    titles = [t for doc in docs for t in _general_exhibits(doc) if t and " to " not in t]
    return sum(bool(QUARTER.search(t)) for t in titles) / len(titles)


def test_exhibits_are_of_the_quarter():
    docs = [_plan(seed, pages) for seed, pages in CASES]
    assert quarter_share(docs) >= 0.9
    assert not [t for doc in docs for t in _general_exhibits(doc) if re.search(r"action|tracker|owners", t, re.I)]


def test_the_year_returns_without_the_quarter(monkeypatch):
    """Planted: without the quarter as the focus most exhibits are of years and halves again."""
    monkeypatch.setattr(book, "QUARTER_RECIPES", frozenset())
    assert quarter_share([_plan(seed, pages) for seed, pages in CASES]) < 0.7


@pytest.mark.parametrize(("seed", "pages"), CASES)
def test_outlook_is_written(seed, pages):
    doc = _plan(seed, pages)
    blocks = [b for p in doc.pages for b in p.blocks]
    start = next(i for i, b in enumerate(blocks) if b.type == "heading" and b.spans[0].text.endswith("Outlook"))
    assert [b.type for b in blocks[start + 1:] if b.type in ("table", "figure")] == []
