"""Table builders. Totals are exact Decimal sums carrying ``Derivation("sum")``; shares and changes
carry ``share``/``percent_change`` derivations rounded to 0.1 (half-even), like ``ir.answers.derive``.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_EVEN, Decimal

from ..blocks import Span, TableBlock
from ..domains import Metric
from ..facts import Derivation, Fact
from ..rng import Rng
from .book import DocContext, fs, lit
from .quantities import draw_value, evolve, number_places

TENTH = Decimal("0.1")


def metric_fact(ctx: DocContext, metric: Metric, value: Decimal, label: str, **kw) -> Fact:
    b = ctx.book
    if metric.kind == "money":
        return b.money(label, value, **kw)
    if metric.kind == "percent":
        return b.percent(label, value, **kw)
    return b.number(label, value, metric.unit, number_places(metric, value), **kw)


def header(metric: Metric, ctx: DocContext, suffix: str = "") -> str:
    unit = f" ({ctx.fmt.currency})" if metric.kind == "money" else (
        " (%)" if metric.kind == "percent" else (f" ({metric.unit})" if metric.unit else ""))
    return f"{metric.name}{' ' + suffix if suffix else ''}{unit}"


def summable(metric: Metric) -> bool:
    return metric.kind in ("money", "count") or (metric.kind == "number" and metric.unit not in ("g/t", "t/ha",
                                                                                                 "days", "minutes"))


def share(part: Decimal, total: Decimal) -> Decimal:
    return (part / total * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def pct_change(a: Decimal, b: Decimal) -> Decimal:
    return ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def metric_value(ctx: DocContext, rng: Rng, metric: Metric, item: str, period: str,
                 prev: Decimal | None = None) -> Decimal:
    """The document's one value of ``metric`` for ``item`` in ``period`` (drawn on first use)."""
    def make() -> Decimal:
        if prev is not None:
            return evolve(rng, metric, prev, ctx.fmt.money_decimals)
        return draw_value(rng, metric, ctx.fmt.money_decimals)
    return ctx.remember(("metric", metric.slug, item, period), make)


def _total_fact(ctx: DocContext, metric: Metric, cells: list[Fact], label: str, bid: str, period: str = "") -> Fact:
    total = sum((c.value.amount if metric.kind == "money" else c.value.value for c in cells), Decimal(0))
    return metric_fact(ctx, metric, total, label, attribute=metric.slug, period=period, group=bid,
                       derivation=Derivation(op="sum", operands=[c.id for c in cells]))


def _amount(f: Fact) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


def comparison_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Items x two periods of one metric, optional change column and total row."""
    d = ctx.domain
    bid = ctx.book.block_id()
    metric = rng.choice(d.metrics)
    p1, p2 = ctx.periods(rng)
    items = rng.sample(d.items, min(n_rows, len(d.items)))
    with_change = metric.kind != "percent" and rng.bernoulli(0.45)
    with_total = summable(metric) and rng.bernoulli(0.7)
    rows: list[list[Span]] = []
    col1: list[Fact] = []
    col2: list[Fact] = []
    no = ctx.number("table")
    for item in items:
        a = metric_value(ctx, rng, metric, item, p1)
        b = metric_value(ctx, rng, metric, item, p2, prev=a)
        fa = metric_fact(ctx, metric, a, f"{metric.name} of {item} in {p1}", attribute=metric.slug, period=p1,
                         group=bid)
        fb = metric_fact(ctx, metric, b, f"{metric.name} of {item} in {p2}", attribute=metric.slug, period=p2,
                         group=bid)
        col1.append(fa)
        col2.append(fb)
        row = [lit(item), fs(fa), fs(fb)]
        if with_change:
            row.append(_change_span(ctx, metric, fa, fb, f"{item}", p1, p2, bid, ""))
        rows.append(row)
    if with_total:
        ta = _total_fact(ctx, metric, col1, f"Total {metric.name.lower()} in {p1} (Table {no})", bid, p1)
        tb = _total_fact(ctx, metric, col2, f"Total {metric.name.lower()} in {p2} (Table {no})", bid, p2)
        row = [lit("Total"), fs(ta), fs(tb)]
        if with_change:
            row.append(_change_span(ctx, metric, ta, tb, "the total", p1, p2, bid, f" (Table {no})"))
        rows.append(row)
    columns = [d.item_kind.capitalize(), header(metric, ctx, p1), header(metric, ctx, p2)]
    if with_change:
        columns.append("Change")
    numeric = list(range(1, len(columns)))
    caption = rng.choice([f"{metric.name} by {d.item_kind}, {p1} and {p2}",
                          f"{metric.name} by {d.item_kind}: {p2} compared with {p1}",
                          f"{metric.name} per {d.item_kind}"])
    return TableBlock(id=bid, caption=f"Table {no}. {caption}", columns=columns, rows=rows, total_row=with_total,
                      numeric_columns=numeric)


def _change_span(ctx: DocContext, metric: Metric, fa: Fact, fb: Fact, what: str, p1: str, p2: str, bid: str,
                 scope: str) -> Span:
    a, b = _amount(fa), _amount(fb)
    if a == 0:
        return lit("n/a")
    f = ctx.book.percent(f"Change in {metric.name.lower()} of {what} from {p1} to {p2}{scope}", pct_change(a, b),
                         attribute=f"{metric.slug}_change", period=p2, group=bid,
                         derivation=Derivation(op="percent_change", operands=[fa.id, fb.id]))
    return fs(f)


def share_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """One summable metric by item with each row's share of the total (``share`` derivations)."""
    d = ctx.domain
    bid = ctx.book.block_id()
    metrics = [m for m in d.metrics if summable(m)] or [d.metrics[0]]
    metric = rng.choice(metrics)
    period = rng.choice((f"Q{rng.integers(1, 5)} {ctx.year}", f"{ctx.year}", f"H1 {ctx.year}"))
    items = rng.sample(d.items, min(n_rows, len(d.items)))
    cells = []
    no = ctx.number("table")
    for item in items:
        v = metric_value(ctx, rng, metric, item, period)
        cells.append(metric_fact(ctx, metric, v, f"{metric.name} of {item} in {period}", attribute=metric.slug,
                                 period=period, group=bid))
    total = _total_fact(ctx, metric, cells, f"Total {metric.name.lower()} in {period} (Table {no})", bid, period)
    total_zero = _amount(total) == 0
    rows = []
    for item, c in zip(items, cells, strict=True):
        if total_zero:
            rows.append([lit(item), fs(c), lit("n/a")])
            continue
        s = ctx.book.percent(f"Share of {item} in the Table {no} total of {metric.name.lower()} ({period})",
                             share(_amount(c), _amount(total)), attribute=f"{metric.slug}_share", period=period,
                             group=bid, derivation=Derivation(op="share", operands=[c.id, total.id]))
        rows.append([lit(item), fs(c), fs(s)])
    rows.append([lit("Total"), fs(total), lit("100%")])
    return TableBlock(id=bid, caption=f"Table {no}. {metric.name} by {d.item_kind}, {period}",
                      columns=[d.item_kind.capitalize(), header(metric, ctx), "Share of total"], rows=rows,
                      total_row=True, numeric_columns=[1, 2])


def line_item_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Invoice/order lines: quantity x unit price = amount (exact), subtotal as a summed total row."""
    d = ctx.domain
    bid = ctx.book.block_id()
    book = ctx.book
    services = sorted({f"{dept} services, {item}" for dept in d.departments[:3] for item in d.items}
                      | {f"{t.capitalize()} review" for t in d.topics}
                      | {f"{item} support ({dept.lower()})" for dept in d.departments[3:] for item in d.items[:4]})
    chosen = rng.sample(services, min(n_rows, len(services)))
    amounts: list[Fact] = []
    rows = []
    no = ctx.number("table")
    for desc in chosen:
        r = rng
        qty = Decimal(r.integers(1, 40))
        price = Decimal(str(round(r.uniform(20, 4000), 2))) if ctx.fmt.money_decimals else Decimal(
            r.integers(2, 400) * 10)
        fq = book.number(f"Quantity of {desc} (Table {no})", qty, "units", group=bid, attribute="quantity")
        fp = book.money(f"Unit price of {desc} (Table {no})", price, group=bid, attribute="unit_price")
        fa = book.money(f"Amount for {desc} (Table {no})", qty * price, group=bid, attribute="line_amount")
        amounts.append(fa)
        rows.append([lit(desc), fs(fq), fs(fp), fs(fa)])
    total = book.money(f"Subtotal of the lines in Table {no}", sum((_amount(a) for a in amounts), Decimal(0)), group=bid,
                       attribute="subtotal", derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    rows.append([lit("Subtotal"), lit(""), lit(""), fs(total)])
    return TableBlock(id=bid, caption=f"Table {no}. " + rng.choice(["Line items", "Order lines",
                                                                     "Charges for the period"]),
                      columns=["Description", "Qty", f"Unit price ({ctx.fmt.currency})",
                               f"Amount ({ctx.fmt.currency})"], rows=rows, total_row=True,
                      numeric_columns=[1, 2, 3])


def register_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """A dated transaction register (long tables): dates ascending, references, counterparties, amounts."""
    bid = ctx.book.block_id()
    book = ctx.book
    metric = next((m for m in ctx.domain.metrics if m.kind == "money"), None)
    start = ctx.day(-rng.integers(120, 300))
    day = start
    no = ctx.number("table")
    amounts: list[Fact] = []
    rows = []
    for i in range(n_rows):
        r = rng
        day = day + dt.timedelta(days=r.integers(0, 5))
        ref = ctx.reference()
        cp = ctx.counterparty(r)
        if metric is not None:
            amt = draw_value(r, metric, ctx.fmt.money_decimals) / 10
            amt = amt.quantize(Decimal(1).scaleb(-ctx.fmt.money_decimals)) or Decimal(1)
        else:
            amt = Decimal(r.integers(100, 90000))
        fd = book.date(f"Posting date of entry {ref}", day, group=bid, attribute="posting_date")
        fr = book.ident(f"Reference of entry {i + 1} in the register (Table {no})", ref, scheme="reference",
                        group=bid)
        fc = book.org(f"Counterparty of entry {ref}", cp, group=bid, attribute="counterparty")
        fa = book.money(f"Amount of entry {ref}", amt, group=bid, attribute="amount")
        amounts.append(fa)
        rows.append([fs(fd), fs(fr), fs(fc), fs(fa)])
    total = book.money(f"Total of the register in Table {no}", sum((_amount(a) for a in amounts), Decimal(0)), group=bid,
                       attribute="register_total", derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    rows.append([lit("Total"), lit(""), lit(""), fs(total)])
    return TableBlock(id=bid, caption=f"Table {no}. " + rng.choice(["Transaction register",
                                                                     "Ledger entries for the period",
                                                                     "Schedule of postings"]),
                      columns=["Date", "Reference", "Counterparty", f"Amount ({ctx.fmt.currency})"], rows=rows,
                      total_row=True, numeric_columns=[3])


def action_owner_and_due(ctx: DocContext, rng: Rng, action: str):
    """One owner and one due date per action across the whole document."""
    return ctx.remember(("action", action), lambda: (ctx.person(rng), ctx.day(rng.integers(10, 150))))


STATUSES = ("Open", "In progress", "Completed", "On hold", "Overdue")


def action_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Actions/risks with owner, due date and status (text, person and date facts; no numbers)."""
    bid = ctx.book.block_id()
    book = ctx.book
    acts = rng.sample(ctx.domain.actions, min(n_rows, len(ctx.domain.actions)))
    rows = []
    no = ctx.number("table")
    for i, act in enumerate(acts):
        owner, due_d = action_owner_and_due(ctx, rng, act)
        fa = book.text(f"Action {i + 1} in Table {no}", act, group=bid, attribute="action")
        fo = book.person(f"Owner of the action '{act}'", owner, group=bid, attribute="owner")
        due = book.date(f"Due date of the action '{act}'", due_d, group=bid, attribute="due_date")
        status = ctx.remember(("status", act), lambda: rng.choice(STATUSES))
        st = book.text(f"Status of the action '{act}'", status, group=bid, attribute="status")
        rows.append([fs(fa), fs(fo), fs(due), fs(st)])
    return TableBlock(id=bid, caption=f"Table {no}. " + rng.choice(["Action tracker", "Open actions and owners",
                                                                     "Remediation plan"]),
                      columns=["Action", "Owner", "Due date", "Status"], rows=rows)


TABLE_KINDS = {
    "comparison": comparison_table, "share": share_table, "line_items": line_item_table,
    "register": register_table, "actions": action_table,
}
