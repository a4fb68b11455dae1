"""Genre blocks of assessments (generation.content.genre.assessment): risk register and heat map, sign-off,
attestation, incident summary / timeline / impact / root cause, inspection details / checklist, findings,
control tests, study design and references.

Each kind is built in documents of the recipes whose grammar holds it (over several domains and seeds),
with the other assessment blocks of the recipe in grammar order and also on its own (a block never depends
on its partners being printed); every build keeps to the contract (1-3 blocks, height, rows, ids, groups),
passes the planner's checks and is deterministic, and each genre's own arithmetic is asserted directly.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal

import pytest

from synthdocqa.generation.content import genre
from synthdocqa.generation.content.genre import assessment, registers
from synthdocqa.generation.content.sizing import block_height
from synthdocqa.generation.domains import DOMAINS, RECIPES
from synthdocqa.ir import Rng
from synthdocqa.ir.blocks import (
    FigureBlock,
    FormBlock,
    HeadingBlock,
    ListBlock,
    TableBlock,
    TextBlock,
    block_fact_ids,
)
from synthdocqa.ir.derivations import derivation_problems
from tests.generation.genre_fixture import doc_with, genre_ctx
from tests.generation.plan_checks import all_problems

KINDS = tuple(assessment.BLOCKS)
SEEDS = (0, 1, 2, 3, 4)
RECIPES_OF = {k: tuple(r.slug for r in RECIPES if k in r.genre_blocks) for k in KINDS}
CASES = [(k, r) for k in KINDS for r in RECIPES_OF[k]]


def _domain(recipe: str, seed: int) -> str:
    doms = [d.slug for d in DOMAINS if recipe in d.recipes]
    return doms[(seed * 7 + 3) % len(doms)]


def _chain(recipe: str) -> list[str]:
    """The assessment kinds of ``recipe`` in grammar order."""
    return [b for sec in next(r for r in RECIPES if r.slug == recipe).grammar for b in sec.blocks if b in KINDS]


def build_doc(recipe: str, seed: int, kinds: list[str] | None = None):
    """``(ctx, {kind: blocks})``: the kinds (default: the recipe's chain) built in order in one document."""
    ctx = genre_ctx(recipe, seed, _domain(recipe, seed))
    root = Rng(seed).fork("genre_test")
    built = {k: genre.build(k, ctx, root.fork(k)) for k in (kinds or _chain(recipe))}
    return ctx, built


def _all(built) -> list:
    return [b for bs in built.values() for b in bs]


def _facts(ctx, block) -> list:
    return [ctx.book.by_id[fid] for fid in block_fact_ids(block)]


def _by_attr(ctx, blocks, attribute: str) -> list:
    return [f for b in blocks for f in _facts(ctx, b) if f.attribute == attribute]


def _one(ctx, blocks, attribute: str):
    (f,) = _by_attr(ctx, blocks, attribute)
    return f


def _num(f) -> Decimal:
    return f.value.amount if f.value.kind == "money" else f.value.value


# ---------------------------------------------------------------- the contract, for every kind

def _check_contract(ctx, kind: str, blocks: list) -> None:
    assert 1 <= len(blocks) <= 3, (kind, len(blocks))
    assert sum(block_height(b) for b in blocks) <= 420, kind
    for b in blocks:
        assert not isinstance(b, HeadingBlock)
        assert isinstance(b, TableBlock | ListBlock | FormBlock | TextBlock | FigureBlock)
        assert b.genre_block == kind
        if isinstance(b, TableBlock):
            assert len(b.rows) <= 14
        for f in _facts(ctx, b):
            assert f.group == b.id, (kind, f.label)
    ids = [int(b.id[1:]) for b in blocks]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)


@pytest.mark.parametrize("recipe", sorted({r for _, r in CASES}))
@pytest.mark.parametrize("seed", SEEDS)
def test_recipe_chain_keeps_contract_and_checks(recipe, seed):
    ctx, built = build_doc(recipe, seed)
    for kind, blocks in built.items():
        _check_contract(ctx, kind, blocks)
    assert derivation_problems(ctx.book.facts) == []
    assert all_problems(doc_with(ctx, _all(built))) == []


@pytest.mark.parametrize(("kind", "recipe"), CASES)
@pytest.mark.parametrize("seed", SEEDS[:4])
def test_kind_alone_keeps_contract_and_checks(kind, recipe, seed):
    ctx, built = build_doc(recipe, seed, [kind])
    _check_contract(ctx, kind, built[kind])
    assert derivation_problems(ctx.book.facts) == []
    assert all_problems(doc_with(ctx, built[kind])) == []


@pytest.mark.parametrize("recipe", sorted({r for _, r in CASES}))
def test_reverse_order_still_consistent(recipe):
    for seed in SEEDS[:4]:
        ctx, built = build_doc(recipe, seed, _chain(recipe)[::-1])
        assert all_problems(doc_with(ctx, _all(built))) == []


@pytest.mark.parametrize("recipe", sorted({r for _, r in CASES}))
def test_deterministic(recipe):
    for seed in SEEDS[:4]:
        _, a = build_doc(recipe, seed)
        _, b = build_doc(recipe, seed)
        assert [x.model_dump() for x in _all(a)] == [x.model_dump() for x in _all(b)]
    _, other = build_doc(recipe, 11)
    assert [x.model_dump() for x in _all(other)] != [x.model_dump() for x in _all(a)]


def test_every_kind_is_registered():
    for kind in KINDS:
        assert genre.GENRE_BLOCKS[kind] is assessment.BLOCKS[kind]
        assert RECIPES_OF[kind], kind


# ---------------------------------------------------------------- risk register and heat map

def test_risk_register_ratings():
    for seed in SEEDS:
        ctx, built = build_doc("risk_assessment", seed)
        reg = built["risk_register"]
        table = reg[0]
        assert 5 <= len(table.rows) <= 10
        for row in table.rows:
            like, impact, inherent, res_like, residual = (ctx.book.by_id[s.fact_ids[0]] for s in row[3:8])
            assert 1 <= _num(like) <= 5 and 1 <= _num(impact) <= 5
            assert _num(inherent) == _num(like) * _num(impact)
            assert _num(residual) == _num(res_like) * _num(impact) <= _num(inherent)
            assert inherent.derivation.op == residual.derivation.op == "product"
            assert re.fullmatch(r"R-\d{2}", row[0].text)


def _register(ctx):
    return [(r["likelihood"], r["impact"], r["residual_likelihood"]) for r in ctx.memo[("risk", "register")]]


def test_heat_map_agrees_with_register():
    kinds_seen = set()
    for seed in range(12):
        for order in (["risk_register", "heat_map"], ["heat_map", "risk_register"]):
            ctx, built = build_doc("risk_assessment", seed, order)
            risks = _register(ctx)
            hm = built["heat_map"]
            kinds_seen.add(hm[0].type)
            if isinstance(hm[0], TableBlock):
                grid = hm[0]
                assert [r[0].text[0] for r in grid.rows] == ["5", "4", "3", "2", "1"]
                for row in grid.rows:
                    like = int(row[0].text[0])
                    for impact, cell in enumerate(row[1:], start=1):
                        n = sum(1 for lk, im, _ in risks if (lk, im) == (like, impact))
                        assert cell.text == (str(n) if n else "-")
                        if n and order[0] == "risk_register":  # counted over the register's rating facts
                            d = ctx.book.by_id[cell.fact_ids[0]].derivation
                            assert d.op == "count" and len(d.operands) == n
                assert _num(_one(ctx, hm, "risks_assessed")) == len(risks)
                for band, lo, hi in assessment.BANDS:
                    before = _one(ctx, hm, f"risks_{band.lower()}")
                    after = _one(ctx, hm, f"residual_risks_{band.lower()}")
                    assert _num(before) == sum(1 for lk, im, _ in risks if lo <= lk * im <= hi)
                    assert _num(after) == sum(1 for _, im, rl in risks if lo <= rl * im <= hi)
            else:
                chart = hm[0]
                before, after = (s.values for s in chart.series)
                for k, (_, lo, hi) in enumerate(assessment.BANDS):
                    assert before[k] == sum(1 for lk, im, _ in risks if lo <= lk * im <= hi)
                    assert after[k] == sum(1 for _, im, rl in risks if lo <= rl * im <= hi)
                assert sum(before) == sum(after) == len(risks)
    assert kinds_seen == {"table", "figure"}


def test_planted_likelihood_breaks_rating():
    ctx, built = build_doc("risk_assessment", 2)
    like = _by_attr(ctx, built["risk_register"], "likelihood")[0]
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 1})})
               if f.id == like.id else f for f in ctx.book.facts]
    problems = derivation_problems(planted)
    inherent = next(f for f in ctx.book.facts if f.derivation and like.id in f.derivation.operands)
    assert any(p.startswith(inherent.id) for p in problems)


def test_planted_heat_map_cell_breaks_count():
    ctx, built = build_doc("risk_assessment", 0, ["risk_register", "heat_map"])
    cells = [f for b in built["heat_map"] for f in _facts(ctx, b) if f.derivation and f.derivation.op == "count"]
    target = cells[0]
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 1})})
               if f.id == target.id else f for f in ctx.book.facts]
    assert any(p.startswith(f"{target.id}: count") for p in derivation_problems(planted))


# ---------------------------------------------------------------- sign-off and attestation

def test_sign_off_dates():
    for recipe in RECIPES_OF["sign_off"]:
        for seed in SEEDS:
            ctx, built = build_doc(recipe, seed)
            form = built["sign_off"][0]
            prepared = _one(ctx, [form], "prepared_date").value.value
            approved = _one(ctx, [form], "approved_date").value.value
            assert prepared <= approved <= ctx.anchor
            assert form.signature_lines == ["Prepared by", "Approved by"]
            assert _one(ctx, [form], "prepared_by").value.name != _one(ctx, [form], "approved_by").value.name
            if recipe == "inspection_report":  # the inspector reports after the visit
                details = built["inspection_details"]
                assert _one(ctx, details, "inspection_date").value.value <= prepared
                assert _one(ctx, details, "inspector").value.name == _one(ctx, [form], "prepared_by").value.name


def test_attestation_period_and_date():
    for seed in SEEDS:
        ctx, built = build_doc("compliance_report", seed)
        text, form = built["attestation"]
        start = _one(ctx, [text], "period_start")
        end = _one(ctx, [text], "period_end")
        signed = _one(ctx, [form], "attestation_date").value.value
        assert start.value.value < end.value.value < signed <= ctx.anchor
        assert "".join(s.text for s in text.spans).startswith("I attest that")
        assert form.signature_lines == ["Signature"]
        assert start.period == end.period == ctx.memo[("compliance", "period")][0]


# ---------------------------------------------------------------- incidents

def _parse_when(ctx, text: str) -> dt.datetime:
    """A printed "<date> HH:MM" back to a datetime (the date matched against the document's date format)."""
    day_text, hhmm = text.rsplit(" ", 1)
    day = next(ctx.anchor - dt.timedelta(days=k) for k in range(400) if ctx.fmt.date(ctx.anchor - dt.timedelta(days=k))
               == day_text)
    h, m = map(int, hhmm.split(":"))
    return dt.datetime.combine(day, dt.time(h, m))


def test_incident_summary_duration_is_the_printed_times_difference():
    for seed in SEEDS:
        ctx, built = build_doc("incident_report", seed)
        summary = built["incident_summary"]
        detected = _parse_when(ctx, _one(ctx, summary, "detected").text)
        resolved = _parse_when(ctx, _one(ctx, summary, "resolved").text)
        duration = _one(ctx, summary, "duration_minutes")
        assert resolved > detected and detected.date() <= ctx.anchor
        assert _num(duration) == (resolved - detected).total_seconds() / 60
        assert _one(ctx, summary, "incident_reference").text == ctx.doc_reference()
        assert re.fullmatch(r"(P[1-4]|Sev [1-4]) - (Critical|High|Medium|Low)", _one(ctx, summary, "severity").text)
        # the timeline runs from detection to resolution, ascending
        times = [f.text for f in _by_attr(ctx, built["incident_timeline"], "event_time")]
        assert 6 <= len(times) <= 10
        assert times == sorted(times) and len(set(times)) == len(times)
        assert times[0] == f"{detected:%H:%M}" and times[-1] == f"{resolved:%H:%M}"
        # the impact's unavailability is the summary's duration, quoted
        impact = built["incident_impact"]
        down = _one(ctx, impact, "unavailable_minutes")
        assert _num(down) == _num(duration)
        assert down.derivation.op == "quote" and down.derivation.operands == [duration.id]
        target = _one(ctx, impact, "restoration_target")
        assert _one(ctx, impact, "sla_breached").value.value == (_num(duration) > _num(target))
        costs = _by_attr(ctx, impact, "incident_cost")
        assert _num(_one(ctx, impact, "incident_cost_total")) == sum(_num(c) for c in costs)
        # the change that caused it came before it
        root = built["root_cause"]
        assert re.fullmatch(r"CHG-\d{4}-\d{4}", _one(ctx, root, "change_reference").text)
        assert _one(ctx, root, "change_date").value.value <= detected.date()
        assert _one(ctx, root, "runbook_review").value.value < _one(ctx, root, "change_date").value.value


def test_planted_duration_breaks_quote():
    ctx, built = build_doc("incident_report", 1)
    duration = _one(ctx, built["incident_summary"], "duration_minutes")
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 5})})
               if f.id == duration.id else f for f in ctx.book.facts]
    down = _one(ctx, built["incident_impact"], "unavailable_minutes")
    assert any(p.startswith(down.id) for p in derivation_problems(planted))


def test_impact_before_summary_ties_the_other_way():
    ctx, built = build_doc("incident_report", 2, ["incident_impact", "incident_summary"])
    down = _one(ctx, built["incident_impact"], "unavailable_minutes")
    duration = _one(ctx, built["incident_summary"], "duration_minutes")
    assert duration.derivation.op == "quote" and duration.derivation.operands == [down.id]


# ---------------------------------------------------------------- inspections

def test_inspection_details_dates():
    for seed in SEEDS:
        ctx, built = build_doc("inspection_report", seed)
        form = built["inspection_details"]
        prev = _one(ctx, form, "previous_inspection").value.value
        when = _one(ctx, form, "inspection_date").value.value
        nxt = _one(ctx, form, "next_inspection").value.value
        assert prev < when <= ctx.anchor < nxt
        assert _one(ctx, form, "inspection_type").text in ("Routine", "Follow-up", "Statutory")


def test_checklist_counts_and_findings_are_the_failed_checks():
    for seed in SEEDS:
        ctx, built = build_doc("inspection_report", seed)
        table, summary = built["inspection_checklist"]
        assert 8 <= len(table.rows) <= 14
        results = [ctx.book.by_id[r[2].fact_ids[0]].text for r in table.rows]
        assert set(results) <= {"Pass", "Fail", "N/A"} and "Fail" in results
        for attr, res in (("checks_passed", "Pass"), ("checks_failed", "Fail"), ("checks_not_applicable", "N/A")):
            assert _num(_one(ctx, [summary], attr)) == results.count(res)
        assert _num(_one(ctx, [summary], "checks_total")) == len(table.rows)
        failed = [r[1].text for r, res in zip(table.rows, results, strict=True) if res == "Fail"]
        assert [row["check"] for row in ctx.memo[("inspection", "failed")]] == failed
        findings = built["findings_by_severity"][0]
        texts = [ctx.book.by_id[r[1].fact_ids[0]].text for r in findings.rows]
        assert sorted(t.split(": ")[0] for t in texts) == sorted(failed)


def test_findings_by_severity():
    for recipe in RECIPES_OF["findings_by_severity"]:
        for seed in SEEDS:
            ctx, built = build_doc(recipe, seed)
            table, note = built["findings_by_severity"]
            sevs = [ctx.book.by_id[r[2].fact_ids[0]].text for r in table.rows]
            assert sevs == sorted(sevs, key=assessment.SEVERITIES.index)
            for row, sev in zip(table.rows, sevs, strict=True):
                due = ctx.book.by_id[row[4].fact_ids[0]].value.value
                lo, hi = assessment.DUE_DAYS[sev]
                assert lo <= (due - ctx.anchor).days < hi
            for sev in assessment.SEVERITIES:
                assert _num(_one(ctx, [note], f"findings_{sev.lower()}")) == sevs.count(sev)
            assert _num(_one(ctx, [note], "findings_total")) == len(table.rows)
            if recipe == "compliance_report":  # every control with exceptions is a finding
                flagged = [r["id"] for r in ctx.memo[("compliance", "controls")] if r["exceptions"]]
                texts = [ctx.book.by_id[r[1].fact_ids[0]].text for r in table.rows]
                assert sorted(t.split(" ")[1] for t in texts if t.startswith("Control ")) == sorted(flagged)


# ---------------------------------------------------------------- control tests

def test_control_tests_rates_results_and_totals():
    for seed in SEEDS:
        ctx, built = build_doc("compliance_report", seed)
        table, note = built["control_tests"]
        body, total = table.rows[:-1], table.rows[-1]
        assert total[0].text == "Total" and table.total_row
        cells = [[ctx.book.by_id[s.fact_ids[0]] for s in r[2:6]] for r in body]
        tolerable = _one(ctx, [note], "tolerable_rate")
        assert tolerable.query is not None and _num(tolerable) in (Decimal(5), Decimal(10))
        for samples, exceptions, rate, result in cells:
            exact = _num(exceptions) / _num(samples) * 100
            assert abs(_num(rate) - exact) <= Decimal("0.05")
            assert result.text == ("Effective" if _num(rate) <= _num(tolerable) else "Ineffective")
            assert samples.query is not None and exceptions.query is not None
        t_samples, t_exc = (ctx.book.by_id[s.fact_ids[0]] for s in total[2:4])
        assert _num(t_samples) == sum(_num(c[0]) for c in cells)
        assert _num(t_exc) == sum(_num(c[1]) for c in cells)
        assert _num(_one(ctx, [note], "controls_effective")) == sum(c[3].text == "Effective" for c in cells)


def test_control_figures_are_the_issuer_s_bookings_within_their_bounds():
    """Exceptions <= samples tested <= sample drawn <= times operated, each a query of the issuer's world; a
    control's figures are the same in a second document of the issuer (its identifier names one control)."""
    for seed in SEEDS:
        ctx, built = build_doc("compliance_report", seed, ["test_scope", "control_tests"])
        scope, tests = built["test_scope"][0], built["control_tests"][0]
        for srow, trow in zip(scope.rows, tests.rows[:-1], strict=True):
            ran, drawn = (ctx.book.by_id[c.fact_ids[0]] for c in srow[4:6])
            tested, exceptions = (ctx.book.by_id[c.fact_ids[0]] for c in trow[2:4])
            assert srow[0].text == trow[0].text
            assert 0 <= _num(exceptions) <= _num(tested) <= _num(drawn) <= _num(ran) and _num(tested) > 0
            assert all(f.query is not None for f in (ran, drawn, tested, exceptions))
        again = genre_ctx("compliance_report", seed, _domain("compliance_report", seed))
        again.world = ctx.world  # the same issuer, another document
        period = assessment.attestation_period(ctx, Rng(0))[0]
        for row in ctx.memo[("compliance", "controls")]:
            mine = registers.control_figures(again, row, period)
            assert {k: v for k, (v, _) in mine.items()} == {k: v for k, (v, _) in row["figures"].items()}


def test_planted_exceptions_break_rate_and_total():
    ctx, built = build_doc("compliance_report", 3)
    table = built["control_tests"][0]
    exc = ctx.book.by_id[table.rows[0][3].fact_ids[0]]
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 4})})
               if f.id == exc.id else f for f in ctx.book.facts]
    problems = derivation_problems(planted)
    rate = ctx.book.by_id[table.rows[0][4].fact_ids[0]]
    t_exc = ctx.book.by_id[table.rows[-1][3].fact_ids[0]]
    assert any(p.startswith(rate.id) and "share" in p for p in problems)
    assert any(p.startswith(t_exc.id) and "sum" in p for p in problems)


# ---------------------------------------------------------------- research

def test_study_design_sample_and_margin():
    for seed in SEEDS:
        ctx, built = build_doc("research_report", seed)
        table, form = built["study_design"]
        body, total = table.rows[:-1], table.rows[-1]
        cols = {j: [_num(ctx.book.by_id[r[j].fact_ids[0]]) for r in body] for j in (1, 2, 3)}
        t = [_num(ctx.book.by_id[s.fact_ids[0]]) for s in total[1:4]]
        assert t == [sum(cols[1]), sum(cols[2]), sum(cols[3])]
        for pop, drawn, got in zip(cols[1], cols[2], cols[3], strict=True):
            assert got <= drawn <= pop
        start = _one(ctx, [form], "period_start").value.value
        end = _one(ctx, [form], "period_end").value.value
        assert start < end < ctx.anchor
        conf = _num(_one(ctx, [form], "confidence_level"))
        z = {Decimal("90.0"): 1.645, Decimal("95.0"): 1.96, Decimal("99.0"): 2.576}[conf]
        moe = _num(_one(ctx, [form], "margin_of_error"))
        assert abs(float(moe) - z * math.sqrt(0.25 / float(t[2])) * 100) <= 0.05
        rate = _num(_one(ctx, [form], "overall_response_rate"))
        assert abs(rate - t[2] / t[1] * 100) <= Decimal("0.05")


REFERENCE = re.compile(r"^[A-Z][\w' -]+, [A-Z]\.(?: [A-Z]\.)?(?:, [A-Z][\w' -]+, [A-Z]\.(?: [A-Z]\.)?)*"
                       r"(?: and [A-Z][\w' -]+, [A-Z]\.(?: [A-Z]\.)?)? \((\d{4})\)\. .+\. .+, \d+\(\d\), \d+-\d+\.$")


def test_references_style_and_years():
    for seed in SEEDS:
        ctx, built = build_doc("research_report", seed)
        (lst,) = built["references"]
        assert lst.ordered and 5 <= len(lst.items) <= 8
        texts = ["".join(s.text for s in item) for item in lst.items]
        for t in texts:
            m = REFERENCE.match(t)
            assert m, t
            assert int(m.group(1)) <= ctx.anchor.year
        assert texts == sorted(texts, key=lambda t: t.split(",")[0])
        years = [ctx.book.by_id[fid] for item in lst.items for s in item for fid in s.fact_ids]
        assert [f.text for f in years] == [REFERENCE.match(t).group(1) for t in texts]
