"""Table builders. Totals are exact Decimal sums carrying ``Derivation("sum")``; shares and changes
carry ``share``/``percent_change``/``difference`` derivations.

What a table may do with a column follows its metric's semantic type (``ir.arithmetic_rules``): a total row only
under additive columns (a column of rates gets an average row or nothing), a change column in percent
only for amounts and large counts, in percentage points for rates and in the metric's unit for ratios,
scores and small counts. Shares of one whole are computed once per (metric, period) over all of the
domain's items (largest remainder, summing to 100.0), so a share has one value wherever it appears.

No table of a document repeats another's rows (``generation.content.repeats``): a comparison is printed once
per (metric, pair of periods), a share table once per (metric, period), each action and each group of billed
lines once, and every register covers months of its own; the caption says what the table holds (metric,
periods, the groups billed, the months). A kind with nothing distinct left builds another (``FALLBACKS``);
``TABLE_BUILDERS`` always return a table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.arithmetic_rules import PERCENTAGE_POINTS, quantity_allows, singular
from synthdocqa.ir.blocks import Span, TableBlock
from synthdocqa.ir.facts import Derivation, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.vocab import TableKind
from synthdocqa.ir.world import largest_remainder_shares

from ..domains import Metric
from .book import DocContext, fs, lit
from .calendar import month_label, period_months
from .issuer_books import journal, line_kind, line_quantity, posting_amount, unit_price
from .quantities import number_places
from .repeats import body_rows, repeated_rows
from .wording import lower_common, plural

TENTH = Decimal("0.1")
CHANGE_PP_HEADER = "Change (pp)"
EXPENSE_LINES = ("Rail fare", "Airfare, economy", "Hotel accommodation", "Taxi and ride-hailing", "Client dinner",
                 "Team lunch", "Mileage allowance", "Parking", "Conference registration", "Mobile roaming charges",
                 "Printing and stationery", "Visa fee", "Per diem allowance", "Car hire", "Train seat reservation")


def metric_fact(ctx: DocContext, metric: Metric, value: Decimal, label: str, *, items=None, **kw) -> Fact:
    """The fact of ``value`` of ``metric``; ``items`` (an item, or the items summed) makes it a query of the
    issuer's world for the fact's period (``Fact.query``), checked here to be the world's value."""
    if items is not None:
        q = ctx.metric_query(metric, items, kw["period"])
        got = ctx.world.value(q) if ctx.world is not None else None
        if got != value:
            raise AssertionError(f"{label}: {value} is not the world's {got}")
        kw["query"] = q
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


MAX_CHANGE = Decimal(60)
"""Largest percent change a document states in words (a key message, a paragraph): the planner's checks allow no
more, and a larger one of a small count reads as noise."""


def pct_change(a: Decimal, b: Decimal) -> Decimal:
    return ((b - a) / a * 100).quantize(TENTH, rounding=ROUND_HALF_EVEN)


def whole(ctx: DocContext, metric: Metric, period: str) -> tuple[dict[str, Decimal], Decimal, dict[str, Decimal]]:
    """``(value per item, total, share per item)`` of the whole of ``metric`` over ``period``: every item of
    the domain, computed once per document."""
    def make():
        values = {item: ctx.metric_value(metric, item, period) for item in ctx.domain.items}
        total = sum(values.values(), Decimal(0))
        shares = dict(zip(values, largest_remainder_shares(list(values.values())), strict=True)) if total else {}
        return values, total, shares
    assert ctx.world is not None  # keyed by the world's measure: a lens's headcount is not the trade's
    return ctx.remember(("whole", ctx.world.key(metric), period), make)


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
    """The change from ``fa`` (earlier) to ``fb`` stated as ``mode`` says (see ``change_mode``); "n/a" for a
    percent change from nothing, or past ``MAX_CHANGE`` (a small amount rounded to nothing: not meaningful)."""
    a, b = _amount(fa), _amount(fb)
    book = ctx.book
    label = f"Change in {lower_common(metric.name)} of {what} from {p1} to {p2}{scope}"
    kw = dict(attribute=f"{metric.slug}_change", period=p2, group=bid)
    if mode == "pct":
        if a == 0 or abs(pct_change(a, b)) > MAX_CHANGE:
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


# ---------------------------------------------------------------- distinct content
# A document never prints the same rows twice (``generation.content.repeats``): each builder first chooses
# what its table holds among what the document has not printed yet (``DocContext.used``), with a caption
# that says so, and returns None when nothing distinct is left; the public builders (``TABLE_BUILDERS``)
# then build another kind instead (``FALLBACKS``), so they always return a table.

HISTORY_YEARS = 4
"""How far back (in steps of the period) comparisons and shares reach once the recent periods are used."""


def _unique(seq):
    out = []
    for x in seq:
        if x not in out:
            out.append(x)
    return out


def comparison_pairs(ctx: DocContext) -> list[tuple[str, str]]:
    """The pairs of periods a comparison may set side by side, most recent first: consecutive years, the
    half or quarter a year apart, consecutive quarters and halves, then the same a step further back."""
    cal = ctx.cal
    out: list[tuple[str, str]] = []
    h, q = cal.half(), cal.quarters(1)[0]
    for k in range(HISTORY_YEARS):
        y = str(cal.fy - k)
        out += [(cal.previous(y), y), (cal.year_ago(h), h), (cal.year_ago(q), q), (cal.previous(q), q),
                (cal.previous(h), h)]
        h, q = cal.previous(h), cal.previous(q)
    if ctx.by_quarter:  # a quarterly report compares quarters first
        out = sorted(out, key=lambda pair: not pair[1].startswith("Q"))
    return _unique(out)


def share_period_options(ctx: DocContext) -> list[str]:
    """The periods a share of a whole may be reported for: ``share_periods`` first, then earlier ones."""
    cal = ctx.cal
    q, y, h = share_periods(ctx)
    out: list[str] = []
    for _ in range(HISTORY_YEARS):
        out += [q, y, h]
        q, y, h = cal.previous(q), cal.previous(y), cal.previous(h)
    return _unique(out)


def period_key(metric: Metric, period: str):
    """What a period means for ``metric``: a stock's or a running total's value is the level at the period's last
    month (``2025``, ``H2 2025`` and ``Q4 2025`` are one value), a flow's or a rate's is the whole period's."""
    if metric.behaviour in ("stock", "cumulative"):
        start, n = period_months(period)  # type: ignore[misc]
        return start + n - 1
    return period


def rotated(seq, first):
    i = list(seq).index(first)
    return list(seq[i:]) + list(seq[:i])


def _free(ctx: DocContext, captions: list[str]) -> list[str]:
    return [c for c in captions if ctx.caption_free(c)]


def comparison_captions(metric: Metric, item_kind: str, p1: str, p2: str) -> list[str]:
    return [f"{metric.name} by {item_kind}, {p1} and {p2}",
            f"{metric.name} by {item_kind}: {p2} compared with {p1}",
            f"{metric.name} per {item_kind}, {p2} against {p1}"]


def _comparison(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock | None:
    """Items x two periods of one metric, an optional change column and an optional summary row. A total
    (additive metrics) is the whole's: the items not listed are grouped as "Other", so every total of one
    metric and period in a document is the same number. Rates, ratios and scores get an average of the rows
    listed instead (and no change of the average: two tables' averages are over different rows). One table per
    (metric, pair of periods) in a document: None when every pair of every metric is printed."""
    d = ctx.domain
    metric0 = rng.choice(d.metrics)
    pair0 = ctx.periods(rng)
    used = ctx.used("comparison")
    choice = next(((m, p1, p2, free) for p1, p2 in _unique([pair0, *comparison_pairs(ctx)])
                   for m in rotated(d.metrics, metric0)
                   if (m.slug, period_key(m, p1), period_key(m, p2)) not in used
                   for free in [_free(ctx, comparison_captions(m, d.item_kind, p1, p2))] if free), None)
    if choice is None:
        return None
    metric, p1, p2, captions = choice
    used.add((metric.slug, period_key(metric, p1), period_key(metric, p2)))
    bid = ctx.book.block_id()
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
                         group=bid, items=item)
        fb = metric_fact(ctx, metric, b, f"{metric.name} of {item} in {p2}", attribute=metric.slug, period=p2,
                         group=bid, items=item)
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
                              period=p, group=bid, items=others) for p in (p1, p2))
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
    caption = ctx.claim_caption(rng.choice(captions))
    return TableBlock(id=bid, caption=f"Table {no}. {caption}", columns=columns, rows=rows, total_row=with_summary,
                      numeric_columns=numeric)


def share_periods(ctx: DocContext) -> tuple[str, str, str]:
    """The periods a share of a whole is reported for first: the last complete quarter, year and half."""
    return ctx.cal.quarters(1)[0], f"{ctx.cal.fy}", ctx.cal.half()


def share_captions(metric: Metric, item_kind: str, period: str) -> list[str]:
    return [f"{metric.name} by {item_kind}, {period}", f"{metric.name} by {item_kind} and share of the total, {period}"]


def other_split(ranked: list[str], values: dict[str, Decimal], total: Decimal, shares: dict[str, Decimal],
                most: int) -> list[str]:
    """The largest items to list by name (at most ``most``, at least one) such that the rest's share, 100.0 less
    the listed shares (so the column adds up to 100.0), is within a tenth of the rest's exact share (the
    ``share`` derivation's tolerance: the listed shares' roundings may add up to more)."""
    for k in range(max(1, most), 0, -1):
        rest = sum((values[i] for i in ranked[k:]), Decimal(0))
        if not shares or abs(Decimal(100) - sum(shares[i] for i in ranked[:k]) - rest / total * 100) < TENTH:
            return ranked[:k]
    return ranked[:1]


def _share(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock | None:
    """One additive metric by item with each row's share of the whole over one period; the largest items are
    listed and the rest grouped as "Other" (``share`` derivations; the total is the whole's). One table per
    (metric, period): None when every period of every metric is printed."""
    d = ctx.domain
    metrics = [m for m in d.metrics if quantity_allows(m.quantity, "share")] or [d.metrics[0]]
    metric0 = rng.choice(metrics)
    period0 = rng.choice(share_periods(ctx))
    if ctx.by_quarter:  # a quarterly report's shares are of its quarter first
        period0 = ctx.focus
    used = ctx.used("share")
    choice = next(((m, p, free) for p in _unique([period0, *share_period_options(ctx)])
                   for m in rotated(metrics, metric0) if (m.slug, period_key(m, p)) not in used
                   for free in [_free(ctx, share_captions(m, d.item_kind, p))] if free), None)
    if choice is None:
        return None
    metric, period, captions = choice
    used.add((metric.slug, period_key(metric, period)))
    bid = ctx.book.block_id()
    values, total_v, shares = whole(ctx, metric, period)
    ranked = sorted(values, key=lambda i: (-values[i], d.items.index(i)))
    shown = ranked if n_rows >= len(ranked) else other_split(ranked, values, total_v, shares, n_rows - 1)
    hidden = [i for i in ranked if i not in shown]
    no = ctx.number("table")
    metric_lc = lower_common(metric.name)
    cells: list[tuple[str, Fact, Decimal | None]] = []
    for item in shown:
        cells.append((item, metric_fact(ctx, metric, values[item], f"{metric.name} of {item} in {period}",
                                        attribute=metric.slug, period=period, group=bid, items=item),
                      shares.get(item)))
    if hidden:
        other_label = f"Other {plural(d.item_kind)}"
        other = sum((values[i] for i in hidden), Decimal(0))
        of = metric_fact(ctx, metric, other, f"{metric.name} of the other {plural(d.item_kind)} in {period} "
                         f"(Table {no})", attribute=f"{metric.slug}_other", period=period, group=bid, items=hidden)
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
        f = ctx.book.percent(f"Share of {who} in the total of {metric_lc} in {period} (Table {no})", s,
                             attribute=f"{metric.slug}_share", period=period, group=bid,
                             derivation=Derivation(op="share", operands=[c.id, total.id]))
        rows.append([lit(label), fs(c), fs(f)])
    rows.append([lit("Total"), fs(total), lit("100.0%" if shares else "n/a")])
    caption = ctx.claim_caption(captions[0])
    return TableBlock(id=bid, caption=f"Table {no}. {caption}",
                      columns=[d.item_kind.capitalize(), header(metric, ctx, period), "Share of total"], rows=rows,
                      total_row=True, numeric_columns=[1, 2])


EXPENSE_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("travel", ("Airfare, economy", "Car hire", "Mileage allowance", "Parking", "Rail fare", "Taxi and ride-hailing",
                "Train seat reservation", "Visa fee")),
    ("accommodation and meals", ("Client dinner", "Hotel accommodation", "Per diem allowance", "Team lunch")),
    ("sundries", ("Conference registration", "Mobile roaming charges", "Printing and stationery")),
)
"""The lines of an expense claim by kind of expense (``EXPENSE_LINES``, grouped)."""
assert sorted(x for _, lines in EXPENSE_GROUPS for x in lines) == sorted(EXPENSE_LINES)


def line_groups(ctx: DocContext) -> list[tuple[str, list[str]]]:
    """``(what, lines)``: the services a document may bill, grouped by who provides them (a department's
    services or support, the topic reviews); an expense claim's lines by kind of expense."""
    d = ctx.domain
    if ctx.recipe.slug == "expense_claim":
        return [(what, list(lines)) for what, lines in EXPENSE_GROUPS]
    out = [(f"{dept} services", [f"{dept} services, {item}" for item in d.items]) for dept in d.departments[:3]]
    out += [(f"{dept} support", [f"{item} support ({lower_common(dept)})" for item in d.items[:4]])
            for dept in d.departments[3:]]
    out.append(("reviews", [f"{t.capitalize()} review" for t in d.topics]))
    return out


def _and(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def line_captions(groups: list[str]) -> list[str]:
    what = _and(groups)
    return [f"Line items for {what}", f"Order lines for {what}", f"Charges for {what}"]


def _line_items(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock | None:
    """Invoice/order lines: quantity x unit price = amount (exact), subtotal as a summed total row. The lines of
    a table come from groups of services (a department's, the reviews) no other table of the document bills,
    named in its caption; None when fewer than three lines are left."""
    book = ctx.book
    used = ctx.used("line_items")
    left = [(what, lines) for what, lines in line_groups(ctx) if what not in used]
    taken: list[tuple[str, list[str]]] = []
    for what, lines in rng.shuffled(left):
        if sum(len(x) for _, x in taken) >= n_rows:
            break
        taken.append((what, lines))
    if sum(len(x) for _, x in taken) < 3:
        return None
    chosen: list[tuple[str, str]] = []
    for what, lines in taken:
        chosen += [(what, d) for d in rng.sample(lines, min(len(lines), n_rows - len(chosen)))]
    groups = [what for what, _ in taken]
    captions = _free(ctx, line_captions(groups))
    if not captions:
        return None
    used.update(groups)
    bid = book.block_id()
    amounts: list[Fact] = []
    rows = []
    no = ctx.number("table")
    expense = ctx.recipe.slug == "expense_claim"  # expenses are small and few: a claim is not an order book
    for what, desc in chosen:
        kind = line_kind(what, expense)
        qty, q_qty = line_quantity(ctx, f"{ctx.recipe.slug} of {ctx.anchor.isoformat()}, Table {no}: {desc}", kind)
        price, q_price = unit_price(ctx, desc, kind)
        fq = book.number(f"Quantity of {desc} (Table {no})", qty, "units", group=bid, attribute="quantity",
                         quantity="count", query=q_qty)
        fp = book.money(f"Unit price of {desc} (Table {no})", price, group=bid, attribute="unit_price",
                        quantity="ratio", query=q_price)
        fa = book.money(f"Amount for {desc} (Table {no})", _amount(fq) * _amount(fp), group=bid,
                        attribute="line_amount", derivation=Derivation(op="product", operands=[fq.id, fp.id]))
        amounts.append(fa)
        rows.append([lit(desc), fs(fq), fs(fp), fs(fa)])
    total = book.money(f"Subtotal of the lines in Table {no}", sum((_amount(a) for a in amounts), Decimal(0)), group=bid,
                       attribute="subtotal", derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    rows.append([lit("Subtotal"), lit(""), lit(""), fs(total)])
    caption = ctx.claim_caption(rng.choice(captions))
    return TableBlock(id=bid, caption=f"Table {no}. {caption}",
                      columns=["Description", "Qty", f"Unit price ({ctx.fmt.currency})",
                               f"Amount ({ctx.fmt.currency})"], rows=rows, total_row=True,
                      numeric_columns=[1, 2, 3])


REGISTER_ROWS_A_MONTH = 20
"""How many postings a register lists per month it covers (a long register covers several months)."""
REGISTER_CAPTIONS = ("Transaction register", "Ledger entries", "Schedule of postings")


def _register(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """A dated transaction register (long tables): entries of the issuer's journal (``issuer_books.journal``: their
    numbers, dates, counterparties and amounts are the issuer's, the same in every document that lists them) in
    date order. Each register of a document covers its own whole months, the first ending before the as-at date
    and each later one before the months of the last (so no two registers share a posting date), named in its
    caption."""
    bid = ctx.book.block_id()
    book = ctx.book
    span = max(1, math.ceil(n_rows / REGISTER_ROWS_A_MONTH))
    earliest = ctx.memo.get("register_from")
    last = ctx.cal.last_month - rng.integers(0, 3) if earliest is None else earliest - 1 - rng.integers(0, 2)
    first = last - span + 1
    ctx.memo["register_from"] = first
    entries = [p for m in range(first, last + 1) for p in journal(ctx, m)]
    listed = [entries[i] for i in sorted(rng.sample(range(len(entries)), min(n_rows, len(entries))))]
    no = ctx.number("table")
    amounts: list[Fact] = []
    rows = []
    for i, p in enumerate(listed):
        amt, q = posting_amount(ctx, p)
        fd = book.date(f"Posting date of entry {p.ref}", p.day, group=bid, attribute="posting_date")
        fr = book.ident(f"Reference of entry {i + 1} in the register (Table {no})", p.ref, scheme="reference",
                        group=bid)
        fc = book.org(f"Counterparty of entry {p.ref}", ctx.counterparties[p.counterparty], group=bid,
                      attribute="counterparty")
        fa = book.money(f"Amount of entry {p.ref}", amt, group=bid, attribute="amount", query=q)
        amounts.append(fa)
        rows.append([fs(fd), fs(fr), fs(fc), fs(fa)])
    total = book.money(f"Total of the register in Table {no}", sum((_amount(a) for a in amounts), Decimal(0)), group=bid,
                       attribute="register_total", derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    rows.append([lit("Total"), lit(""), lit(""), fs(total)])
    months = month_label(first) if span == 1 else f"{month_label(first)} to {month_label(last)}"
    kinds = rng.shuffled(REGISTER_CAPTIONS)
    caption = next((c for c in (f"{k}, {months}" for k in kinds) if ctx.caption_free(c)),
                   f"{kinds[0]}, {ctx.fmt.date(listed[0].day)} to {ctx.fmt.date(listed[-1].day)}")
    return TableBlock(id=bid, caption=f"Table {no}. {ctx.claim_caption(caption)}",
                      columns=["Date", "Reference", "Counterparty", f"Amount ({ctx.fmt.currency})"], rows=rows,
                      total_row=True, numeric_columns=[3])


def action_owner_and_due(ctx: DocContext, rng: Rng, action: str):
    """One owner and one due date per action across the whole document (some already due)."""
    return ctx.remember(("action", action), lambda: (ctx.person(rng), ctx.day(rng.integers(-30, 150))))


STATUSES = ("Open", "In progress", "Completed", "On hold", "Overdue")
PAST_DUE = ("Completed", "Overdue")
"""What an action due before the document's date can be (an open action past its date is overdue)."""
NOT_DUE = ("Open", "In progress", "Completed", "On hold")
ACTION_CAPTIONS = ("Action tracker", "Open actions and owners", "Remediation plan")
MIN_ACTIONS = 3
"""The fewest actions an action table lists (fewer left unprinted: another kind of table)."""


def _actions(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock | None:
    """Actions/risks with owner, due date and status (text, person and date facts; no numbers). Each action is
    listed once in a document: None when fewer than ``MIN_ACTIONS`` are left."""
    used = ctx.used("actions")
    left = [a for a in ctx.domain.actions if a not in used]
    captions = _free(ctx, list(ACTION_CAPTIONS))
    if len(left) < MIN_ACTIONS or not captions:
        return None
    bid = ctx.book.block_id()
    book = ctx.book
    acts = rng.sample(left, min(n_rows, len(left)))
    used.update(acts)
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
    caption = ctx.claim_caption(rng.choice(captions))
    return TableBlock(id=bid, caption=f"Table {no}. {caption}", columns=["Action", "Owner", "Due date", "Status"],
                      rows=rows)


PLANNED: dict[TableKind, Callable[[DocContext, Rng, int], TableBlock | None]] = {
    "comparison": _comparison, "share": _share, "line_items": _line_items, "register": _register,
    "actions": _actions,
}
FALLBACKS: dict[TableKind, tuple[TableKind, ...]] = {
    "comparison": ("share", "register"), "share": ("comparison", "register"), "line_items": ("register",),
    "register": (), "actions": ("comparison", "share", "register"),
}
"""What is built instead when a kind has nothing distinct left (``register`` always has: earlier months)."""
TOTAL_ROW: dict[TableKind, bool] = {"comparison": True, "share": True, "line_items": True, "register": True,
                                    "actions": False}
"""Whether a kind may add a summary row under its ``n_rows`` (the planner sizes tables so)."""


MAX_TRIES = 40
"""Tables of one kind built and dropped (their rows happened to repeat a table's) before the next kind."""


def printed_tables(ctx: DocContext) -> list[tuple[list[list[str]], list[str]]]:
    """``(row texts, column headers)`` of every table the builders have put in the document so far."""
    return ctx.remember(("printed_tables",), list)


def repeats_printed(ctx: DocContext, table: TableBlock) -> bool:
    """Whether ``table`` prints rows of a table already in the document (``repeats.repeated_rows``)."""
    rows = body_rows(table)
    return any(repeated_rows(rows, table.columns, r, c) is not None for r, c in printed_tables(ctx))


def distinct_table(kind: TableKind, ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """A table of ``kind`` that repeats no table of the document, or of the first kind in ``FALLBACKS`` that
    still has something distinct to show (sized to the same room: one row fewer where that kind adds a
    summary row and ``kind`` does not). Each builder chooses content the document has not printed; a table
    whose rows still repeat one (small counts that did not move: the same texts by coincidence) is undone
    (``DocContext.rollback``) and its content left out, and the builder chooses again."""
    for k in (kind, *FALLBACKS[kind]):
        rows = max(3, n_rows - 1) if TOTAL_ROW[k] and not TOTAL_ROW[kind] else n_rows
        for _ in range(MAX_TRIES):
            point = ctx.checkpoint()
            table = PLANNED[k](ctx, rng, rows)
            if table is None:
                break
            if not repeats_printed(ctx, table):
                printed_tables(ctx).append((body_rows(table), list(table.columns)))
                return table
            ctx.rollback(point)
    raise AssertionError("a register always has earlier months")  # pragma: no cover


def register_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """A register of postings over months no other register of the document covers (``_register``)."""
    return distinct_table("register", ctx, rng, n_rows)


def comparison_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """A comparison of one metric over two periods (``_comparison``), or another kind when all are printed."""
    return distinct_table("comparison", ctx, rng, n_rows)


def share_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Shares of the whole of one metric over one period (``_share``), or another kind when all are printed."""
    return distinct_table("share", ctx, rng, n_rows)


def line_item_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Invoice/order lines (``_line_items``), or a register when every group of lines is billed."""
    return distinct_table("line_items", ctx, rng, n_rows)


def action_table(ctx: DocContext, rng: Rng, n_rows: int) -> TableBlock:
    """Actions with owners, due dates and statuses (``_actions``), or a comparison when fewer than
    ``MIN_ACTIONS`` actions are left to list."""
    return distinct_table("actions", ctx, rng, n_rows)


TABLE_BUILDERS: dict[TableKind, Callable[[DocContext, Rng, int], TableBlock]] = {
    "comparison": comparison_table, "share": share_table, "line_items": line_item_table,
    "register": register_table, "actions": action_table,
}
"""One builder per ``ir.vocab.TableKind`` (a test checks the keys are the vocabulary); each returns a table that
repeats no other table of the document (``generation.content.repeats``)."""
