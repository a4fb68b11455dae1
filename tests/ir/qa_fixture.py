"""A small hand-built document covering every QA source, with a RenderMap that 'draws' every fact span."""

import datetime as dt
from decimal import Decimal

from ir import (
    AnnotationBlock,
    Checkbox,
    DocumentIR,
    Entity,
    Fact,
    FigureBlock,
    FormBlock,
    FormField,
    HeadingBlock,
    ListBlock,
    PagePlan,
    PerturbationProfile,
    RenderedPage,
    RenderMap,
    Series,
    Span,
    SpanBox,
    TableBlock,
    TextBlock,
)
from ir.blocks import fact_spans
from ir.facts import Derivation
from ir.values import BooleanValue, DateValue, MoneyValue, PercentValue, PersonValue, TextValue


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
        fa = fact(f"FY2024 revenue of {r}", MoneyValue(amount=a, currency="USD"), f"${a:,.2f}")
        fb = fact(f"FY2025 revenue of {r}", MoneyValue(amount=b, currency="USD"), f"${b:,.2f}")
        cells24.append(fa)
        cells25.append(fb)
        rows.append([Span(text=r), Span(text=fa.text, fact_ids=[fa.id]), Span(text=fb.text, fact_ids=[fb.id])])
    t24 = fact("FY2024 total revenue", MoneyValue(amount=sum(fy24), currency="USD"), f"${sum(fy24):,.2f}",
               derivation=Derivation(op="sum", operands=[f.id for f in cells24]))
    t25 = fact("FY2025 total revenue", MoneyValue(amount=sum(fy25), currency="USD"), f"${sum(fy25):,.2f}",
               derivation=Derivation(op="sum", operands=[f.id for f in cells25]))
    rows.append([Span(text="Total"), Span(text=t24.text, fact_ids=[t24.id]), Span(text=t25.text, fact_ids=[t25.id])])
    table = TableBlock(id="b001", caption="Revenue by region", columns=["Region", "FY2024", "FY2025"], rows=rows,
                       total_row=True, numeric_columns=[1, 2])
    shares = [fact(f"Share of {r}", PercentValue(value=Decimal(v)), f"{v}%") for r, v in
              zip(regions, ("30.5", "22.0", "35.5", "12.0"), strict=True)]
    fig = FigureBlock(id="b002", chart="pie", title="Revenue share FY2025", categories=regions,
                      series=[Series(name="Share", points=[Span(text=f.text, fact_ids=[f.id]) for f in shares],
                                     values=[float(f.value.value) for f in shares])])
    ent = Entity(id="e001", kind="person", name="Dana Whitfield", role="Chief Financial Officer")
    name = fact("Name of the Chief Financial Officer", PersonValue(name=ent.name, entity_id=ent.id), ent.name,
                subject=ent.id)
    phone = fact("Direct line of Dana Whitfield", TextValue(value="+1 415 555 0134"), "+1 415 555 0134",
                 subject=ent.id, attribute="direct_line")
    issued = fact("Issue date", DateValue(value=dt.date(2026, 3, 2)), "2 March 2026")
    due = fact("Due date", DateValue(value=dt.date(2026, 4, 1)), "1 April 2026")
    approved = fact("Budget approved", BooleanValue(value=True), "Budget approved")
    form = FormBlock(id="b003", title="Expense approval", fields=[
        FormField(label="Issue date", value=Span(text=issued.text, fact_ids=[issued.id]), field_type="date"),
        FormField(label="Due date", value=Span(text=due.text, fact_ids=[due.id]), field_type="date")],
        checkboxes=[Checkbox(label="Budget approved", checked=True, fact_ids=[approved.id])])
    stamp_date = fact("Approval stamp date", DateValue(value=dt.date(2026, 3, 5)), "05 MAR 2026")
    stamp = AnnotationBlock(id="b004", kind="stamp", spans=[Span(text="APPROVED "),
                                                            Span(text=stamp_date.text, fact_ids=[stamp_date.id])])
    sig = AnnotationBlock(id="b005", kind="signature", spans=[Span(text=name.text, fact_ids=[name.id])])
    text = TextBlock(id="b006", spans=[Span(text="Questions may be directed to the CFO on "),
                                       Span(text=phone.text, fact_ids=[phone.id]), Span(text=".")])
    items = [fact(f"Action item {i}", TextValue(value=t), t) for i, t in
             enumerate(["Renew the vendor contract", "Close the audit finding", "Update the risk register"], 1)]
    lst = ListBlock(id="b007", title="Open actions", items=[[Span(text=f.text, fact_ids=[f.id])] for f in items])
    pages = [PagePlan(page_no=1, blocks=[HeadingBlock(id="b000", spans=[Span(text="Quarterly review")]), table,
                                         fig, sig]),
             PagePlan(page_no=2, blocks=[form, stamp, text, lst])]
    return DocumentIR(doc_id="doc-00000", index=0, seed=11, seed_path=["doc", 0], domain="finance",
                      recipe="annual_report", title="Quarterly review", topic_brief="A review.", entities=[ent],
                      facts=facts, pages=pages, perturbation=PerturbationProfile(tier="good"))


def fixture_render_map(doc: DocumentIR) -> RenderMap:
    spans = []
    for page in doc.pages:
        y = 72.0
        for b in page.blocks:
            for s in fact_spans(b):
                spans.append(SpanBox(block_id=b.id, fact_ids=s.fact_ids, page_no=page.page_no,
                                     bbox=(72.0, y, 72.0 + 6 * len(s.text), y + 10), text=s.text))
                y += 14
    return RenderMap(doc_id=doc.doc_id, pages=[RenderedPage(page_no=p.page_no, width=612, height=792)
                                               for p in doc.pages], spans=spans)
