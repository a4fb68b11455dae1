"""Genre blocks of trade documents (``generation.content.genre.trade``): shape, consistency, determinism and
each genre's own arithmetic (lines x price, tax at the stated rate, the amount due is the invoice total,
deliveries add up to the order, a budget's rows and columns add up, a claim's mileage is distance x rate)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import ROUND_HALF_EVEN, Decimal
from functools import cache

import pytest

from synthdocqa.generation.content import genre
from synthdocqa.generation.content.genre import trade
from synthdocqa.generation.content.sizing import block_height
from synthdocqa.generation.domains import DOMAINS, RECIPES, get_recipe
from synthdocqa.ir import Rng
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.derivations import derivation_problems
from tests.generation.genre_fixture import doc_with, genre_ctx
from tests.generation.plan_checks import all_problems

KINDS = ("invoice_header", "order_header", "trade_parties", "invoice_lines", "order_lines", "payment_terms",
         "bank_details", "delivery_schedule", "approval_chain", "claimant", "expense_lines", "grant_budget",
         "applicant_details", "declarations", "budget_vs_baseline")
SEEDS = range(6)
RECIPES_OF = {k: [r.slug for r in RECIPES if k in r.genre_blocks] for k in KINDS}
PAIRS = [(k, r) for k in KINDS for r in RECIPES_OF[k]]
TRADE_RECIPES = sorted({r for rs in RECIPES_OF.values() for r in rs})
VAT = {"United Kingdom": 20, "Germany": 19, "France": 20, "Netherlands": 21, "Spain": 21, "Italy": 22, "Ireland": 23}
TAX_NUMBER = {"United Kingdom": r"GB \d{3} \d{4} \d{2}", "Germany": r"DE\d{9}", "France": r"FR\d{11}",
              "Netherlands": r"NL\d{9}B\d{2}", "Spain": r"ES[AB]\d{8}", "Italy": r"IT\d{11}", "Ireland": r"IE\d{7}[A-Z]",
              "United States": r"\d{2}-\d{7}"}
IBAN_LENGTH = {"GB": 22, "IE": 22, "DE": 22, "NL": 18, "FR": 27, "ES": 24, "IT": 27}


def _domain(recipe: str, seed: int) -> str:
    doms = [d.slug for d in DOMAINS if recipe in d.recipes]
    return doms[(seed * 7) % len(doms)]


def _ctx(recipe: str, seed: int):
    return genre_ctx(recipe, seed, _domain(recipe, seed))


def build_one(kind: str, recipe: str, seed: int):
    """``kind`` alone in a fresh document of ``recipe``."""
    ctx = _ctx(recipe, seed)
    return ctx, genre.build(kind, ctx, Rng(seed).fork("genre", kind))


def build_recipe(recipe: str, seed: int):
    """Every trade genre block of ``recipe``'s grammar, in its order, in one document: ``(ctx, {kind: blocks})``."""
    ctx = _ctx(recipe, seed)
    out: dict[str, list] = {}
    for sec in get_recipe(recipe).grammar:
        for kind in sec.blocks:
            if kind in trade.BLOCKS:
                out[kind] = genre.build(kind, ctx, Rng(seed).fork("genre", kind))
    return ctx, out


@cache
def built(recipe: str, seed: int):
    return build_recipe(recipe, seed)


def fact(ctx, span):
    return ctx.book.by_id[span.fact_ids[0]]


def num(ctx, span) -> Decimal:
    return numeric(fact(ctx, span).value)


def when(ctx, span) -> dt.date:
    return fact(ctx, span).value.value


def field(ctx, form, label):
    return fact(ctx, next(f.value for f in form.fields if f.label == label))


def entity(ctx, eid):
    return next(e for e in ctx.book.entities if e.id == eid)


def rounded(x: Decimal, like: Decimal) -> Decimal:
    return x.quantize(Decimal(1).scaleb(min(0, like.as_tuple().exponent)), rounding=ROUND_HALF_EVEN)


# ---------------------------------------------------------------- registry, shape, consistency, determinism

def test_the_module_builds_exactly_its_kinds_and_each_is_in_a_grammar():
    assert sorted(trade.BLOCKS) == sorted(KINDS)
    assert all(RECIPES_OF[k] for k in KINDS)
    assert all(genre.GENRE_BLOCKS[k] is trade.BLOCKS[k] for k in KINDS)


@pytest.mark.parametrize("kind,recipe", PAIRS)
def test_a_block_alone_is_sized_consistent_and_deterministic(kind, recipe):
    for seed in SEEDS:
        ctx, blocks = build_one(kind, recipe, seed)
        assert 1 <= len(blocks) <= 3
        assert sum(block_height(b) for b in blocks) <= 420
        assert all(b.type in ("table", "list", "form", "text_block", "figure", "annotation") for b in blocks)
        assert all(b.genre_block == kind for b in blocks)
        assert all(len(b.rows) <= 14 for b in blocks if b.type == "table")
        ids = {b.id for b in blocks}
        assert {f.group for f in ctx.book.facts} <= ids  # every fact belongs to a block of the call
        assert derivation_problems(ctx.book.facts) == []
        assert all_problems(doc_with(ctx, blocks)) == [], (kind, recipe, seed)
        _, again = build_one(kind, recipe, seed)
        assert [b.model_dump() for b in again] == [b.model_dump() for b in blocks]


@pytest.mark.parametrize("recipe", TRADE_RECIPES)
def test_a_whole_document_of_genre_blocks_is_consistent_and_deterministic(recipe):
    for seed in range(10):
        ctx, by_kind = built(recipe, seed)
        blocks = [b for bs in by_kind.values() for b in bs]
        assert all_problems(doc_with(ctx, blocks)) == [], (recipe, seed)
        _, again = build_recipe(recipe, seed)
        assert {k: [b.model_dump() for b in bs] for k, bs in again.items()} == \
            {k: [b.model_dump() for b in bs] for k, bs in by_kind.items()}


# ---------------------------------------------------------------- invoices and orders

def _lines_rows(table):
    return table.rows[:-3], table.rows[-3:]


@pytest.mark.parametrize("recipe,kind", [("invoice", "invoice_lines"), ("purchase_order", "order_lines")])
def test_lines_multiply_add_up_and_carry_the_tax_of_the_sellers_country(recipe, kind):
    for seed in range(10):
        ctx, by_kind = built(recipe, seed)
        (t,) = by_kind[kind]
        body, (sub, tax, total) = _lines_rows(t)
        assert 3 <= len(body) <= 10 and not t.total_row
        amounts = []
        for row in body:
            qty, price, amount = (num(ctx, s) for s in row[-3:])
            assert amount == qty * price
            amounts.append(amount)
        assert num(ctx, sub[-1]) == sum(amounts)
        rate = num(ctx, tax[0])
        assert fact(ctx, tax[0]).text in tax[0].text
        assert num(ctx, tax[-1]) == rounded(num(ctx, sub[-1]) * rate / 100, num(ctx, tax[-1]))
        assert num(ctx, total[-1]) == num(ctx, sub[-1]) + num(ctx, tax[-1])
        (parties,) = by_kind["trade_parties"]
        seller, buyer = (entity(ctx, fact(ctx, parties.rows[i][1]).value.entity_id) for i in (0, 1))
        s_country, b_country = seller.attributes["country"], buyer.attributes["country"]
        if s_country != b_country:
            assert rate == 0
        elif s_country == "United States":
            city = fact(ctx, parties.rows[2][2]).value.value.split(", ")[-3]
            assert rate == trade.US_SALES_TAX[city]
        else:
            assert rate == VAT[s_country]


def test_planted_error_in_a_quantity_breaks_the_line_amount():
    ctx, by_kind = built("invoice", 1)
    (t,) = by_kind["invoice_lines"]
    qty = fact(ctx, t.rows[0][1])
    amount = fact(ctx, t.rows[0][3])
    facts = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 1})})
             if f.id == qty.id else f for f in ctx.book.facts]
    problems = derivation_problems(facts)
    assert any(p.startswith(amount.id) for p in problems)


def test_invoice_header_dates_and_number():
    for seed in range(10):
        ctx, by_kind = built("invoice", seed)
        (form,) = by_kind["invoice_header"]
        assert form.title == "Invoice"
        assert field(ctx, form, "Invoice no.").text == ctx.doc_reference()
        issued, due = field(ctx, form, "Invoice date").value.value, field(ctx, form, "Due date").value.value
        assert issued <= ctx.anchor < due
        assert (due - issued).days in trade.NET_DAYS
        assert field(ctx, form, "Your order ref.").text != ctx.doc_reference()


def test_payment_terms_state_the_headers_dates_and_the_invoice_total():
    for seed in range(10):
        ctx, by_kind = built("invoice", seed)
        (header,) = by_kind["invoice_header"]
        (lines,) = by_kind["invoice_lines"]
        first, second = by_kind["payment_terms"]
        total = fact(ctx, lines.rows[-1][-1])
        facts = [ctx.book.by_id[fid] for s in first.spans for fid in s.fact_ids]
        days, amount, due = facts
        assert amount.value == total.value and amount.derivation.op == "quote"
        assert amount.derivation.operands == [total.id]
        assert due.value == field(ctx, header, "Due date").value
        assert days.value.value == (due.value.value - field(ctx, header, "Invoice date").value.value).days
        assert days.derivation.op == "days_between"
        rate = next(ctx.book.by_id[s.fact_ids[0]] for s in second.spans if s.fact_ids)
        assert rate.value.kind == "percent" and Decimal(0) < rate.value.value <= 10


def test_the_amount_due_is_tied_to_the_total_even_when_the_terms_come_first():
    ctx = _ctx("invoice", 3)
    terms = genre.build("payment_terms", ctx, Rng(3).fork("genre", "payment_terms"))
    (lines,) = genre.build("invoice_lines", ctx, Rng(3).fork("genre", "invoice_lines"))
    total = fact(ctx, lines.rows[-1][-1])
    amount = ctx.book.by_id[terms[0].spans[3].fact_ids[0]]
    assert amount.derivation.op == "quote" and amount.derivation.operands == [total.id]
    assert all_problems(doc_with(ctx, [*terms, lines])) == []
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"amount": f.value.amount + 1})})
               if f.id == total.id else f for f in ctx.book.facts]
    assert any(p.startswith(amount.id) for p in derivation_problems(planted))


def test_bank_details_fit_the_currency_and_check_digits_hold():
    seen = set()
    for seed in range(30):
        ctx, by_kind = built("invoice", seed)
        (form,) = by_kind["bank_details"]
        labels = [f.label for f in form.fields]
        assert field(ctx, form, "Beneficiary").value.entity_id == ctx.issuer.id
        assert field(ctx, form, "Payment reference").text == ctx.doc_reference()
        bic = field(ctx, form, "BIC / SWIFT").text
        assert re.fullmatch(r"[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?", bic)
        cur = ctx.fmt.currency
        seen.add(cur)
        if cur == "USD":
            assert trade.aba_ok(field(ctx, form, "ABA routing no.").text)
            assert re.fullmatch(r"\d{10,12}", field(ctx, form, "Account no.").text)
            assert "IBAN" not in labels
            continue
        iban = field(ctx, form, "IBAN").text
        code = iban[:2]
        assert trade.iban_ok(iban) and len(iban.replace(" ", "")) == IBAN_LENGTH[code]
        assert bic[4:6] == code
        if cur == "GBP":
            sort = field(ctx, form, "Sort code").text
            acct = field(ctx, form, "Account no.").text
            assert re.fullmatch(r"\d{2}-\d{2}-\d{2}", sort) and re.fullmatch(r"\d{8}", acct)
            assert iban.replace(" ", "").endswith(sort.replace("-", "") + acct)
    assert seen == {"USD", "EUR", "GBP"}


def test_check_digit_helpers_reject_a_changed_digit():
    assert trade.iban_ok("GB82 WEST 1234 5698 7654 32") and not trade.iban_ok("GB82 WEST 1234 5698 7654 33")
    assert trade.iban_ok(trade.iban("DE", "370400440532013000"))
    assert trade.aba_ok("011000015") and not trade.aba_ok("011000016")


@pytest.mark.parametrize("recipe", ["invoice", "purchase_order"])
def test_parties_are_seller_buyer_and_delivery_with_tax_numbers_of_their_country(recipe):
    for seed in range(10):
        ctx, by_kind = built(recipe, seed)
        (t,) = by_kind["trade_parties"]
        assert [r[0].text for r in t.rows] == (["Supplier", "Invoice to", "Deliver to"] if recipe == "purchase_order"
                                               else ["Seller", "Bill to", "Ship to"])
        seller = fact(ctx, t.rows[0][1]).value.entity_id
        if recipe == "invoice":
            assert seller == ctx.issuer.id
        else:
            assert seller in {c.id for c in ctx.counterparties}
            assert fact(ctx, t.rows[1][1]).value.entity_id == ctx.issuer.id
        for row in t.rows[:2]:
            e = entity(ctx, fact(ctx, row[1]).value.entity_id)
            assert fact(ctx, row[2]).text == e.attributes["full"]
            assert re.fullmatch(TAX_NUMBER[e.attributes["country"]], fact(ctx, row[3]).text)


def test_order_header_and_delivery_schedule_agree_with_the_order_lines():
    for seed in range(10):
        ctx, by_kind = built("purchase_order", seed)
        (form,) = by_kind["order_header"]
        (lines,) = by_kind["order_lines"]
        (sched,) = by_kind["delivery_schedule"]
        assert form.title == "Purchase Order" and field(ctx, form, "PO number").text == ctx.doc_reference()
        ordered = field(ctx, form, "Order date").value.value
        required = field(ctx, form, "Delivery required by").value.value
        assert ordered <= ctx.anchor < required
        body, total = sched.rows[:-1], sched.rows[-1]
        days = [when(ctx, r[1]) for r in body]
        assert days == sorted(days) and len(set(days)) == len(days) and ordered < days[0] and days[-1] == required
        assert sched.total_row and total[0].text == "Total"
        assert num(ctx, total[3]) == sum(num(ctx, r[3]) for r in body) == sum(num(ctx, r[2]) for r in lines.rows[:-3])
        for k, row in enumerate(body):  # a delivery brings the lines dated that day
            brought = [num(ctx, r[2]) for r in lines.rows[:-3] if when(ctx, r[1]) == days[k]]
            assert num(ctx, row[3]) == sum(brought)
            assert fact(ctx, row[3]).derivation.op == "sum"


def test_planted_error_in_a_delivery_quantity_breaks_the_total():
    ctx, by_kind = built("purchase_order", 2)
    (sched,) = by_kind["delivery_schedule"]
    first, total = fact(ctx, sched.rows[0][3]), fact(ctx, sched.rows[-1][3])
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"value": f.value.value + 5})})
               if f.id == first.id else f for f in ctx.book.facts]
    problems = derivation_problems(planted)
    assert any(p.startswith(total.id) for p in problems) and any(p.startswith(first.id) for p in problems)


# ---------------------------------------------------------------- approvals and claims

@pytest.mark.parametrize("recipe", RECIPES_OF["approval_chain"])
def test_approvals_go_up_in_date_order_and_the_last_limit_covers_the_total(recipe):
    for seed in range(10):
        ctx, by_kind = built(recipe, seed)
        (t,) = by_kind["approval_chain"]
        days = [when(ctx, r[3]) for r in t.rows]
        assert days == sorted(days) and days[-1] <= ctx.anchor
        people = [fact(ctx, r[1]).value.entity_id for r in t.rows]
        assert len(set(people)) == len(people) >= 3
        assert t.rows[0][4].text == "Submitted" and all(r[4].text.startswith("Approved") for r in t.rows[1:])
        steps = [r[0].text for r in t.rows]
        assert steps[1:] == ["Reviewed by", "Approved by", "Authorised by"][:len(steps) - 1]
        if recipe not in ("purchase_order", "expense_claim"):
            assert len(t.columns) == 5
            continue
        limits = [num(ctx, r[5]) for r in t.rows[1:]]
        assert limits == sorted(limits) and len(set(limits)) == len(limits)
        if recipe == "purchase_order":
            (lines,) = by_kind["order_lines"]
            assert limits[-1] >= num(ctx, lines.rows[-1][-1])
            assert days[-1] <= field(ctx, by_kind["order_header"][0], "Order date").value.value
        else:
            (claim,) = by_kind["expense_lines"]
            assert limits[-1] >= num(ctx, next(r for r in claim.rows if r[0].text.startswith("Total"))[-1])
            assert days[0] == field(ctx, by_kind["claimant"][0], "Date submitted").value.value


def test_expense_lines_fall_in_the_claim_period_and_add_up():
    advances = 0
    for seed in range(16):
        ctx, by_kind = built("expense_claim", seed)
        (form,) = by_kind["claimant"]
        (t,) = by_kind["expense_lines"]
        start = field(ctx, form, "Claim period from").value.value
        end = field(ctx, form, "Claim period to").value.value
        assert start < end <= field(ctx, form, "Date submitted").value.value <= ctx.anchor
        body = [r for r in t.rows if r[0].fact_ids]
        days = [when(ctx, r[0]) for r in body]
        assert days == sorted(days) and start <= days[0] and days[-1] <= end
        mileage = [r for r in body if r[1].text == "Mileage"]
        assert len(mileage) == 1
        dist, rate = (ctx.book.by_id[f] for f in mileage[0][2].fact_ids)
        assert rate.quantity == "ratio" and dist.value.unit in ("miles", "km")
        assert num(ctx, mileage[0][4]) == rounded(dist.value.value * rate.value.amount, num(ctx, mileage[0][4]))
        total_row = next(r for r in t.rows if r[0].text in ("Total", "Total claimed"))
        assert num(ctx, total_row[4]) == sum(num(ctx, r[4]) for r in body)
        if t.rows[-1][0].text == "Amount due to claimant":
            advances += 1
            assert num(ctx, t.rows[-1][4]) == num(ctx, total_row[4]) - num(ctx, t.rows[-2][4]) > 0
            assert not t.total_row
        else:
            assert t.total_row and t.rows[-1] is total_row
        receipts = [r[3].text for r in body if r[3].fact_ids]
        assert len(set(receipts)) == len(receipts) and all(re.fullmatch(r"R-\d{4}", x) for x in receipts)
    assert advances >= 1


# ---------------------------------------------------------------- grants and budgets

def test_grant_budget_rows_and_columns_add_up_to_the_amount_requested():
    for seed in range(10):
        ctx, by_kind = built("grant_application", seed)
        (form,) = by_kind["applicant_details"]
        (t,) = by_kind["grant_budget"]
        years = len(t.columns) - 2
        for row in t.rows:
            assert num(ctx, row[-1]) == sum(num(ctx, s) for s in row[1:-1])
        lines, direct, indirect, total = t.rows[:-3], t.rows[-3], t.rows[-2], t.rows[-1]
        rate = num(ctx, indirect[0])
        for j in range(1, years + 2):
            assert num(ctx, direct[j]) == sum(num(ctx, r[j]) for r in lines)
            assert num(ctx, total[j]) == num(ctx, direct[j]) + num(ctx, indirect[j])
        for j in range(1, years + 1):
            assert num(ctx, indirect[j]) == rounded(num(ctx, direct[j]) * rate / 100, num(ctx, indirect[j]))
        requested = field(ctx, form, "Amount requested")
        assert requested.value == fact(ctx, total[-1]).value
        assert requested.derivation.op == "quote" and requested.derivation.operands == [total[-1].fact_ids[0]]
        assert field(ctx, form, "Project start date").value.value > ctx.anchor
        months = field(ctx, form, "Duration (months)").value.value
        assert (months + 11) // 12 == years


def test_planted_error_in_a_budget_year_breaks_its_row_and_column():
    ctx, by_kind = built("grant_application", 4)
    (t,) = by_kind["grant_budget"]
    cell, row_total, col_total = fact(ctx, t.rows[0][1]), fact(ctx, t.rows[0][-1]), fact(ctx, t.rows[-3][1])
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"amount": f.value.amount + 100})})
               if f.id == cell.id else f for f in ctx.book.facts]
    problems = derivation_problems(planted)
    assert any(p.startswith(row_total.id) for p in problems) and any(p.startswith(col_total.id) for p in problems)


def test_declarations_are_ticked_and_signed_before_the_date():
    for seed in range(10):
        ctx, by_kind = built("grant_application", seed)
        (form,) = by_kind["declarations"]
        assert 3 <= len(form.checkboxes) <= 5 and form.signature_lines
        assert all(cb.checked for cb in form.checkboxes[:-1])
        assert field(ctx, form, "Date signed").value.value <= ctx.anchor
        signer = field(ctx, form, "Signatory").value.entity_id
        assert field(ctx, form, "Position").subject == signer


def test_budget_changes_reconcile_line_by_line_and_in_total():
    for seed in range(10):
        ctx, by_kind = built("budget_proposal", seed)
        (t,) = by_kind["budget_vs_baseline"]
        assert t.total_row and t.columns[-1] == "Change (%)"
        body, total = t.rows[:-1], t.rows[-1]
        for row in body + [total]:
            base, prop, change, pct = (num(ctx, s) for s in row[1:])
            assert change == prop - base
            assert pct == ((prop - base) / base * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN)
        for j in (1, 2, 3):
            assert num(ctx, total[j]) == sum(num(ctx, r[j]) for r in body)
        assert f"FY{ctx.year}" in t.columns[1] and f"FY{ctx.year + 1}" in t.columns[2]


def test_planted_error_in_a_baseline_breaks_its_change_and_the_total():
    ctx, by_kind = built("budget_proposal", 3)
    (t,) = by_kind["budget_vs_baseline"]
    base, change, pct = (fact(ctx, t.rows[0][j]) for j in (1, 3, 4))
    total = fact(ctx, t.rows[-1][1])
    planted = [f.model_copy(update={"value": f.value.model_copy(update={"amount": f.value.amount + 1000})})
               if f.id == base.id else f for f in ctx.book.facts]
    problems = derivation_problems(planted)
    for f in (change, pct, total):
        assert any(p.startswith(f.id) for p in problems), f.label
