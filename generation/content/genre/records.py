"""Genre blocks of records and registers: a vendor's profile, its weighted scoring and compliance checks, a form
pack's review checklist and filing record, a training record's certificates, a field log's daily entries and
shift handover, and an archive file's cover letter and retention note.

Every printed value is a fact of the document's book; what follows from others says so: a scoring's weighted
scores are the score at the criterion's weight (``percent_of``) and its totals sums, a checklist's "7 of 8
checks passed" and a certificate register's "2 certificates expire within 90 days" are counts of the facts
they count, a log's total hours the sum of its entries. Dates keep to the document's date: what happened
(an assessment, a filing, an issue date, a log entry) is on or before it; what is due (a retention date, an
expiry still valid) after it, and a status agrees with its date.
"""

from __future__ import annotations

import datetime as dt
from decimal import ROUND_HALF_EVEN, Decimal

from synthdocqa.ir.blocks import Block, Checkbox, FormBlock, FormField, Span, TableBlock, TextBlock
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.rng import Rng

from .. import countries as conventions
from ..book import DocContext, fs, lit
from ..countries import draw_id
from ..issuer_books import certificate_validity, documents_enclosed, level, retention_years
from ..names import email_for, unused_person_name
from . import Builder

HUNDRED = Decimal(100)
CENT = Decimal("0.01")
EXPIRY_WINDOW = 90
"""Days ahead of the document's date in which a certificate counts as expiring."""


# ---------------------------------------------------------------- shared helpers

def _numbered(ctx: DocContext) -> bool:
    """Whether the genre numbers its exhibits (a report does; a form pack, a log or a training record does not)."""
    return ctx.recipe.genre_class != "transactional"


def _caption(ctx: DocContext, options: list[str], table: bool = True) -> str:
    """The first caption of ``options`` no block of the document carries yet (else the first with a part
    number), claimed, with ``Table N.`` where the genre numbers its tables."""
    chosen = next((c for c in options if ctx.caption_free(c)), None)
    n = 2
    while chosen is None:
        if ctx.caption_free(f"{options[0]}, part {n}"):
            chosen = f"{options[0]}, part {n}"
        n += 1
    ctx.claim_caption(chosen)
    if table and _numbered(ctx):
        return f"Table {ctx.number('table')}. {chosen}"
    return chosen


def _new_person(ctx: DocContext, rng: Rng, role: str, mail_at: str = "", **attributes: str) -> Entity:
    """A person entity whose name no entity of the document has, with an address at organisation ``mail_at``
    where given (no telephone number: the identity checks expect the issuer's people to have numbers in the
    issuer's city, and outsiders have none in the cast)."""
    name = unused_person_name(rng, {e.name for e in ctx.book.entities})
    if mail_at:
        attributes["email"] = email_for(name, mail_at)
    return ctx.book.entity("person", name, role=role, **attributes)


def _add_months(d: dt.date, months: int) -> dt.date:
    """``d`` plus ``months`` calendar months (the 31st becomes the month's last day)."""
    idx = d.year * 12 + d.month - 1 + months
    y, m = divmod(idx, 12)
    m += 1
    nxt = dt.date(y + (m == 12), m % 12 + 1, 1)
    last = (nxt - dt.timedelta(days=1)).day
    return dt.date(y, m, min(d.day, last))


def _add_years(d: dt.date, years: int) -> dt.date:
    return _add_months(d, 12 * years)


def _count_word(n: int, singular: str, plural: str) -> str:
    return singular if n == 1 else plural


def _pick_person(ctx: DocContext, rng: Rng, words: tuple[str, ...], exclude: tuple[str, ...] = ()) -> Entity:
    """One of the cast whose role names one of ``words`` (else anyone), not one of ``exclude`` (entity ids)."""
    pool = [p for p in ctx.people if p.id not in exclude] or list(ctx.people)
    fit = [p for p in pool if any(w in p.role.lower() for w in words)]
    return rng.choice(fit or pool)


# ---------------------------------------------------------------- vendor assessment

CONTACT_ROLES = ("Account Manager", "Key Account Director", "Head of Sales", "Business Development Manager",
                 "Commercial Director", "Customer Success Manager")
ASSESSOR_WORDS = ("procurement", "supplier", "category", "contract", "quality", "buyer", "commercial", "tender",
                  "compliance", "risk")


def _vendor(ctx: DocContext) -> Entity:
    """The vendor of the title (``Vendor Assessment: {counterparty}``)."""
    return ctx.counterparties[0]


def _assessment_date(ctx: DocContext, rng: Rng) -> dt.date:
    """The day the vendor was assessed (the document's one assessment date, on or before its date)."""
    return ctx.remember(("vendor_assessment_date",), lambda: ctx.day(-rng.integers(2, 21)))


def _assessor(ctx: DocContext, rng: Rng) -> Entity:
    return ctx.remember(("vendor_assessor",), lambda: _pick_person(ctx, rng, ASSESSOR_WORDS))


def _vendor_contact(ctx: DocContext, rng: Rng) -> Entity:
    vendor = _vendor(ctx)

    return ctx.remember(("vendor_contact", vendor.id), lambda: _new_person(
        ctx, rng, rng.choice(CONTACT_ROLES), mail_at=vendor.name, organisation=vendor.name))


def _company_number(rng: Rng, country: str) -> str:
    """A registration number shaped the way the vendor's country writes it."""
    return draw_id(conventions.country_of({"country": country}).registers.vendor, rng)


def build_vendor_profile(ctx: DocContext, rng: Rng) -> list[Block]:
    """The vendor's registered identity and size, its contact, the assessor and the assessment date."""
    book = ctx.book
    vendor = _vendor(ctx)
    contact = _vendor_contact(ctx, rng)
    assessor = _assessor(ctx, rng)
    assessed = _assessment_date(ctx, rng)
    title = _caption(ctx, ["Vendor profile", f"Vendor profile: {vendor.name}"], table=False)
    bid = book.block_id()
    assert ctx.world is not None  # the vendor's size is a fact of the issuer's world, drawn by the vendor
    size = ctx.world.rng.fork("vendor", vendor.name)
    years = size.integers(3, 61)
    employees = int(round(10 ** size.uniform(1.2, 3.7)))
    per_head = Decimal(size.integers(60, 320)) * 1000
    fy = str(ctx.cal.fy)
    _, q_years = level(ctx, "records.years_trading", vendor.name, lambda r: years)
    _, q_emp = level(ctx, "records.employees", vendor.name, lambda r: employees)
    revenue, q_rev = ctx.booked_in("records.annual_revenue", vendor.name, fy, lambda r: (
        Decimal(employees) * per_head / 10000).quantize(Decimal(1), rounding=ROUND_HALF_EVEN) * 10000)
    country = vendor.attributes.get("country", "")
    f_name = book.org("Vendor assessed", vendor, attribute="vendor", group=bid)
    f_addr = book.text(f"Registered address of {vendor.name}", vendor.attributes["full"], subject=vendor.id,
                       attribute="registered_address", group=bid)
    f_no = book.ident(f"Company registration number of {vendor.name}", _company_number(rng, country),
                      scheme="company_number", subject=vendor.id, attribute="company_number", group=bid)
    f_years = book.number(f"Years trading of {vendor.name}", Decimal(years), "years", quantity="count",
                          subject=vendor.id, attribute="years_trading", group=bid, query=q_years)
    f_emp = book.number(f"Number of employees of {vendor.name}", Decimal(employees), "employees", quantity="count",
                        subject=vendor.id, attribute="employees", group=bid, query=q_emp)
    f_rev = book.money(f"Annual revenue of {vendor.name} in {fy}", revenue, subject=vendor.id,
                       attribute="annual_revenue", period=fy, group=bid, query=q_rev)
    f_contact = book.person(f"Main contact at {vendor.name}", contact, attribute="main_contact", group=bid)
    f_mail = book.text(f"Email address of {contact.name}", contact.attributes["email"], subject=contact.id,
                       attribute="email", group=bid)
    f_by = book.person(f"Assessor of {vendor.name}", assessor, attribute="assessor", group=bid)
    f_date = book.date(f"Assessment date of {vendor.name}", assessed, attribute="assessment_date", group=bid)
    fields = [
        FormField(label="Vendor", value=fs(f_name), field_type="text"),
        FormField(label="Registered address", value=fs(f_addr), field_type="text"),
        FormField(label="Company number", value=fs(f_no), field_type="identifier"),
        FormField(label="Years trading", value=fs(f_years), field_type="number"),
        FormField(label="Employees", value=fs(f_emp), field_type="number"),
        FormField(label=f"Annual revenue ({fy})", value=fs(f_rev), field_type="money"),
        FormField(label=f"Main contact ({contact.role})", value=fs(f_contact), field_type="person"),
        FormField(label="Contact email", value=fs(f_mail), field_type="text"),
        FormField(label="Assessed by", value=fs(f_by), field_type="person"),
        FormField(label="Assessment date", value=fs(f_date), field_type="date"),
    ]
    return [FormBlock(id=bid, title=title, fields=fields)]


CRITERIA_WEIGHTS = (("Price", 30), ("Quality", 25), ("Delivery", 15), ("Financial stability", 10),
                    ("Compliance", 10), ("Sustainability", 10))
"""The criteria of a supplier evaluation and the weights (in %) a buyer starts from before adjusting them."""
THRESHOLDS = (Decimal("3.00"), Decimal("3.25"), Decimal("3.50"), Decimal("3.75"))


def _weights(rng: Rng) -> list[tuple[str, int]]:
    """The criteria's weights, moved from the usual split in steps of 5 points (each at least 5), summing to 100."""
    w = [x for _, x in CRITERIA_WEIGHTS]
    for _ in range(rng.integers(1, 5)):
        a, b = rng.sample(range(len(w)), 2)
        if w[a] > 5:
            w[a] -= 5
            w[b] += 5
    return [(name, x) for (name, _), x in zip(CRITERIA_WEIGHTS, w, strict=True)]


def build_weighted_scoring(ctx: DocContext, rng: Rng) -> list[Block]:
    """Criterion | Weight (%) | Score (1-5) | Weighted score: the weighted score is the score at the weight
    (``percent_of``), both columns totalled; then the approval threshold and the outcome it gives."""
    book = ctx.book
    vendor = _vendor(ctx)
    caption = _caption(ctx, [f"Weighted scoring of {vendor.name}", "Evaluation scores by criterion",
                             f"Evaluation of {vendor.name} against the award criteria"])
    bid = book.block_id()
    assert ctx.world is not None  # the scoring is the issuer's evaluation of the vendor: drawn by the vendor
    plan = ctx.world.rng.fork("scoring", vendor.name)
    strength = plan.uniform(2.4, 4.6)  # how good the vendor is overall: scores scatter around it
    rows: list[list[Span]] = []
    weights: list[Fact] = []
    weighted: list[Fact] = []
    for crit, w in _weights(plan.fork("weights")):
        score = max(1, min(5, int(round(strength + plan.fork("score", crit).uniform(-1.2, 1.2)))))
        key = f"{vendor.name}: {crit.lower()}"
        _, q_w = level(ctx, "records.criterion_weight", key, lambda r, w=w: Decimal(w))
        _, q_s = level(ctx, "records.criterion_score", key, lambda r, score=score: Decimal(score))
        f_w = book.number(f"Weight of the {crit.lower()} criterion in the scoring of {vendor.name}", Decimal(w),
                          "%", quantity="amount", attribute="weight", group=bid, query=q_w)
        f_s = book.number(f"Score of {vendor.name} for {crit.lower()}", Decimal(score), "", quantity="index",
                          attribute="score", group=bid, query=q_s)
        exact = (Decimal(score) * Decimal(w) / HUNDRED).quantize(CENT, rounding=ROUND_HALF_EVEN)
        f_ws = book.number(f"Weighted score of {vendor.name} for {crit.lower()}", exact, "points", 2,
                           quantity="amount", attribute="weighted_score", group=bid,
                           derivation=Derivation(op="percent_of", operands=[f_s.id, f_w.id]))
        weights.append(f_w)
        weighted.append(f_ws)
        rows.append([lit(crit), fs(f_w), fs(f_s), fs(f_ws)])
    total_w = sum((f.value.value for f in weights), Decimal(0))
    total_ws = sum((f.value.value for f in weighted), Decimal(0))
    f_tw = book.number(f"Total weight of the criteria in the scoring of {vendor.name}", total_w, "%",
                       quantity="amount", attribute="weight_total", group=bid,
                       derivation=Derivation(op="sum", operands=[f.id for f in weights]))
    f_tws = book.number(f"Overall weighted score of {vendor.name}", total_ws, "points", 2, quantity="amount",
                        attribute="weighted_score_total", group=bid,
                        derivation=Derivation(op="sum", operands=[f.id for f in weighted]))
    rows.append([lit("Total"), fs(f_tw), lit(""), fs(f_tws)])
    table = TableBlock(id=bid, caption=caption, columns=["Criterion", "Weight (%)", "Score (1-5)", "Weighted score"],
                       rows=rows, total_row=True, numeric_columns=[1, 2, 3])

    nid = book.block_id()
    threshold, q_th = level(ctx, "records.approval_threshold", "vendor approval",
                            lambda r: Decimal(r.choice(THRESHOLDS)))  # one threshold in the issuer's procurement
    passed = f_tws.value.value >= threshold
    f_th = book.number(f"Weighted score at or above which a vendor is approved in {ctx.recipe.this_noun}", threshold,
                       "points", 2, quantity="amount", attribute="approval_threshold", group=nid, query=q_th)
    f_q = book.number(f"Overall weighted score of {vendor.name} stated with the approval threshold", total_ws,
                      "points", 2, quantity="amount", attribute="weighted_score_total", group=nid,
                      derivation=Derivation(op="quote", operands=[f_tws.id]))
    outcome = "recommended for approval" if passed else "not recommended for approval"
    f_out = book.text(f"Outcome of the weighted scoring of {vendor.name}", outcome, subject=vendor.id,
                      attribute="outcome", group=nid)
    relation = "meets" if passed else "falls short of"
    note = TextBlock(id=nid, spans=[
        lit("Vendors scoring "), fs(f_th), lit(" or more are approved. The vendor scored "), fs(f_q),
        lit(f", which {relation} the threshold, and is "), fs(f_out), lit(".")])
    return [table, note]


# ---------------------------------------------------------------- checklists and filing

VENDOR_CHECKS = ("Insurance certificate on file", "Sanctions screening clear", "Bank details verified by call-back",
                 "Anti-bribery policy received", "Data processing agreement signed", "Health and safety policy reviewed",
                 "Latest financial statements reviewed", "Modern slavery statement received",
                 "Conflict of interest declared", "Credit check completed", "ISO 9001 certificate valid",
                 "Two trade references obtained", "Business continuity plan reviewed")
VENDOR_WORDS = ("supplier", "contract", "insurance", "certificate", "conflict", "credit", "processor", "evidence",
                "references", "quotes")
"""Words of a domain's checks that are checks on a vendor (most domain checks are on a product or a case)."""
FORM_CHECKS = ("Form complete and signed", "Supporting documents attached", "Budget code valid",
               "Approver authority confirmed", "Segregation of duties respected", "No duplicate request found",
               "Cost estimate attached", "Policy exceptions noted", "Requester's line manager consulted",
               "Retention class assigned")


def build_review_checklist(ctx: DocContext, rng: Rng) -> list[Block]:
    """Check | Result (Yes/No) | Checked by | Date, 6-10 checks; then how many passed (counts of the results)."""
    book = ctx.book
    vendor_doc = ctx.recipe.slug == "vendor_assessment"
    ref = ctx.serial("RCL")
    if vendor_doc:
        vendor = _vendor(ctx)
        about = vendor.name
        caption = _caption(ctx, [f"Compliance checks on {vendor.name}", "Due diligence checklist",
                                 "Supplier compliance checklist"])
        own = [c for c in ctx.domain.checks if any(w in c.lower() for w in VENDOR_WORDS)]
        extra = list(VENDOR_CHECKS)
        last = _assessment_date(ctx, rng)
        people = [_assessor(ctx, rng), _pick_person(ctx, rng, ("compliance", "risk", "legal", "finance"),
                                                    exclude=(_assessor(ctx, rng).id,))]
    else:
        about = f"checklist {ref}"
        caption = _caption(ctx, ["Review checklist", "Reviewer's checklist", "Checklist of the review"])
        own, extra = list(ctx.domain.checks), list(FORM_CHECKS)
        last = ctx.day(-rng.integers(0, 8))
        first = _pick_person(ctx, rng, ("manager", "controller", "officer", "lead", "head"))
        people = [first, _pick_person(ctx, rng, (), exclude=(first.id,))]
    n = rng.integers(6, 11)
    n_own = min(len(own), rng.integers(1, 4) if vendor_doc else rng.integers(2, 5))
    checks = rng.sample(own, n_own)
    checks += rng.sample([c for c in extra if c not in checks], n - n_own)
    bid = book.block_id()
    n_fail = rng.choice((0, 0, 1, 1, 2))
    fails = set(rng.sample(range(n), n_fail))
    rows: list[list[Span]] = []
    results: list[Fact] = []
    passed: list[Fact] = []
    failed_names: list[str] = []
    day = last - dt.timedelta(days=rng.integers(0, 4))
    for i, check in enumerate(checks):
        ok = i not in fails
        who = people[0] if i < n / 2 or rng.bernoulli(0.3) else people[1]
        f_r = book.boolean(f"Result of the check '{check}' for {about}", ok, "Yes" if ok else "No",
                           attribute="check_result", group=bid)
        f_p = book.person(f"Person who checked '{check}' for {about}", who, attribute="checked_by", group=bid)
        f_d = book.date(f"Date of the check '{check}' for {about}", day, attribute="check_date", group=bid)
        results.append(f_r)
        if ok:
            passed.append(f_r)
        else:
            failed_names.append(check)
        rows.append([lit(check), fs(f_r), fs(f_p), fs(f_d)])
        if day < last and rng.bernoulli(0.35):
            day = day + dt.timedelta(days=1)
    table = TableBlock(id=bid, caption=caption, columns=["Check", "Passed", "Checked by", "Date"], rows=rows)

    nid = book.block_id()
    f_ref = book.ident(f"Reference of the review checklist for {about}" if vendor_doc else
                       f"Reference of the checklist '{caption}'", ref, scheme="reference", group=nid)
    f_pass = book.number(f"Number of checks passed for {about}", Decimal(len(passed)), "checks", quantity="count",
                         attribute="checks_passed", group=nid,
                         derivation=Derivation(op="count", operands=[f.id for f in passed]))
    f_all = book.number(f"Number of checks made for {about}", Decimal(len(results)), "checks", quantity="count",
                        attribute="checks_total", group=nid,
                        derivation=Derivation(op="count", operands=[f.id for f in results]))
    spans = [lit("Checklist "), fs(f_ref), lit(": "), fs(f_pass), lit(" of "), fs(f_all), lit(" checks passed")]
    if failed_names:
        word = _count_word(len(failed_names), "item remains", "items remain")
        spans.append(lit(f"; {len(failed_names)} {word} open ({'; '.join(failed_names)}) and must be cleared "
                         "before approval."))
    else:
        spans.append(lit("; no items remain open."))
    return [table, TextBlock(id=nid, spans=spans)]


FILED_FORMS = (("Purchase Requisition", 7), ("Payment Authorisation", 7), ("Change Request", 6),
               ("Access Request", 3), ("Expense Approval Form", 7), ("Vendor Registration Form", 6),
               ("Budget Transfer Request", 7), ("Contract Review Sheet", 10), ("Leave Request", 3),
               ("Quality Deviation Form", 10), ("Incident Notification", 10), ("Site Visit Report Form", 6))
"""Forms a form pack files and how many years each is kept (financial records 7, contracts and quality 10)."""


def build_filing_record(ctx: DocContext, rng: Rng) -> list[Block]:
    """Form | Reference | Filed on | Filed by | Retention (years) | Retain until (filed + the years, after the
    document's date)."""
    book = ctx.book
    caption = _caption(ctx, ["Filing record", "Record of forms filed", "Forms filed and retention"])
    bid = book.block_id()
    n = rng.integers(3, 7)
    forms = rng.sample(FILED_FORMS, n)
    clerk = _pick_person(ctx, rng, ("records", "administrator", "coordinator", "officer", "specialist"))
    offsets = sorted((rng.integers(0, 45) for _ in range(n)), reverse=True)
    rows: list[list[Span]] = []
    for (form, years), back in zip(forms, offsets, strict=True):
        ref = ctx.serial("".join(w[0] for w in form.split() if w[0].isupper()))
        filed = ctx.day(-back)
        who = clerk if rng.bernoulli(0.6) else ctx.person(rng)
        f_ref = book.ident(f"Reference of the filed {form}", ref, scheme="reference", group=bid)
        f_on = book.date(f"Filing date of {form} {ref}", filed, attribute="filed_date", group=bid)
        f_by = book.person(f"Person who filed {form} {ref}", who, attribute="filed_by", group=bid)
        kept, q = retention_years(ctx, form, years)
        f_y = book.number(f"Retention period of {form} {ref}", kept, "years", quantity="duration",
                          attribute="retention_years", group=bid, query=q)
        f_until = book.date(f"Retention end date of {form} {ref}", _add_years(filed, years),
                            attribute="retain_until", group=bid)
        rows.append([lit(form), fs(f_ref), fs(f_on), fs(f_by), fs(f_y), fs(f_until)])
    return [TableBlock(id=bid, caption=caption,
                       columns=["Form", "Reference", "Filed on", "Filed by", "Retention (years)", "Retain until"],
                       rows=rows, numeric_columns=[4])]


# ---------------------------------------------------------------- training record

CERTIFICATES: dict[str, tuple[tuple[str, int], ...]] = {
    "health": (("Basic Life Support", 12), ("Immediate Life Support", 12), ("Good Clinical Practice", 24),
               ("Infection Prevention and Control", 12), ("Safeguarding Adults Level 2", 36),
               ("Patient Moving and Handling", 12), ("GMP Fundamentals", 24), ("Fire Safety Awareness", 12)),
    "industrial": (("IOSH Managing Safely", 36), ("Working at Height", 36), ("Confined Space Entry", 12),
                   ("Forklift Operator (Counterbalance)", 36), ("Lock-out Tag-out Authorisation", 24),
                   ("First Aid at Work", 36), ("Abrasive Wheels", 36), ("Fire Warden", 36),
                   ("Electrical Safety Awareness", 24)),
    "people": (("First Aid at Work", 36), ("Mental Health First Aid", 36), ("Fire Warden", 36),
               ("Data Protection Essentials", 12), ("DSE Assessor", 36), ("Anti-Bribery and Corruption", 12),
               ("Recruitment and Selection", 24)),
    "public": (("Safeguarding Level 2", 36), ("First Aid at Work", 36), ("Fire Warden", 36),
               ("Data Protection Essentials", 12), ("Equality and Diversity", 24), ("Conflict Resolution", 36),
               ("Street Works Supervisor", 60)),
}
GENERAL_CERTIFICATES = (("First Aid at Work", 36), ("Fire Warden", 36), ("Data Protection Essentials", 12),
                        ("Manual Handling", 36), ("Health and Safety Induction", 24))
STAFF_ROLES = ("Technician", "Operator", "Coordinator", "Specialist", "Assistant", "Analyst", "Supervisor")


def _certificates(ctx: DocContext) -> tuple[tuple[str, int], ...]:
    for tag in ctx.domain.tags:
        if tag in CERTIFICATES:
            return CERTIFICATES[tag]
    return GENERAL_CERTIFICATES


def certificate_status(expires: dt.date, as_at: dt.date) -> str:
    if expires < as_at:
        return "Expired"
    if (expires - as_at).days <= EXPIRY_WINDOW:
        return f"Expiring within {EXPIRY_WINDOW} days"
    return "Valid"


def build_certifications(ctx: DocContext, rng: Rng) -> list[Block]:
    """Employee | Certificate | Issued | Validity (months) | Expires (issued + validity) | Status (from the expiry
    against the document's date); then the count of certificates expiring within 90 days (and expired)."""
    book = ctx.book
    caption = _caption(ctx, ["Certificates held", "Certification register", "Staff certificates and expiry dates"])
    n = rng.integers(5, 11)
    holders = rng.shuffled(ctx.people)[:max(0, min(len(ctx.people), n - 3))]
    while len(holders) < n:
        holders.append(_new_person(ctx, rng, rng.choice(STAFF_ROLES), department=rng.choice(ctx.domain.departments)))
    holders = rng.shuffled(holders)
    certs = _certificates(ctx)
    bid = book.block_id()
    entries = []
    expiring_row = rng.integers(0, n)
    for i, person in enumerate(holders):
        cert, months = rng.choice(certs)
        if i == expiring_row:  # a register worth printing has one renewal coming up
            issued = _add_months(ctx.day(rng.integers(5, EXPIRY_WINDOW - 5)), -months)
        else:
            issued = ctx.day(-rng.integers(20, months * 30 + 150))
        while any(c == cert and d == issued for _, c, _, d, _ in entries):  # one holder per certificate and day
            issued -= dt.timedelta(days=1)
        entries.append((person, cert, months, issued, _add_months(issued, months)))
    entries.sort(key=lambda e: (e[4], e[0].name))
    rows: list[list[Span]] = []
    expiring: list[Fact] = []
    expired: list[Fact] = []
    for person, cert, months, issued, expires in entries:
        status = certificate_status(expires, ctx.anchor)
        whose = f"the {cert} certificate of {person.name}"
        f_p = book.person(f"Holder of the {cert} certificate issued on {book.fmt.date(issued)}", person,
                          attribute="employee", group=bid)
        f_c = book.text(f"Certificate held by {person.name}", cert, subject=person.id, attribute="certificate",
                        group=bid)
        f_i = book.date(f"Issue date of {whose}", issued, subject=person.id, attribute="issue_date", group=bid)
        valid, q_valid = certificate_validity(ctx, cert, months)
        f_m = book.number(f"Validity in months of {whose}", valid, "months", quantity="duration",
                          subject=person.id, attribute="validity_months", group=bid, query=q_valid)
        f_e = book.date(f"Expiry date of {whose}", expires, subject=person.id, attribute="expiry_date", group=bid)
        f_s = book.text(f"Status of {whose}", status, subject=person.id, attribute="status", group=bid)
        if status == "Expired":
            expired.append(f_s)
        elif status != "Valid":
            expiring.append(f_s)
        rows.append([fs(f_p), fs(f_c), fs(f_i), fs(f_m), fs(f_e), fs(f_s)])
    table = TableBlock(id=bid, caption=caption,
                       columns=["Employee", "Certificate", "Issued", "Validity (months)", "Expires", "Status"],
                       rows=rows, numeric_columns=[3])

    nid = book.block_id()
    f_n = book.number(f"Number of certificates expiring within {EXPIRY_WINDOW} days of the date of "
                      f"{ctx.recipe.this_noun}", Decimal(len(expiring)), "certificates", quantity="count",
                      attribute="certificates_expiring", group=nid,
                      derivation=Derivation(op="count", operands=[f.id for f in expiring]))
    verb = _count_word(len(expiring), " certificate expires", " certificates expire")
    spans = [fs(f_n), lit(f"{verb} within {EXPIRY_WINDOW} days and must be renewed before the expiry date shown")]
    if expired:
        f_x = book.number(f"Number of expired certificates in {ctx.recipe.this_noun}", Decimal(len(expired)),
                          "certificates", quantity="count", attribute="certificates_expired", group=nid,
                          derivation=Derivation(op="count", operands=[f.id for f in expired]))
        spans += [lit("; "), fs(f_x), lit(_count_word(len(expired), " has already expired and its holder",
                                                       " have already expired and their holders")),
                  lit(" may not work unsupervised until re-certified.")]
    else:
        spans.append(lit("."))
    return [table, TextBlock(id=nid, spans=spans)]


# ---------------------------------------------------------------- field operations log

FIELD_ACTIVITIES: dict[str, tuple[str, ...]] = {
    "energy": ("Toolbox talk and permit briefing", "Isolation of feed pump for maintenance", "Gas test before hot work",
               "Vibration readings on main drive", "Thermographic survey of switchgear", "Valve inspection and greasing",
               "Oil sample from gearbox", "Filter change on hydraulic unit", "Calibration of pressure transmitters",
               "Cable tray inspection", "Housekeeping and waste segregation", "Fire pump weekly run"),
    "industrial": ("Toolbox talk and permit briefing", "Pre-start checks on mobile plant", "Lock-out for guard repair",
                   "Replacement of worn conveyor idlers", "Lubrication round", "Vibration readings on main drive",
                   "Calibration of weigh scales", "Filter change on hydraulic unit", "Housekeeping and waste segregation",
                   "Changeover and first-off inspection", "Compressed air leak survey", "Emergency stop function test"),
    "property": ("Fire alarm weekly test", "Emergency lighting check", "HVAC filter replacement",
                 "Roof drainage inspection", "Contractor induction", "Lift inspection with engineer",
                 "Water temperature checks", "Door access fault repair", "Plant room inspection",
                 "Grounds and car park walk", "Generator load test", "Sprinkler valve check"),
    "ops": ("Yard and dock inspection", "Forklift pre-use checks", "Racking inspection", "Inbound trailer unloading",
            "Cycle count of fast movers", "Damaged stock quarantine", "Battery charging bay check",
            "Dock leveller repair", "Outbound load audit", "Housekeeping and waste segregation",
            "Fire door and exit route check", "Vehicle defect check"),
    "public": ("Road patching on the high street", "Street lighting repairs", "Drain and gully clearing",
               "Footpath inspection", "Water main flushing", "Bus shelter repairs", "Graffiti removal",
               "Tree survey and pruning", "Signage replacement", "Playground safety inspection",
               "Fly-tip clearance", "Traffic management set-up"),
}
GENERAL_ACTIVITIES = FIELD_ACTIVITIES["industrial"]
FIELD_ROLES = ("Technician", "Fitter", "Electrician", "Operator", "Field Engineer")
CREWS = ("Crew A", "Crew B", "Mechanical crew", "E&I crew", "Day crew", "Contractor crew")
START_TIMES = ("06:30", "07:00", "07:30", "08:00", "09:00", "10:30", "11:00", "13:00", "13:30", "14:30", "15:00",
               "16:00")


def _activities(ctx: DocContext) -> tuple[str, ...]:
    for tag in ctx.domain.tags:
        if tag in FIELD_ACTIVITIES:
            return FIELD_ACTIVITIES[tag]
    return GENERAL_ACTIVITIES


def _field_staff(ctx: DocContext, rng: Rng) -> list[Entity]:
    """The document's field staff (technicians, fitters), made once: the cast holds managers."""
    return ctx.remember(("field_staff",), lambda: [
        _new_person(ctx, rng, rng.choice(FIELD_ROLES), department=rng.choice(ctx.domain.departments))
        for _ in range(rng.integers(2, 4))])


def build_daily_log(ctx: DocContext, rng: Rng) -> list[Block]:
    """Date | Time | Activity | Crew / by | Hours for 6-12 entries over several days up to the document's date
    (ascending), hours totalled."""
    book = ctx.book
    n = rng.integers(6, 13)
    n_days = rng.integers(3, 6)
    last = ctx.day(-rng.integers(0, 3))
    days = [last - dt.timedelta(days=k) for k in range(n_days - 1, -1, -1)]
    per_day = [1] * n_days
    for _ in range(n - n_days):
        per_day[rng.integers(0, n_days)] += 1
    while max(per_day) > len(START_TIMES):  # never: twelve entries at most
        per_day[per_day.index(max(per_day))] -= 1
    caption = _caption(ctx, [f"Daily log, {book.fmt.date(days[0])} to {book.fmt.date(days[-1])}", "Daily log",
                             "Log of field activity"])
    bid = book.block_id()
    acts = rng.sample(_activities(ctx), sum(per_day))
    staff = _field_staff(ctx, rng)
    rows: list[list[Span]] = []
    hours: list[Fact] = []
    k = 0
    for day, count in zip(days, per_day, strict=True):
        times = sorted(rng.sample(START_TIMES, count))
        for t in times:
            act = acts[k]
            k += 1
            f_d = book.date(f"Date of the log entry '{act}'", day, attribute="entry_date", group=bid)
            f_t = book.text(f"Start time of the log entry '{act}'", t, attribute="start_time", group=bid)
            f_a = book.text(f"Activity logged at {t} on {book.fmt.date(day)}", act, attribute="activity", group=bid)
            if rng.bernoulli(0.6):
                f_c = book.person(f"Person who carried out '{act}'", rng.choice(staff), attribute="performed_by",
                                  group=bid)
            else:
                f_c = book.text(f"Crew that carried out '{act}'", rng.choice(CREWS), attribute="crew", group=bid)
            month = day.year * 12 + day.month - 1
            h, q_h = ctx.booked("records.hours_logged", f"{day.isoformat()} {t}: {act}", month, 1, day.isoformat(),
                                lambda r: Decimal(r.integers(1, 17)) / 2)
            f_h = book.number(f"Hours logged for '{act}'", h, "hours", 1, quantity="duration", attribute="hours",
                              group=bid, query=q_h)
            hours.append(f_h)
            rows.append([fs(f_d), fs(f_t), fs(f_a), fs(f_c), fs(f_h)])
    total = sum((f.value.value for f in hours), Decimal(0))
    f_tot = book.number(f"Total hours logged from {book.fmt.date(days[0])} to {book.fmt.date(days[-1])}", total,
                        "hours", 1, quantity="duration", attribute="hours_total", group=bid,
                        derivation=Derivation(op="sum", operands=[f.id for f in hours]))
    rows.append([lit("Total"), lit(""), lit(""), lit(""), fs(f_tot)])
    return [TableBlock(id=bid, caption=caption, columns=["Date", "Time", "Activity", "Crew / by", "Hours"], rows=rows,
                       total_row=True, numeric_columns=[4])]


HANDOVER_CHECKS = ("Site left safe", "Isolations recorded", "Permits reconciled", "Tools and equipment stored",
                   "Logbook up to date", "Alarms acknowledged", "Waste removed from work areas",
                   "Vehicles parked and keys returned")
SHIFTS = (("06:00", "Night shift to day shift"), ("14:00", "Early shift to late shift"),
          ("18:00", "Day shift to night shift"), ("22:00", "Late shift to night shift"))
SITE_KINDS = frozenset({"plant", "site", "well", "building", "property", "pit", "zone", "facility", "production line",
                        "vessel", "work package", "ward", "line", "store", "hotel", "branch"})
"""Item kinds that are places a shift hands over (a product or a campaign is not)."""
SUPERVISOR_WORDS = ("supervisor", "manager", "superintendent", "engineer", "lead", "controller")


def build_handover(ctx: DocContext, rng: Rng) -> list[Block]:
    """Shift handover: outgoing and incoming supervisor, date, time and shift, open permits and outstanding
    defects (counts), the handover checks (boxes) and both signatures."""
    book = ctx.book
    day = ctx.day(-rng.integers(0, 3))
    title = _caption(ctx, ["Shift handover", f"Shift handover, {book.fmt.date(day)}"], table=False)
    bid = book.block_id()
    out = _pick_person(ctx, rng, SUPERVISOR_WORDS)
    inc = _pick_person(ctx, rng, SUPERVISOR_WORDS, exclude=(out.id,))
    time, shift = rng.choice(SHIFTS)
    when = f"the shift handover at {time} on {book.fmt.date(day)}"
    f_out = book.person(f"Outgoing supervisor at {when}", out, attribute="outgoing_supervisor", group=bid)
    f_inc = book.person(f"Incoming supervisor at {when}", inc, attribute="incoming_supervisor", group=bid)
    f_day = book.date(f"Date of the shift handover ({shift.lower()})", day, attribute="handover_date", group=bid)
    f_time = book.text(f"Time of the shift handover on {book.fmt.date(day)}", time, attribute="handover_time",
                       group=bid)
    f_shift = book.text(f"Shifts changing at {when}", shift, attribute="shift", group=bid)
    month = day.year * 12 + day.month - 1
    handover = f"{day.isoformat()} {time}"
    perm, q_perm = ctx.booked("records.open_permits", handover, month, 1, day.isoformat(),
                              lambda r: r.integers(0, 7))
    defects, q_def = ctx.booked("records.outstanding_defects", handover, month, 1, day.isoformat(),
                                lambda r: r.integers(0, 6))
    f_perm = book.number(f"Open permits to work at {when}", perm, "permits",
                         quantity="count", attribute="open_permits", group=bid, query=q_perm)
    f_def = book.number(f"Outstanding defects at {when}", defects, "defects", quantity="count",
                        attribute="outstanding_defects", group=bid, query=q_def)
    fields = []
    if ctx.domain.item_kind in SITE_KINDS:
        f_area = book.text(f"{ctx.domain.item_kind.capitalize()} handed over at {when}", rng.choice(ctx.domain.items),
                           attribute="area", group=bid)
        fields.append(FormField(label=ctx.domain.item_kind.capitalize(), value=fs(f_area), field_type="text"))
    fields += [
        FormField(label="Outgoing supervisor", value=fs(f_out), field_type="person"),
        FormField(label="Incoming supervisor", value=fs(f_inc), field_type="person"),
        FormField(label="Date", value=fs(f_day), field_type="date"),
        FormField(label="Time", value=fs(f_time), field_type="text"),
        FormField(label="Shift", value=fs(f_shift), field_type="text"),
        FormField(label="Open permits", value=fs(f_perm), field_type="number"),
        FormField(label="Outstanding defects", value=fs(f_def), field_type="number"),
    ]
    boxes = []
    for label in rng.sample(HANDOVER_CHECKS, rng.integers(3, 6)):
        state = rng.bernoulli(0.85)
        f = book.boolean(f"'{label}' confirmed at {when}", state, label, attribute="checkbox", group=bid)
        boxes.append(Checkbox(label=label, checked=state, fact_ids=[f.id]))
    return [FormBlock(id=bid, title=title, fields=fields, checkboxes=boxes, signature_lines=["Outgoing", "Incoming"])]


# ---------------------------------------------------------------- scanned archive

RECORD_CLASSES = (("Supplier correspondence", 6), ("Accounts payable records", 7), ("Contracts and agreements", 10),
                  ("Customer correspondence", 6), ("Project files", 10), ("Personnel records", 6),
                  ("Health and safety records", 10), ("Board and committee papers", 15))
"""Classes of records an archive file holds and the years a retention schedule keeps them after the file closes."""
RECORDS_WORDS = ("records", "administrator", "secretary", "compliance", "controller", "manager")
RECIPIENT_ROLES = ("Records Manager", "Office Manager", "Company Secretary", "Head of Administration",
                   "Accounts Payable Manager")


def _retention(ctx: DocContext, rng: Rng) -> tuple[str, int]:
    """The archive file's records class and retention period (years), one per document."""
    return ctx.remember(("archive_retention",), lambda: rng.choice(RECORD_CLASSES))


def build_cover_letter(ctx: DocContext, rng: Rng) -> list[Block]:
    """A letter sending the archive file: the sender's address and date, the recipient and its address, then
    the body citing the file reference, the number of documents enclosed and the retention period, signed."""
    book = ctx.book
    ref = ctx.doc_reference()
    issuer = ctx.issuer
    cp = ctx.counterparty(rng)
    sender = _pick_person(ctx, rng, RECORDS_WORDS)
    recipient = ctx.remember(("letter_recipient", cp.id), lambda: _new_person(
        ctx, rng, rng.choice(RECIPIENT_ROLES), mail_at=cp.name, organisation=cp.name))
    records_class, years = _retention(ctx, rng)
    sent = ctx.day(-rng.integers(0, 10))

    a = book.block_id()
    f_from = book.org("Sender of the cover letter", issuer, attribute="sender_organisation", group=a)
    f_addr = book.text(f"Registered address of {issuer.name}", issuer.attributes["full"], subject=issuer.id,
                       attribute="registered_address", group=a)
    f_date = book.date("Date of the cover letter", sent, attribute="letter_date", group=a)
    head = TextBlock(id=a, spans=[fs(f_from), lit(", "), fs(f_addr), lit(". "), fs(f_date)])

    b = book.block_id()
    f_to = book.person("Addressee of the cover letter", recipient, attribute="addressee", group=b)
    f_role = book.text(f"Position of {recipient.name}", recipient.role, subject=recipient.id, attribute="role",
                       group=b)
    f_org = book.org("Organisation the cover letter is addressed to", cp, attribute="recipient_organisation", group=b)
    f_cp_addr = book.text(f"Registered address of {cp.name}", cp.attributes["full"], subject=cp.id,
                          attribute="registered_address", group=b)
    to = TextBlock(id=b, spans=[fs(f_to), lit(", "), fs(f_role), lit(", "), fs(f_org), lit(", "), fs(f_cp_addr)])

    c = book.block_id()
    f_dear = book.person("Person greeted in the cover letter", recipient, attribute="salutation", group=c)
    f_ref = book.ident("File reference quoted in the cover letter", ref, scheme="reference", group=c)
    n_docs, q_docs = documents_enclosed(ctx, ref, 6, 60)
    f_n = book.number(f"Number of documents enclosed with the cover letter for file {ref}", n_docs,
                      "documents", quantity="count", attribute="documents_enclosed", group=c, query=q_docs)
    f_cls = book.text(f"Records class of archive file {ref} stated in the cover letter", records_class.lower(),
                      attribute="records_class", group=c)
    kept, q_kept = retention_years(ctx, records_class, years)
    f_y = book.number(f"Retention period of archive file {ref}", kept, "years", quantity="duration",
                      attribute="retention_years", group=c, query=q_kept)
    f_sig = book.person("Signatory of the cover letter", sender, attribute="signatory", group=c)
    f_pos = book.text(f"Position of {sender.name}", sender.role, subject=sender.id, attribute="role", group=c)
    body = TextBlock(id=c, spans=[
        lit("Dear "), fs(f_dear), lit(", please find enclosed archive file "), fs(f_ref), lit(", comprising "),
        fs(f_n), lit(" scanned documents filed under "), fs(f_cls), lit(". The originals are kept for "),
        fs(f_y), lit(" years after the file closes and then destroyed unless a legal hold applies; please tell us "
                     "within 30 days if any item is missing or should be kept longer. Yours sincerely, "),
        fs(f_sig), lit(", "), fs(f_pos), lit(".")])
    return [head, to, body]


def build_retention_note(ctx: DocContext, rng: Rng) -> list[Block]:
    """Retention note: file reference, records class, closing date, retention period (years), the date the file
    is destroyed or reviewed (closing date + the years, after the document's date), approver and date, and a
    legal hold box."""
    book = ctx.book
    ref = ctx.doc_reference()
    records_class, years = _retention(ctx, rng)
    title = _caption(ctx, ["Retention note", f"Retention note for file {ref}"], table=False)
    bid = book.block_id()
    closed = ctx.day(-rng.integers(30, 720))
    while _add_years(closed, years) <= ctx.anchor:  # never: six years at least
        closed = closed + dt.timedelta(days=365)
    hold = rng.bernoulli(0.2)
    until = _add_years(closed, years)
    approver = _pick_person(ctx, rng, RECORDS_WORDS)
    approved = ctx.day(-rng.integers(0, min(25, (ctx.anchor - closed).days) + 1))
    f_ref = book.ident("Reference of the archive file under retention", ref, scheme="reference", group=bid)
    f_cls = book.text(f"Records class of archive file {ref}", records_class, attribute="records_class", group=bid)
    f_closed = book.date(f"Closing date of archive file {ref}", closed, attribute="closed_date", group=bid)
    kept, q_kept = retention_years(ctx, records_class, years)
    f_y = book.number(f"Retention period of archive file {ref}", kept, "years", quantity="duration",
                      attribute="retention_years", group=bid, query=q_kept)
    what = "Review" if hold else "Destruction"
    f_until = book.date(f"{what} date of archive file {ref}", until,
                        attribute="review_date" if hold else "destroy_date", group=bid)
    f_by = book.person(f"Approver of the retention of archive file {ref}", approver, attribute="approver", group=bid)
    f_on = book.date(f"Approval date of the retention note for archive file {ref}", approved,
                     attribute="approval_date", group=bid)
    fields = [
        FormField(label="File reference", value=fs(f_ref), field_type="identifier"),
        FormField(label="Records class", value=fs(f_cls), field_type="text"),
        FormField(label="File closed", value=fs(f_closed), field_type="date"),
        FormField(label="Retention period (years)", value=fs(f_y), field_type="number"),
        FormField(label="Review date (destruction suspended)" if hold else "Destroy on", value=fs(f_until),
                  field_type="date"),
        FormField(label="Approved by", value=fs(f_by), field_type="person"),
        FormField(label="Date approved", value=fs(f_on), field_type="date"),
    ]
    f_hold = book.boolean(f"Legal hold on archive file {ref}", hold, "Legal hold", attribute="legal_hold", group=bid)
    return [FormBlock(id=bid, title=title, fields=fields,
                      checkboxes=[Checkbox(label="Legal hold", checked=hold, fact_ids=[f_hold.id])],
                      signature_lines=["Records manager"])]


ACTION_PLAN_TITLES = {"incident_report": "Corrective actions", "risk_assessment": "Mitigation actions",
                      "compliance_report": "Remediation plan", "audit_memo": "Agreed actions"}
"""What a genre calls its plan of actions (its caption, with the period it runs to)."""


def build_action_plan(ctx: DocContext, rng: Rng) -> list[Block]:
    """The genre's plan of actions: each action with its owner, due date and status (the general action table,
    ``tables.action_table``, under the genre's own title: corrective actions of an incident, mitigation
    actions of a risk assessment, a compliance report's remediation plan)."""
    from ..tables import action_table

    table = action_table(ctx, rng, rng.integers(4, 8))
    title = ACTION_PLAN_TITLES.get(ctx.recipe.slug, "Action plan")
    caption = f"{title} at {ctx.fmt.date(ctx.anchor)}"
    if table.caption.startswith("Table ") and ctx.caption_free(caption) and table.columns[0] == "Action":
        no = table.caption.split(".")[0]
        table = table.model_copy(update={"caption": f"{no}. {ctx.claim_caption(caption)}"})
    return [table]


BLOCKS: dict[str, Builder] = {
    "action_plan": build_action_plan,
    "vendor_profile": build_vendor_profile,
    "weighted_scoring": build_weighted_scoring,
    "review_checklist": build_review_checklist,
    "filing_record": build_filing_record,
    "certifications": build_certifications,
    "daily_log": build_daily_log,
    "handover": build_handover,
    "cover_letter": build_cover_letter,
    "retention_note": build_retention_note,
}
