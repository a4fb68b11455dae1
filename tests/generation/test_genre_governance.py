"""Governance genre blocks (``generation.content.genre.governance``): the parts of minutes, contract summaries,
policies, audit memos and briefings. Each builds 1-3 blocks within the height budget that pass the planner's
checks, the same from the same seed, and states its genre's arithmetic as derivations the referee recomputes:
votes for + against + abstentions = the members voting = the members present, the annual fee = its monthly
instalments, a liability cap = its multiple of the annual fee, an audit memo's counts by rating = its table's
ratings; a planted error in an operand is reported."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from synthdocqa.generation.content import genre
from synthdocqa.generation.content.genre import governance
from synthdocqa.generation.content.sizing import block_height
from synthdocqa.generation.content.tables import metric_fact, whole
from synthdocqa.generation.domains import DOMAINS, get_recipe
from synthdocqa.ir import Rng
from synthdocqa.ir.blocks import HeadingBlock, ListBlock, TableBlock, TextBlock, block_fact_ids
from synthdocqa.ir.derivations import derivation_problems
from tests.generation.genre_fixture import doc_with, genre_ctx
from tests.generation.plan_checks import all_problems

KIND_RECIPE = {
    "attendance": "board_minutes", "resolutions": "board_minutes", "action_log": "board_minutes",
    "next_meeting": "board_minutes",
    "contract_parties": "contract_summary", "contract_clauses": "contract_summary",
    "service_levels": "contract_summary", "pricing_schedule": "contract_summary", "signature_block": "contract_summary",
    "definitions": "policy_document", "roles": "policy_document", "procedure_steps": "policy_document",
    "version_history": "policy_document", "review_date": "policy_document",
    "memo_header": "audit_memo", "audit_observations": "audit_memo",
    "key_messages": "executive_handout", "decisions_requested": "executive_handout",
}
SEEDS = (0, 1, 2, 3)
MAX_HEIGHT = 420
MAX_ROWS = 14


def domains_of(recipe: str) -> list[str]:
    """Three domains of different kinds that have the recipe (first, middle and last of the list)."""
    slugs = [d.slug for d in DOMAINS if recipe in d.recipes]
    return list(dict.fromkeys([slugs[0], slugs[len(slugs) // 2], slugs[-1]]))


def cases(recipe: str):
    return [(domain, seed) for domain in domains_of(recipe) for seed in SEEDS]


def build(kind: str, domain: str, seed: int, ctx=None):
    ctx = ctx or genre_ctx(KIND_RECIPE[kind], seed, domain)
    return ctx, genre.build(kind, ctx, Rng(seed).fork("genre", kind))


def build_recipe(recipe: str, domain: str, seed: int):
    """Every governance block of the recipe's grammar, in order, into one document."""
    ctx = genre_ctx(recipe, seed, domain)
    out = {}
    for sec in get_recipe(recipe).grammar:
        for kind in sec.blocks:
            if kind in governance.BLOCKS:
                out[kind] = build(kind, domain, seed, ctx)[1]
    return ctx, out


def facts_of(ctx, block, attribute: str | None = None):
    facts = [ctx.book.by_id[fid] for fid in block_fact_ids(block)]
    return [f for f in facts if attribute is None or f.attribute == attribute]


def one(ctx, blocks, attribute: str):
    found = [f for b in blocks for f in facts_of(ctx, b, attribute)]
    assert len(found) == 1, (attribute, [f.label for f in found])
    return found[0]


def planted(facts, fact_id: str, **value):
    """The facts with one fact's value changed (its text left as it was: the referee reads values)."""
    return [f.model_copy(update={"value": f.value.model_copy(update=value)}) if f.id == fact_id else f for f in facts]


def add_months(d: dt.date, n: int) -> dt.date:
    y, m = divmod(d.year * 12 + d.month - 1 + n, 12)
    for day in range(d.day, 27, -1):
        try:
            return dt.date(y, m + 1, day)
        except ValueError:
            continue
    return dt.date(y, m + 1, min(d.day, 28))


# ---------------------------------------------------------------- every kind


def test_every_kind_is_registered_for_its_recipe():
    assert sorted(governance.BLOCKS) == sorted(KIND_RECIPE)
    for kind, recipe in KIND_RECIPE.items():
        assert kind in get_recipe(recipe).genre_blocks
        assert genre.GENRE_BLOCKS[kind] is governance.BLOCKS[kind]


@pytest.mark.parametrize("kind", sorted(KIND_RECIPE))
def test_blocks_fit_pass_the_checks_and_repeat(kind):
    for domain, seed in cases(KIND_RECIPE[kind]):
        ctx, blocks = build(kind, domain, seed)
        where = f"{kind} {domain} seed {seed}"
        assert 1 <= len(blocks) <= 3, where
        assert not any(isinstance(b, HeadingBlock) for b in blocks), where
        assert all(b.genre_block == kind for b in blocks), where
        assert sum(block_height(b) for b in blocks) <= MAX_HEIGHT, where
        assert all(len(b.rows) <= MAX_ROWS for b in blocks if isinstance(b, TableBlock)), where
        assert all_problems(doc_with(ctx, blocks)) == [], where
        assert derivation_problems(ctx.book.facts) == [], where
        for b in blocks:  # a block's facts are its own
            assert all(ctx.book.by_id[fid].group == b.id for fid in block_fact_ids(b)), where
        assert len({b.id for b in blocks}) == len(blocks), where
        for earlier, later in zip(blocks, blocks[1:], strict=False):  # a block's id, then its facts
            assert earlier.id < later.id, where
            assert max(block_fact_ids(earlier), default="f0000") < min(block_fact_ids(later), default="f9999"), where
        ctx2, again = build(kind, domain, seed)
        assert [b.model_dump() for b in again] == [b.model_dump() for b in blocks], where
        assert [f.model_dump() for f in ctx2.book.facts] == [f.model_dump() for f in ctx.book.facts], where


@pytest.mark.parametrize("recipe", ["board_minutes", "contract_summary", "policy_document", "audit_memo",
                                    "executive_handout"])
def test_a_genre_s_blocks_hold_together_in_one_document(recipe):
    for domain, seed in cases(recipe):
        ctx, built = build_recipe(recipe, domain, seed)
        blocks = [b for bs in built.values() for b in bs]
        assert all_problems(doc_with(ctx, blocks)) == [], (recipe, domain, seed)
        labels = [f.label for f in ctx.book.facts]
        assert len(labels) == len(set(labels)), sorted({x for x in labels if labels.count(x) > 1})


# ---------------------------------------------------------------- minutes


def test_attendance_counts_the_members_present_and_is_quorate():
    for domain, seed in cases("board_minutes"):
        ctx, blocks = build("attendance", domain, seed)
        present = [f for b in blocks for f in facts_of(ctx, b, "member_present")]
        apologies = [f for b in blocks for f in facts_of(ctx, b, "apologies")]
        attending = [f for b in blocks for f in facts_of(ctx, b, "in_attendance")]
        n, m, k = (one(ctx, blocks, a) for a in ("members_present", "members", "quorum"))
        assert 5 <= len(present) <= 9 and 1 <= len(apologies) <= 2 and 1 <= len(attending) <= 3
        assert n.value.value == len(present) and n.derivation.op == "count"
        assert sorted(n.derivation.operands) == sorted(f.id for f in present)
        assert k.value.value <= n.value.value and m.value.value >= n.value.value + len(apologies)
        names = [f.value.name for f in present + apologies + attending]
        assert len(set(names)) == len(names)
        assert ctx.memo[("minutes", "present")] == [f.value.entity_id for f in present]
        assert present[0].label == "Chair of the meeting"
        held = one(ctx, blocks, "meeting_date").value.value
        assert held == ctx.memo[("minutes", "date")] <= ctx.anchor
        quorum = next(b for b in blocks if isinstance(b, TextBlock) and "quorate" in "".join(s.text for s in b.spans))
        assert "The Chair declared the meeting quorate: " in "".join(s.text for s in quorum.spans)


def test_votes_add_up_to_the_members_present_and_decide_the_outcome():
    for domain, seed in cases("board_minutes"):
        ctx, built = build_recipe("board_minutes", domain, seed)
        present = ctx.memo[("minutes", "present")]
        table = next(b for b in built["resolutions"] if isinstance(b, TableBlock))
        listing = next(b for b in built["resolutions"] if isinstance(b, ListBlock))
        assert 2 <= len(table.rows) <= 4 and len(listing.items) == len(table.rows)
        for row in table.rows:
            v_for, v_against, v_abstain, voting, outcome = (ctx.book.by_id[c.fact_ids[0]] for c in row[1:])
            total = v_for.value.value + v_against.value.value + v_abstain.value.value
            assert total == voting.value.value == len(present)
            assert voting.derivation.op == "sum"
            assert voting.derivation.operands == [v_for.id, v_against.id, v_abstain.id]
            assert outcome.value.value == ("Carried" if v_for.value.value > v_against.value.value else "Not carried")
        for who in ("proposer", "seconder"):
            assert all(f.value.entity_id in present for f in facts_of(ctx, listing, who))
        for p, s in zip(facts_of(ctx, listing, "proposer"), facts_of(ctx, listing, "seconder"), strict=True):
            assert p.value.entity_id != s.value.entity_id
        # a planted error: one more vote for the first resolution than was cast
        first_for = ctx.book.by_id[table.rows[0][1].fact_ids[0]]
        wrong = planted(ctx.book.facts, first_for.id, value=first_for.value.value + 1)
        voting_id = table.rows[0][4].fact_ids[0]
        assert any(p.startswith(f"{voting_id} ") for p in derivation_problems(wrong))


def test_actions_are_owned_by_members_present_and_due_after_the_meeting():
    for domain, seed in cases("board_minutes"):
        ctx, built = build_recipe("board_minutes", domain, seed)
        present = ctx.memo[("minutes", "present")]
        held = ctx.memo[("minutes", "date")]
        (table,) = built["action_log"]
        assert 3 <= len(table.rows) <= 6
        numbers = [r[0].text for r in table.rows]
        assert all(n.startswith(f"A{held.year % 100:02d}/") for n in numbers) and len(set(numbers)) == len(numbers)
        actions = [r[1].text for r in table.rows]
        assert len(set(actions)) == len(actions) and set(actions) <= ctx.used("actions")
        for row in table.rows:
            owner, due, status = (ctx.book.by_id[row[i].fact_ids[0]] for i in (2, 3, 4))
            assert owner.value.entity_id in present
            assert due.value.value > ctx.anchor > held
            assert status.value.value in ("Open", "In progress", "Done")
        text, signed = built["next_meeting"]
        assert one(ctx, [text], "next_meeting_date").value.value > ctx.anchor
        assert one(ctx, [signed], "signatory").value.entity_id == present[0]
        said = signed.title if signed.type == "form" else " ".join(s.text for s in signed.spans[1:])
        assert "Chair" in said or "minutes" in said.lower() or "correct record" in said  # says who signs, as what


# ---------------------------------------------------------------- contract summary


def test_contract_terms_reconcile():
    for domain, seed in cases("contract_summary"):
        ctx, built = build_recipe("contract_summary", domain, seed)
        parties, clauses, levels, signatures = (built[k] for k in ("contract_parties", "contract_clauses",
                                                                    "service_levels", "signature_block"))
        b_party = [f for f in facts_of(ctx, parties[0], "party")][1]
        assert b_party.value.entity_id == ctx.counterparties[0].id
        assert one(ctx, parties, "contract_reference").value.value == ctx.doc_reference()
        effective = one(ctx, parties, "effective_date").value.value
        assert effective <= ctx.anchor
        start, end = one(ctx, clauses, "term_start").value.value, one(ctx, clauses, "term_end").value.value
        term = int(one(ctx, clauses, "initial_term").value.value)
        assert start == effective and end == add_months(start, term) - dt.timedelta(days=1) and end > ctx.anchor
        monthly, count, annual = (one(ctx, clauses, a) for a in ("monthly_fee", "instalments", "annual_fee"))
        assert annual.value.amount == monthly.value.amount * count.value.value
        assert annual.derivation.op == "product" and annual.derivation.operands == [monthly.id, count.id]
        cap = one(ctx, clauses, "liability_cap")
        multiple = [f for f in facts_of(ctx, clauses[0], "liability_multiple")]
        if multiple:
            assert cap.value.amount == multiple[0].value.value * annual.value.amount
            assert cap.derivation.operands == [multiple[0].id, annual.id]
        fee = one(ctx, [levels[1]], "monthly_fee")
        assert fee.derivation.op == "quote" and fee.derivation.operands == [monthly.id]
        credit_cap, capped = one(ctx, levels, "service_credit_cap"), one(ctx, levels, "service_credit_cap_amount")
        places = Decimal(1).scaleb(-ctx.fmt.money_decimals)
        assert capped.value.amount == (fee.value.amount * credit_cap.value.value / 100).quantize(places)
        targets = facts_of(ctx, levels[0], "sla_target")
        assert all(f.quantity == ("rate" if f.value.kind == "percent" else "duration") for f in targets)
        for d in facts_of(ctx, signatures[0], "date_signed"):
            assert effective <= d.value.value <= ctx.anchor
        signed_by = [f.value.entity_id for f in facts_of(ctx, signatures[0], "signatory")]
        assert signed_by == [f.value.entity_id for f in facts_of(ctx, parties[0], "signatory")]
        schedule = built["pricing_schedule"]
        charges, total = facts_of(ctx, schedule[0], "annual_charge"), one(ctx, schedule, "schedule_total")
        assert len(charges) >= 3 and total.value.amount == annual.value.amount  # the schedule is the annual fee
        assert sum(f.value.amount for f in charges) == total.value.amount
        assert total.derivation.op == "sum" and total.derivation.operands == [f.id for f in charges]
        assert derivation_problems(planted(ctx.book.facts, charges[1].id, amount=charges[1].value.amount + 100))
        # a planted error: a monthly instalment that does not make the annual fee
        wrong = planted(ctx.book.facts, monthly.id, amount=monthly.value.amount + 1)
        problems = derivation_problems(wrong)
        assert any(p.startswith(f"{annual.id} ") for p in problems)
        assert any(p.startswith(f"{fee.id} ") for p in problems)  # the service levels quote it


# ---------------------------------------------------------------- policy


def test_policy_versions_review_and_roles_agree():
    for domain, seed in cases("policy_document"):
        ctx, built = build_recipe("policy_document", domain, seed)
        (defs,), (roles,), (steps,), (history,), (review,) = (built[k] for k in (
            "definitions", "roles", "procedure_steps", "version_history", "review_date"))
        terms = [f.value.value for f in facts_of(ctx, defs, "defined_term")]
        assert 5 <= len(terms) <= 8 and terms == sorted(set(terms))
        assert len(facts_of(ctx, defs, "definition")) == len(terms)
        assert 4 <= len(roles.rows) <= 6 and len(facts_of(ctx, roles, "role_holder")) == len(roles.rows)
        assert 5 <= len(steps.items) <= 8
        deadlines = [f for f in facts_of(ctx, steps) if f.attribute.endswith("_deadline")]
        assert all(f.quantity == "duration" and f.value.unit in ("working days", "hours") for f in deadlines)
        versions = [tuple(int(x) for x in f.value.value.split(".")) for f in facts_of(ctx, history, "version")]
        dates = [f.value.value for f in facts_of(ctx, history, "version_date")]
        assert 3 <= len(versions) <= 5 and versions == sorted(set(versions))
        assert dates == sorted(set(dates)) and dates[-1] <= ctx.anchor
        assert history.rows[-1][0].text == ctx.memo["doc_reference_details"][0]  # the version the document states
        approved = one(ctx, [review], "approval_date").value.value
        interval = int(one(ctx, [review], "review_interval").value.value)
        assert approved == dates[-1] and interval in (12, 24)
        due = one(ctx, [review], "review_date").value.value
        assert due == add_months(approved, interval) and due > ctx.anchor
        owner = one(ctx, [review], "policy_owner").value.entity_id
        assert owner == ctx.book.by_id[roles.rows[0][2].fact_ids[0]].value.entity_id


# ---------------------------------------------------------------- audit memo


def test_audit_memo_counts_its_observations_by_rating():
    for domain, seed in cases("audit_memo"):
        ctx, built = build_recipe("audit_memo", domain, seed)
        (header,), (table, counts) = built["memo_header"], built["audit_observations"]
        assert one(ctx, [header], "issue_date").value.value == ctx.anchor
        ref = next(f for f in facts_of(ctx, header) if f.label.startswith("Reference number"))
        assert ref.value.value == ctx.doc_reference()
        start, end = one(ctx, [header], "period_start").value.value, one(ctx, [header], "period_end").value.value
        assert start < end <= ctx.anchor
        ratings = [f.value.value for f in facts_of(ctx, table, "rating")]
        assert 3 <= len(ratings) <= 6 and ratings == sorted(ratings, key=("High", "Medium", "Low").index)
        assert all(f.value.value > ctx.anchor for f in facts_of(ctx, table, "agreed_date"))
        by = {r: one(ctx, [counts], f"{r.lower()}_observations") for r in ("High", "Medium", "Low")}
        for r, f in by.items():
            assert f.value.value == ratings.count(r)
        total = one(ctx, [counts], "observations")
        assert total.value.value == len(table.rows) == sum(f.value.value for f in by.values())
        assert total.derivation.operands == [f.id for f in by.values()]
        # a planted error: one more high-rated observation counted than the table holds
        high = by["High"]
        problems = derivation_problems(planted(ctx.book.facts, high.id, value=high.value.value + 1))
        assert any(p.startswith(f"{total.id} ") for p in problems)
        if high.derivation is not None:
            assert any(p.startswith(f"{high.id}: count") for p in problems)


# ---------------------------------------------------------------- briefing


def test_key_messages_state_the_document_s_values_and_their_changes():
    for domain, seed in cases("executive_handout"):
        ctx, built = build_recipe("executive_handout", domain, seed)
        (messages,) = built["key_messages"]
        assert 3 <= len(messages.items) <= 5
        changes = [f for f in facts_of(ctx, messages) if f.derivation is not None]
        assert len(changes) == len(messages.items)
        for c in changes:
            earlier, later = (ctx.book.by_id[o] for o in c.derivation.operands[::-1 if c.derivation.op ==
                                                                                 "difference" else 1])
            assert earlier.period != later.period and c.period == later.period
        for f in facts_of(ctx, messages):
            if f.derivation is not None:
                continue
            metric = ctx.domain.metric(f.attribute)
            if f.label.startswith("Total "):
                assert f.value == metric_fact(ctx, metric, whole(ctx, metric, f.period)[1], "x").value
            else:
                item = f.label[len(f"{metric.name} of "):-len(f" in {f.period}")]
                assert f.value == metric_fact(ctx, metric, ctx.metric_value(metric, item, f.period), "x").value
        first = changes[0]
        operand = ctx.book.by_id[first.derivation.operands[0]]
        field = "amount" if operand.value.kind == "money" else "value"
        bumped = getattr(operand.value, field) * 2 + 1
        assert any(p.startswith(f"{first.id} ") for p in derivation_problems(
            planted(ctx.book.facts, operand.id, **{field: bumped})))
        (decisions,) = built["decisions_requested"]
        assert decisions.ordered and 2 <= len(decisions.items) <= 4
        due = [f.value.value for f in facts_of(ctx, decisions, "decision_by")]
        assert len(due) == len(decisions.items) and all(d > ctx.anchor for d in due) and due == sorted(due)
        assert all(f.value.amount > 0 for f in facts_of(ctx, decisions, "amount_requested"))
