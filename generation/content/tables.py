"""Table builders. Totals are exact Decimal sums carrying ``Derivation("sum")``; shares and changes
carry ``share``/``percent_change``/``difference`` derivations.

What a table may do with a column follows its metric's semantic type (``ir.arithmetic_rules``): a total row only
under additive columns (a column of rates gets an average row or nothing), a change column in percent
only for amounts and large counts, in percentage points for rates and in the metric's unit for ratios,
scores and small counts. Shares of one whole are computed once per (metric, period) over all of the
domain's items (largest remainder, summing to 100.0), so a share has one value wherever it appears.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, Decimal

from ir.arithmetic_rules import PERCENTAGE_POINTS, quantity_allows, singular
from ir.blocks import Span, TableBlock
from ir.facts import Derivation, Fact
from ir.rng import Rng
from ir.vocab import TableKind

from ..domains import Metric
from .book import DocContext, fs, lit
from .quantities import draw_value, number_places
from .wording import lower_common, plural

TENTH = Decimal("0.1")
CHANGE_PP_HEADER = "Change (pp)"
EXPENSE_LINES = ("Rail fare", "Airfare, economy", "Hotel accommodation", "Taxi and ride-hailing", "Client dinner",
                 "Team lunch", "Mileage allowance", "Parking", "Conference registration", "Mobile roaming charges",
                 "Printing and stationery", "Visa fee", "Per diem allowance", "Car hire", "Train seat reservation")


def metric_fact(ctx: DocContext, metric: Metric, value: Decimal, label: str, **kw) -> Fact:
    b = ctx.book
    if metric.kind == "money":
        return b.money(label, value, quantity=metric.quantity, **kw)
    if metric.kind == "percent":
        return b.percent(label, value, quantity=metric.quantity, **kw)
    return b.number(label, value, metric.unit, number_places(metric, value), quantity=metric.quantity, **kw)


def unit_note(metric: Metric, ctx: DocContext) -> str:
    """What a header adds in brackets: the currency, ``%``, or a unit the name does not already say
    (``Open matters``, never ``Open matters (matters)``)."""
    if metric.kind == "money":
        return ctx.fmt.currency
    if metric.kind == "percent":
        return "%"
    words = {w.lower() for w in metric.name.split()}
    if not metric.unit or metric.unit.lower() in words or singular(metric.unit).lower() in words:
        return ""
    return metric.unit


def header(metric: Metric, ctx: DocContext, suffix: str = "") -> str:
    note = unit_note(metric, ctx)
    return f"{metric.name}{' ' + suffix if suffix else ''}{f' ({note})' if note else ''}"


def summable(metric: Metric) -> bool:
    """Whether a column of this metric may get a total (``ir.arithmetic_rules``: additive quantities only)."""
    return quantity_allows(metric.quantity, "sum")


def share(part: Decimal, total: Decimal) -> Decimal:
    return (part / total * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def pct_change(a: Decimal, b: Decimal) -> Decimal:
    return ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def largest_remainder_shares(parts: list[Decimal]) -> list[Decimal]:
    """Shares in 0.1 steps that sum to exactly 100.0 (Hamilton's method, ties by position)."""
    total = sum(parts, Decimal(0))
    raw = [p / total * 1000 for p in parts]
    floors = [r.to_integral_value(rounding=ROUND_DOWN) for r in raw]
    left = int(1000 - sum(floors))
    order = sorted(range(len(parts)), key=lambda i: (-(raw[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [(f / 10).quantize(TENTH) for f in floors]


def whole(ctx: DocContext, metric: Metric, period: str) -> tuple[dict[str, Decimal], Decimal, dict[str, Decimal]]:
    """``(value per item, total, share per item)`` of the whole of ``metric`` over ``period``: every item of
    the domain, computed once per document."""
    def make():
        values = {item: ctx.metric_value(metric, item, period) for item in ctx.domain.items}
        total = sum(values.values(), Decimal(0))
        shares = dict(zip(values, largest_remainder_shares(list(values.values())), strict=True)) if total else {}
        return values, total, shares
    return ctx.remember(("whole", metric.slug, period), make)


def _amount(f: Fact) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


def change_mode(metric: Metric) -> str:
    """How a change of ``metric`` is stated (one way per metric, so a change has one label and one value):
    ``pct`` (percent change: amounts and large counts), ``pp`` (percentage points: rates) or ``diff`` (a
    difference in the metric's unit: ratios, scores, running totals and counts that can be small)."""
    if metric.quantity == "rate":
        return "pp"
    if not quantity_allows(metric.quantity, "percent_change") or metric.behaviour == "cumulative" or metric.small_count:
        return "diff"
    if metric.quantity == "count" and metric.low < 50:
        return "diff"
    return "pct"


def change_header(metric: Metric, ctx: DocContext, mode: str) -> str:
    if mode == "pct":
        return "Change (%)"
    if mode == "pp":
        return CHANGE_PP_HEADER
    note = ctx.fmt.currency if metric.kind == "money" else metric.unit
    return f"Change ({note})" if note else "Change"


def change_span(ctx: DocContext, metric: Metric, mode: str, fa: Fact, fb: Fact, what: str, p1: str, p2: str,
                bid: str, scope: str) -> Span:
    """The change from ``fa`` (earlier) to ``fb`` stated as ``mode`` says (see ``change_mode``)."""
    a, b = _amount(fa), _amount(fb)
    book = ctx.book
    label = f"Change in {lower_common(metric.name)} of {what} from {p1} to {p2}{scope}"
    kw = dict(attribute=f"{metric.slug}_change", period=p2, group=bid)
    if mode == "pct":
        if a == 0:
            return lit("n/a")
        f = book.percent(label, pct_change(a, b), quantity="rate",
                         derivation=Derivation(op="percent_change", operands=[fa.id, fb.id]), **kw)
        return fs(f)
    der = Derivation(op="difference", operands=[fb.id, fa.id])
    if mode == "pp":
        f = book.number(f"{label} in percentage points", b - a, PERCENTAGE_POINTS, 1, quantity="rate", derivation=der,
                        **kw)
    elif metric.kind == "money":
        f = book.money(label, b - a, quantity=metric.quantity, derivation=der, **kw)
    else:
        places = max(-a.as_tuple().exponent, -b.as_tuple().exponent, 0)
        f = book.number(label, b - a, metric.unit, places, quantity=metric.quantity, derivation=der, **kw)
    return fs(f)


def _summary_fact(ctx: DocContext, metric: Metric, cells: list[Fact], label: str, bid: str, period: str,
                  op: str) -> Fact:
    """The total (additive metrics) or the average (rates, ratios, scores) of a column."""
    values = [_amount(c) for c in cells]
    total = sum(values, Decimal(0))
    der = Derivation(op=op, operands=[c.id for c in cells])
    if op == "sum":
        return metric_fact(ctx, metric, total, label, attribute=metric.slug, period=period, group=bid, derivation=der)
    mean = total / len(values)
    kw = dict(attribute=f"{metric.slug}_mean", period=period, group=bid, derivation=der, quantity=metric.quantity)
    if metric.kind == "percent":
        return ctx.book.percent(label, mean, **kw)
    if metric.kind == "money":
        return ctx.book.money(label, mean, **kw)
    return ctx.book.number(label, mean, metric.unit, 1, **kw)


def comparison_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Items x two periods of one metric, an optional change column and an optional summary row. A total
    (additive metrics) is the whole's: the items not listed are grouped as "Other", so every total of one
    metric and period in a document is the same number. Rates, ratios and scores get an average of the rows
    listed instead (and no change of the average: two tables' averages are over different rows)."""
    d = ctx.domain
    bid = ctx.book.block_id()
    metric = rng.choice(d.metrics)
    p1, p2 = ctx.periods(rng)
    items = rng.sample(d.items, min(n_rows, len(d.items)))
    with_change = rng.bernoulli(0.45)
    additive = summable(metric)
    with_summary = rng.bernoulli(0.7) and (additive or rng.bernoulli(0.6))
    others: list[str] = []
    if with_summary and additive and len(items) < len(d.items):
        items = items[:-1]  # its row holds the others
        others = [i for i in d.items if i not in items]
    values = [(item, ctx.metric_value(metric, item, p1), ctx.metric_value(metric, item, p2)) for item in items]
    mode = change_mode(metric)
    metric_lc = lower_common(metric.name)
    rows: list[list[Span]] = []
    col1: list[Fact] = []
    col2: list[Fact] = []
    no = ctx.number("table")
    for item, a, b in values:
        fa = metric_fact(ctx, metric, a, f"{metric.name} of {item} in {p1}", attribute=metric.slug, period=p1,
                         group=bid)
        fb = metric_fact(ctx, metric, b, f"{metric.name} of {item} in {p2}", attribute=metric.slug, period=p2,
                         group=bid)
        col1.append(fa)
        col2.append(fb)
        row = [lit(item), fs(fa), fs(fb)]
        if with_change:
            row.append(change_span(ctx, metric, mode, fa, fb, item, p1, p2, bid, ""))
        rows.append(row)
    if others:
        rest = f"the other {plural(d.item_kind)}"
        oa, ob = (metric_fact(ctx, metric, sum((ctx.metric_value(metric, i, p) for i in others), Decimal(0)),
                              f"{metric.name} of {rest} in {p} (Table {no})", attribute=f"{metric.slug}_other",
                              period=p, group=bid) for p in (p1, p2))
        col1.append(oa)
        col2.append(ob)
        row = [lit(f"Other {plural(d.item_kind)}"), fs(oa), fs(ob)]
        if with_change:
            row.append(change_span(ctx, metric, mode, oa, ob, rest, p1, p2, bid, f" (Table {no})"))
        rows.append(row)
    if with_summary:
        op, name = ("sum", "Total") if additive else ("mean", "Average")
        what = (f"Total {metric_lc}" if additive else
                f"Average {metric_lc} of the {len(items)} {plural(d.item_kind)} listed")
        ta = _summary_fact(ctx, metric, col1, f"{what} in {p1} (Table {no})", bid, p1, op)
        tb = _summary_fact(ctx, metric, col2, f"{what} in {p2} (Table {no})", bid, p2, op)
        row = [lit(name), fs(ta), fs(tb)]
        if with_change:
            row.append(change_span(ctx, metric, mode, ta, tb, "the total", p1, p2, bid, "") if additive else lit(""))
        rows.append(row)
    columns = [d.item_kind.capitalize(), header(metric, ctx, p1), header(metric, ctx, p2)]
    if with_change:
        columns.append(change_header(metric, ctx, mode))
    numeric = list(range(1, len(columns)))
    caption = rng.choice([f"{metric.name} by {d.item_kind}, {p1} and {p2}",
                          f"{metric.name} by {d.item_kind}: {p2} compared with {p1}",
                          f"{metric.name} per {d.item_kind}"])
    return TableBlock(id=bid, caption=f"Table {no}. {caption}", columns=columns, rows=rows, total_row=with_summary,
                      numeric_columns=numeric)


def share_periods(ctx: DocContext) -> tuple[str, str, str]:
    """The periods a share of a whole is reported for: the last complete quarter, year and half."""
    return ctx.cal.quarters(1)[0], f"{ctx.cal.fy}", ctx.cal.half()


def share_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """One additive metric by item with each row's share of the whole; the largest items are listed and the
    rest grouped as "Other" (``share`` derivations; the total is the whole's)."""
    d = ctx.domain
    bid = ctx.book.block_id()
    metrics = [m for m in d.metrics if quantity_allows(m.quantity, "share")] or [d.metrics[0]]
    metric = rng.choice(metrics)
    period = rng.choice(share_periods(ctx))
    values, total_v, shares = whole(ctx, metric, period)
    ranked = sorted(values, key=lambda i: (-values[i], d.items.index(i)))
    shown = ranked if n_rows >= len(ranked) else ranked[:n_rows - 1]
    hidden = [i for i in ranked if i not in shown]
    no = ctx.number("table")
    metric_lc = lower_common(metric.name)
    cells: list[tuple[str, Fact, Decimal | None]] = []
    for item in shown:
        cells.append((item, metric_fact(ctx, metric, values[item], f"{metric.name} of {item} in {period}",
                                        attribute=metric.slug, period=period, group=bid), shares.get(item)))
    if hidden:
        other_label = f"Other {plural(d.item_kind)}"
        other = sum((values[i] for i in hidden), Decimal(0))
        of = metric_fact(ctx, metric, other, f"{metric.name} of the other {plural(d.item_kind)} in {period} "
                         f"(Table {no})", attribute=f"{metric.slug}_other", period=period, group=bid)
        cells.append((other_label, of, (Decimal(100) - sum(shares[i] for i in shown)) if shares else None))
    total = _summary_fact(ctx, metric, [c for _, c, _ in cells], f"Total {metric_lc} in {period} (Table {no})", bid,
                          period, "sum")
    rows = []
    for i, (label, c, s) in enumerate(cells):
        if s is None:
            rows.append([lit(label), fs(c), lit("n/a")])
            continue
        is_other = hidden and i == len(cells) - 1
        who = f"the other {plural(d.item_kind)}" if is_other else label
        f = ctx.book.percent(f"Share of {who} in the Table {no} total of {metric_lc} ({period})", s,
                             attribute=f"{metric.slug}_share", period=period, group=bid,
                             derivation=None if is_other else Derivation(op="share", operands=[c.id, total.id]))
        rows.append([lit(label), fs(c), fs(f)])
    rows.append([lit("Total"), fs(total), lit("100.0%" if shares else "n/a")])
    return TableBlock(id=bid, caption=f"Table {no}. {metric.name} by {d.item_kind}, {period}",
                      columns=[d.item_kind.capitalize(), header(metric, ctx), "Share of total"], rows=rows,
                      total_row=True, numeric_columns=[1, 2])


def line_item_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Invoice/order lines: quantity x unit price = amount (exact), subtotal as a summed total row."""
    d = ctx.domain
    bid = ctx.book.block_id()
    book = ctx.book
    if ctx.recipe.slug == "expense_claim":
        services = sorted(EXPENSE_LINES)
    else:
        services = sorted({f"{dept} services, {item}" for dept in d.departments[:3] for item in d.items}
                          | {f"{t.capitalize()} review" for t in d.topics}
                          | {f"{item} support ({lower_common(dept)})" for dept in d.departments[3:]
                             for item in d.items[:4]})
    chosen = rng.sample(services, min(n_rows, len(services)))
    amounts: list[Fact] = []
    rows = []
    no = ctx.number("table")
    for desc in chosen:
        r = rng
        qty = Decimal(r.integers(1, 40))
        price = Decimal(str(round(r.uniform(20, 4000), 2))) if ctx.fmt.money_decimals else Decimal(
            r.integers(2, 400) * 10)
        if ctx.recipe.slug == "expense_claim":  # expenses are small and few: a claim is not an order book
            qty = Decimal(1 + qty % 4)
            price = (price / 10).quantize(price) if price >= 50 else price
        fq = book.number(f"Quantity of {desc} (Table {no})", qty, "units", group=bid, attribute="quantity",
                         quantity="count")
        fp = book.money(f"Unit price of {desc} (Table {no})", price, group=bid, attribute="unit_price",
                        quantity="ratio")
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
    start = ctx.day(-rng.integers(30, 120) - 4 * n_rows)  # the last posting is before the as-at date
    day = start
    no = ctx.number("table")
    amounts: list[Fact] = []
    rows = []
    for i in range(n_rows):
        r = rng
        day = day + dt.timedelta(days=r.integers(0, 5))
        ref = ctx.serial("JE", 5)
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
    """One owner and one due date per action across the whole document (some already due)."""
    return ctx.remember(("action", action), lambda: (ctx.person(rng), ctx.day(rng.integers(-30, 150))))


STATUSES = ("Open", "In progress", "Completed", "On hold", "Overdue")
PAST_DUE = ("Completed", "Overdue")
"""What an action due before the document's date can be (an open action past its date is overdue)."""
NOT_DUE = ("Open", "In progress", "Completed", "On hold")


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
        options = PAST_DUE if due_d < ctx.anchor else NOT_DUE
        status = ctx.remember(("status", act), lambda options=options: rng.choice(options))
        st = book.text(f"Status of the action '{act}'", status, group=bid, attribute="status")
        rows.append([fs(fa), fs(fo), fs(due), fs(st)])
    return TableBlock(id=bid, caption=f"Table {no}. " + rng.choice(["Action tracker", "Open actions and owners",
                                                                     "Remediation plan"]),
                      columns=["Action", "Owner", "Due date", "Status"], rows=rows)


TABLE_BUILDERS: dict[TableKind, Callable[[DocContext, Rng, int], TableBlock]] = {
    "comparison": comparison_table, "share": share_table, "line_items": line_item_table,
    "register": register_table, "actions": action_table,
}
"""One builder per ``ir.vocab.TableKind`` (a test checks the keys are the vocabulary)."""
