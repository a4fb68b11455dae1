"""Genre blocks of reports (``generation.content.genre.statements``): financial statements that balance and
reconcile with each other, highlights and notes that quote them, the auditor's report and the chief
executive's sign-off; emissions and targets; KPI tiles; large claims and reserve movements; a programme's
RAG summary, milestones and budget."""

from __future__ import annotations

from decimal import Decimal

import pytest

from synthdocqa.generation.content import genre
from synthdocqa.generation.content.calendar import period_end
from synthdocqa.generation.content.genre.statements import AMBER_TOLERANCE, BLOCKS, _lower_is_better
from synthdocqa.generation.content.sizing import block_height
from synthdocqa.generation.domains import DOMAINS, RECIPES
from synthdocqa.generation.planner import SPEAKS_ALONE
from synthdocqa.ir import Rng
from synthdocqa.ir.answers import numeric
from synthdocqa.ir.blocks import AnnotationBlock, TableBlock
from synthdocqa.ir.derivations import derivation_problems
from tests.generation.genre_fixture import doc_with, genre_ctx
from tests.generation.plan_checks import all_problems

SEEDS = (0, 1, 2, 3, 7)
MAX_HEIGHT = 420.0
MAX_ROWS = 14

RECIPES_OF: dict[str, list[str]] = {k: [r.slug for r in RECIPES if k in r.genre_blocks] for k in BLOCKS}
MY_RECIPES = sorted({r for rs in RECIPES_OF.values() for r in rs})


def _domains(recipe: str) -> list[str]:
    """Three domains of the recipe: the first, one from the middle and the last (revenue metric or not, money
    decimals, countries differ)."""
    doms = [d.slug for d in DOMAINS if recipe in d.recipes]
    return list(dict.fromkeys([doms[0], doms[len(doms) // 2], doms[-1]]))


def _kinds(recipe: str) -> list[str]:
    """This module's genre blocks of the recipe, in the grammar's order."""
    r = next(x for x in RECIPES if x.slug == recipe)
    return [k for sec in r.grammar for k in sec.blocks if k in BLOCKS]


def _build(recipe: str, seed: int, domain: str | None = None, kinds: list[str] | None = None):
    ctx = genre_ctx(recipe, seed, domain)
    out = {}
    for kind in kinds or _kinds(recipe):
        out[kind] = genre.build(kind, ctx, Rng(seed).fork("genre", kind))
    return ctx, out


def _flat(built: dict) -> list:
    return [b for blocks in built.values() for b in blocks]


def _facts(ctx, blocks, attribute: str | None = None, label: str | None = None):
    groups = {b.id for b in blocks}
    return [f for f in ctx.book.facts if f.group in groups and (attribute is None or f.attribute == attribute)
            and (label is None or f.label.startswith(label))]


def _one(ctx, blocks, **kw):
    found = _facts(ctx, blocks, **kw)
    assert len(found) == 1, (kw, [f.label for f in found])
    return found[0]


def _v(f) -> Decimal:
    return numeric(f.value)


def _period_of(ctx, blocks, attribute: str, period: str):
    return next(f for f in _facts(ctx, blocks, attribute=attribute) if f.period == period)


def _source(ctx, f) -> str:
    """The fact a quote chain ends on (``f`` itself when it quotes nothing)."""
    while f.derivation is not None and f.derivation.op == "quote":
        f = ctx.book.by_id[f.derivation.operands[0]]
    return f.id


def _tied(ctx, a, b) -> bool:
    """Whether ``a`` and ``b`` are tied: one quotes the other, or both quote the same fact."""
    return _source(ctx, a) == _source(ctx, b)


def _planted(ctx, fact, new_value: Decimal) -> list[str]:
    """The referee's problems once ``fact``'s value is changed in a copy of the document's facts."""
    v = fact.value
    changed = v.model_copy(update={"amount": new_value} if v.kind == "money" else {"value": new_value})
    facts = [f.model_copy(update={"value": changed}) if f.id == fact.id else f for f in ctx.book.facts]
    return derivation_problems(facts)


# ---------------------------------------------------------------- the contract, for every kind

CASES = [(kind, recipe, seed, domain) for kind in BLOCKS for recipe in RECIPES_OF[kind] for seed in SEEDS
         for domain in _domains(recipe)[seed % 3: seed % 3 + 1] or _domains(recipe)[:1]]


@pytest.mark.parametrize("kind", list(BLOCKS))
def test_every_kind_is_in_a_grammar_and_registered(kind):
    assert RECIPES_OF[kind], kind
    assert genre.GENRE_BLOCKS[kind] is BLOCKS[kind]


@pytest.mark.parametrize(("kind", "recipe", "seed", "domain"), CASES)
def test_builder_alone_keeps_the_contract(kind, recipe, seed, domain):
    ctx, built = _build(recipe, seed, domain, [kind])
    blocks = built[kind]
    long = SPEAKS_ALONE - {"attendance"}  # a report that is its section's whole text (an attendance is short)
    assert 1 <= len(blocks) <= (6 if kind in long else 3)
    assert sum(block_height(b) for b in blocks) <= MAX_HEIGHT
    assert all(b.genre_block == kind for b in blocks)
    assert not any(b.type == "heading" for b in blocks)
    for b in blocks:
        if isinstance(b, TableBlock):
            assert len(b.rows) <= MAX_ROWS
            assert b.caption.startswith("Table ")
    assert derivation_problems(ctx.book.facts) == []
    assert all_problems(doc_with(ctx, blocks)) == []


@pytest.mark.parametrize("recipe", MY_RECIPES)
@pytest.mark.parametrize("seed", SEEDS)
def test_a_recipes_blocks_together_are_consistent(recipe, seed):
    for domain in _domains(recipe)[:2]:
        ctx, built = _build(recipe, seed, domain)
        assert derivation_problems(ctx.book.facts) == []
        assert all_problems(doc_with(ctx, _flat(built))) == [], (recipe, seed, domain)
        captions = [b.caption for b in _flat(built) if isinstance(b, TableBlock)]
        assert len(captions) == len(set(captions))


@pytest.mark.parametrize("recipe", MY_RECIPES)
def test_deterministic(recipe):
    for seed in SEEDS[:4]:
        _, a = _build(recipe, seed)
        _, b = _build(recipe, seed)
        assert [x.model_dump() for x in _flat(a)] == [x.model_dump() for x in _flat(b)]


def test_figures_do_not_depend_on_the_order_of_the_blocks():
    for recipe in ("annual_report", "quarterly_report"):
        for seed in SEEDS[:4]:
            ctx1, b1 = _build(recipe, seed, kinds=["income_statement", "balance_sheet", "cash_flow"])
            ctx2, b2 = _build(recipe, seed, kinds=["cash_flow", "balance_sheet", "income_statement"])
            for kind in ("income_statement", "balance_sheet", "cash_flow"):
                v1 = {f.label: f.text for f in _facts(ctx1, b1[kind])}
                v2 = {f.label: f.text for f in _facts(ctx2, b2[kind])}
                assert v1 == v2


# ---------------------------------------------------------------- financial statements

def _statements(recipe, seed, domain=None):
    ctx, built = _build(recipe, seed, domain)
    return ctx, built


@pytest.mark.parametrize("recipe", ["annual_report", "quarterly_report"])
@pytest.mark.parametrize("seed", SEEDS)
def test_income_statement_adds_up_with_plausible_margins(recipe, seed):
    for domain in _domains(recipe):
        ctx, built = _statements(recipe, seed, domain)
        bs = built["income_statement"]
        for p in {f.period for f in _facts(ctx, bs, attribute="revenue")}:
            get = lambda a, p=p, ctx=ctx, bs=bs: _v(_period_of(ctx, bs, a, p))  # noqa: E731
            rev, gp = get("revenue"), get("gross_profit")
            assert gp == rev + get("cost_of_sales")
            assert Decimal("0.2") <= gp / rev <= Decimal("0.6")
            pbt = get("profit_before_tax")
            assert pbt == get("operating_profit") + get("finance_income") + get("finance_costs") > 0
            assert Decimal("0.19") <= -get("income_tax_expense") / pbt <= Decimal("0.31")
            assert get("profit_for_the_period") == pbt + get("income_tax_expense")
        assert any(b.type == "text_block" and "Table " in b.spans[0].text for b in bs)  # the table is referred to


@pytest.mark.parametrize("recipe", ["annual_report", "quarterly_report"])
@pytest.mark.parametrize("seed", SEEDS)
def test_balance_sheet_balances_and_rolls_forward(recipe, seed):
    for domain in _domains(recipe):
        ctx, built = _statements(recipe, seed, domain)
        bs = built["balance_sheet"]
        periods = sorted({f.period for f in _facts(ctx, bs, attribute="total_assets")}, key=period_end)
        assert len(periods) == 2
        for p in periods:
            assert _v(_period_of(ctx, bs, "total_assets", p)) == \
                _v(_period_of(ctx, bs, "total_equity_and_liabilities", p))
        prior, cur = periods
        re_cur = _period_of(ctx, bs, "retained_earnings", cur)
        assert re_cur.derivation is not None and re_cur.derivation.op == "sum"
        ops = [ctx.book.by_id[o] for o in re_cur.derivation.operands]
        assert [o.attribute for o in ops] == ["retained_earnings", "profit_for_the_period", "dividends_paid"]
        assert _v(re_cur) == sum((_v(o) for o in ops), Decimal(0))
        assert _v(ops[2]) < 0  # dividends paid are an outflow


def test_planted_error_in_the_balance_sheet_is_reported():
    ctx, built = _statements("annual_report", 1)
    bs = built["balance_sheet"]
    ppe = _facts(ctx, bs, attribute="property_plant_equipment")[0]
    problems = _planted(ctx, ppe, _v(ppe) + 1000)
    assert any("Total assets" in p for p in problems)


@pytest.mark.parametrize("recipe", ["annual_report", "quarterly_report"])
@pytest.mark.parametrize("seed", SEEDS)
def test_cash_flow_ends_on_the_balance_sheet_cash(recipe, seed):
    for domain in _domains(recipe):
        ctx, built = _statements(recipe, seed, domain)
        cf, bs = built["cash_flow"], built["balance_sheet"]
        closing = [f for f in _facts(ctx, cf, attribute="cash_and_equivalents")
                   if f.derivation and f.derivation.op == "sum"]
        assert closing
        for f in closing:
            opening, net = (ctx.book.by_id[o] for o in f.derivation.operands)
            assert _v(f) == _v(opening) + _v(net)
            assert net.attribute == "net_change_in_cash"
            assert period_end(opening.period) < period_end(f.period)
            ops = [ctx.book.by_id[o] for o in net.derivation.operands]
            assert [o.attribute for o in ops] == ["operating_cash_flow", "investing_cash_flow", "financing_cash_flow"]
            assert _v(ops[0]) > 0 > _v(ops[1]) and _v(ops[2]) < 0
        flows = _facts(ctx, cf, attribute="cash_and_equivalents")
        for sheet_cash in _facts(ctx, bs, attribute="cash_and_equivalents"):  # tied to the statement of cash flows
            same = [f for f in flows if f.period == sheet_cash.period]
            assert same and all(_tied(ctx, sheet_cash, f) and _v(f) == _v(sheet_cash) for f in same)
        current = _period_of(ctx, bs, "cash_and_equivalents", max((f.period for f in flows), key=period_end))
        assert current.derivation.op == "quote"  # the sheet's cash is the statement's closing cash


def test_planted_error_in_the_cash_flow_is_reported():
    ctx, built = _statements("quarterly_report", 2)
    cf = built["cash_flow"]
    dividends = _facts(ctx, cf, attribute="dividends_paid")[0]
    problems = _planted(ctx, dividends, _v(dividends) - 5000)
    assert any("financing" in p for p in problems)
    assert any("Retained earnings" in p for p in problems)  # the balance sheet's retained earnings no longer follow


@pytest.mark.parametrize("recipe", ["annual_report", "quarterly_report"])
@pytest.mark.parametrize("seed", SEEDS)
def test_highlights_quote_the_statements(recipe, seed):
    ctx, built = _statements(recipe, seed)
    hl = built["highlights"][0]
    assert hl.type == "list" and 4 <= len(hl.items) <= 6
    growth = _one(ctx, [hl], attribute="revenue_change")
    a, b = (ctx.book.by_id[o] for o in growth.derivation.operands)
    assert growth.derivation.op == "percent_change" and a.attribute == b.attribute == "revenue"
    assert growth.value.value == ((_v(b) - _v(a)) / _v(a) * 100).quantize(Decimal("0.1"))
    margin = _one(ctx, [hl], attribute="operating_margin")
    assert margin.derivation.op == "share"
    statements = [b for k in ("income_statement", "balance_sheet", "cash_flow") for b in built[k]]
    for f in _facts(ctx, [hl]):
        if f.value.kind == "money":
            same = [g for g in _facts(ctx, statements, attribute=f.attribute) if g.period == f.period]
            assert same and all(_tied(ctx, f, g) and g.text == f.text for g in same), f.label


@pytest.mark.parametrize("seed", SEEDS)
def test_notes_reconcile_to_revenue_and_borrowings(seed):
    for domain in _domains("annual_report"):
        ctx, built = _statements("annual_report", seed, domain)
        notes = built["statement_notes"]
        table = next(b for b in notes if isinstance(b, TableBlock))
        total = ctx.book.by_id[table.rows[-1][1].fact_ids[0]]
        assert total.derivation.op == "sum"
        revenue = _facts(ctx, built["income_statement"], attribute="revenue")[0]
        assert revenue.derivation == total.derivation.model_copy(update={"op": "quote", "operands": [total.id]})
        assert _v(total) == sum((_v(ctx.book.by_id[o]) for o in total.derivation.operands), Decimal(0))
        maturity = _one(ctx, notes, attribute="maturity_date")
        assert maturity.value.value > ctx.anchor
        borrowing = [f for f in _facts(ctx, notes, attribute="borrowings")]
        assert len(borrowing) == 1 and borrowing[0].derivation.op == "quote"


@pytest.mark.parametrize("seed", SEEDS)
def test_auditor_opinion_is_signed_after_the_year_end(seed):
    for domain in _domains("annual_report"):
        ctx, built = _statements("annual_report", seed, domain)
        blocks = built["auditor_opinion"]
        assert all(b.type == "text_block" for b in blocks)
        date = _one(ctx, blocks, attribute="report_date").value.value
        assert period_end(str(ctx.cal.fy)) < date <= ctx.anchor
        firm = _one(ctx, blocks, attribute="auditor")
        partner = _one(ctx, blocks, attribute="signing_partner")
        ents = {e.id: e for e in ctx.book.entities}
        assert ents[firm.subject].kind == "organisation" and ents[partner.subject].kind == "person"
        assert ents[firm.subject].attributes["country"] == ctx.issuer.attributes["country"]
        text = " ".join(s.text for b in blocks for s in b.spans)
        assert ctx.issuer.name in text and ("true and fair view" in text or "present fairly" in text)
        mat = _facts(ctx, blocks, attribute="materiality")
        for m in mat:  # outside the US: materiality at the stated rate of profit before tax (the statement's)
            pbt, rate = (ctx.book.by_id[o] for o in m.derivation.operands)
            assert m.derivation.op == "percent_of" and pbt.attribute == "profit_before_tax"


@pytest.mark.parametrize("seed", SEEDS)
def test_letter_signoff_quotes_a_figure_and_is_signed(seed):
    ctx, built = _statements("annual_report", seed)
    blocks = built["letter_signoff"]
    sig = next(b for b in blocks if isinstance(b, AnnotationBlock))
    assert sig.kind == "signature"
    ceo = ctx.book.by_id[sig.spans[0].fact_ids[0]]
    assert ceo.value.kind == "person"
    figure = next(f for f in _facts(ctx, blocks) if f.value.kind == "money")
    assert figure.derivation is not None and figure.derivation.op == "quote"


# ---------------------------------------------------------------- sustainability

@pytest.mark.parametrize("seed", SEEDS)
def test_emissions_total_and_targets_tie(seed):
    for domain in _domains("sustainability_report"):
        ctx, built = _build("sustainability_report", seed, domain)
        em, targets = built["emissions_by_scope"], built["esg_targets"]
        for year in (str(ctx.cal.fy - 1), str(ctx.cal.fy)):
            get = lambda a, y=year, ctx=ctx, em=em: _period_of(ctx, em, a, y)  # noqa: E731
            total = get("total_emissions")
            assert [ctx.book.by_id[o].attribute for o in total.derivation.operands] == \
                ["scope_1_emissions", "scope_2_market_emissions", "scope_3_emissions"]
            assert _v(total) == _v(get("scope_1_emissions")) + _v(get("scope_2_market_emissions")) + \
                _v(get("scope_3_emissions"))
            assert get("scope_2_location_emissions").id not in total.derivation.operands
            assert all(f.value.unit == "tCO2e" for f in _facts(ctx, em) if f.value.kind == "number")
        progress = next(f for f in _facts(ctx, targets) if f.attribute == "total_emissions")
        assert progress.derivation.op == "quote"
        assert ctx.book.by_id[progress.derivation.operands[0]].group == em[0].id
        table = targets[0]
        for row in table.rows:
            base_year, target_year = int(row[1].text), int(row[3].text)
            assert base_year < ctx.cal.fy < target_year
            assert row[6].text in ("On track", "Behind", "Achieved")


def test_planted_error_in_emissions_is_reported():
    ctx, built = _build("sustainability_report", 3)
    s1 = _facts(ctx, built["emissions_by_scope"], attribute="scope_1_emissions")[0]
    problems = _planted(ctx, s1, _v(s1) + 10)
    assert any("Total greenhouse gas emissions" in p for p in problems)
    assert any("Change in scope 1" in p for p in problems)


# ---------------------------------------------------------------- KPI tiles

@pytest.mark.parametrize("recipe", RECIPES_OF["kpi_tiles"])
@pytest.mark.parametrize("seed", SEEDS)
def test_kpi_variance_and_rag_agree(recipe, seed):
    for domain in _domains(recipe):
        ctx, built = _build(recipe, seed, domain, ["kpi_tiles"])
        table = built["kpi_tiles"][0]
        assert 4 <= len(table.rows) <= 6
        for row in table.rows:
            target, actual, variance, rag = (ctx.book.by_id[s.fact_ids[0]] for s in row[1:])
            assert variance.derivation.op == "difference"
            assert variance.derivation.operands == [actual.id, target.id]
            assert _v(variance) == _v(actual) - _v(target)
            metric = ctx.domain.metric(actual.attribute)
            assert _v(actual) == ctx.metric_value(metric, actual.label.split(" of ", 1)[1].rsplit(" in ", 1)[0],
                                                  actual.period)
            adverse = _v(variance) > 0 if _lower_is_better(metric) else _v(variance) < 0
            gap = abs(_v(variance)) / abs(_v(target)) * 100 if _v(target) else Decimal("Infinity")
            expected = "Green" if not adverse else "Amber" if gap <= AMBER_TOLERANCE else "Red"
            assert rag.value.value == expected, (actual.label, row)


def test_planted_error_in_a_kpi_is_reported():
    ctx, built = _build("operations_dashboard", 1, kinds=["kpi_tiles"])
    row = built["kpi_tiles"][0].rows[0]
    actual = ctx.book.by_id[row[2].fact_ids[0]]
    assert any("Variance" in p for p in _planted(ctx, actual, _v(actual) + 1))


# ---------------------------------------------------------------- claims

@pytest.mark.parametrize("seed", SEEDS)
def test_large_claims_and_reserve_movement(seed):
    for domain in _domains("claims_summary"):
        ctx, built = _build("claims_summary", seed, domain)
        claims, movement = built["large_claims"], built["reserve_movement"]
        table = claims[0]
        assert 4 <= len(table.rows) - 1 <= 8 and table.rows[-1][0].text == "Total"
        for row in table.rows[:-1]:
            notified, incurred, paid, reserve, status = (ctx.book.by_id[s.fact_ids[0]] for s in row[2:])
            assert notified.value.value <= ctx.anchor
            assert _v(reserve) == _v(incurred) - _v(paid) >= 0
            assert (status.value.value == "Settled") == (_v(reserve) == 0)
        for col in (3, 4, 5):
            total = ctx.book.by_id[table.rows[-1][col].fact_ids[0]]
            assert _v(total) == sum((_v(ctx.book.by_id[r[col].fact_ids[0]]) for r in table.rows[:-1]), Decimal(0))
        mt = movement[0]
        by_row = {row[0].text: [ctx.book.by_id[s.fact_ids[0]] for s in row[1:]] for row in mt.rows}
        for i in (0, 1):
            parts = [by_row[k][i] for k in ("Opening reserve", "New claims notified", "Claims paid",
                                            "Releases and adjustments")]
            assert _v(by_row["Closing reserve"][i]) == sum((_v(p) for p in parts), Decimal(0))
            assert _v(by_row["Claims paid"][i]) < 0
        opening = by_row["Opening reserve"][1]
        assert opening.derivation.op == "quote" and opening.derivation.operands == [by_row["Closing reserve"][0].id]
        large_reserves = _v(ctx.book.by_id[table.rows[-1][5].fact_ids[0]])
        assert large_reserves < _v(by_row["Closing reserve"][1])


def test_planted_error_in_the_reserve_movement_is_reported():
    ctx, built = _build("claims_summary", 0, kinds=["reserve_movement"])
    row = next(r for r in built["reserve_movement"][0].rows if r[0].text == "Claims paid")
    paid = ctx.book.by_id[row[1].fact_ids[0]]
    problems = _planted(ctx, paid, _v(paid) - 1000)
    assert any("Claims reserve at the end" in p for p in problems)


# ---------------------------------------------------------------- programme status

@pytest.mark.parametrize("seed", SEEDS)
def test_programme_status_is_one_story(seed):
    for domain in _domains("project_status_report"):
        ctx, built = _build("project_status_report", seed, domain)
        ms = built["milestones"][0]
        states = []
        for row in ms.rows:
            base, forecast, slip, status = (ctx.book.by_id[s.fact_ids[0]] for s in row[1:])
            assert slip.derivation.op == "days_between"
            assert _v(slip) == (forecast.value.value - base.value.value).days >= 0
            if status.value.value == "Complete":
                assert forecast.value.value <= ctx.anchor
            else:
                assert forecast.value.value > ctx.anchor
                assert (status.value.value == "On track") == (_v(slip) == 0)
            states.append(status.value.value)
        assert "Complete" in states and any(s != "Complete" for s in states)
        budget = built["budget_tracking"][0]
        assert budget.rows[-1][0].text == "Total"
        for row in budget.rows[:-1]:
            b, a, f, var = (ctx.book.by_id[s.fact_ids[0]] for s in row[1:5])
            assert _v(var) == _v(b) - _v(f) and var.derivation.operands == [b.id, f.id]
            assert _v(a) <= _v(f)
        total_b, _, total_f, total_var = (ctx.book.by_id[s.fact_ids[0]] for s in budget.rows[-1][1:5])
        assert _v(total_var) == _v(total_b) - _v(total_f)
        rag = {row[0].text: row[1].text for row in built["rag_status"][0].rows}
        assert list(rag) == ["Schedule", "Budget", "Scope", "Resources", "Risks", "Overall"]
        worst = "Red" if "Red" in rag.values() else "Amber" if "Amber" in rag.values() else "Green"
        assert rag["Overall"] == worst
        assert (rag["Schedule"] == "Red") == ("Late" in states)
        assert (rag["Budget"] == "Green") == (_v(total_f) <= _v(total_b))


def test_planted_error_in_the_budget_is_reported():
    ctx, built = _build("project_status_report", 4, kinds=["budget_tracking"])
    row = built["budget_tracking"][0].rows[0]
    forecast = ctx.book.by_id[row[3].fact_ids[0]]
    problems = _planted(ctx, forecast, _v(forecast) + 500)
    assert any("Variance of the" in p for p in problems) and any("Total forecast" in p for p in problems)


def test_dates_of_blocks_are_not_after_the_document():
    for recipe in MY_RECIPES:
        for seed in SEEDS:
            ctx, built = _build(recipe, seed)
            due = {"maturity_date", "facility_expiry", "forecast_date"}
            for f in _facts(ctx, _flat(built)):
                if f.value.kind == "date" and f.attribute not in due | {"baseline_date"}:
                    assert f.value.value <= ctx.anchor, (recipe, f.label)
                if f.attribute in due:
                    assert f.value.value > ctx.anchor, (recipe, f.label)
