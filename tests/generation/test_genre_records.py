"""Genre blocks of records and registers (``generation.content.genre.records``): each builder's contract (1-3
blocks within the height budget, the planner's consistency checks clean, same seed same blocks) and each genre's
own invariant, asserted directly: weights sum to 100 and weighted scores are score x weight / 100, a checklist's
passed count is its Yes results, a certificate's status agrees with its expiry, a log's hours add up, retention
dates are the filing or closing date plus the years; and planted errors the referee catches."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from synthdocqa.generation.content import genre
from synthdocqa.generation.content.genre import records
from synthdocqa.generation.content.sizing import block_height
from synthdocqa.generation.domains import DOMAINS, RECIPES
from synthdocqa.ir.blocks import FormBlock, HeadingBlock, TableBlock, TextBlock, block_fact_ids
from synthdocqa.ir.derivations import derivation_problems
from synthdocqa.ir.rng import Rng
from tests.generation.genre_fixture import doc_with, genre_ctx
from tests.generation.plan_checks import all_problems

KINDS = ("vendor_profile", "weighted_scoring", "review_checklist", "filing_record", "certifications", "daily_log",
         "handover", "cover_letter", "retention_note", "action_plan")
SEEDS = (0, 1, 2, 3, 4)
MAX_HEIGHT = 420.0
MAX_ROWS = 14


def recipes_of(kind: str) -> list[str]:
    return [r.slug for r in RECIPES if kind in r.genre_blocks]


def domains_of(recipe: str) -> list[str]:
    return [d.slug for d in DOMAINS if recipe in d.recipes]


CASES = [(kind, recipe, seed) for kind in KINDS for recipe in recipes_of(kind) for seed in SEEDS]


def build(kind: str, recipe: str, seed: int):
    """A context of ``recipe`` (a domain that varies with the seed) and the blocks of ``kind`` built in it."""
    doms = domains_of(recipe)
    ctx = genre_ctx(recipe, seed, doms[(seed * 7) % len(doms)])
    return ctx, genre.build(kind, ctx, Rng(seed).fork("genre", kind))


def facts_of(ctx, block) -> list:
    index = ctx.book.by_id
    return [index[fid] for fid in block_fact_ids(block)]


def by_attribute(ctx, block, attribute: str) -> list:
    return [f for f in facts_of(ctx, block) if f.attribute == attribute]


def test_every_kind_is_registered_and_used():
    assert set(records.BLOCKS) == set(KINDS)
    for kind in KINDS:
        assert genre.GENRE_BLOCKS[kind] is records.BLOCKS[kind]
        assert recipes_of(kind), kind


@pytest.mark.parametrize(("kind", "recipe", "seed"), CASES)
def test_contract(kind, recipe, seed):
    ctx, blocks = build(kind, recipe, seed)
    assert 1 <= len(blocks) <= 3
    assert not any(isinstance(b, HeadingBlock) for b in blocks)
    assert all(b.genre_block == kind for b in blocks)
    assert sum(block_height(b) for b in blocks) <= MAX_HEIGHT
    for b in blocks:
        if isinstance(b, TableBlock):
            assert len(b.rows) <= MAX_ROWS
        # a block's facts are its own: made after its id was taken, grouped under it
        assert all(f.group == b.id for f in facts_of(ctx, b)), b.id
    assert derivation_problems(ctx.book.facts) == []
    assert all_problems(doc_with(ctx, blocks)) == []


@pytest.mark.parametrize(("kind", "recipe"), [(k, r) for k in KINDS for r in recipes_of(k)])
def test_deterministic(kind, recipe):
    for seed in (0, 3):
        _, a = build(kind, recipe, seed)
        _, b = build(kind, recipe, seed)
        assert [x.model_dump() for x in a] == [x.model_dump() for x in b]
    _, c = build(kind, recipe, 5)
    assert [x.model_dump() for x in a] != [x.model_dump() for x in c]


def value(f) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


# ---------------------------------------------------------------- vendor assessment

@pytest.mark.parametrize("seed", SEEDS)
def test_vendor_profile(seed):
    ctx, [form] = build("vendor_profile", "vendor_assessment", seed)
    assert isinstance(form, FormBlock)
    vendor = ctx.counterparties[0]
    got = {f.attribute: f for f in facts_of(ctx, form)}
    assert got["vendor"].value.entity_id == vendor.id
    assert got["registered_address"].text == vendor.attributes["full"]
    assert got["assessment_date"].value.value <= ctx.anchor
    assert got["annual_revenue"].period == str(ctx.cal.fy) and value(got["annual_revenue"]) > 0
    assert got["employees"].quantity == got["years_trading"].quantity == "count"
    contact = got["main_contact"].value.entity_id
    assert contact not in {p.id for p in ctx.people} | {e.id for e in ctx.counterparties}
    assert got["assessor"].value.entity_id in {p.id for p in ctx.people}


@pytest.mark.parametrize("seed", SEEDS)
def test_weighted_scoring_adds_up(seed):
    ctx, [table, note] = build("weighted_scoring", "vendor_assessment", seed)
    assert table.caption.startswith("Table ") and table.rows[-1][0].text == "Total"
    weights = by_attribute(ctx, table, "weight")
    scores = by_attribute(ctx, table, "score")
    weighted = by_attribute(ctx, table, "weighted_score")
    [total_w] = by_attribute(ctx, table, "weight_total")
    [total] = by_attribute(ctx, table, "weighted_score_total")
    assert [r[0].text for r in table.rows[:-1]] == [c for c, _ in records.CRITERIA_WEIGHTS]
    assert sum(value(w) for w in weights) == value(total_w) == 100
    assert all(1 <= value(s) <= 5 for s in scores)
    for w, s, ws in zip(weights, scores, weighted, strict=True):
        assert value(ws) == value(s) * value(w) / 100
    assert value(total) == sum(value(ws) for ws in weighted)
    [threshold] = by_attribute(ctx, note, "approval_threshold")
    [outcome] = by_attribute(ctx, note, "outcome")
    assert (outcome.value.value == "recommended for approval") == (value(total) >= value(threshold))


def test_weighted_scoring_outcomes_vary():
    outcomes = set()
    for seed in range(12):
        ctx, [_, note] = build("weighted_scoring", "vendor_assessment", seed)
        outcomes |= {f.value.value for f in by_attribute(ctx, note, "outcome")}
    assert outcomes == {"recommended for approval", "not recommended for approval"}


def planted(facts, fact_id, new_value):
    """A copy of ``facts`` with one fact's value replaced."""
    return [f.model_copy(update={"value": f.value.model_copy(update={"value": new_value})}) if f.id == fact_id else f
            for f in facts]


def test_planted_score_is_caught():
    ctx, [table, _] = build("weighted_scoring", "vendor_assessment", 2)
    score = by_attribute(ctx, table, "score")[0]
    wrong = planted(ctx.book.facts, score.id, value(score) % 5 + 1)
    problems = derivation_problems(wrong)
    [weighted] = [f for f in ctx.book.facts if f.derivation and score.id in f.derivation.operands]
    assert any(p.startswith(weighted.id) for p in problems), problems


def test_planted_weight_is_caught():
    ctx, [table, _] = build("weighted_scoring", "vendor_assessment", 1)
    weight = by_attribute(ctx, table, "weight")[0]
    wrong = planted(ctx.book.facts, weight.id, value(weight) + 5)
    problems = derivation_problems(wrong)
    [total_w] = by_attribute(ctx, table, "weight_total")
    assert any(p.startswith(total_w.id) for p in problems), problems  # the weights no longer sum to 100


@pytest.mark.parametrize(("recipe", "seed"), [(r, s) for r in recipes_of("review_checklist") for s in SEEDS])
def test_review_checklist_counts(recipe, seed):
    ctx, [table, note] = build("review_checklist", recipe, seed)
    assert 6 <= len(table.rows) <= 10
    results = by_attribute(ctx, table, "check_result")
    assert [r[1].text for r in table.rows] == [f.text for f in results]
    assert {f.text for f in results} <= {"Yes", "No"}
    [passed] = by_attribute(ctx, note, "checks_passed")
    [made] = by_attribute(ctx, note, "checks_total")
    assert value(passed) == sum(f.value.value for f in results)
    assert value(made) == len(table.rows)
    text = "".join(s.text for s in note.spans)
    assert f"{passed.text} of {made.text} checks passed" in text
    assert all(f.value.value <= ctx.anchor for f in by_attribute(ctx, table, "check_date"))
    assert (recipe == "vendor_assessment") == table.caption.startswith("Table ")


def test_review_checklist_dropped_result_is_caught():
    for seed in range(20):
        ctx, [table, note] = build("review_checklist", "forms_workflow", seed)
        [passed] = by_attribute(ctx, note, "checks_passed")
        if value(passed) < len(table.rows):
            break
    # the count claims one more pass than its operands hold
    wrong = planted(ctx.book.facts, passed.id, value(passed) + 1)
    assert any(p.startswith(passed.id) for p in derivation_problems(wrong))


# ---------------------------------------------------------------- form pack

@pytest.mark.parametrize("seed", SEEDS)
def test_filing_record_retention(seed):
    ctx, [table] = build("filing_record", "forms_workflow", seed)
    assert 3 <= len(table.rows) <= 6 and not table.caption.startswith("Table ")
    filed = by_attribute(ctx, table, "filed_date")
    years = by_attribute(ctx, table, "retention_years")
    until = by_attribute(ctx, table, "retain_until")
    assert [f.value.value for f in filed] == sorted(f.value.value for f in filed)
    for on, y, end in zip(filed, years, until, strict=True):
        assert on.value.value <= ctx.anchor < end.value.value
        assert end.value.value == records._add_years(on.value.value, int(value(y)))
        assert end.value.value.year == on.value.value.year + int(value(y))


# ---------------------------------------------------------------- training record

@pytest.mark.parametrize("seed", SEEDS)
def test_certificate_status_agrees_with_expiry(seed):
    ctx, [table, note] = build("certifications", "training_record", seed)
    assert 5 <= len(table.rows) <= 10
    holders = [r[0].fact_ids[0] for r in table.rows]
    assert len({ctx.book.by_id[h].value.entity_id for h in holders}) == len(holders)  # one row per employee
    issued = by_attribute(ctx, table, "issue_date")
    months = by_attribute(ctx, table, "validity_months")
    expires = by_attribute(ctx, table, "expiry_date")
    status = by_attribute(ctx, table, "status")
    for i, m, e, s in zip(issued, months, expires, status, strict=True):
        assert i.value.value <= ctx.anchor
        assert e.value.value == records._add_months(i.value.value, int(value(m)))
        left = (e.value.value - ctx.anchor).days
        want = "Expired" if left < 0 else "Expiring within 90 days" if left <= 90 else "Valid"
        assert s.value.value == want
    [expiring] = by_attribute(ctx, note, "certificates_expiring")
    assert value(expiring) == sum(s.value.value == "Expiring within 90 days" for s in status) >= 1
    expired = by_attribute(ctx, note, "certificates_expired")
    assert sum(value(f) for f in expired) == sum(s.value.value == "Expired" for s in status)


# ---------------------------------------------------------------- field operations log

@pytest.mark.parametrize("seed", SEEDS)
def test_daily_log_hours_add_up(seed):
    ctx, [table] = build("daily_log", "field_ops_log", seed)
    assert 6 <= len(table.rows) - 1 <= 12 and table.total_row and table.rows[-1][0].text == "Total"
    stamps = [(ctx.book.by_id[r[0].fact_ids[0]].value.value, r[1].text) for r in table.rows[:-1]]
    assert stamps == sorted(stamps) and stamps[-1][0] <= ctx.anchor
    assert len({d for d, _ in stamps}) >= 3  # several days
    hours = by_attribute(ctx, table, "hours")
    [total] = by_attribute(ctx, table, "hours_total")
    assert value(total) == sum(value(h) for h in hours)
    assert all(h.quantity == "duration" for h in hours + [total])


def test_planted_hours_are_caught():
    ctx, [table] = build("daily_log", "field_ops_log", 1)
    h = by_attribute(ctx, table, "hours")[2]
    [total] = by_attribute(ctx, table, "hours_total")
    wrong = planted(ctx.book.facts, h.id, value(h) + Decimal("0.5"))
    assert any(p.startswith(total.id) for p in derivation_problems(wrong))


@pytest.mark.parametrize("seed", SEEDS)
def test_handover(seed):
    ctx, [form] = build("handover", "field_ops_log", seed)
    assert form.signature_lines == ["Outgoing", "Incoming"] and 3 <= len(form.checkboxes) <= 5
    [out] = by_attribute(ctx, form, "outgoing_supervisor")
    [inc] = by_attribute(ctx, form, "incoming_supervisor")
    assert out.value.entity_id != inc.value.entity_id
    [day] = by_attribute(ctx, form, "handover_date")
    assert day.value.value <= ctx.anchor
    for attr in ("open_permits", "outstanding_defects"):
        [f] = by_attribute(ctx, form, attr)
        assert f.quantity == "count" and value(f) >= 0
    boxes = by_attribute(ctx, form, "checkbox")
    assert [(b.text, b.value.value) for b in boxes] == [(c.label, c.checked) for c in form.checkboxes]


# ---------------------------------------------------------------- scanned archive

@pytest.mark.parametrize("seed", SEEDS)
def test_cover_letter(seed):
    ctx, blocks = build("cover_letter", "scanned_archive", seed)
    assert all(isinstance(b, TextBlock) for b in blocks)
    body = "".join(s.text for s in blocks[-1].spans)
    assert body.startswith("Dear ") and "Yours sincerely, " in body and ctx.doc_reference() in body
    [date] = by_attribute(ctx, blocks[0], "letter_date")
    assert date.value.value <= ctx.anchor
    [n] = by_attribute(ctx, blocks[-1], "documents_enclosed")
    assert n.quantity == "count" and value(n) > 1
    [years] = by_attribute(ctx, blocks[-1], "retention_years")
    # the retention note of the same file states the same period
    note = genre.build("retention_note", ctx, Rng(seed).fork("note"))[0]
    [years2] = by_attribute(ctx, note, "retention_years")
    assert years2.label == years.label and years2.value == years.value
    # one address per paragraph
    for b in blocks:
        text = "".join(s.text for s in b.spans)
        assert sum(e.attributes["full"] in text for e in (ctx.issuer, *ctx.counterparties)) <= 1


@pytest.mark.parametrize("seed", SEEDS)
def test_retention_note_dates(seed):
    ctx, [form] = build("retention_note", "scanned_archive", seed)
    got = {f.attribute: f for f in facts_of(ctx, form)}
    closed = got["closed_date"].value.value
    end = (got.get("destroy_date") or got["review_date"]).value.value
    assert closed <= ctx.anchor < end
    assert end == records._add_years(closed, int(value(got["retention_years"])))
    assert closed <= got["approval_date"].value.value <= ctx.anchor
    assert got["legal_hold"].value.value == form.checkboxes[0].checked
    assert ("review_date" in got) == got["legal_hold"].value.value
    assert any(f.text == ctx.doc_reference() for f in facts_of(ctx, form))


def test_date_arithmetic():
    assert records._add_months(dt.date(2024, 1, 31), 1) == dt.date(2024, 2, 29)
    assert records._add_years(dt.date(2024, 2, 29), 1) == dt.date(2025, 2, 28)
    assert records._add_months(dt.date(2025, 11, 15), -13) == dt.date(2024, 10, 15)
