"""Hand-built IR fixtures covering every block type, long tables and markup-like text."""

from __future__ import annotations

import pytest

from synthdocqa.ir import (
    AnnotationBlock,
    Checkbox,
    DocumentIR,
    Entity,
    Fact,
    FigureBlock,
    FootnoteBlock,
    FormBlock,
    FormField,
    HeadingBlock,
    ListBlock,
    PagePlan,
    PerturbationProfile,
    Series,
    Span,
    TableBlock,
    TextBlock,
    TextValue,
)
from synthdocqa.ir.values import BooleanValue


class DocBuilder:
    """Creates facts on the fly: ``b.span("$4.2M")`` returns a Span carrying a new fact."""

    def __init__(self) -> None:
        self.facts: list[Fact] = []
        self.n_block = 0

    def span(self, text: str) -> Span:
        fid = f"f{len(self.facts) + 1:04d}"
        self.facts.append(Fact(id=fid, label=f"fact {fid}", value=TextValue(value=text), text=text))
        return Span(text=text, fact_ids=[fid])

    def bool_fact(self, label: str, value: bool) -> list[str]:
        fid = f"f{len(self.facts) + 1:04d}"
        self.facts.append(Fact(id=fid, label=label, value=BooleanValue(value=value), text=label))
        return [fid]

    def bid(self) -> str:
        self.n_block += 1
        return f"b{self.n_block:03d}"

    def doc(self, pages: list[list], doc_id: str = "doc-0001", seed: int = 7, style_family: str = "corporate",
            layout_ids: list[str | None] | None = None) -> DocumentIR:
        plans = [PagePlan(page_no=i + 1, blocks=blocks,
                          layout_id=(layout_ids[i] if layout_ids else None)) for i, blocks in enumerate(pages)]
        return DocumentIR(
            doc_id=doc_id, index=0, seed=seed, seed_path=["doc", 0], domain="corporate_finance", recipe="quarterly_report",
            title="Quarterly Report <Q3> & Outlook", topic_brief="Q3 results of Northwind & Co.",
            style_family=style_family,
            entities=[Entity(id="e001", kind="organisation", name="Northwind & Co. <Holdings>")],
            facts=self.facts, pages=plans, perturbation=PerturbationProfile(tier="pristine"))


def all_blocks(b: DocBuilder) -> list[list]:
    """Two IR pages that hold every block type (page 2 has a long multi-page table)."""
    p1 = [
        HeadingBlock(id=b.bid(), level=1, spans=[Span(text="Results for "), b.span("Q3 2026")]),
        TextBlock(id=b.bid(), spans=[
            Span(text="Revenue rose to "), b.span("$4,218.6 million"), Span(text=" while <b>operating</b> margin "
                                                                             "reached "),
            b.span("18.4%"), Span(text=". Costs & expenses were "), b.span("$3,442.1 million"),
            Span(text=" and the board approved a dividend of "), b.span("$0.42 per share"),
            Span(text=" payable on "), b.span("15 November 2026"),
            Span(text=". Management notes that markup such as <i>x</i> &amp; <br/> is literal text."),
        ]),
        ListBlock(id=b.bid(), title="Highlights", items=[
            [Span(text="Net income: "), b.span("$612.9 million")],
            [Span(text="Headcount grew to "), b.span("12,480"), Span(text=" employees across 14 countries")],
            [b.span("Free cash flow of $401.0 million"), Span(text=" exceeded guidance.")],
        ]),
        FigureBlock(id=b.bid(), chart="bar", title="Revenue by region ($M)", categories=["EMEA", "Americas", "APAC"],
                    series=[Series(name="Q3", points=[b.span("1,402.3"), b.span("2,110.8"), b.span("705.5")],
                                   values=[1402.3, 2110.8, 705.5])],
                    unit_label="$ million", caption="Source: internal ledger"),
        FootnoteBlock(id=b.bid(), marker="1", spans=[Span(text="Unaudited; see note "), b.span("7.2")]),
        AnnotationBlock(id=b.bid(), kind="stamp", spans=[b.span("APPROVED"), b.span("2026-10-02")], rotation=12),
    ]
    rows = [[b.span(f"INV-{1000 + i}"), Span(text=f"Item <{i}> & co"), b.span(f"{(i * 37.5) % 900 + 10:,.2f}"),
             b.span(f"2026-0{1 + i % 9}-1{i % 10}")] for i in range(70)]
    p2 = [
        HeadingBlock(id=b.bid(), level=2, spans=[Span(text="Invoice register")]),
        TableBlock(id=b.bid(), caption="Table 1: Open invoices", columns=["Invoice", "Description", "Amount", "Due"],
                   rows=rows, numeric_columns=[2]),
        FormBlock(id=b.bid(), title="Expense claim", fields=[
            FormField(label="Employee", value=b.span("Dana O'Neil"), field_type="person"),
            FormField(label="Amount", value=b.span("$1,245.00"), field_type="money"),
            FormField(label="Cost centre", value=b.span("CC-4410"), field_type="identifier"),
            FormField(label="Date", value=b.span("2026-09-30"), field_type="date"),
            FormField(label="Purpose", value=b.span("Client workshop travel <Berlin> & accommodation"),
                      field_type="text"),
        ], checkboxes=[Checkbox(label="Receipts attached", checked=True, fact_ids=b.bool_fact("Receipts attached",
                                                                                             True)),
                       Checkbox(label="Pre-approved", checked=False, fact_ids=b.bool_fact("Pre-approved", False))],
            signature_lines=["Employee signature", "Manager approval"]),
        FigureBlock(id=b.bid(), chart="line", title="Monthly active users", categories=["Jul", "Aug", "Sep", "Oct"],
                    series=[Series(name="Users", points=[b.span("81k"), b.span("86k"), b.span("93k"), b.span("97k")],
                                   values=[81, 86, 93, 97])]),
        FigureBlock(id=b.bid(), chart="pie", title="Spend by category",
                    categories=["Cloud", "Payroll", "Facilities", "Other"],
                    series=[Series(name="Share", points=[b.span("38.5%"), b.span("41.0%"), b.span("12.3%"),
                                                         b.span("8.2%")], values=[38.5, 41.0, 12.3, 8.2])]),
        AnnotationBlock(id=b.bid(), kind="handwritten_note", spans=[Span(text="Check with "), b.span("Priya"),
                                                                     Span(text=" before "), b.span("Friday")],
                        rotation=-3, color="#1a3a8f"),
        AnnotationBlock(id=b.bid(), kind="signature", spans=[b.span("Marcus Feld"), b.span("Chief Financial Officer"),
                                                              b.span("30 September 2026")]),
        AnnotationBlock(id=b.bid(), kind="highlight", spans=[Span(text="Key point: "), b.span("liquidity of $2.1bn")],
                        target_block_id="b002"),
    ]
    return [p1, p2]


@pytest.fixture
def full_doc() -> DocumentIR:
    b = DocBuilder()
    return b.doc(all_blocks(b))
