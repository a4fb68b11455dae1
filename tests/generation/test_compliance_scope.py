"""A compliance report reads as one: its scope says which controls were tested and how, its supporting tables
are about compliance, its period is one. Before: "Scope and Approach" held six tables of the trade's budgets
and beneficiaries by programme, the report said it covered "2024-06-10 to 2025-05-16" while its controls were
tested for H2 2024, and its attestation ran over three pages, one of them a footnote alone."""

from __future__ import annotations

import re

import pytest

from synthdocqa.generation import planner
from synthdocqa.generation.domains import get_domain, view
from synthdocqa.ir.spec import PageCountDist, reference_spec

CASES = tuple((seed, pages) for seed in (1, 2, 3, 4, 5) for pages in (9, 18, 40))


def _plan(seed: int, pages: int):
    spec = reference_spec(seed=seed, n_docs=1).model_copy(update={
        "recipes": ["compliance_report"], "pages": PageCountDist(mean=pages, sigma=0, min=pages, max=pages)})
    return planner.plan_document(spec, 0)


def _sections(doc) -> dict[str, list]:
    out: dict[str, list] = {}
    name = None
    for p in doc.pages:
        for b in p.blocks:
            if b.type == "heading" and b.level == 1:  # a numbered section or the appendix
                name = re.sub(r"^\d+ ", "", b.spans[0].text)
                out[name] = []
            elif name and b.type != "heading":
                out[name].append((p.page_no, b))
    return out


@pytest.mark.parametrize(("seed", "pages"), CASES)
def test_scope_tables_and_period_agree(seed, pages):
    doc = _plan(seed, pages)
    sections = _sections(doc)
    scope = [b for _, b in sections["Scope and Approach"] if b.type in ("table", "figure")]
    assert [b.genre_block for b in scope] == ["test_scope"]  # the controls, no table of the trade
    tested = {f.label.split("control ")[1].split(" in ")[0]: f.value.absolute() for f in doc.facts
              if f.label.startswith("Samples tested for control ")}
    drawn = {f.label.split("control ")[1].split(" in ")[0]: f.value.absolute() for f in doc.facts
             if f.label.startswith("Sample drawn for control ")}
    assert drawn and drawn.keys() == tested.keys()  # a sample drawn may hold items that could not be tested
    assert all(tested[c] <= drawn[c] for c in drawn)
    dates = {(f.label.split(" ")[0], "report" if "this compliance report" in f.label else "attested"): f.value.value
             for f in doc.facts if f.label.startswith(("Start of the period covered", "End of the period covered"))}
    for edge in ("Start", "End"):  # the report covers the period its officer attests
        if (edge, "report") in dates:
            assert dates[(edge, "report")] == dates[(edge, "attested")]
    assert len({p for p, _ in sections["Attestation"]}) == 1  # the statement and the signed form, one page
    depts = set(view(get_domain(doc.domain), "compliance").items)
    for _, b in (x for name, blocks in sections.items() for x in blocks):
        if b.type == "table" and not b.genre_block and " by department" in b.caption:
            assert {r[0].text for r in b.rows} <= depts | {"Total", "Average", "Other departments"}


def test_attestation_spreads_without_its_one_page(monkeypatch):
    """Planted: without its one-page entry the attestation runs over several pages again."""
    monkeypatch.setattr(planner, "FIXED_PAGES", tuple(e for e in planner.FIXED_PAGES if "attestation" not in e[0]))
    spread = [len({p for p, _ in _sections(_plan(seed, 40))["Attestation"]}) for seed in (1, 2, 3)]
    assert max(spread) > 1, spread
