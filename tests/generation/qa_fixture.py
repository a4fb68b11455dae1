"""A small hand-built document covering every QA source (``generation.qa.drawn_render_map`` draws its spans).

Page 1: a revenue table by region (two periods, a total row) and a pie chart of shares (rates); page 2: a
form, a stamp, a contact paragraph and an action list (action, owner, due date); page 3: an action tracker
table with the same actions (owner, due date, status), a bar chart of headcounts by region (counts) and a
line chart of one region's revenue over the two periods.
"""

import datetime as dt
from decimal import Decimal

from synthdocqa.ir.blocks import (
    AnnotationBlock,
    Checkbox,
    FigureBlock,
    FormBlock,
    FormField,
    HeadingBlock,
    ListBlock,
    Series,
    Span,
    TableBlock,
    TextBlock,
)
from synthdocqa.ir.document import DocumentIR, PagePlan
from synthdocqa.ir.facts import Derivation, Entity, Fact
from synthdocqa.ir.perturbation import PerturbationProfile
from synthdocqa.ir.values import (
    BooleanValue,
    DateValue,
    MoneyValue,
    NumberValue,
    PercentValue,
    PersonValue,
    TextValue,
)

ACTIONS = (("Renew the vendor contract", 0, dt.date(2026, 4, 20), "Open"),
           ("Close the audit finding", 1, dt.date(2026, 5, 4), "Overdue"),
           ("Update the risk register", 0, dt.date(2026, 6, 1), "Open"),
           ("Train the approvers", 1, dt.date(2026, 4, 27), "Done"))


def fixture_doc() -> DocumentIR:
    facts: list[Fact] = []

    def fact(label, value, text, **kw):
        f = Fact(id=f"f{len(facts) + 1:04d}", label=label, value=value, text=text, **kw)
        facts.append(f)
        return f

    regions = ["North", "South", "East", "West"]
    fy24 = [Decimal(v) for v in ("1200.00", "950.50", "1780.25", "640.00")]
    fy25 = [Decimal(v) for v in ("1320.00", "990.00", "1650.75", "720.40")]
    rows = []
    cells24, cells25 = [], []
    for r, a, b in zip(regions, fy24, fy25, strict=True):
        fa = fact(f"Revenue of {r} in FY2024", MoneyValue(amount=a, currency="USD"), f"${a:,.2f}",
                  attribute="revenue", period="FY2024")
        fb = fact(f"Revenue of {r} in FY2025", MoneyValue(amount=b, currency="USD"), f"${b:,.2f}",
                  attribute="revenue", period="FY2025")
        cells24.append(fa)
        cells25.append(fb)
        rows.append([Span(text=r), Span(text=fa.text, fact_ids=[fa.id]), Span(text=fb.text, fact_ids=[fb.id])])
    t24 = fact("Total revenue in FY2024 (Table 1)", MoneyValue(amount=sum(fy24), currency="USD"), f"${sum(fy24):,.2f}",
               derivation=Derivation(op="sum", operands=[f.id for f in cells24]), period="FY2024")
    t25 = fact("Total revenue in FY2025 (Table 1)", MoneyValue(amount=sum(fy25), currency="USD"), f"${sum(fy25):,.2f}",
               derivation=Derivation(op="sum", operands=[f.id for f in cells25]), period="FY2025")
    rows.append([Span(text="Total"), Span(text=t24.text, fact_ids=[t24.id]), Span(text=t25.text, fact_ids=[t25.id])])
    table = TableBlock(id="b001", caption="Table 1. Revenue by region", columns=["Region", "Revenue FY2024 (USD)",
                                                                               "Revenue FY2025 (USD)"],
                       rows=rows, total_row=True, numeric_columns=[1, 2])
    shares = [fact(f"Share of {r} in revenue (FY2025) shown in Figure 1", PercentValue(value=Decimal(v)), f"{v}%",
                   attribute="revenue_share", period="FY2025")
              for r, v in zip(regions, ("30.5", "22.0", "35.5", "12.0"), strict=True)]
    fig = FigureBlock(id="b002", chart="pie", title="Figure 1. Revenue share FY2025", categories=regions,
                      series=[Series(name="Share", points=[Span(text=f.text, fact_ids=[f.id]) for f in shares],
                                     values=[float(f.value.value) for f in shares])])
    ent = Entity(id="e001", kind="person", name="Dana Whitfield", role="Chief Financial Officer")
    lead = Entity(id="e002", kind="person", name="Malik Osei", role="Procurement Lead")
    people = (ent, lead)
    name = fact("Name of the Chief Financial Officer", PersonValue(name=ent.name, entity_id=ent.id), ent.name,
                subject=ent.id)
    phone = fact("Direct line of Dana Whitfield", TextValue(value="+1 415 555 0134"), "+1 415 555 0134",
                 subject=ent.id, attribute="direct_line")
    issued = fact("Issue date", DateValue(value=dt.date(2026, 3, 2)), "2 March 2026")
    due = fact("Due date", DateValue(value=dt.date(2026, 4, 1)), "1 April 2026")
    approved = fact("Budget approved", BooleanValue(value=True), "Budget approved")
    requester = fact("Requester on the Expense approval EXP-7", PersonValue(name=lead.name, entity_id=lead.id),
                     lead.name, attribute="requester")
    form = FormBlock(id="b003", title="Expense approval", fields=[
        FormField(label="Requested by", value=Span(text=requester.text, fact_ids=[requester.id]), field_type="person"),
        FormField(label="Issue date", value=Span(text=issued.text, fact_ids=[issued.id]), field_type="date"),
        FormField(label="Due date", value=Span(text=due.text, fact_ids=[due.id]), field_type="date")],
        checkboxes=[Checkbox(label="Budget approved", checked=True, fact_ids=[approved.id])])
    stamp_date = fact("Approval stamp date", DateValue(value=dt.date(2026, 3, 5)), "05 MAR 2026")
    stamp = AnnotationBlock(id="b004", kind="stamp", spans=[Span(text="APPROVED "),
                                                            Span(text=stamp_date.text, fact_ids=[stamp_date.id])])
    sig = AnnotationBlock(id="b005", kind="signature", spans=[Span(text=name.text, fact_ids=[name.id])])
    contact = fact("Contact person for this review", PersonValue(name=ent.name, entity_id=ent.id), ent.name,
                   subject=ent.id, attribute="name")
    text = TextBlock(id="b006", spans=[Span(text="Questions may be directed to "),
                                       Span(text=contact.text, fact_ids=[contact.id]), Span(text=", CFO, on "),
                                       Span(text=phone.text, fact_ids=[phone.id]), Span(text=".")])

    def action_facts(where: str, k: int, act, owner_i, due_d, status=None):
        p = people[owner_i]
        fa = fact(f"Item {k} of the list 'Open actions'" if where == "list" else f"Action {k} in Table 2",
                  TextValue(value=act), act, attribute="action")
        fo = fact(f"Owner of the action '{act}'", PersonValue(name=p.name, entity_id=p.id), p.name,
                  subject=p.id, attribute="owner")
        fd = fact(f"Due date of the action '{act}'", DateValue(value=due_d), f"{due_d.day} {due_d:%B %Y}",
                  attribute="due_date")
        fs = fact(f"Status of the action '{act}'", TextValue(value=status), status, attribute="status") \
            if status else None
        return fa, fo, fd, fs

    items = []
    for k, (act, owner_i, due_d, _) in enumerate(ACTIONS[:3], 1):
        fa, fo, fd, _ = action_facts("list", k, act, owner_i, due_d)
        items.append([Span(text=fa.text, fact_ids=[fa.id]), Span(text=" - owner: "),
                      Span(text=fo.text, fact_ids=[fo.id]), Span(text=", due "), Span(text=fd.text, fact_ids=[fd.id])])
    lst = ListBlock(id="b007", title="Open actions", items=items)
    tracker_rows = []
    for k, (act, owner_i, due_d, status) in enumerate(ACTIONS, 1):
        fa, fo, fd, fs = action_facts("table", k, act, owner_i, due_d, status)
        tracker_rows.append([Span(text=f.text, fact_ids=[f.id]) for f in (fa, fo, fd, fs)])
    tracker = TableBlock(id="b008", caption="Table 2. Action tracker", columns=["Action", "Owner", "Due date", "Status"],
                         rows=tracker_rows)
    heads = [fact(f"Headcount of {r} in FY2025 shown in Figure 2", NumberValue(value=Decimal(v), unit="employees"), v,
                  attribute="headcount", period="FY2025") for r, v in zip(regions, ("42", "17", "55", "1"), strict=True)]
    bars = FigureBlock(id="b009", chart="bar", title="Figure 2. Headcount by region", categories=regions,
                       series=[Series(name="FY2025", points=[Span(text=f.text, fact_ids=[f.id]) for f in heads],
                                      values=[float(f.value.value) for f in heads])])
    east = [fact(f"Revenue of East in {y} shown in Figure 3", MoneyValue(amount=v, currency="USD"), f"${v:,.2f}",
                 attribute="revenue", period=y) for y, v in (("FY2024", fy24[2]), ("FY2025", fy25[2]))]
    line = FigureBlock(id="b010", chart="line", title="Figure 3. Revenue of East, FY2024 to FY2025",
                       categories=["FY2024", "FY2025"],
                       series=[Series(name="East", points=[Span(text=f.text, fact_ids=[f.id]) for f in east],
                                      values=[float(f.value.amount) for f in east])])
    pages = [PagePlan(page_no=1, blocks=[HeadingBlock(id="b000", spans=[Span(text="Quarterly review")]), table,
                                         fig, sig]),
             PagePlan(page_no=2, blocks=[form, stamp, text, lst]),
             PagePlan(page_no=3, blocks=[tracker, bars, line])]
    return DocumentIR(doc_id="doc-00000", index=0, seed=11, seed_path=["doc", 0], domain="corporate_finance",
                      recipe="annual_report", title="Quarterly review", topic_brief="A review.", entities=[ent, lead],
                      facts=facts, pages=pages, perturbation=PerturbationProfile(tier="good"))
