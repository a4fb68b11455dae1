"""Genre blocks of trade documents: invoices, purchase orders, expense claims, grant applications, budget
proposals and the approval chains of form packs.

What each prints and how its numbers follow from one another:

- ``invoice_header`` / ``order_header``: the document's number, its dates (an invoice is dated the day it is
  issued and falls due ``net`` days later; an order asks for delivery after it is placed), the customer's
  account and order references, the buyer's contact.
- ``trade_parties``: seller (supplier), buyer (bill-to) and ship-to (deliver-to), each with its address and
  its VAT or tax number in the shape of its country.
- ``invoice_lines`` / ``order_lines``: quantity x unit price = amount (``product``; the unit price is the issuer's
  price list's, the quantity what its world booked for the document's line: ``issuer_books``), the subtotal (``sum``), tax
  at the rate of the seller's country (``percent_of``; a reverse charge or an export at 0.0%, US sales tax at
  the ship-to city's rate) and the total (``sum``).
- ``payment_terms``: the terms in days (``days_between`` the invoice and due dates), the amount due (a
  ``quote`` of the invoice total), late-payment interest at the rate the seller's law sets, an early
  settlement discount now and then (``percent_of`` the amount due).
- ``bank_details``: where to pay, with an IBAN whose check digits hold (mod 97), a UK sort code and account,
  or a US routing number whose checksum holds; the payment reference is the invoice number.
- ``delivery_schedule``: the order's deliveries in date order; a delivery's quantity is the ``sum`` of the
  order lines it brings, the total quantity the ``sum`` of the deliveries.
- ``approval_chain``: who prepared, reviewed, approved and authorised the document, in date order; on orders
  and claims each approver's authority limit under the issuer's delegation (``issuer_books.delegation``, the same in
  every document), the last covering the document's total.
- ``claimant`` / ``expense_lines``: the claimant and claim period; receipts dated within it, a mileage line
  whose amount is distance x rate (``product``), the total (``sum``) and what is due after an advance
  (``difference``).
- ``applicant_details`` / ``grant_budget`` / ``declarations``: the applicant and its request; the budget by
  line and year, row totals and column totals (``sum``), indirect costs at the stated overhead rate of the
  direct costs (``percent_of``); the amount requested quotes the budget's grand total (``quote``).
- ``budget_vs_baseline``: each line's baseline and proposed budget, the change (``difference``) and the
  change in percent (``percent_change``), totals of both and of the changes (``sum``).

Values several blocks print (the invoice's dates and total, an order's deliveries, a claim's period, a
grant's budget) are planned once per document (``DocContext.remember``), so each block states the same ones
whichever is built first; a fact that quotes one not made yet is tied to it when it is (``FactBook.tie``).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir import values
from synthdocqa.ir.blocks import Block, Checkbox, FormBlock, FormField, Span, TableBlock, TextBlock
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from .. import countries as conventions
from .. import issuer_books
from ..book import DocContext, FactBook, fs, lit
from ..countries import draw_id
from ..issuer_books import authority_limit, delegation, line_kind, line_quantity, seniority, unit_price
from ..names import address as postal_address
from ..repeats import body_rows
from ..tables import line_captions, line_groups, printed_tables
from ..wording import for_count, lower_common
from . import Builder

US_SALES_TAX = {ct.name: ct.sales_tax for c in conventions.countries().values() for ct in c.cities
                if ct.sales_tax is not None}
"""Combined state and local sales tax of the ship-to city (US sales tax is due where goods are delivered)."""
NET_DAYS = (14, 30, 30, 30, 45, 60)


# ---------------------------------------------------------------- small helpers

def _places(ctx: DocContext) -> Decimal:
    return Decimal(1).scaleb(-ctx.fmt.money_decimals)


def _money_round(ctx: DocContext, x: Decimal) -> Decimal:
    return x.quantize(_places(ctx), rounding=ROUND_HALF_EVEN)


def _amount(f: Fact) -> Decimal:
    v = f.value
    return v.amount if v.kind == "money" else v.value


def _price(ctx: DocContext, rng: Rng, low: int, high: int, step: int) -> Decimal:
    """A price a clerk would quote: a multiple of ``step`` (with cents now and then where money shows them)."""
    p = Decimal(max(1, rng.integers(low // step, high // step + 1)) * step)
    if ctx.fmt.money_decimals and step <= 10 and rng.bernoulli(0.3):
        p += Decimal(rng.choice((25, 50, 75, 95))) / 100
    return _money_round(ctx, p)


def _digits(rng: Rng, n: int) -> str:
    return "".join(str(rng.integers(0, 10)) for _ in range(n))


def _letters(rng: Rng, n: int, alphabet: str = "ABCDEFGHJKLMNPRSTUVWXYZ") -> str:
    return "".join(alphabet[rng.integers(0, len(alphabet))] for _ in range(n))


def _rate(book: FactBook, label: str, value: Decimal, **kw) -> Fact:
    """A percentage as stated: one decimal (``20.0%``) through ``FactBook.percent``, a rate with more places
    (US sales tax ``8.875%``) as it is written."""
    if value == value.quantize(Decimal("0.1")):
        return book.percent(label, value, **kw)
    return book.add(label, values.PercentValue(value=value), f"{value.normalize()}%", quantity="rate", **kw)


def _caption(ctx: DocContext, options: list[str]) -> str:
    """The first of ``options`` no block of the document carries yet (claimed), numbered as the genre numbers
    its tables: reports number them, transactional documents do not."""
    text = next((c for c in options if ctx.caption_free(c)), None)
    if text is None:
        k = 2
        while not ctx.caption_free(f"{options[0]}, part {k}"):
            k += 1
        text = f"{options[0]}, part {k}"
    ctx.claim_caption(text)
    if ctx.recipe.genre_class == "report":
        return f"Table {ctx.number('table')}. {text}"
    return text


def _title(ctx: DocContext, options: list[str]) -> str:
    """A form title no block of the document carries yet (claimed)."""
    text = next((c for c in options if ctx.caption_free(c)), None) or f"{options[0]} ({ctx.doc_reference()})"
    return ctx.claim_caption(text)


def _foreign_reference(ctx: DocContext, rng: Rng, prefix: str) -> str:
    """Another organisation's reference (a customer's order number, a supplier's quote), numbered in that
    organisation's own series (``ctx.reference`` would give the document's own digits): ``PO-2026-48213``, or
    ``PO/2026/48213`` where the document's reference has that shape."""
    number = f"{rng.integers(1, 10)}{_digits(rng, 4)}"
    if ctx.doc_reference().split("-")[0] == prefix:
        return f"{prefix}/{ctx.year}/{number}"
    return f"{prefix}-{ctx.year}-{number}"


def _what(ctx: DocContext) -> str:
    """The document named in labels: ``invoice INV-2026-41234``."""
    return f"{ctx.recipe.noun} {ctx.doc_reference()}"


def _quote(ctx: DocContext, key: str, fact: Fact) -> None:
    """``fact`` is the source that later facts quote (its id remembered as ``("trade", key)``); the facts made
    before it that quote it are tied to it now."""
    ctx.remember(("trade", key), lambda: fact.id)
    for fid in ctx.memo.pop(("trade", key, "quoting"), []):
        ctx.book.tie(fid, fact.id)


def _source(ctx: DocContext, key: str) -> Fact | None:
    """The fact remembered as ``("trade", key)`` (the invoice total, a grant's grand total), if made yet."""
    fid = ctx.memo.get(("trade", key))
    return ctx.book.by_id.get(fid) if fid else None


def _quoting(ctx: DocContext, key: str, fact: Fact) -> None:
    """``fact`` quotes the source ``key`` that is not made yet (``_quote`` ties it)."""
    ctx.memo.setdefault(("trade", key, "quoting"), []).append(fact.id)


def _prefer(rng: Rng, entities: list[Entity], roles: tuple[str, ...]) -> Entity:
    fitting = [e for e in entities if e.role in roles]
    return rng.choice(fitting or entities)


def _country(e: Entity) -> str:
    return conventions.country_of(e.attributes).name


# ---------------------------------------------------------------- identifiers of the trade

def tax_number(rng: Rng, country: str) -> tuple[str, str]:
    """``(number, scheme)``: a VAT registration number in the country's shape, or a US EIN."""
    c = conventions.country(country)
    return draw_id(c.tax_id.pattern, rng), c.tax_id.scheme


def _tax_id(ctx: DocContext, rng: Rng, e: Entity) -> tuple[str, str]:
    return ctx.remember(("tax_id", e.id), lambda: tax_number(rng.fork("org", e.id), _country(e)))


def iban(country_code: str, bban: str) -> str:
    """The IBAN of a domestic account number (ISO 13616: check digits so that the number mod 97 is 1)."""
    digits = "".join(str(int(c, 36)) for c in bban + country_code + "00")
    return f"{country_code}{98 - int(digits) % 97:02d}{bban}"


def iban_ok(text: str) -> bool:
    s = text.replace(" ", "")
    return int("".join(str(int(c, 36)) for c in s[4:] + s[:4])) % 97 == 1


def bban(rng: Rng, code: str, bank4: str) -> str:
    """A domestic account number (BBAN) of the country ``code`` in its format."""
    c = conventions.by_iso2(code)
    if c.iban is None:
        raise ValueError(f"no BBAN format for {code}")
    return draw_id(c.iban.bban, rng, bank4=bank4)


def aba_routing(rng: Rng) -> str:
    """A nine-digit ABA routing number whose check digit holds (weights 3, 7, 1)."""
    d = [int(c) for c in f"{rng.integers(1, 13):02d}{_digits(rng, 6)}"]
    s = 3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + (d[2] + d[5])
    return "".join(map(str, d)) + str((10 - s % 10) % 10)


def aba_ok(text: str) -> bool:
    d = [int(c) for c in text]
    return len(d) == 9 and (3 * (d[0] + d[3] + d[6]) + 7 * (d[1] + d[4] + d[7]) + d[2] + d[5] + d[8]) % 10 == 0


@dataclass(frozen=True)
class Account:
    bank: str
    bic: str
    iban: str = ""
    sort_code: str = ""
    account: str = ""
    routing: str = ""


def _account(ctx: DocContext, rng: Rng) -> Account:
    """The issuer's bank account, in the form its country's banks give it."""
    def make() -> Account:
        country = conventions.country(_country(ctx.issuer))
        code = country.iso2
        names = {e.name for e in ctx.book.entities}
        bank, bank4 = rng.choice([(b.name, b.bic4) for b in country.banks if b.name not in names])
        loc = _letters(rng, 1) + rng.choice("23456789ABCDEFGHJKLMNPRSTUVWXYZ")
        bic = bank4 + code + loc + (rng.choice(("XXX", _letters(rng, 1) + _digits(rng, 2))) if rng.bernoulli(0.5)
                                    else "")
        if country.iban is None:  # a US account: routing and account number
            return Account(bank, bic, routing=aba_routing(rng), account=_digits(rng, rng.integers(10, 13)))
        b = bban(rng, code, bank4)
        if code == "GB":
            return Account(bank, bic, iban=iban(code, b), sort_code=f"{b[4:6]}-{b[6:8]}-{b[8:10]}", account=b[10:])
        return Account(bank, bic, iban=iban(code, b))
    return ctx.remember(("trade", "account"), make)


def grouped(text: str) -> str:
    """An IBAN as printed: groups of four."""
    return " ".join(text[i:i + 4] for i in range(0, len(text), 4))


# ---------------------------------------------------------------- the parties

@dataclass(frozen=True)
class Parties:
    seller: Entity
    buyer: Entity
    ship_name: Entity
    """Who receives the delivery (the buyer on an invoice, the issuer on an order)."""
    ship_address: str
    ship_city: str


SITES = ("Goods Inward", "Distribution Centre", "Receiving Dock", "Central Stores", "Warehouse 2")


def _parties(ctx: DocContext, rng: Rng) -> Parties:
    """Seller, buyer and the delivery address of the document (one set per document)."""
    def make() -> Parties:
        if ctx.recipe.slug == "purchase_order":
            seller = _prefer(rng, ctx.counterparties, ("supplier", "contractor"))
            buyer = receiver = ctx.issuer
        else:
            seller = ctx.issuer
            buyer = receiver = _prefer(rng, ctx.counterparties, ("customer", "partner"))
        if rng.bernoulli(0.5):  # delivered to the registered address
            return Parties(seller, buyer, receiver, receiver.attributes["full"], receiver.attributes["city"])
        site = postal_address(rng.fork("address"), _country(receiver))
        return Parties(seller, buyer, receiver, f"{rng.choice(SITES)}, {site['full']}", site["city"])
    return ctx.remember(("trade", "parties"), make)


# ---------------------------------------------------------------- tax

@dataclass(frozen=True)
class Tax:
    name: str
    rate: Decimal
    note: str = ""

    @property
    def attribute(self) -> str:
        return "sales_tax_rate" if self.name == "Sales tax" else "vat_rate"


def _tax(ctx: DocContext, rng: Rng) -> Tax:
    """The tax the seller charges: its country's VAT, nothing on a cross-border supply (reverse charge inside
    Europe, an export outside it), US sales tax at the rate of the city delivered to."""
    def make() -> Tax:
        p = _parties(ctx, rng)
        seller, buyer = conventions.country(_country(p.seller)), conventions.country(_country(p.buyer))
        if seller.vat_rate is None:  # sales tax, due where the goods are delivered
            if buyer.name != seller.name:
                return Tax("Sales tax", Decimal("0.0"), "export")
            return Tax("Sales tax", US_SALES_TAX.get(p.ship_city, Decimal("8.0")))
        if seller.name != buyer.name:
            return Tax("VAT", Decimal("0.0"), "reverse charge" if buyer.region == "europe" else "export")
        return Tax("VAT", seller.vat_rate)
    return ctx.remember(("trade", "tax"), make)


def _tax_query(ctx: DocContext, rng: Rng, tax: Tax) -> WorldQuery:
    """The tax rate as the issuer's world holds its jurisdiction's rule: the seller's country and tax, the
    treatment of a cross-border supply, and the city for a US sales tax."""
    p = _parties(ctx, rng)
    where = f", {tax.note}" if tax.note else (f", {p.ship_city}" if tax.name == "Sales tax" else "")
    value, query = issuer_books.convention(ctx, "tax_rate", f"{_country(p.seller)} {tax.name}{where}", tax.rate)
    assert value == tax.rate
    return query


def _tax_label(tax: Tax, rate: Fact) -> str:
    return f"{tax.name} at {rate.text}{f' ({tax.note})' if tax.note else ''}"


# ---------------------------------------------------------------- the lines of an invoice or order

@dataclass(frozen=True)
class Line:
    description: str
    qty: Decimal
    price: Decimal
    delivery: int = 0
    """Which delivery of an order brings it (0-based)."""
    queries: tuple[WorldQuery, WorldQuery] | None = None
    """What the issuer's world answers for the quantity (booked for the document's line) and the unit price (its
    price list's)."""

    @property
    def amount(self) -> Decimal:
        return self.qty * self.price


@dataclass(frozen=True)
class Lines:
    groups: tuple[str, ...]
    lines: tuple[Line, ...]

    def subtotal(self) -> Decimal:
        return sum((ln.amount for ln in self.lines), Decimal(0))


def _line(ctx: DocContext, group: str, description: str, delivery: int) -> Line:
    """A line at the issuer's price list: days at a day rate for services, months of support at a monthly fee, a
    fixed fee for a review (``issuer_books``); its quantity is booked for the document's line."""
    kind = line_kind(group)
    qty, q_qty = line_quantity(ctx, f"{ctx.doc_reference()} {description}", kind)
    price, q_price = unit_price(ctx, description, kind)
    return Line(description, qty, _money_round(ctx, price), delivery, (q_qty, q_price))


def _lines(ctx: DocContext, rng: Rng) -> Lines:
    """The lines the document bills or orders: 3 to 10 services from one to three groups (a department's
    services, support, reviews) no other table of the document bills (``tables.line_groups``)."""
    def make() -> Lines:
        used = ctx.used("line_items")
        groups = [(what, lines) for what, lines in line_groups(ctx) if what not in used] or line_groups(ctx)
        n = rng.integers(3, 11)
        k = min(len(groups), rng.choice((1, 2, 2, 3)))
        taken = rng.sample(groups, k)
        chosen: list[tuple[str, str]] = []
        for j, (what, lines) in enumerate(taken):
            quota = n - len(chosen) if j == k - 1 else max(1, n // k)
            chosen += [(what, d) for d in rng.sample(lines, min(len(lines), quota))]
        for what, lines in taken:  # too few: more of each group
            more = [d for d in lines if (what, d) not in chosen]
            chosen += [(what, d) for d in more[:max(0, 3 - len(chosen))]]
        n_deliveries = min(len(chosen), rng.integers(1, 4))
        out = []
        for i, (what, desc) in enumerate(chosen):
            out.append(_line(ctx, what, desc, min(i * n_deliveries // len(chosen), n_deliveries - 1)))
        used.update(what for what, _ in taken)
        return Lines(tuple(what for what, _ in taken), tuple(out))
    return ctx.remember(("trade", "lines"), make)


def _totals(ctx: DocContext, rng: Rng) -> tuple[Decimal, Decimal, Decimal]:
    """``(subtotal, tax, total)`` of the document's lines."""
    sub = _lines(ctx, rng).subtotal()
    tax = _money_round(ctx, sub * _tax(ctx, rng).rate / 100)
    return sub, tax, sub + tax


# ---------------------------------------------------------------- an invoice's dates

@dataclass(frozen=True)
class InvoiceDates:
    invoice_date: dt.date
    due_date: dt.date
    days: int


def _invoice_dates(ctx: DocContext, rng: Rng) -> InvoiceDates:
    """The invoice is dated the day it is issued and falls due ``days`` later (the payment-terms paragraph of
    the general prose states the same terms)."""
    def make() -> InvoiceDates:
        terms = ctx.memo.get("terms")
        net, issued = (terms[0], terms[1]) if terms else (rng.choice(NET_DAYS), ctx.anchor)
        return InvoiceDates(issued, issued + dt.timedelta(days=net), net)
    dates = ctx.remember(("invoice", "dates"), make)
    ctx.remember("terms", lambda: (dates.days, dates.invoice_date, ctx.doc_reference(), _parties(ctx, rng).buyer))
    return dates


# ---------------------------------------------------------------- an order's dates and deliveries

@dataclass(frozen=True)
class OrderPlan:
    order_date: dt.date
    deliveries: tuple[dt.date, ...]
    contact: Entity

    @property
    def required_by(self) -> dt.date:
        return self.deliveries[-1]


def _order(ctx: DocContext, rng: Rng) -> OrderPlan:
    def make() -> OrderPlan:
        lines = _lines(ctx, rng)
        n = max(ln.delivery for ln in lines.lines) + 1
        ordered = ctx.day(-rng.integers(0, 4))
        first = max(ordered + dt.timedelta(days=rng.integers(7, 29)), ctx.day(rng.integers(3, 10)))
        days = [first]
        for _ in range(n - 1):
            days.append(days[-1] + dt.timedelta(days=rng.integers(7, 29)))
        buyers = [p for p in ctx.people if any(w in p.role for w in ("Procurement", "Purchasing", "Buyer",
                                                                       "Category", "Sourcing"))]
        return OrderPlan(ordered, tuple(days), rng.choice(buyers or ctx.people))
    return ctx.remember(("order", "plan"), make)


# ---------------------------------------------------------------- invoice_header, order_header

def build_invoice_header(ctx: DocContext, rng: Rng) -> list[Block]:
    """Invoice number, invoice and due dates, the customer's account number and order reference."""
    ref = ctx.doc_reference()
    dates = _invoice_dates(ctx, rng)
    buyer = _parties(ctx, rng).buyer
    account = ctx.remember(("trade", "customer_account", buyer.id), lambda: rng.choice(
        (f"C{_digits(rng, 6)}", f"CUST-{_digits(rng, 5)}", f"{buyer.name[:3].upper()}{_digits(rng, 4)}")))
    po = ctx.remember(("trade", "customer_po"), lambda: f"4500{_digits(rng, 6)}" if rng.bernoulli(0.3)
                      else _foreign_reference(ctx, rng, "PO"))
    title = _title(ctx, ["Invoice", "Tax invoice"])
    bid = ctx.book.block_id()
    b = ctx.book
    fields = [
        FormField(label="Invoice no.", value=fs(b.ident("Invoice number", ref, scheme="invoice_number",
                                                        attribute="invoice_number", group=bid)),
                  field_type="identifier"),
        FormField(label="Invoice date", value=fs(b.date(f"Invoice date of invoice {ref}", dates.invoice_date,
                                                        attribute="invoice_date", group=bid)), field_type="date"),
        FormField(label="Due date", value=fs(b.date(f"Due date of invoice {ref}", dates.due_date,
                                                    attribute="due_date", group=bid)), field_type="date"),
        FormField(label="Customer account no.", value=fs(b.ident(
            f"Customer account number of {buyer.name}", account, scheme="customer_account", subject=buyer.id,
            attribute="customer_account", group=bid)), field_type="identifier"),
        FormField(label="Your order ref.", value=fs(b.ident(
            f"Purchase order reference of {buyer.name} quoted on invoice {ref}", po, scheme="purchase_order",
            attribute="customer_po", group=bid)), field_type="identifier"),
    ]
    ctx.memo[("invoice", "date_fact")] = fields[1].value.fact_ids[0]
    return [FormBlock(id=bid, title=title, fields=fields)]


def build_order_header(ctx: DocContext, rng: Rng) -> list[Block]:
    """Order number and date, the date delivery is required by, the buyer's contact, the supplier's quote."""
    ref = ctx.doc_reference()
    plan = _order(ctx, rng)
    supplier = _parties(ctx, rng).seller
    quote = ctx.remember(("order", "quote"), lambda: _foreign_reference(ctx, rng, "QT"))
    title = _title(ctx, ["Purchase Order", "Purchase Order (Services)"])
    bid = ctx.book.block_id()
    b = ctx.book
    c = plan.contact
    fields = [
        FormField(label="PO number", value=fs(b.ident("Purchase order number", ref, scheme="purchase_order",
                                                      attribute="po_number", group=bid)), field_type="identifier"),
        FormField(label="Order date", value=fs(b.date(f"Order date of purchase order {ref}", plan.order_date,
                                                      attribute="order_date", group=bid)), field_type="date"),
        FormField(label="Delivery required by", value=fs(b.date(
            f"Date delivery is required by under purchase order {ref}", plan.required_by,
            attribute="required_by", group=bid)), field_type="date"),
        FormField(label="Buyer contact", value=fs(b.person(f"Buyer contact for purchase order {ref}", c,
                                                           attribute="buyer_contact", group=bid)),
                  field_type="person"),
    ]
    if c.attributes.get("email"):
        fields.append(FormField(label="Contact e-mail", value=fs(b.text(
            f"E-mail address of {c.name}", c.attributes["email"], subject=c.id, attribute="email", group=bid))))
    fields.append(FormField(label="Supplier quote ref.", value=fs(b.ident(
        f"Quotation reference of {supplier.name} for purchase order {ref}", quote, scheme="quotation",
        attribute="supplier_quote", group=bid)), field_type="identifier"))
    return [FormBlock(id=bid, title=title, fields=fields)]


# ---------------------------------------------------------------- trade_parties

def build_trade_parties(ctx: DocContext, rng: Rng) -> list[Block]:
    """Seller (supplier), buyer (bill-to) and ship-to (deliver-to): name, address, VAT or tax number."""
    p = _parties(ctx, rng)
    order = ctx.recipe.slug == "purchase_order"
    what = _what(ctx)
    ids = {e.id: _tax_id(ctx, rng, e) for e in (p.seller, p.buyer)}
    schemes = {scheme for _, scheme in ids.values()}
    tax_header = "EIN" if schemes == {"ein"} else "VAT no." if schemes == {"vat"} else "VAT / tax ID"
    caption = _caption(ctx, ["Supplier, buyer and delivery address", "Parties to the order"] if order else
                       ["Seller, customer and delivery address", "Parties to the invoice"])
    bid = ctx.book.block_id()
    b = ctx.book
    roles = ((("Supplier", p.seller, "supplier", f"Supplier on {what}"),
              ("Invoice to", p.buyer, "bill_to", f"Party invoiced under {what}"),
              ("Deliver to", p.ship_name, "ship_to", f"Party delivered to under {what}")) if order else
             (("Seller", p.seller, "seller", f"Seller on {what}"),
              ("Bill to", p.buyer, "bill_to", f"Customer billed on {what}"),
              ("Ship to", p.ship_name, "ship_to", f"Ship-to party on {what}")))
    rows = []
    for head, e, attr, label in roles:
        name = fs(b.org(label, e, attribute=attr, group=bid))
        if attr == "ship_to":  # a delivery address: no tax number of its own
            rows.append([lit(head), name, fs(b.text(f"Delivery address for {what}", p.ship_address, subject=e.id,
                                                    attribute="delivery_address", group=bid)), lit("")])
            continue
        where = b.text(f"Registered address of {e.name}", e.attributes["full"], subject=e.id,
                       attribute="registered_address", group=bid)
        number, scheme = ids[e.id]
        tax = b.ident(f"{'EIN' if scheme == 'ein' else 'VAT registration number'} of {e.name}", number,
                      scheme=scheme, subject=e.id, attribute="tax_id" if scheme == "ein" else "vat_number",
                      group=bid)
        rows.append([lit(head), name, fs(where), fs(tax)])
    return [TableBlock(id=bid, caption=caption, columns=["Party", "Name", "Address", tax_header], rows=rows)]


# ---------------------------------------------------------------- invoice_lines, order_lines

def _lines_table(ctx: DocContext, rng: Rng, order: bool) -> list[Block]:
    lines = _lines(ctx, rng)
    tax_plan = _tax(ctx, rng)
    plan = _order(ctx, rng) if order else None
    what = _what(ctx)
    caption = _caption(ctx, [c for c in line_captions(list(lines.groups)) if order == c.startswith("Order")] +
                       line_captions(list(lines.groups)))
    bid = ctx.book.block_id()
    b = ctx.book
    rows: list[list[Span]] = []
    amounts: list[Fact] = []
    qty_ids: dict[int, list[str]] = {}
    blank = [lit("")] if order else []
    for ln in lines.lines:
        q_qty, q_price = ln.queries if ln.queries else (None, None)
        fq = b.number(f"Quantity of {ln.description} on {what}", ln.qty, "units", quantity="count",
                      attribute="quantity", group=bid, query=q_qty)
        fp = b.money(f"Unit price of {ln.description} on {what}", ln.price, quantity="ratio",
                     attribute="unit_price", group=bid, query=q_price)
        fa = b.money(f"Amount for {ln.description} on {what}", ln.amount, attribute="line_amount", group=bid,
                     derivation=Derivation(op="product", operands=[fq.id, fp.id]))
        amounts.append(fa)
        qty_ids.setdefault(ln.delivery, []).append(fq.id)
        row = [lit(ln.description)]
        if plan is not None:
            row.append(fs(b.date(f"Delivery date of {ln.description} under {what}", plan.deliveries[ln.delivery],
                                 attribute="delivery_date", group=bid)))
        rows.append(row + [fs(fq), fs(fp), fs(fa)])
    sub = b.money(f"Subtotal of {what}", sum((_amount(a) for a in amounts), Decimal(0)), attribute="subtotal",
                  group=bid, derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    rate = _rate(b, f"{tax_plan.name} rate charged on {what}", tax_plan.rate, attribute=tax_plan.attribute,
                 group=bid, query=_tax_query(ctx, rng, tax_plan))
    tax = b.money(f"{tax_plan.name} charged on {what}", _money_round(ctx, _amount(sub) * tax_plan.rate / 100),
                  attribute="tax_amount", group=bid, derivation=Derivation(op="percent_of", operands=[sub.id, rate.id]))
    total = b.money(f"Total of {what}", _amount(sub) + _amount(tax), attribute="total", group=bid,
                    derivation=Derivation(op="sum", operands=[sub.id, tax.id]))
    rows.append([lit("Subtotal"), *blank, lit(""), lit(""), fs(sub)])
    rows.append([Span(text=_tax_label(tax_plan, rate), fact_ids=[rate.id]), *blank, lit(""), lit(""), fs(tax)])
    rows.append([lit("Total"), *blank, lit(""), lit(""), fs(total)])
    ctx.memo[("order", "quantities")] = qty_ids
    _quote(ctx, "total", total)
    cur = ctx.fmt.currency
    columns = ["Description", *(["Delivery date"] if order else []), "Qty", f"Unit price ({cur})", f"Amount ({cur})"]
    table = TableBlock(id=bid, caption=caption, columns=columns, rows=rows, total_row=False,
                       numeric_columns=list(range(len(columns) - 3, len(columns))))
    printed_tables(ctx).append((body_rows(table), list(table.columns)))
    return [table]


def build_invoice_lines(ctx: DocContext, rng: Rng) -> list[Block]:
    """Description, Qty, Unit price, Amount (= qty x price); Subtotal, tax at the stated rate, Total."""
    return _lines_table(ctx, rng, order=False)


def build_order_lines(ctx: DocContext, rng: Rng) -> list[Block]:
    """The invoice's columns and a delivery date per line (the date of the delivery that brings it)."""
    return _lines_table(ctx, rng, order=True)


# ---------------------------------------------------------------- payment_terms

def _late_interest(ctx: DocContext) -> tuple[Decimal, str, str]:
    """``(rate, before, after)``: the late-payment interest the seller's law allows, as its invoices word it."""
    late = conventions.country(_country(ctx.issuer)).late_interest
    before, _, after = late.sentence.partition("{rate}")
    return late.rate, before, after


def build_payment_terms(ctx: DocContext, rng: Rng) -> list[Block]:
    """The terms in days, the amount due (the invoice total) and its due date; late-payment interest, a fixed
    recovery charge in the EU, an early settlement discount now and then."""
    ref = ctx.doc_reference()
    dates = _invoice_dates(ctx, rng)
    total = _source(ctx, "total")
    due_value = _amount(total) if total is not None else _totals(ctx, rng)[2]
    b = ctx.book
    bid = b.block_id()
    due = b.date(f"Due date of invoice {ref}", dates.due_date, attribute="due_date", group=bid)
    issued = ctx.memo.get(("invoice", "date_fact"))
    days = b.number(f"Payment term of invoice {ref} in days", Decimal(dates.days), "days", quantity="duration",
                    attribute="payment_term", group=bid,
                    derivation=Derivation(op="days_between", operands=[issued, due.id]) if issued else None)
    amount = b.money(f"Amount due on invoice {ref}", due_value, attribute="amount_due", group=bid,
                     derivation=Derivation(op="quote", operands=[total.id]) if total is not None else None)
    if total is None:
        _quoting(ctx, "total", amount)
    first = TextBlock(id=bid, spans=[
        lit("Terms: "), fs(days), lit(" days net from the date of invoice. Please pay "), fs(amount), lit(" by "),
        fs(due), lit(", quoting the invoice number as the payment reference.")])
    bid2 = b.block_id()
    rate_v, before, after = _late_interest(ctx)
    _, q_rate = issuer_books.convention(ctx, "late_interest", _country(ctx.issuer), rate_v)
    rate = b.percent(f"Late payment interest rate on invoice {ref}", rate_v, attribute="late_payment_interest",
                     group=bid2, query=q_rate)
    spans = [lit(before), fs(rate), lit(after)]
    charge = conventions.country(_country(ctx.issuer)).late_interest.recovery_charge
    if charge is not None and ctx.fmt.currency == "EUR":  # a fixed sum for the costs of recovery (in EUR)
        _, q_fee = issuer_books.convention(ctx, "recovery_charge", _country(ctx.issuer), charge)
        fee = b.money(f"Fixed recovery charge per late payment on invoice {ref}", charge, attribute="recovery_fee",
                      group=bid2, query=q_fee)
        spans += [lit(" A fixed charge of "), fs(fee), lit(" applies to each late payment for the costs of recovery.")]
    if dates.days >= 30 and rng.bernoulli(0.4):
        rate_d, q_d = issuer_books.level(ctx, "trade.early_settlement_discount", "early settlement",
                                         lambda r: Decimal(r.choice(("1.5", "2.0", "2.5"))))  # the issuer's terms
        disc = b.percent(f"Early settlement discount rate on invoice {ref}", rate_d,
                         attribute="early_settlement_discount", group=bid2, query=q_d)
        disc_amt = b.money(f"Early settlement discount on invoice {ref}",
                           _money_round(ctx, due_value * _amount(disc) / 100), attribute="discount_amount", group=bid2,
                           derivation=Derivation(op="percent_of", operands=[amount.id, disc.id]))
        by = b.date(f"Last day for the early settlement discount on invoice {ref}",
                    dates.invoice_date + dt.timedelta(days=10), attribute="discount_date", group=bid2)
        spans += [lit(" A settlement discount of "), fs(disc), lit(" ("), fs(disc_amt),
                  lit(") may be deducted if payment is received by "), fs(by), lit(".")]
    return [first, TextBlock(id=bid2, spans=spans)]


# ---------------------------------------------------------------- bank_details

def build_bank_details(ctx: DocContext, rng: Rng) -> list[Block]:
    """Beneficiary, bank, the account as the currency's payments need it (IBAN; UK sort code and account;
    US routing and account number), BIC/SWIFT, and the invoice number as the payment reference."""
    ref = ctx.doc_reference()
    acct = _account(ctx, rng)
    title = _title(ctx, ["Remittance details", "Payment details"])
    bid = ctx.book.block_id()
    b = ctx.book
    who = ctx.issuer
    fields = [
        FormField(label="Beneficiary", value=fs(b.org(f"Beneficiary of payments for invoice {ref}", who,
                                                      attribute="beneficiary", group=bid))),
        FormField(label="Bank", value=fs(b.text(f"Bank of {who.name}", acct.bank, subject=who.id, attribute="bank",
                                                group=bid))),
    ]
    if acct.sort_code:
        fields.append(FormField(label="Sort code", value=fs(b.ident(
            f"Sort code of the account of {who.name}", acct.sort_code, scheme="sort_code", subject=who.id,
            group=bid)), field_type="identifier"))
    if acct.routing:
        fields.append(FormField(label="ABA routing no.", value=fs(b.ident(
            f"ABA routing number of the account of {who.name}", acct.routing, scheme="aba_routing", subject=who.id,
            group=bid)), field_type="identifier"))
    if acct.account:
        fields.append(FormField(label="Account no.", value=fs(b.ident(
            f"Account number of {who.name}", acct.account, scheme="account_number", subject=who.id, group=bid)),
            field_type="identifier"))
    if acct.iban:
        fields.append(FormField(label="IBAN", value=fs(b.ident(
            f"IBAN of the account of {who.name}", grouped(acct.iban), scheme="iban", subject=who.id, group=bid)),
            field_type="identifier"))
    fields.append(FormField(label="BIC / SWIFT", value=fs(b.ident(
        f"BIC of the bank of {who.name}", acct.bic, scheme="bic", subject=who.id, group=bid)),
        field_type="identifier"))
    fields.append(FormField(label="Payment reference", value=fs(b.ident(
        f"Payment reference to quote for invoice {ref}", ref, scheme="payment_reference",
        attribute="payment_reference", group=bid)), field_type="identifier"))
    return [FormBlock(id=bid, title=title, fields=fields)]


# ---------------------------------------------------------------- delivery_schedule

def _items_delivered(descriptions: list[str]) -> str:
    if len(descriptions) == 1:
        return descriptions[0]
    if len(descriptions) == 2:
        return f"{descriptions[0]}; {descriptions[1]}"
    rest = len(descriptions) - 2
    return f"{descriptions[0]}; {descriptions[1]} and {rest} other {for_count(rest, 'line')}"


def build_delivery_schedule(ctx: DocContext, rng: Rng) -> list[Block]:
    """Delivery no., date (ascending, after the order date), the lines it brings, their quantity (the sum of
    the lines' quantities) and the city delivered to; the total quantity."""
    ref = ctx.doc_reference()
    lines = _lines(ctx, rng)
    plan = _order(ctx, rng)
    p = _parties(ctx, rng)
    second = rng.bernoulli(0.3) and p.ship_city != ctx.issuer.attributes["city"] and len(plan.deliveries) > 1
    qty_ids = ctx.memo.get(("order", "quantities"), {})
    caption = _caption(ctx, ["Delivery schedule", "Scheduled deliveries"])
    bid = ctx.book.block_id()
    b = ctx.book
    rows = []
    counts: list[Fact] = []
    for k, day in enumerate(plan.deliveries):
        mine = [ln for ln in lines.lines if ln.delivery == k]
        fd = b.date(f"Date of delivery {k + 1} under purchase order {ref}", day, attribute="delivery_date", group=bid)
        fi = b.text(f"Lines delivered in delivery {k + 1} under purchase order {ref}",
                    _items_delivered([ln.description for ln in mine]), attribute="lines_delivered", group=bid)
        ops = qty_ids.get(k)
        fq = b.number(f"Quantity in delivery {k + 1} under purchase order {ref}",
                      sum((ln.qty for ln in mine), Decimal(0)), "units", quantity="count", attribute="quantity",
                      group=bid, derivation=Derivation(op="sum", operands=ops) if ops else None)
        city = ctx.issuer.attributes["city"] if second and k == len(plan.deliveries) - 1 else p.ship_city
        fc = b.text(f"City of delivery {k + 1} under purchase order {ref}", city, attribute="delivery_city",
                    group=bid)
        counts.append(fq)
        rows.append([lit(str(k + 1)), fs(fd), fs(fi), fs(fq), fs(fc)])
    total = b.number(f"Total quantity to be delivered under purchase order {ref}",
                     sum((_amount(c) for c in counts), Decimal(0)), "units", quantity="count",
                     attribute="total_quantity", group=bid, derivation=Derivation(op="sum", operands=[c.id for c in counts]))
    rows.append([lit("Total"), lit(""), lit(""), fs(total), lit("")])
    return [TableBlock(id=bid, caption=caption, columns=["Delivery no.", "Delivery date", "Items delivered",
                                                          "Quantity (units)", "Delivery city"], rows=rows,
                       total_row=True, numeric_columns=[3])]


# ---------------------------------------------------------------- approval_chain

@dataclass(frozen=True)
class Claim:
    claimant: Entity
    employee_no: str
    cost_centre: str
    start: dt.date
    end: dt.date
    submitted: dt.date
    purpose: str
    abroad: bool


PURPOSES = ("Client meetings with {cp} in {city}", "Review of {topic} with {cp} in {city}",
            "{Topic} workshop in {city}", "Site visit to {cp}, {city}", "Attendance at the {topic} conference in "
            "{city}")


def _claim(ctx: DocContext, rng: Rng) -> Claim:
    """The claimant, the claim period and its purpose (one per document)."""
    def make() -> Claim:
        person = ctx.person(rng)
        cp = ctx.counterparty(rng)
        topic = rng.choice(ctx.domain.topics)
        start = ctx.day(-rng.integers(20, 50))
        end = start + dt.timedelta(days=rng.integers(4, 15))
        submitted = min(ctx.anchor, end + dt.timedelta(days=rng.integers(1, 6)))
        purpose = rng.choice(PURPOSES).format(cp=cp.name, city=cp.attributes["city"], topic=topic,
                                              Topic=topic[:1].upper() + topic[1:])
        return Claim(person, f"E{_digits(rng, 5)}", f"CC-{rng.integers(1000, 10000)}", start, end, submitted,
                     purpose, _country(cp) != _country(ctx.issuer))
    return ctx.remember(("claim", "plan"), make)


def _steps(ctx: DocContext) -> tuple[str, ...]:
    first = "Submitted by" if ctx.recipe.slug == "expense_claim" else "Prepared by"
    return first, "Reviewed by", "Approved by", "Authorised by"


def _approval_days(ctx: DocContext, rng: Rng, n: int) -> list[dt.date]:
    """The dates of ``n`` steps, in order, none after the document's date: an order's before it is placed, a
    claim's from its submission on."""
    slug = ctx.recipe.slug
    if slug == "expense_claim":
        first = _claim(ctx, rng).submitted
        gap = (ctx.anchor - first).days
        return [first] + [first + dt.timedelta(days=o) for o in sorted(rng.integers(0, gap + 1) for _ in range(n - 1))]
    last = _order(ctx, rng).order_date if slug == "purchase_order" else ctx.anchor
    window = 15 if slug == "purchase_order" else 30
    return [last - dt.timedelta(days=window - 1 - o) for o in sorted(rng.sample(range(window), n))]


def build_approval_chain(ctx: DocContext, rng: Rng) -> list[Block]:
    """Step, name, role, date (ascending, on or before the document's date), decision; on an order or a claim
    the authority limit of each approver, the last covering the document's total."""
    slug = ctx.recipe.slug
    what = _what(ctx)
    total: Decimal | None = None
    if slug == "purchase_order":
        first = _order(ctx, rng).contact
        total = _totals(ctx, rng)[2]
    elif slug == "expense_claim":
        first = _claim(ctx, rng).claimant
        total = ctx.memo.get(("claim", "total"))
    else:
        first = ctx.person(rng)
    others = [p for p in ctx.people if p.id != first.id]
    n = min(rng.integers(3, 5), len(others) + 1)
    picked = rng.sample(others, n - 1)
    if slug not in ("purchase_order", "expense_claim"):  # the most junior prepares
        team = sorted([first, *picked], key=lambda p: seniority(p.role))
        first, picked = team[0], team[1:]
    with_limits = slug in ("purchase_order", "expense_claim")
    if with_limits:  # the issuer's delegation: limits rise with seniority, the last covers the total
        limits_of = delegation(ctx)
        picked = sorted(picked, key=lambda p: limits_of[p.name])
        if total is not None and limits_of[picked[-1].name] < total:
            cover = sorted((p for p in others if p not in picked and limits_of[p.name] >= total),
                           key=lambda p: limits_of[p.name])
            picked = picked[:-1] + cover[:1] if cover else picked
    rank = (lambda p: limits_of[p.name]) if with_limits else (lambda p: seniority(p.role))
    people = [first, *sorted(picked, key=rank)]  # the most senior authorises
    steps = _steps(ctx)[:n] if n == 4 else (_steps(ctx)[0], "Reviewed by", "Approved by")[:n]
    days = _approval_days(ctx, rng, n)
    changed = rng.integers(1, n - 1) if n > 2 and rng.bernoulli(0.3) else 0  # a reviewer asks for changes
    caption = _caption(ctx, ["Approval record", "Approvals and authorisations", "Approval chain"])
    bid = ctx.book.block_id()
    b = ctx.book
    rows = []
    for i, (step, person, day) in enumerate(zip(steps, people, days, strict=True)):
        done = step.split(" ")[0].lower()
        fp = b.person(f"Person who {done} {what}", person, attribute="approver" if i else "preparer", group=bid)
        fr = b.text(f"Role of {person.name}", person.role, subject=person.id, attribute="role", group=bid)
        fd = b.date(f"Date {what} was {done}", day, attribute="approval_date", group=bid)
        decision = "Submitted" if i == 0 else "Approved with changes" if i == changed else "Approved"
        fx = b.text(f"Decision recorded when {what} was {done}", decision, attribute="decision", group=bid)
        row = [lit(step), fs(fp), fs(fr), fs(fd), fs(fx)]
        if with_limits:
            if i == 0:
                row.append(lit(""))
            else:
                limit, q = authority_limit(ctx, person)
                row.append(fs(b.money(f"Authority limit of {person.name}", limit, subject=person.id,
                                      attribute="authority_limit", group=bid, query=q)))
        rows.append(row)
    columns = ["Step", "Name", "Role", "Date", "Decision"]
    if with_limits:
        columns.append(f"Authority limit ({ctx.fmt.currency})")
    return [TableBlock(id=bid, caption=caption, columns=columns, rows=rows,
                       numeric_columns=[5] if with_limits else [])]


# ---------------------------------------------------------------- claimant, expense_lines

def build_claimant(ctx: DocContext, rng: Rng) -> list[Block]:
    """Name, employee number, department, cost centre, claim period, date submitted and the business purpose."""
    ref = ctx.doc_reference()
    c = _claim(ctx, rng)
    p = c.claimant
    title = _title(ctx, ["Claimant", "Claimant details"])
    bid = ctx.book.block_id()
    b = ctx.book
    dept = p.attributes.get("department") or ctx.domain.departments[0]
    fields = [
        FormField(label="Name", value=fs(b.person(f"Claimant on expense claim {ref}", p, attribute="claimant",
                                                  group=bid)), field_type="person"),
        FormField(label="Employee no.", value=fs(b.ident(f"Employee number of {p.name}", c.employee_no,
                                                         scheme="employee_number", subject=p.id, group=bid)),
                  field_type="identifier"),
        FormField(label="Department", value=fs(b.text(f"Department of {p.name}", dept, subject=p.id,
                                                      attribute="department", group=bid))),
        FormField(label="Cost centre", value=fs(b.ident(f"Cost centre charged with expense claim {ref}",
                                                        c.cost_centre, scheme="cost_centre", group=bid)),
                  field_type="identifier"),
        FormField(label="Claim period from", value=fs(b.date(f"Start of the period of expense claim {ref}", c.start,
                                                             attribute="period_start", group=bid)), field_type="date"),
        FormField(label="Claim period to", value=fs(b.date(f"End of the period of expense claim {ref}", c.end,
                                                           attribute="period_end", group=bid)), field_type="date"),
        FormField(label="Date submitted", value=fs(b.date(f"Submission date of expense claim {ref}", c.submitted,
                                                          attribute="submitted", group=bid)), field_type="date"),
        FormField(label="Business purpose", value=fs(b.text(f"Business purpose of expense claim {ref}", c.purpose,
                                                            attribute="purpose", group=bid))),
    ]
    return [FormBlock(id=bid, title=title, fields=fields, signature_lines=["Claimant's signature"])]


EXPENSES = (
    ("Travel", "Rail fare", 40, 260), ("Travel", "Airfare, economy", 140, 900), ("Travel", "Taxi and ride-hailing", 15, 90),
    ("Travel", "Car hire", 60, 380), ("Travel", "Parking", 8, 45), ("Travel", "Train seat reservation", 5, 25),
    ("Accommodation", "Hotel accommodation", 95, 620), ("Meals", "Client dinner", 60, 340),
    ("Meals", "Team lunch", 25, 160), ("Subsistence", "Per diem allowance", 25, 180),
    ("Conference fees", "Conference registration", 150, 1200), ("Communications", "Mobile roaming charges", 10, 60),
    ("Office supplies", "Printing and stationery", 8, 90), ("Travel", "Visa fee", 40, 160),
)
"""(category, description, low, high): the expenses of a business trip and what each usually costs."""
NO_RECEIPT = ("Per diem allowance",)
ABROAD_ONLY = ("Visa fee", "Mobile roaming charges")
"""Expenses of a trip abroad only."""


def _claimed(ctx: DocContext, slug: str, item: str, day: dt.date, draw) -> tuple[Decimal, WorldQuery]:
    """What the issuer's world booked for an expense line (``item``: the claim and the line) in its month."""
    month = day.year * 12 + day.month - 1  # the day names the period: its month may not be over yet
    return ctx.booked(slug, item, month, 1, day.isoformat(), draw)


def mileage_rate(ctx: DocContext) -> tuple[Decimal, str, int]:
    """``(rate per unit, unit, places)``: HMRC's approved mileage rate, the IRS standard rate of the year, the
    German Kilometerpauschale and the Dutch tax-free allowance; 0.30 a kilometre elsewhere in the euro area."""
    cur, country = ctx.fmt.currency, _country(ctx.issuer)
    if cur == "GBP":
        return Decimal("0.45"), "miles", 2
    if cur == "USD":
        rate = {2023: Decimal("0.655"), 2024: Decimal("0.67")}.get(ctx.year, Decimal("0.70"))
        return rate, "miles", max(2, -rate.as_tuple().exponent)
    return (Decimal("0.23") if country == "Netherlands" else Decimal("0.30")), "km", 2


def build_expense_lines(ctx: DocContext, rng: Rng) -> list[Block]:
    """Date (within the claim period), category, description, receipt no., amount; a mileage line (distance x
    rate); the total, and what is due after an advance."""
    ref = ctx.doc_reference()
    c = _claim(ctx, rng)
    n = rng.integers(3, 9)
    fitting = [i for i, e in enumerate(EXPENSES) if c.abroad or e[1] not in ABROAD_ONLY]
    picked = sorted(rng.sample(fitting, n))
    span_days = (c.end - c.start).days
    days = sorted(rng.integers(0, span_days + 1) for _ in range(n + 1))
    mileage_at = rng.integers(0, n + 1)
    receipt = rng.integers(100, 900)
    caption = _caption(ctx, ["Expenses claimed", "Itemised expenses"])
    bid = ctx.book.block_id()
    b = ctx.book
    cur = ctx.fmt.currency
    rows: list[list[Span]] = []
    amounts: list[Fact] = []
    k = 0
    for i in range(n + 1):
        day = b.date(f"Date of expense line {i + 1} on expense claim {ref}", c.start + dt.timedelta(days=days[i]),
                     attribute="expense_date", group=bid)
        if i == mileage_at:
            rate_v, unit, places = mileage_rate(ctx)
            _, q_rate = issuer_books.convention(ctx, "mileage_rate", f"{_country(ctx.issuer)} per {unit.rstrip('s')}, "
                                                f"{ctx.year}", rate_v)
            dist_v, q_dist = _claimed(ctx, "trade.mileage_distance", f"expense claim {ref}: mileage", day.value.value,
                                      lambda r: r.integers(24, 420))
            dist = b.number(f"Distance claimed as mileage on expense claim {ref}", dist_v,
                            unit, quantity="amount", attribute="distance", group=bid, query=q_dist)
            rate = b.money(f"Mileage rate per {unit.rstrip('s')} on expense claim {ref}", rate_v, decimals=places,
                           quantity="ratio", attribute="mileage_rate", group=bid, query=q_rate)
            amt = b.money(f"Mileage allowance claimed on expense claim {ref}",
                          _money_round(ctx, _amount(dist) * rate_v), attribute="expense_amount", group=bid,
                          derivation=Derivation(op="product", operands=[dist.id, rate.id]))
            desc = Span(text=f"Mileage allowance, {dist.text} {unit} at {rate.text} per {unit.rstrip('s')}",
                        fact_ids=[dist.id, rate.id])
            rows.append([fs(day), lit("Mileage"), desc, lit("n/a"), fs(amt)])
        else:
            cat, what, lo, hi = EXPENSES[picked[k]]
            k += 1
            claimed, q_amt = _claimed(ctx, "trade.expense_amount", f"expense claim {ref}: {what}", day.value.value,
                                      lambda r, lo=lo, hi=hi: _price(ctx, r, lo, hi, 1))
            amt = b.money(f"Amount claimed for {lower_common(what)} on expense claim {ref}",
                          claimed, attribute="expense_amount", group=bid, query=q_amt)
            if what in NO_RECEIPT:
                rec = lit("n/a")
            else:
                receipt += 1
                rec = fs(b.ident(f"Receipt number for {lower_common(what)} on expense claim {ref}", f"R-{receipt:04d}",
                                 scheme="receipt", group=bid))
            rows.append([fs(day), lit(cat), lit(what), rec, fs(amt)])
        amounts.append(amt)
    total = b.money(f"Total claimed on expense claim {ref}", sum((_amount(a) for a in amounts), Decimal(0)),
                    attribute="claim_total", group=bid, derivation=Derivation(op="sum", operands=[a.id for a in amounts]))
    ctx.memo[("claim", "total")] = _amount(total)
    month = c.start.year * 12 + c.start.month - 1
    adv_v, q_adv = ctx.booked("trade.advance", f"expense claim {ref} of {_amount(total)}", month, 1,  # its total: the
                              c.start.isoformat(), lambda r: _money_round(  # advance is a share of it
        ctx, (_amount(total) * Decimal(str(round(r.uniform(0.2, 0.6), 2))) / 50).to_integral_value() * 50)) \
        if rng.bernoulli(0.3) else (Decimal(0), None)
    advance = Decimal(0) < adv_v < _amount(total)
    blanks = [lit(""), lit(""), lit("")]
    if advance:
        adv = b.money(f"Advance received against expense claim {ref}", _money_round(ctx, adv_v), attribute="advance",
                      group=bid, query=q_adv)
        due = b.money(f"Amount due to the claimant on expense claim {ref}", _amount(total) - adv_v,
                      attribute="amount_due", group=bid, derivation=Derivation(op="difference",
                                                                               operands=[total.id, adv.id]))
        rows += [[lit("Total claimed"), *blanks, fs(total)], [lit("Less advance received"), *blanks, fs(adv)],
                 [lit("Amount due to claimant"), *blanks, fs(due)]]
    else:
        rows.append([lit("Total"), *blanks, fs(total)])
    used = ctx.used("line_items")
    drawn = {EXPENSES[i][1] for i in picked} | {"Mileage allowance"}
    used.update(what for what, lines in line_groups(ctx) if any(x in drawn for x in lines))
    table = TableBlock(id=bid, caption=caption, columns=["Date", "Category", "Description", "Receipt no.",
                                                         f"Amount ({cur})"], rows=rows, total_row=not advance,
                       numeric_columns=[4])
    printed_tables(ctx).append((body_rows(table), list(table.columns)))
    return [table]


# ---------------------------------------------------------------- grant_application

GRANT_LINES = (("Staff costs", 45000, 240000), ("Equipment", 4000, 80000), ("Travel and subsistence", 2000, 14000),
               ("Consumables", 3000, 30000), ("Dissemination and open access", 1500, 12000))
"""(budget line, low, high) of one year of a project."""


@dataclass(frozen=True)
class Grant:
    pi: Entity
    start: dt.date
    months: int
    lines: tuple[tuple[str, tuple[Decimal, ...]], ...]
    overhead: Decimal

    @property
    def years(self) -> int:
        return len(self.lines[0][1])

    def direct(self, y: int) -> Decimal:
        return sum((v[y] for _, v in self.lines), Decimal(0))

    def indirect(self, y: int, ctx: DocContext) -> Decimal:
        return _money_round(ctx, self.direct(y) * self.overhead / 100)

    def total(self, ctx: DocContext) -> Decimal:
        return sum((self.direct(y) + self.indirect(y, ctx) for y in range(self.years)), Decimal(0))


def _round_to(x: float, step: int) -> Decimal:
    return Decimal(max(step, int(round(x / step)) * step))


def _grant(ctx: DocContext, rng: Rng) -> Grant:
    """The project: its investigator, start, length and budget by line and year (one per document)."""
    def make() -> Grant:
        assert ctx.world is not None  # the figures of the application are the issuer's, drawn by its reference
        plan = ctx.world.rng.fork("grant", ctx.doc_reference())
        months = plan.choice((18, 24, 24, 30, 36, 36))
        years = (months + 11) // 12
        start_month = ctx.anchor.month + rng.integers(3, 8)
        start = dt.date(ctx.anchor.year + (start_month - 1) // 12, (start_month - 1) % 12 + 1, 1)
        keep = [0] + sorted(plan.sample(range(1, len(GRANT_LINES)), plan.integers(2, len(GRANT_LINES))))
        lines = []
        for i in keep:
            name, lo, hi = GRANT_LINES[i]
            base = plan.uniform(lo, hi)
            if name == "Staff costs":  # salaries rise a few percent a year
                vals = [_round_to(base * 1.03 ** y, 100) for y in range(years)]
            elif name == "Equipment":  # bought at the start
                vals = [_round_to(base, 100)] + [_round_to(base * plan.uniform(0.02, 0.1), 100) for _ in range(years - 1)]
            elif name.startswith("Dissemination"):  # results are published towards the end
                vals = [_round_to(base * (0.3 + 0.7 * y / max(1, years - 1)), 100) for y in range(years)]
            else:
                vals = [_round_to(base * plan.uniform(0.8, 1.2), 100) for _ in range(years)]
            lines.append((name, tuple(_money_round(ctx, v) for v in vals)))
        cur = ctx.fmt.currency
        overhead = (Decimal("25.0") if plan.bernoulli(0.7) else Decimal("7.0")) if cur == "EUR" else \
            (Decimal("10.0") if ctx.year <= 2024 else Decimal("15.0")) if cur == "USD" else \
            Decimal(plan.choice(("10.0", "15.0", "20.0")))
        pis = [p for p in ctx.people if any(w in p.role for w in ("Principal", "Investigator", "Research", "Scien",
                                                                  "Director", "Head", "Lead"))]
        return Grant(rng.choice(pis or ctx.people), start, months, tuple(lines), overhead)
    return ctx.remember(("grant", "plan"), make)


def _granted(ctx: DocContext, measure: str, what: str, value: Decimal) -> WorldQuery:
    """The query of a figure of grant application ``what`` (its plan is drawn from the issuer's stream by the
    application's reference, so the figure is the world's whichever document asks first)."""
    got, query = issuer_books.level(ctx, f"grants.{measure}", what, lambda r: value)
    assert got == value
    return query


def registration_number(rng: Rng, country: str, ein: str) -> tuple[str, str, str]:
    """``(field label, number, scheme)`` of the register an applicant organisation is entered in."""
    for register in conventions.country(country).registers.applicant:  # the last takes the rest
        if register.p is None or rng.bernoulli(register.p):
            return register.label, draw_id(register.pattern, rng, tax_id=ein), register.scheme
    raise AssertionError("the catalogue checks that the last register has no chance p")  # pragma: no cover


def build_applicant_details(ctx: DocContext, rng: Rng) -> list[Block]:
    """Organisation, principal investigator, registration number, address, project start, duration and the
    amount requested (the budget's grand total)."""
    ref = ctx.doc_reference()
    g = _grant(ctx, rng)
    org = ctx.issuer
    reg_label, reg, scheme = ctx.remember(("registration", org.id), lambda: registration_number(
        rng.fork("org", org.id), _country(org), _tax_id(ctx, rng, org)[0]))
    title = _title(ctx, ["Applicant", "Applicant details"])
    bid = ctx.book.block_id()
    b = ctx.book
    source = _source(ctx, "grant_total")
    amount = b.money(f"Amount requested in grant application {ref}", g.total(ctx), attribute="amount_requested",
                     group=bid, derivation=Derivation(op="quote", operands=[source.id]) if source else None,
                     query=None if source else _granted(ctx, "amount_requested", f"grant application {ref}",
                                                        g.total(ctx)))
    if source is None:
        _quoting(ctx, "grant_total", amount)
    ctx.remember(("grant", "requested"), lambda: amount)
    fields = [
        FormField(label="Organisation", value=fs(b.org(f"Applicant organisation of grant application {ref}", org,
                                                       attribute="applicant", group=bid))),
        FormField(label="Principal investigator", value=fs(b.person(
            f"Principal investigator of grant application {ref}", g.pi, attribute="principal_investigator",
            group=bid)), field_type="person"),
        FormField(label=reg_label, value=fs(b.ident(f"{reg_label.removesuffix(' no.')} number of {org.name}"
                                                    if reg_label.endswith(" no.") else f"{reg_label} of {org.name}",
                                                    reg, scheme=scheme, subject=org.id, attribute=scheme, group=bid)),
                  field_type="identifier"),
        FormField(label="Address", value=fs(b.text(f"Registered address of {org.name}", org.attributes["full"],
                                                   subject=org.id, attribute="registered_address", group=bid))),
        FormField(label="Project start date", value=fs(b.date(f"Start date of the project of grant application {ref}",
                                                              g.start, attribute="project_start", group=bid)),
                  field_type="date"),
        FormField(label="Duration (months)", value=fs(b.number(
            f"Duration of the project of grant application {ref} in months", Decimal(g.months), "months",
            quantity="duration", attribute="duration", group=bid,
            query=_granted(ctx, "duration", f"grant application {ref}", Decimal(g.months)))), field_type="number"),
        FormField(label="Amount requested", value=fs(amount), field_type="money"),
    ]
    return [FormBlock(id=bid, title=title, fields=fields)]


def build_grant_budget(ctx: DocContext, rng: Rng) -> list[Block]:
    """Budget line x year and the line's total (sum of its years); total direct costs (sums of the columns),
    indirect costs at the overhead rate of the direct costs, and the grand total."""
    ref = ctx.doc_reference()
    g = _grant(ctx, rng)
    caption = _caption(ctx, ["Project budget by cost category and year", "Budget requested by year"])
    bid = ctx.book.block_id()
    b = ctx.book
    cur = ctx.fmt.currency
    what = f"grant application {ref}"
    rows: list[list[Span]] = []
    columns: list[list[Fact]] = [[] for _ in range(g.years)]

    def row(label: str, cells: list[Fact], name: str, attribute: str) -> Fact:
        total = b.money(f"{name} over the whole project of {what}", sum((_amount(c) for c in cells), Decimal(0)),
                        attribute=attribute, group=bid, derivation=Derivation(op="sum", operands=[c.id for c in cells]))
        rows.append([lit(label), *map(fs, cells), fs(total)])
        return total

    for name, vals in g.lines:
        cells = [b.money(f"{name} in year {y + 1} of {what}", v, attribute="budget_line", group=bid,
                         query=_granted(ctx, "budget_line", f"{what}: {name}, year {y + 1}", v))
                 for y, v in enumerate(vals)]
        for y, c in enumerate(cells):
            columns[y].append(c)
        row(name, cells, name, "budget_line_total")
    direct = [b.money(f"Total direct costs in year {y + 1} of {what}", g.direct(y), attribute="direct_costs",
                      group=bid, derivation=Derivation(op="sum", operands=[c.id for c in columns[y]]))
              for y in range(g.years)]
    row("Total direct costs", direct, "Total direct costs", "direct_costs_total")
    rate = b.percent(f"Indirect cost rate of {what}", g.overhead, attribute="overhead_rate", group=bid,
                     query=_granted(ctx, "overhead_rate", what, g.overhead))
    indirect = [b.money(f"Indirect costs in year {y + 1} of {what}", g.indirect(y, ctx), attribute="indirect_costs",
                        group=bid, derivation=Derivation(op="percent_of", operands=[direct[y].id, rate.id]))
                for y in range(g.years)]
    total_ind = b.money(f"Indirect costs over the whole project of {what}",
                        sum((_amount(c) for c in indirect), Decimal(0)), attribute="indirect_costs_total", group=bid,
                        derivation=Derivation(op="sum", operands=[c.id for c in indirect]))
    rows.append([Span(text=f"Indirect costs at {rate.text} of direct costs", fact_ids=[rate.id]),
                 *map(fs, indirect), fs(total_ind)])
    yearly = [b.money(f"Total budget in year {y + 1} of {what}", _amount(direct[y]) + _amount(indirect[y]),
                      attribute="year_total", group=bid, derivation=Derivation(op="sum",
                                                                               operands=[direct[y].id, indirect[y].id]))
              for y in range(g.years)]
    grand = row("Total", yearly, "Total budget", "grand_total")
    _quote(ctx, "grant_total", grand)
    return [TableBlock(id=bid, caption=caption,
                       columns=["Budget line", *(f"Year {y + 1} ({cur})" for y in range(g.years)), f"Total ({cur})"],
                       rows=rows, total_row=False, numeric_columns=list(range(1, g.years + 2)))]


DECLARATIONS = (
    "I confirm that the information given in this application is accurate and complete",
    "Ethics approval has been obtained or is not required for this project",
    "The applicant organisation agrees to host the project and administer the grant",
    "No other funding has been awarded or applied for to cover the same costs",
    "I accept the funder's terms and conditions of grant",
    "Research data will be managed in line with the data management plan submitted",
)
SIGNATORY_WORDS = ("Director", "Head", "Chief", "Manager", "Officer", "Dean", "Lead")


def build_declarations(ctx: DocContext, rng: Rng) -> list[Block]:
    """3 to 5 declarations ticked, whether the project involves personal data, the signatory, position and
    date signed."""
    ref = ctx.doc_reference()
    g = _grant(ctx, rng)
    chosen = [DECLARATIONS[0], *rng.sample(DECLARATIONS[1:], rng.integers(1, 4))]
    personal = rng.bernoulli(0.5)
    pool = [p for p in ctx.people if p.id != g.pi.id]
    senior = [p for p in pool if any(w in p.role for w in SIGNATORY_WORDS)]
    signer = rng.choice(senior or pool or ctx.people)
    signed = ctx.day(-rng.integers(0, 8))
    title = _title(ctx, ["Declarations", "Declarations and signature"])
    bid = ctx.book.block_id()
    b = ctx.book
    boxes = []
    for i, text in enumerate(chosen):
        f = b.boolean(f"Declaration {i + 1} of grant application {ref}", True, text, attribute="declaration",
                      group=bid)
        boxes.append(Checkbox(label=text, checked=True, fact_ids=[f.id]))
    question = "The project involves human participants or their personal data"
    f = b.boolean(f"Whether the project of grant application {ref} involves personal data", personal, question,
                  attribute="personal_data", group=bid)
    boxes.append(Checkbox(label=question, checked=personal, fact_ids=[f.id]))
    fields = [
        FormField(label="Signatory", value=fs(b.person(f"Signatory of grant application {ref}", signer,
                                                       attribute="signatory", group=bid)), field_type="person"),
        FormField(label="Position", value=fs(b.text(f"Role of {signer.name}", signer.role, subject=signer.id,
                                                    attribute="role", group=bid))),
        FormField(label="Date signed", value=fs(b.date(f"Date grant application {ref} was signed", signed,
                                                       attribute="signed", group=bid)), field_type="date"),
    ]
    return [FormBlock(id=bid, title=title, fields=fields, checkboxes=boxes,
                      signature_lines=["Signature of authorised signatory", "Signature of principal investigator"])]


# ---------------------------------------------------------------- budget_vs_baseline

COST_WORDS = ("cost", "spend", "budget", "expenditure", "opex", "payroll")


def build_budget_vs_baseline(ctx: DocContext, rng: Rng) -> list[Block]:
    """Each line's baseline (this year's budget) and proposed budget (next year's), the change and the change
    in percent; totals of both, the total change (the sum of the changes) and its percent change."""
    y0, y1 = ctx.year, ctx.year + 1
    d = ctx.domain
    money = [m for m in d.metrics if m.kind == "money" and m.quantity == "amount"]
    metric = next((m for m in money if any(w in m.name.lower() for w in COST_WORDS)), money[0] if money else None)
    lo, hi = (metric.low, metric.high) if metric is not None else (50000.0, 2000000.0)
    n = rng.integers(4, min(9, len(d.items)) + 1)
    items = [d.items[i] for i in sorted(rng.sample(range(len(d.items)), n))]
    caption = _caption(ctx, [f"Proposed FY{y1} budget by {d.item_kind} against the FY{y0} baseline",
                             f"Budget by {d.item_kind}: FY{y1} proposal and FY{y0} baseline"])
    bid = ctx.book.block_id()
    b = ctx.book
    cur = ctx.fmt.currency
    rows = []
    base_f: list[Fact] = []
    prop_f: list[Fact] = []
    chg_f: list[Fact] = []
    step = 1000 if hi >= 200000 else 100
    for item in items:
        base_v, q_base = issuer_books.level(ctx, "trade.budget_baseline", f"{item}, FY{y0}", lambda r: _money_round(
            ctx, _round_to(r.uniform(max(lo, hi / 40), hi) * 0.6, step)))
        prop_v, q_prop = issuer_books.level(ctx, "trade.budget_proposed", f"{item}, FY{y1}",
                                            lambda r, base=base_v: _money_round(
                                                ctx, _round_to(float(base) * (1 + r.uniform(-0.12, 0.18)), step)))
        fb = b.money(f"Baseline budget of {item} for FY{y0}", base_v, attribute="baseline_budget", group=bid,
                     query=q_base)
        fp = b.money(f"Proposed budget of {item} for FY{y1}", prop_v, attribute="proposed_budget", group=bid,
                     query=q_prop)
        fc = b.money(f"Change in the budget of {item} from FY{y0} to FY{y1}", prop_v - base_v,
                     attribute="budget_change", group=bid, derivation=Derivation(op="difference",
                                                                                 operands=[fp.id, fb.id]))
        fpc = b.percent(f"Percent change in the budget of {item} from FY{y0} to FY{y1}",
                        ((prop_v - base_v) / base_v * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN),
                        attribute="budget_change_pct", group=bid,
                        derivation=Derivation(op="percent_change", operands=[fb.id, fp.id]))
        base_f.append(fb)
        prop_f.append(fp)
        chg_f.append(fc)
        rows.append([lit(item), fs(fb), fs(fp), fs(fc), fs(fpc)])
    scope = f" of {_what(ctx)}"

    def total(label: str, cells: list[Fact], attribute: str) -> Fact:
        return b.money(label, sum((_amount(c) for c in cells), Decimal(0)), attribute=attribute, group=bid,
                       derivation=Derivation(op="sum", operands=[c.id for c in cells]))
    tb = total(f"Total baseline budget for FY{y0}{scope}", base_f, "baseline_budget_total")
    tp = total(f"Total proposed budget for FY{y1}{scope}", prop_f, "proposed_budget_total")
    tc = total(f"Total change in the budget from FY{y0} to FY{y1}{scope}", chg_f, "budget_change_total")
    tpc = b.percent(f"Percent change in the total budget from FY{y0} to FY{y1}{scope}",
                    ((_amount(tp) - _amount(tb)) / _amount(tb) * 100).quantize(Decimal("0.1"), rounding=ROUND_HALF_EVEN),
                    attribute="budget_change_pct", group=bid,
                    derivation=Derivation(op="percent_change", operands=[tb.id, tp.id]))
    rows.append([lit("Total"), fs(tb), fs(tp), fs(tc), fs(tpc)])
    return [TableBlock(id=bid, caption=caption,
                       columns=[d.item_kind.capitalize(), f"Baseline FY{y0} ({cur})", f"Proposed FY{y1} ({cur})",
                                f"Change ({cur})", "Change (%)"], rows=rows, total_row=True,
                       numeric_columns=[1, 2, 3, 4])]


BLOCKS: dict[str, Builder] = {
    "invoice_header": build_invoice_header,
    "order_header": build_order_header,
    "trade_parties": build_trade_parties,
    "invoice_lines": build_invoice_lines,
    "order_lines": build_order_lines,
    "payment_terms": build_payment_terms,
    "bank_details": build_bank_details,
    "delivery_schedule": build_delivery_schedule,
    "approval_chain": build_approval_chain,
    "claimant": build_claimant,
    "expense_lines": build_expense_lines,
    "grant_budget": build_grant_budget,
    "applicant_details": build_applicant_details,
    "declarations": build_declarations,
    "budget_vs_baseline": build_budget_vs_baseline,
}

__all__ = ["BLOCKS", "aba_ok", "aba_routing", "iban", "iban_ok", "tax_number"]
