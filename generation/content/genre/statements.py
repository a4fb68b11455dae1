"""Genre blocks of financial and performance reports: an annual or quarterly report's statements (income
statement, statement of financial position, cash flows), their highlights, notes, the auditor's opinion and
the chief executive's sign-off; a sustainability report's emissions and targets; KPI tiles; a claims summary's
large claims and reserve movement; a programme status report's RAG summary, milestones and budget tracking.

One set of numbers per issuer. The statements print the issuer's accounts (``genre.accounts``: simulated once
per issuer from its world stream, the balance sheet rolled forward quarter by quarter by the profit, dividends
and cash flows, so it balances at every date and the cash-flow statement ends on the balance sheet's cash), and
every line that is not a subtotal of the lines printed above it is a question to the issuer's world (the
quarters the world booked for the line, or the items' revenue where the domain reports revenue by item), so
whichever block is built first, and whichever document of the issuer, every block prints the same figures. A
sustainability report's emissions and targets are the issuer's the same way (``genre.footprint``).

Figures printed by more than one block are tied (``Derivation("quote")``) through a registry of keys
(``("statements", "facts")``: ``("revenue", "2025")`` -> fact ids): the fact with a derivation of its own (a
statement's subtotal) is the anchor the others quote, whichever block printed first. Derivations whose
operands another block prints (retained earnings = prior + profit + dividends paid; the auditor's
materiality at a rate of profit before tax) wait in ``("statements", "pending")`` until those facts exist.
Claims (``("claims", "figures")``) and a programme's budget and milestones (``("project", ...)``) are shared
the same way.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS
from synthdocqa.ir.blocks import AnnotationBlock, Block, ListBlock, Span, TableBlock, TextBlock
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ...domains import Metric
from .. import countries as conventions
from ..book import DocContext, fs, lit
from ..calendar import period_end
from ..names import SURNAMES, address, email_for, unused_person_name
from ..repeats import body_rows
from ..tables import metric_fact, printed_tables, unit_note, whole
from ..wording import for_count, lower_common, plural
from . import Builder
from .accounts import (
    BS_LINES,
    FLOW_LINES,
    IS_LINES,
    LINE_NAMES,
    accounts,
    dec,
    line_query,
    loan_dates,
    loan_rate,
    materiality_rate,
    money_scale,
    quarters_of,
    rounded,
    segment_query,
    segment_revenue,
    undrawn_facility,
)
from .claims import claimant as claims_claimant
from .claims import large_claims
from .claims import movement as claims_movement
from .claims import opening as claims_opening
from .claims import reserves as claims_reserves
from .footprint import emission, inventory, target_figures, targets
from .kpi import AMBER_TOLERANCE
from .kpi import target as kpi_target
from .kpi import tolerance as kpi_tolerance
from .programme import plan as programme_plan
from .programme import workstream_figures

TENTH = Decimal("0.1")
HUNDREDTH = Decimal("0.01")


# ================================================================ shared helpers

_dec, _q = dec, rounded


def _share(part: Decimal, total: Decimal) -> Decimal:
    return (part / total * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def _pct_change(a: Decimal, b: Decimal) -> Decimal:
    return ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def _amount(f: Fact) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


def _places(*values: Decimal) -> int:
    return max([0] + [-v.as_tuple().exponent for v in values if v.as_tuple().exponent < 0])


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def _in_order(seq, chosen: list) -> list:
    """The elements of ``chosen`` in the order of ``seq`` (a sample listed the way the register lists them)."""
    return [x for x in seq if x in chosen]


def _claim(ctx: DocContext, options: list[str]) -> str:
    """The first of ``options`` no caption of the document says yet (claimed); else the first with a letter."""
    for text in options:
        if ctx.caption_free(text):
            return ctx.claim_caption(text)
    k = 0
    while True:
        k += 1
        text = f"{options[0]} ({chr(ord('a') + (k - 1) % 26)}{'' if k <= 26 else k})"
        if ctx.caption_free(text):
            return ctx.claim_caption(text)


def _numbered(ctx: DocContext, options: list[str]) -> tuple[str, str]:
    """``("Table N", "Table N. <caption>")``: report genres number their exhibits (transactional ones and
    minutes do not: then the reference is the caption itself)."""
    caption = _claim(ctx, options)
    if ctx.recipe.genre_class == "transactional" or ctx.recipe.slug == "board_minutes":
        return caption, caption
    ref = f"Table {ctx.number('table')}"
    return ref, f"{ref}. {caption}"


def _table(ctx: DocContext, **kw) -> TableBlock:
    """A table, recorded as printed (general tables of the document then never repeat its rows)."""
    t = TableBlock(**kw)
    printed_tables(ctx).append((body_rows(t), list(t.columns)))
    return t


def _count(ctx: DocContext, label: str, operands: list[Fact], bid: str, attribute: str, unit: str = "") -> Fact:
    der = Derivation(op="count", operands=[f.id for f in operands]) if operands else None
    return ctx.book.number(label, Decimal(len(operands)), unit, quantity="count", derivation=der, group=bid,
                           attribute=attribute)


def _money_sum(ctx: DocContext, label: str, parts: list[Fact], **kw) -> Fact:
    total = sum((_amount(p) for p in parts), Decimal(0))
    return ctx.book.money(label, total, derivation=Derivation(op="sum", operands=[p.id for p in parts]), **kw)


def _person_name(ctx: DocContext, rng: Rng) -> str:
    """A person's name no entity of the document has."""
    return unused_person_name(rng, {e.name for e in ctx.book.entities})


def _new_person(ctx: DocContext, rng: Rng, role: str, **attributes: str) -> Entity:
    return ctx.book.entity("person", _person_name(ctx, rng), role=role, **attributes)


_money_scale = money_scale


# ---------------------------------------------------------------- the registry of shared figures

def _reg(ctx: DocContext) -> dict:
    reg = ctx.remember(("statements", "facts"), dict)
    by_id = ctx.book.by_id
    for key in list(reg):  # a block built and rolled back leaves no fact behind: forget its ids
        entry = reg[key]
        alive = [i for i in entry["ids"] if i in by_id]
        if len(alive) == len(entry["ids"]):
            continue
        if not alive:
            del reg[key]
            continue
        entry["ids"] = alive
        if entry["anchor"] not in by_id:
            entry["anchor"] = next((i for i in alive if _own(ctx, i)), alive[0])
            for i in alive:
                d = by_id[i].derivation
                if d is not None and d.op == "quote" and d.operands[0] not in by_id:
                    _replace(ctx, i, None if i == entry["anchor"] else _quote(entry["anchor"]))
    return reg


def _quote(source: str) -> Derivation:
    return Derivation(op="quote", operands=[source])


def _replace(ctx: DocContext, fid: str, der: Derivation | None) -> None:
    book = ctx.book
    new = book.by_id[fid].model_copy(update={"derivation": der})
    for i, f in enumerate(book.facts):
        if f.id == fid:
            book.facts[i] = new
            break
    book.by_id[fid] = new


def _own(ctx: DocContext, fid: str) -> bool:
    """Whether the fact has a derivation of its own (a subtotal), not a quote of another fact."""
    d = ctx.book.by_id[fid].derivation
    return d is not None and d.op != "quote"


def _record(ctx: DocContext, key: tuple, f: Fact) -> Fact:
    """Register ``f`` as printing ``key``; a second fact of the key is tied to the first (or the first to it,
    when only the later one has a derivation of its own: the subtotal is what the others quote)."""
    reg = _reg(ctx)
    entry = reg.get(key)
    if entry is None:
        reg[key] = {"anchor": f.id, "ids": [f.id]}
    else:
        entry["ids"].append(f.id)
        anchor = entry["anchor"]
        if not _own(ctx, f.id):
            _replace(ctx, f.id, _quote(anchor))
        elif not _own(ctx, anchor):
            entry["anchor"] = f.id
            for other in entry["ids"]:
                if other != f.id and not _own(ctx, other):
                    _replace(ctx, other, _quote(f.id))
    _resolve(ctx)
    return ctx.book.by_id[f.id]


def _defer(ctx: DocContext, fid: str, op: str, operands: list) -> None:
    """Give fact ``fid`` the derivation ``op`` over ``operands`` (keys of the registry or fact ids) as soon as
    every operand is printed."""
    ctx.remember(("statements", "pending"), list).append((fid, op, operands))
    _resolve(ctx)


def _resolve(ctx: DocContext) -> None:
    pending = ctx.remember(("statements", "pending"), list)
    reg = ctx.remember(("statements", "facts"), dict)
    by_id = ctx.book.by_id
    for item in list(pending):
        fid, op, operands = item
        if fid not in by_id:
            pending.remove(item)
            continue
        ids = [o if isinstance(o, str) else (reg[o]["anchor"] if o in reg else None) for o in operands]
        if any(i is None or i not in by_id for i in ids):
            continue
        pending.remove(item)
        if by_id[fid].derivation is None:
            _replace(ctx, fid, Derivation(op=op, operands=ids))


# ================================================================ the statements' figures

def _quarterly(ctx: DocContext) -> bool:
    return ctx.recipe.slug == "quarterly_report"


def _span_word(ctx: DocContext) -> str:
    return "period" if _quarterly(ctx) else "year"


def _end_text(ctx: DocContext, period: str) -> str:
    return ctx.fmt.date(period_end(period))


def _figures(ctx: DocContext) -> dict:
    """The document's statements: ``v[(line, period)]`` (a balance-sheet line's period is the one it closes),
    the periods of each statement and the rates behind them."""
    return ctx.remember(("statements", "figures"), lambda: _make_figures(ctx))


def _make_figures(ctx: DocContext) -> dict:
    """The document's view of the issuer's accounts (``accounts.accounts``): the periods its statements show (a
    quarter and the one before, or three years), each flow line the sum of the period's quarters, each
    balance the one at the period's last quarter."""
    acc = accounts(ctx)
    cal = ctx.cal
    if _quarterly(ctx):
        q = cal.quarters(1)[0]
        chain = [cal.previous(q), q]
        is_periods = (q, cal.year_ago(q))
        cf_periods: tuple[str, ...] = (q,)
    else:
        fy = cal.fy
        chain = [str(fy - 2), str(fy - 1), str(fy)]
        is_periods = (str(fy), str(fy - 1))
        cf_periods = (str(fy), str(fy - 1))
    av = acc["v"]
    v: dict[tuple[str, str], Decimal] = {}
    balances = {key for key, _ in av if key not in FLOW_LINES}
    for p in dict.fromkeys([*chain, *is_periods]):
        ks = quarters_of(p)
        if not ks or ks[0] < acc["first"] or ks[-1] > acc["last"]:
            raise ValueError(f"the issuer's accounts do not cover {p}")
        for key in FLOW_LINES:
            v[(key, p)] = sum((av[(key, k)] for k in ks), Decimal(0))
        for key in balances:
            v[(key, p)] = av[(key, ks[-1])]
    return {"v": v, "chain": chain, "is": is_periods, "bs": (chain[-1], chain[-2]), "cf": cf_periods,
            "split_opex": acc["split_opex"], "rate": acc["rate"], "unit": acc["unit"], "metric": acc["metric"]}


def _label(ctx: DocContext, line: str, p: str) -> str:
    name = LINE_NAMES[line][0]
    if line in BS_LINES:
        return f"{name} at {_end_text(ctx, p)}"
    if line == "profit":
        return f"Profit for the {_span_word(ctx)} {p}"
    return f"{name} for {p}"


def _fact(ctx: DocContext, line: str, p: str, bid: str, parts: list[Fact] | None = None) -> Fact:
    """The money fact of a statement line (a sum of ``parts`` where given; else the world's answer for the line
    over the period), registered under its key."""
    fig = _figures(ctx)
    value = fig["v"][(line, p)]
    der = query = None
    if parts is not None:
        assert sum((_amount(x) for x in parts), Decimal(0)) == value, f"{line} {p} does not add up"
        der = Derivation(op="sum", operands=[x.id for x in parts])
    else:
        query = line_query(ctx, line, p)
    f = ctx.book.money(_label(ctx, line, p), value, attribute=LINE_NAMES[line][1], period=p, group=bid,
                       derivation=der, query=query)
    return _record(ctx, (line, p), f)


def _statement_table(ctx: DocContext, bid: str, caption: str, rows: list[tuple[str, list[Fact]]],
                     periods: tuple[str, ...], total_row: bool) -> TableBlock:
    ccy = ctx.fmt.currency
    return _table(ctx, id=bid, caption=caption, columns=["Line item", *(f"{p} ({ccy})" for p in periods)],
                  rows=[[lit(name), *(fs(f) for f in facts)] for name, facts in rows], total_row=total_row,
                  numeric_columns=list(range(1, len(periods) + 1)))


# ---------------------------------------------------------------- income statement

def build_income_statement(ctx: DocContext, rng: Rng) -> list[Block]:
    """Revenue to profit for the period, current and comparative: every subtotal a sum of the lines above it
    (costs are negative), and a sentence on the gross or operating margin that refers to the table."""
    fig = _figures(ctx)
    cur, prior = fig["is"]
    bid = ctx.book.block_id()
    ref_bid = ctx.book.block_id()
    span = _span_word(ctx)
    end = _end_text(ctx, cur)
    if _quarterly(ctx):
        options = [f"Condensed consolidated income statement for the quarter ended {end}",
                   f"Income statement for the quarter ended {end}"]
    else:
        options = [f"Consolidated income statement for the year ended {end}", f"Income statement for {cur}"]
    ref, caption = _numbered(ctx, options)
    col: dict[str, dict[str, Fact]] = {}
    for p in (cur, prior):
        f: dict[str, Fact] = {}
        f["revenue"] = _fact(ctx, "revenue", p, bid)
        f["cost_of_sales"] = _fact(ctx, "cost_of_sales", p, bid)
        f["gross_profit"] = _fact(ctx, "gross_profit", p, bid, [f["revenue"], f["cost_of_sales"]])
        if fig["split_opex"]:
            f["distribution_costs"] = _fact(ctx, "distribution_costs", p, bid)
            f["administrative_expenses"] = _fact(ctx, "administrative_expenses", p, bid)
            costs = [f["distribution_costs"], f["administrative_expenses"]]
        else:
            f["operating_expenses"] = _fact(ctx, "operating_expenses", p, bid)
            costs = [f["operating_expenses"]]
        f["operating_profit"] = _fact(ctx, "operating_profit", p, bid, [f["gross_profit"], *costs])
        f["finance_income"] = _fact(ctx, "finance_income", p, bid)
        f["finance_costs"] = _fact(ctx, "finance_costs", p, bid)
        f["profit_before_tax"] = _fact(ctx, "profit_before_tax", p, bid,
                                       [f["operating_profit"], f["finance_income"], f["finance_costs"]])
        f["income_tax"] = _fact(ctx, "income_tax", p, bid)
        f["profit"] = _fact(ctx, "profit", p, bid, [f["profit_before_tax"], f["income_tax"]])
        col[p] = f
    order = [k for k in IS_LINES if k in col[cur]]
    rows = [(f"Profit for the {span}" if k == "profit" else LINE_NAMES[k][0], [col[cur][k], col[prior][k]])
            for k in order]
    table = _statement_table(ctx, bid, caption, rows, (cur, prior), total_row=False)

    which = rng.choice(("gross", "operating"))
    part = "gross_profit" if which == "gross" else "operating_profit"
    margins = {p: ctx.book.percent(f"{which.capitalize()} margin for {p}",
                                   _share(_amount(col[p][part]), _amount(col[p]["revenue"])),
                                   attribute=f"{which}_margin", period=p, group=ref_bid,
                                   derivation=Derivation(op="share", operands=[col[p][part].id, col[p]["revenue"].id]))
               for p in (cur, prior)}
    text = TextBlock(id=ref_bid, spans=[
        lit(f"{ref} sets out the results for {cur}. {which.capitalize()} profit was "), fs(margins[cur]),
        lit(f" of revenue ({prior}: "), fs(margins[prior]), lit(").")])
    return [table, text]


# ---------------------------------------------------------------- statement of financial position

def build_balance_sheet(ctx: DocContext, rng: Rng) -> list[Block]:
    """Assets, equity and liabilities at the end of the period and of the comparative one; total assets equal
    total equity and liabilities at both dates. Retained earnings move by the period's profit and dividends
    paid, borrowings by the repayments (derivations that wait for the income and cash-flow statements)."""
    fig = _figures(ctx)
    cur, prior = fig["bs"]
    flow = fig["chain"][-1]
    bid = ctx.book.block_id()
    ref_bid = ctx.book.block_id()
    end = _end_text(ctx, cur)
    options = ([f"Condensed consolidated statement of financial position at {end}"] if _quarterly(ctx) else
               [f"Consolidated statement of financial position at {end}"]) + [f"Balance sheet at {end}"]
    ref, caption = _numbered(ctx, options)
    col: dict[str, dict[str, Fact]] = {}
    for p in (cur, prior):
        f: dict[str, Fact] = {}
        for k in ("ppe", "intangibles", "inventories", "receivables", "cash"):
            f[k] = _fact(ctx, k, p, bid)
        f["total_assets"] = _fact(ctx, "total_assets", p, bid,
                                  [f[k] for k in ("ppe", "intangibles", "inventories", "receivables", "cash")])
        f["share_capital"] = _fact(ctx, "share_capital", p, bid)
        f["retained_earnings"] = _fact(ctx, "retained_earnings", p, bid)
        f["total_equity"] = _fact(ctx, "total_equity", p, bid, [f["share_capital"], f["retained_earnings"]])
        for k in ("borrowings", "payables", "current_tax"):
            f[k] = _fact(ctx, k, p, bid)
        f["total_liabilities"] = _fact(ctx, "total_liabilities", p, bid,
                                       [f["borrowings"], f["payables"], f["current_tax"]])
        f["total_equity_liabilities"] = _fact(ctx, "total_equity_liabilities", p, bid,
                                              [f["total_equity"], f["total_liabilities"]])
        col[p] = f
    _defer(ctx, col[cur]["retained_earnings"].id, "sum",
           [("retained_earnings", prior), ("profit", flow), ("dividends", flow)])
    _defer(ctx, col[cur]["borrowings"].id, "sum", [("borrowings", prior), ("repayment", flow)])
    rows = [(LINE_NAMES[k][0], [col[cur][k], col[prior][k]]) for k in BS_LINES]
    table = _statement_table(ctx, bid, caption, rows, (cur, prior), total_row=True)

    gearing = {p: ctx.book.number(f"Gearing (borrowings to total equity) at {_end_text(ctx, p)}",
                                  (_amount(col[p]["borrowings"]) / _amount(col[p]["total_equity"])).quantize(
                                      HUNDREDTH, rounding=ROUND_HALF_EVEN), "", 2, quantity="ratio",
                                  attribute="gearing", period=p, group=ref_bid,
                                  derivation=Derivation(op="ratio", operands=[col[p]["borrowings"].id,
                                                                              col[p]["total_equity"].id]))
               for p in (cur, prior)}
    text = TextBlock(id=ref_bid, spans=[
        lit(f"{ref} sets out the financial position at {end}. Gearing, borrowings divided by total equity, was "),
        fs(gearing[cur]), lit(f" ({_end_text(ctx, prior)}: "), fs(gearing[prior]), lit(").")])
    return [table, text]


# ---------------------------------------------------------------- statement of cash flows

def build_cash_flow(ctx: DocContext, rng: Rng) -> list[Block]:
    """Operating (indirect: profit, depreciation, working capital), investing and financing cash flows, the
    net change and the cash at the beginning and the end of the period (the balance sheet's cash, tied)."""
    fig = _figures(ctx)
    periods = fig["cf"]
    chain = fig["chain"]
    cur = periods[0]
    bid = ctx.book.block_id()
    ref_bid = ctx.book.block_id()
    span = _span_word(ctx)
    end = _end_text(ctx, cur)
    if _quarterly(ctx):
        options = [f"Condensed consolidated statement of cash flows for the quarter ended {end}",
                   f"Cash flows for the quarter ended {end}"]
    else:
        options = [f"Consolidated statement of cash flows for the year ended {end}", f"Cash flows for {cur}"]
    ref, caption = _numbered(ctx, options)
    col: dict[str, dict[str, Fact]] = {}
    for p in periods:
        before = chain[chain.index(p) - 1]
        f: dict[str, Fact] = {}
        f["profit"] = _fact(ctx, "profit", p, bid)
        f["dep_amort"] = _fact(ctx, "dep_amort", p, bid)
        f["working_capital"] = _fact(ctx, "working_capital", p, bid)
        f["op_cash"] = _fact(ctx, "op_cash", p, bid, [f["profit"], f["dep_amort"], f["working_capital"]])
        f["capex_ppe"] = _fact(ctx, "capex_ppe", p, bid)
        f["capex_intangibles"] = _fact(ctx, "capex_intangibles", p, bid)
        f["investing"] = _fact(ctx, "investing", p, bid, [f["capex_ppe"], f["capex_intangibles"]])
        f["repayment"] = _fact(ctx, "repayment", p, bid)
        f["dividends"] = _fact(ctx, "dividends", p, bid)
        f["financing"] = _fact(ctx, "financing", p, bid, [f["repayment"], f["dividends"]])
        f["net_change"] = _fact(ctx, "net_change", p, bid, [f["op_cash"], f["investing"], f["financing"]])
        f["opening"] = _fact(ctx, "cash", before, bid)
        f["closing"] = _fact(ctx, "cash", p, bid, [f["opening"], f["net_change"]])
        col[p] = f
    net = [_amount(col[p]["net_change"]) for p in periods]
    change = ("Net increase in cash and cash equivalents" if all(x >= 0 for x in net) else
              "Net decrease in cash and cash equivalents" if all(x < 0 for x in net) else
              "Net increase/(decrease) in cash and cash equivalents")
    names = {"profit": f"Profit for the {span}", "net_change": change,
             "opening": f"Cash and cash equivalents at the beginning of the {span}",
             "closing": f"Cash and cash equivalents at the end of the {span}"}
    order = ("profit", "dep_amort", "working_capital", "op_cash", "capex_ppe", "capex_intangibles", "investing",
             "repayment", "dividends", "financing", "net_change", "opening", "closing")
    rows = [(names.get(k) or LINE_NAMES[k][0], [col[p][k] for p in periods]) for k in order]
    table = _statement_table(ctx, bid, caption, rows, periods, total_row=False)

    fcf = {p: _money_sum(ctx, f"Free cash flow for {p}", [col[p]["op_cash"], col[p]["investing"]],
                         attribute="free_cash_flow", period=p, group=ref_bid) for p in periods}
    spans = [lit(f"Free cash flow, net cash from operating activities less net cash used in investing activities "
                 f"as set out in {ref}, was "), fs(fcf[cur]), lit(f" in {cur}")]
    if len(periods) > 1:
        spans += [lit(f" ({periods[1]}: "), fs(fcf[periods[1]]), lit(")")]
    spans.append(lit("."))
    return [table, TextBlock(id=ref_bid, spans=spans)]


# ---------------------------------------------------------------- highlights

def build_highlights(ctx: DocContext, rng: Rng) -> list[Block]:
    """4-6 headline figures quoted from the statements: revenue with its change on the comparative period,
    operating profit and margin, profit for the period, and some of cash at the period end, operating cash
    flow and profit before tax."""
    fig = _figures(ctx)
    cur, prior = fig["is"]
    bs_cur = fig["bs"][0]
    span = _span_word(ctx)
    bid = ctx.book.block_id()
    rev = _fact(ctx, "revenue", cur, bid)
    rev0 = _fact(ctx, "revenue", prior, bid)
    growth = ctx.book.percent(f"Change in revenue from {prior} to {cur}", _pct_change(_amount(rev0), _amount(rev)),
                              attribute="revenue_change", period=cur, group=bid,
                              derivation=Derivation(op="percent_change", operands=[rev0.id, rev.id]))
    items: list[list[Span]] = []
    if growth.value.value > 0:
        items.append([lit("Revenue up "), fs(growth), lit(" to "), fs(rev), lit(f" ({prior}: "), fs(rev0), lit(")")])
    else:
        items.append([lit("Revenue of "), fs(rev), lit(f" ({prior}: "), fs(rev0), lit("), a change of "), fs(growth),
                      lit(" on the comparative period")])
    op = _fact(ctx, "operating_profit", cur, bid)
    margin = ctx.book.percent(f"Operating margin for {cur}", _share(_amount(op), _amount(rev)),
                              attribute="operating_margin", period=cur, group=bid,
                              derivation=Derivation(op="share", operands=[op.id, rev.id]))
    items.append([lit("Operating profit of "), fs(op), lit(", an operating margin of "), fs(margin)])
    profit = _fact(ctx, "profit", cur, bid)
    profit0 = _fact(ctx, "profit", prior, bid)
    items.append([lit(f"Profit for the {span} of "), fs(profit), lit(f" ({prior}: "), fs(profit0), lit(")")])
    extras = rng.sample(("cash", "op_cash", "pbt"), rng.integers(1, 4))
    for k in ("cash", "op_cash", "pbt"):
        if k not in extras:
            continue
        if k == "cash":
            f = _fact(ctx, "cash", bs_cur, bid)
            items.append([lit("Cash and cash equivalents of "), fs(f), lit(f" at {_end_text(ctx, bs_cur)}")])
        elif k == "op_cash":
            f = _fact(ctx, "op_cash", cur, bid)
            items.append([lit("Net cash from operating activities of "), fs(f)])
        else:
            f = _fact(ctx, "profit_before_tax", cur, bid)
            items.append([lit("Profit before tax of "), fs(f)])
    return [ListBlock(id=bid, title=f"Highlights of {cur}" if _quarterly(ctx) else "Financial highlights",
                      items=items)]


# ---------------------------------------------------------------- notes to the statements

def build_statement_notes(ctx: DocContext, rng: Rng) -> list[Block]:
    """Note 1: revenue by item (the largest items and the others; the total is the statements' revenue).
    Note 2: borrowings (the balance sheet's), their interest rate and maturity, and an undrawn facility."""
    fig = _figures(ctx)
    cur = fig["is"][0]
    d = ctx.domain
    book = ctx.book
    intro_bid = book.block_id()
    bid = book.block_id()
    metric: Metric | None = fig["metric"]
    kind = d.item_kind
    ref, caption = _numbered(ctx, [f"Revenue by {kind}, {cur}", f"Analysis of revenue by {kind}, {cur}"])
    total_value = fig["v"][("revenue", cur)]
    k = min(rng.integers(3, 6), len(d.items))
    if metric is not None:
        values, total_whole, shares = whole(ctx, metric, cur)
        ranked = sorted(d.items, key=lambda i: (-values[i], d.items.index(i)))
        name = metric.name
        attribute = metric.slug
    else:  # the accounts' own revenue, shared among the items by the world
        shares = {}
        values = segment_revenue(ctx, cur)
        ranked = sorted(values, key=lambda i: (-values[i], list(values).index(i)))
        name = "Revenue"
        attribute = "segment_revenue"
    listed = ranked[:k] if len(ranked) > k else ranked
    rows: list[list[Span]] = []
    cells: list[Fact] = []
    def asked(items: list[str]):  # the world's question: its revenue by item, or the accounts' by segment
        return ctx.metric_query(metric, items, cur) if metric is not None else segment_query(ctx, items, cur)
    for item in listed:
        f = book.money(f"{name} of {item} in {cur}", values[item], attribute=attribute, period=cur, group=bid,
                       query=asked([item]))
        cells.append(f)
        rows.append([lit(item), fs(f)])
    rest = total_value - sum((values[i] for i in listed), Decimal(0))
    others = [i for i in values if i not in listed]
    if others:
        f = book.money(f"{name} of {plural(kind)} other than {_and(listed)} in {cur}", rest,
                       attribute=f"{attribute}_other", period=cur, group=bid, query=asked(others))
        cells.append(f)
        rows.append([lit(f"Other {plural(kind)}"), fs(f)])
    total_label = f"Total {lower_common(name)} in {cur}" if metric is not None else f"Revenue for {cur}"
    total = book.money(total_label, total_value, attribute="revenue" if metric is None else metric.slug,
                       period=cur, group=bid, derivation=Derivation(op="sum", operands=[c.id for c in cells]))
    assert sum((_amount(c) for c in cells), Decimal(0)) == total_value
    total = _record(ctx, ("revenue", cur), total)
    rows.append([lit("Total"), fs(total)])
    table = _table(ctx, id=bid, caption=caption, columns=[kind.capitalize(), f"{name} {cur} ({ctx.fmt.currency})"],
                   rows=rows, total_row=True, numeric_columns=[1])
    top = listed[0]
    if metric is not None:
        share_value = shares[top]
        share_label = f"Share of {top} in the total of {lower_common(name)} ({cur})"
        share_attr = f"{metric.slug}_share"
    else:
        share_value = _share(values[top], total_value)
        share_label = f"Share of {top} in revenue ({cur})"
        share_attr = "segment_revenue_share"
    top_share = book.percent(share_label, share_value, attribute=share_attr, period=cur, group=intro_bid,
                             derivation=Derivation(op="share", operands=[cells[0].id, total.id]))
    intro = TextBlock(id=intro_bid, spans=[
        lit(f"Note 1 Revenue. {ref} analyses revenue by {kind}. {top}, the largest, contributed "), fs(top_share),
        lit(f" of revenue in {cur}.")])

    note_bid = book.block_id()
    bs_cur = fig["bs"][0]
    borrow = _fact(ctx, "borrowings", bs_cur, note_bid)
    rate_value, rate_query = loan_rate(ctx, bs_cur)
    rate = book.percent("Interest rate on the group's bank term loan", rate_value, attribute="interest_rate",
                        group=note_bid, query=rate_query)
    maturity_date, expiry_date = loan_dates(ctx)
    maturity = book.date("Maturity date of the group's bank term loan", maturity_date, attribute="maturity_date",
                         group=note_bid)
    rcf_value, rcf_query = undrawn_facility(ctx, bs_cur)
    rcf = book.money("Undrawn revolving credit facility available to the group", rcf_value,
                     attribute="undrawn_facility", group=note_bid, query=rcf_query)
    rcf_end = book.date("Expiry date of the group's revolving credit facility", expiry_date,
                        attribute="facility_expiry", group=note_bid)
    note2 = TextBlock(id=note_bid, spans=[
        lit("Note 2 Borrowings. Borrowings of "), fs(borrow),
        lit(f" at the {_span_word(ctx)} end are a bank term loan bearing interest at a fixed rate of "), fs(rate),
        lit(" a year and repayable in full on "), fs(maturity), lit(". The group also has an undrawn revolving "
                                                                  "credit facility of "), fs(rcf),
        lit(", available until "), fs(rcf_end), lit(".")])
    return [intro, table, note2]


# ---------------------------------------------------------------- the auditor's report

def _report_date(ctx: DocContext) -> dt.date:
    """The date the directors approved the statements and the auditor signed (after the year end, by the
    document's date)."""
    def make() -> dt.date:
        r = ctx.dyn.fork("statements", "report_date")
        end = period_end(str(ctx.cal.fy))
        room = (ctx.anchor - end).days
        if room < 1:
            return ctx.anchor
        lo, hi = min(room, 40), min(room, 95)
        return end + dt.timedelta(days=r.integers(lo, hi + 1))
    return ctx.remember(("statements", "report_date"), make)


def _auditor(ctx: DocContext, rng: Rng) -> tuple[Entity, Entity]:
    """The audit firm (in the issuer's country and, where it can, city) and its signing partner."""
    def make() -> tuple[Entity, Entity]:
        country = conventions.country_of(ctx.issuer.attributes).name
        pattern = conventions.country(country).audit.firm
        names = {e.name for e in ctx.book.entities}
        firm_name = pattern.format(a=rng.choice(SURNAMES), b=rng.choice(SURNAMES))
        for _ in range(60):
            a, b = rng.choice(SURNAMES), rng.choice(SURNAMES)
            if firm_name not in names and a != b:
                break
            firm_name = pattern.format(a=a, b=b)
        where = address(rng.fork("address"), country)
        for k in range(30):
            if where.get("city") == ctx.issuer.attributes.get("city"):
                break
            where = address(rng.fork("address", k), country)
        firm = ctx.book.entity("organisation", firm_name, role="auditor", **where)
        name = _person_name(ctx, rng)
        for _ in range(30):  # the partner is not the founder the firm is named after
            if name.split()[-1] not in firm_name:
                break
            name = _person_name(ctx, rng)
        partner = ctx.book.entity("person", name, role="Audit Partner", email=email_for(name, firm_name))
        return firm, partner
    return ctx.remember(("statements", "auditor"), make)


KEY_AUDIT_MATTERS = (
    "revenue recognition, given the judgement in the timing of revenue on contracts that span the year end",
    "the carrying value of goodwill and other intangible assets, which rests on management's forecasts",
    "the valuation of provisions, where the outcome depends on events after the balance sheet date",
    "the completeness of supplier rebates and the period in which they are recognised",
)
"""The matters an auditor's report discusses (ISA 701 / PCAOB AS 3101): drawn per report."""
GOING_CONCERN = ("Conclusions relating to going concern: in auditing the financial statements, we have concluded "
                 "that the directors' use of the going concern basis of accounting in their preparation is "
                 "appropriate, and we have not identified a material uncertainty that may cast significant doubt on "
                 "the group's ability to continue as a going concern.")
RESPONSIBILITIES = {
    "other": "Responsibilities: the directors are responsible for the preparation of financial statements that "
             "give a true and fair view and for such internal control as they determine is necessary. Our "
             "objectives are to obtain reasonable assurance about whether the financial statements as a whole are "
             "free from material misstatement, whether due to fraud or error, and to issue a report that includes "
             "our opinion.",
    "us": "Responsibilities: management is responsible for the preparation and fair presentation of the "
          "consolidated financial statements and for the design of internal control relevant to them. Our "
          "responsibility is to express an opinion on these statements based on our audit, conducted to obtain "
          "reasonable assurance about whether they are free of material misstatement.",
}


def build_auditor_opinion(ctx: DocContext, rng: Rng) -> list[Block]:
    """The independent auditor's report: the opinion on the statements at the year end, the basis (the
    standards and, outside the US, the materiality set at a rate of profit before tax), and the signature of
    the partner for the firm, with the city and date of the report."""
    fig = _figures(ctx)
    cur = fig["is"][0]
    book = ctx.book
    firm, partner = _auditor(ctx, rng)
    audit = conventions.country_of(firm.attributes).audit
    us = audit.style == "us"
    framework, standards = audit.framework, audit.standards
    bid = book.block_id()
    audited = book.org("Company whose financial statements the independent auditor reports on", ctx.issuer,
                       attribute="audited_entity", group=bid)
    year_end = book.date("Year end of the financial statements audited", period_end(cur), attribute="year_end",
                         group=bid)
    if us:
        spans = [lit("Report of independent auditors to the shareholders and the Board of Directors of "),
                 fs(audited), lit(". Opinion: in our opinion, the consolidated financial statements present fairly, in "
                                  "all material respects, the financial position of the Company as of "), fs(year_end),
                 lit(f", and the results of its operations and its cash flows for the year then ended, in conformity "
                     f"with {framework}.")]
    else:
        spans = [lit("Independent auditor's report to the members of "), fs(audited),
                 lit(". Opinion: in our opinion the financial statements give a true and fair view of the state of "
                     "the group's affairs as at "), fs(year_end),
                 lit(f" and of its profit for the year then ended, and have been properly prepared in accordance "
                     f"with {framework}.")]
    opinion = TextBlock(id=bid, spans=spans)

    basis_bid = book.block_id()
    basis = [lit(f"Basis for opinion: we conducted our audit in accordance with {standards}. We are independent of "
                 "the group in accordance with the ethical requirements relevant to our audit, and we believe that "
                 "the audit evidence we have obtained is sufficient and appropriate to provide a basis for our "
                 "opinion.")]
    if not us:
        pbt = fig["v"][("profit_before_tax", cur)]
        rate_value, rate_query = materiality_rate(ctx, cur)
        rate = book.percent("Materiality benchmark rate applied by the auditor to profit before tax", rate_value,
                            attribute="materiality_rate", group=basis_bid, query=rate_query)
        places = Decimal(1).scaleb(-ctx.fmt.money_decimals)
        mat = book.money(f"Overall group materiality set by the auditor for {cur}",
                         (pbt * rate_value / 100).quantize(places, rounding=ROUND_HALF_EVEN), attribute="materiality",
                         period=cur, group=basis_bid)
        _defer(ctx, mat.id, "percent_of", [("profit_before_tax", cur), rate.id])
        basis += [lit(" We set overall group materiality at "), fs(mat), lit(", "), fs(rate),
                  lit(" of profit before tax.")]
    basis_block = TextBlock(id=basis_bid, spans=basis)
    matters = [m for m in KEY_AUDIT_MATTERS if rng.bernoulli(0.5)] or [KEY_AUDIT_MATTERS[0]]
    kam = ("Critical audit matters" if us else "Key audit matters") + ": " + "; ".join(matters) + \
        ". We tested the design and operation of the controls over each, and our procedures did not identify " \
        "any matter that required adjustment."
    body = [TextBlock(id=book.block_id(), spans=[lit(kam)])]
    if not us:
        body.append(TextBlock(id=book.block_id(), spans=[lit(GOING_CONCERN)]))
    body.append(TextBlock(id=book.block_id(), spans=[lit(RESPONSIBILITIES["us" if us else "other"])]))

    sig_bid = book.block_id()
    signer = book.person("Partner who signed the independent auditor's report", partner, attribute="signing_partner",
                         group=sig_bid)
    firm_f = book.org("Audit firm that issued the independent auditor's report", firm, attribute="auditor",
                      group=sig_bid)
    city = book.text("City where the independent auditor's report was signed", firm.attributes.get("city", "London"),
                     attribute="signing_city", group=sig_bid)
    date = book.date("Date of the independent auditor's report", _report_date(ctx), attribute="report_date",
                     group=sig_bid)
    uk = audit.style == "uk"
    tail = (", Certified Public Accountants, " if us else ", Chartered Accountants and Statutory Auditor, " if uk
            else ", ")
    sign = TextBlock(id=sig_bid, spans=[fs(signer), lit(" (Senior Statutory Auditor)" if uk else ", Partner"),
                                        lit(", for and on behalf of "), fs(firm_f), lit(tail), fs(city), lit(", "),
                                        fs(date)])
    return [opinion, basis_block, *body, sign]


# ---------------------------------------------------------------- the chief executive's sign-off

LETTER_CLOSINGS: dict[str, tuple[str, str]] = {
    "revenue": ("We closed {p} with revenue of ", ", and we enter {n} with a clear plan. On behalf of the Board, I "
                                                 "thank our colleagues, customers and shareholders for their support."),
    "profit": ("Profit for the year of ", " reflects the work of our people in {p}; I thank them, and our customers "
                                          "and shareholders, for their commitment."),
    "op_cash": ("Operating activities generated ", " of cash in {p}, which funds the investment we have planned "
                                                  "for {n}. Thank you for your continued support."),
    "cash": ("We ended {p} with cash and cash equivalents of ", ", and I look forward to reporting on our progress "
                                                                "in {n}."),
}


def _ceo(ctx: DocContext, rng: Rng) -> Entity:
    def make() -> Entity:
        found = next((p for p in ctx.people if "chief executive" in p.role.lower()), None)
        return found or _new_person(ctx, rng, "Chief Executive Officer")
    return ctx.remember(("statements", "ceo"), make)


def build_letter_signoff(ctx: DocContext, rng: Rng) -> list[Block]:
    """The close of the chief executive's letter: one figure quoted from the statements, the signature and the
    signatory's title with the date of the letter."""
    fig = _figures(ctx)
    cur = fig["is"][0]
    book = ctx.book
    bid = book.block_id()
    key = rng.choice(tuple(LETTER_CLOSINGS))
    before, after = LETTER_CLOSINGS[key]
    period = fig["bs"][0] if key == "cash" else cur
    f = _fact(ctx, key, period, bid)
    nxt = str(int(cur) + 1) if cur.isdigit() else "the coming quarters"
    text = TextBlock(id=bid, spans=[lit(before.format(p=cur, n=nxt)), fs(f), lit(after.format(p=cur, n=nxt))])
    ceo = _ceo(ctx, rng)
    sig_bid = book.block_id()
    who = book.person("Chief Executive who signed the letter to shareholders", ceo, attribute="signatory",
                      group=sig_bid)
    sig = AnnotationBlock(id=sig_bid, kind="signature", spans=[fs(who)], rotation=round(rng.uniform(-4, 4), 1),
                          color=rng.choice(("#1a3c8c", "#1b1b6b", "#202020")))
    line_bid = book.block_id()
    date = book.date("Date of the Chief Executive's letter to shareholders", _report_date(ctx),
                     attribute="letter_date", group=line_bid)
    title = ceo.role if "chief executive" in ceo.role.lower() else "Chief Executive Officer"
    return [text, sig, TextBlock(id=line_bid, spans=[lit(f"{title}, "), fs(date)])]


# ================================================================ sustainability

def _emissions(ctx: DocContext) -> dict:
    """The two years the document reports emissions for and the issuer's scope 3 categories
    (``footprint.inventory``)."""
    return {"years": (str(ctx.cal.fy - 1), str(ctx.cal.fy)), "categories": inventory(ctx)["categories"]}


def _emission_label(key: str, year: str) -> str:
    names = {"scope_1": "Scope 1 (direct) emissions", "scope_2_location": "Scope 2 (location-based) emissions",
             "scope_2_market": "Scope 2 (market-based) emissions", "scope_3": "Total scope 3 emissions",
             "total": "Total greenhouse gas emissions (scope 1, scope 2 market-based and scope 3)"}
    return f"{names.get(key) or f'Scope 3 emissions from {key.lower()}'} in {year}"


def _emission_fact(ctx: DocContext, key: str, year: str, bid: str, parts: list[Fact] | None = None) -> Fact:
    value, query = emission(ctx, key, year)
    der = None
    if parts is not None:
        assert sum((_amount(p) for p in parts), Decimal(0)) == value
        der = Derivation(op="sum", operands=[p.id for p in parts])
    attribute = key if key in ("scope_1", "scope_2_location", "scope_2_market", "scope_3", "total") else "scope_3_category"
    f = ctx.book.number(_emission_label(key, year), value, "tCO2e", _places(value), quantity="amount",
                        attribute=f"{attribute}_emissions" if attribute != "total" else "total_emissions",
                        period=year, group=bid, derivation=der, query=query if der is None else None)
    return _record(ctx, ("emissions", key, year), f)


def build_emissions_by_scope(ctx: DocContext, rng: Rng) -> list[Block]:
    """Scope 1, scope 2 (location-based as a memo line, market-based counted), scope 3 by category and its
    total, and the total of scopes 1, 2 market-based and 3, for two years with the percent change; a sentence
    gives scope 3's share of the total."""
    em = _emissions(ctx)
    y0, y1 = em["years"]
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Greenhouse gas emissions (tCO2e), {y0} and {y1}",
                                   f"Greenhouse gas emissions by scope (tCO2e), {y1}"])
    rows: list[list[Span]] = []
    facts: dict[tuple[str, str], Fact] = {}

    def row(name: str, key: str, parts: dict[str, list[Fact]] | None = None) -> None:
        for y in (y0, y1):
            facts[(key, y)] = _emission_fact(ctx, key, y, bid, parts[y] if parts else None)
        a, b = facts[(key, y0)], facts[(key, y1)]
        what = _emission_label(key, "").rsplit(" in ", 1)[0]
        ch = book.percent(f"Change in {what[0].lower() + what[1:]} from {y0} to {y1}",
                          _pct_change(_amount(a), _amount(b)), attribute="emissions_change", period=y1, group=bid,
                          derivation=Derivation(op="percent_change", operands=[a.id, b.id]))
        rows.append([lit(name), fs(a), fs(b), fs(ch)])

    row("Scope 1 (direct emissions)", "scope_1")
    row("Scope 2, location-based (memo, not in total)", "scope_2_location")
    row("Scope 2, market-based", "scope_2_market")
    for c in em["categories"]:
        row(f"Scope 3: {c.lower()}", c)
    row("Scope 3 total", "scope_3", {y: [facts[(c, y)] for c in em["categories"]] for y in (y0, y1)})
    row("Total (scope 1, scope 2 market-based, scope 3)", "total",
        {y: [facts[("scope_1", y)], facts[("scope_2_market", y)], facts[("scope_3", y)]] for y in (y0, y1)})
    table = _table(ctx, id=bid, caption=caption, columns=["Emissions source", f"{y0} (tCO2e)", f"{y1} (tCO2e)",
                                                          "Change (%)"],
                   rows=rows, total_row=True, numeric_columns=[1, 2, 3])
    s3, tot = facts[("scope_3", y1)], facts[("total", y1)]
    sh = book.percent(f"Share of scope 3 in total greenhouse gas emissions ({y1})", _share(_amount(s3), _amount(tot)),
                      attribute="scope_3_share", period=y1, group=ref_bid,
                      derivation=Derivation(op="share", operands=[s3.id, tot.id]))
    text = TextBlock(id=ref_bid, spans=[lit(f"{ref} reports emissions in tonnes of carbon dioxide equivalent. Scope 3, "
                                            f"the emissions of the value chain, made up "), fs(sh),
                                        lit(f" of the total in {y1}.")])
    return [table, text]


def build_esg_targets(ctx: DocContext, rng: Rng) -> list[Block]:
    """Targets with their baseline (year, value), target (year, value), progress in the last year and status
    (on track when the progress since the baseline is at least the share of the time elapsed); the emissions
    target's progress is the emissions table's total, tied."""
    fy = ctx.cal.fy
    y1 = str(fy)
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Sustainability targets and progress, {y1}", f"Progress against targets, {y1}"])
    rows: list[list[Span]] = []
    statuses: list[Fact] = []
    names: list[Fact] = []
    for name, kind, unit, _direction in targets(ctx):
        base_year, target_year, figures = target_figures(ctx, name, kind, y1)
        elapsed = (fy - base_year) / (target_year - base_year)
        (base, _), (target, _), (current, _) = figures
        achieved = (current - base) / (target - base)
        status_text = ("Achieved" if achieved >= 1 else "On track" if achieved >= _dec(elapsed) else "Behind")
        short = name.split(" (")[0]
        what = f"the target '{short}'"
        fn = book.text(f"Sustainability target {len(names) + 1} of {ctx.issuer.name}", name, attribute="target",
                       group=bid)
        names.append(fn)
        fby = book.text(f"Baseline year of {what}", str(base_year), attribute="baseline_year", group=bid)
        fty = book.text(f"Target year of {what}", str(target_year), attribute="target_year", group=bid)
        cells = []
        for label, (value, query), period, attr in (
                (f"Baseline value of {what} ({base_year})", figures[0], str(base_year), "baseline_value"),
                (f"Value set for {target_year} by {what}", figures[1], "", "target_value"),
                (f"Progress in {y1} against {what}", figures[2], y1, "progress_value")):
            kw = dict(attribute=attr, period=period, group=bid, query=query)
            if kind == "emissions" and attr == "progress_value":
                f = _emission_fact(ctx, "total", y1, bid)
            elif kind == "percent":
                f = book.percent(label, value, **kw)
            elif kind == "ratio":
                f = book.number(label, value, unit, 2, quantity="ratio", **kw)
            else:
                f = book.number(label, value, unit, _places(value), quantity="amount", **kw)
            cells.append(f)
        st = book.text(f"Status of {what} in {y1}", status_text, attribute="target_status", group=bid)
        statuses.append(st)
        rows.append([fs(fn), fs(fby), fs(cells[0]), fs(fty), fs(cells[1]), fs(cells[2]), fs(st)])
    table = _table(ctx, id=bid, caption=caption, columns=["Target", "Baseline year", "Baseline", "Target year",
                                                          "Target", f"Progress {y1}", "Status"],
                   rows=rows, numeric_columns=[2, 4, 5])
    good = [s for s in statuses if s.value.value != "Behind"]
    n = _count(ctx, f"Number of sustainability targets reported for {y1}", names, ref_bid, "targets_reported")
    spans = [lit(f"{ref} tracks progress against the baseline of each target: ")]
    if good:  # a count of none would count nothing (a derivation counts its operands)
        k = _count(ctx, f"Number of sustainability targets on track or achieved in {y1}", good, ref_bid,
                   "targets_on_track")
        spans += [fs(k), lit(" of the "), fs(n), lit(f" targets {for_count(len(good), 'was')} on track or "
                                                       f"achieved in {y1}.")]
    else:
        spans += [lit("none of the "), fs(n), lit(f" targets was on track in {y1}.")]
    text = TextBlock(id=ref_bid, spans=spans)
    return [table, text]


# ================================================================ KPI tiles

LOWER_IS_BETTER = ("cost", "spend", "downtime", "churn", "default", "error", "return rate", "complaint", "incident",
                   "fault", "outage", "vulnerab", "non-conformance", "deviation", "exception", "failure",
                   "attrition", "shrinkage", "leakage", "burst", "delay", "flaring", "emission", "handle time",
                   "transit time", "dock-to-stock", "off-hire", "claims", "loss ratio", "breach", "open positions",
                   "scrap", "fuel", "days of supply", "open matters", "exposure", "open filings", "warranty",
                   "water use", "energy use", "evaluation days", "length of stay", "input", "tax paid")


def _lower_is_better(metric: Metric) -> bool:
    name = metric.name.lower()
    return any(w in name for w in LOWER_IS_BETTER)


def _variance_fact(ctx: DocContext, metric: Metric, actual: Fact, target: Fact, label: str, bid: str,
                   period: str) -> Fact:
    a, t = _amount(actual), _amount(target)
    der = Derivation(op="difference", operands=[actual.id, target.id])
    kw = dict(attribute=f"{metric.slug}_variance", period=period, group=bid, derivation=der)
    if metric.kind == "percent":
        return ctx.book.number(f"{label} in percentage points", a - t, PERCENTAGE_POINTS, 1, quantity="rate", **kw)
    if metric.kind == "money":
        return ctx.book.money(label, a - t, quantity=metric.quantity, **kw)
    places = _places(a, t)
    return ctx.book.number(label, a - t, metric.unit, places, quantity=metric.quantity, **kw)


def build_kpi_tiles(ctx: DocContext, rng: Rng) -> list[Block]:
    """4-6 KPIs (every metric of the domain for one item, then more items) with target, actual (the document's
    value of the metric), variance (actual - target) and a RAG status from the variance: Green when on or
    better than target, Amber when adverse by at most the tolerance, Red beyond; a legend sentence counts them."""
    d = ctx.domain
    period = ctx.cal.months(1)[0] if ctx.recipe.slug == "operations_dashboard" else ctx.cal.quarters(1)[0]
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Performance against target, {period}", f"Key performance indicators, {period}",
                                   f"KPI summary, {period}"])
    pairs: list[tuple[Metric, str]] = [(m, rng.choice(d.items)) for m in d.metrics]
    want = min(rng.integers(4, 7), len(d.metrics) * len(d.items))
    while len(pairs) < want:
        m = rng.choice(d.metrics)
        item = rng.choice(d.items)
        if (m, item) not in pairs:
            pairs.append((m, item))
    pairs = pairs[:want]
    rows: list[list[Span]] = []
    statuses: list[Fact] = []
    actuals: list[Fact] = []
    tol_value, tol_query = kpi_tolerance(ctx, period)
    for metric, item in pairs:
        value = ctx.metric_value(metric, item, period)
        target_value, target_query = kpi_target(ctx, metric, item, period, value)
        fa = metric_fact(ctx, metric, value, f"{metric.name} of {item} in {period}", attribute=metric.slug,
                         period=period, group=bid, items=item)
        ft = metric_fact(ctx, metric, target_value, f"Target for {lower_common(metric.name)} of {item} in {period}",
                         attribute=f"{metric.slug}_target", period=period, group=bid, query=target_query)
        fv = _variance_fact(ctx, metric, fa, ft, f"Variance of {lower_common(metric.name)} of {item} against target "
                                                 f"in {period}", bid, period)
        var = _amount(fa) - _amount(ft)
        favourable = var <= 0 if _lower_is_better(metric) else var >= 0
        if favourable:
            rag = "Green"
        elif _amount(ft) != 0 and abs(var) / abs(_amount(ft)) * 100 <= tol_value:
            rag = "Amber"
        else:
            rag = "Red"
        st = book.text(f"RAG status of {lower_common(metric.name)} of {item} in {period}", rag,
                       attribute="rag_status", group=bid)
        statuses.append(st)
        actuals.append(fa)
        note = unit_note(metric, ctx)
        variance = Span(text=f"{fv.text} pp", fact_ids=[fv.id]) if metric.kind == "percent" else fs(fv)
        rows.append([lit(f"{metric.name}, {item}{f' ({note})' if note else ''}"), fs(ft), fs(fa), variance, fs(st)])
    table = _table(ctx, id=bid, caption=caption, columns=["KPI", "Target", "Actual", "Variance (actual - target)",
                                                          "RAG status"],
                   rows=rows, numeric_columns=[1, 2, 3])
    tol = book.percent(f"Amber tolerance of the KPI summary for {period}", tol_value, attribute="rag_tolerance",
                       group=ref_bid, query=tol_query)
    by = {s: [f for f in statuses if f.value.value == s] for s in ("Green", "Amber", "Red")}
    status = next(s for s in ("Green", "Red", "Amber") if by[s])
    n = _count(ctx, f"Number of KPIs reported for {period}", actuals, ref_bid, "kpis_reported")
    k = _count(ctx, f"Number of KPIs rated {status} in {period}", by[status], ref_bid, f"kpis_{status.lower()}")
    text = TextBlock(id=ref_bid, spans=[
        lit(f"In {ref}, Green means on or better than target, Amber adverse by no more than "), fs(tol),
        lit(" of target and Red further adverse; "), fs(k), lit(" of the "), fs(n),
        lit(f" KPIs {for_count(k.value.value, 'is')} {status} for {period}.")])
    return [table, text]


# ================================================================ claims

def _claims(ctx: DocContext) -> dict:
    """The quarter's and the previous quarter's reserve movement (``genre.claims``): opening, new claims notified,
    paid, releases and closing, with the world's questions (``q``) of the movements and of the first opening."""
    def make() -> dict:
        q = ctx.cal.quarters(1)[0]
        pq = ctx.cal.previous(q)
        v: dict[tuple[str, str], Decimal] = {}
        queries: dict[tuple[str, str], WorldQuery] = {}
        v[("opening", pq)], queries[("opening", pq)] = claims_opening(ctx, pq)
        for p in (pq, q):
            for k in ("new", "paid", "adjustments"):
                v[(k, p)], queries[(k, p)] = claims_movement(ctx, k, p)
            v[("closing", p)] = v[("opening", p)] + v[("new", p)] + v[("paid", p)] + v[("adjustments", p)]
            if p == pq:
                v[("opening", q)] = v[("closing", pq)]
        return {"v": v, "q": queries, "periods": (pq, q), "unit": claims_reserves(ctx)["unit"]}
    return ctx.remember(("claims", "figures"), make)


def build_large_claims(ctx: DocContext, rng: Rng) -> list[Block]:
    """The largest claims: number, claimant, date notified, incurred, paid, reserve (incurred - paid) and
    status (settled when paid in full), with a total row; sized against the quarter's closing reserve."""
    cl = _claims(ctx)
    pq, q = cl["periods"]
    end = period_end(q)
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Large claims at {ctx.fmt.date(end)}", f"Largest claims, {q}"])
    rows: list[list[Span]] = []
    incurred_f, paid_f, reserve_f, numbers, settled = [], [], [], [], []
    for c in large_claims(ctx, q):
        no = c["number"]
        claimant = claims_claimant(ctx, c, lambda name: ctx.book.entity(  # a name the document has not used yet
            "person", name if name not in {e.name for e in book.entities} else _person_name(ctx, rng),
            role="policyholder"))
        (incurred, incurred_q), (paid, paid_q) = c["incurred"], c["paid"]
        fn = book.ident(f"Number of the claim ranked {len(numbers) + 1} by incurred amount at {ctx.fmt.date(end)}",
                        no, scheme="claim", group=bid)
        fc = (book.person if claimant.kind == "person" else book.org)(f"Claimant on claim {no}", claimant,
                                                                       attribute="claimant", group=bid)
        fd = book.date(f"Date claim {no} was notified", c["notified"], attribute="date_notified", group=bid)
        fi = book.money(f"Incurred amount of claim {no} at {ctx.fmt.date(end)}", incurred, attribute="incurred",
                        period=q, group=bid, query=incurred_q)
        fp = book.money(f"Amount paid on claim {no} at {ctx.fmt.date(end)}", paid, attribute="paid", period=q,
                        group=bid, query=paid_q)
        fr = book.money(f"Outstanding reserve on claim {no} at {ctx.fmt.date(end)}", incurred - paid,
                        attribute="reserve", period=q, group=bid,
                        derivation=Derivation(op="difference", operands=[fi.id, fp.id]))
        fs_ = book.text(f"Status of claim {no}", c["status"], attribute="claim_status", group=bid)
        numbers.append(fn)
        incurred_f.append(fi)
        paid_f.append(fp)
        reserve_f.append(fr)
        if c["settled"]:
            settled.append(fs_)
        rows.append([fs(fn), fs(fc), fs(fd), fs(fi), fs(fp), fs(fr), fs(fs_)])
    when = ctx.fmt.date(end)
    ti = _money_sum(ctx, f"Total incurred on the large claims listed at {when}", incurred_f, attribute="incurred",
                    period=q, group=bid)
    tp = _money_sum(ctx, f"Total paid on the large claims listed at {when}", paid_f, attribute="paid", period=q,
                    group=bid)
    tr = _money_sum(ctx, f"Total outstanding reserve on the large claims listed at {when}", reserve_f,
                    attribute="reserve", period=q, group=bid)
    rows.append([lit("Total"), lit(""), lit(""), fs(ti), fs(tp), fs(tr), lit("")])
    ccy = ctx.fmt.currency
    table = _table(ctx, id=bid, caption=caption, columns=["Claim no.", "Claimant / policyholder", "Date notified",
                                                          f"Incurred ({ccy})", f"Paid ({ccy})", f"Reserve ({ccy})",
                                                          "Status"],
                   rows=rows, total_row=True, numeric_columns=[3, 4, 5])
    count = _count(ctx, f"Number of large claims listed at {when}", numbers, ref_bid, "large_claims")
    spans = [lit(f"{ref} lists the "), fs(count), lit(f" largest claims open or settled at {when}, with the reserve "
                                                      "still held on each")]
    if settled:
        k = _count(ctx, f"Number of the large claims listed at {when} that are settled", settled, ref_bid,
                   "settled_claims")
        spans += [lit("; "), fs(k), lit(f" {for_count(len(settled), 'has')} been settled in full.")]
    else:
        spans.append(lit("; none has been settled yet."))
    return [table, TextBlock(id=ref_bid, spans=spans)]


def build_reserve_movement(ctx: DocContext, rng: Rng) -> list[Block]:
    """Opening reserve, new claims notified, claims paid (negative), releases and adjustments, closing reserve
    (their sum) for the quarter and the one before; the quarter opens on the previous quarter's close (tied)."""
    cl = _claims(ctx)
    pq, q = cl["periods"]
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Movement in claims reserves, {pq} and {q}", f"Claims reserve movement, {q}"])
    names = {"opening": "Opening reserve", "new": "New claims notified", "paid": "Claims paid",
             "adjustments": "Releases and adjustments", "closing": "Closing reserve"}
    labels = {"opening": "Claims reserve at the start of {p}", "new": "Reserves set up for new claims notified in {p}",
              "paid": "Claims paid out of reserves in {p}", "adjustments": "Reserve releases and adjustments in {p}",
              "closing": "Claims reserve at the end of {p}"}
    col: dict[str, dict[str, Fact]] = {}
    for p in (pq, q):
        f: dict[str, Fact] = {}
        for k in ("opening", "new", "paid", "adjustments"):
            f[k] = book.money(labels[k].format(p=p), cl["v"][(k, p)], attribute=f"reserve_{k}", period=p, group=bid,
                              derivation=_quote(col[pq]["closing"].id) if k == "opening" and p == q else None,
                              query=cl["q"].get((k, p)))
        f["closing"] = _money_sum(ctx, labels["closing"].format(p=p), [f["opening"], f["new"], f["paid"],
                                                                        f["adjustments"]],
                                  attribute="reserve_closing", period=p, group=bid)
        assert _amount(f["closing"]) == cl["v"][("closing", p)]
        col[p] = f
    ccy = ctx.fmt.currency
    rows = [[lit(names[k]), fs(col[pq][k]), fs(col[q][k])] for k in names]
    table = _table(ctx, id=bid, caption=caption, columns=["Movement", f"{pq} ({ccy})", f"{q} ({ccy})"], rows=rows,
                   total_row=True, numeric_columns=[1, 2])
    a, b = col[q]["opening"], col[q]["closing"]
    ch = book.percent(f"Change in the claims reserve over {q}", _pct_change(_amount(a), _amount(b)),
                      attribute="reserve_change", period=q, group=ref_bid,
                      derivation=Derivation(op="percent_change", operands=[a.id, b.id]))
    text = TextBlock(id=ref_bid, spans=[lit(f"{ref} reconciles the opening and closing claims reserves; over {q} the "
                                            "reserve changed by "), fs(ch), lit(".")])
    return [table, text]


# ================================================================ programme status

MILESTONES = ("Business case approved", "Requirements signed off", "Solution design approved", "Build complete",
              "System integration testing complete", "User acceptance testing complete",
              "Data migration rehearsal complete", "Training delivered", "Go-live", "Hypercare complete",
              "Project closure report approved")


def _budget_plan(ctx: DocContext) -> dict:
    """The programme's workstreams (``programme.plan``): budget, actual cost to the last month end and forecast
    at completion, each the world's (``queries``: the questions whose answers they are)."""
    def make() -> dict:
        month = ctx.cal.months(1)[0]
        figures = {w: workstream_figures(ctx, w, month) for w in programme_plan(ctx)["streams"]}
        return {"rows": [(w, *(v for v, _ in f)) for w, f in figures.items()], "month": month,
                "queries": {w: [q for _, q in f] for w, f in figures.items()}}
    return ctx.remember(("project", "budget"), make)


def _milestone_plan(ctx: DocContext) -> list[tuple[str, dt.date, dt.date, str]]:
    """``(milestone, baseline date, forecast or actual date, status)``: completed ones on or before the
    document's date, the rest after it; slippage accumulates along the plan."""
    def make():
        rng = ctx.dyn.fork("project", "milestones")
        anchor = ctx.anchor
        for _attempt in range(50):
            k = rng.integers(5, 9)
            names = _in_order(MILESTONES, rng.sample(MILESTONES, k))
            day = anchor - dt.timedelta(days=rng.integers(90, 220))
            slip = 0
            out = []
            for name in names:
                day = day + dt.timedelta(days=rng.integers(20, 56))
                r = rng.random()
                slip += 0 if r < 0.55 else rng.integers(2, 11) if r < 0.85 else rng.integers(10, 36)
                forecast = day + dt.timedelta(days=slip)
                if forecast <= anchor:
                    status = "Complete"
                elif slip == 0:
                    status = "On track"
                elif day < anchor or slip > 14:
                    status = "Late"
                else:
                    status = "At risk"
                out.append((name, day, forecast, status))
            done = sum(1 for o in out if o[3] == "Complete")
            if 1 <= done < len(out):
                return out
        return out
    return ctx.remember(("project", "milestones"), make)


def build_budget_tracking(ctx: DocContext, rng: Rng) -> list[Block]:
    """Workstreams with budget, actual to date, forecast at completion, variance (budget - forecast) and the
    share of budget spent, with a total row; a sentence gives the share spent and the forecast against budget."""
    plan = _budget_plan(ctx)
    month = plan["month"]
    when = _end_text(ctx, month)
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Budget tracking at {when}", f"Programme budget and forecast at {when}"])
    rows: list[list[Span]] = []
    cols: dict[str, list[Fact]] = {"budget": [], "actual": [], "forecast": [], "variance": []}
    for w, budget, actual, forecast in plan["rows"]:
        ws = f"the {w.lower()} workstream"
        qb, qa, qf = plan["queries"][w]
        fb = book.money(f"Budget of {ws}", budget, attribute="budget", group=bid, query=qb)
        fa = book.money(f"Actual cost to date of {ws} at {when}", actual, attribute="actual_to_date", period=month,
                        group=bid, query=qa)
        ff = book.money(f"Forecast at completion of {ws}", forecast, attribute="forecast_at_completion", group=bid,
                        query=qf)
        fv = book.money(f"Variance of {ws}, budget less forecast at completion", budget - forecast,
                        attribute="budget_variance", group=bid,
                        derivation=Derivation(op="difference", operands=[fb.id, ff.id]))
        fp = book.percent(f"Share of the budget of {ws} spent at {when}", _share(actual, budget),
                          attribute="budget_spent", period=month, group=bid,
                          derivation=Derivation(op="share", operands=[fa.id, fb.id]))
        for k, f in (("budget", fb), ("actual", fa), ("forecast", ff), ("variance", fv)):
            cols[k].append(f)
        rows.append([lit(w), fs(fb), fs(fa), fs(ff), fs(fv), fs(fp)])
    tb = _money_sum(ctx, "Total budget of the programme", cols["budget"], attribute="budget", group=bid)
    ta = _money_sum(ctx, f"Total actual cost to date of the programme at {when}", cols["actual"],
                    attribute="actual_to_date", period=month, group=bid)
    tf = _money_sum(ctx, "Total forecast at completion of the programme", cols["forecast"],
                    attribute="forecast_at_completion", group=bid)
    tv = _money_sum(ctx, "Total variance of the programme, budget less forecast at completion", cols["variance"],
                    attribute="budget_variance", group=bid)
    rows.append([lit("Total"), fs(tb), fs(ta), fs(tf), fs(tv), lit("")])
    ccy = ctx.fmt.currency
    table = _table(ctx, id=bid, caption=caption,
                   columns=["Workstream", f"Budget ({ccy})", f"Actual to date ({ccy})",
                            f"Forecast at completion ({ccy})", f"Variance, budget - forecast ({ccy})", "Spent (%)"],
                   rows=rows, total_row=True, numeric_columns=[1, 2, 3, 4, 5])
    spent = book.percent(f"Share of the programme budget spent at {when}", _share(_amount(ta), _amount(tb)),
                         attribute="budget_spent", period=month, group=ref_bid,
                         derivation=Derivation(op="share", operands=[ta.id, tb.id]))
    fc = book.percent("Forecast at completion of the programme as a percentage of its budget",
                      _share(_amount(tf), _amount(tb)), attribute="forecast_to_budget", group=ref_bid,
                      derivation=Derivation(op="share", operands=[tf.id, tb.id]))
    text = TextBlock(id=ref_bid, spans=[lit(f"As {ref} shows, "), fs(spent),
                                        lit(f" of the programme budget had been spent at {when}, and the forecast at "
                                            "completion stands at "), fs(fc), lit(" of budget.")])
    return [table, text]


def build_milestones(ctx: DocContext, rng: Rng) -> list[Block]:
    """Milestones with baseline date, forecast (or actual) date, slippage in days (days between them) and
    status: complete before the document's date, on track, at risk or late after it."""
    plan = _milestone_plan(ctx)
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    ref, caption = _numbered(ctx, [f"Milestone plan at {ctx.fmt.date(ctx.anchor)}", "Milestones against baseline"])
    rows: list[list[Span]] = []
    statuses: list[Fact] = []
    names: list[Fact] = []
    for name, base, forecast, status in plan:
        what = f"the milestone '{name}'"
        fn = book.text(f"Milestone {len(names) + 1} of the programme plan", name, attribute="milestone", group=bid)
        fb = book.date(f"Baseline date of {what}", base, attribute="baseline_date", group=bid)
        ff = book.date((f"Completion date of {what}" if status == "Complete" else f"Forecast date of {what}"),
                       forecast, attribute="actual_date" if status == "Complete" else "forecast_date", group=bid)
        fsl = book.number(f"Slippage of {what} against its baseline", Decimal((forecast - base).days), "days",
                          quantity="duration", attribute="slippage_days", group=bid,
                          derivation=Derivation(op="days_between", operands=[fb.id, ff.id]))
        fst = book.text(f"Status of {what}", status, attribute="milestone_status", group=bid)
        names.append(fn)
        statuses.append(fst)
        rows.append([fs(fn), fs(fb), fs(ff), fs(fsl), fs(fst)])
    table = _table(ctx, id=bid, caption=caption, columns=["Milestone", "Baseline date", "Forecast or actual date",
                                                          "Slippage (days)", "Status"],
                   rows=rows, numeric_columns=[3])
    done = [s for s in statuses if s.value.value == "Complete"]
    n = _count(ctx, "Number of milestones in the programme plan", names, ref_bid, "milestones")
    k = _count(ctx, "Number of programme milestones complete", done, ref_bid, "milestones_complete")
    late = [s for s in statuses if s.value.value == "Late"]
    spans = [lit(f"{ref} compares each milestone with its baseline: "), fs(k), lit(" of the "), fs(n),
             lit(f" milestones {for_count(len(done), 'is')} complete")]
    if late:
        kl = _count(ctx, "Number of programme milestones forecast late", late, ref_bid, "milestones_late")
        spans += [lit(", and "), fs(kl), lit(f" {for_count(len(late), 'is')} forecast late.")]
    else:
        spans.append(lit(", and none is forecast late."))
    return [table, TextBlock(id=ref_bid, spans=spans)]


def _rag_state(ctx: DocContext, rng: Rng) -> list[tuple[str, str, str, str]]:
    """``(dimension, status, trend, comment)``: schedule from the milestones, budget from the forecast at
    completion, scope, resources and risks as the programme reports them; overall the worst of them."""
    plan = _milestone_plan(ctx)
    budget = _budget_plan(ctx)
    late = [m for m in plan if m[3] == "Late"]
    at_risk = [m for m in plan if m[3] == "At risk"]
    if late:
        schedule = ("Red", f"'{late[0][0]}' forecast after its baseline date")
    elif at_risk:
        schedule = ("Amber", f"'{at_risk[0][0]}' at risk of slipping")
    else:
        schedule = ("Green", "Open milestones forecast on their baseline dates")
    tb = sum((r[1] for r in budget["rows"]), Decimal(0))
    tf = sum((r[3] for r in budget["rows"]), Decimal(0))
    worst = min(budget["rows"], key=lambda r: r[1] - r[3])
    over = (tf - tb) / tb * 100
    if over <= 0:
        money = ("Green", "Forecast at completion within budget")
    elif over <= AMBER_TOLERANCE:
        money = ("Amber", f"Forecast overrun on {worst[0].lower()}, offset being sought")
    else:
        money = ("Red", f"Forecast overrun on {worst[0].lower()}; funding change request in preparation")
    topic = rng.choice(ctx.domain.topics)
    dept = rng.choice(ctx.domain.departments)
    scope = rng.choice((("Green", "Scope baselined; no open change requests"),
                        ("Green", "Scope stable since the last report"),
                        ("Amber", "Change requests under impact assessment")))
    resources = rng.choice((("Green", "Key roles filled"), ("Amber", f"Vacancy in the {dept} team"),
                            ("Green", f"{dept} secondees confirmed to go-live")))
    risks = rng.choice((("Green", f"Risks on {topic} within tolerance"),
                        ("Amber", f"Exposure on {topic} above tolerance; mitigation agreed"),
                        ("Red", f"Exposure on {topic} escalated to the steering committee")))
    dims = [("Schedule", *schedule), ("Budget", *money), ("Scope", *scope), ("Resources", *resources),
            ("Risks", *risks)]
    trends = {"Green": ("Stable", "Stable", "Improving"), "Amber": ("Stable", "Worsening", "Improving"),
              "Red": ("Worsening", "Stable")}
    out = [(d, s, rng.choice(trends[s]), c) for d, s, c in dims]
    statuses = [s for _, s, _, _ in out]
    overall = "Red" if "Red" in statuses else "Amber" if "Amber" in statuses else "Green"
    drivers = [d.lower() for d, s, _, _ in out if s == overall]
    comment = (f"Driven by {_and(drivers)}" if overall != "Green" else "All dimensions on plan")
    out.append(("Overall", overall, rng.choice(trends[overall]), comment))
    return out


def build_rag_status(ctx: DocContext, rng: Rng) -> list[Block]:
    """Schedule, budget, scope, resources and risks with RAG status, trend and comment, and the overall status
    (the worst of them); schedule and budget follow the milestone plan and the budget tracking."""
    state = ctx.remember(("project", "rag"), lambda: _rag_state(ctx, rng))
    book = ctx.book
    bid = book.block_id()
    ref_bid = book.block_id()
    when = ctx.fmt.date(ctx.anchor)
    ref, caption = _numbered(ctx, [f"Programme status summary at {when}", "RAG status by dimension"])
    rows: list[list[Span]] = []
    for dim, status, trend, comment in state:
        what = "the programme's overall status" if dim == "Overall" else f"the programme's {dim.lower()} status"
        fst = book.text("Overall RAG status of the programme" if dim == "Overall" else
                        f"RAG status of the programme's {dim.lower()}", status, attribute="rag_status", group=bid)
        ftr = book.text(f"Trend of {what}", trend, attribute="rag_trend", group=bid)
        fco = book.text(f"Comment on {what}", comment, attribute="rag_comment", group=bid)
        rows.append([lit(dim), fs(fst), fs(ftr), fs(fco)])
    table = _table(ctx, id=bid, caption=caption, columns=["Dimension", "Status", "Trend", "Comment"], rows=rows,
                   total_row=False)
    date = book.date("Date of the programme status assessment", ctx.anchor, attribute="status_date", group=ref_bid)
    text = TextBlock(id=ref_bid, spans=[lit(f"{ref} rates the programme on each dimension as assessed on "), fs(date),
                                        lit("; the overall status is the worst of the five.")])
    return [table, text]


BLOCKS: dict[str, Builder] = {
    "income_statement": build_income_statement,
    "balance_sheet": build_balance_sheet,
    "cash_flow": build_cash_flow,
    "highlights": build_highlights,
    "statement_notes": build_statement_notes,
    "auditor_opinion": build_auditor_opinion,
    "letter_signoff": build_letter_signoff,
    "emissions_by_scope": build_emissions_by_scope,
    "esg_targets": build_esg_targets,
    "kpi_tiles": build_kpi_tiles,
    "large_claims": build_large_claims,
    "reserve_movement": build_reserve_movement,
    "budget_tracking": build_budget_tracking,
    "rag_status": build_rag_status,
    "milestones": build_milestones,
}
