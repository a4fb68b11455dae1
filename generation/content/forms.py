"""Form builders: typed fields whose values are facts, checkboxes whose states are boolean facts
(the fact text is the checkbox label the renderer draws), and signature lines.

Dates on one form are ordered (submitted < reviewed < approved / due) and a form was submitted before the
document's date. A form's number is shaped like the form (``EAF/2026/4821``), never like the document's
reference. A form's title names its kind and the department it is filed with (``Leave Request (Finance)``,
the requester's department where that is new), so no two forms of a document share a title.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from itertools import chain

from synthdocqa.ir.blocks import Checkbox, FormBlock, FormField
from synthdocqa.ir.facts import Entity
from synthdocqa.ir.rng import Rng
from synthdocqa.ir.world import WorldQuery

from ..domains import get_domain
from .book import DocContext, fs
from .quantities import draw_value
from .tables import rotated

FORM_TITLES = (
    "Expense Approval Form", "Purchase Requisition", "Change Request", "Access Request", "Incident Notification",
    "Vendor Registration Form", "Leave Request", "Payment Authorisation", "Contract Review Sheet",
    "Budget Transfer Request", "Site Visit Report Form", "Quality Deviation Form", "Training Enrolment Form",
)

FORMS_OF_RECIPE = {
    "invoice": ("Payment Authorisation", "Vendor Registration Form"),
    "purchase_order": ("Purchase Requisition", "Payment Authorisation", "Vendor Registration Form"),
    "expense_claim": ("Expense Approval Form", "Payment Authorisation"),
    "training_record": ("Training Enrolment Form", "Leave Request", "Access Request"),
    "incident_report": ("Incident Notification", "Change Request", "Quality Deviation Form"),
    "inspection_report": ("Site Visit Report Form", "Quality Deviation Form", "Incident Notification"),
}
"""Forms that belong in a recipe (others draw from every form)."""


def form_title(kind: str, department: str) -> str:
    """``Leave Request (Human Resources)``: the kind of form and the department it is filed with."""
    return f"{kind} ({department})"


def _title_and_requester(ctx: DocContext, rng: Rng) -> tuple[str, str, Entity]:
    """``(kind, department, requester)`` of a form whose title no other block of the document carries: the kind
    drawn for the recipe and the requester's department first, then the other people, the recipe's other kinds,
    every kind, every department, and last a department's office for one item (``Finance, North``)."""
    own = FORMS_OF_RECIPE.get(ctx.recipe.slug, FORM_TITLES)
    kind0 = rng.choice(own)
    requester0 = ctx.person(rng)
    people = rotated(ctx.people, requester0)
    kinds = [kind0, *(k for k in own if k != kind0), *(k for k in FORM_TITLES if k not in own)]
    candidates = chain(((k, p.attributes.get("department") or ctx.domain.departments[0], p) for k in kinds
                        for p in people),
                       ((k, dept, requester0) for k in kinds for dept in ctx.domain.departments),
                       ((k, f"{dept}, {item}", requester0) for item in ctx.domain.items for k in kinds
                        for dept in ctx.domain.departments))
    return next((c for c in candidates if ctx.caption_free(form_title(c[0], c[1]))), None) \
        or (kind0, f"{ctx.domain.departments[0]}, {ctx.serial('form')}", requester0)  # never: hundreds are left


def _booked(ctx: DocContext, slug: str, item: str, submitted: dt.date, draw) -> tuple[Decimal, WorldQuery]:
    """What the issuer's world booked for form ``item`` in the month it was submitted (the same form, the same
    figure, in every document of the issuer that files it)."""
    month = submitted.year * 12 + submitted.month - 1  # the day names the period: its month may not be over yet
    return ctx.booked(slug, item, month, 1, submitted.isoformat(), draw)


def form(ctx: DocContext, rng: Rng, n_fields: int | None = None) -> FormBlock:
    """A form of a kind the recipe uses, titled with the department it is filed with (no two forms of a
    document share a title), its fields, checkboxes and signature lines."""
    kind, dept, requester = _title_and_requester(ctx, rng)
    title = ctx.claim_caption(form_title(kind, dept))
    bid = ctx.book.block_id()
    book = ctx.book
    approver = rng.choice([p for p in ctx.people if p.id != requester.id] or ctx.people)
    n = n_fields if n_fields is not None else rng.integers(4, 8)
    ref = ctx.serial("".join(w[0] for w in kind.split() if w[0].isupper()))
    submitted = ctx.day(rng.integers(-90, -30))
    later = submitted.toordinal() + rng.integers(2, 30)
    candidates = ["requester", "reference", "submitted", "amount", "approver", "decision_date", "cost_centre",
                  "counterparty", "quantity"]  # the department is in the title
    chosen = ["requester", "reference", "submitted"] + rng.sample(candidates[3:], min(max(0, n - 3), len(candidates) - 3))
    chosen = [c for c in candidates if c in chosen]  # stable, sensible order
    fields: list[FormField] = []
    for c in chosen:
        if c == "requester":
            f = book.person(f"Requester on the {title} {ref}", requester, group=bid, attribute="requester")
            fields.append(FormField(label="Requested by", value=fs(f), field_type="person"))
        elif c == "reference":
            f = book.ident(f"Reference number of form {ctx.number('form')} ({title})", ref, scheme="reference",
                           group=bid)
            fields.append(FormField(label="Reference no.", value=fs(f), field_type="identifier"))
        elif c == "submitted":
            f = book.date(f"Submission date of the {title} {ref}", submitted, group=bid, attribute="submitted")
            fields.append(FormField(label="Date submitted", value=fs(f), field_type="date"))
        elif c == "amount":
            trade = get_domain(ctx.domain.slug)  # the trade's money, whatever lens the section is seen through
            money = next((m for m in trade.metrics if m.kind == "money"), None)

            def amount(r: Rng, money=money) -> Decimal:
                x = draw_value(r, money, 2) / 20 if money else Decimal(r.integers(100, 9000))
                return x.quantize(Decimal("0.01"))
            amt, q = _booked(ctx, "forms.amount_requested", f"{title} {ref}", submitted, amount)
            f = book.money(f"Amount requested on the {title} {ref}", amt, decimals=2, group=bid, attribute="amount",
                           query=q)
            fields.append(FormField(label="Amount", value=fs(f), field_type="money"))
        elif c == "approver":
            f = book.person(f"Approver on the {title} {ref}", approver, group=bid, attribute="approver")
            fields.append(FormField(label="Approver", value=fs(f), field_type="person"))
        elif c == "decision_date":
            f = book.date(f"Decision date of the {title} {ref}", dt.date.fromordinal(later), group=bid,
                          attribute="decision_date")
            fields.append(FormField(label="Decision date", value=fs(f), field_type="date"))
        elif c == "cost_centre":
            cc = f"CC-{rng.integers(1000, 9999)}"
            f = book.ident(f"Cost centre on the {title} {ref}", cc, scheme="cost_centre", group=bid)
            fields.append(FormField(label="Cost centre", value=fs(f), field_type="identifier"))
        elif c == "counterparty":
            cp = ctx.counterparty(rng)
            f = book.org(f"Supplier named on the {title} {ref}", cp, group=bid, attribute="supplier")
            fields.append(FormField(label="Supplier", value=fs(f), field_type="text"))
        elif c == "quantity":
            n_units, q = _booked(ctx, "forms.quantity", f"{title} {ref}", submitted, lambda r: r.integers(1, 500))
            f = book.number(f"Quantity on the {title} {ref}", n_units, "units", group=bid, attribute="quantity",
                            quantity="count", query=q)
            fields.append(FormField(label="Quantity", value=fs(f), field_type="number"))
    checks = rng.sample(ctx.domain.checks, rng.integers(2, min(4, len(ctx.domain.checks)) + 1))
    boxes = []
    for label in checks:
        state = rng.bernoulli(0.7)
        f = book.boolean(f"'{label}' on the {title} {ref}", state, label, group=bid, attribute="checkbox")
        boxes.append(Checkbox(label=label, checked=state, fact_ids=[f.id]))
    sig = rng.choice((["Requested by", "Approved by"], ["Signature of applicant"], ["Reviewer", "Approver"]))
    return FormBlock(id=bid, title=title, fields=fields, checkboxes=boxes, signature_lines=sig)
